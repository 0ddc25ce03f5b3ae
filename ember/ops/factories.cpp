// Factories written with other ops. The kernels that fill memory (empty, arange, linspace, eye, fill_) are
// CPU kernels in ember/kernels/cpu/factory.cpp.
#include <algorithm>
#include <vector>

#include "ember/ops/generated/CompositeKernels.h"

namespace ember {

Tensor wrapped_scalar_tensor(const Scalar& s) {
  Tensor t = make_empty({}, s.dtype());
  switch (s.tag()) {
    case Scalar::Tag::Bool: *t.data_ptr<bool>() = s.to_bool(); break;
    case Scalar::Tag::Int: *t.data_ptr<int64_t>() = s.to_long(); break;
    case Scalar::Tag::Double: *t.data_ptr<double>() = s.to_double(); break;
  }
  t.impl()->set_wrapped_number(true);
  return t;
}

Tensor tensor_from_buffer(const void* data, IntArrayRef sizes, DType dtype) {
  Tensor t = make_empty(sizes, dtype);
  if (t.nbytes() > 0) std::memcpy(t.data_ptr(), data, static_cast<size_t>(t.nbytes()));
  return t;
}

Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, DType dtype, StorageImpl::Deleter deleter,
                 void* ctx) {
  int64_t hi = 0;
  bool overflow = false;  // checked arithmetic: huge strides must not wrap around to a small extent
  EMBER_CHECK(sizes.size() == strides.size(), "from_blob: {} sizes but {} strides", sizes.size(), strides.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    EMBER_CHECK(sizes[i] >= 0 && strides[i] >= 0, "from_blob: negative size or stride in sizes {} strides {}",
                sizes, strides);
    if (sizes[i] == 0) hi = -1;
    int64_t reach = 0;
    if (hi >= 0)
      overflow = overflow || __builtin_mul_overflow(sizes[i] - 1, strides[i], &reach) ||
                 __builtin_add_overflow(hi, reach, &hi);
  }
  int64_t extent = 0;
  if (hi >= 0)
    overflow = overflow || __builtin_add_overflow(hi, 1, &extent) ||
               __builtin_mul_overflow(extent, element_size(dtype), &extent);
  EMBER_CHECK(!overflow, "from_blob: sizes {} with strides {} address more than 2^63 bytes", sizes, strides);
  size_t nbytes = hi < 0 ? 0 : static_cast<size_t>(extent);
  auto storage = make_intrusive<StorageImpl>(data, nbytes, deleter, ctx);
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), dtype, sizes, strides, 0));
}

Tensor from_blob(void* data, IntArrayRef sizes, DType dtype) {
  return from_blob(data, sizes, contiguous_strides(sizes), dtype);
}

namespace composite {

namespace {
void check_device(std::optional<Device> d, const char* op) {
  EMBER_CHECK(!d || d->is_cpu(), "{}: device '{}' is not available; this build of Ember supports only cpu", op,
              d ? d->str() : "");
}
}  // namespace

Tensor zeros(IntArrayRef size, std::optional<DType> dtype, std::optional<Device> device) {
  check_device(device, "zeros");
  return ember::empty(size, dtype).zero_();
}
Tensor ones(IntArrayRef size, std::optional<DType> dtype, std::optional<Device> device) {
  check_device(device, "ones");
  return ember::empty(size, dtype).fill_(1);
}
Tensor full(IntArrayRef size, const Scalar& fill_value, std::optional<DType> dtype, std::optional<Device> device) {
  check_device(device, "full");
  // PyTorch infers the dtype from the fill value: bool, int64, or the default floating dtype.
  DType d = dtype ? *dtype : fill_value.is_floating_point() ? default_dtype() : fill_value.dtype();
  return ember::empty(size, d).fill_(fill_value);
}
Tensor scalar_tensor(const Scalar& s, std::optional<DType> dtype, std::optional<Device> device) {
  check_device(device, "scalar_tensor");
  return ember::empty({}, dtype.value_or(default_dtype())).fill_(s);
}
Tensor arange(const Scalar& end, std::optional<DType> dtype, std::optional<Device> device) {
  return ember::arange(Scalar(int64_t{0}), end, Scalar(int64_t{1}), dtype, device);
}
Tensor arange_start(const Scalar& start, const Scalar& end, std::optional<DType> dtype, std::optional<Device> device) {
  return ember::arange(start, end, Scalar(int64_t{1}), dtype, device);
}
Tensor eye(int64_t n, std::optional<DType> dtype, std::optional<Device> device) { return ember::eye(n, n, dtype, device); }

namespace {
// Whether self's elements fill a block of memory exactly once in some dim order (a permutation of a
// contiguous tensor, e.g. a transpose), PyTorch's is_non_overlapping_and_dense.
bool non_overlapping_and_dense(const Tensor& self) {
  if (self.numel() == 0) return false;
  std::vector<int64_t> perm(static_cast<size_t>(self.dim()));
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
  std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) { return self.strides()[a] > self.strides()[b]; });
  int64_t expected = 1;
  for (size_t i = perm.size(); i-- > 0;) {
    int64_t d = perm[i];
    if (self.sizes()[d] == 1) continue;
    if (self.strides()[d] != expected) return false;
    expected *= self.sizes()[d];
  }
  return true;
}
}  // namespace

