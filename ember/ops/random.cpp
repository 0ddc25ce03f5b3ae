// Random ops written with other ops: dropout (bernoulli_ noise, as PyTorch's CPU dropout) and the *_like
// samplers. The sampling kernels are in ember/kernels/cpu/random.cpp (Note [random kernels]).
#include "ember/ops/generated/CompositeKernels.h"

namespace ember::composite {

namespace {

// PyTorch's infer_dense_strides: dense strides that keep the order of self's dims by stride (smallest stride
// innermost; ties keep the smaller dim inside), as empty_like(..., preserve_format) allocates.
DimVector infer_dense_strides(IntArrayRef sizes, IntArrayRef strides) {
  const int64_t nd = static_cast<int64_t>(sizes.size());
  DimVector perm(static_cast<size_t>(nd));
  for (int64_t i = 0; i < nd; ++i) perm[i] = nd - 1 - i;
  auto should_swap = [&](int64_t d0, int64_t d1) {
    if (strides[d0] == 0 || strides[d1] == 0) return 0;
    if (strides[d0] != strides[d1]) return strides[d0] < strides[d1] ? -1 : 1;
    return sizes[d0] > sizes[d1] ? 1 : 0;
  };
  for (int64_t i = 1; i < nd; ++i) {
    int64_t d1 = i;
    for (int64_t d0 = i - 1; d0 >= 0; --d0) {
      int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  DimVector out(static_cast<size_t>(nd));
  int64_t stride = 1;
  for (int64_t i = 0; i < nd; ++i) {
    out[perm[i]] = stride;
    if (sizes[perm[i]] > 1) stride *= sizes[perm[i]];
  }
  return out;
}

// empty_like with PyTorch's memory formats: Contiguous, or (Preserve, the default) self's own strides when it is
// dense and non-overlapping, else dense strides in the order of self's. The *_like samplers depend on it: the
// draws follow the output's memory order, and a non-contiguous output takes normal's element-wise path.
Tensor empty_like_preserving(const Tensor& self, std::optional<DType> dtype, std::optional<Device> device,
                             std::optional<MemoryFormat> memory_format) {
  DType dt = dtype.value_or(self.dtype());
  if (memory_format == MemoryFormat::Contiguous) return ember::empty(self.sizes(), dt, device);
  DimVector strides = infer_dense_strides(self.sizes(), self.strides());
  bool dense = true;
  for (int64_t d = 0; d < self.dim(); ++d) dense = dense && (self.size(d) <= 1 || self.stride(d) == strides[d]);
  return ember::empty_strided(self.sizes(), dense ? self.strides() : IntArrayRef(strides), dt, device);
}

// multiply<inplace> of PyTorch's Dropout.cpp.
Tensor multiply(const Tensor& input, const Tensor& noise, bool inplace) {
  return inplace ? input.mul_(noise) : ember::mul(input, noise);
}

// _dropout_impl of PyTorch (ATen/native/Dropout.cpp) without the feature and alpha variants.
Tensor dropout_impl(const Tensor& input, double p, bool train, bool inplace) {
  EMBER_CHECK(p >= 0 && p <= 1, "dropout: dropout probability has to be between 0 and 1, but got {}", p);
  if (p == 0 || !train || input.numel() == 0) return input;
  if (p == 1) return multiply(input, ember::zeros({}, input.dtype()), inplace);
  Tensor noise = ember::empty(input.sizes(), input.dtype());
  noise.bernoulli_(1 - p);
  noise.div_(wrapped_scalar_tensor(Scalar(1 - p)));
  return multiply(input, noise, inplace);
}

}  // namespace

Tensor dropout(const Tensor& input, double p, bool train) { return dropout_impl(input, p, train, false); }
Tensor dropout_(const Tensor& self, double p, bool train) { return dropout_impl(self, p, train, true); }

Tensor rand_like(const Tensor& self, std::optional<DType> dtype, std::optional<Device> device,
                 std::optional<MemoryFormat> memory_format) {
  return empty_like_preserving(self, dtype, device, memory_format).uniform_(0, 1, std::nullopt);
}

Tensor randn_like(const Tensor& self, std::optional<DType> dtype, std::optional<Device> device,
                  std::optional<MemoryFormat> memory_format) {
  return empty_like_preserving(self, dtype, device, memory_format).normal_(0, 1, std::nullopt);
}

Tensor randint_like(const Tensor& self, int64_t high, std::optional<DType> dtype, std::optional<Device> device,
                    std::optional<MemoryFormat> memory_format) {
  return randint_like_low(self, 0, high, dtype, device, memory_format);
}

// Draws as random_.from does (PyTorch's randint_like is empty_like(...).random_(low, high)), so a seed gives
// PyTorch's numbers.
Tensor randint_like_low(const Tensor& self, int64_t low, int64_t high, std::optional<DType> dtype,
                        std::optional<Device> device, std::optional<MemoryFormat> memory_format) {
  return empty_like_preserving(self, dtype, device, memory_format).random_(low, high, std::nullopt);
}

}  // namespace ember::composite
