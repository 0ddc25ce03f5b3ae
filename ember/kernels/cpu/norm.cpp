// Normalization kernels: native_batch_norm (and its backward, Note [batch_norm backward kernel]),
// native_layer_norm, native_group_norm. Statistics are accumulated in double (two passes: the mean, then the sum
// of squared deviations), and the output is written as
// x * a + b with a per-channel (or per-row) scale a and shift b, as PyTorch's CPU kernels do. The composites
// batch_norm, layer_norm and group_norm (argument checks, empty inputs) are in ember/ops/nn.cpp.
//
// Note [batch_norm running statistics]
// In training, batch_norm normalizes with the batch's biased variance (sum of squares / n) but updates
//   running_mean = momentum * mean + (1 - momentum) * running_mean
//   running_var  = momentum * (sum of squares / (n - 1)) + (1 - momentum) * running_var
// with the unbiased variance, in place, as PyTorch does (n = N * H * W, the elements per channel).
// In evaluation the running statistics normalize and nothing is updated.
#include <array>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "ember/kernels/cpu/Dispatch.h"
#include "ember/kernels/cpu/Loops.h"
#include "ember/kernels/cpu/OutputLayout.h"
#include "ember/kernels/cpu/Parallel.h"
#include "ember/kernels/cpu/generated/CPUKernels.h"
#include "ember/kernels/cpu/isa/VecLoops.h"