// Note [preserve_format]
// preserve_format (the default of empty_like, the *_like factories, clone and to) keeps the strides of a
// dense, non-overlapping self, so a transposed tensor gives a transposed result; any other self (expanded,
// stepped) gives contiguous strides. This is PyTorch's rule for tensors without channels-last layouts.
Tensor empty_like(const Tensor& self, std::optional<DType> dtype, std::optional<Device> device,
                  std::optional<MemoryFormat> memory_format) {
  check_device(device, "empty_like");
  DType dt = dtype.value_or(self.dtype());
  if (memory_format.value_or(MemoryFormat::Preserve) == MemoryFormat::Preserve && !self.is_contiguous() &&
      non_overlapping_and_dense(self))
    return ember::empty_strided(self.sizes(), self.strides(), dt);
  return ember::empty(self.sizes(), dt);
}
Tensor zeros_like(const Tensor& self, std::optional<DType> dtype, std::optional<Device> device,
                  std::optional<MemoryFormat> mf) {
  return ember::empty_like(self, dtype, device, mf).zero_();
}
Tensor ones_like(const Tensor& self, std::optional<DType> dtype, std::optional<Device> device,
                 std::optional<MemoryFormat> mf) {
  return ember::empty_like(self, dtype, device, mf).fill_(1);
}
Tensor full_like(const Tensor& self, const Scalar& fill_value, std::optional<DType> dtype, std::optional<Device> device,
                 std::optional<MemoryFormat> mf) {
  return ember::empty_like(self, dtype, device, mf).fill_(fill_value);
}
Tensor zero_(const Tensor& self) { return self.fill_(0); }

// ---- copies and conversions
Tensor to_dtype(const Tensor& self, DType dtype, bool non_blocking, bool copy, std::optional<MemoryFormat> mf) {
  if (dtype == self.dtype() && !copy) return self;
  return ember::_to_copy(self, dtype, std::nullopt, non_blocking, mf);
}
Tensor to_dtype_layout(const Tensor& self, std::optional<DType> dtype, std::optional<Device> device, bool non_blocking,
                       bool copy, std::optional<MemoryFormat> mf) {
  check_device(device, "to");
  return to_dtype(self, dtype.value_or(self.dtype()), non_blocking, copy, mf);
}
Tensor to_device(const Tensor& self, std::optional<Device> device, std::optional<DType> dtype, bool non_blocking, bool copy,
                 std::optional<MemoryFormat> mf) {
  check_device(device, "to");
  return to_dtype(self, dtype.value_or(self.dtype()), non_blocking, copy, mf);
}
Tensor to_other(const Tensor& self, const Tensor& other, bool non_blocking, bool copy, std::optional<MemoryFormat> mf) {
  return to_dtype(self, other.dtype(), non_blocking, copy, mf);
}
Tensor contiguous(const Tensor& self, MemoryFormat) {
  // clone()'s default (preserve_format) would keep a permuted layout: ask for row-major explicitly.
  return self.is_contiguous() ? self : self.clone(MemoryFormat::Contiguous);
}

// ---- arithmetic written with other ops
Tensor pow_scalar_base(const Scalar& self, const Tensor& exponent) {
  return ember::pow(wrapped_scalar_tensor(self), exponent);
}
Tensor clamp_min(const Tensor& self, const Scalar& min) { return ember::clamp(self, min, std::nullopt); }
Tensor clamp_min_(const Tensor& self, const Scalar& min) { return ember::clamp_(self, min, std::nullopt); }
Tensor clamp_min_out(const Tensor& self, const Scalar& min, const Tensor& out) {
  return ember::clamp_out(out, self, min, std::nullopt);
}
Tensor clamp_max(const Tensor& self, const Scalar& max) { return ember::clamp(self, std::nullopt, max); }
Tensor clamp_max_(const Tensor& self, const Scalar& max) { return ember::clamp_(self, std::nullopt, max); }
Tensor clamp_max_out(const Tensor& self, const Scalar& max, const Tensor& out) {
  return ember::clamp_out(out, self, std::nullopt, max);
}

}  // namespace composite
}  // namespace ember
