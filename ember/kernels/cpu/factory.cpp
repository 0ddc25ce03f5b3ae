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

Tensor empty(IntArrayRef size, std::optional<DType> dtype, std::optional<Device> device, std::optional<MemoryFormat>) {
  check_cpu(device, "empty");
  return make_empty(size, dtype.value_or(default_dtype()));
}

Tensor empty_strided(IntArrayRef size, IntArrayRef stride, std::optional<DType> dtype, std::optional<Device> device) {
  check_cpu(device, "empty_strided");
  EMBER_CHECK(size.size() == stride.size(), "empty_strided: mismatch in length of strides and shape ({} vs {})",
              stride.size(), size.size());
  DType dt = dtype.value_or(default_dtype());
  int64_t n = checked_numel(size);
  int64_t extent = 0;
  if (n > 0) {
    for (size_t i = 0; i < size.size(); ++i) {
      EMBER_CHECK(stride[i] >= 0, "empty_strided: negative strides are not supported, got {}", stride);
      extent += (size[i] - 1) * stride[i];
    }
    extent += 1;
  }
  auto storage = make_intrusive<StorageImpl>(static_cast<size_t>(extent * element_size(dt)));
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), dt, size, stride, 0));
}

namespace {
// The value converted to T. Errors: a value out of an integral T's range (for an unsigned T, integers from -max
// up wrap; a floating value also when it is NaN, infinite or has a fraction beyond the range, as
// c10::checked_convert), or a finite value beyond a float type's range ("value cannot be converted to type T
// without overflow", as PyTorch).
template <class T>
T checked_convert(const Scalar& v, DType dt) {
  if constexpr (std::is_same_v<T, bool>) {
    return v.to<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    if (v.is_integral()) {
      int64_t x = v.to_long();
      constexpr int64_t hi = sizeof(T) == 8 ? std::numeric_limits<int64_t>::max()
                                            : static_cast<int64_t>(std::numeric_limits<T>::max());
      // Negative integers wrap into an unsigned type down to -max (uint8: -1 is 255), as c10::overflows
      // allows so that a - b can be computed as a + 255 * b.
      constexpr int64_t lo = std::is_unsigned_v<T> ? -hi : static_cast<int64_t>(std::numeric_limits<T>::lowest());
      EMBER_CHECK(x >= lo && x <= hi, "value cannot be converted to type {} without overflow", dt);
    } else {
      // Converting an out-of-range double to an integer is undefined behaviour in C++: check first. 2^63 is
      // the first double above int64's range (int64's max itself is not a double).
      double x = v.to_double();
      constexpr double lo = static_cast<double>(std::numeric_limits<T>::lowest());
      bool in_range = sizeof(T) == 8 ? x >= lo && x < 9223372036854775808.0
                                     : x >= lo && x <= static_cast<double>(std::numeric_limits<T>::max());
      EMBER_CHECK(in_range, "value cannot be converted to type {} without overflow", dt);  // NaN fails too
    }
    return v.to<T>();
  } else {
    double x = v.to_double();
    using M = opmath_t<T>;
    double hi = static_cast<double>(static_cast<M>(std::numeric_limits<T>::max()));
    constexpr bool is_double = std::is_same_v<T, double>;
    bool fits = !std::isfinite(x) || is_double || std::abs(x) <= hi * (1 + std::numeric_limits<M>::epsilon());
    EMBER_CHECK(fits, "value cannot be converted to type {} without overflow", dt);
    return static_cast<T>(static_cast<M>(x));
  }
}
}  // namespace

Tensor fill_(const Tensor& self, const Scalar& value) {
  EMBER_CHECK(self.impl()->storage()->writable(), "fill_: the tensor is read-only");
  IterConfig cfg;
  cfg.name = "fill_";
  cfg.is_inplace = true;
  TensorIterator it(cfg, self, {});
  dispatch_dtypes<kAllTypes>(self.dtype(), "fill_", [&]<class T>() {
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

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, std::optional<DType> dtype,
              std::optional<Device> device) {
  check_cpu(device, "arange");
  bool any_float = start.is_floating_point() || end.is_floating_point() || step.is_floating_point();
  DType dt = dtype ? *dtype : any_float ? default_dtype() : kInt64;
  double s = start.to_double(), e = end.to_double(), st = step.to_double();
  EMBER_CHECK(std::isfinite(s) && std::isfinite(e), "arange: unsupported range: {} -> {}", s, e);
  EMBER_CHECK(st != 0, "arange: step must be nonzero");
  EMBER_CHECK((st > 0 && e >= s) || (st < 0 && e <= s), "arange: upper bound and larger bound inconsistent with step sign");
  double n_d;
  if (!any_float && !dtype) {  // exact integer arithmetic, as PyTorch does for integer arguments
    int64_t si = start.to_long(), ei = end.to_long(), sti = step.to_long();
    n_d = static_cast<double>((ei - si + sti - (sti > 0 ? 1 : -1)) / sti);
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
      int64_t si = start.to_long(), sti = step.to_long();
      if (start.is_floating_point() || step.is_floating_point()) {
        for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(s + st * static_cast<double>(i));
      } else {
        for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(si + sti * i);
      }
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
  dispatch_dtypes<kNumericTypes>(dt, "linspace", [&]<class T>() {
    fill_spaced(out.data_ptr<T>(), steps, start.to_double(), end.to_double(), [](auto x) { return x; });
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
  dispatch_dtypes<kNumericTypes>(dt, "logspace", [&]<class T>() {
    fill_spaced(out.data_ptr<T>(), steps, start.to_double(), end.to_double(), [base](auto x) {
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
