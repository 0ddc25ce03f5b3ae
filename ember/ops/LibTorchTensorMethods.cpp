// Tensor methods that LibTorch has and the op database does not need as ops of their own: the in-place forms
// with a number (each calls the tensor form with the number wrapped as a 0-dim tensor, Note [promotion]) and
// assignment to a temporary (Note [assignment to a temporary] in ember/core/Tensor.h).
#include "ember/ops/Functions.h"

namespace ember {

Tensor& Tensor::operator=(const Tensor& values) && {
  copy_(values);
  return *this;
}
Tensor& Tensor::operator=(Tensor&& values) && {
  copy_(values);
  return *this;
}
Tensor& Tensor::operator=(const Scalar& value) && {
  fill_(value);
  return *this;
}

Tensor Tensor::add_(const Scalar& other, const Scalar& alpha) const {
  return add_(wrapped_scalar_tensor(other), alpha);
}
Tensor Tensor::sub_(const Scalar& other, const Scalar& alpha) const {
  return sub_(wrapped_scalar_tensor(other), alpha);
}
Tensor Tensor::mul_(const Scalar& other) const { return mul_(wrapped_scalar_tensor(other)); }
Tensor Tensor::div_(const Scalar& other) const { return div_(wrapped_scalar_tensor(other)); }
Tensor Tensor::remainder_(const Scalar& other) const { return remainder_(wrapped_scalar_tensor(other)); }
Tensor Tensor::fmod_(const Scalar& other) const { return fmod_(wrapped_scalar_tensor(other)); }
Tensor Tensor::pow_(const Scalar& exponent) const { return pow_(wrapped_scalar_tensor(exponent)); }
Tensor Tensor::eq_(const Scalar& other) const { return eq_(wrapped_scalar_tensor(other)); }
Tensor Tensor::ne_(const Scalar& other) const { return ne_(wrapped_scalar_tensor(other)); }
Tensor Tensor::lt_(const Scalar& other) const { return lt_(wrapped_scalar_tensor(other)); }
Tensor Tensor::le_(const Scalar& other) const { return le_(wrapped_scalar_tensor(other)); }
Tensor Tensor::gt_(const Scalar& other) const { return gt_(wrapped_scalar_tensor(other)); }
Tensor Tensor::ge_(const Scalar& other) const { return ge_(wrapped_scalar_tensor(other)); }

}  // namespace ember