namespace ember::cpu {

namespace {

// A parameter tensor (weight, bias, running statistics) read as n doubles; `fill` when absent.
std::vector<double> read_param(const std::optional<Tensor>& p, int64_t n, double fill) {
  std::vector<double> v(static_cast<size_t>(n), fill);
  if (!p || !p->defined()) return v;
  const Tensor d = p->to(kFloat64).contiguous().reshape({-1});
  const double* src = d.data_ptr<double>();
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = src[i];
  return v;
}

bool defined(const std::optional<Tensor>& t) { return t && t->defined(); }


// The per-element passes (Note [normalization loops]): the instruction-set builds for float and double, plain
// loops in the operation type for the 16-bit types.
template <class T>
constexpr bool kVectorized = std::is_same_v<T, float> || std::is_same_v<T, double>;

// Sum of len elements of x, in double.
template <class T>
double sum_of(const T* x, int64_t len) {
  if constexpr (kVectorized<T>) return sum_contiguous(x, len);
  double s = 0;
  for (int64_t i = 0; i < len; ++i) s += static_cast<double>(static_cast<opmath_t<T>>(x[i]));
  return s;
}

// Sum of (x[i] - mean)^2 over len elements, in double.
template <class T>
double squared_deviations(const T* x, int64_t len, double mean) {
  if constexpr (kVectorized<T>) return norm_loops<T>().sum_squared_deviations(x, len, mean);
  double m2 = 0;
  for (int64_t i = 0; i < len; ++i) {
    const double d = static_cast<double>(static_cast<opmath_t<T>>(x[i])) - mean;
    m2 += d * d;
  }
  return m2;
}

// sums[0] += sum of g[i], sums[1] += sum of g[i] * (x[i] - mean) over len elements, in double.
template <class T>
void grad_deviations(const T* g, const T* x, int64_t len, double mean, double* sums) {
  if constexpr (kVectorized<T>) return norm_loops<T>().sum_grad_deviations(g, x, len, mean, sums);
  using M = opmath_t<T>;
  for (int64_t i = 0; i < len; ++i) {
    const double gv = static_cast<double>(static_cast<M>(g[i]));
    sums[0] += gv;
    sums[1] += gv * (static_cast<double>(static_cast<M>(x[i])) - mean);
  }
}

// Mean and sum of squared deviations of len elements of x, in double.
template <class T>
std::pair<double, double> moments(const T* x, int64_t len) {
  const double mean = sum_of(x, len) / static_cast<double>(len);
  return {mean, squared_deviations(x, len, mean)};
}

// out[i] = x[i] * a + b over len elements, in the operation type.
template <class T>
void affine(const T* x, T* out, int64_t len, double a, double b) {
  using M = opmath_t<T>;
  const M am = static_cast<M>(a), bm = static_cast<M>(b);
  if constexpr (kVectorized<T>) return norm_loops<T>().scale_shift(x, out, len, am, bm);
  for (int64_t i = 0; i < len; ++i) out[i] = static_cast<T>(static_cast<M>(x[i]) * am + bm);
}

// out[i] = (g[i] * a + x[i] * b) + d over len elements, in the operation type.
template <class T>
void affine2(const T* g, const T* x, T* out, int64_t len, double a, double b, double d) {
  using M = opmath_t<T>;
  const M am = static_cast<M>(a), bm = static_cast<M>(b), dm = static_cast<M>(d);
  if constexpr (kVectorized<T>) return norm_loops<T>().scale_shift2(g, x, out, len, am, bm, dm);
  for (int64_t i = 0; i < len; ++i)
    out[i] = static_cast<T>(static_cast<M>(g[i]) * am + static_cast<M>(x[i]) * bm + dm);
}

// A vector of doubles as a 1-D tensor of dtype dt.
Tensor from_doubles(const std::vector<double>& v, DimVector sizes, DType dt) {
  Tensor t = make_empty(sizes, kFloat64);
  std::copy(v.begin(), v.end(), t.data_ptr<double>());
  return dt == kFloat64 ? t : t.to(dt);
}

// Writes n doubles into a running statistic. Like PyTorch's kernel, this does not bump the tensor's version: the
// statistics are buffers the autograd graph saves (for evaluation mode), and the update of each training
// forward must not invalidate the graphs of earlier forwards. A buffer of several dims that is not contiguous
// (never made by nn modules) goes through copy_.
void write_running_stat(const Tensor& p, const std::vector<double>& v) {
  if (p.dim() > 1 && !p.is_contiguous()) {
    p.copy_(from_doubles(v, {static_cast<int64_t>(v.size())}, kFloat64).reshape(p.sizes()));
    return;
  }
  const int64_t step = p.dim() == 1 ? p.stride(0) : 1;
  dispatch_dtypes<kFloatingTypes>(p.dtype(), "native_batch_norm", [&]<class T>() {
    T* dst = p.data_ptr<T>();
    for (size_t i = 0; i < v.size(); ++i) dst[static_cast<int64_t>(i) * step] = static_cast<T>(v[i]);
  });
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& input, const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias,
                                                     const std::optional<Tensor>& running_mean,
                                                     const std::optional<Tensor>& running_var, bool training,
                                                     double momentum, double eps) {
  const char* op = "batch_norm";
  const int64_t C = input.size(1);  // a 1-D input raises IndexError, as PyTorch's
  // Parameters have input's dtype, or float32 beside a 16-bit floating input (PyTorch's mixed type).
  const bool narrow = input.dtype() == kBFloat16 || input.dtype() == kFloat16;
  DType param_dt = input.dtype();
  for (const auto* p : {&weight, &bias, &running_mean, &running_var}) {
    if (!defined(*p)) continue;
    if (narrow && (*p)->dtype() == kFloat32) param_dt = kFloat32;
  }
  for (const auto* p : {&weight, &bias, &running_mean, &running_var}) {
    if (!defined(*p)) continue;
    EMBER_CHECK((*p)->dtype() == param_dt,
                "{}: mixed dtype (CPU): expect parameter to have scalar type of {} (input {}, parameter {})", op,
                input.is_floating_point() && !narrow ? input.dtype() : kFloat32, input.dtype(), (*p)->dtype());
  }
  for (const auto* p : {&weight, &bias, &running_mean, &running_var}) {
    EMBER_CHECK(!defined(*p) || (*p)->numel() == C, "{}: expected a parameter of {} elements, got shape {}", op, C,
                (*p)->sizes());
  }
  Tensor x = input.contiguous();
  Tensor out = make_empty(input.sizes(), input.dtype());
  const int64_t N = input.size(0);
  int64_t HW = 1;
  for (int64_t d = 2; d < input.dim(); ++d) HW *= input.size(d);
  const int64_t n = N * HW;  // elements per channel
  const std::vector<double> w = read_param(weight, C, 1.0), b = read_param(bias, C, 0.0);
  std::vector<double> mean(static_cast<size_t>(C)), invstd(static_cast<size_t>(C));
  dispatch_dtypes<kFloatingTypes>(input.dtype(), op, [&]<class T>() {
    const T* xp = x.data_ptr<T>();
    T* yp = out.data_ptr<T>();
    if (training) {
      std::vector<double> m2(static_cast<size_t>(C));
      parallel_for(C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, n)), [&](int64_t cb, int64_t ce) {
        for (int64_t c = cb; c < ce; ++c) {
          double s = 0;
          for (int64_t i = 0; i < N; ++i) s += sum_of(xp + (i * C + c) * HW, HW);
          const double mu = s / static_cast<double>(n);
          double q = 0;
          for (int64_t i = 0; i < N; ++i) q += squared_deviations(xp + (i * C + c) * HW, HW, mu);
          mean[c] = mu;
          m2[c] = q;
          const double var = q / static_cast<double>(n);
          invstd[c] = (var == 0 && eps == 0) ? 0.0 : 1.0 / std::sqrt(var + eps);
        }
      });
      // See Note [batch_norm running statistics].
      if (n > 0 && defined(running_mean)) {
        std::vector<double> rm = read_param(running_mean, C, 0.0);
        for (int64_t c = 0; c < C; ++c) rm[c] = momentum * mean[c] + (1 - momentum) * rm[c];
        write_running_stat(*running_mean, rm);
      }
      if (n > 0 && defined(running_var)) {
        std::vector<double> rv = read_param(running_var, C, 1.0);
        for (int64_t c = 0; c < C; ++c)
          rv[c] = momentum * (m2[c] / static_cast<double>(n - 1)) + (1 - momentum) * rv[c];
        write_running_stat(*running_var, rv);
      }
    } else {
      EMBER_CHECK(defined(running_mean) && defined(running_var),
                  "{}: running_mean and running_var must be defined in evaluation mode", op);
      const std::vector<double> rm = read_param(running_mean, C, 0.0), rv = read_param(running_var, C, 1.0);
      for (int64_t c = 0; c < C; ++c) {
        mean[c] = rm[c];
        invstd[c] = 1.0 / std::sqrt(rv[c] + eps);
      }
    }
    parallel_for(N * C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, HW)), [&](int64_t pb, int64_t pe) {
      for (int64_t p = pb; p < pe; ++p) {
        const int64_t c = p % C;
        const double a = invstd[c] * w[c];
        affine(xp + p * HW, yp + p * HW, HW, a, b[c] - mean[c] * a);
      }
    });
  });
  out = in_format_of(out, input);
  if (!training) return {out, make_empty({0}, param_dt), make_empty({0}, param_dt)};
  return {out, from_doubles(mean, {C}, param_dt), from_doubles(invstd, {C}, param_dt)};
}

