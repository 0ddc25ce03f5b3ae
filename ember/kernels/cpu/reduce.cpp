// Reduction kernels: sum, mean, prod, max/min (values and indices), amax/amin, argmax/argmin, var/std
// (Welford), vector norms, logsumexp, all/any, count_nonzero; scans (cumsum, cumprod); softmax and
// log_softmax. See Note [reductions] (ReducePlan.h) for the engine. Floating sums accumulate in double, so
// results do not depend on the order of the reduction beyond the final rounding.
#include <cmath>
#include <limits>

#include "ember/kernels/cpu/Dispatch.h"
#include "ember/kernels/cpu/Loops.h"
#include "ember/kernels/cpu/MemoryOverlap.h"
#include "ember/kernels/cpu/ReducePlan.h"
#include "ember/kernels/cpu/generated/CPUKernels.h"
#include "ember/kernels/cpu/isa/VecLoops.h"

namespace ember::cpu {

namespace {

template <class T>
struct SumAcc {
  using type = std::conditional_t<std::is_floating_point_v<opmath_t<T>>, double, int64_t>;
};
template <class V>
struct SumAcc<std::complex<V>> {  // complex sums and products accumulate in complex128
  using type = std::complex<double>;
};
template <class T>
using sum_acc_t = typename SumAcc<T>::type;

// Writes a computed result into an out= tensor (resizing it) and returns out; or returns result.
Tensor to_out(const Tensor& result, const Tensor& out) {
  if (!out.defined()) return result;
  EMBER_CHECK(can_cast(result.dtype(), out.dtype()), "result type {} can't be cast to the desired output type {}",
              result.dtype(), out.dtype());
  out.impl()->resize(result.sizes());
  out.copy_(result);
  return out;
}

// For the reductions whose out= must have the result's own dtype in PyTorch (argmax/argmin: int64; amax/amin:
// the input's; cumsum/cumprod: the dtype= asked for), not just one it can be cast to.
Tensor to_out_same_dtype(const char* op, const Tensor& result, const Tensor& out) {
  EMBER_CHECK(!out.defined() || out.dtype() == result.dtype(),
              "{}: Expected out tensor to have dtype {}, but got {} instead", op, result.dtype(), out.dtype());
  return to_out(result, out);
}

struct Reduction {
  Tensor input;       // converted to the compute dtype
  DimVector dims;     // reduced dims
  ReducePlan plan;
  DimVector out_sizes;
};

Reduction prepare(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, DType compute) {
  Reduction r;
  r.input = self.dtype() == compute ? self : self.to(compute);
  r.dims = reduce_dims(r.input, dim);
  r.plan = make_reduce_plan(r.input, r.dims);
  r.out_sizes = reduced_sizes(r.input.sizes(), r.dims, keepdim);
  return r;
}

// ---- sum, nansum, mean, prod
template <class T, bool SkipNan>
struct SumOp {
  using acc_t = sum_acc_t<T>;
  acc_t init() const { return 0; }
  acc_t fold(acc_t a, T v, int64_t) const {
    if constexpr (SkipNan && std::is_floating_point_v<opmath_t<T>>) {
      if (std::isnan(static_cast<opmath_t<T>>(v))) return a;
    }
    return a + static_cast<acc_t>(static_cast<opmath_t<T>>(v));
  }
  acc_t merge(acc_t a, acc_t b) const { return a + b; }
  T project(acc_t a) const {
    if constexpr (std::is_same_v<T, bool>) return a != 0;
    else return static_cast<T>(a);
  }
  // Note [vectorized sums]: float32 and float64 fold whole runs in the instruction-set builds.
  acc_t fold_contiguous(acc_t a, const T* p, int64_t n) const
    requires(!SkipNan && (std::is_same_v<T, float> || std::is_same_v<T, double>))
  {
    return a + sum_contiguous(p, n);
  }
  void fold_columns(acc_t* acc, const T* p, int64_t stride, int64_t rows, int64_t w) const
    requires(!SkipNan && (std::is_same_v<T, float> || std::is_same_v<T, double>))
  {
    sum_columns(p, stride, rows, w, acc);
  }
};

DType sum_dtype(const Tensor& self, std::optional<DType> dtype) {
  return dtype ? *dtype : is_integral(self.dtype(), true) ? kInt64 : self.dtype();
}

template <bool SkipNan>
Tensor sum_impl(const char* name, const Tensor& self, OptionalIntArrayRef dim, bool keepdim,
                std::optional<DType> dtype) {
  Reduction r = prepare(self, dim, keepdim, sum_dtype(self, dtype));
  Tensor out = make_empty(r.out_sizes, r.input.dtype());
  // nansum takes no complex input, as PyTorch's.
  dispatch_dtypes<SkipNan ? kAllTypes : kAllAndComplex>(r.input.dtype(), name, [&]<class T>() {
    run_reduce(r.plan, r.input.data_ptr<T>(), out.data_ptr<T>(), SumOp<T, SkipNan>{});
  });
  return out;
}

Tensor mean_impl(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<DType> dtype) {
  DType dt = dtype.value_or(self.dtype());
  EMBER_CHECK(
      is_floating_point(dt) || is_complex(dt),
      "mean(): could not infer output dtype. {} dtype must be either a floating point or complex dtype. Got: {}",
      dtype ? "Optional" : "Input", dt);
  Reduction r = prepare(self, dim, keepdim, dt);
  Tensor out = make_empty(r.out_sizes, dt);
  const double n = static_cast<double>(r.plan.num_reduced);
  dispatch_dtypes<kFloatingAndComplex>(dt, "mean", [&]<class T>() {
    struct MeanOp : SumOp<T, false> {
      double n;
      T project(sum_acc_t<T> a) const { return static_cast<T>(a / n); }
    };
    MeanOp op;
    op.n = n;
    run_reduce(r.plan, r.input.data_ptr<T>(), out.data_ptr<T>(), op);
  });
  return out;
}

Tensor prod_impl(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<DType> dtype) {
  Reduction r = prepare(self, dim, keepdim, sum_dtype(self, dtype));
  Tensor out = make_empty(r.out_sizes, r.input.dtype());
  dispatch_dtypes<kAllAndComplex>(r.input.dtype(), "prod", [&]<class T>() {
    struct ProdOp {
      using acc_t = sum_acc_t<T>;
      acc_t init() const { return 1; }
      acc_t fold(acc_t a, T v, int64_t) const { return a * static_cast<acc_t>(static_cast<opmath_t<T>>(v)); }
      acc_t merge(acc_t a, acc_t b) const { return a * b; }
      T project(acc_t a) const {
        if constexpr (std::is_same_v<T, bool>) return a != 0;
        else return static_cast<T>(a);
      }
    };
    run_reduce(r.plan, r.input.data_ptr<T>(), out.data_ptr<T>(), ProdOp{});
  });
  return out;
}

// ---- max/min with and without indices. NaN counts as the extreme; ties keep the first index.
template <class T, bool IsMax>
struct ExtremeOp {
  using M = opmath_t<T>;
  struct acc_t {
    M v;
    int64_t i;
  };
  static bool is_nan(M v) {
    if constexpr (std::is_floating_point_v<M>) return std::isnan(v);
    else return false;
  }
  acc_t init() const { return {IsMax ? std::numeric_limits<M>::lowest() : std::numeric_limits<M>::max(), -1}; }
  static bool better(const acc_t& a, M v) {
    if (a.i < 0) return true;
    if (is_nan(a.v)) return false;
    if (is_nan(v)) return true;
    return IsMax ? v > a.v : v < a.v;
  }
  acc_t fold(acc_t a, T v, int64_t i) const {
    M x = static_cast<M>(v);
    return better(a, x) ? acc_t{x, i} : a;
  }
  acc_t merge(acc_t a, acc_t b) const { return (b.i >= 0 && better(a, b.v)) ? b : a; }
};

template <bool IsMax>
struct ValueOnly {
  template <class T>
  struct Op : ExtremeOp<T, IsMax> {
    T project(typename ExtremeOp<T, IsMax>::acc_t a) const { return static_cast<T>(a.v); }
  };
};
template <bool IsMax>
struct IndexOnly {
  template <class T>
  struct Op : ExtremeOp<T, IsMax> {
    int64_t project(typename ExtremeOp<T, IsMax>::acc_t a) const { return a.i; }
  };
};

template <bool IsMax>
Tensor extreme_values(const char* name, const Tensor& self, OptionalIntArrayRef dim, bool keepdim) {
  Reduction r = prepare(self, dim, keepdim, self.dtype());
  EMBER_CHECK_INDEX(r.plan.num_reduced > 0 || r.plan.num_outputs == 0,
                    "{}(): Expected reduction dim {} to have non-zero size.", name,
                    r.dims.empty() ? 0 : r.dims[0]);
  Tensor out = make_empty(r.out_sizes, self.dtype());
  dispatch_dtypes<kAllTypes>(self.dtype(), name, [&]<class T>() {
    run_reduce(r.plan, r.input.data_ptr<T>(), out.data_ptr<T>(), typename ValueOnly<IsMax>::template Op<T>{});
  });
  return out;
}

template <bool IsMax>
std::tuple<Tensor, Tensor> extreme_dim(const char* name, const Tensor& self, int64_t dim, bool keepdim) {
  int64_t d = wrap_dim(dim, self.dim());
  EMBER_CHECK_INDEX(self.dim() == 0 || self.sizes()[d] > 0, "{}(): Expected reduction dim {} to have non-zero size.",
                    name, d);
  Tensor values = extreme_values<IsMax>(name, self, IntArrayRef(&d, self.dim() == 0 ? 0 : 1), keepdim);
  Reduction r = prepare(self, IntArrayRef(&d, self.dim() == 0 ? 0 : 1), keepdim, self.dtype());
  Tensor idx = make_empty(r.out_sizes, kInt64);
  dispatch_dtypes<kAllTypes>(self.dtype(), name, [&]<class T>() {
    run_reduce(r.plan, r.input.data_ptr<T>(), idx.data_ptr<int64_t>(), typename IndexOnly<IsMax>::template Op<T>{});
  });
  return {values, idx};
}

template <bool IsMax>
Tensor arg_extreme(const char* name, const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  if (!dim) {
    EMBER_CHECK_INDEX(self.numel() > 0, "{}(): Expected reduction dim to be specified for input.numel() == 0.", name);
    Tensor flat = self.reshape({-1});
    Reduction r = prepare(flat, std::nullopt, false, self.dtype());
    Tensor idx = make_empty({}, kInt64);
    dispatch_dtypes<kNumericTypes>(self.dtype(), name, [&]<class T>() {
      run_reduce(r.plan, r.input.data_ptr<T>(), idx.data_ptr<int64_t>(), typename IndexOnly<IsMax>::template Op<T>{});
    });
    if (keepdim) return idx.reshape(DimVector(static_cast<size_t>(self.dim()), 1));
    return idx;
  }
  int64_t d = wrap_dim(*dim, self.dim());
  EMBER_CHECK_INDEX(self.dim() == 0 || self.sizes()[d] > 0, "{}(): Expected reduction dim {} to have non-zero size.",
                    name, d);
  Reduction r = prepare(self, IntArrayRef(&d, self.dim() == 0 ? 0 : 1), keepdim, self.dtype());
  Tensor idx = make_empty(r.out_sizes, kInt64);
  if (idx.numel() == 0) return idx;  // nothing to compute: no dtype check either, as PyTorch
  dispatch_dtypes<kNumericTypes>(self.dtype(), name, [&]<class T>() {
    run_reduce(r.plan, r.input.data_ptr<T>(), idx.data_ptr<int64_t>(), typename IndexOnly<IsMax>::template Op<T>{});
  });
  return idx;
}

// ---- var/std: Welford's online update, merged with Chan et al.'s formula.
struct Welford {
  double mean = 0, m2 = 0;
  int64_t n = 0;
};
template <class T>
struct WelfordOp {
  using acc_t = Welford;
  acc_t init() const { return {}; }
  acc_t fold(acc_t a, T v, int64_t) const {
    double x = static_cast<double>(static_cast<opmath_t<T>>(v));
    a.n += 1;
    double delta = x - a.mean;
    a.mean += delta / static_cast<double>(a.n);
    a.m2 += delta * (x - a.mean);
    return a;
  }
  acc_t merge(acc_t a, acc_t b) const {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    int64_t n = a.n + b.n;
    double delta = b.mean - a.mean;
    double nb = static_cast<double>(b.n) / static_cast<double>(n);
    return {a.mean + delta * nb, a.m2 + b.m2 + delta * delta * static_cast<double>(a.n) * nb, n};
  }
  acc_t project(acc_t a) const { return a; }
};

// Variance and mean over dim with `correction` (1 when absent); take_sqrt gives the standard deviation.
std::tuple<Tensor, Tensor> var_mean_impl(const char* name, const Tensor& self, OptionalIntArrayRef dim,
                                         std::optional<int64_t> correction, bool keepdim, bool take_sqrt) {
  EMBER_CHECK(is_floating_point(self.dtype()), "{}: std and var only support floating point and complex dtypes", name);
  Reduction r = prepare(self, dim, keepdim, self.dtype());
  int64_t num_out = 1;
  for (int64_t s : r.out_sizes) num_out *= s;
  std::vector<Welford> acc(static_cast<size_t>(num_out));
  dispatch_dtypes<kFloatingTypes>(self.dtype(), name, [&]<class T>() {
    run_reduce(r.plan, r.input.data_ptr<T>(), acc.data(), WelfordOp<T>{});
  });
  Tensor var = make_empty(r.out_sizes, self.dtype());
  Tensor mean = make_empty(r.out_sizes, self.dtype());
  const double c = static_cast<double>(correction.value_or(1));
  dispatch_dtypes<kFloatingTypes>(self.dtype(), name, [&]<class T>() {
    T* v = var.data_ptr<T>();
    T* m = mean.data_ptr<T>();
    for (int64_t i = 0; i < num_out; ++i) {
      const Welford& w = acc[static_cast<size_t>(i)];
      double denom = std::max(0.0, static_cast<double>(w.n) - c);
      double x = w.m2 / denom;  // 0/0 is NaN (too few elements), as PyTorch
      v[i] = static_cast<T>(take_sqrt ? std::sqrt(x) : x);
      m[i] = static_cast<T>(w.n ? w.mean : std::numeric_limits<double>::quiet_NaN());
    }
  });
  return {var, mean};
}

// ---- vector norms
Tensor vector_norm_impl(const Tensor& self, double ord, OptionalIntArrayRef dim, bool keepdim,
                        std::optional<DType> dtype) {
  DType dt = dtype.value_or(self.dtype());
  EMBER_CHECK(is_floating_point(self.dtype()) && is_floating_point(dt),
              "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {}", self.dtype());
  Reduction r = prepare(self, dim, keepdim, dt);
  // inf and the negative orders have no identity (max of nothing, a power sum of nothing raised to 1/ord < 0).
  EMBER_CHECK(!((std::isinf(ord) || ord < 0) && r.plan.num_reduced == 0 && r.plan.num_outputs > 0),
              "linalg.vector_norm cannot compute the {} norm on an empty tensor because the operation does not have "
              "an identity", ord);
  Tensor out = make_empty(r.out_sizes, dt);
  dispatch_dtypes<kFloatingTypes>(dt, "linalg.vector_norm", [&]<class T>() {
    struct NormOp {
      double p;
      using acc_t = double;
      acc_t init() const { return std::isinf(p) && p < 0 ? std::numeric_limits<double>::infinity() : 0.0; }
      acc_t fold(acc_t a, T v, int64_t) const {
        double x = std::abs(static_cast<double>(static_cast<opmath_t<T>>(v)));
        if (p == 2) return a + x * x;
        if (p == 1) return a + x;
        if (p == 0) return a + (x != 0);
        if (std::isinf(p)) return std::isnan(x) || std::isnan(a) ? std::numeric_limits<double>::quiet_NaN()
                                                                 : p > 0 ? std::max(a, x) : std::min(a, x);
        return a + std::pow(x, p);
      }
      acc_t merge(acc_t a, acc_t b) const {
        if (std::isinf(p)) return std::isnan(a) || std::isnan(b) ? std::numeric_limits<double>::quiet_NaN()
                                                                 : p > 0 ? std::max(a, b) : std::min(a, b);
        return a + b;
      }
      T project(acc_t a) const {
        if (p == 2) return static_cast<T>(std::sqrt(a));
        if (p == 1 || p == 0 || std::isinf(p)) return static_cast<T>(a);
        return static_cast<T>(std::pow(a, 1.0 / p));
      }
    };
    run_reduce(r.plan, r.input.data_ptr<T>(), out.data_ptr<T>(), NormOp{ord});
  });
  return out;
}

// ---- all / any / count_nonzero
template <bool IsAll>
Tensor all_any(const char* name, const Tensor& self, OptionalIntArrayRef dim, bool keepdim) {
  Reduction r = prepare(self, dim, keepdim, self.dtype());
  DType out_dt = self.dtype() == kUInt8 ? kUInt8 : kBool;  // PyTorch 1.13 keeps uint8
  Tensor out = make_empty(r.out_sizes, out_dt);
  dispatch_dtypes<kAllTypes>(self.dtype(), name, [&]<class T>() {
    struct Op {
      using acc_t = bool;
      acc_t init() const { return IsAll; }
      acc_t fold(acc_t a, T v, int64_t) const {
        bool nz = static_cast<opmath_t<T>>(v) != opmath_t<T>(0);
        return IsAll ? (a && nz) : (a || nz);
      }
      acc_t merge(acc_t a, acc_t b) const { return IsAll ? (a && b) : (a || b); }
      acc_t project(acc_t a) const { return a; }
    };
    if (out_dt == kBool) {
      run_reduce(r.plan, r.input.data_ptr<T>(), out.data_ptr<bool>(), Op{});
    } else {
      struct U8 : Op {
        uint8_t project(bool a) const { return a; }
      };
      run_reduce(r.plan, r.input.data_ptr<T>(), out.data_ptr<uint8_t>(), U8{});
    }
  });
  return out;
}

// ---- scans
template <bool IsSum>
Tensor scan_impl(const char* name, const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  DType dt = sum_dtype(self, dtype);
  Tensor x = self.dtype() == dt ? self : self.to(dt);
  int64_t d = wrap_dim(dim, x.dim());
  Tensor out = make_empty(x.sizes(), dt);
  if (x.numel() == 0) return out;
  if (x.dim() == 0) return out.copy_(x);
  Reduction rin = prepare(x, IntArrayRef(&d, 1), true, dt);
  Reduction rout = prepare(out, IntArrayRef(&d, 1), true, dt);
  const int64_t len = x.sizes()[d], sin = x.strides()[d], sout = out.strides()[d];
  // cumsum takes complex inputs (cumprod's complex derivative is not written yet).
  dispatch_dtypes<IsSum ? kAllAndComplex : kAllTypes>(dt, name, [&]<class T>() {
    const T* in = x.data_ptr<T>();
    T* o = out.data_ptr<T>();
    parallel_for(rin.plan.num_outputs, std::max<int64_t>(1, kGrainSize / len), [&](int64_t b, int64_t e) {
      for (int64_t line = b; line < e; ++line) {
        const T* src = in + detail::kept_offset(rin.plan, line);
        T* dst = o + detail::kept_offset(rout.plan, line);
        sum_acc_t<T> acc = IsSum ? 0 : 1;
        for (int64_t i = 0; i < len; ++i) {
          auto v = static_cast<sum_acc_t<T>>(static_cast<opmath_t<T>>(src[i * sin]));
          acc = IsSum ? acc + v : acc * v;
          if constexpr (std::is_same_v<T, bool>) dst[i * sout] = acc != 0;
          else dst[i * sout] = static_cast<T>(acc);
        }
      }
    });
  });
  return out;
}

// ---- softmax
template <bool Log>
Tensor softmax_impl(const char* name, const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  Tensor x = dtype && *dtype != self.dtype() ? self.to(*dtype) : self;
  DType dt = x.dtype();
  int64_t d = wrap_dim(dim, x.dim());
  Tensor out = make_empty(x.sizes(), dt);
  if (x.numel() == 0) return out;
  if (x.dim() == 0) x = x.reshape({1});
  Tensor o = x.dim() == out.dim() ? out : out.reshape({1});
  Reduction rin = prepare(x, IntArrayRef(&d, 1), true, dt);
  Reduction rout = prepare(o, IntArrayRef(&d, 1), true, dt);
  const int64_t len = x.sizes()[d], sin = x.strides()[d], sout = o.strides()[d];
  dispatch_dtypes<kFloatingTypes>(dt, name, [&]<class T>() {
    using M = opmath_t<T>;
    const T* in = x.data_ptr<T>();
    T* op = o.data_ptr<T>();
    VecLoopFn vexp = vec_loop(VecOp::Exp, dtype_of<M>());
    parallel_for(rin.plan.num_outputs, std::max<int64_t>(1, kGrainSize / len), [&](int64_t b, int64_t e) {
      std::vector<M> buf(static_cast<size_t>(len)), ex(static_cast<size_t>(len));
      for (int64_t line = b; line < e; ++line) {
        const T* src = in + detail::kept_offset(rin.plan, line);
        T* dst = op + detail::kept_offset(rout.plan, line);
        M mx = -std::numeric_limits<M>::infinity();
        for (int64_t i = 0; i < len; ++i) {
          buf[i] = static_cast<M>(src[i * sin]);
          mx = std::isnan(buf[i]) || buf[i] > mx ? buf[i] : mx;
        }
        if (std::isinf(mx) && mx < 0) mx = 0;  // all -inf: avoid inf - inf
        for (int64_t i = 0; i < len; ++i) ex[i] = buf[i] - mx;
        char* ptrs[2] = {reinterpret_cast<char*>(ex.data()), reinterpret_cast<char*>(ex.data())};
        const int64_t st[2] = {sizeof(M), sizeof(M)};
        if (vexp) vexp(ptrs, st, len, 1.0);
        else for (int64_t i = 0; i < len; ++i) ex[i] = std::exp(ex[i]);
        const double sum = sum_contiguous(ex.data(), len);  // Note [vectorized sums]
        if constexpr (Log) {
          M ls = static_cast<M>(std::log(sum));
          for (int64_t i = 0; i < len; ++i) dst[i * sout] = static_cast<T>(buf[i] - mx - ls);
        } else {
          M inv = static_cast<M>(1.0 / sum);
          for (int64_t i = 0; i < len; ++i) dst[i * sout] = static_cast<T>(ex[i] * inv);
        }
      }
    });
  });
  return out;
}

}  // namespace

Tensor sum(const Tensor& self, std::optional<DType> dtype) {
  return sum_impl<false>("sum", self, std::nullopt, false, dtype);
}
Tensor sum_dim(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<DType> dtype) {
  return sum_impl<false>("sum", self, dim, keepdim, dtype);
}
Tensor sum_dim_out(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<DType> dtype,
                   const Tensor& out) {
  return to_out(cpu::sum_dim(self, dim, keepdim, dtype ? dtype : std::optional<DType>(out.dtype())), out);
}
Tensor nansum(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<DType> dtype) {
  return sum_impl<true>("nansum", self, dim, keepdim, dtype);
}
Tensor nansum_out(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<DType> dtype,
                  const Tensor& out) {
  return to_out(cpu::nansum(self, dim, keepdim, dtype), out);
}
Tensor mean(const Tensor& self, std::optional<DType> dtype) { return mean_impl(self, std::nullopt, false, dtype); }
Tensor mean_dim(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<DType> dtype) {
  return mean_impl(self, dim, keepdim, dtype);
}
Tensor mean_dim_out(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<DType> dtype,
                    const Tensor& out) {
  return to_out(mean_impl(self, dim, keepdim, dtype), out);
}
Tensor prod(const Tensor& self, std::optional<DType> dtype) { return prod_impl(self, std::nullopt, false, dtype); }
Tensor prod_dim(const Tensor& self, int64_t dim, bool keepdim, std::optional<DType> dtype) {
  int64_t d = wrap_dim(dim, self.dim());
  return prod_impl(self, IntArrayRef(&d, self.dim() == 0 ? 0 : 1), keepdim, dtype);
}
Tensor prod_dim_out(const Tensor& self, int64_t dim, bool keepdim, std::optional<DType> dtype, const Tensor& out) {
  return to_out(cpu::prod_dim(self, dim, keepdim, dtype), out);
}

Tensor max(const Tensor& self) {
  EMBER_CHECK(self.numel() > 0,
              "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with "
              "the 'dim' argument.");
  return extreme_values<true>("max", self, std::nullopt, false);
}
Tensor min(const Tensor& self) {
  EMBER_CHECK(self.numel() > 0,
              "min(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with "
              "the 'dim' argument.");
  return extreme_values<false>("min", self, std::nullopt, false);
}
std::tuple<Tensor, Tensor> max_dim(const Tensor& self, int64_t dim, bool keepdim) {
  return extreme_dim<true>("max", self, dim, keepdim);
}
std::tuple<Tensor, Tensor> min_dim(const Tensor& self, int64_t dim, bool keepdim) {
  return extreme_dim<false>("min", self, dim, keepdim);
}
Tensor amax(const Tensor& self, IntArrayRef dim, bool keepdim) {
  EMBER_CHECK(self.numel() > 0 || !dim.empty(),
              "amax(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with "
              "the 'dim' argument.");
  return extreme_values<true>("amax", self, dim, keepdim);
}
Tensor amax_out(const Tensor& self, IntArrayRef dim, bool keepdim, const Tensor& out) {
  return to_out_same_dtype("amax", cpu::amax(self, dim, keepdim), out);
}
Tensor amin(const Tensor& self, IntArrayRef dim, bool keepdim) {
  EMBER_CHECK(self.numel() > 0 || !dim.empty(),
              "amin(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with "
              "the 'dim' argument.");
  return extreme_values<false>("amin", self, dim, keepdim);
}
Tensor amin_out(const Tensor& self, IntArrayRef dim, bool keepdim, const Tensor& out) {
  return to_out_same_dtype("amin", cpu::amin(self, dim, keepdim), out);
}
Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme<true>("argmax", self, dim, keepdim);
}
Tensor argmax_out(const Tensor& self, std::optional<int64_t> dim, bool keepdim, const Tensor& out) {
  return to_out_same_dtype("argmax", cpu::argmax(self, dim, keepdim), out);
}
Tensor argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme<false>("argmin", self, dim, keepdim);
}
Tensor argmin_out(const Tensor& self, std::optional<int64_t> dim, bool keepdim, const Tensor& out) {
  return to_out_same_dtype("argmin", cpu::argmin(self, dim, keepdim), out);
}

