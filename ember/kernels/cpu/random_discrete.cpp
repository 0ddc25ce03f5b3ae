// Discrete samplers: poisson, binomial and multinomial, each drawing PyTorch 1.13's numbers for a seed (Note
// [discrete samplers]). The continuous distributions are in random.cpp (Note [random kernels]).
#include <cmath>
#include <limits>

#include "ember/kernels/cpu/Dispatch.h"
#include "ember/kernels/cpu/generated/CPUKernels.h"
#include "ember/ops/Functions.h"
#include "ember/ops/linalg.h"

namespace ember::cpu {

// Note [discrete samplers]
// Every sample takes 53-bit uniforms u in [0, 1) from u64 draws (PyTorch's uniform_real_distribution<double>),
// serially under the generator's lock, elements in row-major order of the (contiguous) result:
//  - poisson(rate): rates of 10 or more use Hormann's transformed rejection with squeeze (PTRS, "The transformed
//    rejection method for generating Poisson random variables", 1993), two uniforms per trial; smaller rates
//    multiply uniforms until the product falls to exp(-rate) or below (one uniform per step); rate 0 gives 0.
//  - binomial(count, prob): the smaller of prob and 1 - prob is sampled (then count minus it for the other);
//    count * p >= 10 takes Hormann's BTRS rejection ("The generation of binomial random variates", 1993) with
//    the Stirling tail table for k <= 9, else a sum of geometric waiting times ceil(log(u) / log1p(-p)) until it
//    exceeds count. PyTorch mixes the element type and double in these formulas; so does this kernel, in the
//    same places, so float32 gives the same bits.
//  - multinomial without replacement: the largest probs / q with q ~ Exp(1) drawn by exponential_ into a tensor
//    like probs (argmax for one sample, topk for more); with replacement: per row, the running sum of the
//    weights (float for bfloat16), divided by the total, its last entry set to 1, then per sample the first
//    index whose cumulative value is >= u (binary search).

namespace {

// PyTorch's uniform_real_distribution<double>(0, 1): the low 53 bits of a u64 times 2^-53.
double uniform53(LockedGenerator& rng) {
  return static_cast<double>(rng.random64() & ((uint64_t{1} << 53) - 1)) * 0x1p-53;
}

int64_t to_int64(double v) {  // as x86's cvttsd2si: out of range (and NaN) gives INT64_MIN
  return v >= -9223372036854775808.0 && v < 9223372036854775808.0 ? static_cast<int64_t>(v)
                                                                     : std::numeric_limits<int64_t>::min();
}

// One Poisson sample of the given rate (checked >= 0 by the caller).
int64_t sample_poisson(double rate, LockedGenerator& rng) {
  if (rate >= 10) {
    // PTRS: the hat's constants from the paper (b, a, 1/alpha, v_r), then accept-reject on (U, V).
    const double slam = std::sqrt(rate);
    const double loglam = std::log(rate);
    const double b = 0.931 + 2.53 * slam;
    const double a = -0.059 + 0.02483 * b;
    const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
    const double v_r = 0.9277 - 3.6224 / (b - 2);
    while (true) {
      const double u = uniform53(rng) - 0.5;
      const double v = uniform53(rng);
      const double us = 0.5 - std::fabs(u);
      const int64_t k = to_int64(std::floor((2 * a / us + b) * u + rate + 0.43));
      if (us >= 0.07 && v <= v_r) return k;
      if (k < 0 || (us < 0.013 && v > us)) continue;
      if (std::log(v) + std::log(inv_alpha) - std::log(a / (us * us) + b) <=
          -rate + static_cast<double>(k) * loglam - std::lgamma(static_cast<double>(k) + 1))
        return k;
    }
  }
  if (rate == 0) return 0;
  const double limit = std::exp(-rate);
  int64_t x = 0;
  double prod = 1.0;
  while (true) {
    prod *= uniform53(rng);
    if (prod <= limit) return x;
    ++x;
  }
}

// The tail log(k!) - [(k + 1/2) log(k + 1) - (k + 1) + log(2 pi) / 2] of Stirling's series: a table for k <= 9.
double stirling_tail(double k) {
  static constexpr double kTail[] = {0.0810614667953272,  0.0413406959554092,  0.0276779256849983,
                                     0.02079067210376509, 0.0166446911898211,  0.0138761288230707,
                                     0.0118967099458917,  0.0104112652619720,  0.00925546218271273,
                                     0.00833056343336287};
  if (k <= 9) return kTail[static_cast<size_t>(k)];
  const double kp1sq = (k + 1) * (k + 1);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1);
}

// Successes among count trials of probability p <= 1/2 with count * p < 10: geometric waiting times.
template <class T>
T binomial_inversion(T count, T p, LockedGenerator& rng) {
  const double log_q = static_cast<double>(std::log1p(-p));  // in T, as PyTorch's compat_log1p
  double waited = 0;
  T successes = 0;
  while (true) {
    waited += std::ceil(std::log(uniform53(rng)) / log_q);
    if (waited > count) return successes;
    successes = successes + 1;
  }
}

// BTRS for p <= 1/2 and count * p >= 10. Expressions in T stay in T (count * p, 1 - p, count - k + 1, ...).
template <class T>
T binomial_btrs(T count, T p, LockedGenerator& rng) {
  const double stddev = static_cast<double>(std::sqrt(count * p * (1 - p)));
  const double b = 1.15 + 2.53 * stddev;
  const double a = -0.0873 + 0.0248 * b + 0.01 * p;
  const double c = count * p + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double r = p / (1 - p);
  const double alpha = (2.83 + 5.1 / b) * stddev;
  const double m = std::floor(static_cast<double>((count + 1) * p));
  while (true) {
    const double u = uniform53(rng) - 0.5;
    double v = uniform53(rng);
    const double us = 0.5 - std::fabs(u);
    const T k = static_cast<T>(std::floor((2 * a / us + b) * u + c));
    if (k < 0 || k > count) continue;
    if (us >= 0.07 && v <= v_r) return k;
    v = std::log(v * alpha / (a / (us * us) + b));
    const double bound = (m + 0.5) * std::log((m + 1) / (r * (count - m + 1))) +
                         (count + 1) * std::log((count - m + 1) / (count - k + 1)) +
                         (k + 0.5) * std::log(r * (count - k + 1) / (k + 1)) + stirling_tail(m) +
                         stirling_tail(count - m) - stirling_tail(k) - stirling_tail(count - k);
    if (v <= bound) return k;
  }
}

template <class T>
T sample_binomial(T count, T p, LockedGenerator& rng) {
  if (std::isnan(count) || std::isnan(p)) return std::numeric_limits<T>::quiet_NaN();  // PyTorch never returns
  if (count <= 0 || p <= 0) return 0;
  if (p >= 1) return count;
  if (p <= 0.5) return count * p >= 10.0 ? binomial_btrs(count, p, rng) : binomial_inversion(count, p, rng);
  const T q = static_cast<T>(1.0 - p);
  return count - (count * q >= 10.0 ? binomial_btrs(count, q, rng) : binomial_inversion(count, q, rng));
}

// PyTorch 1.13 lacks some of the 16-bit types here (poisson float16; binomial both; multinomial float16): Ember
// samples them as float32 would (the same draws), rounding the result.
constexpr uint32_t kSamplerTypes = kFloatingTypes;

// The accumulation type of multinomial's running sums: float for bfloat16.
template <class T>
using sum_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// multinomial with replacement into the contiguous int64 result (rows x num_samples) from the 2-D probs.
template <class T>
void multinomial_with_replacement(const Tensor& probs, int64_t num_samples, const Tensor& result,
                                  GeneratorImpl& gen) {
  const int64_t rows = probs.size(0), n = probs.size(1);
  const int64_t s0 = probs.stride(0), s1 = probs.stride(1);
  const T* p = probs.data_ptr<T>();
  int64_t* out = result.data_ptr<int64_t>();
  std::vector<sum_t<T>> cum(static_cast<size_t>(n));
  LockedGenerator rng = gen.lock();
  for (int64_t i = 0; i < rows; ++i) {
    sum_t<T> sum = 0;
    for (int64_t j = 0; j < n; ++j) {
      const sum_t<T> v = static_cast<sum_t<T>>(p[i * s0 + j * s1]);
      EMBER_CHECK(v >= 0, "multinomial: invalid multinomial distribution (encountering probability entry < 0)");
      EMBER_CHECK(std::isfinite(v),
                  "multinomial: invalid multinomial distribution (encountering probability entry = infinity or NaN)");
      sum += v;
      cum[j] = sum;
    }
    EMBER_CHECK(sum > 0, "multinomial: invalid multinomial distribution (sum of probabilities <= 0)");
    for (auto& c : cum) c /= sum;
    cum[n - 1] = 1;
    for (int64_t s = 0; s < num_samples; ++s) {
      const double u = uniform53(rng);
      int64_t lo = 0, hi = n;
      while (hi > lo) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (static_cast<double>(cum[mid]) < u) lo = mid + 1;
        else hi = mid;
      }
      out[i * num_samples + s] = lo;
    }
  }
}

