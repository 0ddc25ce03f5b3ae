// Kernels that create or fill memory: empty, empty_strided, fill_, arange, linspace, logspace, eye.
#include <cmath>

#include "ember/kernels/cpu/Dispatch.h"
#include "ember/kernels/cpu/Loops.h"
#include "ember/kernels/cpu/generated/CPUKernels.h"

namespace ember::cpu {

namespace {
void check_cpu(std::optional<Device> device, const char* op) {
  EMBER_CHECK(!device || device->is_cpu(), "{}: device '{}' is not available; this build supports only cpu", op,
              device ? device->str() : "");
}
}  // namespace

Tensor empty(IntArrayRef size, std::optional<DType> dtype, std::optional<Device> device,
             std::optional<MemoryFormat> memory_format) {
  check_cpu(device, "empty");
  // As PyTorch's: a new tensor has no layout of its own to preserve.
  EMBER_CHECK(memory_format != MemoryFormat::Preserve, "empty: unsupported memory format Preserve");
  if (memory_format.value_or(MemoryFormat::Contiguous) == MemoryFormat::Contiguous)
    return make_empty(size, dtype.value_or(default_dtype()));
  return cpu::empty_strided(size, strides_for_memory_format(size, *memory_format), dtype, device);
}

Tensor empty_strided(IntArrayRef size, IntArrayRef stride, std::optional<DType> dtype, std::optional<Device> device) {
  check_cpu(device, "empty_strided");
  EMBER_CHECK(size.size() == stride.size(), "empty_strided: mismatch in length of strides and shape ({} vs {})",
              stride.size(), size.size());
  DType dt = dtype.value_or(default_dtype());
  int64_t n = checked_numel(size);
  // Elements reached, in checked arithmetic: huge strides must not wrap around to a small allocation.
  int64_t extent = 0, nbytes = 0;
  bool overflow = false;
  if (n > 0) {
    for (size_t i = 0; i < size.size(); ++i) {
      EMBER_CHECK(stride[i] >= 0, "empty_strided: negative strides are not supported, got {}", stride);
      int64_t reach = 0;
      overflow = overflow || __builtin_mul_overflow(size[i] - 1, stride[i], &reach) ||
                 __builtin_add_overflow(extent, reach, &extent);
    }
    overflow = overflow || __builtin_add_overflow(extent, 1, &extent);
  }
  overflow = overflow || __builtin_mul_overflow(extent, element_size(dt), &nbytes);
  EMBER_CHECK(!overflow, "empty_strided: sizes {} with strides {} need more than 2^63 bytes", size, stride);
  auto storage = make_intrusive<StorageImpl>(static_cast<size_t>(nbytes));
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), dt, size, stride, 0));
}

namespace {
// The value converted to T. Errors: a value out of T's range, as PyTorch's checked_convert ("value cannot be
// converted to type T without overflow"; see overflows() in ember/core/Scalar.h).
template <class T>
T checked_convert(const Scalar& v, DType dt) {
  EMBER_CHECK(!overflows(v, dt), "value cannot be converted to type {} without overflow", dt);
  if constexpr (std::is_same_v<T, bool> || std::is_floating_point_v<T> || is_complex_v<T>) {
    return v.to<T>();
  } else if constexpr (std::is_integral_v<T>) {
    // Negative integers wrap into unsigned types (two's complement), as PyTorch.
    return v.is_floating_point() || v.is_complex() ? v.to<T>() : static_cast<T>(v.to_long());
  } else {
    return static_cast<T>(static_cast<opmath_t<T>>(v.to_double()));
  }
}
}  // namespace

Tensor fill_(const Tensor& self, const Scalar& value) {
  EMBER_CHECK(self.impl()->storage()->writable(), "fill_: the tensor is read-only");
  IterConfig cfg;
  cfg.name = "fill_";
  cfg.is_inplace = true;
  cfg.check_mem_overlap = false;  // one value for every element: an expanded tensor is fine (Note [memory overlap])
  TensorIterator it(cfg, self, {});
  dispatch_dtypes<kAllAndComplex>(self.dtype(), "fill_", [&]<class T>() {
    const T v = checked_convert<T>(value, self.dtype());
    it.for_each([v](char** d, const int64_t* s, int64_t n) {
      if (s[0] == sizeof(T)) {
        T* p = reinterpret_cast<T*>(d[0]);
        for (int64_t i = 0; i < n; ++i) p[i] = v;
      } else {
        for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(d[0] + i * s[0]) = v;
      }
    });
  });
  return it.finish();
}

