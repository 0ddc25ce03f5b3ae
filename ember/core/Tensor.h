#pragma once
// Note [Tensor handle]
// Tensor is a cheap copyable handle (one pointer) to a refcounted TensorImpl. Copying a Tensor shares the
// tensor; views share the storage. The methods that compute (add, view, sum, ...) are declared here from the
// op database (TensorMethods.inc, generated) and defined in the ops layer, which reaches the dispatcher; the
// core itself only knows the data model.
#include <optional>
#include <string>
#include <vector>

#include "ember/base/ArrayRef.h"
#include "ember/core/Generator.h"
#include "ember/core/Scalar.h"
#include "ember/core/TensorImpl.h"

namespace ember {

class Tensor;
using TensorList = ArrayRef<Tensor>;
/// A memory layout request for contiguous()/clone() (PyTorch's memory_format; only these two exist here).
enum class MemoryFormat : int8_t { Contiguous = 0, Preserve = 1 };

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(intrusive_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

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
  bool is_floating_point() const { return ember::is_floating_point(dtype()); }
  bool is_cpu() const { return device().is_cpu(); }
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

#include "ember/core/TensorMethods.inc"

 private:
  intrusive_ptr<TensorImpl> impl_;
};

}  // namespace ember
