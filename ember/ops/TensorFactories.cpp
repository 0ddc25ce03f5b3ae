// LibTorch-style factory overloads (TensorOptions) and ember::tensor: thin layers over the factory ops.
#include "ember/ops/Functions.h"

namespace ember {
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
Tensor ones(IntArrayRef size, const TensorOptions& o) { return with_options(ones(size, o.dtype_opt(), o.device_opt()), o); }
Tensor full(IntArrayRef size, const Scalar& fill_value, const TensorOptions& o) {
  return with_options(full(size, fill_value, o.dtype_opt(), o.device_opt()), o);
}
Tensor rand(IntArrayRef size, const TensorOptions& o) { return with_options(rand(size, o.dtype_opt(), o.device_opt()), o); }
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
