#pragma once
// Note [elementwise loops]
// Every elementwise kernel builds a TensorIterator and hands it a 1-D loop. The iterator owns broadcasting,
// type promotion, output allocation (or checking and resizing out=), strides and threading; kernels own only
// the arithmetic. Operand 0 is the output; the others are inputs, already converted to the compute dtype.
// Dims are reordered so the output's fastest dim is innermost, then adjacent dims that are contiguous for
// every operand are merged, so a contiguous tensor of any rank is one 1-D loop. The loop receives byte
// strides; an innermost stride equal to the element size (or 0 for a broadcast scalar) lets the kernel take
// a contiguous fast path that the compiler vectorizes.
#include <array>
#include <functional>
#include <optional>

#include "ember/base/SmallVector.h"
#include "ember/core/Tensor.h"
#include "ember/kernels/cpu/Parallel.h"

namespace ember::cpu {

/// How an elementwise op chooses its dtypes.
struct IterConfig {
  const char* name = "";
  bool promote_inputs = true;          // inputs are converted to the common dtype (result_type)
  bool int_to_float = false;           // an integral or bool common dtype becomes the default float dtype
  std::optional<DType> output_dtype;   // fixed output dtype (bool for comparisons); else the common dtype
  std::optional<DType> compute_dtype;  // overrides the common dtype (inputs converted to it)
  bool is_inplace = false;             // output is input 0 (shape must already equal the broadcast shape)
  bool check_cast = true;              // apply PyTorch's can_cast rule to out= and in-place outputs
  bool same_dtype_out = false;         // out= must have the input's dtype (PyTorch's unary ops that keep
                                       // the dtype: abs, neg, floor, ...; check_all_same_dtype there)
  bool check_mem_overlap = true;       // refuse outputs that overlap themselves or an input (Note [memory
                                       // overlap]); false for fill_-like writes of one value, as PyTorch's
};

class TensorIterator {
 public:
  static constexpr int kMaxOperands = 5;
  using Loop = FunctionRef<void(char** data, const int64_t* strides, int64_t n)>;

  /// Builds the iteration for out = f(inputs...). `out` may be undefined (allocated here), an out= tensor
  /// (checked with can_cast, resized when its shape differs) or, with is_inplace, input 0. Errors: shapes that
  /// do not broadcast; a result dtype that cannot be cast to the output's; an in-place output whose shape is
  /// not the broadcast shape. The inputs are taken by reference: a call costs no reference-count traffic for
  /// them beyond the operands the iterator keeps.
  TensorIterator(const IterConfig& config, const Tensor& out,
                 std::initializer_list<std::reference_wrapper<const Tensor>> inputs);

  /// The dtype the loop computes in (inputs have it).
  DType common_dtype() const { return common_; }
  /// The dtype of the tensor the loop writes.
  DType output_dtype() const { return operands_[0].dtype(); }
  const Tensor& input(int i) const { return operands_[i + 1]; }
  int64_t numel() const { return numel_; }

  /// Runs loop over every element, in parallel above grain elements.
  void for_each(Loop loop, int64_t grain = kGrainSize);
  /// The result: the user's out= or self tensor, or the allocated output. Copies back from a temporary when
  /// the output dtype differed from the computed one.
  Tensor finish();

 private:
  void compute_geometry();
  void check_mem_overlap() const;

  IterConfig config_;
  std::array<Tensor, kMaxOperands> operands_;   // [output, inputs...]
  int num_operands_ = 0;
  Tensor user_out_;                             // the tensor to return (and copy into, if different)
  bool wrote_existing_ = false;                 // out= or in-place: check for memory overlap
  DType common_ = kFloat32;
  DimVector shape_;                             // iteration shape after reordering and coalescing
  SmallVector<int64_t, 6 * kMaxOperands> strides_;  // byte strides, dim-major: strides_[d * n + op]
  int64_t numel_ = 0;
};

/// Throws the error PyTorch raises for an op that has no kernel for a dtype: "<op>: not implemented for
/// '<dtype>'" (RuntimeError).
[[noreturn]] void not_implemented_for(const char* op, DType dtype);

}  // namespace ember::cpu
