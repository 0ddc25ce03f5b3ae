// Convolution kernels: convolution (forward) and convolution_backward, 1-D, 2-D and 3-D, plain and transposed:
// a provider's kernel when one supports the call (Note [conv providers]; oneDNN's for float32), else im2col +
// GEMM.
// Argument checks and output sizes: ember/ops/conv.h; the front doors conv1d/conv2d: ember/ops/conv.cpp.
//
// Note [conv im2col]
// A 1-D convolution is a 2-D one with H = kH = 1; a 3-D one adds the depth D (kD, sD, pD, dD, OD) in front of
// H, which the formulas below repeat for. For one sample, im2col unfolds the input (C, H, W) into a
// column matrix col (C*kH*kW, OH*OW): row (c, i, j), column (oh, ow) holds x[c, oh*sH - pH + i*dH,
// ow*sW - pW + j*dW], or 0 where that lies in the padding. The rows of group g are one contiguous block
// (Kg = C/G*kH*kW rows), so with the weight as (G, Cout/G, Kg) and the output of the sample as
// (G, Cout/G, OH*OW) the whole sample is one batched GEMM over the groups (Note [gemm]):
//     forward      y[g]     = W[g] @ col[g]                          (+ bias, written first, beta = 1)
//     grad_weight  dW[g]   += dy[g] @ col[g]^T                        (summed over the samples)
//     grad_input   dcol[g]  = W[g]^T @ dy[g], then col2im adds dcol back onto dx (the adjoint of im2col)
// The GEMMs go through gemm(), so OpenBLAS runs them for float32/float64 and the reference kernel for the
// integer types. A pointwise convolution (1x1 kernel, stride 1, no padding) needs no unfolding: col is the
// sample itself, and dcol is dx itself.
//
// Threads: the samples are split into at most get_num_threads() chunks run in parallel, each with its own
// column buffer (and, for grad_weight, its own partial sum, added up at the end). GEMMs called inside the
// parallel region run on one thread (OpenBLAS's OpenMP build and our parallel_for both stay serial when
// nested), so the two levels never oversubscribe the cores. With one sample (or one thread) there is a single
// chunk and the GEMM itself uses every thread instead. Parallel over samples was chosen over threaded GEMMs
// because the GEMMs of a convolution are small and skinny (Kg is often 27 or 576, OH*OW a few hundred to a
// few thousand), where BLAS threading scales poorly, and because im2col/col2im then run in parallel too.
//
// dtypes: float32 and float64; the integer types in the forward only, as PyTorch 1.13 (products wrap as its
// integer matmul does); bfloat16 is computed in float32 and rounded once at the end. float16 and bool raise
// "not implemented", as PyTorch 1.13's CPU convolution does. im2col and the bias fill only move elements, so
// they are instantiated per element size, not per dtype.
//
// Note [transposed convolution]
// A transposed convolution of x (N, C_in, *in) with weight (C_in, C_out / G, *k) is the adjoint (the
// input-gradient) of the convolution of its output y (N, C_out, *out) with the same weight read as a regular
// one (C_in output channels, C_out / G input channels per group), as PyTorch defines it:
//     forward      y  = backward_data(dy := x, w)  (+ bias)
//     grad_x       = forward(input := dy_y, w)
//     grad_weight  = backward_weights(dy := x, input := dy_y)
// so it runs on the same providers and im2col kernels with the roles swapped (geometry: the regular
// convolution's input is y, its output is x). out = (in - 1)*s - 2p + d(k - 1) + output_padding + 1; with
// output_padding >= s (allowed when below the dilation) the regular formula would give x a few more rows than
// it has: the im2col kernels take any output size, the providers decline such calls (ConvGeometry::regular()).
// Transposed convolutions take the dtypes of the regular ones (the integer types too, as PyTorch's CPU ones).
#include <algorithm>
#include <cstring>
#include <vector>

#include "ember/kernels/cpu/ConvProviders.h"
#include "ember/kernels/cpu/Dispatch.h"
#include "ember/kernels/cpu/Gemm.h"
#include "ember/kernels/cpu/OutputLayout.h"
#include "ember/kernels/cpu/Parallel.h"
#include "ember/kernels/cpu/generated/CPUKernels.h"
#include "ember/ops/conv.h"
#include "ember/ops/linalg.h"

