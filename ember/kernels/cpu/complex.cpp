// Elementwise kernels of the complex-number ops (Note [complex numbers] in ember/core/DType.h): conj_physical,
// sgn, angle and complex(real, imag). See Note [elementwise loops].
#include <cmath>
#include <complex>
#include <numbers>

#include "ember/kernels/cpu/Dispatch.h"
#include "ember/kernels/cpu/ElementwiseOps.h"
#include "ember/kernels/cpu/Loops.h"
#include "ember/kernels/cpu/generated/CPUKernels.h"
#include "ember/ops/linalg.h"

namespace ember::cpu {

namespace {

IterConfig config(const char* name, bool inplace) {
  IterConfig c;
  c.name = name;
  c.is_inplace = inplace;
  return c;
}

// ---- conj_physical: the conjugate of a complex tensor, a copy of a real one.
Tensor conj_physical_impl(const char* name, const Tensor& self, const Tensor& out, bool inplace) {
  if (inplace && !self.is_complex()) return self;  // nothing to write (PyTorch checks nothing either)
  IterConfig cfg = config(name, inplace);
  cfg.same_dtype_out = true;
  TensorIterator it(cfg, out, {self});
  dispatch_dtypes<kAllAndComplex>(it.common_dtype(), name, [&]<class T>() {
    it.for_each([](char** d, const int64_t* s, int64_t n) {
      unary_loop<T, T>(d, s, n, [](T x) {
        if constexpr (is_complex_v<T>) return std::conj(x);
        else return x;
      });
    });
  });
  return it.finish();
}

// ---- sgn: x / |x| (0 at 0) for complex x; sign(x) for real x.
template <class T>
T sgn_of(T x) {
  if constexpr (is_complex_v<T>) {
    using V = typename T::value_type;
    const V a = std::abs(x);
    return a == V(0) ? T(0) : ops::complex_div(x, T(a, 0));  // Note [complex arithmetic]: inf parts give NaN
  } else if constexpr (std::is_same_v<T, bool>) {
    return x;
  } else {
    using M = opmath_t<T>;
    const M v = static_cast<M>(x);
    return static_cast<T>((M(0) < v) - (v < M(0)));
  }
}

Tensor sgn_impl(const char* name, const Tensor& self, const Tensor& out, bool inplace) {
  IterConfig cfg = config(name, inplace);
  cfg.same_dtype_out = true;
  TensorIterator it(cfg, out, {self});
  dispatch_dtypes<kAllAndComplex>(it.common_dtype(), name, [&]<class T>() {
    it.for_each([](char** d, const int64_t* s, int64_t n) {
      unary_loop<T, T>(d, s, n, [](T x) { return sgn_of(x); });
    });
  });
  return it.finish();
}

// ---- angle: arg(x) in the real dtype for complex x; for real x 0 (x >= 0), pi (x < 0), NaN for NaN; integral
// and bool inputs give the default dtype.
Tensor angle_impl(const Tensor& self, const Tensor& out) {
  IterConfig cfg = config("angle", false);
  const DType in = self.dtype();
  const bool cplx = is_complex(in);
  cfg.promote_inputs = false;
  cfg.compute_dtype = cplx || is_floating_point(in) ? in : default_dtype();
  cfg.output_dtype = cplx ? to_real_dtype(in) : *cfg.compute_dtype;
  const Tensor x = cplx || is_floating_point(in) ? self : self.to(*cfg.compute_dtype);
  TensorIterator it(cfg, out, {x});
  dispatch_dtypes<kFloatingAndComplex>(*cfg.compute_dtype, "angle", [&]<class T>() {
    if constexpr (is_complex_v<T>) {
      using V = typename T::value_type;
      it.for_each([](char** d, const int64_t* s, int64_t n) {
        unary_loop<V, T>(d, s, n, [](T v) { return std::arg(v); });
      });
    } else {
      using M = opmath_t<T>;
      it.for_each([](char** d, const int64_t* s, int64_t n) {
        unary_loop<T, T>(d, s, n, [](T v) {
          const M x = static_cast<M>(v);
          return static_cast<T>(std::isnan(x) ? x : x < M(0) ? std::numbers::pi_v<M> : M(0));
        });
      });
    }
  });
  return it.finish();
}

// ---- complex(real, imag): both float32 or both float64 (PyTorch's checks and messages), broadcast.
Tensor complex_impl(const Tensor& re, const Tensor& im, const Tensor& out) {
  const DType a = re.dtype(), b = im.dtype();
  EMBER_CHECK((a == kFloat32 || a == kFloat64) && (b == kFloat32 || b == kFloat64),
              "Expected both inputs to be Float or Double tensors but got {} and {}", linalg::scalar_type_name(a),
              linalg::scalar_type_name(b));
  EMBER_CHECK(a == b, "Expected object of scalar type {} but got scalar type {} for second argument",
              linalg::scalar_type_name(a), linalg::scalar_type_name(b));
  IterConfig cfg = config("complex", false);
  cfg.promote_inputs = false;
  cfg.compute_dtype = a;
  cfg.output_dtype = to_complex_dtype(a);
  TensorIterator it(cfg, out, {re, im});
  dispatch_dtypes<dtype_bit(kFloat32) | dtype_bit(kFloat64)>(a, "complex", [&]<class T>() {
    it.for_each([](char** d, const int64_t* s, int64_t n) {
      binary_loop<std::complex<T>, T>(d, s, n, [](T x, T y) { return std::complex<T>(x, y); });
    });
  });
  return it.finish();
}

}  // namespace

Tensor conj_physical(const Tensor& self) { return conj_physical_impl("conj_physical", self, {}, false); }
Tensor conj_physical_(const Tensor& self) { return conj_physical_impl("conj_physical_", self, self, true); }
Tensor conj_physical_out(const Tensor& self, const Tensor& out) {
  return conj_physical_impl("conj_physical", self, out, false);
}
Tensor sgn(const Tensor& self) { return sgn_impl("sgn", self, {}, false); }
Tensor sgn_(const Tensor& self) { return sgn_impl("sgn_", self, self, true); }
Tensor sgn_out(const Tensor& self, const Tensor& out) { return sgn_impl("sgn", self, out, false); }
Tensor angle(const Tensor& self) { return angle_impl(self, {}); }
Tensor angle_out(const Tensor& self, const Tensor& out) { return angle_impl(self, out); }
Tensor complex(const Tensor& real, const Tensor& imag) { return complex_impl(real, imag, {}); }
Tensor complex_out(const Tensor& real, const Tensor& imag, const Tensor& out) { return complex_impl(real, imag, out); }

}  // namespace ember::cpu