// Note [integral ranges]
// As PyTorch (RangeFactories.cpp): for an integral dtype the bounds and the step are first converted to int64,
// the accumulate type, truncating toward zero (so arange(0, 5, 0.5, dtype=int32) has step 0 and raises, and
// arange(0.5, 3.7, dtype=int64) is [0, 1, 2]); the checks and the values (start + i * step, wrapping into the
// dtype) use the converted numbers. The size is ceil((end - start) / step) of the numbers as given, except
// for int64, which uses the converted ones. Floating dtypes compute in double.
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, std::optional<DType> dtype,
              std::optional<Device> device) {
  check_cpu(device, "arange");
  bool any_float = start.is_floating_point() || end.is_floating_point() || step.is_floating_point();
  DType dt = dtype ? *dtype : any_float ? default_dtype() : kInt64;
  double s = start.to_double(), e = end.to_double(), st = step.to_double();
  EMBER_CHECK(std::isfinite(s) && std::isfinite(e), "arange: unsupported range: {} -> {}", s, e);
  const bool integral = is_integral(dt, false);
  // The int64 values of the arguments (truncated); doubles outside int64's range cannot be converted.
  auto to_int = [&](const Scalar& v) {
    EMBER_CHECK(!overflows(v, kInt64), "arange: unsupported range: {} -> {}", s, e);
    return v.to_long();
  };
  const int64_t si = integral ? to_int(start) : 0, ei = integral ? to_int(end) : 0, sti = integral ? to_int(step) : 0;
  EMBER_CHECK(integral ? sti != 0 : st != 0, "arange: step must be nonzero");
  EMBER_CHECK(integral ? (sti > 0 && ei >= si) || (sti < 0 && ei <= si) : (st > 0 && e >= s) || (st < 0 && e <= s),
              "arange: upper bound and larger bound inconsistent with step sign");
  double n_d;
  if (integral && !any_float) {  // exact integer arithmetic for integer arguments
    n_d = static_cast<double>((ei - si + sti - (sti > 0 ? 1 : -1)) / sti);
  } else if (dt == kInt64) {
    n_d = std::ceil(static_cast<double>(ei - si) / static_cast<double>(sti));
  } else {
    n_d = std::ceil((e - s) / st);
  }
  EMBER_CHECK(n_d >= 0 && n_d <= static_cast<double>(std::numeric_limits<int64_t>::max()),
              "arange: invalid size, possible overflow?");
  int64_t n = static_cast<int64_t>(n_d);
  Tensor out = make_empty({n}, dt);
  dispatch_dtypes<kNumericTypes>(dt, "arange", [&]<class T>() {
    T* p = out.data_ptr<T>();
    if constexpr (std::is_integral_v<T>) {
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(si + sti * i);  // int64 -> T wraps
    } else {
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(s + st * static_cast<double>(i));
    }
  });
  return out;
}

namespace {
// Evenly spaced points from both ends towards the middle (PyTorch's linspace): the first half counts up from
// start, the second half counts down from end, so both ends are exact.
template <class T, class F>
void fill_spaced(T* p, int64_t steps, double start, double end, F&& map) {
  using S = std::conditional_t<std::is_integral_v<T>, double, opmath_t<T>>;
  if (steps == 1) {
    p[0] = static_cast<T>(map(static_cast<S>(start)));
    return;
  }
  const S s = static_cast<S>(start), e = static_cast<S>(end);
  const S step = (e - s) / static_cast<S>(steps - 1);
  const int64_t half = steps / 2;
  for (int64_t i = 0; i < steps; ++i)
    p[i] = static_cast<T>(map(i < half ? s + step * static_cast<S>(i) : e - step * static_cast<S>(steps - i - 1)));
}
}  // namespace

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, std::optional<DType> dtype,
                std::optional<Device> device) {
  check_cpu(device, "linspace");
  EMBER_CHECK(steps >= 0, "linspace: number of steps must be non-negative");
  DType dt = dtype.value_or(default_dtype());
  Tensor out = make_empty({steps}, dt);
  if (steps == 0) return out;
  if (steps == 1) return out.fill_(start);  // end is not looked at, as PyTorch
  // start and end are converted to the dtype first (checked; truncated for integers), as PyTorch.
  // Note [linspace of integers]: the values are start + i * step (first half) and end - (steps - 1 - i) * step
  // (second half) in double, truncated, with step = (end - start) / (steps - 1) — PyTorch's scalar loop.
  // PyTorch 1.13 also had a vectorized loop for integers that could be off by one in the second half (it was
  // removed later for that imprecision); Ember follows the scalar loop.
  dispatch_dtypes<kNumericTypes>(dt, "linspace", [&]<class T>() {
    const double s = static_cast<double>(static_cast<opmath_t<T>>(checked_convert<T>(start, dt)));
    const double e = static_cast<double>(static_cast<opmath_t<T>>(checked_convert<T>(end, dt)));
    fill_spaced(out.data_ptr<T>(), steps, s, e, [](auto x) { return x; });
  });
  return out;
}

Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base, std::optional<DType> dtype,
                std::optional<Device> device) {
  check_cpu(device, "logspace");
  EMBER_CHECK(steps >= 0, "logspace: number of steps must be non-negative");
  DType dt = dtype.value_or(default_dtype());
  Tensor out = make_empty({steps}, dt);
  if (steps == 0) return out;
  // One step is base ** start of the number as given, converted (checked) to the dtype, as PyTorch.
  if (steps == 1) return out.fill_(std::pow(base, start.to_double()));
  // start and end are converted to the dtype first (checked; truncated for integers), as PyTorch.
  dispatch_dtypes<kNumericTypes>(dt, "logspace", [&]<class T>() {
    const double s = static_cast<double>(static_cast<opmath_t<T>>(checked_convert<T>(start, dt)));
    const double e = static_cast<double>(static_cast<opmath_t<T>>(checked_convert<T>(end, dt)));
    fill_spaced(out.data_ptr<T>(), steps, s, e, [base](auto x) {
      using S = decltype(x);
      return std::pow(static_cast<S>(base), x);
    });
  });
  return out;
}

Tensor eye(int64_t n, int64_t m, std::optional<DType> dtype, std::optional<Device> device) {
  check_cpu(device, "eye");
  EMBER_CHECK(n >= 0, "eye: n must be greater or equal to 0, got {}", n);
  EMBER_CHECK(m >= 0, "eye: m must be greater or equal to 0, got {}", m);
  Tensor out = ember::zeros({n, m}, dtype.value_or(default_dtype()));
  Tensor d = out.diagonal();
  d.fill_(1);
  return out;
}

}  // namespace ember::cpu
