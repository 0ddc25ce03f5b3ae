#pragma once
// Note [promotion]
// PyTorch's result_type: operands fall into three priority groups — tensors with dims, 0-dim tensors, and
// wrapped numbers (Python scalars) — and each group's dtypes are promoted among themselves. A lower group
// only matters when it is of a higher category (bool < integral < floating) than the higher groups: then it
// lifts the result to its category (a wrapped float becomes the default dtype, a wrapped int int64).
// E.g. int32 tensor + 2.5 -> float32; float16 tensor + float64 0-dim -> float16; uint8 tensor + int64 0-dim
// -> uint8; int tensor (dims) + float64 0-dim -> float64. Complex is a fourth category above floating; a
// wrapped complex counts as the default complex dtype, and a complex lower group with a floating higher one
// gives the complex dtype of the higher one's precision (float32 tensor + complex128 0-dim -> complex64;
// float64 tensor + 1j -> complex128).
#include "ember/base/ArrayRef.h"
#include "ember/core/Tensor.h"

namespace ember {

/// Accumulates operands' dtypes by group (Note [promotion]).
class ResultTypeState {
 public:
  void add(const Tensor& t);
  void add(const Scalar& s);
  DType result() const;

 private:
  int8_t dim_ = -1, zero_ = -1, wrapped_ = -1;  // -1: no operand in the group yet, else a DType id
};

/// The dtype PyTorch's torch.result_type gives for these operands.
DType result_type(TensorList tensors);
DType result_type(const Tensor& a, const Tensor& b);
DType result_type(const Tensor& a, const Scalar& b);

/// NumPy broadcasting of two shapes. Errors: "The size of tensor a (A) must match the size of tensor b (B)
/// at non-singleton dimension D" (RuntimeError, as PyTorch). A zero-size dim broadcasts with 1 and 0 only.
DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b);

}  // namespace ember
