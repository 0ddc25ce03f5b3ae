// Random sampling kernels: uniform_, normal_, random_, exponential_, bernoulli, randperm, and the factories made
// of them (rand, randn, randint, normal). See Note [random kernels].
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>

#include "ember/kernels/cpu/Dispatch.h"
#include "ember/kernels/cpu/TensorIterator.h"
#include "ember/kernels/cpu/generated/CPUKernels.h"
#include "ember/kernels/cpu/isa/VecLoops.h"

namespace ember::cpu {

// Note [random kernels]
// Each kernel reproduces PyTorch 1.13's CPU kernel (ATen/native/cpu/DistributionTemplates.h with
// ATen/core/DistributionsHelper.h and TransformationHelper.h) draw for draw, so a seed gives PyTorch's very bits
// (../shared/notes/pytorch-cpu-rng.md): the same 32- or 64-bit draws per element, taken serially under the
// generator's lock in TensorIterator order (storage order for permuted tensors, row-major for slices), and the
// same floating-point operations, including the multiply-adds that PyTorch's AVX2 build (used on AVX2 and
// AVX-512 machines) fuses. Ember follows that build on every machine, so its results do not depend on the CPU.
//  - uniform_: the low `digits` bits of a draw (u32 for float32/float16/bfloat16, u64 for float64) scaled to
//    [0, 1), then fma(x, to - from, from), in float for the 16-bit types.
//  - normal_: a contiguous tensor of at least 16 elements takes PyTorch's blocked Box-Muller: uniforms for every
//    element first, then blocks of 16 (the first 8 give the radius, the last 8 the angle), and when n % 16 != 0
//    16 fresh uniforms overwrite the last 16 elements, which are transformed again. float32 uses the exact
//    operation sequence of PyTorch's AVX2 log/sincos (avx_mathfun.h); float64 and the 16-bit types use libm
//    (glibc's log, sin, cos, as PyTorch's). Other tensors draw element by element from a double Box-Muller
//    step that keeps its second value in the generator's cache (`normal_one`).
//  - random_ and randint: `draw % range + from`, with u64 draws only for ranges of 2^32 or more of the dtypes
//    that can hold them (int64, float64, float32, bfloat16); random_() without bounds as the table of §4.
//  - bernoulli: u < p, with u of 53 bits from a u64 (scalar p, float64 p) or of 24 bits from a u32 (other p).
//  - randperm: Fisher-Yates from the front, `u32 % (n - i)`; exponential_: -log(1 - u) / lambda in double.
//  - cauchy_: fma(sigma, tan(pi (u - 0.5)), median); geometric_: ceil(log(u) / log(1 - p)); log_normal_: exp of
//    normal_one (sharing its cache); each from one 53-bit u per element, in double, then cast.
// PyTorch 1.13 has no float16 Bernoulli on the CPU; Ember samples float16 as it samples the other dtypes.

namespace {

constexpr int64_t kSerial = std::numeric_limits<int64_t>::max() / 4;  // a grain no tensor reaches: one thread

void check_cpu(std::optional<Device> device, const char* op) {
  EMBER_CHECK(!device || device->is_cpu(), "{}: device '{}' is not available; this build supports only cpu", op,
              device ? device->str() : "");
}

void check_writable(const Tensor& t, const char* op) {
  EMBER_CHECK(t.impl()->storage()->writable(), "{}: the tensor is read-only", op);
}

template <class T>
inline constexpr bool is_narrow_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// Mantissa digits (std::numeric_limits<T>::digits): 53, 24, 11, 8.
template <class T>
constexpr int digits() {
  if constexpr (std::is_same_v<T, double>) return 53;
  else if constexpr (std::is_same_v<T, float>) return 24;
  else if constexpr (std::is_same_v<T, Half>) return 11;
  else return 8;
}

// The floating type a distribution of T computes in (PyTorch's dist_acctype).
template <class T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// PyTorch's uniform_real(val, 0, 1): the low digits bits of a draw times 2^-digits (exact).
template <class T>
inline acc_t<T> uniform01(LockedGenerator& rng) {
  if constexpr (std::is_same_v<T, double>) {
    return static_cast<double>(rng.random64() & ((uint64_t{1} << 53) - 1)) * 0x1p-53;
  } else {
    constexpr uint32_t mask = (uint32_t{1} << digits<T>()) - 1;
    return static_cast<float>(rng.random() & mask) * (1.0f / static_cast<float>(uint32_t{1} << digits<T>()));
  }
}

// Runs draw() once per element of self, serially in TensorIterator order, storing its result.
template <class T, class F>
void fill_serial(const Tensor& self, const char* op, F&& draw) {
  check_writable(self, op);
  IterConfig cfg;
  cfg.name = op;
  cfg.is_inplace = true;
  TensorIterator it(cfg, self, {});
  it.for_each(
      [&](char** data, const int64_t* strides, int64_t n) {
        char* p = data[0];
        for (int64_t i = 0; i < n; ++i, p += strides[0]) *reinterpret_cast<T*>(p) = static_cast<T>(draw());
      },
      kSerial);
  it.finish();
}

// ---------------------------------------------------------------------------------------------- normal

// One sample of PyTorch's normal_distribution<double> (path B): a cached value if there is one, else a
// Box-Muller pair from two 53-bit uniforms (u2 gives the radius, u1 the angle; 1.13 uses log(1 - u2)) whose
// second value is cached.
inline double normal_one(LockedGenerator& rng, double mean, double std) {
  if (std::optional<double> cached = rng.take_double_normal()) return std::fma(*cached, std, mean);
  const double u1 = uniform01<double>(rng);
  const double u2 = uniform01<double>(rng);
  const double r = std::sqrt(-2.0 * std::log(1.0 - u2));
  const double theta = 2.0 * std::numbers::pi * u1;
  rng.set_double_normal(r * std::sin(theta));
  return std::fma(r * std::cos(theta), std, mean);
}

// float32 constants of avx_mathfun.h, written as there: double literals rounded to float.
constexpr float kSqrtHalf = static_cast<float>(0.707106781186547524);
constexpr float kLogP[9] = {static_cast<float>(7.0376836292E-2),  static_cast<float>(-1.1514610310E-1),
                            static_cast<float>(1.1676998740E-1),  static_cast<float>(-1.2420140846E-1),
                            static_cast<float>(1.4249322787E-1),  static_cast<float>(-1.6668057665E-1),
                            static_cast<float>(2.0000714765E-1),  static_cast<float>(-2.4999993993E-1),
                            static_cast<float>(3.3333331174E-1)};
constexpr float kLogQ1 = static_cast<float>(-2.12194440e-4), kLogQ2 = static_cast<float>(0.693359375);
constexpr float kFourOverPi = static_cast<float>(1.27323954473516);
constexpr float kMinusDP1 = static_cast<float>(-0.78515625), kMinusDP2 = static_cast<float>(-2.4187564849853515625e-4),
                kMinusDP3 = static_cast<float>(-3.77489497744594108e-8);
constexpr float kSinP0 = static_cast<float>(-1.9515295891E-4), kSinP1 = static_cast<float>(8.3321608736E-3),
                kSinP2 = static_cast<float>(-1.6666654611E-1);
constexpr float kCosP0 = static_cast<float>(2.443315711809948E-005),
                kCosP1 = static_cast<float>(-1.388731625493765E-003),
                kCosP2 = static_cast<float>(4.166664568298827E-002);
constexpr float kTwoPiF = static_cast<float>(2.0 * std::numbers::pi);

// log256_ps of avx_mathfun.h for one lane u in (0, 1], with the fusions of PyTorch's AVX2 build.
[[gnu::always_inline]] inline float cephes_log(float u) {
  const uint32_t bits = std::bit_cast<uint32_t>(u);
  float e = static_cast<float>(static_cast<int32_t>(bits >> 23) - 127) + 1.0f;
  const float m = std::bit_cast<float>((bits & ~0x7f800000u) | 0x3f000000u);  // mantissa, in [0.5, 1)
  const bool below = m < kSqrtHalf;
  float x = m - 1.0f;
  e = e - (below ? 1.0f : 0.0f);
  x = x + (below ? m : 0.0f);
  float y = std::fma(kLogP[0], x, kLogP[1]);
  for (int k = 2; k < 9; ++k) y = std::fma(y, x, kLogP[k]);
  const float z = x * x;
  y = y * x;
  y = std::fma(y, z, e * kLogQ1);
  y = y - z * 0.5f;
  x = x + y;
  return std::fma(e, kLogQ2, x);
}

// sincos256_ps of avx_mathfun.h for one lane theta >= 0, with the fusions of PyTorch's AVX2 build.
[[gnu::always_inline]] inline void cephes_sincos(float theta, float* sin_out, float* cos_out) {
  int32_t j = static_cast<int32_t>(theta * kFourOverPi);
  j = (j + 1) & ~1;
  const float y = static_cast<float>(j);
  const bool sin_poly = (j & 2) == 0;  // the sine comes from the sine polynomial (else from the cosine one)
  const bool flip_sin = (j & 4) != 0;
  const bool flip_cos = (~(j - 2) & 4) != 0;
  float x = std::fma(y, kMinusDP1, theta);
  x = std::fma(y, kMinusDP2, x);
  x = std::fma(y, kMinusDP3, x);
  const float z = x * x;
  float c = std::fma(kCosP0, z, kCosP1);
  c = std::fma(c, z, kCosP2);
  c = c * z;
  c = std::fma(c, z, -(z * 0.5f));
  c = c + 1.0f;
  float s = std::fma(kSinP0, z, kSinP1);
  s = std::fma(s, z, kSinP2);
  s = s * z;
  s = std::fma(s, x, x);
  // The selection adds and subtracts masked values (so a -0 becomes +0), then the signs are xor-ed in.
  const float sin_part2 = sin_poly ? s : 0.0f, sin_part1 = sin_poly ? 0.0f : c;
  float sv = sin_part1 + sin_part2;
  float cv = (c - sin_part1) + (s - sin_part2);
  *sin_out = flip_sin ? -sv : sv;
  *cos_out = flip_cos ? -cv : cv;
}

// One block of 16 of normal_fill_16_AVX2, one lane at a time: d[0..7] give the radii, d[8..15] the angles. For
// CPUs without AVX2 (or EMBER_CPU_CAPABILITY=default); the same bits as normal_block16_f32_avx2.
void normal_block16_f32_scalar(float* d, float mean, float std) {
  for (int j = 0; j < 8; ++j) {
    const float u1 = 1.0f - d[j];
    const float u2 = d[j + 8];
    const float radius = std::sqrt(-2.0f * cephes_log(u1));
    const float theta = kTwoPiF * u2;
    float s, c;
    cephes_sincos(theta, &s, &c);
    d[j] = std::fma(radius * c, std, mean);
    d[j + 8] = std::fma(radius * s, std, mean);
  }
}

#if defined(__x86_64__)
// normal_fill_16_AVX2 itself: log256_ps and sincos256_ps of avx_mathfun.h with the multiply-adds that PyTorch's
// build fuses (the same operations as cephes_log and cephes_sincos above, eight lanes at a time).
[[gnu::target("avx2,fma")]] void normal_block16_f32_avx2(float* d, float mean, float std) {
  const __m256 one = _mm256_set1_ps(1.0f), half = _mm256_set1_ps(0.5f);
  const __m256i one_i = _mm256_set1_epi32(1), two_i = _mm256_set1_epi32(2), four_i = _mm256_set1_epi32(4);
  const __m256 u1 = _mm256_sub_ps(one, _mm256_loadu_ps(d));
  const __m256 u2 = _mm256_loadu_ps(d + 8);
  // log(u1)
  __m256 e =
      _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_srli_epi32(_mm256_castps_si256(u1), 23), _mm256_set1_epi32(127)));
  e = _mm256_add_ps(e, one);
  __m256 x = _mm256_or_ps(_mm256_and_ps(u1, _mm256_castsi256_ps(_mm256_set1_epi32(~0x7f800000))), half);
  const __m256 below = _mm256_cmp_ps(x, _mm256_set1_ps(kSqrtHalf), _CMP_LT_OS);
  const __m256 tmp = _mm256_and_ps(x, below);
  x = _mm256_sub_ps(x, one);
  e = _mm256_sub_ps(e, _mm256_and_ps(one, below));
  x = _mm256_add_ps(x, tmp);
  __m256 y = _mm256_fmadd_ps(_mm256_set1_ps(kLogP[0]), x, _mm256_set1_ps(kLogP[1]));
  for (int k = 2; k < 9; ++k) y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(kLogP[k]));
  __m256 z = _mm256_mul_ps(x, x);
  y = _mm256_mul_ps(y, x);
  y = _mm256_fmadd_ps(y, z, _mm256_mul_ps(e, _mm256_set1_ps(kLogQ1)));
  y = _mm256_sub_ps(y, _mm256_mul_ps(z, half));
  x = _mm256_add_ps(x, y);
  const __m256 log_u1 = _mm256_fmadd_ps(e, _mm256_set1_ps(kLogQ2), x);
  const __m256 radius = _mm256_sqrt_ps(_mm256_mul_ps(_mm256_set1_ps(-2.0f), log_u1));
  const __m256 theta = _mm256_mul_ps(_mm256_set1_ps(kTwoPiF), u2);
  // sincos(theta), theta >= 0
  __m256i j = _mm256_cvttps_epi32(_mm256_mul_ps(theta, _mm256_set1_ps(kFourOverPi)));
  j = _mm256_and_si256(_mm256_add_epi32(j, one_i), _mm256_set1_epi32(~1));
  const __m256 yj = _mm256_cvtepi32_ps(j);
  const __m256 sin_sign = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_and_si256(j, four_i), 29));
  const __m256 sin_poly = _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(j, two_i), _mm256_setzero_si256()));
  const __m256 cos_sign =
      _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_andnot_si256(_mm256_sub_epi32(j, two_i), four_i), 29));
  x = _mm256_fmadd_ps(yj, _mm256_set1_ps(kMinusDP1), theta);
  x = _mm256_fmadd_ps(yj, _mm256_set1_ps(kMinusDP2), x);
  x = _mm256_fmadd_ps(yj, _mm256_set1_ps(kMinusDP3), x);
  z = _mm256_mul_ps(x, x);
  __m256 c = _mm256_fmadd_ps(_mm256_set1_ps(kCosP0), z, _mm256_set1_ps(kCosP1));
  c = _mm256_fmadd_ps(c, z, _mm256_set1_ps(kCosP2));
  c = _mm256_mul_ps(c, z);
  c = _mm256_fmsub_ps(c, z, _mm256_mul_ps(z, half));
  c = _mm256_add_ps(c, one);
  __m256 s = _mm256_fmadd_ps(_mm256_set1_ps(kSinP0), z, _mm256_set1_ps(kSinP1));
  s = _mm256_fmadd_ps(s, z, _mm256_set1_ps(kSinP2));
  s = _mm256_mul_ps(s, z);
  s = _mm256_fmadd_ps(s, x, x);
  const __m256 sin2 = _mm256_and_ps(sin_poly, s), sin1 = _mm256_andnot_ps(sin_poly, c);
  const __m256 sinv = _mm256_xor_ps(_mm256_add_ps(sin1, sin2), sin_sign);
  const __m256 cosv = _mm256_xor_ps(_mm256_add_ps(_mm256_sub_ps(c, sin1), _mm256_sub_ps(s, sin2)), cos_sign);
  const __m256 mean_v = _mm256_set1_ps(mean), std_v = _mm256_set1_ps(std);
  _mm256_storeu_ps(d, _mm256_fmadd_ps(_mm256_mul_ps(radius, cosv), std_v, mean_v));
  _mm256_storeu_ps(d + 8, _mm256_fmadd_ps(_mm256_mul_ps(radius, sinv), std_v, mean_v));
}

