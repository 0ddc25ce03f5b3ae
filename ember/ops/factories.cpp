// The factory ops written with other ops (composite kernels of the "factories" entries of the op database),
// and the copies and conversions (to, contiguous), which share their device check. The kernels that fill
// memory (empty, arange, linspace, eye, fill_) are CPU kernels in ember/kernels/cpu/factory.cpp; the C++
// factory functions that are not ops (from_blob, tensor, the TensorOptions overloads) are in
// ember/ops/LibTorchFactories.cpp.
#include <algorithm>
#include <cmath>
#include <vector>

#include "ember/ops/Operators.h"
#include "ember/ops/generated/CompositeKernels.h"
#include "ember/ops/linalg.h"
#include "ember/ops/out.h"

namespace ember {
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
  // PyTorch infers the dtype from the fill value: bool, int64, the default floating or complex dtype.
  DType d = dtype                             ? *dtype
            : fill_value.is_floating_point() ? default_dtype()
            : fill_value.is_complex()        ? default_complex_dtype()
                                             : fill_value.dtype();
  return ember::empty(size, d).fill_(fill_value);
}
Tensor scalar_tensor(const Scalar& s, std::optional<DType> dtype, std::optional<Device> device) {
  check_device(device, "scalar_tensor");
  return ember::empty({}, dtype.value_or(default_dtype())).fill_(s);
}
namespace {
// The (2, N) coordinates (row, col) of a row x col matrix where keep(col - row) holds, in row-major order.
template <class Keep>
Tensor triangle_indices(const char* op, int64_t row, int64_t col, std::optional<DType> dtype,
                        std::optional<Device> device, Keep keep) {
  EMBER_CHECK(row >= 0, "row must be non-negative, got{}", row);
  EMBER_CHECK(col >= 0, "col must be non-negative, got{}", col);
  check_device(device, op);
  const DType d = dtype.value_or(kInt64);
  EMBER_CHECK(d == kInt64 || d == kInt32, "\"{}\" not implemented for '{}'", op, linalg::scalar_type_name(d));
  Tensor r = ember::arange(row, kInt64).unsqueeze(1).expand({row, col});
  Tensor c = ember::arange(col, kInt64).unsqueeze(0).expand({row, col});
  Tensor mask = keep(ember::sub(c, r));
  return ember::stack({r.masked_select(mask), c.masked_select(mask)}).to(d);
}
}  // namespace

Tensor tril_indices(int64_t row, int64_t col, int64_t offset, std::optional<DType> dtype,
                    std::optional<Device> device) {
  return triangle_indices("tril_indices", row, col, dtype, device, [&](const Tensor& t) { return t.le(offset); });
}
Tensor triu_indices(int64_t row, int64_t col, int64_t offset, std::optional<DType> dtype,
                    std::optional<Device> device) {
  return triangle_indices("triu_indices", row, col, dtype, device, [&](const Tensor& t) { return t.ge(offset); });
}

Tensor arange(const Scalar& end, std::optional<DType> dtype, std::optional<Device> device) {
  return ember::arange(Scalar(int64_t{0}), end, Scalar(int64_t{1}), dtype, device);
}
Tensor arange_start(const Scalar& start, const Scalar& end, std::optional<DType> dtype, std::optional<Device> device) {
  return ember::arange(start, end, Scalar(int64_t{1}), dtype, device);
}
Tensor eye(int64_t n, std::optional<DType> dtype, std::optional<Device> device) {
  return ember::eye(n, n, dtype, device);
}


