// Pooling kernels: max_pool2d_with_indices, avg_pool2d and adaptive average pooling, over (N, C, H, W) or
// (C, H, W) input, one input plane per task.
//
// Note [pooling windows]
// Output cell (oh, ow) of a pooling with kernel k, stride s, padding p and dilation d looks at input rows
// oh*s - p + i*d for i in [0, k) (likewise columns), skipping those outside the input. The output size is
//   floor((H + 2p - d(k - 1) - 1) / s) + 1             (ceil instead of floor with ceil_mode),
// and with ceil_mode a last window that would start in the right/bottom padding is dropped, as PyTorch's
// pooling_output_shape does. avg_pool2d divides by the window clipped to the padded input when
// count_include_pad (so the zeros of the padding count), by the window clipped to the input otherwise, or by
// divisor_override. The checks and their messages follow PyTorch 1.13's Pool.h.
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>

#include "ember/kernels/cpu/Dispatch.h"
#include "ember/kernels/cpu/OutputLayout.h"
#include "ember/kernels/cpu/Loops.h"
#include "ember/kernels/cpu/Parallel.h"
#include "ember/kernels/cpu/generated/CPUKernels.h"

namespace ember::cpu {

namespace {

// Division rounding towards negative infinity.
int64_t div_rtn(int64_t x, int64_t y) {
  int64_t q = x / y, r = x % y;
  if (r != 0 && ((r < 0) != (y < 0))) --q;
  return q;
}

// See Note [pooling windows].
int64_t pooling_output_shape(const char* op, int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation,
                             bool ceil_mode) {
  EMBER_CHECK(stride != 0, "{}: stride should not be zero", op);
  EMBER_CHECK(pad >= 0, "{}: pad must be non-negative, but got pad: {}", op, pad);
  EMBER_CHECK(pad <= k / 2, "{}: pad should be at most half of kernel size, but got pad={} and kernel_size={}", op, pad,
              k);
  // Checked: a dilation or stride near 2**62 must not wrap the size around (it once gave a negative output size).
  int64_t span = 0, num = 0;
  const bool overflow = __builtin_mul_overflow(dilation, k - 1, &span) ||
                        __builtin_add_overflow(in, 2 * pad, &num) ||  // pad <= k / 2 (checked above): 2 * pad fits
                        __builtin_sub_overflow(num, span, &num) || __builtin_sub_overflow(num, 1, &num) ||
                        __builtin_add_overflow(num, ceil_mode ? stride - 1 : 0, &num);
  EMBER_CHECK(!overflow,
              "{}: integer out of range computing the output size (input size {}, kernel size {}, padding {}, stride "
              "{}, dilation {})", op, in, k, pad, stride, dilation);
  int64_t out = div_rtn(num, stride) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;  // the last window must start inside the input
  return out;
}

// PyTorch's CPU pooling kernels take their parameters as int: a larger one is its "integer out of range".
void check_int32_params(const char* op, std::initializer_list<int64_t> params) {
  for (int64_t v : params)
    EMBER_CHECK(v >= INT32_MIN && v <= INT32_MAX,
                "{}: integer out of range: kernel_size, stride, padding and dilation must fit in 32 bits (got {})", op,
                v);
}

// The geometry of one 2-D pooling call.
struct Pool2d {
  int64_t kH, kW, dH, dW, padH, padW, dilH = 1, dilW = 1;
  int64_t planes, H, W, OH, OW;  // planes: N * C (or C)
  DimVector out_sizes;
};

// Calls f(src, o, h0, w0) for every output position of every plane, the planes split across threads: src is the
// plane's first element of `in` (the input, or the input's gradient in a backward kernel, which writes only into
// its own plane), o the output's flat index, (h0, w0) the window's top-left corner in input coordinates
// (negative inside the padding).
template <class T, class F>
void for_each_window(const Pool2d& g, T* in, F&& f) {
  const int64_t plane_out = g.OH * g.OW;
  parallel_for(g.planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, plane_out * g.kH * g.kW)),
               [&](int64_t pb, int64_t pe) {
    for (int64_t p = pb; p < pe; ++p) {
      T* src = in + p * g.H * g.W;
      for (int64_t oh = 0; oh < g.OH; ++oh)
        for (int64_t ow = 0; ow < g.OW; ++ow)
          f(src, p * plane_out + oh * g.OW + ow, oh * g.dH - g.padH, ow * g.dW - g.padW);
    }
  });
}