// The no-replacement checks of PyTorch: finite, non-negative weights and no row summing to 0.
void check_multinomial_weights(const Tensor& self) {
  const bool valid = self.max().item<double>() < INFINITY && self.min().item<double>() >= 0;
  EMBER_CHECK(valid, "multinomial: probability tensor contains either `inf`, `nan` or element < 0");
  // The weights are >= 0 here, so a row summing to 0 is the smallest sum.
  const Tensor sums = self.dim() == 1 ? self.sum() : self.sum(IntArrayRef{1});
  EMBER_CHECK(sums.min().item<double>() != 0,
              "multinomial: invalid multinomial distribution (sum of probabilities <= 0)");
}

}  // namespace

Tensor poisson(const Tensor& self, const std::optional<Generator>& generator) {
  GeneratorImpl& gen = generator_or_default(generator);
  Tensor result = make_empty(self.sizes(), self.dtype());
  dispatch_dtypes<kSamplerTypes>(self.dtype(), "poisson_cpu", [&]<class T>() {
    const Tensor rates = self.contiguous();
    const T* r = rates.data_ptr<T>();
    T* out = result.data_ptr<T>();
    LockedGenerator rng = gen.lock();
    for (int64_t i = 0; i < result.numel(); ++i) {
      double rate;
      if constexpr (std::is_same_v<T, double>) rate = r[i];
      else rate = static_cast<float>(r[i]);
      EMBER_CHECK(rate >= 0, "poisson: invalid Poisson rate, expected rate to be non-negative, got {}", rate);
      const int64_t k = sample_poisson(rate, rng);
      if constexpr (std::is_same_v<T, double>) out[i] = static_cast<double>(k);
      else out[i] = T(static_cast<float>(k));
    }
  });
  return result;
}

