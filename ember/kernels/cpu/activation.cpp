// Activation kernels of the nn ops: hardtanh, leaky_relu, elu, softplus, hardsigmoid, hardswish, hardshrink, mish,
// log_sigmoid, threshold (elementwise, one functor each in ElementwiseOps.h), threshold_backward and glu (a binary loop
// over the two halves of its input). Each has a functional, an in-place (where PyTorch has one) and an out= form; out=
// must have self's dtype, as PyTorch's ("Found dtype Double but expected Float"). See Note [elementwise loops].
#include <limits>

#include "ember/kernels/cpu/Dispatch.h"
#include "ember/kernels/cpu/ElementwiseOps.h"
#include "ember/kernels/cpu/Loops.h"
#include "ember/kernels/cpu/generated/CPUKernels.h"

namespace ember::cpu {

namespace {

// Runs the scalar function make_op.template operator()<M>() (M: the compute type) over self into out
// (undefined: allocate; self: in place), for the dtypes of Mask.
// same_dtype_out: out= must have self's dtype (PyTorch's unstructured activations); else it may be any dtype
// the result can be cast to (the structured ones: threshold, glu).
template <uint32_t Mask, class MakeOp>
Tensor activation(const char* name, const Tensor& self, const Tensor& out, bool inplace, const MakeOp& make_op,
                  bool same_dtype_out = true) {
  IterConfig cfg;
  cfg.name = name;
  cfg.is_inplace = inplace;
  cfg.same_dtype_out = same_dtype_out;
  TensorIterator it(cfg, out, {self});
  dispatch_dtypes<Mask>(it.common_dtype(), name, [&]<class T>() {
    using M = opmath_t<T>;
    const auto op = make_op.template operator()<M>();
    it.for_each([&op](char** d, const int64_t* s, int64_t n) {
      unary_loop<T, T>(d, s, n, [&op](T x) { return static_cast<T>(op(static_cast<M>(x))); });
    });
  });
  return it.finish();
}

// A parameterless functor F of ElementwiseOps.h as a maker for activation().
template <class F>
constexpr auto stateless = []<class M>() { return [](M x) { return F::template f<M>(x); }; };

template <class M>
M as(const Scalar& s) {
  return static_cast<M>(s.to_double());
}

}  // namespace

// ---- hardtanh: clamp without type promotion; integer inputs take the bounds truncated to integers.
namespace {
Tensor hardtanh_impl(const char* name, const Tensor& self, const Scalar& min_val, const Scalar& max_val,
                     const Tensor& out, bool inplace) {
  EMBER_CHECK(self.dtype() != kBool, "{}: Bool inputs not supported for hardtanh", name);
  if (is_integral(self.dtype(), false)) {
    const int64_t lo = min_val.to_long(), hi = max_val.to_long();
    EMBER_CHECK(self.dtype() != kUInt8 || (lo >= 0 && hi >= 0),
                "{}: cannot do hardtanh on an unsigned type with negative limits (min_val={}, max_val={})", name, lo,
                hi);
    return activation<kIntegralTypes>(name, self, out, inplace, [lo, hi]<class M>() {
      return ops::Hardtanh<M>{static_cast<M>(lo), static_cast<M>(hi)};
    });
  }
  return activation<kFloatingTypes>(name, self, out, inplace, [&]<class M>() {
    return ops::Hardtanh<M>{as<M>(min_val), as<M>(max_val)};
  });
}
}  // namespace
Tensor hardtanh(const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  return hardtanh_impl("hardtanh", self, min_val, max_val, {}, false);
}
Tensor hardtanh_(const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  return hardtanh_impl("hardtanh_", self, min_val, max_val, self, true);
}
Tensor hardtanh_out(const Tensor& self, const Scalar& min_val, const Scalar& max_val, const Tensor& out) {
  return hardtanh_impl("hardtanh", self, min_val, max_val, out, false);
}

// ---- the activations with parameters: floating types only.
Tensor leaky_relu(const Tensor& self, const Scalar& negative_slope) {
  return activation<kFloatingTypes>("leaky_relu", self, {}, false,
                                    [&]<class M>() { return ops::LeakyRelu<M>{as<M>(negative_slope)}; });
}
Tensor leaky_relu_(const Tensor& self, const Scalar& negative_slope) {
  return activation<kFloatingTypes>("leaky_relu_", self, self, true,
                                    [&]<class M>() { return ops::LeakyRelu<M>{as<M>(negative_slope)}; });
}
Tensor leaky_relu_out(const Tensor& self, const Scalar& negative_slope, const Tensor& out) {
  return activation<kFloatingTypes>("leaky_relu", self, out, false,
                                    [&]<class M>() { return ops::LeakyRelu<M>{as<M>(negative_slope)}; });
}

namespace {
Tensor elu_impl(const char* name, const Tensor& self, const Scalar& alpha, const Scalar& scale,
                const Scalar& input_scale, const Tensor& out, bool inplace) {
  return activation<kFloatingTypes>(name, self, out, inplace, [&]<class M>() {
    return ops::Elu<M>{static_cast<M>(alpha.to_double() * scale.to_double()), as<M>(scale), as<M>(input_scale)};
  });
}
}  // namespace
Tensor elu(const Tensor& self, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  return elu_impl("elu", self, alpha, scale, input_scale, {}, false);
}
Tensor elu_(const Tensor& self, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  return elu_impl("elu_", self, alpha, scale, input_scale, self, true);
}
Tensor elu_out(const Tensor& self, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale,
               const Tensor& out) {
  return elu_impl("elu", self, alpha, scale, input_scale, out, false);
}

Tensor softplus(const Tensor& self, const Scalar& beta, const Scalar& threshold) {
  return activation<kFloatingTypes>("softplus", self, {}, false,
                                    [&]<class M>() { return ops::Softplus<M>{as<M>(beta), as<M>(threshold)}; });
}
Tensor softplus_out(const Tensor& self, const Scalar& beta, const Scalar& threshold, const Tensor& out) {
  return activation<kFloatingTypes>("softplus", self, out, false,
                                    [&]<class M>() { return ops::Softplus<M>{as<M>(beta), as<M>(threshold)}; });
}

// ---- hardshrink: floating types only, as PyTorch's.
Tensor hardshrink(const Tensor& self, const Scalar& lambd) {
  return activation<kFloatingTypes>("hardshrink", self, {}, false,
                                    [&]<class M>() { return ops::Hardshrink<M>{as<M>(lambd)}; });
}
Tensor hardshrink_out(const Tensor& self, const Scalar& lambd, const Tensor& out) {
  return activation<kFloatingTypes>("hardshrink", self, out, false,
                                    [&]<class M>() { return ops::Hardshrink<M>{as<M>(lambd)}; });
}

// ---- threshold: every type but bool; the parameters are converted to self's type, and must fit an integer
// type's range ("value cannot be converted to type uint8_t without overflow", as PyTorch's checked conversion).
namespace {
template <class M>
M to_integer(const char* name, const Scalar& s, DType dt) {
  const bool fits = s.is_integral()
                        ? s.to_long() >= static_cast<int64_t>(std::numeric_limits<M>::lowest()) &&
                              (sizeof(M) == 8 || s.to_long() <= static_cast<int64_t>(std::numeric_limits<M>::max()))
                        : s.to_double() >= static_cast<double>(std::numeric_limits<M>::lowest()) &&
                              s.to_double() < static_cast<double>(std::numeric_limits<M>::max()) + 1.0;
  EMBER_CHECK(fits, "{}: value {} cannot be converted to type {} without overflow", name, s.to_double(), dt);
  return s.to<M>();
}

Tensor threshold_impl(const char* name, const Tensor& self, const Scalar& threshold, const Scalar& value,
                      const Tensor& out, bool inplace) {
  const DType dt = self.dtype();
  return activation<kNumericTypes>(name, self, out, inplace, [&]<class M>() {
    if constexpr (std::is_floating_point_v<M>) return ops::Threshold<M>{as<M>(threshold), as<M>(value)};
    else return ops::Threshold<M>{to_integer<M>(name, threshold, dt), to_integer<M>(name, value, dt)};
  }, /*same_dtype_out=*/false);
}
}  // namespace
Tensor threshold(const Tensor& self, const Scalar& threshold, const Scalar& value) {
  return threshold_impl("threshold", self, threshold, value, {}, false);
}
Tensor threshold_(const Tensor& self, const Scalar& threshold, const Scalar& value) {
  return threshold_impl("threshold_", self, threshold, value, self, true);
}
Tensor threshold_out(const Tensor& self, const Scalar& threshold, const Scalar& value, const Tensor& out) {
  return threshold_impl("threshold", self, threshold, value, out, false);
}

// ---- threshold_backward: the derivative of threshold and relu, one pass instead of a mask and a where().
Tensor threshold_backward(const Tensor& grad_output, const Tensor& self, const Scalar& threshold) {
  IterConfig cfg;
  cfg.name = "threshold_backward";
  TensorIterator it(cfg, {}, {grad_output, self});
  dispatch_dtypes<kNumericTypes>(it.common_dtype(), cfg.name, [&]<class T>() {
    using M = opmath_t<T>;
    const M th = as<M>(threshold);
    it.for_each([th](char** dp, const int64_t* s, int64_t len) {
      // `x <= th` is false for NaN: the gradient passes there, as PyTorch's.
      binary_loop<T, T>(dp, s, len, [th](T g, T x) { return static_cast<M>(x) <= th ? T(0) : g; });
    });
  });
  return it.finish();
}

// ---- the parameterless ones, with functional, in-place and out= forms: X(name, functor)
#define EMBER_ACTIVATION_OPS(X) \
  X(hardsigmoid, Hardsigmoid)   \
  X(hardswish, Hardswish)       \
  X(mish, Mish)

#define EMBER_DEFINE_ACTIVATION(name, F)                                                                  \
  Tensor name(const Tensor& self) { return activation<kFloatingTypes>(#name, self, {}, false, stateless<ops::F>); } \
  Tensor name##_(const Tensor& self) {                                                                    \
    return activation<kFloatingTypes>(#name "_", self, self, true, stateless<ops::F>);                    \
  }                                                                                                       \
  Tensor name##_out(const Tensor& self, const Tensor& out) {                                              \
    return activation<kFloatingTypes>(#name, self, out, false, stateless<ops::F>);                        \
  }
EMBER_ACTIVATION_OPS(EMBER_DEFINE_ACTIVATION)
#undef EMBER_DEFINE_ACTIVATION

// log_sigmoid has no in-place form in PyTorch.
Tensor log_sigmoid(const Tensor& self) {
  return activation<kFloatingTypes>("log_sigmoid", self, {}, false, stateless<ops::LogSigmoid>);
}
Tensor log_sigmoid_out(const Tensor& self, const Tensor& out) {
  return activation<kFloatingTypes>("log_sigmoid", self, out, false, stateless<ops::LogSigmoid>);
}

// ---- glu: the first half of dim times the sigmoid of the second half.
namespace {
Tensor glu_impl(const Tensor& self, int64_t dim, const Tensor& out) {
  EMBER_CHECK(self.dim() > 0, "glu: glu does not support scalars because halving size must be even");
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t n = self.size(d);
  EMBER_CHECK(n % 2 == 0, "glu: Halving dimension must be even, but dimension {} is size {}", d, n);
  const Tensor a = self.narrow(d, 0, n / 2), b = self.narrow(d, n / 2, n / 2);
  IterConfig cfg;
  cfg.name = "glu";
  TensorIterator it(cfg, out, {a, b});
  dispatch_dtypes<kFloatingTypes>(it.common_dtype(), "glu", [&]<class T>() {
    using M = opmath_t<T>;
    it.for_each([](char** dp, const int64_t* s, int64_t len) {
      binary_loop<T, T>(dp, s, len,
                        [](T x, T y) { return static_cast<T>(ops::Glu::f(static_cast<M>(x), static_cast<M>(y))); });
    });
  });
  return it.finish();
}
}  // namespace
Tensor glu(const Tensor& self, int64_t dim) { return glu_impl(self, dim, {}); }
Tensor glu_out(const Tensor& self, int64_t dim, const Tensor& out) { return glu_impl(self, dim, out); }

}  // namespace ember::cpu
