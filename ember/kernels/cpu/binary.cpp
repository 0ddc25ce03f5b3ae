// Binary and ternary elementwise kernels (arithmetic, comparisons, logical and bitwise ops, where, clamp,
// lerp, addcmul/addcdiv). See Note [elementwise loops]; the functors are in ElementwiseOps.h.
#include "ember/kernels/cpu/BinaryVariants.h"
#include "ember/kernels/cpu/Dispatch.h"
#include "ember/kernels/cpu/ElementwiseOps.h"
#include "ember/kernels/cpu/Loops.h"
#include "ember/kernels/cpu/generated/CPUKernels.h"
#include "ember/kernels/cpu/isa/VecLoops.h"

namespace ember::cpu {

namespace {

/// Runs the functor that make<T>() returns over the iterator's two inputs, for the dtypes in Mask. The
/// functor takes and returns opmath values; BoolOut writes bool results (comparisons, logical ops).
template <uint32_t Mask, bool BoolOut = false, class Make>
void run_binary(TensorIterator& it, const char* name, Make make) {
  dispatch_dtypes<Mask>(it.common_dtype(), name, [&]<class T>() {
    using M = opmath_t<T>;
    using Out = std::conditional_t<BoolOut, bool, T>;
    auto f = make.template operator()<M>();
    it.for_each([&](char** d, const int64_t* s, int64_t n) {
      binary_loop<Out, T>(d, s, n, [&](T x, T y) { return f(static_cast<M>(x), static_cast<M>(y)); });
    });
  });
}

/// Builds the iterator and runs a plain functor Op (Op::f on opmath values).
template <class Op, uint32_t Mask, bool BoolOut = false>
Tensor binary_op(IterConfig cfg, const Tensor& self, const Tensor& other, const Tensor& out, bool inplace,
                 int vec_op = -1) {
  cfg.is_inplace = inplace;
  if (BoolOut) cfg.output_dtype = kBool;
  TensorIterator it(cfg, out, {self, other});
  if (vec_op >= 0) {
    if (VecLoopFn fn = vec_loop(static_cast<VecOp>(vec_op), it.common_dtype())) {
      it.for_each([fn](char** d, const int64_t* s, int64_t n) { fn(d, s, n, 1.0); });
      return it.finish();
    }
  }
  run_binary<Mask, BoolOut>(it, cfg.name, []<class M>() { return [](M a, M b) { return Op::f(a, b); }; });
  return it.finish();
}

IterConfig named(const char* name) {
  IterConfig c;
  c.name = name;
  return c;
}
IterConfig float_op(const char* name) {
  IterConfig c;
  c.name = name;
  c.int_to_float = true;
  return c;
}

// ---- add / sub -------------------------------------------------------------------------------------------
// PyTorch's checks on alpha and on bool operands of sub.
void check_alpha(const char* name, DType dtype, const Scalar& alpha) {
  EMBER_CHECK(!alpha.is_complex() || is_complex(dtype),
              "{}: For non-complex input tensors, argument alpha must not be a complex number.", name);
  EMBER_CHECK(!(is_integral(dtype, true) && alpha.is_floating_point()),
              "{}: For integral input tensors, argument alpha must not be a floating point number.", name);
  EMBER_CHECK(!(alpha.is_bool() && dtype != kBool), "{}: Boolean alpha only supported for Boolean results.", name);
}

Tensor add_sub(const char* name, bool is_sub, const Tensor& self, const Tensor& other, const Scalar& alpha,
               const Tensor& out, bool inplace) {
  if (is_sub) {
    EMBER_CHECK(!(self.dtype() == kBool && other.dtype() == kBool),
                "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                "`logical_xor()` operator instead.");
    EMBER_CHECK(self.dtype() != kBool && other.dtype() != kBool,
                "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
                "mask, use the `~` or `logical_not()` operator instead.");
  }
  IterConfig cfg = named(name);
  cfg.is_inplace = inplace;
  TensorIterator it(cfg, out, {self, other});
  check_alpha(name, it.common_dtype(), alpha);
  if (VecLoopFn fn = vec_loop(is_sub ? VecOp::Sub : VecOp::Add, it.common_dtype())) {
    double a = alpha.to_double();
    it.for_each([fn, a](char** d, const int64_t* s, int64_t n) { fn(d, s, n, a); });
    return it.finish();
  }
  run_binary<kAllAndComplex>(it, name, [&]<class M>() {
    // sub is add with -alpha (exact in two's complement for unsigned types too).
    M a = alpha.to<M>();
    if constexpr (!std::is_same_v<M, bool>) a = is_sub ? static_cast<M>(-a) : a;
    if constexpr (ops::kIsComplex<M>) {
      return [a](M x, M y) { return x + ops::complex_mul(a, y); };  // Note [complex arithmetic]
    } else {
      return [a](M x, M y) { return static_cast<M>(x + a * y); };
    }
  });
  return it.finish();
}

// ---- division with rounding ----------------------------------------------------------------------------
enum class Rounding { True, Trunc, Floor };

Rounding parse_rounding(std::optional<std::string_view> mode) {
  if (!mode) return Rounding::True;
  if (*mode == "trunc") return Rounding::Trunc;
  if (*mode == "floor") return Rounding::Floor;
  EMBER_FAIL("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{}'", *mode);
}

[[noreturn]] void zero_division() { EMBER_FAIL("ZeroDivisionError"); }

// Integer quotient and remainder (b != 0). The one overflowing quotient, INT_MIN / -1, wraps to INT_MIN with
// remainder 0 as two's complement arithmetic (and NumPy) gives: x86's idiv would trap (SIGFPE) on it, which
// PyTorch 1.13 does, and bad input must not abort the process.
template <class M>
M int_div(M a, M b) {
  if constexpr (std::is_signed_v<M>) {
    if (b == -1) return static_cast<M>(-static_cast<std::make_unsigned_t<M>>(a));
  }
  return static_cast<M>(a / b);
}
template <class M>
M int_rem(M a, M b) {
  if constexpr (std::is_signed_v<M>) {
    if (b == -1) return 0;
  }
  return static_cast<M>(a % b);
}

// Python's floor division of integers.
template <class M>
M int_floor_div(M a, M b) {
  if (b == 0) zero_division();
  if constexpr (std::is_signed_v<M>) {
    M q = int_div(a, b);
    if ((int_rem(a, b) != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  } else {
    return a / b;
  }
}

Tensor div_impl(const char* name, const Tensor& self, const Tensor& other, Rounding r, const Tensor& out,
                bool inplace) {
  if (r == Rounding::True)
    return binary_op<ops::Div, kFloatingAndComplex>(float_op(name), self, other, out, inplace,
                                                    static_cast<int>(VecOp::Div));
  IterConfig cfg = named(name);
  cfg.is_inplace = inplace;
  TensorIterator it(cfg, out, {self, other});
  run_binary<kNumericTypes>(it, name, [&]<class M>() {
    return [r](M a, M b) -> M {
      if constexpr (std::is_floating_point_v<M>) {
        return r == Rounding::Trunc ? ops::TruncDivF::f(a, b) : ops::FloorDivF::f(a, b);
      } else {
        if (r == Rounding::Floor) return int_floor_div(a, b);
        if (b == 0) zero_division();
        return int_div(a, b);
      }
    };
  });
  return it.finish();
}

Tensor remainder_impl(const Tensor& self, const Tensor& other, const Tensor& out, bool inplace) {
  IterConfig cfg = named("remainder");
  cfg.is_inplace = inplace;
  TensorIterator it(cfg, out, {self, other});
  run_binary<kNumericTypes>(it, "remainder", []<class M>() {
    return [](M a, M b) -> M {
      if constexpr (std::is_floating_point_v<M>) {
        return ops::RemainderF::f(a, b);
      } else {
        if (b == 0) zero_division();
        if constexpr (std::is_signed_v<M>) {
          M m = int_rem(a, b);
          if (m != 0 && ((m < 0) != (b < 0))) m = static_cast<M>(m + b);
          return m;
        } else {
          return static_cast<M>(a % b);
        }
      }
    };
  });
  return it.finish();
}

Tensor fmod_impl(const Tensor& self, const Tensor& other, const Tensor& out, bool inplace) {
  IterConfig cfg = named("fmod");
  cfg.is_inplace = inplace;
  TensorIterator it(cfg, out, {self, other});
  run_binary<kNumericTypes>(it, "fmod", []<class M>() {
    return [](M a, M b) -> M {
      if constexpr (std::is_floating_point_v<M>) {
        return ops::FmodF::f(a, b);
      } else {
        if (b == 0) zero_division();
        return int_rem(a, b);
      }
    };
  });
  return it.finish();
}

Tensor pow_impl(const Tensor& self, const Tensor& exponent, const Tensor& out, bool inplace) {
  IterConfig cfg = named("pow");
  cfg.is_inplace = inplace;
  TensorIterator it(cfg, out, {self, exponent});
  if (!is_floating_point(it.common_dtype()) && !is_complex(it.common_dtype()) && exponent.impl()->is_wrapped_number() &&
      !is_floating_point(exponent.dtype())) {
    EMBER_CHECK(exponent.item<int64_t>() >= 0, "Integers to negative integer powers are not allowed.");
  }
  run_binary<kNumericTypes | kComplexTypes>(it, "pow", []<class M>() {
    return [](M a, M b) -> M {
      if constexpr (std::is_floating_point_v<M> || ops::kIsComplex<M>) return ops::PowF::f(a, b);
      else return ops::PowI::f(a, b);
    };
  });
  return it.finish();
}

}  // namespace


Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  return add_sub("add", false, self, other, alpha, {}, false);
}
Tensor add_(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  return add_sub("add_", false, self, other, alpha, self, true);
}
Tensor add_out(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  return add_sub("add", false, self, other, alpha, out, false);
}
Tensor sub(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  return add_sub("sub", true, self, other, alpha, {}, false);
}
Tensor sub_(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  return add_sub("sub_", true, self, other, alpha, self, true);
}
Tensor sub_out(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  return add_sub("sub", true, self, other, alpha, out, false);
}

// A plain functor op with its three variants. X(name, functor, dtypes, bool output, config, vectorized loop)
#define EMBER_SIMPLE_BINARY_OPS(X)                                                   \
  X(mul, Mul, kAllAndComplex, false, named, static_cast<int>(VecOp::Mul))            \
  X(atan2, Atan2, kFloatingTypes, false, float_op, -1)                               \
  X(hypot, Hypot, kFloatingTypes, false, named, -1)                                  \
  X(maximum, Maximum, kAllTypes, false, named, static_cast<int>(VecOp::Maximum))     \
  X(minimum, Minimum, kAllTypes, false, named, static_cast<int>(VecOp::Minimum))     \
  X(fmax, Fmax, kAllTypes, false, named, -1)                                         \
  X(fmin, Fmin, kAllTypes, false, named, -1)                                         \
  X(eq, Eq, kAllAndComplex, true, named, -1)                                         \
  X(ne, Ne, kAllAndComplex, true, named, -1)                                         \
  X(lt, Lt, kAllTypes, true, named, -1)                                              \
  X(le, Le, kAllTypes, true, named, -1)                                              \
  X(gt, Gt, kAllTypes, true, named, -1)                                              \
  X(ge, Ge, kAllTypes, true, named, -1)                                              \
  X(logical_and, LogicalAnd, kAllTypes, true, named, -1)                             \
  X(logical_or, LogicalOr, kAllTypes, true, named, -1)                               \
  X(logical_xor, LogicalXor, kAllTypes, true, named, -1)                             \
  X(bitwise_and, BitAnd, kIntegralAndBool, false, named, -1)                         \
  X(bitwise_or, BitOr, kIntegralAndBool, false, named, -1)                           \
  X(bitwise_xor, BitXor, kIntegralAndBool, false, named, -1)                         \
  X(bitwise_left_shift, Lshift, kIntegralTypes, false, named, -1)                    \
  X(bitwise_right_shift, Rshift, kIntegralTypes, false, named, -1)                  \
  X(copysign, Copysign, kFloatingTypes, false, float_op, -1)                         \
  X(gcd, Gcd, kIntegralTypes, false, named, -1)                                      \
  X(lcm, Lcm, kIntegralTypes, false, named, -1)

#define EMBER_DEFINE_SIMPLE(name, F, mask, boolout, cfg, v)                                                \
  Tensor name(const Tensor& self, const Tensor& other) {                                                   \
    return binary_op<ops::F, mask, boolout>(cfg(#name), self, other, {}, false, v);                        \
  }                                                                                                        \
  Tensor name##_(const Tensor& self, const Tensor& other) {                                                \
    return binary_op<ops::F, mask, boolout>(cfg(#name "_"), self, other, self, true, v);                   \
  }                                                                                                        \
  Tensor name##_out(const Tensor& self, const Tensor& other, const Tensor& out) {                          \
    return binary_op<ops::F, mask, boolout>(cfg(#name), self, other, out, false, v);                       \
  }
EMBER_SIMPLE_BINARY_OPS(EMBER_DEFINE_SIMPLE)
#undef EMBER_DEFINE_SIMPLE

Tensor div(const Tensor& self, const Tensor& other) { return div_impl("div", self, other, Rounding::True, {}, false); }
Tensor div_(const Tensor& self, const Tensor& other) {
  return div_impl("div_", self, other, Rounding::True, self, true);
}
Tensor div_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return div_impl("div", self, other, Rounding::True, out, false);
}
Tensor div_mode(const Tensor& self, const Tensor& other, std::optional<std::string_view> mode) {
  return div_impl("div", self, other, parse_rounding(mode), {}, false);
}
Tensor div_mode_(const Tensor& self, const Tensor& other, std::optional<std::string_view> mode) {
  return div_impl("div_", self, other, parse_rounding(mode), self, true);
}
Tensor div_mode_out(const Tensor& self, const Tensor& other, std::optional<std::string_view> mode, const Tensor& out) {
  return div_impl("div", self, other, parse_rounding(mode), out, false);
}
namespace {
Tensor floor_divide_impl(const Tensor& a, const Tensor& b, const Tensor& out, bool inplace) {
  return div_impl("floor_divide", a, b, Rounding::Floor, out, inplace);
}
}  // namespace
EMBER_BINARY_VARIANTS(floor_divide, floor_divide_impl)
EMBER_BINARY_VARIANTS(remainder, remainder_impl)
EMBER_BINARY_VARIANTS(fmod, fmod_impl)
EMBER_BINARY_VARIANTS(pow, pow_impl)

// logaddexp, logaddexp2: no in-place variant; the floating types.
namespace {
constexpr uint32_t kLogaddexpTypes = kFloatingTypes;
}  // namespace
Tensor logaddexp(const Tensor& self, const Tensor& other) {
  return binary_op<ops::Logaddexp, kLogaddexpTypes>(named("logaddexp"), self, other, {}, false);
}
Tensor logaddexp_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return binary_op<ops::Logaddexp, kLogaddexpTypes>(named("logaddexp"), self, other, out, false);
}
Tensor logaddexp2(const Tensor& self, const Tensor& other) {
  return binary_op<ops::Logaddexp2, kLogaddexpTypes>(named("logaddexp2"), self, other, {}, false);
}
Tensor logaddexp2_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return binary_op<ops::Logaddexp2, kLogaddexpTypes>(named("logaddexp2"), self, other, out, false);
}

// heaviside: both operands (and out=) of one dtype (PyTorch refuses to promote); every dtype.
namespace {
Tensor heaviside_impl(const Tensor& self, const Tensor& values, const Tensor& out, bool inplace) {
  EMBER_CHECK(self.dtype() == values.dtype() && (!out.defined() || out.dtype() == self.dtype()),
              "heaviside is not yet implemented for tensors with different dtypes.");
  return binary_op<ops::Heaviside, kAllTypes>(named("heaviside"), self, values, out, inplace);
}

// nextafter: the neighbour of a in the direction of b in the dtype itself (a float16's or bfloat16's neighbour is
// one of its own dtype, not a float's: stepped on its bits). The floating types.
template <class T>
T next_after(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::nextafter(a, b);
  } else {
    float fa = static_cast<float>(a), fb = static_cast<float>(b);
    if (std::isnan(fa) || std::isnan(fb)) return static_cast<T>(std::numeric_limits<float>::quiet_NaN());
    if (fa == fb) return b;
    uint16_t bits = a.x;
    if (fa == 0) {
      bits = static_cast<uint16_t>(fb > 0 ? 1 : 0x8001);  // the smallest subnormal towards b
    } else if ((fa < fb) == (fa > 0)) {
      ++bits;  // away from zero
    } else {
      --bits;
    }
    return T(bits, from_bits);
  }
}

Tensor nextafter_impl(const Tensor& self, const Tensor& other, const Tensor& out, bool inplace) {
  IterConfig cfg = named("nextafter");
  cfg.is_inplace = inplace;
  TensorIterator it(cfg, out, {self, other});
  dispatch_dtypes<kLogaddexpTypes>(it.common_dtype(), "nextafter", [&]<class T>() {
    it.for_each([](char** d, const int64_t* s, int64_t n) { binary_loop<T, T>(d, s, n, next_after<T>); });
  });
  return it.finish();
}
}  // namespace
EMBER_BINARY_VARIANTS(heaviside, heaviside_impl)
EMBER_BINARY_VARIANTS(nextafter, nextafter_impl)

// ---- where ----------------------------------------------------------------------------------------------
namespace {
Tensor where_impl(const Tensor& condition, const Tensor& self, const Tensor& other, const Tensor& out) {
  EMBER_CHECK(condition.dtype() == kBool || condition.dtype() == kUInt8,
              "where expected condition to be a boolean tensor, but got a tensor with dtype {}", condition.dtype());
  Tensor cond = condition.dtype() == kBool ? condition : condition.to(kBool);
  DType common = result_type(self, other);
  IterConfig cfg = named("where");
  cfg.promote_inputs = false;
  cfg.output_dtype = common;
  Tensor a = self.dtype() == common ? self : self.to(common);
  Tensor b = other.dtype() == common ? other : other.to(common);
  TensorIterator it(cfg, out, {cond, a, b});
  dispatch_dtypes<kAllAndComplex>(common, "where", [&]<class T>() {
    it.for_each([](char** d, const int64_t* s, int64_t n) {
      ternary_loop<T, bool, T, T>(d, s, n, [](bool c, T x, T y) { return c ? x : y; });
    });
  });
  return it.finish();
}
}  // namespace

Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  return where_impl(condition, self, other, Tensor());
}
Tensor where_out(const Tensor& condition, const Tensor& self, const Tensor& other, const Tensor& out) {
  return where_impl(condition, self, other, out);
}

// ---- clamp ----------------------------------------------------------------------------------------------
namespace {
// out = clamp(self, lo, hi) where lo/hi are optional tensors (wrapped numbers for Scalar bounds); NaN in any
// operand gives NaN; when lo > hi every element becomes hi (PyTorch's min(max(x, lo), hi)).
// scalar_bounds: the bounds were numbers (clamp.Scalar), whose out= must have the result's dtype, as
// PyTorch's unary ops; with tensor bounds out= may be of another dtype. One bound is a maximum/minimum (any
// dtype, bool too); both bounds need a numeric dtype.
Tensor clamp_impl(const Tensor& self, const std::optional<Tensor>& lo, const std::optional<Tensor>& hi,
                  const Tensor& out, bool inplace, bool scalar_bounds) {
  EMBER_CHECK((lo && lo->defined()) || (hi && hi->defined()),
              "torch.clamp: At least one of 'min' or 'max' must not be None");
  IterConfig cfg = named("clamp");
  cfg.is_inplace = inplace;
  cfg.same_dtype_out = scalar_bounds;
  bool has_lo = lo && lo->defined(), has_hi = hi && hi->defined();
  if (has_lo && has_hi) {
    TensorIterator it(cfg, out, {self, *lo, *hi});
    dispatch_dtypes<kNumericTypes>(it.common_dtype(), "clamp", [&]<class T>() {
      using M = opmath_t<T>;
      it.for_each([](char** d, const int64_t* s, int64_t n) {
        ternary_loop<T, T, T, T>(d, s, n, [](T x, T l, T h) {
          M v = static_cast<M>(x);
          M r = ops::Minimum::f(ops::Maximum::f(v, static_cast<M>(l)), static_cast<M>(h));
          return static_cast<T>(r);
        });
      });
    });
    return it.finish();
  }
  TensorIterator it(cfg, out, {self, has_lo ? *lo : *hi});
  // One bound and a float dtype: the same Maximum/Minimum functor from the instruction-set build for this CPU
  // (what ember.maximum uses), so clamp_min(x, 0) runs as fast as relu.
  if (VecLoopFn fn = vec_loop(has_lo ? VecOp::Maximum : VecOp::Minimum, it.common_dtype())) {
    it.for_each([fn](char** d, const int64_t* s, int64_t n) { fn(d, s, n, 1.0); });
    return it.finish();
  }
  if (!scalar_bounds) {
    run_binary<kAllTypes>(it, "clamp", [&]<class M>() {
      return [has_lo](M x, M b) { return has_lo ? ops::Maximum::f(x, b) : ops::Minimum::f(x, b); };
    });
    return it.finish();
  }
  run_binary<kNumericTypes>(it, "clamp", [&]<class M>() {
    return [has_lo](M x, M b) { return has_lo ? ops::Maximum::f(x, b) : ops::Minimum::f(x, b); };
  });
  return it.finish();
}
std::optional<Tensor> wrap(const std::optional<Scalar>& s) {
  return s ? std::optional<Tensor>(wrapped_scalar_tensor(*s)) : std::nullopt;
}
}  // namespace

Tensor clamp(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return clamp_impl(self, wrap(min), wrap(max), {}, false, true);
}
Tensor clamp_(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return clamp_impl(self, wrap(min), wrap(max), self, true, true);
}
Tensor clamp_out(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max,
                 const Tensor& out) {
  return clamp_impl(self, wrap(min), wrap(max), out, false, true);
}
Tensor clamp_tensor(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return clamp_impl(self, min, max, {}, false, false);
}
Tensor clamp_tensor_(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return clamp_impl(self, min, max, self, true, false);
}
Tensor clamp_tensor_out(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max,
                        const Tensor& out) {
  return clamp_impl(self, min, max, out, false, false);
}

// ---- lerp, addcmul, addcdiv ------------------------------------------------------------------------------
namespace {
// lerp(a, b, w) = a + w (b - a), evaluated from the nearer end for accuracy (as PyTorch).
template <class M>
M lerp_value(M a, M b, M w) {
  return std::abs(w) < M(0.5) ? a + w * (b - a) : b - (b - a) * (M(1) - w);
}

Tensor lerp_impl(const Tensor& self, const Tensor& end, const Tensor& weight, const Tensor& out, bool inplace) {
  EMBER_CHECK(self.dtype() == end.dtype(), "lerp: expected dtype {} for `end` but got dtype {}", self.dtype(),
              end.dtype());
  EMBER_CHECK(weight.impl()->is_wrapped_number() || weight.dtype() == self.dtype(),
              "lerp: expected dtype {} for `weight` but got dtype {}", self.dtype(), weight.dtype());
  IterConfig cfg = named("lerp");
  cfg.is_inplace = inplace;
  cfg.compute_dtype = self.dtype();
  TensorIterator it(cfg, out, {self, end, weight});
  dispatch_dtypes<kFloatingTypes>(it.common_dtype(), "lerp_kernel_scalar", [&]<class T>() {
    using M = opmath_t<T>;
    it.for_each([](char** d, const int64_t* s, int64_t n) {
      ternary_loop<T, T, T, T>(d, s, n, [](T a, T b, T w) {
        return static_cast<T>(lerp_value(static_cast<M>(a), static_cast<M>(b), static_cast<M>(w)));
      });
    });
  });
  return it.finish();
}

Tensor addc_impl(bool is_div, const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value,
                 const Tensor& out, bool inplace) {
  const char* name = is_div ? "addcdiv" : "addcmul";
  IterConfig cfg = named(name);
  cfg.is_inplace = inplace;
  TensorIterator it(cfg, out, {self, t1, t2});
  if (is_div) {
    EMBER_CHECK(!is_integral(it.common_dtype(), true),
                "Integer division with addcdiv is no longer supported, and in a future release addcdiv will perform "
                "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
                "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + "
                "value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
                "implementation: (input + value * tensor1 / tensor2), for all dtypes.");
  }
  check_alpha(name, it.common_dtype(), value);
  // float32/float64: the instruction-set build's loop (same formula, Note [instruction-set builds]).
  if (VecLoopFn fn = vec_loop(is_div ? VecOp::Addcdiv : VecOp::Addcmul, it.common_dtype())) {
    const double v = value.to_double();
    it.for_each([fn, v](char** d, const int64_t* s, int64_t n) { fn(d, s, n, v); });
    return it.finish();
  }
  dispatch_dtypes<kNumericTypes>(it.common_dtype(), name, [&]<class T>() {
    using M = opmath_t<T>;
    const M v = value.to<M>();
    it.for_each([&](char** d, const int64_t* s, int64_t n) {
      ternary_loop<T, T, T, T>(d, s, n, [&](T a, T b, T c) {
        M r = is_div ? static_cast<M>(a) + v * static_cast<M>(b) / static_cast<M>(c)
                     : static_cast<M>(a) + v * static_cast<M>(b) * static_cast<M>(c);
        return static_cast<T>(r);
      });
    });
  });
  return it.finish();
}
}  // namespace

Tensor lerp(const Tensor& self, const Tensor& end, const Scalar& weight) {
  return lerp_impl(self, end, wrapped_scalar_tensor(weight), {}, false);
}
Tensor lerp_(const Tensor& self, const Tensor& end, const Scalar& weight) {
  return lerp_impl(self, end, wrapped_scalar_tensor(weight), self, true);
}
Tensor lerp_out(const Tensor& self, const Tensor& end, const Scalar& weight, const Tensor& out) {
  return lerp_impl(self, end, wrapped_scalar_tensor(weight), out, false);
}
Tensor lerp_tensor(const Tensor& self, const Tensor& end, const Tensor& weight) {
  return lerp_impl(self, end, weight, {}, false);
}
Tensor lerp_tensor_(const Tensor& self, const Tensor& end, const Tensor& weight) {
  return lerp_impl(self, end, weight, self, true);
}
Tensor lerp_tensor_out(const Tensor& self, const Tensor& end, const Tensor& weight, const Tensor& out) {
  return lerp_impl(self, end, weight, out, false);
}
Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return addc_impl(false, self, t1, t2, value, {}, false);
}
Tensor addcmul_(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return addc_impl(false, self, t1, t2, value, self, true);
}
Tensor addcmul_out(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value, const Tensor& out) {
  return addc_impl(false, self, t1, t2, value, out, false);
}
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return addc_impl(true, self, t1, t2, value, {}, false);
}
Tensor addcdiv_(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return addc_impl(true, self, t1, t2, value, self, true);
}
Tensor addcdiv_out(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value, const Tensor& out) {
  return addc_impl(true, self, t1, t2, value, out, false);
}

}  // namespace ember::cpu