Tensor var(const Tensor& self, OptionalIntArrayRef dim, std::optional<int64_t> correction, bool keepdim) {
  return std::get<0>(var_mean_impl("var", self, dim, correction, keepdim, false));
}
Tensor var_out(const Tensor& self, OptionalIntArrayRef dim, std::optional<int64_t> correction, bool keepdim,
               const Tensor& out) {
  return to_out(cpu::var(self, dim, correction, keepdim), out);
}
Tensor std(const Tensor& self, OptionalIntArrayRef dim, std::optional<int64_t> correction, bool keepdim) {
  return std::get<0>(var_mean_impl("std", self, dim, correction, keepdim, true));
}
Tensor std_out(const Tensor& self, OptionalIntArrayRef dim, std::optional<int64_t> correction, bool keepdim,
               const Tensor& out) {
  return to_out(cpu::std(self, dim, correction, keepdim), out);
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, OptionalIntArrayRef dim, std::optional<int64_t> correction,
                                    bool keepdim) {
  return var_mean_impl("var_mean", self, dim, correction, keepdim, false);
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, OptionalIntArrayRef dim, std::optional<int64_t> correction,
                                    bool keepdim) {
  return var_mean_impl("std_mean", self, dim, correction, keepdim, true);
}

Tensor linalg_vector_norm(const Tensor& self, const Scalar& ord, OptionalIntArrayRef dim, bool keepdim,
                          std::optional<DType> dtype) {
  return vector_norm_impl(self, ord.to_double(), dim, keepdim, dtype);
}
Tensor linalg_vector_norm_out(const Tensor& self, const Scalar& ord, OptionalIntArrayRef dim, bool keepdim,
                              std::optional<DType> dtype, const Tensor& out) {
  return to_out(cpu::linalg_vector_norm(self, ord, dim, keepdim, dtype), out);
}