// Reads kernel_size/stride/padding (one value or two) as PyTorch's meta functions do.
Pool2d pool2d_params(const char* op, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding) {
  EMBER_CHECK(kernel_size.size() == 1 || kernel_size.size() == 2,
              "{}: kernel_size must either be a single int, or a tuple of two ints (got {})", op, kernel_size);
  EMBER_CHECK(stride.empty() || stride.size() == 1 || stride.size() == 2,
              "{}: stride must either be omitted, a single int, or a tuple of two ints (got {})", op, stride);
  EMBER_CHECK(padding.size() == 1 || padding.size() == 2,
              "{}: padding must either be a single int, or a tuple of two ints (got {})", op, padding);
  Pool2d g{};
  g.kH = kernel_size[0];
  g.kW = kernel_size.size() == 1 ? g.kH : kernel_size[1];
  g.dH = stride.empty() ? g.kH : stride[0];
  g.dW = stride.empty() ? g.kW : stride.size() == 1 ? g.dH : stride[1];
  g.padH = padding[0];
  g.padW = padding.size() == 1 ? g.padH : padding[1];
  return g;
}

// Output sizes and PyTorch's pool2d_shape_check.
void pool2d_shape(const char* op, const Tensor& input, Pool2d& g, bool ceil_mode) {
  const int64_t ndim = input.dim();
  const int64_t C = input.size(-3);  // a 1-D or 2-D input raises IndexError here, as PyTorch's
  g.H = input.size(-2);
  g.W = input.size(-1);
  check_int32_params(op, {g.kH, g.kW, g.dH, g.dW, g.padH, g.padW, g.dilH, g.dilW});
  g.OH = pooling_output_shape(op, g.H, g.kH, g.padH, g.dH, g.dilH, ceil_mode);
  g.OW = pooling_output_shape(op, g.W, g.kW, g.padW, g.dW, g.dilW, ceil_mode);
  EMBER_CHECK(g.kW > 0 && g.kH > 0, "{}: kernel size should be greater than zero, but got kH: {} kW: {}", op, g.kH,
              g.kW);
  EMBER_CHECK(g.dW > 0 && g.dH > 0, "{}: stride should be greater than zero, but got dH: {} dW: {}", op, g.dH, g.dW);
  EMBER_CHECK(g.dilH > 0 && g.dilW > 0,
              "{}: dilation should be greater than zero, but got dilationH: {} dilationW: {}", op, g.dilH, g.dilW);
  const bool valid_dims = input.size(1) != 0 && input.size(2) != 0;
  EMBER_CHECK((ndim == 3 && input.size(0) != 0 && valid_dims) || (ndim == 4 && valid_dims && input.size(3) != 0),
              "{}: Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got: {}", op,
              input.sizes());
  EMBER_CHECK(g.kW / 2 >= g.padW && g.kH / 2 >= g.padH,
              "{}: pad should be smaller than or equal to half of kernel size, but got padW = {}, padH = {}, kW = {}, "
              "kH = {}", op, g.padW, g.padH, g.kW, g.kH);
  EMBER_CHECK(g.OW >= 1 && g.OH >= 1,
              "{}: Given input size: ({}x{}x{}). Calculated output size: ({}x{}x{}). Output size is too small", op, C,
              g.H, g.W, C, g.OH, g.OW);
  g.planes = ndim == 4 ? input.size(0) * C : C;
  g.out_sizes = DimVector(input.sizes().begin(), input.sizes().end() - 2);
  g.out_sizes.push_back(g.OH);
  g.out_sizes.push_back(g.OW);
}

