// Special-function and elementwise-math ops written with other ops (issue 19): ldexp, float_power, positive
// and torch.special's ndtr, round and log_softmax. The kernels of the others are in
// ember/kernels/cpu/special.cpp.
#include "ember/ops/Operators.h"
#include "ember/ops/generated/CompositeKernels.h"

namespace ember {
namespace composite {

// ldexp(x, e) = x * 2**e, as PyTorch's composite (mul(self, pow(2, other))).
Tensor ldexp(const Tensor& self, const Tensor& other) { return ember::mul(self, ember::exp2(other)); }
Tensor ldexp_(const Tensor& self, const Tensor& other) { return ember::mul_(self, ember::exp2(other)); }
Tensor ldexp_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return ember::mul_out(out, self, ember::exp2(other));
}

// float_power: pow of both operands converted to float64; in place and out= need a float64 destination.
Tensor float_power(const Tensor& self, const Tensor& exponent) {
  return ember::pow(self.to(kFloat64), exponent.to(kFloat64));
}
Tensor float_power_(const Tensor& self, const Tensor& exponent) {
  EMBER_CHECK(self.dtype() == kFloat64,
              "the base given to float_power_ has dtype {} but the operation's result requires dtype float64",
              self.dtype());
  return ember::pow_(self, exponent.to(kFloat64));
}
Tensor float_power_out(const Tensor& self, const Tensor& exponent, const Tensor& out) {
  EMBER_CHECK(out.dtype() == kFloat64,
              "the output given to float_power has dtype {} but the operation's result requires dtype float64",
              out.dtype());
  return ember::pow_out(out, self.to(kFloat64), exponent.to(kFloat64));
}

// Unary +: self itself; PyTorch refuses bool tensors.
Tensor positive(const Tensor& self) {
  EMBER_CHECK(self.dtype() != kBool, "The `+` operator, on a bool tensor is not supported.");
  return self;
}

// Phi(x) = (1 + erf(x / sqrt 2)) / 2, PyTorch's composite; float16 computes in float32 (PyTorch 1.13 has no
// float16 erf; in float16 arithmetic 1 + erf(x) would keep no digit of the left tail).
namespace {
Tensor ndtr_operand(const Tensor& self) { return self.dtype() == kFloat16 ? self.to(kFloat32) : self; }
}  // namespace
Tensor special_ndtr(const Tensor& self) {
  Tensor r = (ember::erf(ndtr_operand(self) * Scalar(M_SQRT1_2)) + Scalar(1)) * Scalar(0.5);
  return self.dtype() == kFloat16 ? r.to(kFloat16) : r;
}
Tensor special_ndtr_out(const Tensor& self, const Tensor& out) {
  return ember::mul_out(out, ember::erf(ndtr_operand(self) * Scalar(M_SQRT1_2)) + Scalar(1),
                        wrapped_scalar_tensor(Scalar(0.5)));
}

Tensor special_round(const Tensor& self, int64_t decimals) { return ember::round(self, decimals); }
Tensor special_round_out(const Tensor& self, int64_t decimals, const Tensor& out) {
  return ember::round_out(out, self, decimals);
}

Tensor special_log_softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  return ember::log_softmax(self, dim, dtype);
}

}  // namespace composite
}  // namespace ember
