// Elementwise kernels of the special functions (issue 19): the gamma family, erfinv, Bessel functions, the
// incomplete gamma and zeta functions, the orthogonal polynomials, and torch.special's own ops. The scalar
// formulas, with their sources, are in SpecialFunctions.h; each is evaluated in double and rounded to the
// result dtype. Integer and bool inputs compute in the default floating dtype, as PyTorch's; float16 and bfloat16
// compute in double as well (PyTorch 1.13 lacks many of these kernels for them).
#include <cstring>

#include "ember/kernels/cpu/BinaryVariants.h"
#include "ember/kernels/cpu/Dispatch.h"
#include "ember/kernels/cpu/Loops.h"
#include "ember/kernels/cpu/SpecialFunctions.h"
#include "ember/kernels/cpu/generated/CPUKernels.h"

namespace ember::cpu {

namespace {

namespace sp = ember::cpu::special;

/// out = f(self) for f: double -> double, integral inputs promoted to the default float dtype.
template <uint32_t Mask, class F>
Tensor float_unary(const char* name, const Tensor& self, const Tensor& out, bool inplace, const F& f) {
  IterConfig cfg;
  cfg.name = name;
  cfg.is_inplace = inplace;
  cfg.int_to_float = true;
  TensorIterator it(cfg, out, {self});
  dispatch_dtypes<Mask & kFloatingTypes>(it.common_dtype(), name, [&]<class T>() {
    it.for_each([&](char** d, const int64_t* s, int64_t n) {
      unary_loop<T, T>(d, s, n, [&](T x) { return static_cast<T>(f(static_cast<double>(x))); });
    });
  });
  return it.finish();
}

/// out = f(self, other) for f: (double, double) -> double, broadcast, integral operands promoted to float
/// (int_to_float) or refused by Mask.
template <uint32_t Mask, class F>
Tensor float_binary(const char* name, const Tensor& self, const Tensor& other, const Tensor& out, bool inplace,
                    bool int_to_float, const F& f) {
  IterConfig cfg;
  cfg.name = name;
  cfg.is_inplace = inplace;
  cfg.int_to_float = int_to_float;
  TensorIterator it(cfg, out, {self, other});
  dispatch_dtypes<Mask & kFloatingTypes>(it.common_dtype(), name, [&]<class T>() {
    it.for_each([&](char** d, const int64_t* s, int64_t n) {
      binary_loop<T, T>(d, s, n, [&](T x, T y) {
        return static_cast<T>(f(static_cast<double>(x), static_cast<double>(y)));
      });
    });
  });
  return it.finish();
}

double sinc_value(double x) {
  if (x == 0) return 1;
  double px = sp::kPi * x;
  return std::sin(px) / px;
}
double entr_value(double x) {
  if (std::isnan(x)) return x;
  if (x > 0) return -x * std::log(x);
  return x == 0 ? 0 : -sp::kInf;
}
double xlogy_value(double x, double y) {
  if (std::isnan(y)) return y;
  return x == 0 ? 0 : x * std::log(y);
}
double xlog1py_value(double x, double y) {
  if (std::isnan(y)) return y;
  return x == 0 ? 0 : x * std::log1p(y);
}

}  // namespace

// ---- unary ops with in-place and out= variants. X(name, dtypes, double -> double function)
#define EMBER_SPECIAL_UNARY_INPLACE(X)                           \
  X(digamma, kAllTypes, sp::digamma)                               \
  X(lgamma, kAllTypes, [](double x) { return std::lgamma(x); })    \
  X(erfinv, kAllTypes, sp::erfinv)                                 \
  X(i0, kAllTypes, sp::i0)                                         \
  X(sinc, kAllTypes, sinc_value)

#define EMBER_DEFINE_SPECIAL_UNARY_INPLACE(name, mask, fn)                                                       \
  Tensor name(const Tensor& self) { return float_unary<mask>(#name, self, {}, false, fn); }                      \
  Tensor name##_(const Tensor& self) { return float_unary<mask>(#name "_", self, self, true, fn); }               \
  Tensor name##_out(const Tensor& self, const Tensor& out) { return float_unary<mask>(#name, self, out, false, fn); }
EMBER_SPECIAL_UNARY_INPLACE(EMBER_DEFINE_SPECIAL_UNARY_INPLACE)
#undef EMBER_DEFINE_SPECIAL_UNARY_INPLACE

// ---- torch.special's unary ops (functional and out= only). X(name, dtypes, double -> double function)
#define EMBER_SPECIAL_UNARY(X)                                                                 \
  X(special_airy_ai, kAllTypes, sp::airy_ai)                                                    \
  X(special_bessel_j0, kAllTypes, [](double x) { return sp::bessel_j(0, x); })                  \
  X(special_bessel_j1, kAllTypes, [](double x) { return sp::bessel_j(1, x); })                  \
  X(special_bessel_y0, kAllTypes, [](double x) { return sp::bessel_y(0, x); })                  \
  X(special_bessel_y1, kAllTypes, [](double x) { return sp::bessel_y(1, x); })                  \
  X(special_modified_bessel_i0, kAllTypes, sp::i0)                                              \
  X(special_modified_bessel_i1, kAllTypes, sp::i1)                                              \
  X(special_modified_bessel_k0, kAllTypes, [](double x) { return sp::bessel_k(0, x, false); })  \
  X(special_modified_bessel_k1, kAllTypes, [](double x) { return sp::bessel_k(1, x, false); })  \
  X(special_scaled_modified_bessel_k0, kAllTypes, [](double x) { return sp::bessel_k(0, x, true); }) \
  X(special_scaled_modified_bessel_k1, kAllTypes, [](double x) { return sp::bessel_k(1, x, true); }) \
  X(special_spherical_bessel_j0, kAllTypes, sp::spherical_bessel_j0)                            \
  X(special_entr, kAllTypes, entr_value)                                                               \
  X(special_erfcx, kAllTypes, sp::erfcx)                                                        \
  X(special_i0e, kAllTypes, sp::i0e)                                                             \
  X(special_i1, kAllTypes, sp::i1)                                                              \
  X(special_i1e, kAllTypes, sp::i1e)                                                            \
  X(special_log_ndtr, kAllTypes, sp::log_ndtr)                                                  \
  X(special_ndtri, kAllTypes, sp::ndtri)

#define EMBER_DEFINE_SPECIAL_UNARY(name, mask, fn)                                                               \
  Tensor name(const Tensor& self) { return float_unary<mask>(#name, self, {}, false, fn); }                      \
  Tensor name##_out(const Tensor& self, const Tensor& out) { return float_unary<mask>(#name, self, out, false, fn); }
EMBER_SPECIAL_UNARY(EMBER_DEFINE_SPECIAL_UNARY)
#undef EMBER_DEFINE_SPECIAL_UNARY

// ---- polygamma(n, x), mvlgamma(x, p), logit(x, eps)
namespace {
Tensor polygamma_impl(int64_t n, const Tensor& self, const Tensor& out, bool inplace) {
  EMBER_CHECK(n >= 0, "polygamma(n, x) does not support negative n.");
  // the float dtypes' trigamma takes sin(pi x) in float, as PyTorch's (its poles' huge values are float's)
  IterConfig cfg;
  cfg.name = "polygamma";
  cfg.is_inplace = inplace;
  cfg.int_to_float = true;
  TensorIterator it(cfg, out, {self});
  dispatch_dtypes<kFloatingTypes>(it.common_dtype(), "polygamma", [&]<class T>() {
    constexpr bool float_sin = !std::is_same_v<T, double>;
    it.for_each([&](char** d, const int64_t* s, int64_t len) {
      unary_loop<T, T>(d, s, len,
                       [n](T x) { return static_cast<T>(sp::polygamma(n, static_cast<double>(x), float_sin)); });
    });
  });
  return it.finish();
}
// p(p-1)/4 log(pi) + sum_{j<p} lgamma(x - j/2) (the multivariate gamma function, DLMF 35.3.1).
Tensor mvlgamma_impl(const Tensor& self, int64_t p, const Tensor& out, bool inplace) {
  EMBER_CHECK(self.dtype() != kBool, "The input tensor may not be a boolean tensor.");
  EMBER_CHECK(p >= 1, "p has to be greater than or equal to 1");
  // p lgamma terms per element: PyTorch materialises them as a tensor of p values (its allocation fails near
  // p = 2^32); past 2^24 the sum would take seconds per element, so Ember refuses it as too large instead
  constexpr int64_t kMaxP = int64_t{1} << 24;
  EMBER_CHECK(p <= kMaxP, "mvlgamma: p = {} is too large (at most {} terms of the sum are supported)", p, kMaxP);
  const double c = static_cast<double>(p) * static_cast<double>(p - 1) / 4 * std::log(sp::kPi);
  return float_unary<kAllTypes>("mvlgamma", self, out, inplace, [p, c](double x) {
    double s = c;
    for (int64_t j = 0; j < p; ++j) s += std::lgamma(x - 0.5 * static_cast<double>(j));
    return s;
  });
}
// log(z / (1 - z)), z = x clamped to [eps, 1 - eps] when eps is given and not negative (NaN stays NaN).
Tensor logit_impl(const Tensor& self, std::optional<double> eps, const Tensor& out, bool inplace) {
  const bool clamp = eps && *eps >= 0;
  const double lo = clamp ? *eps : 0, hi = 1 - lo;
  return float_unary<kAllTypes>("logit", self, out, inplace, [clamp, lo, hi](double x) {
    double z = clamp ? (x < lo ? lo : (x > hi ? hi : x)) : x;
    return std::log(z / (1 - z));
  });
}
}  // namespace

Tensor polygamma(int64_t n, const Tensor& self) { return polygamma_impl(n, self, {}, false); }
Tensor polygamma_out(int64_t n, const Tensor& self, const Tensor& out) { return polygamma_impl(n, self, out, false); }
Tensor mvlgamma(const Tensor& self, int64_t p) { return mvlgamma_impl(self, p, {}, false); }
Tensor mvlgamma_(const Tensor& self, int64_t p) { return mvlgamma_impl(self, p, self, true); }
Tensor mvlgamma_out(const Tensor& self, int64_t p, const Tensor& out) { return mvlgamma_impl(self, p, out, false); }
Tensor logit(const Tensor& self, std::optional<double> eps) { return logit_impl(self, eps, {}, false); }
Tensor logit_(const Tensor& self, std::optional<double> eps) { return logit_impl(self, eps, self, true); }
Tensor logit_out(const Tensor& self, std::optional<double> eps, const Tensor& out) {
  return logit_impl(self, eps, out, false);
}

// ---- round(x, decimals): nearbyint(x * 10^d) / 10^d, or nearbyint(x / 10^-d) * 10^-d for negative d (so the
// power of ten is exact), in the dtype's own compute type as PyTorch's (float32 for the 16-bit floats).
namespace {
Tensor round_decimals_impl(const Tensor& self, int64_t decimals, const Tensor& out, bool inplace) {
  IterConfig cfg;
  cfg.name = "round";
  cfg.is_inplace = inplace;
  cfg.same_dtype_out = true;
  TensorIterator it(cfg, out, {self});
  dispatch_dtypes<kFloatingTypes>(
      it.common_dtype(), "round", [&]<class T>() {
        using M = opmath_t<T>;
        const bool neg = decimals < 0;
        const M ten_pow = static_cast<M>(std::pow(M(10), static_cast<M>(neg ? -decimals : decimals)));
        it.for_each([&](char** d, const int64_t* s, int64_t n) {
          unary_loop<T, T>(d, s, n, [&](T x) {
            M v = static_cast<M>(x);
            return static_cast<T>(neg ? std::nearbyint(v / ten_pow) * ten_pow : std::nearbyint(v * ten_pow) / ten_pow);
          });
        });
      });
  return it.finish();
}
}  // namespace
Tensor round_decimals(const Tensor& self, int64_t decimals) { return round_decimals_impl(self, decimals, {}, false); }
Tensor round_decimals_(const Tensor& self, int64_t decimals) {
  return round_decimals_impl(self, decimals, self, true);
}
Tensor round_decimals_out(const Tensor& self, int64_t decimals, const Tensor& out) {
  return round_decimals_impl(self, decimals, out, false);
}

// ---- frexp: mantissa (self's dtype) and int32 exponent, x = mantissa * 2^exponent (std::frexp); inf and NaN
// keep themselves with exponent 0.
std::tuple<Tensor, Tensor> frexp(const Tensor& self) {
  EMBER_CHECK(is_floating_point(self.dtype()),
              "torch.frexp() only supports floating-point dtypes, but got {}", self.dtype());
  Tensor x = self.contiguous();
  Tensor mantissa = ember::empty_like(x, std::nullopt, std::nullopt, MemoryFormat::Contiguous);
  Tensor exponent = ember::empty_like(x, kInt32, std::nullopt, MemoryFormat::Contiguous);
  const int64_t n = x.numel();
  int32_t* e = n ? exponent.data_ptr<int32_t>() : nullptr;
  dispatch_dtypes<kFloatingTypes>(x.dtype(), "frexp", [&]<class T>() {
    if (n == 0) return;
    using M = opmath_t<T>;
    const T* in = static_cast<const T*>(x.data_ptr());
    T* m = static_cast<T*>(mantissa.data_ptr());
    for (int64_t i = 0; i < n; ++i) {
      M v = static_cast<M>(in[i]);
      int ex = 0;
      M mv = std::isfinite(v) ? std::frexp(v, &ex) : v;
      m[i] = static_cast<T>(mv);
      e[i] = std::isfinite(v) ? ex : 0;
    }
  });
  return {mantissa, exponent};
}

// ---- binary ops
namespace {
Tensor xlogy_impl(const Tensor& self, const Tensor& other, const Tensor& out, bool inplace) {
  return float_binary<kAllTypes>("xlogy", self, other, out, inplace, true, xlogy_value);
}
Tensor igamma_impl(const Tensor& self, const Tensor& other, const Tensor& out, bool inplace) {
  return float_binary<kFloatingTypes>("igamma", self, other, out, inplace, false,
                                      [](double a, double x) { return sp::igamma_impl(a, x, false); });
}
Tensor igammac_impl(const Tensor& self, const Tensor& other, const Tensor& out, bool inplace) {
  return float_binary<kFloatingTypes>("igammac", self, other, out, inplace, false,
                                      [](double a, double x) { return sp::igamma_impl(a, x, true); });
}
}  // namespace

EMBER_BINARY_VARIANTS(xlogy, xlogy_impl)
EMBER_BINARY_VARIANTS(igamma, igamma_impl)
EMBER_BINARY_VARIANTS(igammac, igammac_impl)

// torch.special's binary ops and the orthogonal polynomials (x, n): functional and out= only. The shifted
// Chebyshev polynomials are the plain ones at 2x - 1 (DLMF 18.7.11-18.7.14). The polynomials compute in the
// dtype's compute type (float for float32 and the 16-bit floats, as PyTorch's float kernels).
namespace {
template <sp::ChebyshevKind K, bool Shifted>
struct Chebyshev {
  template <class R> static R f(R x, R n) { return sp::chebyshev<R>(K, Shifted ? 2 * x - 1 : x, n); }
};
#define EMBER_POLYNOMIAL_FUNCTOR(Name, fn) \
  struct Name {                            \
    template <class R> static R f(R x, R n) { return sp::fn<R>(x, n); } \
  };
using ChebyshevT = Chebyshev<sp::ChebyshevKind::T, false>;
using ChebyshevU = Chebyshev<sp::ChebyshevKind::U, false>;
using ChebyshevV = Chebyshev<sp::ChebyshevKind::V, false>;
using ChebyshevW = Chebyshev<sp::ChebyshevKind::W, false>;
using ShiftedChebyshevT = Chebyshev<sp::ChebyshevKind::T, true>;
using ShiftedChebyshevU = Chebyshev<sp::ChebyshevKind::U, true>;
using ShiftedChebyshevV = Chebyshev<sp::ChebyshevKind::V, true>;
using ShiftedChebyshevW = Chebyshev<sp::ChebyshevKind::W, true>;
EMBER_POLYNOMIAL_FUNCTOR(HermiteH, hermite_h)
EMBER_POLYNOMIAL_FUNCTOR(HermiteHe, hermite_he)
EMBER_POLYNOMIAL_FUNCTOR(LaguerreL, laguerre_l)
EMBER_POLYNOMIAL_FUNCTOR(LegendreP, legendre_p)
#undef EMBER_POLYNOMIAL_FUNCTOR

/// out = F::f(x, n) in the compute type of the (floating) common dtype; integral operands promote to float.
template <class F>
Tensor polynomial(const char* name, const Tensor& self, const Tensor& other, const Tensor& out) {
  IterConfig cfg;
  cfg.name = name;
  cfg.int_to_float = true;
  TensorIterator it(cfg, out, {self, other});
  dispatch_dtypes<kFloatingTypes>(it.common_dtype(), name, [&]<class T>() {
    using M = opmath_t<T>;
    it.for_each([&](char** d, const int64_t* s, int64_t n) {
      binary_loop<T, T>(d, s, n, [](T x, T y) { return static_cast<T>(F::f(static_cast<M>(x), static_cast<M>(y))); });
    });
  });
  return it.finish();
}
}  // namespace

#define EMBER_POLYNOMIALS(X)                                                              \
  X(special_chebyshev_polynomial_t, ChebyshevT)             \
  X(special_chebyshev_polynomial_u, ChebyshevU)             \
  X(special_chebyshev_polynomial_v, ChebyshevV)             \
  X(special_chebyshev_polynomial_w, ChebyshevW)             \
  X(special_shifted_chebyshev_polynomial_t, ShiftedChebyshevT)      \
  X(special_shifted_chebyshev_polynomial_u, ShiftedChebyshevU)      \
  X(special_shifted_chebyshev_polynomial_v, ShiftedChebyshevV)      \
  X(special_shifted_chebyshev_polynomial_w, ShiftedChebyshevW)      \
  X(special_hermite_polynomial_h, HermiteH)                                               \
  X(special_hermite_polynomial_he, HermiteHe)                                             \
  X(special_laguerre_polynomial_l, LaguerreL)                                             \
  X(special_legendre_polynomial_p, LegendreP)

#define EMBER_DEFINE_POLYNOMIAL(name, F)                                                                     \
  Tensor name(const Tensor& self, const Tensor& other) { return polynomial<F>(#name, self, other, {}); } \
  Tensor name##_out(const Tensor& self, const Tensor& other, const Tensor& out) {                            \
    return polynomial<F>(#name, self, other, out);                                             \
  }
EMBER_POLYNOMIALS(EMBER_DEFINE_POLYNOMIAL)
#undef EMBER_DEFINE_POLYNOMIAL
#undef EMBER_POLYNOMIALS
#define EMBER_SPECIAL_BINARY(X)                                                                                 \
  X(special_xlog1py, kAllTypes, xlog1py_value)                                                                        \
  X(special_zeta, kAllTypes, sp::zeta)

#define EMBER_DEFINE_SPECIAL_BINARY(name, mask, fn)                                            \
  Tensor name(const Tensor& self, const Tensor& other) {                                       \
    return float_binary<mask>(#name, self, other, {}, false, true, fn);                        \
  }                                                                                            \
  Tensor name##_out(const Tensor& self, const Tensor& other, const Tensor& out) {              \
    return float_binary<mask>(#name, self, other, out, false, true, fn);                       \
  }
EMBER_SPECIAL_BINARY(EMBER_DEFINE_SPECIAL_BINARY)
#undef EMBER_DEFINE_SPECIAL_BINARY

}  // namespace ember::cpu
