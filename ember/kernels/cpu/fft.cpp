// The three fft primitives (Note [fft primitives] in ember/ops/ops_fft.yaml) on KissFFT (Debian's
// libkissfft-dev, the header-only C++ template kissfft<T>, BSD-3-Clause).
//
// Note [fft kernels]
// A transform over several dims is one 1-D transform per dim, each over every line of the tensor along that
// dim (the DFT is separable), each step writing a new contiguous tensor; the normalization is applied by the last
// step. One line at a time:
//   c2c  kissfft<V>::transform reads the line in place (its input stride) into a contiguous buffer (or straight
//        into the output line when that is contiguous).
//   r2c  an even n >= 4 runs transform_real: the n reals as n/2 complex numbers through an n/2-point transform and
//        a post-pass; an odd n (or 2) transforms the line as complex numbers. Only the n/2 + 1 non-redundant
//        outputs are computed; a full (two-sided) output fills the rest by conjugate symmetry, X[n - k] =
//        conj(X[k]) (a real line's spectrum; the other dims are transformed after this one, complex to complex).
//   c2r  an even n >= 4 inverts transform_real's packing: with N = n/2 and X[0], X[N] made real,
//          Z[k] = (X[k] + conj(X[N - k])) + i (X[k] - conj(X[N - k])) exp(i pi k / N),   k = 0 .. N - 1
//        and the inverse N-point transform of Z is z[m] = x[2m] + i x[2m + 1] (the unnormalized inverse of
//        x's spectrum X, as x = E + W O splits into the even and odd samples); an odd n (or 2) extends the half
//        by conjugate symmetry to n entries and keeps the real part of their inverse transform. Either way the
//        imaginary parts of X[0] (and X[n/2] for even n) do not matter, as in PyTorch. The other dims are
//        transformed first (complex to complex, inverse), then the last one (pocketfft's order in PyTorch).
// Plans (twiddle factors and factorisation) are cached per (n, inverse, dtype), at most kMaxPlans of them, least
// recently used first out; the cache is locked, the plans are shared read-only. KissFFT's generic butterfly (for
// a prime factor above 5) writes a scratch buffer inside the plan, so such plans are copied per task.
// Lines run in parallel (parallel_for) over the batch.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <numbers>
#include <tuple>
#include <vector>

#include <kissfft/kissfft.hh>

#include "ember/kernels/cpu/Parallel.h"
#include "ember/kernels/cpu/generated/CPUKernels.h"
#include "ember/ops/linalg.h"

namespace ember::cpu {

namespace {

/// A cached plan: KissFFT's n-point transform, and for the inverse plans the factors exp(i pi k / n), k < n,
/// of the c2r post-pass (Note [fft kernels]).
template <class V>
struct Plan {
  kissfft<V> fft;
  std::vector<std::complex<V>> half_turn;
  Plan(int64_t n, bool inverse) : fft(static_cast<size_t>(n), inverse) {
    if (!inverse) return;
    half_turn.resize(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k)
      half_turn[static_cast<size_t>(k)] = std::polar(V(1), static_cast<V>(std::numbers::pi * double(k) / double(n)));
  }
};

/// Whether KissFFT factors n with a radix it has no butterfly for (a prime factor above 5): its generic
/// butterfly writes a scratch buffer inside the plan, so the plan must not be shared between threads.
bool needs_private_plan(int64_t n) {
  for (int64_t p : {2, 3, 5})
    while (n % p == 0) n /= p;
  return n > 1;
}

constexpr size_t kMaxPlans = 64;

/// The plan cache of one scalar type (float or double): thread safe, bounded (least recently used out).
template <class V>
class PlanCache {
 public:
  std::shared_ptr<const Plan<V>> get(int64_t n, bool inverse) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto key = std::make_pair(n, inverse);
    auto it = plans_.find(key);
    if (it != plans_.end()) {
      it->second.last_use = ++clock_;
      return it->second.plan;
    }
    if (plans_.size() >= kMaxPlans) {
      const auto older = [](const auto& a, const auto& b) { return a.second.last_use < b.second.last_use; };
      auto oldest = std::min_element(plans_.begin(), plans_.end(), older);
      plans_.erase(oldest);
    }
    auto plan = std::make_shared<const Plan<V>>(n, inverse);
    plans_.emplace(key, Entry{plan, ++clock_});
    return plan;
  }

