#pragma once
// C++ operators on tensors, as LibTorch has them: a + b, a * 2, -a, a == b, a += b, ...
#include "ember/ops/Functions.h"

namespace ember {

inline Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
inline Tensor operator+(const Tensor& a, const Scalar& b) { return add(a, b); }
inline Tensor operator+(const Scalar& a, const Tensor& b) { return add(b, a); }
inline Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
inline Tensor operator-(const Tensor& a, const Scalar& b) { return sub(a, b); }
inline Tensor operator-(const Scalar& a, const Tensor& b) { return sub(wrapped_scalar_tensor(a), b); }
inline Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
inline Tensor operator*(const Tensor& a, const Scalar& b) { return mul(a, b); }
inline Tensor operator*(const Scalar& a, const Tensor& b) { return mul(b, a); }
inline Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
inline Tensor operator/(const Tensor& a, const Scalar& b) { return div(a, b); }
inline Tensor operator/(const Scalar& a, const Tensor& b) { return div(wrapped_scalar_tensor(a), b); }
inline Tensor operator%(const Tensor& a, const Tensor& b) { return remainder(a, b); }
inline Tensor operator-(const Tensor& a) { return neg(a); }
inline Tensor operator~(const Tensor& a) { return bitwise_not(a); }
inline Tensor operator&(const Tensor& a, const Tensor& b) { return bitwise_and(a, b); }
inline Tensor operator|(const Tensor& a, const Tensor& b) { return bitwise_or(a, b); }
inline Tensor operator^(const Tensor& a, const Tensor& b) { return bitwise_xor(a, b); }
inline Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
inline Tensor operator==(const Tensor& a, const Scalar& b) { return eq(a, b); }
inline Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
inline Tensor operator!=(const Tensor& a, const Scalar& b) { return ne(a, b); }
inline Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
inline Tensor operator<(const Tensor& a, const Scalar& b) { return lt(a, b); }
inline Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
inline Tensor operator<=(const Tensor& a, const Scalar& b) { return le(a, b); }
inline Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
inline Tensor operator>(const Tensor& a, const Scalar& b) { return gt(a, b); }
inline Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
inline Tensor operator>=(const Tensor& a, const Scalar& b) { return ge(a, b); }
inline Tensor operator+=(const Tensor& a, const Tensor& b) { return a.add_(b); }
inline Tensor operator-=(const Tensor& a, const Tensor& b) { return a.sub_(b); }
inline Tensor operator*=(const Tensor& a, const Tensor& b) { return a.mul_(b); }
inline Tensor operator/=(const Tensor& a, const Tensor& b) { return a.div_(b); }
inline Tensor operator+=(const Tensor& a, const Scalar& b) { return a.add_(b); }
inline Tensor operator-=(const Tensor& a, const Scalar& b) { return a.sub_(b); }
inline Tensor operator*=(const Tensor& a, const Scalar& b) { return a.mul_(b); }
inline Tensor operator/=(const Tensor& a, const Scalar& b) { return a.div_(b); }

}  // namespace ember

#include <ostream>

#include "ember/ops/TensorPrint.h"

namespace ember {
/// Writes t as LibTorch's `std::cout << tensor` does (ember::print, Note [LibTorch's tensor printing]):
/// " 1  2\n 3  4\n[ CPULongType{2,2} ]". Tensor::str() gives Python's layout ("tensor([[1, 2], [3, 4]])").
inline std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  print(os, t, 80);
  return os;
}
}  // namespace ember
