#pragma once
// The data model of a tensor: where its elements are (storage + offset), how they are laid out (sizes,
// strides, in elements), what they are (dtype, device) and the slots other layers fill (version counter,
// autograd). See Note [views] for the one view primitive.
#include <atomic>
#include <cstdint>
#include <memory>

#include "ember/base/ArrayRef.h"
#include "ember/base/Error.h"
#include "ember/base/intrusive_ptr.h"
#include "ember/core/DType.h"
#include "ember/core/Device.h"
#include "ember/core/Storage.h"

namespace ember {

/// Counts in-place modifications of a storage's contents as seen by a tensor and its views; autograd
/// compares it with the value recorded when a tensor was saved for backward.
struct VersionCounter : intrusive_target {
  std::atomic<uint32_t> version{0};
};

/// Note [inference tensors]
/// Inference mode (the autograd layer's InferenceMode guard, Python `ember.inference_mode()`) is a
/// thread-local switch read here because it changes what a new TensorImpl is: a tensor allocated while it is
/// on is an *inference tensor* (views inherit their base's kind instead, so a view of a normal tensor made in
/// inference mode stays normal). Inference tensors never take part in autograd: outside inference mode an
/// in-place update of one raises (bump_version) and autograd refuses to save one for backward. One TLS read
/// per new tensor is the whole cost.
bool inference_mode_enabled();
void set_inference_mode_enabled(bool enabled);

/// The opaque autograd slot. The autograd layer derives from it; the core only owns and destroys it.
struct AutogradMetaInterface {
  virtual ~AutogradMetaInterface() = default;
  virtual bool requires_grad() const = 0;
};

/// The shared state behind Tensor handles. Not copyable; views are new TensorImpls on the same storage.
class TensorImpl : public intrusive_target {
 public:
  /// A tensor over `storage` with the given geometry. Errors: negative sizes; elements outside the storage.
  TensorImpl(Storage storage, DType dtype, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset);
  /// The same with a given version counter (a view shares its base's; Note [views]), so none is allocated.
  TensorImpl(Storage storage, DType dtype, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset,
             intrusive_ptr<VersionCounter> version);
  ~TensorImpl() override;

  IntArrayRef sizes() const { return sizes_; }
  IntArrayRef strides() const { return strides_; }
  int64_t size(int64_t dim) const;  // negative dims count from the end; IndexError when out of range
  int64_t stride(int64_t dim) const;
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const { return numel_; }
  DType dtype() const { return dtype_; }
  Device device() const { return storage_->device(); }
  int64_t storage_offset() const { return storage_offset_; }
  const Storage& storage() const { return storage_; }
  bool is_contiguous() const { return is_contiguous_; }
  /// Address of element 0 (storage data + offset * element size).
  void* data() const {
    return static_cast<char*>(storage_->data()) + storage_offset_ * element_size(dtype_);
  }

  /// Note [views]
  /// The core's only view primitive: sets new geometry over the same storage (used on a fresh TensorImpl
  /// by the view ops of the ops layer, and on self by the in-place view ops such as t_). Errors as the
  /// constructor, raised before anything changes.
  void set_geometry(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset);

  /// Note [set_data]
  /// Makes this tensor use src's storage, dtype and geometry while keeping its own identity (autograd
  /// metadata, version counter, every handle to it): PyTorch's Variable::set_data, with which
  /// ember::nn::Module::to(dtype) converts parameters that layers and optimizers hold by handle. The caller
  /// keeps the autograd metadata consistent (drops a .grad of the old dtype first).
  void set_data(const TensorImpl& src);

  /// Gives the tensor `sizes` with contiguous strides, keeping the storage (and offset) when it is large
  /// enough and allocating a new one otherwise (how out= tensors of the wrong shape are resized).
  void resize(IntArrayRef sizes);

  const intrusive_ptr<VersionCounter>& version_counter() const { return version_; }
  void set_version_counter(intrusive_ptr<VersionCounter> v) { version_ = std::move(v); }
  uint32_t version() const { return version_->version.load(std::memory_order_relaxed); }
  /// Called by every in-place op on this tensor or a view of it. Errors: an inference tensor updated
  /// outside inference mode (Note [inference tensors]).
  void bump_version() {
    if (is_inference_ && !inference_mode_enabled()) fail_inplace_on_inference_tensor();
    version_->version.fetch_add(1, std::memory_order_relaxed);
  }
  /// Whether the tensor was allocated in inference mode (Note [inference tensors]).
  bool is_inference() const { return is_inference_; }
  void set_inference(bool v) { is_inference_ = v; }

  /// Note [view base]
  /// The tensor a view was made from by a view op (PyTorch's Tensor._base): always the root, never a view
  /// itself, so a view of a view names the first base. Null for tensors that are not views, and for aliases
  /// that are not views to autograd (detach(), the aliases autograd saves). Recorded by the ADInplaceOrView
  /// kernels of the view ops (Note [version counter]); autograd reads it to rebase a view's base after an
  /// in-place op on the view (Note [views and in-place]).
  const intrusive_ptr<TensorImpl>& view_base() const { return view_base_; }
  void set_view_base(intrusive_ptr<TensorImpl> base) { view_base_ = std::move(base); }

  AutogradMetaInterface* autograd_meta() const { return autograd_meta_.get(); }
  void set_autograd_meta(std::unique_ptr<AutogradMetaInterface> m) { autograd_meta_ = std::move(m); }

  /// A 0-dim tensor made from a Python number for an op argument; promotes like a number (Note [promotion]).
  bool is_wrapped_number() const { return wrapped_number_; }
  void set_wrapped_number(bool w) { wrapped_number_ = w; }

  /// Slot for the Python binding: the Python object currently wrapping this impl (borrowed), or null.
  void* pyobj() const { return pyobj_; }
  void set_pyobj(void* p) { pyobj_ = p; }

 private:
  void refresh();  // recompute numel and contiguity after a geometry change
  [[noreturn]] static void fail_inplace_on_inference_tensor();

  Storage storage_;
  int64_t storage_offset_ = 0;
  DimVector sizes_, strides_;
  int64_t numel_ = 1;
  DType dtype_;
  bool is_contiguous_ = true;
  bool wrapped_number_ = false;
  bool is_inference_ = false;
  intrusive_ptr<VersionCounter> version_;
  intrusive_ptr<TensorImpl> view_base_;
  std::unique_ptr<AutogradMetaInterface> autograd_meta_;
  void* pyobj_ = nullptr;
};

/// Contiguous (row-major) strides for sizes.
DimVector contiguous_strides(IntArrayRef sizes);
/// Product of sizes. Errors: negative size or int64 overflow (RuntimeError naming the sizes).
int64_t checked_numel(IntArrayRef sizes);
/// Wraps a possibly negative dim into [0, ndim). Errors: IndexError "Dimension out of range (expected to be
/// in range of [-ndim, ndim-1], but got dim)"; a 0-dim tensor accepts dims -1 and 0.
int64_t wrap_dim(int64_t dim, int64_t ndim);

}  // namespace ember

namespace ember {
class Tensor;
/// Note [views] — the one view primitive: a new TensorImpl over base's storage with the given geometry,
/// sharing base's version counter (so in-place ops through any view are seen by all). Errors: geometry
/// outside the storage (RuntimeError).
Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset);
/// The same reading the storage's bytes as another dtype (view.dtype); offset and strides count its elements.
Tensor make_view(const Tensor& base, DType dtype, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset);
/// A fresh contiguous tensor with uninitialized storage from the caching allocator.
Tensor make_empty(IntArrayRef sizes, DType dtype);
}  // namespace ember