// The window of an avg_pool2d output cell whose top-left corner is (h0, w0): rows [h0, h1) and columns [w0, w1)
// clipped to the input, and the divisor (Note [pooling windows]). Empty when it covers only padding.
struct AvgWindow {
  int64_t h0, h1, w0, w1, divisor;
  bool empty() const { return h0 >= h1 || w0 >= w1; }
};

AvgWindow avg_window(const Pool2d& g, int64_t h0, int64_t w0, bool count_include_pad,
                     std::optional<int64_t> divisor_override) {
  int64_t h1 = std::min(h0 + g.kH, g.H + g.padH), w1 = std::min(w0 + g.kW, g.W + g.padW);
  const int64_t pool_size = (h1 - h0) * (w1 - w0);
  h0 = std::max<int64_t>(h0, 0);
  w0 = std::max<int64_t>(w0, 0);
  h1 = std::min(h1, g.H);
  w1 = std::min(w1, g.W);
  const int64_t divisor = divisor_override ? *divisor_override : count_include_pad ? pool_size : (h1 - h0) * (w1 - w0);
  return {h0, h1, w0, w1, divisor};
}

// grad_output of a pooling backward, checked against the forward's output sizes and made contiguous.
Tensor checked_grad_output(const char* op, const Tensor& grad_output, IntArrayRef out_sizes) {
  EMBER_CHECK(grad_output.sizes().equals(out_sizes), "{}: expected grad_output of size {} (the output's), but got {}",
              op, out_sizes, grad_output.sizes());
  return grad_output.contiguous();
}

// Zeros of the input's sizes and dtype: the gradient a pooling backward accumulates into.
Tensor zeros_of(const Tensor& self) {
  Tensor z = make_empty(self.sizes(), self.dtype());
  if (z.numel() > 0) std::memset(z.data_ptr(), 0, static_cast<size_t>(z.numel() * z.element_size()));
  return z;
}

// Accumulator of sums: double for floating types, int64 for integers.
template <class T>
using pool_acc_t = std::conditional_t<std::is_floating_point_v<opmath_t<T>>, double, int64_t>;

constexpr uint32_t kMaxPoolTypes = kFloatingTypes;
constexpr uint32_t kAvgPoolTypes = kFloatingTypes | dtype_bit(kInt64);

// Copies a computed result into out= (resized), checking its dtype as PyTorch's structured kernels do.
Tensor to_out(const char* op, const Tensor& result, const Tensor& out) {
  EMBER_CHECK(out.dtype() == result.dtype(), "{}: Expected out tensor to have dtype {}, but got {} instead", op,
              result.dtype(), out.dtype());
  out.impl()->resize(result.sizes());
  out.copy_(result);
  return out;
}

// Adaptive pooling's cell i of `out` along a dim of `in` elements spans [adaptive_start, adaptive_end).
int64_t adaptive_start(int64_t i, int64_t in, int64_t out) { return i * in / out; }
int64_t adaptive_end(int64_t i, int64_t in, int64_t out) { return ((i + 1) * in + out - 1) / out; }

// max_pool2d's parameters and output sizes, checked.
Pool2d max_pool2d_geometry(const char* op, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                           IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  Pool2d g = pool2d_params(op, kernel_size, stride, padding);
  EMBER_CHECK(dilation.size() == 1 || dilation.size() == 2,
              "{}: dilation must be either a single int, or a tuple of two ints (got {})", op, dilation);
  g.dilH = dilation[0];
  g.dilW = dilation.size() == 1 ? g.dilH : dilation[1];
  EMBER_CHECK(self.dim() == 3 || self.dim() == 4,
              "{}: non-empty 3D or 4D (batch mode) tensor expected for input, but got {}", op, self.sizes());
  pool2d_shape(op, self, g, ceil_mode);
  return g;
}