// logsumexp = m + log(sum(exp(x - m))) with m the maximum over dim (0 where it is infinite).
Tensor logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim) {
  Tensor x = is_floating_point(self.dtype()) ? self : self.to(default_dtype());
  if (x.numel() == 0) return ember::sum(ember::exp(x), dim, keepdim).log();
  Tensor m = ember::amax(x, dim, true);
  m = ember::where(ember::isinf(m), ember::zeros_like(m), m);
  Tensor s = ember::sum(ember::exp(ember::sub(x, m)), dim, true).log_().add_(m);
  if (keepdim) return s;
  DimVector dims = reduce_dims(x, dim);
  return s.reshape(reduced_sizes(x.sizes(), dims, false));
}
Tensor logsumexp_out(const Tensor& self, IntArrayRef dim, bool keepdim, const Tensor& out) {
  return to_out(cpu::logsumexp(self, dim, keepdim), out);
}

Tensor all(const Tensor& self) { return all_any<true>("all", self, std::nullopt, false); }
Tensor any(const Tensor& self) { return all_any<false>("any", self, std::nullopt, false); }
Tensor all_dim(const Tensor& self, int64_t dim, bool keepdim) {
  int64_t d = wrap_dim(dim, self.dim());
  return all_any<true>("all", self, IntArrayRef(&d, self.dim() == 0 ? 0 : 1), keepdim);
}
Tensor any_dim(const Tensor& self, int64_t dim, bool keepdim) {
  int64_t d = wrap_dim(dim, self.dim());
  return all_any<false>("any", self, IntArrayRef(&d, self.dim() == 0 ? 0 : 1), keepdim);
}
Tensor all_dim_out(const Tensor& self, int64_t dim, bool keepdim, const Tensor& out) {
  return to_out(cpu::all_dim(self, dim, keepdim), out);
}
Tensor any_dim_out(const Tensor& self, int64_t dim, bool keepdim, const Tensor& out) {
  return to_out(cpu::any_dim(self, dim, keepdim), out);
}
Tensor count_nonzero_dims(const Tensor& self, IntArrayRef dim) {
  return sum_impl<false>("count_nonzero", ember::ne(self, wrapped_scalar_tensor(0)), dim, false, kInt64);
}

