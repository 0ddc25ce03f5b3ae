#pragma once
#include <cstdint>
#include <string>

#include "ember/core/DType.h"

namespace ember {

/// A number not held in a tensor: bool, int64, double or complex<double> (as a Python number is). Its dtype()
/// is the dtype PyTorch gives the matching Python number: bool, int64, float64 or complex128.
class Scalar {
 public:
  enum class Tag : uint8_t { Bool, Int, Double, Complex };
  Scalar() : Scalar(int64_t{0}) {}
  Scalar(bool v) : tag_(Tag::Bool) { v_.i = v; }
  template <class I>
    requires(std::is_integral_v<I> && !std::is_same_v<I, bool>)
  Scalar(I v) : tag_(Tag::Int) {
    v_.i = static_cast<int64_t>(v);
  }
  Scalar(double v) : tag_(Tag::Double) { v_.d = v; }
  Scalar(float v) : Scalar(static_cast<double>(v)) {}
  Scalar(Half v) : Scalar(static_cast<double>(float(v))) {}
  Scalar(BFloat16 v) : Scalar(static_cast<double>(float(v))) {}
  Scalar(std::complex<double> v) : tag_(Tag::Complex) {
    v_.d = v.real();
    im_ = v.imag();
  }
  Scalar(std::complex<float> v) : Scalar(std::complex<double>(v)) {}

  Tag tag() const { return tag_; }
  bool is_bool() const { return tag_ == Tag::Bool; }
  bool is_integral() const { return tag_ == Tag::Int; }
  bool is_floating_point() const { return tag_ == Tag::Double; }
  bool is_complex() const { return tag_ == Tag::Complex; }
  DType dtype() const {
    return tag_ == Tag::Bool ? kBool : tag_ == Tag::Int ? kInt64 : tag_ == Tag::Double ? kFloat64 : kComplexDouble;
  }

  /// The value converted to T (C++ conversion rules; double -> integer truncates; a complex value converts to a
  /// real type by its real part, as PyTorch's static_cast of c10::complex).
  template <class T>
  T to() const {
    if constexpr (std::is_same_v<T, std::complex<double>> || std::is_same_v<T, std::complex<float>>) {
      using V = typename T::value_type;
      if (tag_ == Tag::Complex) return T(static_cast<V>(v_.d), static_cast<V>(im_));
      return T(to<V>(), V(0));
    } else {
      return to_real<T>();
    }
  }
  /// The imaginary part (0 unless complex).
  double imag() const { return tag_ == Tag::Complex ? im_ : 0.0; }
  double to_double() const { return to<double>(); }
  std::complex<double> to_complex_double() const { return to<std::complex<double>>(); }
  int64_t to_long() const { return to<int64_t>(); }
  bool to_bool() const { return to<bool>(); }
  // LibTorch's c10::Scalar spellings of the conversions above (same rules as to<T>()).
  double toDouble() const { return to<double>(); }
  float toFloat() const { return to<float>(); }
  int64_t toLong() const { return to<int64_t>(); }
  int32_t toInt() const { return to<int32_t>(); }
  bool toBool() const { return to<bool>(); }
  std::complex<double> toComplexDouble() const { return to<std::complex<double>>(); }
  bool isFloatingPoint() const { return is_floating_point(); }
  bool isComplex() const { return is_complex(); }
  bool isIntegral(bool include_bool) const { return is_integral() || (include_bool && is_bool()); }
  bool isBoolean() const { return is_bool(); }
  bool equal(const Scalar& o) const { return tag_ == o.tag_ && v_.i == o.v_.i && (!is_complex() || im_ == o.im_); }
  std::string str() const;

 private:
  template <class T>
  T to_real() const {
    if constexpr (std::is_same_v<T, bool>) {
      if (tag_ == Tag::Complex) return v_.d != 0 || im_ != 0;
    }
    if (tag_ == Tag::Double || tag_ == Tag::Complex) {
      if constexpr (std::is_same_v<T, bool>) return v_.d != 0;
      else return static_cast<T>(v_.d);
    }
    if constexpr (std::is_same_v<T, bool>) return v_.i != 0;
    else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) return T(static_cast<float>(v_.i));
    else return static_cast<T>(v_.i);
  }

  Tag tag_;
  union {
    int64_t i;
    double d;  // the real part of a complex value
  } v_;
  double im_ = 0.0;  // the imaginary part of a complex value
};

/// Whether v is outside the range of dtype `to`, as PyTorch's c10::overflows (the check behind "value cannot
/// be converted to type T without overflow"): an integer beyond an integral type's range (negative integers
/// wrap into an unsigned type down to -max, as two's complement: -1 is 255 for uint8); a floating value that
/// is NaN, infinite or beyond an integral type's [lowest, max]; a finite value beyond a floating type's max.
/// Nothing overflows bool.
bool overflows(const Scalar& v, DType to);

}  // namespace ember
