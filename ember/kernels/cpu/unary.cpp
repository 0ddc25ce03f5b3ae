// Unary elementwise kernels. Each op is one line in the table below: its functor (ElementwiseOps.h), the
// dtypes it accepts, how its output dtype is chosen, and its vectorized float loop if it has one.
// See Note [elementwise loops].
#include "ember/kernels/cpu/Dispatch.h"
#include "ember/kernels/cpu/ElementwiseOps.h"
#include "ember/kernels/cpu/Loops.h"
#include "ember/kernels/cpu/generated/CPUKernels.h"
#include "ember/kernels/cpu/isa/VecLoops.h"

namespace ember::cpu {

namespace {

enum class OutRule { Same, Float, Bool };

// Runs Op over self into out (undefined: allocate; same as self: in place).
template <class Op, uint32_t Mask, OutRule rule>
Tensor unary(const char* name, const Tensor& self, const Tensor& out, bool inplace, int vec_op) {
  IterConfig cfg;
  cfg.name = name;
  cfg.is_inplace = inplace;
  cfg.int_to_float = rule == OutRule::Float;
  cfg.same_dtype_out = rule == OutRule::Same;  // as PyTorch: abs(float, out=double) raises
  if (rule == OutRule::Bool) cfg.output_dtype = kBool;
  TensorIterator it(cfg, out, {self});
  DType dt = it.common_dtype();
  if (vec_op >= 0 && rule != OutRule::Bool) {
    if (VecLoopFn fn = vec_loop(static_cast<VecOp>(vec_op), dt)) {
      if ((Mask >> static_cast<int>(dt)) & 1u) {
        it.for_each([fn](char** d, const int64_t* s, int64_t n) { fn(d, s, n, 1.0); });
        return it.finish();
      }
    }
  }
  // OutRule::Float computes in a floating dtype (integral inputs promote), so only those are instantiated.
  constexpr uint32_t kComputed = rule == OutRule::Float ? Mask & kFloatingAndComplex : Mask;
  dispatch_dtypes<kComputed>(dt, name, [&]<class T>() {
    using M = opmath_t<T>;
    if constexpr (rule == OutRule::Bool) {
      it.for_each([](char** d, const int64_t* s, int64_t n) {
        unary_loop<bool, T>(d, s, n, [](T x) { return Op::f(static_cast<M>(x)); });
      });
    } else {
      it.for_each([](char** d, const int64_t* s, int64_t n) {
        unary_loop<T, T>(d, s, n, [](T x) { return static_cast<T>(Op::f(static_cast<M>(x))); });
      });
    }
  });
  return it.finish();
}

constexpr int kNoVec = -1;
constexpr int vec(VecOp v) { return static_cast<int>(v); }

// The functions PyTorch computes on complex inputs too (Note [complex numbers] in ember/core/DType.h).
constexpr uint32_t kAllC = kAllAndComplex;
constexpr uint32_t kNumericC = kNumericTypes | kComplexTypes;

}  // namespace

// X(name, functor, dtypes, output rule, vectorized loop)
#define EMBER_UNARY_OPS(X)                                                  \
  X(neg, Neg, kNumericC, Same, vec(VecOp::Neg))                         \
  X(exp, Exp, kAllC, Float, vec(VecOp::Exp))                            \
  X(exp2, Exp2, kAllTypes, Float, vec(VecOp::Exp2))                         \
  X(expm1, Expm1, kAllTypes, Float, vec(VecOp::Expm1))                      \
  X(log, Log, kAllC, Float, vec(VecOp::Log))                            \
  X(log2, Log2, kAllTypes, Float, vec(VecOp::Log2))                         \
  X(log10, Log10, kAllC, Float, vec(VecOp::Log10))                      \
  X(log1p, Log1p, kAllTypes, Float, vec(VecOp::Log1p))                      \
  X(sqrt, Sqrt, kAllC, Float, vec(VecOp::Sqrt))                         \
  X(rsqrt, Rsqrt, kAllC, Float, vec(VecOp::Rsqrt))                      \
  X(reciprocal, Reciprocal, kAllC, Float, vec(VecOp::Reciprocal))       \
  X(sin, Sin, kAllC, Float, vec(VecOp::Sin))                            \
  X(cos, Cos, kAllC, Float, vec(VecOp::Cos))                            \
  X(tan, Tan, kAllC, Float, vec(VecOp::Tan))                            \
  X(asin, Asin, kAllC, Float, vec(VecOp::Asin))                         \
  X(acos, Acos, kAllC, Float, vec(VecOp::Acos))                         \
  X(atan, Atan, kAllC, Float, vec(VecOp::Atan))                         \
  X(sinh, Sinh, kAllC, Float, vec(VecOp::Sinh))                         \
  X(cosh, Cosh, kAllC, Float, vec(VecOp::Cosh))                         \
  X(tanh, Tanh, kAllC, Float, vec(VecOp::Tanh))                         \
  X(sigmoid, Sigmoid, kAllC, Float, vec(VecOp::Sigmoid))                \
  X(erf, Erf, kAllTypes, Float, vec(VecOp::Erf))                            \
  X(erfc, Erfc, kAllTypes, Float, vec(VecOp::Erfc))                         \
  X(relu, Relu, kNumericTypes, Same, vec(VecOp::Relu))                      \
  X(silu, Silu, kFloatingTypes, Same, vec(VecOp::Silu))                     \
  X(floor, Floor, kNumericTypes, Same, vec(VecOp::Floor))                   \
  X(ceil, Ceil, kNumericTypes, Same, vec(VecOp::Ceil))                      \
  X(round, Round, kNumericTypes, Same, vec(VecOp::Round))                   \
  X(trunc, Trunc, kNumericTypes, Same, vec(VecOp::Trunc))                   \
  X(frac, Frac, kFloatingTypes, Same, kNoVec)                               \
  X(acosh, Acosh, kAllTypes, Float, kNoVec)                                    \
  X(asinh, Asinh, kAllTypes, Float, kNoVec)                                    \
  X(atanh, Atanh, kAllTypes, Float, kNoVec)                                    \
  X(deg2rad, Deg2rad, kAllTypes, Float, kNoVec)                             \
  X(rad2deg, Rad2deg, kAllTypes, Float, kNoVec)                             \
  X(bitwise_not, BitwiseNot, kIntegralAndBool, Same, kNoVec)                \
  X(logical_not, LogicalNot, kAllTypes, Bool, kNoVec)

#define EMBER_DEFINE_UNARY(name, F, mask, rule, v)                                                        \
  Tensor name(const Tensor& self) { return unary<ops::F, mask, OutRule::rule>(#name, self, {}, false, v); } \
  Tensor name##_(const Tensor& self) { return unary<ops::F, mask, OutRule::rule>(#name "_", self, self, true, v); } \
  Tensor name##_out(const Tensor& self, const Tensor& out) {                                              \
    return unary<ops::F, mask, OutRule::rule>(#name, self, out, false, v);                                \
  }
EMBER_UNARY_OPS(EMBER_DEFINE_UNARY)
#undef EMBER_DEFINE_UNARY

// relu has no out= variant in PyTorch's schema; the generated table names only relu and relu_.

// Predicates: bool out, no in-place or out= variants.
Tensor isnan(const Tensor& self) {
  return unary<ops::IsNan, kAllC, OutRule::Bool>("isnan", self, {}, false, kNoVec);
}
Tensor isinf(const Tensor& self) {
  return unary<ops::IsInf, kAllC, OutRule::Bool>("isinf", self, {}, false, kNoVec);
}
Tensor isfinite(const Tensor& self) {
  return unary<ops::IsFinite, kAllC, OutRule::Bool>("isfinite", self, {}, false, kNoVec);
}

// abs: a complex input gives its modulus in the real dtype of its parts (abs(complex64) is float32), as
// PyTorch; in place that is refused, as PyTorch's "In-place abs is not supported for complex tensors."
namespace {
Tensor abs_impl(const char* name, const Tensor& self, const Tensor& out, bool inplace) {
  if (!is_complex(self.dtype()))
    return unary<ops::Abs, kNumericTypes, OutRule::Same>(name, self, out, inplace, vec(VecOp::Abs));
  EMBER_CHECK(!inplace, "In-place abs is not supported for complex tensors.");
  IterConfig cfg;
  cfg.name = name;
  cfg.promote_inputs = false;
  cfg.compute_dtype = self.dtype();
  cfg.output_dtype = to_real_dtype(self.dtype());
  TensorIterator it(cfg, out, {self});
  dispatch_dtypes<kComplexTypes>(self.dtype(), name, [&]<class T>() {
    using V = typename T::value_type;
    it.for_each([](char** d, const int64_t* s, int64_t n) {
      unary_loop<V, T>(d, s, n, [](T x) { return std::abs(x); });
    });
  });
  return it.finish();
}
}  // namespace
Tensor abs(const Tensor& self) { return abs_impl("abs", self, {}, false); }
Tensor abs_(const Tensor& self) { return abs_impl("abs_", self, self, true); }
Tensor abs_out(const Tensor& self, const Tensor& out) { return abs_impl("abs", self, out, false); }

// sign refuses complex inputs with PyTorch's message (sgn is the complex sign).
namespace {
Tensor sign_impl(const char* name, const Tensor& self, const Tensor& out, bool inplace) {
  EMBER_CHECK(!is_complex(self.dtype()),
              "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead.");
  return unary<ops::Sign, kAllTypes, OutRule::Same>(name, self, out, inplace, kNoVec);
}
}  // namespace
Tensor sign(const Tensor& self) { return sign_impl("sign", self, {}, false); }
Tensor sign_(const Tensor& self) { return sign_impl("sign_", self, self, true); }
Tensor sign_out(const Tensor& self, const Tensor& out) { return sign_impl("sign", self, out, false); }

// Sign and infinity tests, with out= (bool results; as PyTorch's, out= must be bool too).
#define EMBER_UNARY_PREDICATES(X) X(signbit, Signbit) X(isposinf, IsPosInf) X(isneginf, IsNegInf)
#define EMBER_DEFINE_PREDICATE(name, F)                                                          \
  Tensor name(const Tensor& self) {                                                              \
    return unary<ops::F, kAllTypes, OutRule::Bool>(#name, self, {}, false, kNoVec);              \
  }                                                                                              \
  Tensor name##_out(const Tensor& self, const Tensor& out) {                                     \
    EMBER_CHECK(out.dtype() == kBool, #name " does not support non-boolean outputs.");           \
    return unary<ops::F, kAllTypes, OutRule::Bool>(#name, self, out, false, kNoVec);             \
  }
EMBER_UNARY_PREDICATES(EMBER_DEFINE_PREDICATE)
#undef EMBER_DEFINE_PREDICATE
#undef EMBER_UNARY_PREDICATES

// square: bool squares to int64 (it is pow(x, 2) in PyTorch).
namespace {
Tensor square_impl(const Tensor& self, const Tensor& out, bool inplace) {
  if (self.dtype() == kBool && !inplace) {
    Tensor s = self.to(kInt64);
    return unary<ops::Square, kNumericTypes, OutRule::Same>("square", s, out, false, vec(VecOp::Square));
  }
  return unary<ops::Square, kNumericC, OutRule::Same>("square", self, out, inplace, vec(VecOp::Square));
}
}  // namespace
Tensor square(const Tensor& self) { return square_impl(self, {}, false); }
Tensor square_(const Tensor& self) { return square_impl(self, self, true); }
Tensor square_out(const Tensor& self, const Tensor& out) { return square_impl(self, out, false); }

// gelu: approximate is 'none' (erf) or 'tanh'.
namespace {
Tensor gelu_impl(const Tensor& self, std::string_view approximate, const Tensor& out, bool inplace) {
  if (approximate == "none")
    return unary<ops::Gelu, kFloatingTypes, OutRule::Same>("gelu", self, out, inplace, vec(VecOp::Gelu));
  EMBER_CHECK(approximate == "tanh", "gelu: approximate argument must be either none or tanh, got '{}'", approximate);
  return unary<ops::GeluTanh, kFloatingTypes, OutRule::Same>("gelu", self, out, inplace, vec(VecOp::GeluTanh));
}
}  // namespace
Tensor gelu(const Tensor& self, std::string_view approximate) { return gelu_impl(self, approximate, {}, false); }
Tensor gelu_(const Tensor& self, std::string_view approximate) { return gelu_impl(self, approximate, self, true); }
Tensor gelu_out(const Tensor& self, std::string_view approximate, const Tensor& out) {
  return gelu_impl(self, approximate, out, false);
}

// nan_to_num: NaN -> nan (0), +inf -> posinf (dtype max), -inf -> neginf (dtype lowest); integers unchanged.
namespace {
Tensor nan_to_num_impl(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                       std::optional<double> neginf, const Tensor& out, bool inplace) {
  IterConfig cfg;
  cfg.name = "nan_to_num";
  cfg.is_inplace = inplace;
  cfg.same_dtype_out = true;
  TensorIterator it(cfg, out, {self});
  dispatch_dtypes<kAllTypes>(it.common_dtype(), "nan_to_num", [&]<class T>() {
    if constexpr (std::is_floating_point_v<opmath_t<T>>) {
      using M = opmath_t<T>;
      const M nv = static_cast<M>(nan.value_or(0.0));
      const M pv = posinf ? static_cast<M>(*posinf) : static_cast<M>(std::numeric_limits<T>::max());
      const M mv = neginf ? static_cast<M>(*neginf) : static_cast<M>(std::numeric_limits<T>::lowest());
      it.for_each([&](char** d, const int64_t* s, int64_t n) {
        unary_loop<T, T>(d, s, n, [&](T x) {
          M v = static_cast<M>(x);
          return static_cast<T>(std::isnan(v) ? nv : std::isinf(v) ? (v > 0 ? pv : mv) : v);
        });
      });
    } else {
      it.for_each([](char** d, const int64_t* s, int64_t n) { unary_loop<T, T>(d, s, n, [](T x) { return x; }); });
    }
  });
  return it.finish();
}
}  // namespace
Tensor nan_to_num(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  return nan_to_num_impl(self, nan, posinf, neginf, {}, false);
}
Tensor nan_to_num_(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                   std::optional<double> neginf) {
  return nan_to_num_impl(self, nan, posinf, neginf, self, true);
}
Tensor nan_to_num_out(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                      std::optional<double> neginf, const Tensor& out) {
  return nan_to_num_impl(self, nan, posinf, neginf, out, false);
}

}  // namespace ember::cpu