// Note [max pooling inside the input]
// The pooling of CNNs (2x2, stride 2, no padding) never clips a window: every window lies wholly inside the
// input when there is no padding, the dilation is 1 and the last window ends within the input (a ceil_mode
// window may not). Those calls take max_pool_inside, which compares each window element against a block of
// output columns at once, with selects instead of branches (the comparison is unpredictable on real
// activations) and the winner kept as a 32-bit offset within its window, so the loop vectorizes; the general
// loop clips each window to the input, one output at a time, and cost a batch-1 CNN about as much as its
// convolutions (28% of the forward, 12% with this path). Same comparison in the same order, so the same values
// and indices (NaN wins, the last one; ties keep the first).
bool windows_inside(const Pool2d& g) {
  return g.padH == 0 && g.padW == 0 && g.dilH == 1 && g.dilW == 1 && (g.OH - 1) * g.dH + g.kH <= g.H &&
         (g.OW - 1) * g.dW + g.kW <= g.W && g.kH * g.W < INT32_MAX;
}

// kStride: the column stride when it is 1 or 2 (a compile-time stride lets the column loop vectorize), else 0
// (g.dW at run time).
template <class T, int64_t kStride>
void max_pool_inside(const Pool2d& g, const T* in, T* out, int64_t* indices) {
  using M = opmath_t<T>;
  const int64_t dW = kStride ? kStride : g.dW;
  constexpr int64_t kBlock = 64;  // output columns per pass: the running maxima and offsets stay in L1
  const int64_t plane_out = g.OH * g.OW;
  parallel_for(g.planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, plane_out * g.kH * g.kW)),
               [&](int64_t pb, int64_t pe) {
    M mx[kBlock];
    int32_t off[kBlock];  // the winner's offset from its window's first element (fits: windows_inside)
    for (int64_t p = pb; p < pe; ++p) {
      const T* src = in + p * g.H * g.W;
      for (int64_t oh = 0; oh < g.OH; ++oh) {
        for (int64_t ow0 = 0; ow0 < g.OW; ow0 += kBlock) {
          const int64_t n = std::min(kBlock, g.OW - ow0);
          const int64_t first = oh * g.dH * g.W + ow0 * dW;  // block column 0's window's first element
          for (int64_t k = 0; k < n; ++k) mx[k] = -std::numeric_limits<M>::infinity(), off[k] = 0;
          // The window's elements in the general loop's order, each against the whole block of columns.
          for (int64_t i = 0; i < g.kH; ++i)
            for (int64_t j = 0; j < g.kW; ++j) {
              const int32_t e = static_cast<int32_t>(i * g.W + j);
              const T* col = src + first + e;
              for (int64_t k = 0; k < n; ++k) {
                const M v = static_cast<M>(col[k * dW]);
                const bool take = v > mx[k] || v != v;
                mx[k] = take ? v : mx[k];
                off[k] = take ? e : off[k];
              }
            }
          T* o = out + p * plane_out + oh * g.OW + ow0;
          int64_t* ix = indices + p * plane_out + oh * g.OW + ow0;
          for (int64_t k = 0; k < n; ++k) o[k] = static_cast<T>(mx[k]), ix[k] = first + k * dW + off[k];
        }
      }
    }
  });
}

// Note [2x2 max pooling]
// The CNN case of Note [max pooling inside the input] for float32: 2x2 windows with stride 2, every window inside
// the input. Four outputs at a time as 4-lane vectors (any x86-64 has them): the two input rows of the four
// windows are loaded as 8 floats each and split into left and right elements, and the general loop's rule
// "take v when v > max or v is NaN" runs in window order as lane-wise selects, without the branches that
// random activations mispredict (the blocked loop above spends more on bookkeeping than on its four
// comparisons when rows are 7 or 14 outputs long). A row's last, partial group reads a zero-padded copy, so no
// read passes the row. Same values and indices as the other paths.
typedef float vf4 __attribute__((vector_size(16)));
typedef int32_t vi4 __attribute__((vector_size(16)));

bool pool_2x2(const Pool2d& g) {
  return windows_inside(g) && g.kH == 2 && g.kW == 2 && g.dH == 2 && g.dW == 2 && g.W < INT32_MAX / 2;
}