namespace {
// A scan's out= is written position by position from the input: it may be the input itself, never a shifted view
// of it (Note [memory overlap]).
void check_scan_out(const char* name, const Tensor& self, const Tensor& out) {
  assert_no_internal_overlap(name, out);
  assert_no_partial_overlap(name, out, self);
}
}  // namespace

Tensor cumsum(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  return scan_impl<true>("cumsum", self, dim, dtype);
}
Tensor cumsum_(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  EMBER_CHECK(!dtype || *dtype == self.dtype(),
              "cumsum_: Bad in-place call: input tensor dtype {} and output tensor dtype {} should match",
              self.dtype(), *dtype);
  return self.copy_(scan_impl<true>("cumsum_", self, dim, dtype.value_or(self.dtype())));
}
Tensor cumsum_out(const Tensor& self, int64_t dim, std::optional<DType> dtype, const Tensor& out) {
  check_scan_out("cumsum", self, out);
  const std::optional<DType> result_dtype = dtype ? dtype : std::optional<DType>(out.dtype());
  return to_out_same_dtype("cumsum", scan_impl<true>("cumsum", self, dim, result_dtype), out);
}
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  return scan_impl<false>("cumprod", self, dim, dtype);
}
Tensor cumprod_(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  EMBER_CHECK(!dtype || *dtype == self.dtype(),
              "cumprod_: Bad in-place call: input tensor dtype {} and output tensor dtype {} should match",
              self.dtype(), *dtype);
  return self.copy_(scan_impl<false>("cumprod_", self, dim, dtype.value_or(self.dtype())));
}
Tensor cumprod_out(const Tensor& self, int64_t dim, std::optional<DType> dtype, const Tensor& out) {
  check_scan_out("cumprod", self, out);
  const std::optional<DType> result_dtype = dtype ? dtype : std::optional<DType>(out.dtype());
  return to_out_same_dtype("cumprod", scan_impl<false>("cumprod", self, dim, result_dtype), out);
}

