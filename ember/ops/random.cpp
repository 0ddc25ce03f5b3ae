// Random ops written with other ops: dropout (bernoulli_ noise, as PyTorch's CPU dropout) and the *_like
// samplers. The sampling kernels are in ember/kernels/cpu/random.cpp (Note [random kernels]).
#include "ember/ops/generated/CompositeKernels.h"

namespace ember::composite {

namespace {

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
  return ember::empty_like(self, dtype, device, memory_format).uniform_(0, 1, std::nullopt);
}

Tensor randn_like(const Tensor& self, std::optional<DType> dtype, std::optional<Device> device,
                  std::optional<MemoryFormat> memory_format) {
  return ember::empty_like(self, dtype, device, memory_format).normal_(0, 1, std::nullopt);
}

Tensor randint_like(const Tensor& self, int64_t high, std::optional<DType> dtype, std::optional<Device> device,
                    std::optional<MemoryFormat> memory_format) {
  return randint_like_low(self, 0, high, dtype, device, memory_format);
}

// Draws as random_.from does (PyTorch's randint_like is empty_like(...).random_(low, high)), so a seed gives
// PyTorch's numbers.
Tensor randint_like_low(const Tensor& self, int64_t low, int64_t high, std::optional<DType> dtype,
                        std::optional<Device> device, std::optional<MemoryFormat> memory_format) {
  return ember::empty_like(self, dtype, device, memory_format).random_(low, high, std::nullopt);
}

}  // namespace ember::composite