#endif

// The float32 block for this CPU, chosen once (EMBER_CPU_CAPABILITY=default forces the scalar one).
void normal_block16_f32(float* d, float mean, float std) {
#if defined(__x86_64__)
  static const auto block = std::strcmp(cpu_capability(), "default") != 0 ? normal_block16_f32_avx2
                                                                          : normal_block16_f32_scalar;
  block(d, mean, std);
#else
  normal_block16_f32_scalar(d, mean, std);
#endif
}

// normal_fill_16<T> for double, Half and BFloat16 (libm, as PyTorch's generic template).
template <class T>
void normal_block16(T* d, T mean, T std) {
  for (int j = 0; j < 8; ++j) {
    if constexpr (std::is_same_v<T, double>) {
      const double u1 = 1.0 - d[j], u2 = d[j + 8];
      const double radius = std::sqrt(-2.0 * std::log(u1));
      const double theta = 2.0 * std::numbers::pi * u2;
      d[j] = std::fma(radius * std::cos(theta), std, mean);
      d[j + 8] = std::fma(radius * std::sin(theta), std, mean);
    } else if constexpr (std::is_same_v<T, Half>) {
      // c10::Half arithmetic: float math rounded to half at each assignment, products with a float stay float.
      const Half u1 = Half(1.0f - float(d[j]));
      const Half u2 = d[j + 8];
      const Half radius = Half(std::sqrt(-2.0f * std::log(float(u1))));
      const Half theta = Half(static_cast<float>(2.0 * std::numbers::pi * static_cast<double>(float(u2))));
      d[j] = Half(std::fma(float(radius) * std::cos(float(theta)), float(std), float(mean)));
      d[j + 8] = Half(std::fma(float(radius) * std::sin(float(theta)), float(std), float(mean)));
    } else {
      // c10::BFloat16's math functions and operators return bfloat16: every step rounds.
      using B = BFloat16;
      const B u1 = B(1.0f - float(d[j]));
      const B u2 = d[j + 8];
      const B radius = B(std::sqrt(float(B(-2.0f * float(B(std::log(float(u1))))))));
      const B theta = B(static_cast<float>(2.0 * std::numbers::pi * static_cast<double>(float(u2))));
      const B c = B(std::cos(float(theta))), s = B(std::sin(float(theta)));
      d[j] = B(float(B(float(B(float(radius) * float(c))) * float(std))) + float(mean));
      d[j + 8] = B(float(B(float(B(float(radius) * float(s))) * float(std))) + float(mean));
    }
  }
}

