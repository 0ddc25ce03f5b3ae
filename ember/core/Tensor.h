#pragma once
// Note [Tensor handle]
// Tensor is a cheap copyable handle (one pointer) to a refcounted TensorImpl. Copying a Tensor shares the
// tensor; views share the storage. The methods that compute (add, view, sum, ...) are declared here from the
// op database (generated/TensorMethods.inc) and defined in the ops layer, which reaches the dispatcher; the
// core itself only knows the data model.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/base/ArrayRef.h"
#include "ember/core/Generator.h"
#include "ember/core/MemoryFormat.h"
#include "ember/core/Scalar.h"
#include "ember/core/TensorImpl.h"
#include "ember/core/TensorAccessor.h"
#include "ember/core/TensorOptions.h"

namespace ember {

class Tensor;
using TensorList = ArrayRef<Tensor>;
namespace indexing {
class TensorIndex;  // ember/ops/TensorIndexing.h
}
namespace autograd {
struct Node;  // ember/autograd/Node.h
}

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(intrusive_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}
  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) noexcept = default;
  ~Tensor() = default;
  // Note [assignment to a temporary]
  // As in LibTorch, assigning to a named Tensor rebinds the handle, while assigning to a temporary (a view
  // such as t[i] or t.select(0, i)) writes values into it: `t[0][1] = 5` fills, `t[2] = row` copies row
  // (broadcast to the view's shape; copy_'s errors and autograd).
  Tensor& operator=(const Tensor&) & = default;
  Tensor& operator=(Tensor&&) & noexcept = default;
  Tensor& operator=(const Tensor& values) &&;
  Tensor& operator=(Tensor&& values) &&;
  Tensor& operator=(const Scalar& value) &&;

  bool defined() const { return static_cast<bool>(impl_); }
  TensorImpl* impl() const { return impl_.get(); }
  const intrusive_ptr<TensorImpl>& impl_ptr() const { return impl_; }
  /// Whether two handles name the same TensorImpl.
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }
  uint32_t use_count() const { return impl_.use_count(); }

  IntArrayRef sizes() const { return impl_->sizes(); }
  IntArrayRef strides() const { return impl_->strides(); }
  int64_t size(int64_t dim) const { return impl_->size(dim); }
  int64_t stride(int64_t dim) const { return impl_->stride(dim); }
  int64_t dim() const { return impl_->dim(); }
  int64_t ndimension() const { return dim(); }
  int64_t numel() const { return impl_->numel(); }
  DType dtype() const { return impl_->dtype(); }
  DType scalar_type() const { return impl_->dtype(); }
  Device device() const { return impl_->device(); }
  int64_t element_size() const { return ember::element_size(dtype()); }
  int64_t nbytes() const { return numel() * element_size(); }
  int64_t storage_offset() const { return impl_->storage_offset(); }
  bool is_contiguous() const { return impl_->is_contiguous(); }
  /// Whether the layout is exactly `format`'s (Note [memory formats]); Preserve is an error.
  bool is_contiguous(MemoryFormat format) const {
    return format == MemoryFormat::Contiguous ? impl_->is_contiguous() : is_contiguous_in(sizes(), strides(), format);
  }
  /// The format a result computed from this tensor takes: ChannelsLast(3d) or Contiguous (Note [memory formats]).
  MemoryFormat suggest_memory_format() const { return ember::suggest_memory_format(sizes(), strides()); }
  bool is_floating_point() const { return ember::is_floating_point(dtype()); }
  bool is_complex() const { return ember::is_complex(dtype()); }
  /// Always false: Ember's conjugates and negations are never lazy (Note [complex views], ops_view.yaml).
  bool is_conj() const { return false; }
  bool is_neg() const { return false; }
  bool is_cpu() const { return device().is_cpu(); }
  /// This tensor's dtype and device as TensorOptions, to make tensors like it:
  /// `ember::zeros({3}, x.options())`. As LibTorch's Tensor::options(), requires_grad is not carried over
  /// (it stays false), so a tensor made from a parameter's options is not itself a leaf that requires grad;
  /// add `.requires_grad(true)` when that is wanted.
  TensorOptions options() const { return TensorOptions().dtype(dtype()).device(device()); }
  uint32_t _version() const { return impl_->version(); }
  /// Whether the tensor was made in inference mode (Note [inference tensors]).
  bool is_inference() const { return impl_->is_inference(); }
  /// Whether this tensor is a view made by a view op (Note [view base]).
  bool _is_view() const { return static_cast<bool>(impl_->view_base()); }
  /// The tensor this view was made from, or an undefined Tensor when it is not a view (Note [view base]).
  Tensor _base() const { return Tensor(impl_->view_base()); }
  void* data_ptr() const { return impl_->data(); }
  /// Typed pointer to element 0. Errors: T does not match dtype() (RuntimeError naming both).
  template <class T>
  T* data_ptr() const {
    EMBER_CHECK(dtype_of<T>() == dtype(), "data_ptr: expected a tensor of dtype {} but got {}", dtype_of<T>(),
                dtype());
    return static_cast<T*>(impl_->data());
  }
  /// The value of a one-element tensor as T. Errors: numel() != 1.
  template <class T>
  T item() const {
    return item().to<T>();
  }
  Scalar item() const;

  /// PyTorch-style text, e.g. "tensor([1., 2.])"; the same layout as Python's repr.
  std::string str() const;

  /// self[indices] as in Python, e.g. x.index({Slice(0, 2), 1, None, "...", mask}) with
  /// `using namespace ember::indexing;` (ember/ops/TensorIndexing.h: indexing::get_item, which has the rules
  /// and errors). A view unless an item is a tensor or a bool.
  Tensor index(ArrayRef<indexing::TensorIndex> indices) const;
  /// self[indices] = value (indexing::set_item); a number is first made a 0-dim tensor of dtype(). Returns self.
  Tensor index_put_(ArrayRef<indexing::TensorIndex> indices, const Tensor& value) const;
  Tensor index_put_(ArrayRef<indexing::TensorIndex> indices, const Scalar& value) const;
  // The same for a braced list, which then prefers these to the ops' index/index_put_ that take a vector of
  // optional tensors (a braced list converting to std::initializer_list ranks above one building a vector).
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  Tensor index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& value) const;
  Tensor index_put_(std::initializer_list<indexing::TensorIndex> indices, const Scalar& value) const;

  // Autograd, as LibTorch's Tensor methods. The core sits below autograd, so these reach it through the
  // hooks autograd registers (Note [variable hooks] in ember/core/VariableHooks.h); ember/autograd/autograd.h
  // documents each (the functions of the same names there).
  /// Whether autograd records operations on this tensor (a leaf with requires_grad set, or an op's output).
  bool requires_grad() const {
    const AutogradMetaInterface* m = impl_->autograd_meta();
    return m && m->requires_grad();
  }
  /// Sets requires_grad of a leaf; returns self. Errors as autograd::set_requires_grad.
  const Tensor& requires_grad_(bool requires_grad = true) const;
  /// The same as requires_grad_ (LibTorch's older name).
  const Tensor& set_requires_grad(bool requires_grad) const { return requires_grad_(requires_grad); }
  /// The accumulated gradient (undefined when none); for a non-leaf, only after retain_grad().
  const Tensor& grad() const;
  /// The gradient slot itself, assignable (LibTorch's mutable_grad): `w.mutable_grad() = g;`, `.reset()`.
  /// Unlike autograd::set_grad, nothing checks what is assigned.
  Tensor& mutable_grad() const;
  /// Backward from this tensor (autograd::backward({*this}, {gradient}, ...)): gradient may be omitted for a
  /// one-element tensor; inputs, when given, limit which leaves get .grad.
  void backward(const Tensor& gradient = Tensor(), std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false, OptionalArrayRef<Tensor> inputs = std::nullopt) const;
  /// Whether this tensor is a leaf (no grad_fn).
  bool is_leaf() const;
  /// The node that made this tensor, or null for a leaf.
  std::shared_ptr<autograd::Node> grad_fn() const;
  /// Makes backward keep the gradient of this non-leaf in grad(). Errors: requires_grad() is false.
  void retain_grad() const;
  bool retains_grad() const;
  /// Detaches this tensor from the graph in place; returns self. Errors: a view (autograd::detach_).
  const Tensor& detach_() const;

  /// Resets the handle to an undefined tensor (LibTorch's Tensor::reset).
  void reset() { impl_.reset(); }

