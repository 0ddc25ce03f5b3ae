// Binary ops written with other ops: pow with a Scalar base, clamp_min and clamp_max (clamp with one bound).
// The kernels are in ember/kernels/cpu/binary.cpp.
#include "ember/ops/generated/CompositeKernels.h"
#include "ember/ops/out.h"

namespace ember {
namespace composite {

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

namespace ember::composite {

Tensor rsub(const Tensor& self, const Tensor& other, const Scalar& alpha) { return ember::sub(other, self, alpha); }

}  // namespace ember::composite