 private:
  struct Entry {
    std::shared_ptr<const Plan<V>> plan;
    uint64_t last_use;
  };
  std::mutex mutex_;
  std::map<std::pair<int64_t, bool>, Entry> plans_;
  uint64_t clock_ = 0;
};

template <class V>
std::shared_ptr<const Plan<V>> plan_for(int64_t n, bool inverse) {
  static PlanCache<V> cache;
  return cache.get(n, inverse);
}

/// The lines of a tensor along one dim, for a step from `in` to `out` (the same dims; the dim's size may differ):
/// line i's first element sits at in_offset(i) in in and out_offset(i) in out (element units).
struct Lines {
  std::vector<int64_t> sizes, in_strides, out_strides;  // of the other dims
  int64_t count = 1;
  Lines(const Tensor& in, const Tensor& out, int64_t dim) {
    for (int64_t d = 0; d < in.dim(); ++d) {
      if (d == dim) continue;
      sizes.push_back(in.size(d));
      in_strides.push_back(in.stride(d));
      out_strides.push_back(out.stride(d));
      count *= in.size(d);
    }
  }
  std::pair<int64_t, int64_t> offsets(int64_t i) const {
    int64_t a = 0, b = 0;
    for (size_t d = sizes.size(); d-- > 0;) {
      const int64_t j = i % sizes[d];
      i /= sizes[d];
      a += j * in_strides[d];
      b += j * out_strides[d];
    }
    return {a, b};
  }
};

/// Runs line(plan, begin, end) over the lines in parallel, each task with a plan it may use (a private copy
/// when KissFFT's generic butterfly would write into a shared one). n: the line length, for the grain.
template <class V, class F>
void for_lines(const Lines& lines, int64_t n, const std::shared_ptr<const Plan<V>>& plan, F&& body) {
  const int64_t grain = std::max<int64_t>(1, kGrainSize / (8 * std::max<int64_t>(n, 1)));
  const bool copy = plan && needs_private_plan(n);
  parallel_for(lines.count, grain, [&](int64_t begin, int64_t end) {
    if (copy) {
      const Plan<V> own = *plan;
      body(own, begin, end);
    } else {
      body(*plan, begin, end);
    }
  });
}

template <class V>
V scale_of(int64_t normalization, int64_t signal_numel) {
  switch (normalization) {
    case 0: return V(1);
    case 1: return static_cast<V>(1.0 / std::sqrt(static_cast<double>(signal_numel)));
    case 2: return static_cast<V>(1.0 / static_cast<double>(signal_numel));
  }
  EMBER_FAIL("fft: invalid normalization {} (0: none, 1: by 1/sqrt(n), 2: by 1/n)", normalization);
}

/// One c2c step along dim: out (new, contiguous) = the 1-D transform of each line of in, times scale.
template <class V>
Tensor c2c_step(const Tensor& in, int64_t dim, bool forward, V scale) {
  using C = std::complex<V>;
  Tensor out = make_empty(in.sizes(), in.dtype());
  const int64_t n = in.size(dim);
  if (out.numel() == 0) return out;
  const Lines lines(in, out, dim);
  const C* src = in.data_ptr<C>();
  C* dst = out.data_ptr<C>();
  const int64_t is = in.stride(dim), os = out.stride(dim);
  if (n == 1) {
    for (int64_t i = 0; i < lines.count; ++i) {
      const auto [a, b] = lines.offsets(i);
      dst[b] = src[a] * scale;
    }
    return out;
  }
  for_lines<V>(lines, n, plan_for<V>(n, !forward), [&](const Plan<V>& plan, int64_t begin, int64_t end) {
    std::vector<C> buf(os == 1 ? 0 : static_cast<size_t>(n));
    for (int64_t i = begin; i < end; ++i) {
      int64_t a, b;
      std::tie(a, b) = lines.offsets(i);
      C* o = os == 1 ? dst + b : buf.data();
      plan.fft.transform(src + a, o, 0, 1, static_cast<size_t>(is));
      if (os == 1 && scale == V(1)) continue;
      for (int64_t k = 0; k < n; ++k) dst[b + k * os] = o[k] * scale;
    }
  });
  return out;
}

/// One r2c step along dim of a real in: out (new, contiguous, complex) holds the n/2 + 1 non-redundant outputs
/// of each line (onesided) or all n of them, times scale. See Note [fft kernels].
template <class V>
Tensor r2c_step(const Tensor& in, int64_t dim, bool onesided, V scale) {
  using C = std::complex<V>;
  const int64_t n = in.size(dim), half = n / 2 + 1;
  std::vector<int64_t> sizes(in.sizes().begin(), in.sizes().end());
  sizes[static_cast<size_t>(dim)] = onesided ? half : n;
  Tensor out = make_empty(sizes, to_complex_dtype(in.dtype()));
  if (out.numel() == 0) return out;
  const Lines lines(in, out, dim);
  const V* src = in.data_ptr<V>();
  C* dst = out.data_ptr<C>();
  const int64_t is = in.stride(dim), os = out.stride(dim);
  const bool packed = n % 2 == 0 && n >= 4;
  for_lines<V>(lines, n, plan_for<V>(packed ? n / 2 : n, false), [&](const Plan<V>& plan, int64_t begin, int64_t end) {
    std::vector<V> real(static_cast<size_t>(n));
    std::vector<C> cin(packed ? 0 : static_cast<size_t>(n)), spec(static_cast<size_t>(n));
    for (int64_t i = begin; i < end; ++i) {
      int64_t a, b;
      std::tie(a, b) = lines.offsets(i);
      if (packed) {
        const V* line = src + a;
        if (is != 1) {
          for (int64_t k = 0; k < n; ++k) real[static_cast<size_t>(k)] = src[a + k * is];
          line = real.data();
        }
        plan.fft.transform_real(line, spec.data());  // spec[0] = (X[0], X[n/2]), spec[1 .. n/2 - 1] = X[k]
        const V nyquist = spec[0].imag();
        spec[0] = C(spec[0].real(), 0);
        spec[static_cast<size_t>(n / 2)] = C(nyquist, 0);
      } else if (n == 1) {
        spec[0] = C(src[a], 0);
      } else {
        for (int64_t k = 0; k < n; ++k) cin[static_cast<size_t>(k)] = C(src[a + k * is], 0);
        plan.fft.transform(cin.data(), spec.data());
      }
      for (int64_t k = 0; k < half; ++k) dst[b + k * os] = spec[static_cast<size_t>(k)] * scale;
      if (!onesided)
        for (int64_t k = half; k < n; ++k) dst[b + k * os] = std::conj(spec[static_cast<size_t>(n - k)]) * scale;
    }
  });
  return out;
}

/// One c2r step along dim of a complex in (the onesided half of Hermitian lines; entries beyond n/2 + 1 are not
/// read, missing ones are zeros): out (new, contiguous, real) holds n real outputs per line, times scale.
template <class V>
Tensor c2r_step(const Tensor& in, int64_t dim, int64_t n, V scale) {
  using C = std::complex<V>;
  std::vector<int64_t> sizes(in.sizes().begin(), in.sizes().end());
  sizes[static_cast<size_t>(dim)] = n;
  Tensor out = make_empty(sizes, to_real_dtype(in.dtype()));
  if (out.numel() == 0) return out;
  const Lines lines(in, out, dim);
  const C* src = in.data_ptr<C>();
  V* dst = out.data_ptr<V>();
  const int64_t is = in.stride(dim), os = out.stride(dim);
  const int64_t have = std::min(in.size(dim), n / 2 + 1);
  const bool packed = n % 2 == 0 && n >= 4;
  const int64_t m = packed ? n / 2 : n;
  for_lines<V>(lines, n, plan_for<V>(m, true), [&](const Plan<V>& plan, int64_t begin, int64_t end) {
    std::vector<C> x(static_cast<size_t>(n / 2 + 1)), z(static_cast<size_t>(m)), y(static_cast<size_t>(m));
    for (int64_t i = begin; i < end; ++i) {
      int64_t a, b;
      std::tie(a, b) = lines.offsets(i);
      std::fill(x.begin(), x.end(), C(0));
      for (int64_t k = 0; k < have; ++k) x[static_cast<size_t>(k)] = src[a + k * is];
      x[0] = C(x[0].real(), 0);
      if (n % 2 == 0) x[static_cast<size_t>(n / 2)] = C(x[static_cast<size_t>(n / 2)].real(), 0);
      if (n == 1) {
        dst[b] = x[0].real() * scale;
        continue;
      }
      if (packed) {
        for (int64_t k = 0; k < m; ++k) {
          const C p = x[static_cast<size_t>(k)], q = std::conj(x[static_cast<size_t>(m - k)]);
          z[static_cast<size_t>(k)] = (p + q) + C(0, 1) * (p - q) * plan.half_turn[static_cast<size_t>(k)];
        }
        plan.fft.transform(z.data(), y.data());
        for (int64_t k = 0; k < m; ++k) {
          dst[b + 2 * k * os] = y[static_cast<size_t>(k)].real() * scale;
          dst[b + (2 * k + 1) * os] = y[static_cast<size_t>(k)].imag() * scale;
        }
      } else {
        for (int64_t k = 0; k < n; ++k)
          z[static_cast<size_t>(k)] = k <= n / 2 ? x[static_cast<size_t>(k)] : std::conj(x[static_cast<size_t>(n - k)]);
        plan.fft.transform(z.data(), y.data());
        for (int64_t k = 0; k < n; ++k) dst[b + k * os] = y[static_cast<size_t>(k)].real() * scale;
      }
    }
  });
  return out;
}

/// dims wrapped into [0, ndim) (IndexError out of range) and checked unique.
std::vector<int64_t> wrap_dims(const char* op, IntArrayRef dim, int64_t ndim) {
  std::vector<int64_t> dims;
  for (int64_t d : dim) dims.push_back(wrap_dim(d, ndim));
  std::vector<int64_t> sorted = dims;
  std::sort(sorted.begin(), sorted.end());
  EMBER_CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(), "{}: FFT dims must be unique, got {}",
              op, dim);
  return dims;
}

