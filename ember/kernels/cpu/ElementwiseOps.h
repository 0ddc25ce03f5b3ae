#pragma once
// The arithmetic of the elementwise ops, one functor each, as scalar functions of the compute type
// (opmath_t: float for the 16-bit floats). The same functors serve every dtype and, for float and double,
// every instruction-set build (vectorized bodies, where they exist, are in isa/vec_loops.cpp).
// Formulas follow PyTorch's documented semantics; sources are named where not obvious.
#include <algorithm>
#include <cmath>
#include <complex>

#include "ember/kernels/cpu/isa/IsaNamespace.h"
#include <limits>
#include <type_traits>

namespace ember::cpu::ops {
// Note [ISA namespaces]: each instruction-set build of these inline templates gets its own namespace, so the
// linker never merges an AVX-512 instantiation into the baseline code (see isa/VecLoops.h).
inline namespace EMBER_ISA_NS {

template <class T>
constexpr bool kIsFloat = std::is_floating_point_v<T>;
template <class T>
constexpr bool kIsComplex = false;
template <class V>
constexpr bool kIsComplex<std::complex<V>> = true;

// Note [complex arithmetic]
// Complex products and quotients use the textbook formulas PyTorch 1.13's CPU kernels use (its vectorized
// complex types), not the C library's Annex G ones behind std::complex's operators, so inf and NaN parts come
// out as PyTorch's do: (a+bi)(c+di) = (ac - bd) + (ad + bc)i, so (inf+0i)(1+0i) = inf+nan i; and
// (a+bi)/(c+di) = ((ac + bd) + (bc - ad)i) / (c^2 + d^2), so (1+0i)/(inf+0i) = nan+nan i, x/0 = nan+nan i.
// add and sub compute self + alpha * other with this product, as PyTorch's ufunc::add.
template <class V>
std::complex<V> complex_mul(std::complex<V> x, std::complex<V> y) {
  const V a = x.real(), b = x.imag(), c = y.real(), d = y.imag();
  return {a * c - b * d, a * d + b * c};
}
template <class V>
std::complex<V> complex_div(std::complex<V> x, std::complex<V> y) {
  const V a = x.real(), b = x.imag(), c = y.real(), d = y.imag();
  const V den = c * c + d * d;
  return {(a * c + b * d) / den, (b * c - a * d) / den};
}

// ---- unary, same dtype in and out. X(Name, functor expression in x)
struct Abs {
  template <class T> static T f(T x) {
    if constexpr (std::is_unsigned_v<T> || std::is_same_v<T, bool>) return x;
    else return x < 0 ? T(-x) : x;
  }
};
struct Neg { template <class T> static T f(T x) { return static_cast<T>(-x); } };
struct Sign {
  template <class T> static T f(T x) {
    if constexpr (std::is_same_v<T, bool>) return x;
    else return static_cast<T>((T(0) < x) - (x < T(0)));
  }
};
struct Exp { template <class T> static T f(T x) { return std::exp(x); } };
struct Exp2 { template <class T> static T f(T x) { return std::exp2(x); } };
struct Expm1 { template <class T> static T f(T x) { return std::expm1(x); } };
struct Log { template <class T> static T f(T x) { return std::log(x); } };
struct Log2 { template <class T> static T f(T x) { return std::log2(x); } };
struct Log10 { template <class T> static T f(T x) { return std::log10(x); } };
struct Log1p { template <class T> static T f(T x) { return std::log1p(x); } };
struct Sqrt { template <class T> static T f(T x) { return std::sqrt(x); } };
struct Rsqrt {
  template <class T> static T f(T x) {
    if constexpr (kIsComplex<T>) return complex_div(T(1), std::sqrt(x));  // Note [complex arithmetic]
    else return T(1) / std::sqrt(x);
  }
};
struct Reciprocal {
  template <class T> static T f(T x) {
    if constexpr (kIsComplex<T>) return complex_div(T(1), x);
    else return T(1) / x;
  }
};
struct Sin { template <class T> static T f(T x) { return std::sin(x); } };
struct Cos { template <class T> static T f(T x) { return std::cos(x); } };
struct Tan { template <class T> static T f(T x) { return std::tan(x); } };
struct Asin { template <class T> static T f(T x) { return std::asin(x); } };
struct Acos { template <class T> static T f(T x) { return std::acos(x); } };
struct Atan { template <class T> static T f(T x) { return std::atan(x); } };
struct Sinh { template <class T> static T f(T x) { return std::sinh(x); } };
struct Cosh { template <class T> static T f(T x) { return std::cosh(x); } };
struct Tanh { template <class T> static T f(T x) { return std::tanh(x); } };
struct Acosh { template <class T> static T f(T x) { return std::acosh(x); } };
struct Asinh { template <class T> static T f(T x) { return std::asinh(x); } };
struct Atanh { template <class T> static T f(T x) { return std::atanh(x); } };
struct Deg2rad { template <class T> static T f(T x) { return x * T(M_PI / 180.0); } };
struct Rad2deg { template <class T> static T f(T x) { return x * T(180.0 / M_PI); } };
struct Sigmoid {
  template <class T> static T f(T x) {
    if constexpr (kIsComplex<T>) return complex_div(T(1), T(1) + std::exp(-x));  // Note [complex arithmetic]
    else return T(1) / (T(1) + std::exp(-x));
  }
};
struct Erf { template <class T> static T f(T x) { return std::erf(x); } };
struct Erfc { template <class T> static T f(T x) { return std::erfc(x); } };
struct Relu {
  template <class T> static T f(T x) {
    if constexpr (kIsFloat<T>) return std::isnan(x) ? x : (x > T(0) ? x : T(0));
    else return x > T(0) ? x : T(0);
  }
};
// GELU (Hendrycks & Gimpel, 2016): x * Phi(x) = 0.5 x (1 + erf(x / sqrt 2)).
struct Gelu { template <class T> static T f(T x) { return T(0.5) * x * (T(1) + std::erf(x * T(M_SQRT1_2))); } };
// Its tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
struct GeluTanh {
  template <class T> static T f(T x) {
    const T k = T(M_SQRT2 * M_2_SQRTPI * 0.5);
    return T(0.5) * x * (T(1) + std::tanh(k * (x + T(0.044715) * x * x * x)));
  }
};
struct Silu { template <class T> static T f(T x) { return x / (T(1) + std::exp(-x)); } };
struct Floor { template <class T> static T f(T x) { if constexpr (kIsFloat<T>) return std::floor(x); else return x; } };
struct Ceil { template <class T> static T f(T x) { if constexpr (kIsFloat<T>) return std::ceil(x); else return x; } };
struct Round {
  template <class T> static T f(T x) {
    if constexpr (kIsFloat<T>) return std::nearbyint(x);
    else return x;
  }
};
struct Trunc { template <class T> static T f(T x) { if constexpr (kIsFloat<T>) return std::trunc(x); else return x; } };
struct Frac { template <class T> static T f(T x) { return x - std::trunc(x); } };
struct Square {
  template <class T> static T f(T x) {
    if constexpr (kIsComplex<T>) return complex_mul(x, x);
    else return static_cast<T>(x * x);
  }
};
struct BitwiseNot {
  template <class T> static T f(T x) {
    if constexpr (std::is_same_v<T, bool>) return !x;
    else return static_cast<T>(~x);
  }
};

// ---- unary predicates (bool out)
// A complex value is NaN when either part is, infinite when either part is, finite when both are.
struct IsNan {
  template <class T> static bool f(T x) {
    if constexpr (kIsComplex<T>) return std::isnan(x.real()) || std::isnan(x.imag());
    else if constexpr (kIsFloat<T>) return std::isnan(x);
    else return false;
  }
};
struct IsInf {
  template <class T> static bool f(T x) {
    if constexpr (kIsComplex<T>) return std::isinf(x.real()) || std::isinf(x.imag());
    else if constexpr (kIsFloat<T>) return std::isinf(x);
    else return false;
  }
};
struct IsFinite {
  template <class T> static bool f(T x) {
    if constexpr (kIsComplex<T>) return std::isfinite(x.real()) && std::isfinite(x.imag());
    else if constexpr (kIsFloat<T>) return std::isfinite(x);
    else return true;
  }
};
struct IsPosInf {
  template <class T> static bool f(T x) {
    if constexpr (kIsFloat<T>) return x == std::numeric_limits<T>::infinity();
    else return false;
  }
};
struct IsNegInf {
  template <class T> static bool f(T x) {
    if constexpr (kIsFloat<T>) return x == -std::numeric_limits<T>::infinity();
    else return false;
  }
};
// The sign bit: set for -0.0 and negative NaN too; never for unsigned integers and bool. (Read through copysign:
// GCC 12 fails with an internal compiler error vectorizing std::signbit of float at -O3.)
struct Signbit {
  template <class T> static bool f(T x) {
    if constexpr (kIsFloat<T>) return std::copysign(T(1), x) < T(0);
    else if constexpr (std::is_signed_v<T>) return x < 0;
    else return false;
  }
};
struct LogicalNot { template <class T> static bool f(T x) { return !static_cast<bool>(x); } };

// ---- binary, same dtype in and out
struct Mul {
  template <class T> static T f(T a, T b) {
    if constexpr (std::is_same_v<T, bool>) return a && b;
    else if constexpr (kIsComplex<T>) return complex_mul(a, b);  // Note [complex arithmetic]
    else return static_cast<T>(a * b);
  }
};
struct Div {
  template <class T> static T f(T a, T b) {
    if constexpr (kIsComplex<T>) return complex_div(a, b);  // Note [complex arithmetic]
    else return a / b;
  }
};
struct Atan2 { template <class T> static T f(T a, T b) { return std::atan2(a, b); } };
struct Hypot { template <class T> static T f(T a, T b) { return std::hypot(a, b); } };
struct Maximum {
  template <class T> static T f(T a, T b) {
    if constexpr (kIsFloat<T>) { if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN(); }
    return a > b ? a : b;
  }
};
struct Minimum {
  template <class T> static T f(T a, T b) {
    if constexpr (kIsFloat<T>) { if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN(); }
    return a < b ? a : b;
  }
};
struct Fmax {
  template <class T> static T f(T a, T b) {
    if constexpr (kIsFloat<T>) return std::fmax(a, b);
    else return a > b ? a : b;
  }
};
struct Fmin {
  template <class T> static T f(T a, T b) {
    if constexpr (kIsFloat<T>) return std::fmin(a, b);
    else return a < b ? a : b;
  }
};
struct Copysign { template <class T> static T f(T a, T b) { return std::copysign(a, b); } };
// log(e^a + e^b) = max + log1p(e^-|a - b|); equal infinities give themselves (no inf - inf).
struct Logaddexp {
  template <class T> static T f(T a, T b) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
    if (std::isinf(a) && a == b) return a;
    T m = a > b ? a : b;
    return m + std::log1p(std::exp(-std::abs(a - b)));
  }
};
// log2(2^a + 2^b) = max + log1p(2^-|a - b|) / ln 2.
struct Logaddexp2 {
  template <class T> static T f(T a, T b) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
    if (std::isinf(a) && a == b) return a;
    T m = a > b ? a : b;
    return m + std::log1p(std::exp2(-std::abs(a - b))) / T(M_LN2);
  }
};
// heaviside step: values where self == 0, else 1 where self > 0 and 0 below (and for NaN), as PyTorch.
struct Heaviside {
  template <class T> static T f(T a, T b) { return a == T(0) ? b : static_cast<T>(a > T(0)); }
};
// Euclid's algorithm on |a|, |b| in T's own arithmetic (the magnitude of the most negative value wraps back to
// it, as PyTorch's); gcd(0, 0) = 0.
struct Gcd {
  template <class T> static T f(T a, T b) {
    if constexpr (std::is_signed_v<T>) {
      a = static_cast<T>(a < 0 ? -a : a);
      b = static_cast<T>(b < 0 ? -b : b);
    }
    while (a != 0) {
      T c = a;
      // x % -1 is 0 (and INT_MIN % -1 would trap); an unsigned 255 is no -1
      if constexpr (std::is_signed_v<T>) a = (c == T(-1)) ? T(0) : static_cast<T>(b % c);
      else a = static_cast<T>(b % c);
      b = c;
    }
    return b;
  }
};
// lcm = |a / gcd * b| (0 when gcd is 0), as PyTorch computes it: in the promoted integer type (int for the
// 8- and 16-bit types), wrapping on overflow, then narrowed to T (so int8's lcm(6, 127) is 762 narrowed, -6).
struct Lcm {
  template <class T> static T f(T a, T b) {
    T g = Gcd::f(a, b);
    if (g == 0) return 0;
    using W = std::conditional_t<(sizeof(T) < sizeof(int)), int, T>;
    using U = std::make_unsigned_t<W>;
    // g is -1 for gcd(INT_MIN, INT_MAX) (|INT_MIN| wraps): a / -1 by negation, which wraps instead of trapping
    bool g_is_minus_one = false;
    if constexpr (std::is_signed_v<T>) g_is_minus_one = g == T(-1);  // an unsigned 255 is no -1
    W q = g_is_minus_one ? static_cast<W>(U(0) - static_cast<U>(static_cast<W>(a)))
                     : static_cast<W>(static_cast<W>(a) / static_cast<W>(g));
    W r = static_cast<W>(static_cast<U>(q) * static_cast<U>(static_cast<W>(b)));
    if constexpr (std::is_signed_v<W>) {
      if (r < 0) r = static_cast<W>(U(0) - static_cast<U>(r));
    }
    return static_cast<T>(r);
  }
};
struct BitAnd { template <class T> static T f(T a, T b) { return static_cast<T>(a & b); } };
struct BitOr { template <class T> static T f(T a, T b) { return static_cast<T>(a | b); } };
struct BitXor { template <class T> static T f(T a, T b) { return static_cast<T>(a ^ b); } };
// Shifts by a negative amount or by the width or more give 0 (left) or the sign fill (right), as PyTorch.
struct Lshift {
  template <class T> static T f(T a, T b) {
    using U = std::make_unsigned_t<T>;
    if (b < 0 || b >= T(sizeof(T) * 8)) return 0;
    return static_cast<T>(static_cast<U>(a) << b);
  }
};
struct Rshift {
  template <class T> static T f(T a, T b) {
    constexpr T bits = T(sizeof(T) * 8);
    if (b < 0 || b >= bits) {
      if constexpr (std::is_signed_v<T>) return a < 0 ? T(-1) : T(0);
      else return 0;
    }
    return static_cast<T>(a >> b);
  }
};
// Floating remainder with the sign of the divisor (Python's %).
struct RemainderF {
  template <class T> static T f(T a, T b) {
    T m = std::fmod(a, b);
    if (m != 0 && ((b < 0) != (m < 0))) m += b;
    return m;
  }
};
struct FmodF { template <class T> static T f(T a, T b) { return std::fmod(a, b); } };
// Floor division of floats as Python computes it (CPython's float_floor_div): exact for representable
// quotients, -0.0 kept, division by zero gives a/b.
struct FloorDivF {
  template <class T> static T f(T a, T b) {
    if (b == 0) return a / b;
    T mod = std::fmod(a, b);
    T div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= T(1);
    T fl;
    if (div != 0) {
      fl = std::floor(div);
      if (div - fl > T(0.5)) fl += T(1);
    } else {
      fl = std::copysign(T(0), a / b);
    }
    return fl;
  }
};
struct TruncDivF { template <class T> static T f(T a, T b) { return std::trunc(a / b); } };
struct PowF { template <class T> static T f(T a, T b) { return std::pow(a, b); } };
// Integer power by squaring; negative exponents give 1/a**|b| truncated (0 unless |a| == 1), as PyTorch.
struct PowI {
  template <class T> static T f(T a, T b) {
    if constexpr (std::is_same_v<T, bool>) return a || !b;
    else {
      if constexpr (std::is_signed_v<T>) {
        if (b < 0) {
          if (a == 1) return 1;
          if (a == -1) return (b % 2 == 0) ? T(1) : T(-1);
          return 0;
        }
      }
      T r = 1;
      T base = a;
      auto e = b;
      while (e) {
        if (e & 1) r = static_cast<T>(r * base);
        e >>= 1;
        base = static_cast<T>(base * base);
      }
      return r;
    }
  }
};

