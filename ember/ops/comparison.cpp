// Comparisons written with other ops: isclose and allclose (PyTorch's torch.isclose / torch.allclose).
#include "ember/ops/generated/CompositeKernels.h"

namespace ember::composite {

// Note [isclose]
// isclose is |self - other| <= atol + rtol * |other| plus two cases the inequality gets wrong: equal values
// are close even when the difference is NaN (inf - inf), and NaN is close to NaN only with equal_nan. Integer
// and bool inputs are compared exactly when both tolerances are 0 and otherwise in the default dtype, as
// PyTorch does (so rtol applies to an integer's magnitude).
Tensor isclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  EMBER_CHECK(self.dtype() == other.dtype(), "isclose: {} did not match {} (both inputs must have the same dtype)",
              self.dtype(), other.dtype());
  EMBER_CHECK(rtol >= 0, "rtol must be greater than or equal to zero, but got {}", rtol);
  EMBER_CHECK(atol >= 0, "atol must be greater than or equal to zero, but got {}", atol);
  Tensor close = ember::eq(self, other);
  if (equal_nan && self.is_floating_point()) close = close.logical_or(self.isnan().logical_and(other.isnan()));
  if (rtol == 0 && atol == 0) return close;
  Tensor a = self, b = other;
  if (!self.is_floating_point()) {
    a = self.to(default_dtype());
    b = other.to(default_dtype());
  }
  Tensor allowed = ember::mul(b, rtol).abs().add(atol);
  Tensor actual = ember::sub(a, b).abs();
  return close.logical_or(actual.isfinite().logical_and(actual.le(allowed)));
}

bool allclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  return ember::isclose(self, other, rtol, atol, equal_nan).all().item<bool>();
}

}  // namespace ember::composite
