// Pooling composites written over gathered windows: max_pool1d/avg_pool1d/adaptive_avg_pool1d (over the 2-D
// kernels), max_pool3d, avg_pool3d, adaptive max pooling (1-D, 2-D, 3-D), adaptive_avg_pool3d, fractional max
// pooling (2-D, 3-D) and max_unpool2d/3d. Entries: ember/ops/ops_nn_spatial.yaml.
//
// Note [pooling by gathered windows]
// Every pooling whose windows are boxes is a gather followed by a reduction: for each spatial dim d, a tap table
// lists for each output position o the K_d input positions its window reads (fixed windows: o*s - p + i*dil;
// adaptive ones: floor(o*in/out) up to ceil((o+1)*in/out), padded to the longest window; fractional ones: the
// pseudo-random starts of Graham's sequence). The product of the tables gives, per output cell, K = prod K_d flat
// input indices (d*H + h)*W + w: gather(x.view(B, C, S), 2, index) is (B, C, P, K) and max(-1) / sum(-1) pool it;
// the max's index, gathered from the table, is PyTorch's flat index within the plane. A tap outside the input
// (padding, or past the end of a short adaptive window) reads the window's first valid tap instead, which leaves
// a max and its index unchanged (the same element twice); sums mask it out. Autograd differentiates gather and
// max, so the gradient flows to each window's arg-max (max) or to every tap (sum) as PyTorch's kernels send it.
// The order of the scan is PyTorch's (dims outermost first) and ties go to the first tap, as its kernels.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <unistd.h>

#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"
#include "ember/ops/generated/CompositeKernels.h"

