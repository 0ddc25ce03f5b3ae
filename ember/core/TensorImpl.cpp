#include "ember/core/TensorImpl.h"

namespace ember {

DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector s(sizes.size());
  int64_t acc = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    s[i] = acc;
    // Only an empty tensor's sizes can overflow here (checked_numel refuses the others); its strides then wrap
    // around as PyTorch's do (empty(0, 2**32, 2**32) has strides (0, 2**32, 1)), without undefined behaviour.
    (void)__builtin_mul_overflow(acc, std::max<int64_t>(sizes[i], 1), &acc);
  }
  return s;
}

int64_t checked_numel(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) {
    EMBER_CHECK(s >= 0, "Trying to create tensor with negative dimension {}: {}", s, sizes);
    EMBER_CHECK(!__builtin_mul_overflow(n, s, &n), "numel: integer multiplication overflow for sizes {}", sizes);
  }
  return n;
}

int64_t wrap_dim(int64_t dim, int64_t ndim) {
  int64_t n = std::max<int64_t>(ndim, 1);
  EMBER_CHECK_INDEX(dim >= -n && dim < n,
                    "Dimension out of range (expected to be in range of [{}, {}], but got {})", -n, n - 1, dim);
  return dim < 0 ? dim + n : dim;
}

TensorImpl::TensorImpl(Storage storage, DType dtype, IntArrayRef sizes, IntArrayRef strides,
                       int64_t storage_offset)
    : TensorImpl(std::move(storage), dtype, sizes, strides, storage_offset, make_intrusive<VersionCounter>()) {}

namespace {
thread_local bool t_inference_mode = false;
}
bool inference_mode_enabled() { return t_inference_mode; }
void set_inference_mode_enabled(bool enabled) { t_inference_mode = enabled; }

void TensorImpl::fail_inplace_on_inference_tensor() {
  EMBER_FAIL(
      "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a "
      "normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.");
}

TensorImpl::TensorImpl(Storage storage, DType dtype, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset,
                       intrusive_ptr<VersionCounter> version)
    : storage_(std::move(storage)), dtype_(dtype), is_inference_(t_inference_mode), version_(std::move(version)) {
  set_geometry(sizes, strides, storage_offset);
}

TensorImpl::~TensorImpl() = default;

void TensorImpl::set_geometry(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
  EMBER_CHECK(sizes.size() == strides.size(), "as_strided: got {} sizes but {} strides", sizes.size(),
              strides.size());
  int64_t n = checked_numel(sizes);
  EMBER_CHECK(storage_offset >= 0, "as_strided: negative storage offset {}", storage_offset);
  if (n > 0) {
    // The largest element index reached must lie inside the storage. The arithmetic is checked: huge strides
    // or offsets (as_strided, empty_strided) must not wrap around to a small, "valid" extent.
    int64_t hi = storage_offset;
    bool overflow = false;
    for (size_t i = 0; i < sizes.size(); ++i) {
      EMBER_CHECK(strides[i] >= 0, "as_strided: negative strides are not supported, got {}", strides);
      int64_t reach = 0;
      overflow = overflow || __builtin_mul_overflow(sizes[i] - 1, strides[i], &reach) ||
                 __builtin_add_overflow(hi, reach, &hi);
    }
    int64_t need = 0;
    overflow = overflow || __builtin_add_overflow(hi, 1, &need) ||
               __builtin_mul_overflow(need, element_size(dtype_), &need);
    EMBER_CHECK(!overflow,
                "setStorage: sizes {}, strides {}, storage offset {}, and itemsize {} reach beyond 2^63 bytes and are "
                "out of bounds for storage of size {}",
                sizes, strides, storage_offset, element_size(dtype_), storage_->nbytes());
    EMBER_CHECK(need <= static_cast<int64_t>(storage_->nbytes()),
                "setStorage: sizes {}, strides {}, storage offset {}, and itemsize {} requiring a storage size of "
                "{} are out of bounds for storage of size {}",
                sizes, strides, storage_offset, element_size(dtype_), need, storage_->nbytes());
  }
  sizes_.assign(sizes.begin(), sizes.end());
  strides_.assign(strides.begin(), strides.end());
  storage_offset_ = storage_offset;
  numel_ = n;
  refresh();
}

void TensorImpl::resize(IntArrayRef sizes) {
  if (sizes.equals(sizes_) && is_contiguous_) return;
  int64_t n = checked_numel(sizes);
  size_t need = static_cast<size_t>((storage_offset_ + n) * element_size(dtype_));
  if (need > storage_->nbytes()) {
    storage_ = make_intrusive<StorageImpl>(static_cast<size_t>(n * element_size(dtype_)));
    storage_offset_ = 0;
  }
  set_geometry(sizes, contiguous_strides(sizes), storage_offset_);
}

void TensorImpl::set_data(const TensorImpl& src) {
  // See Note [set_data]. src is a valid tensor, so its geometry fits its storage and set_geometry cannot fail.
  storage_ = src.storage_;
  dtype_ = src.dtype_;
  set_geometry(src.sizes_, src.strides_, src.storage_offset_);
}

void TensorImpl::refresh() {
  // Contiguous means row-major order; dims of size 1 may have any stride (as PyTorch's is_contiguous).
  is_contiguous_ = true;
  if (numel_ == 0) return;
  int64_t expected = 1;
  for (size_t i = sizes_.size(); i-- > 0;) {
    if (sizes_[i] == 1) continue;
    if (strides_[i] != expected) {
      is_contiguous_ = false;
      return;
    }
    expected *= sizes_[i];
  }
}

int64_t TensorImpl::size(int64_t d) const {
  EMBER_CHECK_INDEX(dim() > 0, "size: dimension specified as {} but tensor has no dimensions", d);
  return sizes_[wrap_dim(d, dim())];
}
int64_t TensorImpl::stride(int64_t d) const {
  EMBER_CHECK_INDEX(dim() > 0, "stride: dimension specified as {} but tensor has no dimensions", d);
  return strides_[wrap_dim(d, dim())];
}

}  // namespace ember