// Path A (normal_fill / normal_fill_AVX2): a contiguous tensor of n >= 16 elements.
template <class T>
void normal_fill_blocked(T* d, int64_t n, double mean, double std, GeneratorImpl& gen) {
  LockedGenerator rng = gen.lock();
  for (int64_t i = 0; i < n; ++i) d[i] = static_cast<T>(uniform01<T>(rng));
  auto block = [&](T* p) {
    if constexpr (std::is_same_v<T, float>) normal_block16_f32(p, static_cast<float>(mean), static_cast<float>(std));
    else if constexpr (std::is_same_v<T, double>) normal_block16<double>(p, mean, std);
    else normal_block16<T>(p, T(static_cast<float>(mean)), T(static_cast<float>(std)));
  };
  for (int64_t i = 0; i + 16 <= n; i += 16) block(d + i);
  if (n % 16 != 0) {  // recompute the last 16 from fresh uniforms
    T* tail = d + n - 16;
    for (int i = 0; i < 16; ++i) tail[i] = static_cast<T>(uniform01<T>(rng));
    block(tail);
  }
}

// normal_(self, mean, std) without the argument checks.
void normal_fill(const Tensor& self, double mean, double std, const std::optional<Generator>& generator) {
  GeneratorImpl& gen = generator_or_default(generator);
  dispatch_dtypes<kFloatingTypes>(self.dtype(), "normal_kernel_cpu", [&]<class T>() {
    const int64_t n = self.numel();
    if (n >= 16 && self.is_contiguous()) {
      check_writable(self, "normal_");
      normal_fill_blocked<T>(self.data_ptr<T>(), n, mean, std, gen);
    } else {
      LockedGenerator rng = gen.lock();
      fill_serial<T>(self, "normal_", [&] {
        const double v = normal_one(rng, mean, std);
        if constexpr (is_narrow_v<T>) return T(static_cast<float>(v));  // double -> float -> 16 bits
        else return static_cast<T>(v);
      });
    }
  });
}