// Lanes of v where `take` is set, else lanes of cur (vector selects, no branches).
inline vf4 select(vi4 take, vf4 v, vf4 cur) {
  return reinterpret_cast<vf4>((reinterpret_cast<vi4>(v) & take) | (reinterpret_cast<vi4>(cur) & ~take));
}

void max_pool_2x2(const Pool2d& g, const float* in, float* out, int64_t* indices) {
  const int64_t plane_out = g.OH * g.OW;
  const int32_t W = static_cast<int32_t>(g.W);
  parallel_for(g.planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, plane_out * 4)),
               [&](int64_t pb, int64_t pe) {
    for (int64_t p = pb; p < pe; ++p) {
      for (int64_t oh = 0; oh < g.OH; ++oh) {
        const int64_t first = 2 * oh * g.W;  // the row's first window's first element
        const float* r0 = in + p * g.H * g.W + first;
        const float* r1 = r0 + g.W;
        float* o = out + p * plane_out + oh * g.OW;
        int64_t* ix = indices + p * plane_out + oh * g.OW;
        for (int64_t ow = 0; ow < g.OW; ow += 4) {
          const int64_t n = std::min<int64_t>(4, g.OW - ow);
          float top[8] = {}, bottom[8] = {};
          const float* t = r0 + 2 * ow;
          const float* u = r1 + 2 * ow;
          if (2 * ow + 8 > g.W) {  // the row's last group: only 2 * n elements (2 * n <= 8) belong to it
            std::memcpy(top, t, static_cast<size_t>(2 * n) * sizeof(float));
            std::memcpy(bottom, u, static_cast<size_t>(2 * n) * sizeof(float));
            t = top;
            u = bottom;
          }
          vf4 t0, t1, u0, u1;
          std::memcpy(&t0, t, 16);
          std::memcpy(&t1, t + 4, 16);
          std::memcpy(&u0, u, 16);
          std::memcpy(&u1, u + 4, 16);
          // Window order: top-left, top-right, bottom-left, bottom-right (offsets 0, 1, W, W + 1): the even and
          // odd elements of the two rows (__builtin_shufflevector: GCC >= 12 and clang alike).
          const vf4 v[4] = {__builtin_shufflevector(t0, t1, 0, 2, 4, 6), __builtin_shufflevector(t0, t1, 1, 3, 5, 7),
                            __builtin_shufflevector(u0, u1, 0, 2, 4, 6), __builtin_shufflevector(u0, u1, 1, 3, 5, 7)};
          const int32_t at[4] = {0, 1, W, W + 1};
          vf4 mx = v[0];  // starting from the first element equals starting from -inf (offset 0 either way)
          vi4 e = {0, 0, 0, 0};
          for (int k = 1; k < 4; ++k) {
            const vi4 take = (v[k] > mx) | (v[k] != v[k]);  // NaN wins, the last one; ties keep the first
            mx = select(take, v[k], mx);
            e = (take & at[k]) | (~take & e);
          }
          float mv[4];
          int32_t ev[4];
          std::memcpy(mv, &mx, 16);
          std::memcpy(ev, &e, 16);
          for (int64_t k = 0; k < n; ++k) {
            o[ow + k] = mv[k];
            ix[ow + k] = first + 2 * (ow + k) + ev[k];
          }
        }
      }
    }
  });
}

}  // namespace

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                   IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  const char* op = "max_pool2d";
  const Pool2d g = max_pool2d_geometry(op, self, kernel_size, stride, padding, dilation, ceil_mode);
  Tensor x = self.contiguous();
  Tensor out = make_empty(g.out_sizes, self.dtype());
  Tensor idx = make_empty(g.out_sizes, kInt64);
  dispatch_dtypes<kMaxPoolTypes>(self.dtype(), op, [&]<class T>() {
    using M = opmath_t<T>;
    const T* in = x.data_ptr<T>();
    T* o = out.data_ptr<T>();
    int64_t* ix = idx.data_ptr<int64_t>();
    if (windows_inside(g)) {
      if constexpr (std::is_same_v<T, float>) {
        if (pool_2x2(g)) return max_pool_2x2(g, in, o, ix);
      }
      if (g.dW == 2) max_pool_inside<T, 2>(g, in, o, ix);
      else if (g.dW == 1) max_pool_inside<T, 1>(g, in, o, ix);
      else max_pool_inside<T, 0>(g, in, o, ix);
      return;
    }
    for_each_window(g, in, [&](const T* src, int64_t o_at, int64_t h0, int64_t w0) {
      const int64_t h1 = std::min(h0 + (g.kH - 1) * g.dilH + 1, g.H);
      const int64_t w1 = std::min(w0 + (g.kW - 1) * g.dilW + 1, g.W);
      while (h0 < 0) h0 += g.dilH;
      while (w0 < 0) w0 += g.dilW;
      int64_t best = h0 * g.W + w0;
      M mx = -std::numeric_limits<M>::infinity();
      for (int64_t h = h0; h < h1; h += g.dilH) {
        for (int64_t w = w0; w < w1; w += g.dilW) {
          const M v = static_cast<M>(src[h * g.W + w]);
          if (v > mx || std::isnan(v)) {  // NaN wins (the last one), as PyTorch's
            mx = v;
            best = h * g.W + w;
          }
        }
      }
      o[o_at] = static_cast<T>(mx);
      ix[o_at] = best;
    });
  });
  return {in_format_of(out, self), in_format_of(idx, self)};
}

Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  const char* op = "avg_pool2d";
  Pool2d g = pool2d_params(op, kernel_size, stride, padding);
  EMBER_CHECK(!divisor_override || *divisor_override != 0, "{}: divisor must be not zero", op);
  pool2d_shape(op, self, g, ceil_mode);
  Tensor x = self.contiguous();
  Tensor out = make_empty(g.out_sizes, self.dtype());
  dispatch_dtypes<kAvgPoolTypes>(self.dtype(), op, [&]<class T>() {
    using Acc = pool_acc_t<T>;
    const T* in = x.data_ptr<T>();
    T* o = out.data_ptr<T>();
    for_each_window(g, in, [&](const T* src, int64_t o_at, int64_t h0, int64_t w0) {
      const AvgWindow a = avg_window(g, h0, w0, count_include_pad, divisor_override);
      T& dst = o[o_at];
      if (a.empty()) {
        dst = T(0);
        return;
      }
      Acc sum = 0;
      for (int64_t h = a.h0; h < a.h1; ++h)
        for (int64_t w = a.w0; w < a.w1; ++w) sum += static_cast<Acc>(static_cast<opmath_t<T>>(src[h * g.W + w]));
      dst = static_cast<T>(sum / static_cast<Acc>(a.divisor));
    });
  });
  return in_format_of(out, self);
}

