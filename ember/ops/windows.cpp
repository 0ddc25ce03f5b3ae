// Window functions for spectral analysis (torch.*_window): composites computed with PyTorch's sequence of
// operations in the result's dtype, so float32 windows carry PyTorch's very roundings. kaiser_window's values
// come from the kernel ember/kernels/cpu/kaiser_window.cpp.
#include <numbers>

#include "ember/ops/generated/CompositeKernels.h"

namespace ember::composite {

namespace {

// PyTorch's window_function_checks; returns the result's dtype.
DType window_dtype(const char* op, int64_t window_length, std::optional<DType> dtype, std::optional<Device> device) {
  EMBER_CHECK(!device || device->is_cpu(), "{}: device '{}' is not available; this build supports only cpu", op,
              device ? device->str() : "");
  const DType dt = dtype.value_or(default_dtype());
  EMBER_CHECK(is_floating_point(dt), "{} expects floating point dtypes, got: {}", op, dt);
  EMBER_CHECK(window_length >= 0, "{} requires non-negative window_length, got window_length={}", op, window_length);
  return dt;
}

Tensor number(double v) { return wrapped_scalar_tensor(Scalar(v)); }

// The dtype a window of dt is computed in: float32 for float16 (PyTorch 1.13 has no float16 cos on the CPU, so
// Ember computes the float32 window and rounds it once); the dtype itself otherwise.
DType compute_dtype(DType dt) { return dt == kFloat16 ? kFloat32 : dt; }

// The values 0, 1, ..., n - 1 of a window of n points (n + 1 for a periodic one, whose last is dropped by
// `finish`) in compute_dtype(dt), or the window itself for lengths 0 and 1 (returned in *done).
Tensor window_points(int64_t window_length, bool periodic, DType dt, bool* done) {
  *done = window_length <= 1;
  if (window_length == 0) return ember::empty({0}, dt);
  if (window_length == 1) return ember::ones({1}, dt);
  return ember::arange(Scalar(periodic ? window_length + 1 : window_length), compute_dtype(dt));
}

Tensor finish(const Tensor& window, bool periodic, DType dt) {
  const Tensor w = periodic ? window.narrow(0, 0, window.size(0) - 1) : window;
  return w.dtype() == dt ? w : w.to(dt);
}

}  // namespace

Tensor bartlett_window(int64_t window_length, std::optional<DType> dtype, std::optional<Device> device) {
  return bartlett_window_periodic(window_length, true, dtype, device);
}

Tensor bartlett_window_periodic(int64_t window_length, bool periodic, std::optional<DType> dtype,
                                std::optional<Device> device) {
  const DType dt = window_dtype("bartlett_window", window_length, dtype, device);
  bool done = false;
  Tensor w = window_points(window_length, periodic, dt, &done);
  if (done) return w;
  const int64_t n = w.size(0);
  w.mul_(number(2.0 / static_cast<double>(n - 1)));
  const int64_t first_half = ((n - 1) >> 1) + 1;
  w.narrow(0, first_half, n - first_half).mul_(number(-1.0)).add_(number(2.0));
  return finish(w, periodic, dt);
}

Tensor blackman_window(int64_t window_length, std::optional<DType> dtype, std::optional<Device> device) {
  return blackman_window_periodic(window_length, true, dtype, device);
}

Tensor blackman_window_periodic(int64_t window_length, bool periodic, std::optional<DType> dtype,
                                std::optional<Device> device) {
  const DType dt = window_dtype("blackman_window", window_length, dtype, device);
  bool done = false;
  Tensor w = window_points(window_length, periodic, dt, &done);
  if (done) return w;
  w.mul_(number(std::numbers::pi / static_cast<double>(w.size(0) - 1)));
  const Tensor four = w.mul(number(4.0)).cos_().mul_(number(0.08));
  const Tensor two = w.mul(number(2.0)).cos_().mul_(number(0.5));
  return finish(four.sub(two).add(number(0.42)), periodic, dt);
}

Tensor hamming_window(int64_t window_length, std::optional<DType> dtype, std::optional<Device> device) {
  return hamming_window_periodic_alpha_beta(window_length, true, 0.54, 0.46, dtype, device);
}

Tensor hamming_window_periodic(int64_t window_length, bool periodic, std::optional<DType> dtype,
                               std::optional<Device> device) {
  return hamming_window_periodic_alpha_beta(window_length, periodic, 0.54, 0.46, dtype, device);
}

Tensor hamming_window_periodic_alpha(int64_t window_length, bool periodic, double alpha, std::optional<DType> dtype,
                                     std::optional<Device> device) {
  return hamming_window_periodic_alpha_beta(window_length, periodic, alpha, 0.46, dtype, device);
}

Tensor hamming_window_periodic_alpha_beta(int64_t window_length, bool periodic, double alpha, double beta,
                                          std::optional<DType> dtype, std::optional<Device> device) {
  const DType dt = window_dtype("hamming_window", window_length, dtype, device);
  bool done = false;
  Tensor w = window_points(window_length, periodic, dt, &done);
  if (done) return w;
  w.mul_(number(std::numbers::pi * 2.0 / static_cast<double>(w.size(0) - 1)))
      .cos_()
      .mul_(number(-beta))
      .add_(number(alpha));
  return finish(w, periodic, dt);
}

Tensor hann_window(int64_t window_length, std::optional<DType> dtype, std::optional<Device> device) {
  return hann_window_periodic(window_length, true, dtype, device);
}

Tensor hann_window_periodic(int64_t window_length, bool periodic, std::optional<DType> dtype,
                            std::optional<Device> device) {
  window_dtype("hann_window", window_length, dtype, device);
  return hamming_window_periodic_alpha_beta(window_length, periodic, 0.5, 0.5, dtype, device);
}

Tensor kaiser_window(int64_t window_length, std::optional<DType> dtype, std::optional<Device> device) {
  return ember::kaiser_window(window_length, true, 12.0, dtype, device);
}

Tensor kaiser_window_periodic(int64_t window_length, bool periodic, std::optional<DType> dtype,
                              std::optional<Device> device) {
  return ember::kaiser_window(window_length, periodic, 12.0, dtype, device);
}

}  // namespace ember::composite