// Note [preserve_format]
// preserve_format (the default of empty_like, the *_like factories, clone and to) keeps the strides of a
// dense, non-overlapping self, so a transposed or channels-last tensor gives the same layout; any other self
// (expanded, stepped) gets dense strides in the order of its own (infer_dense_strides). PyTorch 1.13's rule.
Tensor empty_like(const Tensor& self, std::optional<DType> dtype, std::optional<Device> device,
                  std::optional<MemoryFormat> memory_format) {
  check_device(device, "empty_like");
  DType dt = dtype.value_or(self.dtype());
  MemoryFormat mf = memory_format.value_or(MemoryFormat::Preserve);
  if (mf != MemoryFormat::Preserve) return ember::empty(self.sizes(), dt, std::nullopt, mf);
  if (self.is_contiguous()) return ember::empty(self.sizes(), dt);
  if (is_non_overlapping_and_dense(self.sizes(), self.strides()))
    return ember::empty_strided(self.sizes(), self.strides(), dt);
  return ember::empty_strided(self.sizes(), infer_dense_strides(self.sizes(), self.strides()), dt);
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
  // PyTorch's to_will_alias: the same dtype, no copy asked and a layout request self already meets.
  MemoryFormat f = mf.value_or(MemoryFormat::Preserve);
  if (dtype == self.dtype() && !copy && (f == MemoryFormat::Preserve || self.suggest_memory_format() == f))
    return self;
  return ember::_to_copy(self, dtype, std::nullopt, non_blocking, mf);
}
Tensor to_dtype_layout(const Tensor& self, std::optional<DType> dtype, std::optional<Device> device, bool non_blocking,
                       bool copy, std::optional<MemoryFormat> mf) {
  check_device(device, "to");
  return to_dtype(self, dtype.value_or(self.dtype()), non_blocking, copy, mf);
}
Tensor to_device(const Tensor& self, std::optional<Device> device, std::optional<DType> dtype, bool non_blocking,
                 bool copy, std::optional<MemoryFormat> mf) {
  check_device(device, "to");
  return to_dtype(self, dtype.value_or(self.dtype()), non_blocking, copy, mf);
}
Tensor to_other(const Tensor& self, const Tensor& other, bool non_blocking, bool copy, std::optional<MemoryFormat> mf) {
  return to_dtype(self, other.dtype(), non_blocking, copy, mf);
}
Tensor contiguous(const Tensor& self, MemoryFormat memory_format) {
  if (self.is_contiguous(memory_format == MemoryFormat::Preserve ? MemoryFormat::Contiguous : memory_format))
    return self;
  EMBER_CHECK(memory_format != MemoryFormat::Preserve,
              "contiguous: preserve memory format is unsupported by the contiguous operator");
  return self.clone(memory_format);
}

}  // namespace composite
}  // namespace ember

// The deprecated range, fill and fill_diagonal_ (ops_factory.yaml).
namespace ember::composite {

Tensor range_step(const Scalar& start, const Scalar& end, const Scalar& step, std::optional<DType> dtype,
                  std::optional<Device> device) {
  const double a = start.to<double>(), b = end.to<double>(), s = step.to<double>();
  EMBER_CHECK(s > 0 || s < 0, "range: step must be nonzero");
  EMBER_CHECK(std::isfinite(a) && std::isfinite(b), "range: unsupported range: {} -> {}", a, b);
  EMBER_CHECK((s > 0 && b >= a) || (s < 0 && b <= a), "range: upper bound and lower bound inconsistent with step "
              "sign");
  const int64_t n = static_cast<int64_t>(std::floor((b - a) / s)) + 1;
  const DType dt = dtype.value_or(default_dtype());
  Tensor idx = ember::arange(Scalar(n), kFloat64, device);
  return (idx * Scalar(s) + Scalar(a)).to(dt);
}
Tensor range(const Scalar& start, const Scalar& end, std::optional<DType> dtype, std::optional<Device> device) {
  return range_step(start, end, Scalar(1), dtype, device);
}

// masked_fill with an all-True mask: value converted as fill_ converts it, and a result connected to self (zero
// gradient), as PyTorch's.
Tensor fill_scalar(const Tensor& self, const Scalar& value) {
  return self.masked_fill(ember::ones_like(self, kBool), value);
}
Tensor fill_tensor(const Tensor& self, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, "fill only supports 0-dimension value tensor but got tensor with {} dimensions.",
              value.dim());
  return self.masked_fill(ember::ones_like(self, kBool), value);
}

// The diagonal as a strided view (stride: the sum of self's strides), as PyTorch and NumPy's fill_diagonal; a
// tall 2-D matrix with wrap continues every cols + 1 rows.
Tensor fill_diagonal_(const Tensor& self, const Scalar& fill_value, bool wrap) {
  const int64_t nd = self.dim();
  EMBER_CHECK(nd >= 2, "fill_diagonal_: dimensions must larger than 1 (got {})", nd);
  const int64_t h = self.size(0), w = self.size(1);
  if (nd > 2) {
    for (int64_t i = 1; i < nd; ++i)
      EMBER_CHECK(self.size(i) == h, "fill_diagonal_: all dimensions of input must be of equal length");
  }
  int64_t stride = 0;
  for (int64_t i = 0; i < nd; ++i) stride += self.stride(i);
  const int64_t size = std::min(h, w);
  self.as_strided({size}, {stride}, self.storage_offset()).fill_(fill_value);
  if (wrap && nd == 2 && h > w + 1) {  // the diagonal restarts w + 1 rows further down
    const int64_t step = w + 1, wrap_size = (self.numel() + step - 1) / step - size;
    self.as_strided({wrap_size}, {stride}, self.storage_offset() + self.stride(0) * step).fill_(fill_value);
  }
  return self;
}

}  // namespace ember::composite