// Note [batch_norm backward kernel]
// With y = (x - mean) * invstd * w + b per channel, n elements per channel, and dy the output's gradient:
//   grad_bias   = sum(dy)
//   grad_weight = sum(dy * (x - mean)) * invstd
//   grad_input  = (dy - sum(dy) / n - (x - mean) * invstd^2 * sum(dy * (x - mean)) / n) * invstd * w   (training)
//               = dy * invstd * w                                                                       (evaluation)
// where training uses the batch statistics the forward saved and evaluation the running ones. Two passes over
// the data (the per-channel sums, in double, then grad_input) instead of the dozen elementwise ops and
// reductions of the composite formula; autograd calls it only when no graph is recorded (FunctionsNN.cpp's
// batch_norm_backward): with create_graph the differentiable composite runs instead.
std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward(
    const Tensor& grad_out, const Tensor& input, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd, bool train, double eps,
    std::array<bool, 3> output_mask) {
  const char* op = "native_batch_norm_backward";
  EMBER_CHECK(input.dim() >= 2, "{}: expected an input of at least 2 dims, got shape {}", op, input.sizes());
  EMBER_CHECK(grad_out.sizes().equals(input.sizes()), "{}: expected grad_out of the input's shape {}, got {}", op,
              input.sizes(), grad_out.sizes());
  EMBER_CHECK(grad_out.dtype() == input.dtype(), "{}: expected grad_out of the input's dtype {}, got {}", op,
              input.dtype(), grad_out.dtype());
  const int64_t C = input.size(1);
  const auto* stat_mean = train ? &save_mean : &running_mean;
  const auto* stat_var = train ? &save_invstd : &running_var;
  for (const auto* p : {&weight, stat_mean, stat_var}) {
    EMBER_CHECK(!defined(*p) || (*p)->numel() == C, "{}: expected a parameter of {} elements, got shape {}", op, C,
                (*p)->sizes());
  }
  EMBER_CHECK(defined(*stat_mean) && defined(*stat_var), "{}: {} must be defined {}", op,
              train ? "save_mean and save_invstd" : "running_mean and running_var",
              train ? "in training mode" : "in evaluation mode");
  const Tensor x = input.contiguous(), dy = grad_out.contiguous();
  const int64_t N = input.size(0);
  int64_t HW = 1;
  for (int64_t d = 2; d < input.dim(); ++d) HW *= input.size(d);
  const int64_t n = N * HW;
  const std::vector<double> w = read_param(weight, C, 1.0), mean = read_param(*stat_mean, C, 0.0);
  std::vector<double> invstd = read_param(*stat_var, C, 1.0);
  if (!train)
    for (double& v : invstd) v = 1.0 / std::sqrt(v + eps);
  const DType param_dt = defined(weight) ? weight->dtype() : (*stat_mean)->dtype();
  std::vector<double> sum_dy(static_cast<size_t>(C)), sum_dy_xmu(static_cast<size_t>(C));
  Tensor gi = output_mask[0] ? make_empty(input.sizes(), input.dtype()) : Tensor();
  dispatch_dtypes<kFloatingTypes>(input.dtype(), op, [&]<class T>() {
    const T* xp = x.data_ptr<T>();
    const T* gp = dy.data_ptr<T>();
    const bool need_sums = output_mask[1] || output_mask[2] || (output_mask[0] && train);
    if (need_sums) {
      parallel_for(C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, n)), [&](int64_t cb, int64_t ce) {
        for (int64_t c = cb; c < ce; ++c) {
          double sums[2] = {0, 0};
          for (int64_t i = 0; i < N; ++i)
            grad_deviations(gp + (i * C + c) * HW, xp + (i * C + c) * HW, HW, mean[c], sums);
          sum_dy[c] = sums[0];
          sum_dy_xmu[c] = sums[1];
        }
      });
    }
    if (!output_mask[0] || n == 0) return;
    T* op_ = gi.data_ptr<T>();
    parallel_for(N * C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, HW)), [&](int64_t pb, int64_t pe) {
      for (int64_t p = pb; p < pe; ++p) {
        const int64_t c = p % C;
        const T* xr = xp + p * HW;
        const T* gr = gp + p * HW;
        T* out = op_ + p * HW;
        // grad_input = dy * a + x * b + d, per channel (Note [batch_norm backward kernel]).
        const double a = invstd[c] * w[c];
        double b = 0, d = 0;
        if (train) {
          const double k = sum_dy_xmu[c] / static_cast<double>(n) * invstd[c] * invstd[c];
          b = -k * a;
          d = (mean[c] * k - sum_dy[c] / static_cast<double>(n)) * a;
        }
        affine2(gr, xr, out, HW, a, b, d);
      }
    });
  });
  Tensor gw, gb;
  if (output_mask[1] && defined(weight)) {
    std::vector<double> v(static_cast<size_t>(C));
    for (int64_t c = 0; c < C; ++c) v[c] = sum_dy_xmu[c] * invstd[c];
    gw = from_doubles(v, {C}, param_dt);
  }
  if (output_mask[2]) gb = from_doubles(sum_dy, {C}, param_dt);
  return {gi.defined() ? in_format_of(gi, input) : gi, gw, gb};
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                                                     const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, double eps) {
  const char* op = "layer_norm";
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  EMBER_CHECK(k >= 1,
              "{}: Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but "
              "got normalized_shape = {}", op, normalized_shape);
  EMBER_CHECK(!defined(weight) || weight->sizes().equals(normalized_shape),
              "{}: Expected weight to be of same shape as normalized_shape, but got weight of shape {} and "
              "normalized_shape = {}", op, weight ? weight->sizes() : IntArrayRef(), normalized_shape);
  EMBER_CHECK(!defined(bias) || bias->sizes().equals(normalized_shape),
              "{}: Expected bias to be of same shape as normalized_shape, but got bias of shape {} and "
              "normalized_shape = {}", op, bias ? bias->sizes() : IntArrayRef(), normalized_shape);
  const int64_t nd = input.dim();
  EMBER_CHECK(nd >= k && IntArrayRef(input.sizes().data() + (nd - k), static_cast<size_t>(k)).equals(normalized_shape),
              "{}: Given normalized_shape={}, expected input with shape [*, {}], but got input of size {}", op,
              normalized_shape, fmt::join(normalized_shape, ", "), input.sizes());
  for (const auto* p : {&weight, &bias}) {
    EMBER_CHECK(!defined(*p) || (*p)->dtype() == input.dtype(), "{}: expected scalar type {} but found {}", op,
                input.dtype(), (*p)->dtype());
  }
  const int64_t axis = nd - k;
  int64_t M = 1, Nn = 1;
  for (int64_t d = 0; d < nd; ++d) (d < axis ? M : Nn) *= input.size(d);
  DimVector stat_sizes(input.sizes().begin(), input.sizes().begin() + axis);
  for (int64_t d = 0; d < k; ++d) stat_sizes.push_back(1);
  Tensor x = input.contiguous();
  Tensor out = make_empty(input.sizes(), input.dtype());
  Tensor mean = make_empty(stat_sizes, input.dtype()), rstd = make_empty(stat_sizes, input.dtype());
  const std::vector<double> w = read_param(weight, Nn, 1.0), b = read_param(bias, Nn, 0.0);
  dispatch_dtypes<kFloatingTypes>(input.dtype(), op, [&]<class T>() {
    using Mt = opmath_t<T>;
    const T* xp = x.data_ptr<T>();
    T* o = out.data_ptr<T>();
    T* mp = mean.data_ptr<T>();
    T* rp = rstd.data_ptr<T>();
    parallel_for(M, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, Nn)), [&](int64_t rb, int64_t re) {
      for (int64_t r = rb; r < re; ++r) {
        const T* row = xp + r * Nn;
        T* dst = o + r * Nn;
        const auto [mu, m2] = moments(row, Nn);
        const double rs = 1.0 / std::sqrt(std::max(m2 / static_cast<double>(Nn), 0.0) + eps);
        mp[r] = static_cast<T>(mu);
        rp[r] = static_cast<T>(rs);
        // (x - mean) * rstd in double: exactly 0 for a constant row (PyTorch's x * rstd - mean * rstd in float
        // leaves rounding noise there).
        for (int64_t i = 0; i < Nn; ++i) {
          const double v = (static_cast<double>(static_cast<Mt>(row[i])) - mu) * rs;
          dst[i] = static_cast<T>(v * w[i] + b[i]);
        }
      }
    });
  });
  return {out, mean, rstd};
}