/// Calls f.template operator()<V>() with V float for float32/complex64, double for float64/complex128.
template <class F>
void dispatch_fft(const char* op, DType dtype, F&& f) {
  if (dtype == kFloat32 || dtype == kComplexFloat) return f.template operator()<float>();
  if (dtype == kFloat64 || dtype == kComplexDouble) return f.template operator()<double>();
  EMBER_FAIL("{}: Unsupported dtype {}", op, linalg::scalar_type_name(dtype));
}

}  // namespace

Tensor _fft_c2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool forward) {
  EMBER_CHECK(self.is_complex(), "_fft_c2c: expected a complex input tensor, but got {}",
              linalg::scalar_type_name(self.dtype()));
  EMBER_CHECK(self.dim() >= 1, "_fft_c2c: ndim must be >= 1");
  const std::vector<int64_t> dims = wrap_dims("_fft_c2c", dim, self.dim());
  if (dims.empty()) return self.clone();
  int64_t signal = 1;
  for (int64_t d : dims) signal *= self.size(d);
  Tensor x = self;
  dispatch_fft("_fft_c2c", self.dtype(), [&]<class V>() {
    for (size_t i = 0; i < dims.size(); ++i)
      x = c2c_step<V>(x, dims[i], forward, i + 1 == dims.size() ? scale_of<V>(normalization, signal) : V(1));
  });
  return x;
}