Tensor softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  return softmax_impl<false>("softmax", self, dim, dtype);
}
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  return softmax_impl<true>("log_softmax", self, dim, dtype);
}

// ---- cummax, cummin, logcumsumexp
// Note [scans with indices]
// cummax/cummin follow PyTorch 1.13's cummax_helper: the running value is replaced when the element is NaN,
// or when the running value is not NaN and the element is >= (cummax; <= for cummin) it, so equal values move
// the index to the latest one and a NaN, once seen, stays (each later NaN taking the index).
// logcumsumexp runs PyTorch's log_add_exp on the element and the running value (from -inf), in the element's
// own precision: log1p(exp(min - max)) + max, NaN propagating, equal infinities kept as they are.
namespace {

// f(src, dst, len, in_stride, out_stride, line) for every line of x along d; out has x's sizes.
template <class T, class F>
void for_each_line(const Tensor& x, const Tensor& out, int64_t d, F&& f) {
  Reduction rin = prepare(x, IntArrayRef(&d, 1), true, x.dtype());
  Reduction rout = prepare(out, IntArrayRef(&d, 1), true, out.dtype());
  const int64_t len = x.sizes()[d];
  const T* in = x.data_ptr<T>();
  parallel_for(rin.plan.num_outputs, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(len, 1)),
               [&](int64_t b, int64_t e) {
                 for (int64_t line = b; line < e; ++line)
                   f(in + detail::kept_offset(rin.plan, line), detail::kept_offset(rout.plan, line), len);
               });
}