void check_normal_std(double std) {
  EMBER_CHECK(std >= 0.0, "normal: normal expects std >= 0.0, but found std {}", std);
}

void check_normal_std(const Tensor& std) {
  EMBER_CHECK(std.numel() == 0 || ember::min(std).item().to_double() >= 0.0,
              "normal: normal expects all elements of std >= 0.0");
}

// ---------------------------------------------------------------------------------------------- uniform

// uniform_ without the bounds checks (from <= to, both within T's range).
void uniform_fill(const Tensor& self, double from, double to, const std::optional<Generator>& generator) {
  GeneratorImpl& gen = generator_or_default(generator);
  dispatch_dtypes<kFloatingTypes>(self.dtype(), "uniform_", [&]<class T>() {
    LockedGenerator rng = gen.lock();
    if constexpr (std::is_same_v<T, double>) {
      const double range = to - from;
      fill_serial<T>(self, "uniform_", [&] { return std::fma(uniform01<T>(rng), range, from); });
    } else if constexpr (std::is_same_v<T, float>) {
      const float f = static_cast<float>(from), range = static_cast<float>(to) - f;
      fill_serial<T>(self, "uniform_", [&] { return std::fma(uniform01<T>(rng), range, f); });
    } else {  // bounds rounded to T, their difference too; the sample in float, rounded once
      const T f = T(static_cast<float>(from)), t = T(static_cast<float>(to));
      const float range = float(T(float(t) - float(f)));
      fill_serial<T>(self, "uniform_", [&] { return T(std::fma(uniform01<T>(rng), range, float(f))); });
    }
  });
}