std::tuple<Tensor, Tensor, Tensor> native_group_norm(const Tensor& input, const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, int64_t N, int64_t C,
                                                     int64_t HxW, int64_t group, double eps) {
  const char* op = "group_norm";
  EMBER_CHECK(group > 0 && C % group == 0, "{}: Expected number of channels {} to be divisible by num_groups {}", op,
              C, group);
  EMBER_CHECK(input.numel() == N * C * HxW, "{}: Expected input of N * C * HxW = {} * {} * {} elements, got size {}",
              op, N, C, HxW, input.sizes());
  for (const auto* p : {&weight, &bias}) {
    EMBER_CHECK(!defined(*p) || (*p)->numel() == C, "{}: expected a parameter of {} elements, got shape {}", op, C,
                (*p)->sizes());
    EMBER_CHECK(!defined(*p) || (*p)->dtype() == input.dtype(), "{}: expected scalar type {} but found {}", op,
                input.dtype(), (*p)->dtype());
  }
  const int64_t D = C / group, len = D * HxW;
  Tensor x = input.contiguous();
  Tensor out = make_empty(input.sizes(), input.dtype());
  Tensor mean = make_empty({N, group}, input.dtype()), rstd = make_empty({N, group}, input.dtype());
  const std::vector<double> w = read_param(weight, C, 1.0), b = read_param(bias, C, 0.0);
  dispatch_dtypes<kFloatingTypes>(input.dtype(), op, [&]<class T>() {
    const T* xp = x.data_ptr<T>();
    T* o = out.data_ptr<T>();
    T* mp = mean.data_ptr<T>();
    T* rp = rstd.data_ptr<T>();
    parallel_for(N * group, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, len)), [&](int64_t gb, int64_t ge) {
      for (int64_t ng = gb; ng < ge; ++ng) {
        const T* src = xp + ng * len;
        const auto [mu, m2] = moments(src, len);
        const double rs = 1.0 / std::sqrt(std::max(m2 / static_cast<double>(len), 0.0) + eps);
        mp[ng] = static_cast<T>(mu);
        rp[ng] = static_cast<T>(rs);
        for (int64_t d = 0; d < D; ++d) {
          const int64_t c = (ng % group) * D + d;
          const double a = rs * w[c];
          affine(src + d * HxW, o + ng * len + d * HxW, HxW, a, b[c] - mu * a);
        }
      }
    });
  });
  return {out, mean, rstd};
}

}  // namespace ember::cpu