namespace ember::cpu {

ProviderSlot<ConvForwardArgs>& conv_forward_providers() {
  static auto* slot = new ProviderSlot<ConvForwardArgs>("conv_forward");
  return *slot;
}

ProviderSlot<ConvBackwardArgs>& conv_backward_providers() {
  static auto* slot = new ProviderSlot<ConvBackwardArgs>("conv_backward");
  return *slot;
}

namespace {

using Geometry = ConvGeometry;

// The geometry of the regular convolution of an input of sizes `in` (N, C, *spatial) with weight sizes `w`
// (Cout, C / G, *k) giving an output of sizes `out` (N, Cout, *out_spatial); Note [transposed convolution]
// calls it with the transposed convolution's output as `in` and its input as `out`.
Geometry geometry_of(IntArrayRef in, IntArrayRef w, const conv::ConvParams& p, IntArrayRef out) {
  const int64_t dims = static_cast<int64_t>(in.size()) - 2;
  // spatial dim j of the geometry's (D, H, W) is dim j - (3 - dims) of the call, or absent (neutral)
  const auto at = [&](IntArrayRef v, int64_t j, int64_t neutral) {
    const int64_t i = j - (3 - dims);
    return i < 0 ? neutral : v[static_cast<size_t>(i)];
  };
  const auto sz = [&](IntArrayRef v, int64_t j) { return at(IntArrayRef(v.data() + 2, v.size() - 2), j, 1); };
  Geometry g{};
  g.spatial = dims == 3 ? 3 : 2;
  g.N = in[0];
  g.C = in[1];
  g.D = sz(in, 0);
  g.H = sz(in, 1);
  g.W = sz(in, 2);
  g.Cout = w[0];
  g.G = p.groups;
  g.Cg = w[1];
  g.Coutg = g.Cout / g.G;
  g.kD = sz(w, 0);
  g.kH = sz(w, 1);
  g.kW = sz(w, 2);
  g.sD = at(p.stride, 0, 1);
  g.sH = at(p.stride, 1, 1);
  g.sW = at(p.stride, 2, 1);
  g.pD = at(p.padding, 0, 0);
  g.pH = at(p.padding, 1, 0);
  g.pW = at(p.padding, 2, 0);
  g.dD = at(p.dilation, 0, 1);
  g.dH = at(p.dilation, 1, 1);
  g.dW = at(p.dilation, 2, 1);
  g.OD = sz(out, 0);
  g.OH = sz(out, 1);
  g.OW = sz(out, 2);
  return g;
}

// The range [lo, hi) of output columns ow whose input column ow*s + off lies in [0, W).
void valid_range(int64_t OW, int64_t W, int64_t s, int64_t off, int64_t& lo, int64_t& hi) {
  lo = off >= 0 ? 0 : (-off + s - 1) / s;
  hi = W - off <= 0 ? 0 : (W - off - 1) / s + 1;
  lo = std::min(lo, OW);
  hi = std::clamp(hi, lo, OW);
}

// Calls f(col_offset, inside, x_offset, lo, hi) for every row (c, a, i, j) of the unfolded matrix and output
// position (od, oh): col_offset is where its OW entries start in col; inside says whether the input row it reads,
// x[c, id, ih, :] (id = od*sD - pD + a*dD, likewise ih), lies in the input rather than the padding; x_offset is
// the offset of that row plus the window's column offset (j*dW - pW, possibly negative: only [lo, hi) are read).
template <class F>
void for_each_col_row(const Geometry& g, F&& f) {
  for (int64_t c = 0; c < g.C; ++c)
    for (int64_t a = 0; a < g.kD; ++a)
      for (int64_t i = 0; i < g.kH; ++i)
        for (int64_t j = 0; j < g.kW; ++j) {
          const int64_t row = ((c * g.kD + a) * g.kH + i) * g.kW + j;
          const int64_t off = j * g.dW - g.pW;
          int64_t lo, hi;
          valid_range(g.OW, g.W, g.sW, off, lo, hi);
          for (int64_t od = 0; od < g.OD; ++od) {
            const int64_t id = od * g.sD - g.pD + a * g.dD;
            for (int64_t oh = 0; oh < g.OH; ++oh) {
              const int64_t ih = oh * g.sH - g.pH + i * g.dH;
              const bool inside = id >= 0 && id < g.D && ih >= 0 && ih < g.H;
              f(row * g.L() + (od * g.OH + oh) * g.OW, inside, ((c * g.D + id) * g.H + ih) * g.W + off, lo, hi);
            }
          }
        }
}

// im2col of one sample (Note [conv im2col]); T is an unsigned type of the element's size (values only move).
template <class T>
void im2col(const T* x, T* col, const Geometry& g) {
  for_each_col_row(g, [&](int64_t dst_off, bool inside, int64_t src_off, int64_t lo, int64_t hi) {
    T* dst = col + dst_off;
    if (!inside) {
      std::fill(dst, dst + g.OW, T(0));
      return;
    }
    const T* src = x + src_off;
    std::fill(dst, dst + lo, T(0));
    if (g.sW == 1) {
      std::copy(src + lo, src + hi, dst + lo);
    } else {
      for (int64_t ow = lo; ow < hi; ++ow) dst[ow] = src[ow * g.sW];
    }
    std::fill(dst + hi, dst + g.OW, T(0));
  });
}

// col2im of one sample: adds every column entry back onto the input element it was unfolded from (dx must
// hold zeros, or what the entries add to).
template <class T>
void col2im(const T* col, T* dx, const Geometry& g) {
  for_each_col_row(g, [&](int64_t src_off, bool inside, int64_t dst_off, int64_t lo, int64_t hi) {
    if (!inside) return;
    const T* src = col + src_off;
    T* dst = dx + dst_off;
    if (g.sW == 1) {
      for (int64_t ow = lo; ow < hi; ++ow) dst[ow] += src[ow];
    } else {
      for (int64_t ow = lo; ow < hi; ++ow) dst[ow * g.sW] += src[ow];
    }
  });
}

void im2col_any(size_t elem, const void* x, void* col, const Geometry& g) {
  dispatch_element_size(elem, [&]<class U>() { im2col<U>(static_cast<const U*>(x), static_cast<U*>(col), g); });
}

// Row co of the sample's output (Cout, L) = bias[co].
void fill_bias(size_t elem, const void* bias, void* y, const Geometry& g) {
  dispatch_element_size(elem, [&]<class U>() {
    const U* b = static_cast<const U*>(bias);
    U* out = static_cast<U*>(y);
    for (int64_t co = 0; co < g.Cout; ++co) std::fill(out + co * g.L(), out + (co + 1) * g.L(), b[co]);
  });
}

// A (G, rows, cols) stack of row-major matrices starting at p.
MatrixRef stack(const void* p, int64_t rows, int64_t cols) {
  return {const_cast<void*>(p), rows, cols, rows * cols, cols, 1};
}
// The transposes of a (G, rows, cols) stack of row-major matrices: (G, cols, rows), column-major.
MatrixRef stack_t(const void* p, int64_t rows, int64_t cols) {
  return {const_cast<void*>(p), cols, rows, rows * cols, 1, cols};
}

// How many chunks of samples run in parallel (Note [conv im2col]): one per thread, at most one per sample,
// and one in all when the whole call is too small to pay for waking threads.
int64_t num_chunks(const Geometry& g) {
  const int64_t work = g.N * g.Cout * g.L() * std::max<int64_t>(1, g.Kg());
  if (g.N < 2 || work < 4 * kGrainSize || in_parallel_region()) return 1;
  return std::min<int64_t>(g.N, get_num_threads());
}

// Samples [begin, end) of chunk `c` of `chunks`.
int64_t chunk_begin(int64_t n, int64_t chunks, int64_t c) { return n * c / chunks; }

constexpr uint32_t kForwardTypes = dtype_bit(kFloat32) | dtype_bit(kFloat64) | kIntegralTypes;
constexpr uint32_t kBackwardTypes = dtype_bit(kFloat32) | dtype_bit(kFloat64);

void check_dtypes(const char* op, const Tensor& input, const Tensor& weight, const Tensor* bias, bool backward) {
  EMBER_CHECK(input.dtype() == weight.dtype(),
              "{}: Input type ({}) and weight type ({}) should be the same", op, input.dtype(), weight.dtype());
  EMBER_CHECK(!bias || bias->dtype() == input.dtype(), "{}: Input type ({}) and bias type ({}) should be the same",
              op, input.dtype(), bias->dtype());
  const DType d = input.dtype();
  const bool ok = d == kBFloat16 || ((backward ? kBackwardTypes : kForwardTypes) >> static_cast<int>(d)) & 1u;
  EMBER_CHECK(ok, "{}: not implemented for '{}' (supported: float32, float64, bfloat16{})", op,
              linalg::scalar_type_name(d), backward ? "" : " and the integer types");
}

// Note [channels-last convolution]
// A 2-D convolution whose input or weight is channels-last (Note [memory formats]) returns a channels-last
// result, as PyTorch's CPU convolutions do. The providers read and write NHWC activations directly (oneDNN:
// format tag nhwc, no reorder of the activations on our side); when none takes the call (float64, sizes
// oneDNN refuses) the row-major kernels run on row-major copies and the result is converted.
bool channels_last_conv(const Tensor& input, const Tensor& weight) {
  return input.dim() == 4 && (input.suggest_memory_format() == MemoryFormat::ChannelsLast ||
                              weight.suggest_memory_format() == MemoryFormat::ChannelsLast);
}

// out = conv(x, w) (+ bias) of the regular convolution g on contiguous memory (x and out NHWC when
// g.channels_last): a provider's kernel, else im2col + GEMM (row-major only). Returns false when g is
// channels-last and no provider took it.
bool forward_into(const Geometry& g, DType dtype, const void* x, const void* w, const void* bias, void* out) {
  if (g.C > 0 && conv_forward_providers().run({dtype, g, x, w, bias, out})) return true;
  if (g.channels_last) return false;
  const size_t elem = static_cast<size_t>(element_size(dtype));
  const char* xp = static_cast<const char*>(x);
  char* yp = static_cast<char*>(out);
  const int64_t chunks = num_chunks(g);
  parallel_for(chunks, 1, [&](int64_t c0, int64_t c1) {
    Tensor buffer = g.pointwise() ? Tensor() : make_empty({g.C * g.kD * g.kH * g.kW * g.L()}, dtype);
    for (int64_t c = c0; c < c1; ++c) {
      for (int64_t n = chunk_begin(g.N, chunks, c); n < chunk_begin(g.N, chunks, c + 1); ++n) {
        const void* xn = xp + n * g.in_sample() * elem;
        void* yn = yp + n * g.out_sample() * elem;
        const void* col = xn;
        if (!g.pointwise()) {
          im2col_any(elem, xn, buffer.data_ptr(), g);
          col = buffer.data_ptr();
        }
        GemmArgs a;
        a.dtype = dtype;
        a.batch = g.G;
        a.m = g.Coutg;
        a.n = g.L();
        a.k = g.Kg();
        a.a = stack(w, g.Coutg, g.Kg());
        a.b = stack(col, g.Kg(), g.L());
        a.c = stack(yn, g.Coutg, g.L());
        if (bias) {
          fill_bias(elem, bias, yn, g);
          a.beta = Scalar(int64_t{1});
        }
        if (g.C == 0) {  // no terms: the output is the bias, or zeros
          if (!bias) std::memset(yn, 0, static_cast<size_t>(g.out_sample()) * elem);
          continue;
        }
        gemm(a);
      }
    }
  });
  return true;
}

// The gradients of the regular convolution g with respect to its input (into grad_input, the size of x) and its
// weight (into grad_weight), each skipped when null; both overwritten. dy, x and w contiguous (NHWC activations
// when g.channels_last); x is read only for grad_weight, w only for grad_input. Returns false when g is
// channels-last and no provider took it.
bool backward_into(const char* op, const Geometry& g, DType dtype, const void* dy, const void* x, const void* w,
                   void* grad_input, void* grad_weight) {
  const size_t elem = static_cast<size_t>(element_size(dtype));
  const bool need_input = grad_input != nullptr, need_weight = grad_weight != nullptr;
  const bool empty = g.N == 0 || g.C == 0 || g.Cout == 0 || g.L() == 0;
  ConvBackwardArgs args{dtype, g, dy, x, w, grad_input, grad_weight};
  if (const auto* k = empty ? nullptr : conv_backward_providers().select(args)) {
    k->run(args);  // the provider overwrites the gradients (Note [conv providers])
    return true;
  }
  if (g.channels_last) return false;
  if (need_input) std::memset(grad_input, 0, static_cast<size_t>(g.N * g.in_sample()) * elem);
  if (need_weight) std::memset(grad_weight, 0, static_cast<size_t>(g.Cout * g.Kg()) * elem);
  if (empty) return true;
  const int64_t chunks = num_chunks(g);
  // Chunk 0 sums into grad_weight itself, the others into their own partial sums (Note [conv im2col]).
  std::vector<Tensor> partial(static_cast<size_t>(chunks));
  for (int64_t c = 1; c < chunks && need_weight; ++c) partial[c] = make_empty({g.Cout * g.Kg()}, dtype);
  parallel_for(chunks, 1, [&](int64_t c0, int64_t c1) {
    Tensor buffer = g.pointwise() ? Tensor() : make_empty({g.C * g.kD * g.kH * g.kW * g.L()}, dtype);
    for (int64_t c = c0; c < c1; ++c) {
      bool first = true;
      void* gw = c == 0 ? grad_weight : (need_weight ? partial[c].data_ptr() : nullptr);
      for (int64_t n = chunk_begin(g.N, chunks, c); n < chunk_begin(g.N, chunks, c + 1); ++n) {
        const void* dyn = static_cast<const char*>(dy) + n * g.out_sample() * elem;
        if (need_weight) {
          const void* xn = static_cast<const char*>(x) + n * g.in_sample() * elem;
          const void* col = xn;
          if (!g.pointwise()) {
            im2col_any(elem, xn, buffer.data_ptr(), g);
            col = buffer.data_ptr();
          }
          GemmArgs a;  // dW[g] (+)= dy[g] (Coutg, L) @ col[g]^T (L, Kg)
          a.dtype = dtype;
          a.batch = g.G;
          a.m = g.Coutg;
          a.n = g.Kg();
          a.k = g.L();
          a.a = stack(dyn, g.Coutg, g.L());
          a.b = stack_t(col, g.Kg(), g.L());
          a.c = stack(gw, g.Coutg, g.Kg());
          a.beta = Scalar(int64_t{first ? 0 : 1});
          gemm(a);
          first = false;
        }
        if (need_input) {
          void* dxn = static_cast<char*>(grad_input) + n * g.in_sample() * elem;
          GemmArgs a;  // dcol[g] (Kg, L) = W[g]^T (Kg, Coutg) @ dy[g] (Coutg, L)
          a.dtype = dtype;
          a.batch = g.G;
          a.m = g.Kg();
          a.n = g.L();
          a.k = g.Coutg;
          a.a = stack_t(w, g.Coutg, g.Kg());
          a.b = stack(dyn, g.Coutg, g.L());
          a.c = stack(g.pointwise() ? dxn : buffer.data_ptr(), g.Kg(), g.L());
          gemm(a);
          if (!g.pointwise()) {
            // the integer types too: a transposed convolution's forward runs here (Note [transposed convolution])
            dispatch_dtypes<kForwardTypes>(dtype, op, [&]<class T>() {
              col2im<T>(static_cast<const T*>(buffer.data_ptr()), static_cast<T*>(dxn), g);
            });
          }
        }
      }
    }
  });
  for (int64_t c = 1; c < chunks && need_weight; ++c) {
    dispatch_dtypes<kBackwardTypes>(dtype, op, [&]<class T>() {
      T* total = static_cast<T*>(grad_weight);
      const T* part = static_cast<const T*>(partial[c].data_ptr());
      for (int64_t i = 0; i < g.Cout * g.Kg(); ++i) total[i] += part[i];
    });
  }
  return true;
}

// bias viewed as (1, C, 1, ...) for an output of `dims` dims.
Tensor bias_view(const Tensor& bias, int64_t dims) {
  DimVector shape(static_cast<size_t>(dims), 1);
  shape[1] = bias.numel();
  return bias.reshape(shape);
}

}  // namespace

Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                   IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                   int64_t groups) {
  const char* op = "convolution";
  const Tensor* b = bias && bias->defined() ? &*bias : nullptr;
  const conv::ConvParams p =
      conv::check_convolution(op, input, weight.sizes(), b ? OptionalIntArrayRef(b->sizes()) : std::nullopt, stride,
                              padding, dilation, transposed, output_padding, groups);
  EMBER_CHECK(weight.dim() <= 5, "{}: only 1-D, 2-D and 3-D convolutions are implemented (weight of size {})", op,
              weight.sizes());
  check_dtypes(op, input, weight, b, false);
  if (input.dtype() == kBFloat16) {  // See Note [conv im2col]: computed in float32.
    std::optional<Tensor> b32;
    if (b) b32 = ember::_to_copy(*b, kFloat32);
    Tensor y = cpu::convolution(ember::_to_copy(input, kFloat32), ember::_to_copy(weight, kFloat32), b32, stride,
                                padding, dilation, transposed, output_padding, groups);
    return ember::_to_copy(y, kBFloat16);
  }
  const DimVector out_sizes = conv::result_sizes(input.sizes(), weight.sizes(), p);
  if (transposed) {  // Note [transposed convolution]
    const Geometry g = geometry_of(out_sizes, weight.sizes(), p, input.sizes());
    Tensor out = make_empty(out_sizes, input.dtype());
    if (out.numel() == 0) return out;
    const Tensor x = input.contiguous(), w = weight.contiguous();
    backward_into(op, g, x.dtype(), x.data_ptr(), nullptr, w.data_ptr(), out.data_ptr(), nullptr);
    if (b) out.add_(bias_view(*b, out.dim()));
    return channels_last_conv(input, weight) ? in_format(out, MemoryFormat::ChannelsLast) : out;
  }
  if (channels_last_conv(input, weight)) {  // Note [channels-last convolution]
    Geometry g = geometry_of(input.sizes(), weight.sizes(), p, out_sizes);
    g.channels_last = true;
    Tensor out = ember::empty(out_sizes, input.dtype(), std::nullopt, MemoryFormat::ChannelsLast);
    if (out.numel() == 0) return out;
    const Tensor x = input.contiguous(MemoryFormat::ChannelsLast), w = weight.contiguous();
    const Tensor bc = b ? b->contiguous() : Tensor();
    if (forward_into(g, x.dtype(), x.data_ptr(), w.data_ptr(), b ? bc.data_ptr() : nullptr, out.data_ptr()))
      return out;
    return in_format(cpu::convolution(input.contiguous(), weight.contiguous(), bias, stride, padding, dilation,
                                      transposed, output_padding, groups),
                     MemoryFormat::ChannelsLast);
  }
  const Geometry g = geometry_of(input.sizes(), weight.sizes(), p, out_sizes);
  Tensor out = make_empty(out_sizes, input.dtype());
  if (out.numel() == 0) return out;
  const Tensor x = input.contiguous(), w = weight.contiguous();
  const Tensor bc = b ? b->contiguous() : Tensor();
  forward_into(g, x.dtype(), x.data_ptr(), w.data_ptr(), b ? bc.data_ptr() : nullptr, out.data_ptr());
  return out;
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward(const Tensor& grad_output, const Tensor& input,
                                                        const Tensor& weight, OptionalIntArrayRef bias_sizes,
                                                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                                        bool transposed, IntArrayRef output_padding, int64_t groups,
                                                        std::array<bool, 3> output_mask) {
  const char* op = "convolution_backward";
  const conv::ConvParams p = conv::check_convolution(op, input, weight.sizes(), bias_sizes, stride, padding, dilation,
                                                     transposed, output_padding, groups);
  EMBER_CHECK(weight.dim() <= 5, "{}: only 1-D, 2-D and 3-D convolutions are implemented (weight of size {})", op,
              weight.sizes());
  check_dtypes(op, input, weight, nullptr, true);
  EMBER_CHECK(grad_output.dtype() == input.dtype(), "{}: expected grad_output of dtype {}, but got {}", op,
              input.dtype(), grad_output.dtype());
  const DimVector out_sizes = conv::result_sizes(input.sizes(), weight.sizes(), p);
  EMBER_CHECK(grad_output.sizes().equals(out_sizes),
              "{}: expected grad_output of size {} (the output of the convolution), but got {}", op,
              IntArrayRef(out_sizes), grad_output.sizes());
  if (input.dtype() == kBFloat16) {  // See Note [conv im2col]: computed in float32.
    auto [gi, gw, gb] = cpu::convolution_backward(
        ember::_to_copy(grad_output, kFloat32), ember::_to_copy(input, kFloat32), ember::_to_copy(weight, kFloat32),
        bias_sizes, stride, padding, dilation, transposed, output_padding, groups, output_mask);
    const auto round = [](const Tensor& t) { return t.defined() ? ember::_to_copy(t, kBFloat16) : t; };
    return {round(gi), round(gw), round(gb)};
  }
  const bool need_input = output_mask[0], need_weight = output_mask[1];
  Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[2]) {
    DimVector dims{0};
    for (int64_t d = 2; d < grad_output.dim(); ++d) dims.push_back(d);
    grad_bias = ember::sum(grad_output, IntArrayRef(dims));
  }
  if (transposed) {  // Note [transposed convolution]: the regular convolution's input is grad_output's shape
    const Geometry g = geometry_of(out_sizes, weight.sizes(), p, input.sizes());
    const Tensor dy = grad_output.contiguous();
    if (need_input) {
      grad_input = make_empty(input.sizes(), input.dtype());
      const Tensor w = weight.contiguous();
      if (grad_input.numel() > 0)
        forward_into(g, dy.dtype(), dy.data_ptr(), w.data_ptr(), nullptr, grad_input.data_ptr());
    }
    if (need_weight) {
      grad_weight = make_empty(weight.sizes(), weight.dtype());
      const Tensor x = input.contiguous();
      backward_into(op, g, dy.dtype(), x.data_ptr(), dy.data_ptr(), nullptr, nullptr, grad_weight.data_ptr());
    }
    if (channels_last_conv(input, weight)) {
      if (grad_input.defined()) grad_input = in_format(grad_input, MemoryFormat::ChannelsLast);
      if (grad_weight.defined()) grad_weight = grad_weight.contiguous(MemoryFormat::ChannelsLast);
    }
    return {grad_input, grad_weight, grad_bias};
  }
  Geometry g = geometry_of(input.sizes(), weight.sizes(), p, out_sizes);
  const bool empty = (!need_input && !need_weight) || g.N == 0 || g.C == 0 || grad_output.numel() == 0;
  if (channels_last_conv(input, weight)) {  // Note [channels-last convolution]
    constexpr MemoryFormat kCL = MemoryFormat::ChannelsLast;
    g.channels_last = true;
    const Tensor dy = empty ? Tensor() : grad_output.contiguous(kCL);
    const Tensor x = need_weight && !empty ? input.contiguous(kCL) : Tensor();
    const Tensor w = need_input && !empty ? weight.contiguous() : Tensor();
    Tensor gi = need_input ? ember::empty(input.sizes(), input.dtype(), std::nullopt, kCL) : Tensor();
    Tensor gw = need_weight ? make_empty(weight.sizes(), weight.dtype()) : Tensor();
    if (!empty && backward_into(op, g, input.dtype(), dy.data_ptr(), x.defined() ? x.data_ptr() : nullptr,
                                w.defined() ? w.data_ptr() : nullptr, gi.defined() ? gi.data_ptr() : nullptr,
                                gw.defined() ? gw.data_ptr() : nullptr)) {
      grad_input = gi;
      if (gw.defined()) grad_weight = in_format(gw, kCL);
    } else {
      std::array<bool, 3> mask{need_input, need_weight, false};
      std::tie(grad_input, grad_weight, std::ignore) =
          cpu::convolution_backward(grad_output.contiguous(), input.contiguous(), weight.contiguous(), bias_sizes,
                                    stride, padding, dilation, transposed, output_padding, groups, mask);
      if (grad_input.defined()) grad_input = in_format(grad_input, kCL);
      // PyTorch's slow (non-oneDNN) path converts its row-major weight gradient with contiguous(), which
      // keeps the strides of size-1 dims; its oneDNN path allocates exact channels-last strides (above).
      if (grad_weight.defined()) grad_weight = grad_weight.contiguous(kCL);
    }
    // As PyTorch's: both gradients are channels-last, whichever of input and weight was (AccumulateGrad then
    // gives .grad the parameter's own layout, Note [gradient layout]).
    return {grad_input, grad_weight, grad_bias};
  }
  if (need_input) grad_input = make_empty(input.sizes(), input.dtype());
  if (need_weight) grad_weight = make_empty(weight.sizes(), weight.dtype());
  if (!need_input && !need_weight) return {grad_input, grad_weight, grad_bias};
  const Tensor dy = grad_output.contiguous();
  const Tensor x = need_weight ? input.contiguous() : Tensor();
  const Tensor w = need_input ? weight.contiguous() : Tensor();
  backward_into(op, g, dy.dtype(), dy.data_ptr(), x.defined() ? x.data_ptr() : nullptr,
                w.defined() ? w.data_ptr() : nullptr, grad_input.defined() ? grad_input.data_ptr() : nullptr,
                grad_weight.defined() ? grad_weight.data_ptr() : nullptr);
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace ember::cpu