Tensor binomial(const Tensor& count, const Tensor& prob, const std::optional<Generator>& generator) {
  GeneratorImpl& gen = generator_or_default(generator);
  EMBER_CHECK(prob.dtype() == count.dtype(), "binomial: Found dtype {} but expected {} (prob must have count's dtype)",
              prob.dtype(), count.dtype());
  const DimVector shape = broadcast_shapes(count.sizes(), prob.sizes());
  Tensor result = make_empty(shape, count.dtype());
  dispatch_dtypes<kSamplerTypes>(count.dtype(), "binomial_cpu", [&]<class T>() {
    using C = sum_t<T>;  // the type the sampler computes in: float for the 16-bit types
    const Tensor n = count.expand(shape).contiguous(), p = prob.expand(shape).contiguous();
    const T* np = n.data_ptr<T>();
    const T* pp = p.data_ptr<T>();
    T* out = result.data_ptr<T>();
    LockedGenerator rng = gen.lock();
    for (int64_t i = 0; i < result.numel(); ++i)
      out[i] = T(sample_binomial<C>(static_cast<C>(np[i]), static_cast<C>(pp[i]), rng));
  });
  return result;
}

Tensor multinomial_out(const Tensor& self, int64_t num_samples, bool replacement,
                       const std::optional<Generator>& generator, const Tensor& out) {
  EMBER_CHECK(self.dim() > 0 && self.dim() <= 2, "multinomial: prob_dist must be 1 or 2 dim, got {} dims",
              self.dim());
  EMBER_CHECK(is_floating_point(self.dtype()),
              "multinomial: multinomial only supports floating-point dtypes for input, got: {}",
              self.dtype());
  EMBER_CHECK(out.dtype() == kInt64, "multinomial: multinomial expects Long tensor out, got: {}", out.dtype());
  EMBER_CHECK(num_samples > 0, "multinomial: cannot sample n_sample <= 0 samples");
  const int64_t n_categories = self.size(-1);
  EMBER_CHECK(replacement || num_samples <= n_categories,
              "multinomial: cannot sample n_sample > prob_dist.size(-1) samples without replacement ({} > {})",
              num_samples, n_categories);
  EMBER_CHECK(n_categories <= (int64_t{1} << 24), "multinomial: number of categories cannot exceed 2^24");
  if (self.dim() == 1) linalg::resize_output(out, {num_samples});
  else linalg::resize_output(out, {self.size(0), num_samples});
  if (out.numel() == 0) return out;
  GeneratorImpl& gen = generator_or_default(generator);
  if (!replacement) {
    check_multinomial_weights(self);
    const Tensor probs = self.dtype() == kFloat16 ? self.to(kFloat32) : self;  // float16 as float32
    Tensor q = ember::empty_like(probs);
    q.exponential_(1, generator);
    q = ember::div(probs, q);
    if (num_samples == 1) out.copy_(ember::argmax(q, -1, true));
    else out.copy_(std::get<1>(ember::topk(q, num_samples)));
    return out;
  }
  const Tensor probs = self.dim() == 1 ? self.unsqueeze(0) : self;
  const bool direct = out.is_contiguous();
  Tensor result = direct ? out : make_empty(out.sizes(), kInt64);
  dispatch_dtypes<kSamplerTypes>(self.dtype(), "multinomial", [&]<class T>() {
    multinomial_with_replacement<T>(probs, num_samples, result, gen);
  });
  if (!direct) out.copy_(result);
  return out;
}

Tensor multinomial(const Tensor& self, int64_t num_samples, bool replacement,
                   const std::optional<Generator>& generator) {
  Tensor out = make_empty({0}, kInt64);
  return multinomial_out(self, num_samples, replacement, generator, out);
}

}  // namespace ember::cpu