Tensor avg_pool2d_out(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                      bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override,
                      const Tensor& out) {
  return to_out("avg_pool2d", cpu::avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                         divisor_override), out);
}

// Adaptive average pooling: output row i averages input rows [floor(i*H/OH), ceil((i+1)*H/OH)), likewise
// columns (PyTorch's start_index/end_index).
Tensor adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size) {
  const char* op = "adaptive_avg_pool2d";
  EMBER_CHECK(output_size.size() == 2, "{}: output_size must be 2 (got {})", op, output_size);
  EMBER_CHECK(output_size[0] >= 0 && output_size[1] >= 0,
              "{}: elements of output_size must be greater than or equal to 0 but received {{{}, {}}}", op,
              output_size[0], output_size[1]);
  const int64_t ndim = self.dim();
  EMBER_CHECK(ndim == 3 || ndim == 4, "{}(): Expected 3D or 4D tensor, but got {}", op, self.sizes());
  for (int64_t i : {-2, -1}) {
    EMBER_CHECK(self.size(i) > 0,
                "{}(): Expected input to have non-zero size for non-batch dimensions, but input has sizes {} with "
                "dimension {} being empty", op, self.sizes(), i + ndim);
  }
  const int64_t H = self.size(-2), W = self.size(-1), OH = output_size[0], OW = output_size[1];
  DimVector out_sizes(self.sizes().begin(), self.sizes().end() - 2);
  out_sizes.push_back(OH);
  out_sizes.push_back(OW);
  Tensor out = make_empty(out_sizes, self.dtype());
  const int64_t planes = self.numel() / (H * W);
  if (out.numel() == 0) return out;
  Tensor x = self.contiguous();
  dispatch_dtypes<kFloatingTypes>(self.dtype(), op, [&]<class T>() {
    const T* in = x.data_ptr<T>();
    T* o = out.data_ptr<T>();
    const int64_t work = std::max<int64_t>(1, H * W);
    parallel_for(planes, std::max<int64_t>(1, kGrainSize / work), [&](int64_t pb, int64_t pe) {
      for (int64_t p = pb; p < pe; ++p) {
        const T* src = in + p * H * W;
        for (int64_t oh = 0; oh < OH; ++oh) {
          const int64_t h0 = adaptive_start(oh, H, OH), h1 = adaptive_end(oh, H, OH);
          for (int64_t ow = 0; ow < OW; ++ow) {
            const int64_t w0 = adaptive_start(ow, W, OW), w1 = adaptive_end(ow, W, OW);
            double sum = 0;
            for (int64_t h = h0; h < h1; ++h)
              for (int64_t w = w0; w < w1; ++w) sum += static_cast<double>(static_cast<opmath_t<T>>(src[h * W + w]));
            o[p * OH * OW + oh * OW + ow] = static_cast<T>(sum / static_cast<double>((h1 - h0) * (w1 - w0)));
          }
        }
      }
    });
  });
  return in_format_of(out, self);
}