// ---------------------------------------------------------------------------------------------- random_

// PyTorch's update_from/update_to (ATen/native/DistributionTemplates.h): moves a bound of a floating dtype to
// the nearest integer that stays inside [from, to) after rounding to T.
int64_t int64_of_float(double v) {  // as x86's cvttsd2si: out of range (and NaN) gives INT64_MIN
  return v >= -9223372036854775808.0 && v < 9223372036854775808.0 ? static_cast<int64_t>(v)
                                                                     : std::numeric_limits<int64_t>::min();
}

template <class T>
double round_to(int64_t v) {
  if constexpr (is_narrow_v<T>) return float(T(static_cast<float>(v)));
  else return static_cast<double>(static_cast<T>(v));
}

template <class T>
int64_t update_from(int64_t from) {
  const int64_t from_plus_1 = int64_of_float(round_to<T>(from + 1));
  if (from_plus_1 < from) {
    int64_t a = std::abs(from + 1);
    int n = 0;
    while (a >>= 1) ++n;
    from = from_plus_1 + (int64_t{1} << (n - digits<T>() + 1));
  }
  return from;
}

template <class T>
int64_t update_to(int64_t to) {
  const int64_t to_minus_1 = int64_of_float(round_to<T>(to - 1));
  if (to_minus_1 >= to) {
    int64_t a = std::abs(to - 1);
    int n = 0;
    while (a >>= 1) ++n;
    to = to_minus_1 - (int64_t{1} << (n - digits<T>() + 1));
  }
  return to;
}

// check_from_to_in_range: from and to - 1 inside the dtype's range.
void check_random_bounds(int64_t from, int64_t to_inc, DType dt) {
  dispatch_dtypes<kAllTypes>(dt, "check_random_bounds", [&]<class T>() {
    if constexpr (std::is_floating_point_v<T> || is_narrow_v<T>) {
      const double lo = static_cast<double>(static_cast<acc_t<T>>(std::numeric_limits<T>::lowest()));
      const double hi = static_cast<double>(static_cast<acc_t<T>>(std::numeric_limits<T>::max()));
      EMBER_CHECK(static_cast<double>(from) >= lo && static_cast<double>(from) <= hi,
                  "random_: from is out of bounds for {}", dt);
      EMBER_CHECK(static_cast<double>(to_inc) >= lo && static_cast<double>(to_inc) <= hi,
                  "random_: to - 1 is out of bounds for {}", dt);
    } else {
      const int64_t lo = static_cast<int64_t>(std::numeric_limits<T>::lowest());
      const int64_t hi = static_cast<int64_t>(std::numeric_limits<T>::max());
      EMBER_CHECK(from >= lo && from <= hi, "random_: from is out of bounds for {}", dt);
      EMBER_CHECK(to_inc >= lo && to_inc <= hi, "random_: to - 1 is out of bounds for {}", dt);
    }
  });
}

// random_from_to_kernel: `draw % range + base` (a u64 draw for ranges >= 2^32 of 64-bit-capable dtypes).
void random_from_to_fill(const Tensor& self, uint64_t range, int64_t base, GeneratorImpl& gen) {
  dispatch_dtypes<kAllTypes>(self.dtype(), "random_from_to_kernel_cpu", [&]<class T>() {
    constexpr bool wide = std::is_same_v<T, int64_t> || std::is_same_v<T, double> || std::is_same_v<T, float> ||
                          std::is_same_v<T, BFloat16>;
    LockedGenerator rng = gen.lock();
    fill_serial<T>(self, "random_", [&] {
      const uint64_t v = wide && range >= (uint64_t{1} << 32) ? rng.random64() : rng.random();
      const int64_t r = static_cast<int64_t>(v % range + static_cast<uint64_t>(base));
      if constexpr (is_narrow_v<T>) return T(static_cast<float>(r));
      else return static_cast<T>(r);
    });
  });
}

// random_from_to_impl of PyTorch: [from, to), [from, the dtype's largest exact integer] when to is None, and
// the full int64 range when from is INT64_MIN and to is None.
void random_from_to(const Tensor& self, int64_t from, std::optional<int64_t> to_opt, GeneratorImpl& gen) {
  const DType dt = self.dtype();
  const bool floating = is_floating_point(dt);
  if (to_opt) {
    int64_t to = *to_opt;
    EMBER_CHECK(from < to, "random_: random_ expects 'from' to be less than 'to', but got from={} >= to={}", from, to);
    if (floating) {
      dispatch_dtypes<kFloatingTypes>(dt, "random_update_from_to", [&]<class T>() {
        from = update_from<T>(from);
        to = update_to<T>(to);
        EMBER_CHECK(from < to,
                    "random_: random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but got "
                    "from={} >= to={}",
                    from, to);
      });
    }
    check_random_bounds(from, to - 1, dt);
    random_from_to_fill(self, static_cast<uint64_t>(to) - static_cast<uint64_t>(from), from, gen);
  } else if (from != std::numeric_limits<int64_t>::min()) {
    int64_t to_inc = 0;
    if (floating) {
      dispatch_dtypes<kFloatingTypes>(dt, "random_from_to_range_calc", [&]<class T>() {
        to_inc = digits<T>() >= 63 ? std::numeric_limits<int64_t>::max() : int64_t{1} << digits<T>();
        from = update_from<T>(from);
        EMBER_CHECK(from < to_inc,
                    "random_: random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted to "
                    "dtype, but got from={} > to_inc={}",
                    from, to_inc);
      });
    } else {
      dispatch_dtypes<kIntegralAndBool>(dt, "random_from_to_range_calc", [&]<class T>() {
        to_inc = std::is_same_v<T, bool> ? 1 : static_cast<int64_t>(std::numeric_limits<T>::max());
      });
    }
    check_random_bounds(from, to_inc, dt);
    random_from_to_fill(self, static_cast<uint64_t>(to_inc) - static_cast<uint64_t>(from) + 1, from, gen);
  } else {  // [INT64_MIN, INT64_MAX]: a u64 per element, reinterpreted
    constexpr uint32_t mask = dtype_bit(kInt64) | dtype_bit(kFloat64) | dtype_bit(kFloat32) | dtype_bit(kBFloat16);
    EMBER_CHECK((mask >> static_cast<int>(dt)) & 1u,
                "random_: random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16");
    dispatch_dtypes<mask>(dt, "random_full_64_bits_range_kernel_cpu", [&]<class T>() {
      LockedGenerator rng = gen.lock();
      fill_serial<T>(self, "random_", [&] {
        const int64_t r = static_cast<int64_t>(rng.random64());
        if constexpr (is_narrow_v<T>) return T(static_cast<float>(r));
        else return static_cast<T>(r);
      });
    });
  }
}