template <bool IsMax>
std::tuple<Tensor, Tensor> cum_extreme(const char* name, const Tensor& self, int64_t dim) {
  const int64_t d = wrap_dim(dim, self.dim());
  Tensor values = make_empty(self.sizes(), self.dtype());
  Tensor indices = make_empty(self.sizes(), kInt64);
  dispatch_dtypes<kAllTypes>(self.dtype(), name, [&]<class T>() {
    using M = opmath_t<T>;
    if (self.numel() == 0) return;
    if (self.dim() == 0) {
      values.copy_(self);
      indices.data_ptr<int64_t>()[0] = 0;
      return;
    }
    const int64_t sin = self.strides()[d], sv = values.strides()[d];
    T* vo = values.data_ptr<T>();
    int64_t* io = indices.data_ptr<int64_t>();
    auto nan = [](M v) {
      if constexpr (std::is_floating_point_v<M>) return std::isnan(v);
      else return false;
    };
    for_each_line<T>(self, values, d, [&](const T* src, int64_t ooff, int64_t len) {
      M best = static_cast<M>(src[0]);
      int64_t idx = 0;
      for (int64_t i = 0; i < len; ++i) {
        const M x = static_cast<M>(src[i * sin]);
        const bool replace = IsMax ? x >= best : x <= best;
        if (nan(x) || (!nan(best) && replace)) {
          best = x;
          idx = i;
        }
        vo[ooff + i * sv] = static_cast<T>(best);
        io[ooff + i * sv] = idx;
      }
    });
  });
  return {values, indices};
}

}  // namespace