// ---- backward kernels: each input plane's gradient is written by one task (no two planes share elements).

// Every output gradient is added at the input position its index names (ties were broken in the forward).
Tensor max_pool2d_with_indices_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                        const Tensor& indices) {
  const char* op = "max_pool2d_with_indices_backward";
  const Pool2d g = max_pool2d_geometry(op, self, kernel_size, stride, padding, dilation, ceil_mode);
  const Tensor go = checked_grad_output(op, grad_output, g.out_sizes);
  EMBER_CHECK(indices.dtype() == kInt64 && indices.sizes().equals(g.out_sizes),
              "{}: expected int64 indices of size {}, but got {} of size {}", op, g.out_sizes, indices.dtype(),
              indices.sizes());
  EMBER_CHECK(grad_output.dtype() == self.dtype(), "{}: expected grad_output of dtype {}, but got {}", op,
              self.dtype(), grad_output.dtype());
  const Tensor ix = indices.contiguous();
  Tensor gi = zeros_of(self);
  const int64_t plane_in = g.H * g.W, plane_out = g.OH * g.OW;
  for (const int64_t* i = ix.data_ptr<int64_t>(), *e = i + ix.numel(); i != e; ++i)  // checked before the threads
    EMBER_CHECK_INDEX(*i >= 0 && *i < plane_in, "{}: index {} out of range for an input plane of {} elements", op, *i,
                      plane_in);
  dispatch_dtypes<kMaxPoolTypes>(self.dtype(), op, [&]<class T>() {
    const T* src = go.data_ptr<T>();
    const int64_t* idx = ix.data_ptr<int64_t>();
    T* dst = gi.data_ptr<T>();
    parallel_for(g.planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, plane_out)),
                 [&](int64_t pb, int64_t pe) {
      for (int64_t p = pb; p < pe; ++p) {
        T* d = dst + p * plane_in;
        for (int64_t o = p * plane_out; o < (p + 1) * plane_out; ++o)
          d[idx[o]] = static_cast<T>(static_cast<opmath_t<T>>(d[idx[o]]) + static_cast<opmath_t<T>>(src[o]));
      }
    });
  });
  return in_format_of(gi, self);
}