// ---------------------------------------------------------------------------------------------- bernoulli

constexpr uint32_t kBernoulliTypes = kAllTypes;  // PyTorch 1.13 lacks float16; see Note [random kernels]

void bernoulli_scalar_fill(const Tensor& self, double p, const std::optional<Generator>& generator) {
  EMBER_CHECK(p >= 0 && p <= 1, "bernoulli_: bernoulli_ expects p to be in [0, 1], but got p={}", p);
  GeneratorImpl& gen = generator_or_default(generator);
  dispatch_dtypes<kBernoulliTypes>(self.dtype(), "bernoulli_scalar_cpu_", [&]<class T>() {
    LockedGenerator rng = gen.lock();
    fill_serial<T>(self, "bernoulli_", [&] {
      const bool v = uniform01<double>(rng) < p;
      if constexpr (is_narrow_v<T>) return T(v ? 1.0f : 0.0f);
      else return static_cast<T>(v);
    });
  });
}

void bernoulli_tensor_fill(const Tensor& self, const Tensor& p_in, const std::optional<Generator>& generator) {
  GeneratorImpl& gen = generator_or_default(generator);
  check_writable(self, "bernoulli_");
  dispatch_dtypes<kBernoulliTypes>(self.dtype(), "bernoulli_tensor_cpu_self_", [&]<class T>() {
    dispatch_dtypes<kFloatingTypes>(p_in.dtype(), "bernoulli_tensor_cpu_p_", [&]<class P>() {
      const Tensor p = p_in.expand(self.sizes());
      IterConfig cfg;
      cfg.name = "bernoulli_";
      cfg.is_inplace = true;
      cfg.promote_inputs = false;
      cfg.check_cast = false;
      cfg.output_dtype = self.dtype();
      TensorIterator it(cfg, self, {p});
      LockedGenerator rng = gen.lock();
      it.for_each(
          [&](char** data, const int64_t* strides, int64_t n) {
            char* out = data[0];
            const char* pp = data[1];
            for (int64_t i = 0; i < n; ++i, out += strides[0], pp += strides[1]) {
              // bernoulli_distribution<double> for float64 p, bernoulli_distribution<float> for the others.
              using D = std::conditional_t<std::is_same_v<P, double>, double, float>;
              const D prob = static_cast<D>(static_cast<acc_t<P>>(*reinterpret_cast<const P*>(pp)));
              EMBER_CHECK(prob >= 0 && prob <= 1,
                          "bernoulli_: Expected p_in >= 0 && p_in <= 1 to be true, but got false (p = {})", prob);
              const bool v = uniform01<D>(rng) < prob;
              if constexpr (is_narrow_v<T>) *reinterpret_cast<T*>(out) = T(v ? 1.0f : 0.0f);
              else *reinterpret_cast<T*>(out) = static_cast<T>(v);
            }
          },
          kSerial);
      it.finish();
    });
  });
}

// ---------------------------------------------------------------------------------------------- randperm

void randperm_fill(const Tensor& result, int64_t n, GeneratorImpl& gen) {
  const DType dt = result.dtype();
  // check_supported_max_int_with_precision: n - 1 must fit the dtype, exactly for floating ones.
  (void)ember::scalar_tensor(Scalar(n > 0 ? n - 1 : n), dt);
  EMBER_CHECK(dt != kFloat16 || n <= (int64_t{1} << 11) + 1, "randperm: n cannot be greater than 2049 for Half type.");
  EMBER_CHECK(dt != kFloat32 || n <= (int64_t{1} << 24) + 1,
              "randperm: n cannot be greater than 2^24+1 for Float type.");
  EMBER_CHECK(dt != kFloat64 || n <= (int64_t{1} << 53) + 1,
              "randperm: n cannot be greater than 2^53+1 for Double type.");
  dispatch_dtypes<kNumericTypes>(dt, "randperm", [&]<class T>() {
    T* r = result.data_ptr<T>();
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (is_narrow_v<T>) r[i] = T(static_cast<float>(i));
      else r[i] = static_cast<T>(i);
    }
    LockedGenerator rng = gen.lock();
    for (int64_t i = 0; i < n - 1; ++i) {
      const int64_t z = static_cast<int64_t>(rng.random()) % (n - i);
      std::swap(r[i], r[z + i]);
    }
  });
}

