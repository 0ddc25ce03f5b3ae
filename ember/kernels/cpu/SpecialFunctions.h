#pragma once
// Scalar special functions of the elementwise kernels (special.cpp): the gamma family, the error-function
// inverses, Bessel functions, incomplete gamma, Hurwitz zeta and the classical orthogonal polynomials. Each is
// computed in double (float and the 16-bit floats are rounded from it). Where the C++ standard library has the
// function (std::lgamma, std::erfc, and the C++17 mathematical special functions std::cyl_bessel_j/i/k,
// std::cyl_neumann of libstdc++) it is used; the rest are the textbook methods named beside each function
// (DLMF: NIST Digital Library of Mathematical Functions, https://dlmf.nist.gov; Cephes: S. L. Moshier's
// documented methods). Edge values (poles, infinities, domains) follow PyTorch 1.13's documented behaviour.
#include <cmath>
#include <cstdint>
#include <limits>

namespace ember::cpu::special {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kEps = std::numeric_limits<double>::epsilon();
inline constexpr double kPi = 3.14159265358979323846264338327950288;

/// B_2k / (2k)! for k = 1..12 (Bernoulli numbers B_2 = 1/6, B_4 = -1/30, ..., B_24 = -236364091/2730; DLMF
/// 24.2), the coefficients of the Euler-Maclaurin and Stirling-type expansions below.
inline double bernoulli_over_factorial(int k) {
  static const double b2k[12] = {1.0 / 6,         -1.0 / 30,         1.0 / 42,           -1.0 / 30,
                                 5.0 / 66,        -691.0 / 2730,     7.0 / 6,            -3617.0 / 510,
                                 43867.0 / 798,   -174611.0 / 330,   854513.0 / 138,     -236364091.0 / 2730};
  double f = 1;
  for (int i = 2; i <= 2 * k; ++i) f *= i;
  return b2k[k - 1] / f;
}

/// psi(x) (digamma). x >= 10: the asymptotic series DLMF 5.11.2, psi(x) ~ ln x - 1/(2x) - sum_k B_2k/(2k x^2k);
/// smaller x are raised with psi(x) = psi(x + 1) - 1/x (DLMF 5.5.2); x < 0 by the reflection psi(x) =
/// psi(1 - x) - pi / tan(pi x) (DLMF 5.5.4). Poles: -inf at +0, +inf at -0 (PyTorch), NaN at negative integers.
inline double digamma(double x) {
  if (std::isnan(x)) return x;
  if (x == 0) return std::copysign(kInf, -x);
  if (x < 0) {
    if (x == std::floor(x)) return kNaN;
    double r = x - std::nearbyint(x);  // tan(pi x) has period 1: reduce exactly to [-1/2, 1/2] first
    return digamma(1 - x) - kPi / std::tan(kPi * r);
  }
  if (std::isinf(x)) return x;
  double acc = 0;
  while (x < 10) {
    acc -= 1 / x;
    x += 1;
  }
  // B_2k / (2k) for k = 1..7
  static const double c[7] = {1.0 / 12, -1.0 / 120, 1.0 / 252, -1.0 / 240, 1.0 / 132, -691.0 / 32760, 1.0 / 12};
  double z = 1 / (x * x), s = 0, zk = z;
  for (int k = 0; k < 7; ++k, zk *= z) s += c[k] * zk;
  return acc + std::log(x) - 0.5 / x - s;
}

/// The Hurwitz zeta function zeta(s, q) = sum_{k>=0} (k + q)^-s by Euler-Maclaurin summation (DLMF 2.10.1 applied
/// to the sum, as Cephes' zeta): the first N terms directly (N >= 9, until q + N >= 9), then the integral of the
/// tail, half its first term and the Bernoulli corrections B_2j/(2j)! s(s+1)...(s+2j-2) a^(-s-2j+1).
/// Domains (Cephes'), checked in this order (so zeta(1, nan) and zeta(nan, 0) are inf): s == 1 gives inf, s < 1
/// NaN; q a non-positive integer gives inf, q < 0 with a non-integer s NaN; any other NaN gives NaN.
inline double zeta(double s, double q) {
  if (s == 1) return kInf;
  if (s < 1) return kNaN;
  if (q <= 0) {
    if (q == std::floor(q)) return kInf;
    if (s != std::floor(s)) return kNaN;
  }
  if (std::isnan(s) || std::isnan(q)) return kNaN;
  double sum = std::pow(q, -s), a = q, term = 0;
  int i = 0;
  while (i < 9 || a <= 9) {
    ++i;
    a += 1;
    term = std::pow(a, -s);
    sum += term;
    if (std::abs(term / sum) < kEps) return sum;
  }
  sum += a * term / (s - 1) - 0.5 * term;  // integral of the tail (a^(1-s)/(s-1)) and the half term at a
  double rising = s, apow = term / a;       // s (s+1)...(s+2j-2) and a^(-s-2j+1)
  for (int j = 1; j <= 12; ++j) {
    double t = bernoulli_over_factorial(j) * rising * apow;
    sum += t;
    if (std::abs(t / sum) < kEps) break;
    rising *= (s + 2 * j - 1) * (s + 2 * j);
    apow /= a * a;
  }
  return sum;
}

/// trigamma psi'(x): the asymptotic series DLMF 5.15.8, psi'(x) ~ 1/x + 1/(2x^2) + sum_k B_2k / x^(2k+1), for
/// x >= 10 after psi'(x) = psi'(x + 1) + 1/x^2; x < 0 by the reflection psi'(1 - x) + psi'(x) = pi^2 / sin^2(pi x)
/// (DLMF 5.15.6) below 1/2. +inf at 0.
/// float_sin: sin(pi x) evaluated in float (the float kernels' rounding, as PyTorch's float trigamma).
inline double trigamma(double x, bool float_sin = false) {
  if (std::isnan(x)) return x;
  if (x < 0.5) {
    // sin(pi x) of the rounded pi x, as PyTorch's: at the negative integers it is ~1e-16 (~1e-7 in float), not 0,
    // and the result a huge finite value (inf at 0 only)
    double sn = float_sin ? static_cast<double>(std::sin(static_cast<float>(kPi) * static_cast<float>(x)))
                          : std::sin(kPi * x);
    return -trigamma(1 - x) + kPi * kPi / (sn * sn);
  }
  if (std::isinf(x)) return 0;
  double acc = 0;
  while (x < 10) {
    acc += 1 / (x * x);
    x += 1;
  }
  double z = 1 / (x * x), s = 0, xk = 1 / (x * x * x);
  double fact = 1;  // (2k)!
  for (int k = 1; k <= 7; ++k, xk *= z) {
    fact *= (2 * k - 1) * (2 * k);
    s += bernoulli_over_factorial(k) * fact * xk;
  }
  return acc + 1 / x + 0.5 * z + s;
}

/// polygamma(n, x): digamma (n = 0), trigamma (n = 1), else (-1)^(n+1) n! zeta(n + 1, x) (DLMF 25.11.12).
inline double polygamma(int64_t n, double x, bool float_sin = false) {
  if (n == 0) return digamma(x);
  if (n == 1) return trigamma(x, float_sin);
  // n! overflows double past 170: stop there (an n of 2^40 must not loop 2^40 times)
  double f = n > 170 ? kInf : 1;
  for (int64_t i = 2; i <= n && i <= 170; ++i) f *= static_cast<double>(i);
  return ((n + 1) % 2 == 0 ? 1.0 : -1.0) * f * zeta(static_cast<double>(n + 1), x);
}

/// Solves erf(y) = x (small |x|: erf is accurate there) or erfc(y) = q (q = 1 - x given exactly, for x > 0.5 and
/// the tails) for y >= 0. Start: Winitzki's closed-form approximation ("A handy approximation for the error
/// function and its inverse", 2008; a = 0.147, relative error below 2e-3), with 1 - x^2 = q (2 - q); then
/// Halley's iteration on f(y) = erf(y) - x (f' = 2/sqrt(pi) e^-y^2, f'' = -2 y f'), cubically convergent.
inline double inverse_erf_positive(double x, double q, bool use_erfc) {
  const double a = 0.147;
  double L = use_erfc ? std::log(q) + std::log1p(x) : std::log1p(-x * x);  // log(1 - x^2)
  double t = 2 / (kPi * a) + 0.5 * L;
  double y = std::sqrt(std::sqrt(t * t - L / a) - t);
  for (int it = 0; it < 5; ++it) {
    double d = 2 / std::sqrt(kPi) * std::exp(-y * y);
    if (d == 0) break;
    double f = use_erfc ? -(std::erfc(y) - q) : std::erf(y) - x;  // erf(y) - x, as erfc's complement
    double r = f / d;
    double step = r / (1 + y * r);
    y -= step;
    if (std::abs(step) <= 1e-17 * y) break;
  }
  return y;
}

/// erfinv(x) on [-1, 1]: +-inf at +-1, NaN outside (odd function).
inline double erfinv(double x) {
  if (std::isnan(x)) return x;
  double ax = std::abs(x);
  if (ax > 1) return kNaN;
  if (ax == 1) return std::copysign(kInf, x);
  if (ax == 0) return x;
  double y = ax <= 0.5 ? inverse_erf_positive(ax, 1 - ax, false) : inverse_erf_positive(ax, 1 - ax, true);
  return std::copysign(y, x);
}

/// ndtri(p), the inverse of the standard normal CDF Phi(x) = erfc(-x/sqrt 2)/2: -sqrt 2 erfcinv(2p) below 1/2
/// (the tail solved through erfc, so tiny p keep their precision), sqrt 2 erfinv(2p - 1) above (2p - 1 exact).
inline double ndtri(double p) {
  if (std::isnan(p)) return p;
  if (p < 0 || p > 1) return kNaN;
  if (p == 0) return -kInf;
  if (p == 1) return kInf;
  const double r2 = 1.41421356237309504880;
  double q = 2 * p;
  if (q >= 1) return r2 * erfinv(q - 1);
  double y = q >= 0.5 ? erfinv(1 - q) : inverse_erf_positive(1 - q, q, true);
  return -r2 * y;
}

/// erfcx(x) = exp(x^2) erfc(x). x < 25: from erfc directly (negative x: erfc(x) is near 2, no cancellation);
/// x >= 25: the asymptotic series DLMF 7.12.1, erfc(x) e^{x^2} ~ 1/(x sqrt pi) sum_k (-1)^k (2k-1)!! / (2x^2)^k.
inline double erfcx(double x) {
  if (std::isnan(x)) return x;
  if (x < -26.7) return kInf;
  if (x < 25) return std::exp(x * x) * std::erfc(x);
  if (std::isinf(x)) return 0;
  double z = 1 / (2 * x * x), term = 1, s = 1;
  for (int k = 1; k < 30; ++k) {
    term *= -(2 * k - 1) * z;
    s += term;
    if (std::abs(term) < kEps * s) break;
  }
  return s / (x * std::sqrt(kPi));
}

/// log Phi(x), Phi the standard normal CDF: log1p(-Phi(-x)) for x > 0 (Phi near 1), log(erfc(t)/2) for
/// -1 <= x <= 0 and log(erfcx(t)/2) - t^2 below (t = -x/sqrt 2: no underflow of erfc in the left tail).
inline double log_ndtr(double x) {
  const double s = 0.70710678118654752440;
  if (std::isnan(x)) return x;
  if (x > 0) return std::log1p(-0.5 * std::erfc(x * s));
  double t = -x * s;
  if (x >= -1) return std::log(0.5 * std::erfc(t));
  return std::log(0.5 * erfcx(t)) - t * t;
}

/// The asymptotic expansions of the modified Bessel functions for large x (DLMF 10.40.1, 10.40.2):
/// I_nu(x) e^-x ~ 1/sqrt(2 pi x) sum (-1)^k a_k(nu)/x^k, K_nu(x) e^x ~ sqrt(pi/(2x)) sum a_k(nu)/x^k, with
/// a_k(nu) = (4nu^2 - 1)(4nu^2 - 9)...(4nu^2 - (2k-1)^2) / (k! 8^k). Used for x >= 30, where the terms fall
/// below double precision long before the series starts to diverge.
inline double bessel_asymptotic_sum(double nu, double x, bool alternate) {
  double mu = 4 * nu * nu, term = 1, s = 1;
  for (int k = 1; k < 60; ++k) {
    double odd = 2 * k - 1;
    term *= (mu - odd * odd) / (k * 8 * x);
    double t = alternate && (k % 2) ? -term : term;
    s += t;
    if (std::abs(term) < kEps * std::abs(s)) break;
  }
  return s;
}
inline constexpr double kAsymptoticX = 30;

/// exp(-|x|) I_nu(|x|) for nu = 0 or 1 (unsigned; the callers apply the odd symmetry of I_1).
inline double scaled_bessel_i(int nu, double ax) {
  if (std::isinf(ax)) return 0;
  if (ax >= kAsymptoticX) return bessel_asymptotic_sum(nu, ax, true) / std::sqrt(2 * kPi * ax);
  return std::exp(-ax) * std::cyl_bessel_i(static_cast<double>(nu), ax);
}
inline double bessel_i(int nu, double ax) {
  if (ax >= kAsymptoticX) return ax > 713 ? kInf : std::exp(ax) * scaled_bessel_i(nu, ax);
  return std::cyl_bessel_i(static_cast<double>(nu), ax);
}

/// I0, I1 (odd), and their exponentially scaled forms exp(-|x|) I. I0 and I1 are NaN at +-inf, as PyTorch's.
inline double i0(double x) { return std::isnan(x) || std::isinf(x) ? kNaN : bessel_i(0, std::abs(x)); }
inline double i0e(double x) { return std::isnan(x) ? x : scaled_bessel_i(0, std::abs(x)); }
inline double i1(double x) {
  return std::isnan(x) || std::isinf(x) ? kNaN : std::copysign(bessel_i(1, std::abs(x)), x);
}
inline double i1e(double x) { return std::isnan(x) ? x : std::copysign(scaled_bessel_i(1, std::abs(x)), x); }

/// exp(x) K_nu(x) for x > 0 (any nu >= 0).
inline double scaled_bessel_k(double nu, double x) {
  if (x >= kAsymptoticX) return bessel_asymptotic_sum(nu, x, false) * std::sqrt(kPi / (2 * x));
  return std::exp(x) * std::cyl_bessel_k(nu, x);
}
/// K0, K1 and exp(x) K0, exp(x) K1: NaN below 0, +inf at 0, 0 at +inf (the scaled ones too).
inline double bessel_k(int nu, double x, bool scaled) {
  if (std::isnan(x)) return x;
  if (x < 0) return kNaN;
  if (x == 0) return kInf;
  if (std::isinf(x)) return 0;
  if (scaled) return scaled_bessel_k(nu, x);
  if (x >= kAsymptoticX) return x > 750 ? 0 : std::exp(-x) * scaled_bessel_k(nu, x);
  return std::cyl_bessel_k(static_cast<double>(nu), x);
}

/// J0 (even), J1 (odd): NaN at +-inf, as PyTorch's.
inline double bessel_j(int nu, double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return kNaN;
  double v = std::cyl_bessel_j(static_cast<double>(nu), std::abs(x));
  return nu == 1 && x < 0 ? -v : v;
}
/// Y0, Y1: NaN below 0 and at +inf (as PyTorch's), -inf at 0.
inline double bessel_y(int nu, double x) {
  if (std::isnan(x)) return x;
  if (x < 0) return kNaN;
  if (x == 0) return -kInf;
  if (std::isinf(x)) return kNaN;
  return std::cyl_neumann(static_cast<double>(nu), x);
}

/// Ai(x) for |x| < 1 by its Maclaurin series (DLMF 9.4.1): Ai(0) f(x) + Ai'(0) g(x), f = sum_k 3^k (1/3)_k
/// x^3k / (3k)!, g = sum_k 3^k (2/3)_k x^(3k+1) / (3k+1)!.
inline double airy_ai_series(double x) {
  const double ai0 = 0.355028053887817239260063186004, dai0 = -0.258819403792806798405183560189;
  const double x3 = x * x * x;
  double f = 1, g = x, tf = 1, tg = x;
  for (int k = 1; k < 40; ++k) {
    tf *= x3 / ((3.0 * k - 1) * (3.0 * k));
    tg *= x3 / ((3.0 * k) * (3.0 * k + 1));
    f += tf;
    g += tg;
    if (std::abs(tf) < kEps * std::abs(f) && std::abs(tg) <= kEps * std::abs(g)) break;
  }
  return ai0 * f + dai0 * g;
}

/// Ai(x) for x <= -25 by its asymptotic expansion (DLMF 9.7.9, coefficients u_k of DLMF 9.7.2): with t = sqrt(-x),
/// zeta = -2 x t / 3 and theta = zeta + pi/4, Ai(x) ~ (sin(theta) P - cos(theta) Q) / (sqrt(pi) sqrt(t)), P =
/// sum_k (-1)^k u_2k zeta^-2k, Q = sum_k (-1)^k u_(2k+1) zeta^-(2k+1). The phase is rounded as PyTorch's own
/// asymptotic form rounds it (where |x| is so large that it keeps few digits, both give the same value).
inline double airy_ai_negative_asymptotic(double x) {
  const double t = std::sqrt(-x), zeta = -2.0 * x * t / 3.0, theta = zeta + 0.25 * kPi;
  double P = 1, Q = 0, u = 1, zpow = 1;
  for (int k = 1; k < 40; ++k) {
    u *= (6.0 * k - 5) * (6.0 * k - 3) * (6.0 * k - 1) / ((2.0 * k - 1) * 216.0 * k);
    zpow /= zeta;
    const double term = u * zpow;
    // u_k zeta^-k enters P (k even) or Q (k odd) with the sign (-1)^(k/2) (integer division)
    const double signed_term = ((k / 2) % 2 == 0) ? term : -term;
    if (k % 2 == 0) P += signed_term;
    else Q += signed_term;
    if (term < kEps * 1e-2) break;
  }
  return (std::sin(theta) * P - std::cos(theta) * Q) / (std::sqrt(kPi) * std::sqrt(t));
}

/// Ai(x): the series above for |x| < 1, the asymptotic form for x <= -25; otherwise through the Bessel functions
/// of order 1/3 (DLMF 9.6.1 and 9.6.6, with J_-1/3 = (J_1/3 - sqrt 3 Y_1/3)/2 from DLMF 10.4.7), zeta =
/// (2/3)|x|^(3/2): Ai(x) = sqrt(x/3) K_1/3(zeta) / pi for x > 0, Ai(-x) = sqrt(x)/3 (J_1/3(zeta) + J_-1/3(zeta)).
/// NaN at +-inf, as PyTorch.
inline double airy_ai(double x) {
  if (std::isnan(x) || std::isinf(x)) return kNaN;
  if (std::abs(x) < 1) return airy_ai_series(x);
  if (x <= -25) return airy_ai_negative_asymptotic(x);
  double ax = std::abs(x), zeta = 2.0 / 3.0 * ax * std::sqrt(ax);
  if (x > 0) {
    if (zeta > 750) return 0;
    return std::sqrt(x / 3) * std::exp(-zeta) * scaled_bessel_k(1.0 / 3.0, zeta) / kPi;
  }
  double j = std::cyl_bessel_j(1.0 / 3.0, zeta), y = std::cyl_neumann(1.0 / 3.0, zeta);
  return std::sqrt(ax) / 3 * (1.5 * j - 0.5 * std::sqrt(3.0) * y);
}

/// sin(x) / x, with its Taylor series 1 - x^2/6 + x^4/120 near 0; 0 at +-inf.
inline double spherical_bessel_j0(double x) {
  if (std::isinf(x)) return 0;
  if (std::abs(x) < 0.5) {
    double z = x * x;
    return 1 - z / 6 * (1 - z / 20 * (1 - z / 42 * (1 - z / 72 * (1 - z / 110))));
  }
  return std::sin(x) / x;
}

/// The regularized incomplete gamma functions P(a, x) and Q(a, x) = 1 - P (Cephes' igam/igamc method): for
/// x <= 1 or x <= a the power series P = x^a e^-x / Gamma(a + 1) sum_k x^k / ((a+1)...(a+k)) (DLMF 8.11.4 /
/// 8.7.1), otherwise Legendre's continued fraction for Q (DLMF 8.9.2), evaluated with the modified Lentz
/// method; the other is the complement. Edge values as PyTorch (scipy's gammainc), checked in this order (a NaN
/// fails each comparison, so igamma(nan, 0) = 0, igamma(inf, nan) = 0, igamma(nan, inf) = 1): NaN for a or x
/// negative, a == 0 gives P = 1 for x > 0 (NaN at x = 0), x == 0 gives P = 0, a = inf gives P = 0 (NaN with
/// x = inf), x = inf gives P = 1; any other NaN gives NaN.
inline double igamma_impl(double a, double x, bool upper) {
  if (x < 0 || a < 0) return kNaN;
  auto ret = [upper](double p) { return upper ? 1 - p : p; };
  if (a == 0) return x > 0 ? ret(1) : kNaN;
  if (x == 0) return ret(0);
  if (std::isinf(a)) return std::isinf(x) ? kNaN : ret(0);
  if (std::isinf(x)) return ret(1);
  if (std::isnan(a) || std::isnan(x)) return kNaN;
  if (a > 1e16) {
    // the leading term of Temme's uniform expansion (DLMF 8.12.3), P = erfc(-eta sqrt(a/2)) / 2 with
    // eta^2 / 2 = lambda - 1 - log(lambda), lambda = x / a; the next terms are O(a^-1/2) smaller (below 1e-8 here)
    const double mu = x / a - 1, eta = std::copysign(std::sqrt(2 * (mu - std::log1p(mu))), mu);
    const double p = 0.5 * std::erfc(-eta * std::sqrt(a / 2));
    return upper ? 0.5 * std::erfc(eta * std::sqrt(a / 2)) : p;
  }
  double lpre = a * std::log(x) - x - std::lgamma(a);  // log(x^a e^-x / Gamma(a))
  if (x <= 1 || x <= a) {
    double r = a, c = 1, s = 1;
    for (int k = 0; k < 100000; ++k) {
      r += 1;
      c *= x / r;
      s += c;
      if (c <= kEps * s) break;
    }
    double p = std::exp(lpre) * s / a;
    return upper ? 1 - p : p;
  }
  // Q = e^lpre * 1/(x + 1 - a - 1 (1 - a)/(x + 3 - a - 2 (2 - a)/(x + 5 - a - ...))) (modified Lentz)
  const double tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (int i = 1; i < 100000; ++i) {
    double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1 / d;
    double del = d * c;
    h *= del;
    if (std::abs(del - 1) < kEps) break;
  }
  double q = std::exp(lpre) * h;
  return upper ? q : 1 - q;
}

// ---- the classical orthogonal polynomials of degree n (n truncated towards zero; n < 0 or NaN gives 0) by
// their three-term recurrences (DLMF 18.9.1, 18.9.2 and Table 18.9.1), with the closed trigonometric forms of
// the Chebyshev polynomials (DLMF 18.5.1-18.5.4: T_n(cos t) = cos(nt), U_n = sin((n+1)t)/sin t, V_n =
// cos((n+1/2)t)/cos(t/2), W_n = sin((n+1/2)t)/sin(t/2)) inside (-1, 1) for larger n, where the recurrence
// accumulates rounding; the values at +-1 are exact.

/// n as an integer degree, truncated towards zero as PyTorch converts it: -1 (so the polynomial is 0) for NaN,
/// n <= -1 and n >= 2^63 (which do not convert to int64: PyTorch gets INT64_MIN there, a negative degree).
inline int64_t poly_degree(double n) {
  if (std::isnan(n) || n <= -1 || n >= 9.223372036854775808e18) return -1;
  return static_cast<int64_t>(n);
}

/// p_{k+1} = (alpha_k(x) p_k - beta_k p_{k-1}) from p0, p1, for the degree n >= 2, in R (the polynomials are
/// evaluated in the compute type of their dtype, float for float32 and the 16-bit floats, as PyTorch's kernels
/// are: where the terms overflow, float reaches inf and inf - inf where double would not).
template <class R, class Step>
R recur(int64_t n, R p0, R p1, Step step) {
  if (n == 0) return p0;
  if (n == 1) return p1;
  R a = p0, b = p1;
  for (int64_t k = 1; k < n; ++k) {
    R c = step(k, b, a);
    a = b;
    b = c;
    if (std::isnan(b)) return b;  // NaN stays NaN (x = +-inf reaches inf - inf): no need to run on
  }
  return b;
}

enum class ChebyshevKind { T, U, V, W };

template <class R>
R chebyshev(ChebyshevKind kind, R x, R nd) {
  int64_t n = poly_degree(static_cast<double>(nd));
  if (n < 0) return 0;
  if (n == 0) return 1;  // even at x = NaN, as PyTorch's
  const R odd_sign = n % 2 == 0 ? R(1) : R(-1);
  const R dn = static_cast<R>(n);
  if (std::abs(x) == 1) {  // T_n(1) = 1, U_n(1) = n+1, V_n(1) = 1, W_n(1) = 2n+1 and their parities at -1
    switch (kind) {
      case ChebyshevKind::T: return x > 0 ? R(1) : odd_sign;
      case ChebyshevKind::U: return x > 0 ? dn + 1 : odd_sign * (dn + 1);
      case ChebyshevKind::V: return x > 0 ? R(1) : odd_sign * (2 * dn + 1);
      case ChebyshevKind::W: return x > 0 ? 2 * dn + 1 : odd_sign;
    }
  }
  if (n > 6 && std::abs(x) < 1) {
    R t = std::acos(x);
    switch (kind) {
      case ChebyshevKind::T: return std::cos(dn * t);
      case ChebyshevKind::U:
        return std::sin(t) != 0 ? std::sin((dn + 1) * t) / std::sin(t) : (dn + 1) * std::cos((dn + 1) * t) / x;
      case ChebyshevKind::V: return std::cos((dn + R(0.5)) * t) / std::cos(t / 2);
      case ChebyshevKind::W: return std::sin((dn + R(0.5)) * t) / std::sin(t / 2);
    }
  }
  const R p1 = kind == ChebyshevKind::T ? x : kind == ChebyshevKind::U ? 2 * x
               : kind == ChebyshevKind::V ? 2 * x - 1 : 2 * x + 1;
  return recur<R>(n, R(1), p1, [x](int64_t, R pk, R pkm1) { return 2 * x * pk - pkm1; });
}

template <class R>
R hermite_h(R x, R nd) {
  int64_t n = poly_degree(static_cast<double>(nd));
  if (n < 0) return 0;
  return recur<R>(n, R(1), 2 * x, [x](int64_t k, R pk, R pkm1) { return 2 * x * pk - static_cast<R>(2 * k) * pkm1; });
}
template <class R>
R hermite_he(R x, R nd) {
  int64_t n = poly_degree(static_cast<double>(nd));
  if (n < 0) return 0;
  return recur<R>(n, R(1), x, [x](int64_t k, R pk, R pkm1) { return x * pk - static_cast<R>(k) * pkm1; });
}
/// L_{k+1} = ((2k + (1 - x)) L_k - k L_{k-1}) / (k + 1), grouped as PyTorch's (the same rounding in float).
template <class R>
R laguerre_l(R x, R nd) {
  int64_t n = poly_degree(static_cast<double>(nd));
  if (n < 0) return 0;
  if (x == 0) return 1;
  return recur<R>(n, R(1), 1 - x, [x](int64_t k, R pk, R pkm1) {
    const R dk = static_cast<R>(k);
    return ((dk + dk + (1 - x)) * pk - dk * pkm1) / (dk + 1);
  });
}
template <class R>
R legendre_p(R x, R nd) {
  int64_t n = poly_degree(static_cast<double>(nd));
  if (n < 0) return 0;
  if (std::abs(x) == 1) return x > 0 || n % 2 == 0 ? R(1) : R(-1);
  return recur<R>(n, R(1), x, [x](int64_t k, R pk, R pkm1) {
    const R dk = static_cast<R>(k);
    return ((2 * dk + 1) * x * pk - dk * pkm1) / (dk + 1);
  });
}

}  // namespace ember::cpu::special