// Every output gradient, divided by its window's divisor, is added over the window.
Tensor avg_pool2d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                           IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override) {
  const char* op = "avg_pool2d_backward";
  Pool2d g = pool2d_params(op, kernel_size, stride, padding);
  EMBER_CHECK(!divisor_override || *divisor_override != 0, "{}: divisor must be not zero", op);
  pool2d_shape(op, self, g, ceil_mode);
  const Tensor go = checked_grad_output(op, grad_output, g.out_sizes);
  EMBER_CHECK(grad_output.dtype() == self.dtype(), "{}: expected grad_output of dtype {}, but got {}", op,
              self.dtype(), grad_output.dtype());
  Tensor gi = zeros_of(self);
  dispatch_dtypes<kFloatingTypes>(self.dtype(), op, [&]<class T>() {
    using M = opmath_t<T>;
    const T* src = go.data_ptr<T>();
    for_each_window(g, gi.data_ptr<T>(), [&](T* dst, int64_t o_at, int64_t h0, int64_t w0) {
      const AvgWindow a = avg_window(g, h0, w0, count_include_pad, divisor_override);
      if (a.empty()) return;
      const M v = static_cast<M>(src[o_at]) / static_cast<M>(a.divisor);
      for (int64_t h = a.h0; h < a.h1; ++h)
        for (int64_t w = a.w0; w < a.w1; ++w) dst[h * g.W + w] = static_cast<T>(static_cast<M>(dst[h * g.W + w]) + v);
    });
  });
  return in_format_of(gi, self);
}

// Every output gradient, divided by its cell's area, is added over the cell (cells may overlap).
Tensor _adaptive_avg_pool2d_backward(const Tensor& grad_output, const Tensor& self) {
  const char* op = "_adaptive_avg_pool2d_backward";
  EMBER_CHECK(self.dim() == 3 || self.dim() == 4, "{}: Expected 3D or 4D tensor, but got {}", op, self.sizes());
  EMBER_CHECK(grad_output.dim() == self.dim() &&
                  IntArrayRef(grad_output.sizes().data(), grad_output.sizes().size() - 2)
                      .equals(IntArrayRef(self.sizes().data(), self.sizes().size() - 2)),
              "{}: expected grad_output with the leading sizes of self {}, but got {}", op, self.sizes(),
              grad_output.sizes());
  EMBER_CHECK(grad_output.dtype() == self.dtype(), "{}: expected grad_output of dtype {}, but got {}", op,
              self.dtype(), grad_output.dtype());
  const int64_t H = self.size(-2), W = self.size(-1), OH = grad_output.size(-2), OW = grad_output.size(-1);
  Tensor gi = zeros_of(self);
  if (gi.numel() == 0 || grad_output.numel() == 0) return gi;
  const Tensor go = grad_output.contiguous();
  const int64_t planes = self.numel() / (H * W);
  dispatch_dtypes<kFloatingTypes>(self.dtype(), op, [&]<class T>() {
    using M = opmath_t<T>;
    const T* src = go.data_ptr<T>();
    T* dst = gi.data_ptr<T>();
    parallel_for(planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, H * W)), [&](int64_t pb, int64_t pe) {
      for (int64_t p = pb; p < pe; ++p) {
        T* d = dst + p * H * W;
        for (int64_t oh = 0; oh < OH; ++oh) {
          const int64_t h0 = adaptive_start(oh, H, OH), h1 = adaptive_end(oh, H, OH);
          for (int64_t ow = 0; ow < OW; ++ow) {
            const int64_t w0 = adaptive_start(ow, W, OW), w1 = adaptive_end(ow, W, OW);
            const M v = static_cast<M>(src[p * OH * OW + oh * OW + ow]) / static_cast<M>((h1 - h0) * (w1 - w0));
            for (int64_t h = h0; h < h1; ++h)
              for (int64_t w = w0; w < w1; ++w) d[h * W + w] = static_cast<T>(static_cast<M>(d[h * W + w]) + v);
          }
        }
      }
    });
  });
  return in_format_of(gi, self);
}

}  // namespace ember::cpu