Tensor make_factory(IntArrayRef size, std::optional<DType> dtype, std::optional<Device> device, const char* op,
                    DType fallback) {
  check_cpu(device, op);
  return make_empty(size, dtype.value_or(fallback));
}

}  // namespace

// ---------------------------------------------------------------------------------------------- in-place ops

Tensor uniform_(const Tensor& self, double from, double to, const std::optional<Generator>& generator) {
  dispatch_dtypes<kFloatingTypes>(self.dtype(), "check_uniform_bounds", [&]<class T>() {
    const double lo = static_cast<double>(static_cast<acc_t<T>>(std::numeric_limits<T>::lowest()));
    const double hi = static_cast<double>(static_cast<acc_t<T>>(std::numeric_limits<T>::max()));
    EMBER_CHECK(from >= lo && from <= hi, "uniform_: from is out of bounds for {}", self.dtype());
    EMBER_CHECK(to >= lo && to <= hi, "uniform_: to is out of bounds for {}", self.dtype());
    EMBER_CHECK(from <= to, "uniform_: uniform_ expects to return a [from, to) range, but found from={} > to={}", from,
                to);
    EMBER_CHECK(to - from <= hi,
                "uniform_: uniform_ expects to-from <= std::numeric_limits<{}>::max(), but found to={} and from={} "
                "which result in to-from to exceed the limit",
                self.dtype(), to, from);
  });
  uniform_fill(self, from, to, generator);
  return self;
}

Tensor normal_(const Tensor& self, double mean, double std, const std::optional<Generator>& generator) {
  check_normal_std(std);
  normal_fill(self, mean, std, generator);
  return self;
}

Tensor random_from_(const Tensor& self, int64_t from, std::optional<int64_t> to,
                    const std::optional<Generator>& generator) {
  check_writable(self, "random_");
  random_from_to(self, from, to, generator_or_default(generator));
  return self;
}

Tensor random_to_(const Tensor& self, int64_t to, const std::optional<Generator>& generator) {
  return random_from_(self, 0, to, generator);
}

Tensor random_(const Tensor& self, const std::optional<Generator>& generator) {
  GeneratorImpl& gen = generator_or_default(generator);
  dispatch_dtypes<kAllTypes>(self.dtype(), "random_kernel_cpu", [&]<class T>() {
    LockedGenerator rng = gen.lock();
    fill_serial<T>(self, "random_", [&]() -> T {
      // uniform_int<T>: u64 for int64 and float64, u32 otherwise.
      if constexpr (std::is_same_v<T, bool>) {
        return (rng.random() & 1u) != 0;
      } else if constexpr (std::is_same_v<T, int64_t>) {
        return static_cast<int64_t>(rng.random64() % (uint64_t{1} << 63));
      } else if constexpr (std::is_same_v<T, double>) {
        return static_cast<double>(rng.random64() % ((uint64_t{1} << 53) + 1));
      } else if constexpr (std::is_floating_point_v<T> || is_narrow_v<T>) {
        return T(static_cast<float>(rng.random() % ((uint64_t{1} << digits<T>()) + 1)));
      } else {
        return static_cast<T>(rng.random() % (static_cast<uint64_t>(std::numeric_limits<T>::max()) + 1));
      }
    });
  });
  return self;
}

Tensor exponential_(const Tensor& self, double lambd, const std::optional<Generator>& generator) {
  EMBER_CHECK(lambd >= 0.0, "exponential_: exponential_ expects lambda >= 0.0, but found lambda={}", lambd);
  GeneratorImpl& gen = generator_or_default(generator);
  dispatch_dtypes<kFloatingTypes>(self.dtype(), "exponential_cpu", [&]<class T>() {
    LockedGenerator rng = gen.lock();
    fill_serial<T>(self, "exponential_", [&] {
      const double v = -1.0 / lambd * std::log(1.0 - uniform01<double>(rng));
      if constexpr (is_narrow_v<T>) return T(static_cast<float>(v));
      else return static_cast<T>(v);
    });
  });
  return self;
}

// A double sample stored in T: through float for the 16-bit types (as PyTorch's casts), through int64 with x86's
// out-of-range rule for the integral ones (geometric_).
template <class T>
T store_sample(double v) {
  if constexpr (is_narrow_v<T>) return T(static_cast<float>(v));
  else if constexpr (std::is_floating_point_v<T>) return static_cast<T>(v);
  else return static_cast<T>(int64_of_float(v));
}

Tensor cauchy_(const Tensor& self, double median, double sigma, const std::optional<Generator>& generator) {
  GeneratorImpl& gen = generator_or_default(generator);
  dispatch_dtypes<kFloatingTypes>(self.dtype(), "cauchy_cpu", [&]<class T>() {
    LockedGenerator rng = gen.lock();
    fill_serial<T>(self, "cauchy_", [&] {
      const double u = uniform01<double>(rng);
      // PyTorch's AVX2 build contracts median + sigma * tan(...) into one multiply-add.
      return store_sample<T>(std::fma(sigma, std::tan(std::numbers::pi * (u - 0.5)), median));
    });
  });
  return self;
}

Tensor geometric_(const Tensor& self, double p, const std::optional<Generator>& generator) {
  EMBER_CHECK(p > 0 && p < 1, "geometric_: geometric_ expects p to be in (0, 1), but got p={}", p);
  GeneratorImpl& gen = generator_or_default(generator);
  dispatch_dtypes<kNumericTypes>(self.dtype(), "geometric_cpu", [&]<class T>() {
    LockedGenerator rng = gen.lock();
    fill_serial<T>(self, "geometric_", [&] {
      const double u = uniform01<double>(rng);
      return store_sample<T>(std::ceil(std::log(u) / std::log(1.0 - p)));
    });
  });
  return self;
}

