// The C++ factory functions that are not ops (declared in ember/ops/Functions.h below the generated ones),
// with LibTorch's names and signatures: from_blob over memory the caller owns, tensor() from nested braced
// lists, the TensorOptions overloads of the factory ops, and the helpers wrapped_scalar_tensor and
// tensor_from_buffer. Each is a thin layer over the factory ops (composites in ember/ops/factories.cpp), so
// autograd and the tracer see those ops.
#include <cstring>

#include "ember/ops/Functions.h"

namespace ember {

Tensor wrapped_scalar_tensor(const Scalar& s) {
  Tensor t = make_empty({}, s.dtype());
  switch (s.tag()) {
    case Scalar::Tag::Bool: *t.data_ptr<bool>() = s.to_bool(); break;
    case Scalar::Tag::Int: *t.data_ptr<int64_t>() = s.to_long(); break;
    case Scalar::Tag::Double: *t.data_ptr<double>() = s.to_double(); break;
    case Scalar::Tag::Complex: *static_cast<std::complex<double>*>(t.data_ptr()) = s.to_complex_double(); break;
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

namespace {

Tensor with_options(Tensor t, const TensorOptions& o) {
  if (o.requires_grad()) t.requires_grad_(true);
  return t;
}

std::string dims(const std::vector<int64_t>& sizes) {
  std::string r = "[";
  for (size_t i = 0; i < sizes.size(); ++i) r += (i ? ", " : "") + std::to_string(sizes[i]);
  return r + "]";
}

}  // namespace

Tensor empty(IntArrayRef size, const TensorOptions& o) {
  return with_options(empty(size, o.dtype_opt(), o.device_opt()), o);
}
Tensor zeros(IntArrayRef size, const TensorOptions& o) {
  return with_options(zeros(size, o.dtype_opt(), o.device_opt()), o);
}
Tensor ones(IntArrayRef size, const TensorOptions& o) {
  return with_options(ones(size, o.dtype_opt(), o.device_opt()), o);
}
Tensor full(IntArrayRef size, const Scalar& fill_value, const TensorOptions& o) {
  return with_options(full(size, fill_value, o.dtype_opt(), o.device_opt()), o);
}
Tensor rand(IntArrayRef size, const TensorOptions& o) {
  return with_options(rand(size, o.dtype_opt(), o.device_opt()), o);
}
Tensor randn(IntArrayRef size, const TensorOptions& o) {
  return with_options(randn(size, o.dtype_opt(), o.device_opt()), o);
}
Tensor arange(const Scalar& end, const TensorOptions& o) {
  return with_options(arange(end, o.dtype_opt(), o.device_opt()), o);
}
Tensor arange(const Scalar& start, const Scalar& end, const TensorOptions& o) {
  return with_options(arange(start, end, o.dtype_opt(), o.device_opt()), o);
}
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, const TensorOptions& o) {
  return with_options(arange(start, end, step, o.dtype_opt(), o.device_opt()), o);
}
Tensor eye(int64_t n, const TensorOptions& o) { return with_options(eye(n, o.dtype_opt(), o.device_opt()), o); }
Tensor empty_like(const Tensor& self, const TensorOptions& o) {
  return with_options(empty_like(self, o.dtype_opt(), o.device_opt()), o);
}
Tensor zeros_like(const Tensor& self, const TensorOptions& o) {
  return with_options(zeros_like(self, o.dtype_opt(), o.device_opt()), o);
}
Tensor ones_like(const Tensor& self, const TensorOptions& o) {
  return with_options(ones_like(self, o.dtype_opt(), o.device_opt()), o);
}
Tensor full_like(const Tensor& self, const Scalar& fill_value, const TensorOptions& o) {
  return with_options(full_like(self, fill_value, o.dtype_opt(), o.device_opt()), o);
}
Tensor randn_like(const Tensor& self, const TensorOptions& o) {
  return with_options(randn_like(self, o.dtype_opt(), o.device_opt()), o);
}
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const TensorOptions& o) {
  EMBER_CHECK(o.device().is_cpu(), "from_blob: only CPU memory is supported, but the options name device {}",
              o.device().str());
  return with_options(from_blob(data, sizes, strides, o.dtype()), o);
}
Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& o) {
  return from_blob(data, sizes, contiguous_strides(sizes), o);
}
Tensor from_blob(void* data, IntArrayRef sizes) { return from_blob(data, sizes, kFloat32); }

TensorData::TensorData(std::initializer_list<TensorData> items) {
  const TensorData* first = items.size() ? items.begin() : nullptr;
  sizes_.push_back(static_cast<int64_t>(items.size()));
  if (first) sizes_.insert(sizes_.end(), first->sizes_.begin(), first->sizes_.end());
  for (const TensorData& item : items) {
    EMBER_CHECK(IntArrayRef(item.sizes_).equals(first->sizes_),
                "tensor: expected all sub-lists to have sizes {} but got one with sizes {}", dims(first->sizes_),
                dims(item.sizes_));
    values_.insert(values_.end(), item.values_.begin(), item.values_.end());
  }
}

Tensor tensor(const TensorData& data, std::optional<DType> dtype) {
  bool any_float = false, any_int = false;
  for (const Scalar& v : data.values()) {
    any_float |= v.is_floating_point();
    any_int |= v.is_integral();
  }
  DType d = dtype.value_or(any_float || data.values().empty() ? kFloat32 : any_int ? kInt64 : kBool);
  // The values in a float64 buffer (any floating value) or an int64 one (integers and bools), then cast.
  if (any_float) {
    std::vector<double> buf;
    buf.reserve(data.values().size());
    for (const Scalar& v : data.values()) buf.push_back(v.to_double());
    return tensor_from_buffer(buf.data(), data.sizes(), kFloat64).to(d);
  }
  std::vector<int64_t> buf;
  buf.reserve(data.values().size());
  for (const Scalar& v : data.values()) buf.push_back(v.to_long());
  return tensor_from_buffer(buf.data(), data.sizes(), kInt64).to(d);
}

Tensor tensor(const TensorData& data, const TensorOptions& o) {
  EMBER_CHECK(!o.device_opt() || o.device_opt()->is_cpu(), "tensor: only the CPU device is supported");
  return with_options(tensor(data, o.dtype_opt()), o);
}

}  // namespace ember