namespace ember::composite {

namespace {

// v without its first n entries.
IntArrayRef drop(IntArrayRef v, size_t n) { return IntArrayRef(v.data() + n, v.size() - n); }

// The taps of one spatial dim: for each of `out` positions, k input positions (idx) and whether each lies inside.
struct Taps {
  int64_t out = 0, k = 0;
  std::vector<int64_t> idx;
  std::vector<uint8_t> ok;
};

Taps fixed_taps(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t pad, int64_t dil) {
  const size_t n = static_cast<size_t>(out * k);
  Taps t{out, k, std::vector<int64_t>(n), std::vector<uint8_t>(n)};
  for (int64_t o = 0; o < out; ++o)
    for (int64_t i = 0; i < k; ++i) {
      const int64_t v = o * stride - pad + i * dil;
      t.idx[o * k + i] = v;
      t.ok[o * k + i] = v >= 0 && v < in;
    }
  return t;
}

// Adaptive windows (PyTorch's start_index/end_index): [floor(o*in/out), ceil((o+1)*in/out)).
int64_t adaptive_start(int64_t o, int64_t out, int64_t in) { return (o * in) / out; }
int64_t adaptive_end(int64_t o, int64_t out, int64_t in) { return ((o + 1) * in + out - 1) / out; }

Taps adaptive_taps(int64_t in, int64_t out) {
  int64_t k = 1;
  for (int64_t o = 0; o < out; ++o) k = std::max(k, adaptive_end(o, out, in) - adaptive_start(o, out, in));
  const size_t n = static_cast<size_t>(out * k);
  Taps t{out, k, std::vector<int64_t>(n), std::vector<uint8_t>(n)};
  for (int64_t o = 0; o < out; ++o) {
    const int64_t s = adaptive_start(o, out, in), e = adaptive_end(o, out, in);
    for (int64_t i = 0; i < k; ++i) {
      t.idx[o * k + i] = s + i;
      t.ok[o * k + i] = s + i < e;
    }
  }
  return t;
}

// The flat index table (P*K) of the product of the taps of every spatial dim of `spatial` and their validity;
// invalid taps read the window's first valid one (Note [pooling by gathered windows]). any_empty: some window
// has no valid tap at all.
struct Table {
  std::vector<int64_t> index;
  std::vector<uint8_t> ok;
  int64_t P = 1, K = 1;
  bool any_invalid = false, any_empty = false;
};

Table combine(const std::vector<Taps>& taps, IntArrayRef spatial) {
  Table t;
  const size_t n = taps.size();
  for (const Taps& d : taps) {
    t.P *= d.out;
    t.K *= d.k;
  }
  t.index.resize(static_cast<size_t>(t.P * t.K));
  t.ok.resize(t.index.size());
  std::vector<int64_t> o(n, 0), i(n, 0);
  for (int64_t p = 0; p < t.P; ++p) {
    int64_t rem = p;
    for (size_t d = n; d-- > 0;) {
      o[d] = rem % taps[d].out;
      rem /= taps[d].out;
    }
    int64_t first_valid = -1;
    for (int64_t q = 0; q < t.K; ++q) {
      int64_t r = q;
      for (size_t d = n; d-- > 0;) {
        i[d] = r % taps[d].k;
        r /= taps[d].k;
      }
      int64_t flat = 0;
      bool ok = true;
      for (size_t d = 0; d < n; ++d) {
        const size_t at = static_cast<size_t>(o[d] * taps[d].k + i[d]);
        flat = flat * spatial[d] + taps[d].idx[at];
        ok = ok && taps[d].ok[at];
      }
      t.index[p * t.K + q] = ok ? flat : -1;
      t.ok[p * t.K + q] = ok;
      if (ok && first_valid < 0) first_valid = flat;
    }
    t.any_empty = t.any_empty || first_valid < 0;
    for (int64_t q = 0; q < t.K; ++q) {
      if (t.ok[p * t.K + q]) continue;
      t.any_invalid = true;
      t.index[p * t.K + q] = std::max<int64_t>(first_valid, 0);
    }
  }
  return t;
}

Tensor int64_tensor(const std::vector<int64_t>& v, IntArrayRef shape) {
  Tensor t = ember::empty(shape, kInt64);
  std::copy(v.begin(), v.end(), static_cast<int64_t*>(t.data_ptr()));
  return t;
}

Tensor mask_tensor(const std::vector<uint8_t>& v, IntArrayRef shape, DType dtype) {
  Tensor t = ember::empty(shape, kFloat64);
  double* p = static_cast<double*>(t.data_ptr());
  for (size_t j = 0; j < v.size(); ++j) p[j] = v[j] ? 1.0 : 0.0;
  return ember::_to_copy(t, dtype);
}

// Adds the batch dim of an unbatched input (spatial + 1 dims); checks the rank. Returns whether it was batched.
bool batch_input(const char* op, Tensor& x, int64_t spatial) {
  EMBER_CHECK(x.dim() == spatial + 1 || x.dim() == spatial + 2,
              "{}: Expected {}D or {}D (batch mode) tensor for input, but got input of size {}", op, spatial + 1,
              spatial + 2, x.sizes());
  if (x.dim() == spatial + 2) return true;
  x = ember::unsqueeze(x, 0);
  return false;
}

// The sizes (B, C) + out.
DimVector out_shape(const Tensor& x, IntArrayRef out) {
  DimVector s{x.size(0), x.size(1)};
  for (int64_t v : out) s.push_back(v);
  return s;
}

// Checks an adaptive pooling's output (B, C) + out before anything is built for it: the tap tables loop over every
// output position, so an impossible output_size must fail at once, as PyTorch's storage-size check does, not
// after a loop of 2^40 steps. Errors: a negative size; a size whose bytes overflow 64 bits (PyTorch's message)
// or exceed the machine's physical memory.
void check_adaptive_output(const char* op, const Tensor& x, IntArrayRef out) {
  for (int64_t v : out)
    EMBER_CHECK(v >= 0, "{}: elements of output_size must be greater than or equal to 0 but received {}", op, out);
  const DimVector shape = out_shape(x, out);
  int64_t bytes = element_size(x.dtype());
  for (int64_t v : shape)
    EMBER_CHECK(!__builtin_mul_overflow(bytes, v, &bytes), "{}: Storage size calculation overflowed with sizes={}",
                op, IntArrayRef(shape));
  static const int64_t memory = static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE);
  EMBER_CHECK(memory <= 0 || bytes <= memory, "{}: an output of sizes {} takes {} bytes, more than this machine's {}",
              op, IntArrayRef(shape), bytes, memory);
}

// The windows of `index` (shape (b, c, P*K), b in {1, B}, c in {1, C}) of x (B, C, *spatial): (B, C, P, K).
Tensor gather_windows(const Tensor& x, const Tensor& index, int64_t P, int64_t K) {
  const int64_t B = x.size(0), C = x.size(1);
  const Tensor flat = x.reshape({B, C, -1});
  return ember::gather(flat, 2, index.expand({B, C, P * K})).view({B, C, P, K});
}

// Max over the windows: values and flat indices, each (B, C, *out).
std::tuple<Tensor, Tensor> windowed_max(const Tensor& x, const Tensor& index, const Tensor& ok, int64_t P, int64_t K,
                                        IntArrayRef out) {
  const int64_t B = x.size(0), C = x.size(1);
  Tensor w = gather_windows(x, index, P, K);
  if (ok.defined())  // windows without any valid tap (Note [pooling by gathered windows]): -inf, as PyTorch's
    w = w.masked_fill(ember::logical_not(ok.view({1, 1, P, K})), -std::numeric_limits<double>::infinity());
  auto [values, arg] = ember::max(w, -1);
  Tensor indices = ember::gather(index.expand({B, C, P * K}).view({B, C, P, K}), 3, ember::unsqueeze(arg, -1));
  return {values.view(out_shape(x, out)), indices.view(out_shape(x, out))};
}

// PyTorch's pooling_output_shape (Note [pooling windows] in kernels/cpu/pool.cpp).
int64_t pooled_size(const char* op, int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil_mode) {
  EMBER_CHECK(k > 0 && stride > 0 && dil > 0,
              "{}: kernel size, stride and dilation should be greater than zero, but got kernel {}, stride {}, "
              "dilation {}", op, k, stride, dil);
  EMBER_CHECK(pad >= 0 && pad <= k / 2,
              "{}: pad should be at most half of kernel size, but got pad={} and kernel_size={}", op, pad, k);
  const int64_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (num >= 0 ? num / stride : -((-num + stride - 1) / stride)) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

// One value per dim: a single value repeats; an empty list means `fallback`.
DimVector per_dim(const char* op, const char* name, IntArrayRef v, int64_t dims, IntArrayRef fallback = {}) {
  if (v.empty() && !fallback.empty()) return DimVector(fallback.begin(), fallback.end());
  EMBER_CHECK(v.size() == 1 || static_cast<int64_t>(v.size()) == dims,
              "{}: {} must either be a single int, or a tuple of {} ints (got {})", op, name, dims, v);
  return v.size() == 1 ? DimVector(static_cast<size_t>(dims), v[0]) : DimVector(v.begin(), v.end());
}

// The fixed-window taps of max_poolNd / avg_poolNd over the last `dims` dims of x (batched).
std::vector<Taps> pool_taps(const char* op, const Tensor& x, int64_t dims, const DimVector& k, const DimVector& s,
                            const DimVector& p, const DimVector& d, bool ceil_mode, DimVector& out) {
  std::vector<Taps> taps;
  out.clear();
  for (int64_t i = 0; i < dims; ++i) {
    const int64_t in = x.size(2 + i);
    const int64_t o = pooled_size(op, in, k[i], p[i], s[i], d[i], ceil_mode);
    EMBER_CHECK(o >= 1, "{}: Given input size {}, calculated output size {} is too small (kernel {}, stride {}, "
                "padding {}, dilation {})", op, x.sizes(), o, k, s, p, d);
    out.push_back(o);
    taps.push_back(fixed_taps(in, o, k[i], s[i], p[i], d[i]));
  }
  return taps;
}

void check_nonempty(const char* op, const Tensor& x) {
  for (int64_t i = 1; i < x.dim(); ++i)
    EMBER_CHECK(x.size(i) > 0,
                "{}: Expected input to have non-zero size for non-batch dimensions, but input has sizes {} with "
                "dimension {} being empty", op, x.sizes(), i);
}

std::tuple<Tensor, Tensor> max_pool_nd(const char* op, int64_t dims, const Tensor& self, IntArrayRef kernel_size,
                                       IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  Tensor x = self;
  const bool batched = batch_input(op, x, dims);
  check_nonempty(op, x);
  const DimVector k = per_dim(op, "kernel_size", kernel_size, dims);
  const DimVector s = per_dim(op, "stride", stride, dims, k);
  const DimVector p = per_dim(op, "padding", padding, dims), d = per_dim(op, "dilation", dilation, dims);
  DimVector out;
  const std::vector<Taps> taps = pool_taps(op, x, dims, k, s, p, d, ceil_mode, out);
  const Table t = combine(taps, drop(x.sizes(), 2));
  const Tensor index = int64_tensor(t.index, {1, 1, t.P * t.K});
  const Tensor ok = t.any_empty ? ember::_to_copy(mask_tensor(t.ok, {t.P * t.K}, kFloat32), kBool) : Tensor();
  auto [v, i] = windowed_max(x, index, ok, t.P, t.K, out);
  if (!batched) return {ember::squeeze(v, 0), ember::squeeze(i, 0)};
  return {v, i};
}

std::tuple<Tensor, Tensor> adaptive_max_pool_nd(const char* op, int64_t dims, const Tensor& self,
                                                IntArrayRef output_size) {
  Tensor x = self;
  const bool batched = batch_input(op, x, dims);
  check_nonempty(op, x);
  const DimVector out = per_dim(op, "output_size", output_size, dims);
  check_adaptive_output(op, x, out);
  std::vector<Taps> taps;
  for (int64_t i = 0; i < dims; ++i) taps.push_back(adaptive_taps(x.size(2 + i), out[i]));
  const Table t = combine(taps, drop(x.sizes(), 2));
  auto [v, i] = windowed_max(x, int64_tensor(t.index, {1, 1, t.P * t.K}), Tensor(), t.P, t.K, out);
  if (!batched) return {ember::squeeze(v, 0), ember::squeeze(i, 0)};
  return {v, i};
}

// The sum of each window's valid taps divided by `divisor` (P values, x's dtype).
Tensor windowed_mean(const Tensor& x, const Table& t, const Tensor& divisor, IntArrayRef out) {
  Tensor w = gather_windows(x, int64_tensor(t.index, {1, 1, t.P * t.K}), t.P, t.K);
  if (t.any_invalid) w = w * mask_tensor(t.ok, {1, 1, t.P, t.K}, x.dtype());
  return (ember::sum(w, IntArrayRef{-1}) / divisor).view(out_shape(x, out));
}

Tensor divisor_tensor(const std::vector<double>& v, DType dtype) {
  Tensor t = ember::empty({static_cast<int64_t>(v.size())}, kFloat64);
  std::copy(v.begin(), v.end(), static_cast<double*>(t.data_ptr()));
  return ember::_to_copy(t, dtype);
}

// Fractional max pooling (PyTorch's generate_intervals): the window starts of one dim for sample u, computed in
// the input's floating type T.
template <class T>
std::vector<int64_t> fractional_starts(T u, int64_t in, int64_t out, int64_t k) {
  std::vector<int64_t> seq(static_cast<size_t>(out));
  if (out > 1) {
    const T alpha = static_cast<T>(in - k) / static_cast<T>(out - 1);
    for (int64_t i = 0; i < out - 1; ++i)
      seq[i] = static_cast<int64_t>((static_cast<T>(i) + u) * alpha) - static_cast<int64_t>(u * alpha);
  }
  if (out > 0) seq[out - 1] = in - k;
  return seq;
}

std::tuple<Tensor, Tensor> fractional_max_pool_nd(const char* op, int64_t dims, const Tensor& self,
                                                  IntArrayRef kernel_size, IntArrayRef output_size,
                                                  const Tensor& random_samples) {
  Tensor x = self;
  const bool batched = batch_input(op, x, dims);
  check_nonempty(op, x);
  const DimVector k = per_dim(op, "kernel_size", kernel_size, dims);
  const DimVector out = per_dim(op, "output_size", output_size, dims);
  const char* names[3] = {"time", "height", "width"};
  for (int64_t i = 0; i < dims; ++i) {
    const char* name = names[3 - dims + i];
    // PyTorch 1.13 lets the 2-D windows reach the last element but not the 3-D ones (out + k - 1 < in there)
    const int64_t reach = out[i] + k[i] - 1 + (dims == 3 ? 1 : 0);
    EMBER_CHECK(reach <= x.size(2 + i), "{}: pool {} {} too large relative to input {} {}", op, name, k[i], name,
                x.size(2 + i));
  }
  const int64_t B = x.size(0), C = x.size(1);
  EMBER_CHECK(random_samples.dim() == 3 && random_samples.size(0) >= B && random_samples.size(1) == C &&
                  random_samples.size(2) == dims,
              "{}: expected random_samples of size [{}, {}, {}], but got {}", op, B, C, dims, random_samples.sizes());
  const Tensor u = ember::_to_copy(random_samples, kFloat64).contiguous();
  const double* up = static_cast<const double*>(u.data_ptr());
  int64_t P = 1, K = 1;
  for (int64_t i = 0; i < dims; ++i) {
    P *= out[i];
    K *= k[i];
  }
  std::vector<int64_t> index(static_cast<size_t>(B * C * P * K));
  const bool dbl = x.dtype() == kFloat64;
  for (int64_t plane = 0; plane < B * C; ++plane) {
    // 2-D: samples (w, h); 3-D: (t, h, w), as PyTorch's kernels read them.
    std::vector<Taps> taps;
    for (int64_t i = 0; i < dims; ++i) {
      const int64_t sample_at = dims == 2 ? 1 - i : i;
      const double s = up[plane * dims + sample_at];
      const std::vector<int64_t> starts = dbl ? fractional_starts<double>(s, x.size(2 + i), out[i], k[i])
                                              : fractional_starts<float>(static_cast<float>(s), x.size(2 + i), out[i],
                                                                         k[i]);
      Taps t{out[i], k[i], {}, std::vector<uint8_t>(static_cast<size_t>(out[i] * k[i]), 1)};
      for (int64_t o = 0; o < out[i]; ++o)
        for (int64_t j = 0; j < k[i]; ++j) t.idx.push_back(starts[o] + j);
      taps.push_back(std::move(t));
    }
    const Table t = combine(taps, drop(x.sizes(), 2));
    std::copy(t.index.begin(), t.index.end(), index.begin() + plane * P * K);
  }
  auto [v, i] = windowed_max(x, int64_tensor(index, {B, C, P * K}), Tensor(), P, K, out);
  if (!batched) return {ember::squeeze(v, 0), ember::squeeze(i, 0)};
  return {v, i};
}

Tensor max_unpool_nd(const char* op, int64_t dims, const Tensor& self, const Tensor& indices, IntArrayRef output_size) {
  EMBER_CHECK(indices.dtype() == kInt64, "{}: elements in indices should be type int64 but got: {}", op,
              indices.dtype());
  EMBER_CHECK(self.sizes().equals(indices.sizes()),
              "{}: Expected shape of indices to be same as that of the input tensor ({}) but got indices tensor with "
              "shape: {}", op, self.sizes(), indices.sizes());
  const DimVector out = per_dim(op, "output_size", output_size, dims);
  Tensor x = self, idx = indices;
  const bool batched = batch_input(op, x, dims);
  if (!batched) idx = ember::unsqueeze(idx, 0);
  for (int64_t i = 1; i < x.dim(); ++i)
    EMBER_CHECK(x.size(i) > 0, "{}: Expected input to have non-zero size for non-batch dimensions, but got {}", op,
                self.sizes());
  int64_t S = 1;
  std::string volume;
  for (int64_t i = 0; i < dims; ++i) {
    S *= out[i];
    volume += (i ? "x" : "") + std::to_string(out[i]);
  }
  const Tensor flat_idx = idx.reshape({x.size(0), x.size(1), -1}).contiguous();
  const int64_t* ip = static_cast<const int64_t*>(flat_idx.data_ptr());
  for (int64_t j = 0; j < flat_idx.numel(); ++j)
    EMBER_CHECK(ip[j] >= 0 && ip[j] < S, "{}: Found an invalid max index: {} (output volumes are of size {}", op,
                ip[j], volume);
  Tensor y = ember::zeros({x.size(0), x.size(1), S}, x.dtype());
  y = ember::scatter(y, 2, flat_idx, x.reshape({x.size(0), x.size(1), -1}));
  y = y.view(out_shape(x, out));
  return batched ? y : ember::squeeze(y, 0);
}

// The 1-D pooling ops run as 2-D ones over a height of 1 (as PyTorch's avg_pool1d and max_pool1d_with_indices).
Tensor with_height(const char* op, const Tensor& self) {
  EMBER_CHECK(self.dim() == 2 || self.dim() == 3,
              "{}: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:{}", op,
              self.sizes());
  return ember::unsqueeze(self, -2);
}

DimVector one_and(IntArrayRef v, int64_t first, const char* op, const char* name, bool allow_empty = false) {
  if (v.empty() && allow_empty) return {};
  EMBER_CHECK(v.size() == 1, "{}: {} must be a single int (got {})", op, name, v);
  return {first, v[0]};
}

}  // namespace

std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                   IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  const char* op = "max_pool1d";
  const Tensor x = with_height(op, self);
  auto [v, i] = ember::max_pool2d_with_indices(x, one_and(kernel_size, 1, op, "kernel_size"),
                                               one_and(stride, 1, op, "stride", true),
                                               one_and(padding, 0, op, "padding"), one_and(dilation, 1, op, "dilation"),
                                               ceil_mode);
  return {ember::squeeze(v, -2), ember::squeeze(i, -2)};
}