// exp of path-B normal samples (normal_one, sharing the generator's cached value), as PyTorch's
// lognormal_distribution<double>.
Tensor log_normal_(const Tensor& self, double mean, double std, const std::optional<Generator>& generator) {
  EMBER_CHECK(std > 0.0, "log_normal_: log_normal_ expects std > 0.0, but found std={}", std);
  GeneratorImpl& gen = generator_or_default(generator);
  dispatch_dtypes<kFloatingTypes>(self.dtype(), "log_normal_cpu", [&]<class T>() {
    LockedGenerator rng = gen.lock();
    fill_serial<T>(self, "log_normal_", [&] { return store_sample<T>(std::exp(normal_one(rng, mean, std))); });
  });
  return self;
}

Tensor bernoulli_float_(const Tensor& self, double p, const std::optional<Generator>& generator) {
  bernoulli_scalar_fill(self, p, generator);
  return self;
}

Tensor bernoulli_tensor_(const Tensor& self, const Tensor& p, const std::optional<Generator>& generator) {
  bernoulli_tensor_fill(self, p, generator);
  return self;
}

// ---------------------------------------------------------------------------------------------- functional ops

Tensor bernoulli(const Tensor& self, const std::optional<Generator>& generator) {
  Tensor result = make_empty(self.sizes(), self.dtype());
  bernoulli_tensor_fill(result, self, generator);
  return result;
}

Tensor bernoulli_p(const Tensor& self, double p, const std::optional<Generator>& generator) {
  Tensor result = make_empty(self.sizes(), self.dtype());
  bernoulli_scalar_fill(result, p, generator);
  return result;
}

Tensor normal_tensor_float(const Tensor& mean, double std, const std::optional<Generator>& generator) {
  check_normal_std(std);
  Tensor out = make_empty(mean.sizes(), mean.dtype());
  normal_fill(out, 0.0, std, generator);
  return out.add_(mean);
}

Tensor normal_float_tensor(double mean, const Tensor& std, const std::optional<Generator>& generator) {
  check_normal_std(std);
  Tensor out = make_empty(std.sizes(), std.dtype());
  normal_fill(out, 0.0, 1.0, generator);
  return out.mul_(std).add_(ember::full({}, Scalar(mean), out.dtype()));
}

Tensor normal_tensor_tensor(const Tensor& mean, const Tensor& std, const std::optional<Generator>& generator) {
  check_normal_std(std);
  Tensor out = make_empty(broadcast_shapes(mean.sizes(), std.sizes()), mean.dtype());
  normal_fill(out, 0.0, 1.0, generator);
  return out.mul_(std).add_(mean);
}

// ---------------------------------------------------------------------------------------------- factories

Tensor rand_generator(IntArrayRef size, const std::optional<Generator>& generator, std::optional<DType> dtype,
                      std::optional<Device> device) {
  Tensor t = make_factory(size, dtype, device, "rand", default_dtype());
  return cpu::uniform_(t, 0.0, 1.0, generator);
}

Tensor rand(IntArrayRef size, std::optional<DType> dtype, std::optional<Device> device) {
  return rand_generator(size, std::nullopt, dtype, device);
}

Tensor randn_generator(IntArrayRef size, const std::optional<Generator>& generator, std::optional<DType> dtype,
                       std::optional<Device> device) {
  Tensor t = make_factory(size, dtype, device, "randn", default_dtype());
  normal_fill(t, 0.0, 1.0, generator);
  return t;
}

Tensor randn(IntArrayRef size, std::optional<DType> dtype, std::optional<Device> device) {
  return randn_generator(size, std::nullopt, dtype, device);
}

Tensor normal_float_float(double mean, double std, IntArrayRef size, const std::optional<Generator>& generator,
                          std::optional<DType> dtype, std::optional<Device> device) {
  Tensor t = make_factory(size, dtype, device, "normal", default_dtype());
  return cpu::normal_(t, mean, std, generator);
}

Tensor randint_low_generator(int64_t low, int64_t high, IntArrayRef size, const std::optional<Generator>& generator,
                             std::optional<DType> dtype, std::optional<Device> device) {
  Tensor t = make_factory(size, dtype, device, "randint", kInt64);
  random_from_to(t, low, high, generator_or_default(generator));
  return t;
}

Tensor randint_low(int64_t low, int64_t high, IntArrayRef size, std::optional<DType> dtype,
                   std::optional<Device> device) {
  return randint_low_generator(low, high, size, std::nullopt, dtype, device);
}

Tensor randint_generator(int64_t high, IntArrayRef size, const std::optional<Generator>& generator,
                         std::optional<DType> dtype, std::optional<Device> device) {
  return randint_low_generator(0, high, size, generator, dtype, device);
}

Tensor randint(int64_t high, IntArrayRef size, std::optional<DType> dtype, std::optional<Device> device) {
  return randint_low_generator(0, high, size, std::nullopt, dtype, device);
}

Tensor randperm_generator(int64_t n, const std::optional<Generator>& generator, std::optional<DType> dtype,
                          std::optional<Device> device) {
  Tensor t = make_factory({n}, dtype, device, "randperm", kInt64);
  randperm_fill(t, n, generator_or_default(generator));
  return t;
}

Tensor randperm(int64_t n, std::optional<DType> dtype, std::optional<Device> device) {
  return randperm_generator(n, std::nullopt, dtype, device);
}

}  // namespace ember::cpu