Tensor _fft_r2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool onesided) {
  EMBER_CHECK(self.dtype() == kFloat32 || self.dtype() == kFloat64,
              "_fft_r2c: expected a float32 or float64 input tensor, but got {}",
              linalg::scalar_type_name(self.dtype()));
  EMBER_CHECK(self.dim() >= 1, "_fft_r2c: ndim must be >= 1");
  const std::vector<int64_t> dims = wrap_dims("_fft_r2c", dim, self.dim());
  EMBER_CHECK(!dims.empty(), "_fft_r2c must transform at least one axis");
  int64_t signal = 1;
  for (int64_t d : dims) signal *= self.size(d);
  Tensor x;
  dispatch_fft("_fft_r2c", self.dtype(), [&]<class V>() {
    const V scale = scale_of<V>(normalization, signal);
    x = r2c_step<V>(self, dims.back(), onesided, dims.size() == 1 ? scale : V(1));
    for (size_t i = 0; i + 1 < dims.size(); ++i)
      x = c2c_step<V>(x, dims[i], /*forward=*/true, i + 2 == dims.size() ? scale : V(1));
  });
  return x;
}

Tensor _fft_c2r(const Tensor& self, IntArrayRef dim, int64_t normalization, int64_t last_dim_size) {
  EMBER_CHECK(self.is_complex(), "_fft_c2r: expected a complex input tensor, but got {}",
              linalg::scalar_type_name(self.dtype()));
  EMBER_CHECK(self.dim() >= 1, "_fft_c2r: ndim must be >= 1");
  EMBER_CHECK(last_dim_size >= 0, "Invalid number of data points ({}) specified", last_dim_size);
  const std::vector<int64_t> dims = wrap_dims("_fft_c2r", dim, self.dim());
  EMBER_CHECK(!dims.empty(), "_fft_c2r must transform at least one axis");
  int64_t signal = last_dim_size;
  for (size_t i = 0; i + 1 < dims.size(); ++i) signal *= self.size(dims[i]);
  Tensor x = self;
  dispatch_fft("_fft_c2r", self.dtype(), [&]<class V>() {
    for (size_t i = 0; i + 1 < dims.size(); ++i) x = c2c_step<V>(x, dims[i], /*forward=*/false, V(1));
    x = c2r_step<V>(x, dims.back(), last_dim_size, scale_of<V>(normalization, signal));
  });
  return x;
}

}  // namespace ember::cpu