Tensor max_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(ember::max_pool1d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode));
}

Tensor avg_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  bool ceil_mode, bool count_include_pad) {
  const char* op = "avg_pool1d";
  const Tensor x = with_height(op, self);
  return ember::squeeze(ember::avg_pool2d(x, one_and(kernel_size, 1, op, "kernel_size"),
                                          one_and(stride, 1, op, "stride", true), one_and(padding, 0, op, "padding"),
                                          ceil_mode, count_include_pad, std::nullopt),
                        -2);
}

Tensor adaptive_avg_pool1d(const Tensor& self, IntArrayRef output_size) {
  const char* op = "adaptive_avg_pool1d";
  const Tensor x = with_height(op, self);
  return ember::squeeze(ember::adaptive_avg_pool2d(x, one_and(output_size, 1, op, "output_size")), -2);
}

std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_max_pool_nd("adaptive_max_pool1d", 1, self, output_size);
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_max_pool_nd("adaptive_max_pool2d", 2, self, output_size);
}

std::tuple<Tensor, Tensor> adaptive_max_pool3d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_max_pool_nd("adaptive_max_pool3d", 3, self, output_size);
}

Tensor adaptive_avg_pool3d(const Tensor& self, IntArrayRef output_size) {
  const char* op = "adaptive_avg_pool3d";
  Tensor x = self;
  const bool batched = batch_input(op, x, 3);
  check_nonempty(op, x);
  const DimVector out = per_dim(op, "output_size", output_size, 3);
  check_adaptive_output(op, x, out);
  std::vector<Taps> taps;
  for (int64_t i = 0; i < 3; ++i) taps.push_back(adaptive_taps(x.size(2 + i), out[i]));
  const Table t = combine(taps, drop(x.sizes(), 2));
  std::vector<double> divisor(static_cast<size_t>(t.P));
  for (int64_t p = 0; p < t.P; ++p)
    divisor[p] = static_cast<double>(std::count(t.ok.begin() + p * t.K, t.ok.begin() + (p + 1) * t.K, 1));
  const Tensor y = windowed_mean(x, t, divisor_tensor(divisor, x.dtype()), out);
  return batched ? y : ember::squeeze(y, 0);
}