#include "ember/core/generated/TensorMethods.inc"

  // In-place arithmetic and comparison with a number, as LibTorch's Tensor methods: `t.add_(1).div_(2)`. Each
  // is the tensor form with the number as a 0-dim wrapped tensor (Note [promotion]), so the dtype rules and
  // errors (an integer tensor cannot hold a float result in place) are those of the ops.
  Tensor add_(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor sub_(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor mul_(const Scalar& other) const;
  Tensor div_(const Scalar& other) const;
  Tensor remainder_(const Scalar& other) const;
  Tensor fmod_(const Scalar& other) const;
  Tensor pow_(const Scalar& exponent) const;
  Tensor eq_(const Scalar& other) const;
  Tensor ne_(const Scalar& other) const;
  Tensor lt_(const Scalar& other) const;
  Tensor le_(const Scalar& other) const;
  Tensor gt_(const Scalar& other) const;
  Tensor ge_(const Scalar& other) const;

  /// LibTorch's name of the backend and dtype: "CPUFloatType", "CPULongType" (what printing a tensor ends with).
  std::string toString() const;

  /// Element access by index without a dispatch per element (LibTorch's Tensor::accessor): `auto a =
  /// t.accessor<float, 2>(); a[i][j]`. The accessor views this tensor's data (sizes and strides included) and
  /// must not outlive it. Errors: T is not the dtype's C++ type, or N != dim() (RuntimeError).
  template <class T, size_t N>
  TensorAccessor<T, N> accessor() const& {
    static_assert(N > 0, "accessor is used for indexing a tensor; for a 0-dim tensor use item()");
    EMBER_CHECK(static_cast<int64_t>(N) == dim(), "TensorAccessor expected {} dims but tensor has {}", N, dim());
    return TensorAccessor<T, N>(data_ptr<T>(), sizes().data(), strides().data());
  }
  template <class T, size_t N>
  TensorAccessor<T, N> accessor() && = delete;

  /// t[i]: the sub-tensor at index i of dim 0, a view (LibTorch's Tensor::operator[]; select(0, i)). Errors:
  /// a 0-dim tensor, i out of range (IndexError naming the dim and its size).
  Tensor operator[](int64_t index) const { return select(0, index); }

 private:
  intrusive_ptr<TensorImpl> impl_;
};

}  // namespace ember
