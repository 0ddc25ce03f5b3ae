// kaiser_window's values (the other windows are composites in ember/ops/windows.cpp).
#include <cmath>

#include "ember/kernels/cpu/Dispatch.h"
#include "ember/kernels/cpu/generated/CPUKernels.h"

namespace ember::cpu {

namespace {

// The modified Bessel function of the first kind of order 0 for x >= 0, from its power series
// sum_k ((x / 2)^k / k!)^2, summed in double until the terms no longer change the sum.
double bessel_i0(double x) {
  const double q = 0.25 * x * x;
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 100000; ++k) {
    term *= q / (static_cast<double>(k) * static_cast<double>(k));
    const double next = sum + term;
    if (next == sum) break;
    sum = next;
  }
  return sum;
}

}  // namespace

// PyTorch's kaiser_window: I0(beta sqrt(1 - ((n - a) / a)^2)) / I0(beta) with a = (N - 1) / 2, N the length
// (plus one when periodic, the last point then dropped). Ember sums I0's series in double and rounds the ratio
// once; PyTorch evaluates Cephes' Chebyshev expansion of I0 in float for float32 (the results agree to an ulp
// or two).
Tensor kaiser_window(int64_t window_length, bool periodic, double beta, std::optional<DType> dtype,
                     std::optional<Device> device) {
  EMBER_CHECK(!device || device->is_cpu(), "kaiser_window: device '{}' is not available; this build supports only cpu",
              device ? device->str() : "");
  const DType dt = dtype.value_or(default_dtype());
  EMBER_CHECK(is_floating_point(dt), "kaiser_window expects floating point dtypes, got: {}", dt);
  EMBER_CHECK(window_length >= 0, "kaiser_window requires non-negative window_length, got window_length={}",
              window_length);
  if (window_length == 0) return make_empty({0}, dt);
  const int64_t n = periodic ? window_length + 1 : window_length;
  Tensor w = make_empty({n}, dt);
  dispatch_dtypes<kFloatingTypes>(dt, "kaiser_window", [&]<class T>() {
    T* out = w.data_ptr<T>();
    if (window_length == 1) {
      out[0] = T(1.0f);
      return;
    }
    const double a = static_cast<double>(n - 1) / 2.0;
    const double denom = bessel_i0(std::fabs(beta));
    for (int64_t i = 0; i < n; ++i) {
      const double r = (static_cast<double>(i) - a) / a;
      const double v = bessel_i0(std::fabs(beta * std::sqrt(1.0 - r * r))) / denom;
      if constexpr (std::is_same_v<T, double>) out[i] = v;
      else out[i] = T(static_cast<float>(v));
    }
  });
  if (window_length == 1) return w.narrow(0, 0, 1);
  return periodic ? w.narrow(0, 0, window_length) : w;
}

}  // namespace ember::cpu