std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                   IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return max_pool_nd("max_pool3d", 3, self, kernel_size, stride, padding, dilation, ceil_mode);
}

Tensor max_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(ember::max_pool3d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode));
}

Tensor avg_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  const char* op = "avg_pool3d";
  Tensor x = self;
  const bool batched = batch_input(op, x, 3);
  check_nonempty(op, x);
  EMBER_CHECK(!divisor_override || *divisor_override != 0, "{}: divisor must be not zero", op);
  const DimVector k = per_dim(op, "kernel_size", kernel_size, 3);
  const DimVector s = per_dim(op, "stride", stride, 3, k);
  const DimVector p = per_dim(op, "padding", padding, 3), d{1, 1, 1};
  DimVector out;
  const std::vector<Taps> taps = pool_taps(op, x, 3, k, s, p, d, ceil_mode, out);
  const Table t = combine(taps, drop(x.sizes(), 2));
  // PyTorch's divisor: the window clipped to the padded input (count_include_pad) or to the input, per dim.
  std::vector<double> divisor(static_cast<size_t>(t.P));
  for (int64_t q = 0; q < t.P; ++q) {
    int64_t rem = q;
    double padded = 1, inside = 1;
    for (int64_t i = 3; i-- > 0;) {
      const int64_t o = rem % out[i];
      rem /= out[i];
      const int64_t in = x.size(2 + i);
      const int64_t start = o * s[i] - p[i];
      const int64_t end = std::min(start + k[i], in + p[i]);
      padded *= static_cast<double>(end - start);
      inside *= static_cast<double>(std::min(end, in) - std::max<int64_t>(start, 0));
    }
    divisor[q] = divisor_override ? static_cast<double>(*divisor_override) : count_include_pad ? padded : inside;
  }
  const Tensor y = windowed_mean(x, t, divisor_tensor(divisor, x.dtype()), out);
  return batched ? y : ember::squeeze(y, 0);
}

std::tuple<Tensor, Tensor> fractional_max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef output_size,
                                                 const Tensor& random_samples) {
  return fractional_max_pool_nd("fractional_max_pool2d()", 2, self, kernel_size, output_size, random_samples);
}

std::tuple<Tensor, Tensor> fractional_max_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef output_size,
                                                 const Tensor& random_samples) {
  return fractional_max_pool_nd("fractional_max_pool3d()", 3, self, kernel_size, output_size, random_samples);
}

Tensor max_unpool2d(const Tensor& self, const Tensor& indices, IntArrayRef output_size) {
  return max_unpool_nd("max_unpool2d", 2, self, indices, output_size);
}

Tensor max_unpool3d(const Tensor& self, const Tensor& indices, IntArrayRef output_size, IntArrayRef stride,
                    IntArrayRef padding) {
  const char* op = "max_unpool3d";
  const DimVector s = per_dim(op, "stride", stride, 3), p = per_dim(op, "padding", padding, 3);
  for (int64_t i = 0; i < 3; ++i)
    EMBER_CHECK(s[i] > 0, "{}: strides should be greater than zero, but got stride: {}", op, stride);
  (void)p;
  return max_unpool_nd(op, 3, self, indices, output_size);
}

}  // namespace ember::composite