std::tuple<Tensor, Tensor> cummax(const Tensor& self, int64_t dim) { return cum_extreme<true>("cummax", self, dim); }
std::tuple<Tensor, Tensor> cummin(const Tensor& self, int64_t dim) { return cum_extreme<false>("cummin", self, dim); }

Tensor logcumsumexp(const Tensor& self, int64_t dim) {
  if (self.dtype() == kFloat16 || self.dtype() == kBFloat16)  // computed as float32, then rounded
    return cpu::logcumsumexp(self.to(kFloat32), dim).to(self.dtype());
  const int64_t d = wrap_dim(dim, self.dim());
  Tensor out = make_empty(self.sizes(), self.dtype());
  dispatch_dtypes<dtype_bit(kFloat32) | dtype_bit(kFloat64) | dtype_bit(kBFloat16)>(self.dtype(), "logcumsumexp",
                                                                                    [&]<class T>() {
    using M = opmath_t<T>;
    if (self.numel() == 0) return;
    if (self.dim() == 0) {
      out.copy_(self);
      return;
    }
    const int64_t sin = self.strides()[d], so = out.strides()[d];
    T* o = out.data_ptr<T>();
    for_each_line<T>(self, out, d, [&](const T* src, int64_t ooff, int64_t len) {
      T cum = static_cast<T>(-std::numeric_limits<M>::infinity());
      for (int64_t i = 0; i < len; ++i) {
        const M x = static_cast<M>(src[i * sin]), y = static_cast<M>(cum);
        const M lo = std::isnan(y) ? y : std::min(x, y), hi = std::isnan(y) ? y : std::max(x, y);
        cum = static_cast<T>((lo != hi || std::isfinite(lo)) ? std::log1p(std::exp(lo - hi)) + hi : x);
        o[ooff + i * so] = cum;
      }
    });
  });
  return out;
}
Tensor logcumsumexp_out(const Tensor& self, int64_t dim, const Tensor& out) {
  check_scan_out("logcumsumexp", self, out);
  return to_out_same_dtype("logcumsumexp", cpu::logcumsumexp(self, dim), out);
}

}  // namespace ember::cpu