// ---- activations and pointwise losses (ember/kernels/cpu/activation.cpp, loss.cpp). The ones with parameters
// are templates over the compute type holding their parameters, already converted to it. Formulas are
// PyTorch 1.13's (aten/src/ATen/native/cpu/Activation.cpp, PointwiseOpsKernel.cpp).
// clamp(x, lo, hi) as PyTorch's clamp: NaN stays NaN; lo > hi gives hi.
template <class T>
struct Hardtanh {
  T lo, hi;
  T operator()(T x) const {
    if constexpr (kIsFloat<T>) { if (std::isnan(x)) return x; }
    x = x < lo ? lo : x;
    return x > hi ? hi : x;
  }
};
template <class T>
struct LeakyRelu {
  T slope;
  T operator()(T x) const { return x > T(0) ? x : x * slope; }
};
// elu: scale * x for x > 0, else scale * alpha * (exp(input_scale * x) - 1).
template <class T>
struct Elu {
  T negcoef, poscoef, input_scale;  // alpha * scale, scale, input_scale
  T operator()(T x) const { return x <= T(0) ? std::expm1(x * input_scale) * negcoef : x * poscoef; }
};
template <class T>
struct Softplus {
  T beta, threshold;
  T operator()(T x) const { return x * beta > threshold ? x : std::log1p(std::exp(x * beta)) / beta; }
};
// threshold: x where x > threshold, else value (NaN compares false, so it stays NaN).
template <class T>
struct Threshold {
  T threshold, value;
  T operator()(T x) const { return x <= threshold ? value : x; }
};
// hardsigmoid and hardswish propagate NaN, as PyTorch's (std::max/std::min keep a NaN first operand).
struct Hardsigmoid { template <class T> static T f(T x) { return std::min(std::max(x + T(3), T(0)), T(6)) / T(6); } };
struct Hardswish { template <class T> static T f(T x) { return x * std::min(std::max(x + T(3), T(0)), T(6)) / T(6); } };
struct Mish { template <class T> static T f(T x) { return x * std::tanh(std::log1p(std::exp(x))); } };
// log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), without overflow for large |x|.
struct LogSigmoid {
  template <class T> static T f(T x) { return std::min(x, T(0)) - std::log1p(std::exp(-std::abs(x))); }
};
// hardshrink: 0 on [-lambd, lambd], else x (NaN compares false: it stays).
template <class T>
struct Hardshrink {
  T lambd;
  T operator()(T x) const { return (x >= -lambd && x <= lambd) ? T(0) : x; }
};
// glu on the two halves a, b of its input: a * sigmoid(b).
struct Glu { template <class T> static T f(T a, T b) { return a / (T(1) + std::exp(-b)); } };
struct MseLoss { template <class T> static T f(T a, T b) { T d = a - b; return d * d; } };
// smooth_l1 (Girshick, 2015, with PyTorch's beta): 0.5 z^2 / beta below beta, z - 0.5 beta above; z = |a - b|.
template <class T>
struct SmoothL1Loss {
  T beta;
  T operator()(T a, T b) const {
    T z = std::abs(a - b);
    return z < beta ? T(0.5) * z * z / beta : z - T(0.5) * beta;
  }
};
// huber: 0.5 z^2 below delta, delta (z - 0.5 delta) above; z = |a - b|.
template <class T>
struct HuberLoss {
  T delta;
  T operator()(T a, T b) const {
    T z = std::abs(a - b);
    return z < delta ? T(0.5) * z * z : delta * (z - T(0.5) * delta);
  }
};
// binary cross entropy of probability x at target y, each log clamped at -100 (PyTorch's Loss.cpp):
// (y - 1) max(log1p(-x), -100) - y max(log(x), -100).
struct BinaryCrossEntropy {
  template <class T> static T f(T x, T y) {
    return (y - T(1)) * std::max(T(std::log1p(-x)), T(-100)) - y * std::max(T(std::log(x)), T(-100));
  }
};

// ---- comparisons (bool out)
struct Eq { template <class T> static bool f(T a, T b) { return a == b; } };
struct Ne { template <class T> static bool f(T a, T b) { return a != b; } };
struct Lt { template <class T> static bool f(T a, T b) { return a < b; } };
struct Le { template <class T> static bool f(T a, T b) { return a <= b; } };
struct Gt { template <class T> static bool f(T a, T b) { return a > b; } };
struct Ge { template <class T> static bool f(T a, T b) { return a >= b; } };
struct LogicalAnd {
  template <class T> static bool f(T a, T b) { return static_cast<bool>(a) && static_cast<bool>(b); }
};
struct LogicalOr {
  template <class T> static bool f(T a, T b) { return static_cast<bool>(a) || static_cast<bool>(b); }
};
struct LogicalXor {
  template <class T> static bool f(T a, T b) { return static_cast<bool>(a) != static_cast<bool>(b); }
};

}  // namespace EMBER_ISA_NS
}  // namespace ember::cpu::ops
