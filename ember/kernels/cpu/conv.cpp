// Convolution kernels: convolution (forward) and convolution_backward, 1-D and 2-D: a provider's kernel when
// one supports the call (Note [conv providers]; oneDNN's for float32), else im2col + GEMM.
// Argument checks and output sizes: ember/ops/conv.h; the front doors conv1d/conv2d: ember/ops/conv.cpp.
//
// Note [conv im2col]
// A 1-D convolution is a 2-D one with H = kH = 1. For one sample, im2col unfolds the input (C, H, W) into a
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

Geometry geometry_of(IntArrayRef in, IntArrayRef w, const conv::ConvParams& p) {
  const DimVector out = conv::output_sizes(in, w, p);
  const bool one_d = in.size() == 3;
  Geometry g{};
  g.N = in[0];
  g.C = in[1];
  g.H = one_d ? 1 : in[2];
  g.W = in.back();
  g.Cout = w[0];
  g.G = p.groups;
  g.Cg = w[1];
  g.Coutg = g.Cout / g.G;
  g.kH = one_d ? 1 : w[2];
  g.kW = w.back();
  g.sH = one_d ? 1 : p.stride[0];
  g.sW = p.stride.back();
  g.pH = one_d ? 0 : p.padding[0];
  g.pW = p.padding.back();
  g.dH = one_d ? 1 : p.dilation[0];
  g.dW = p.dilation.back();
  g.OH = one_d ? 1 : out[2];
  g.OW = out.back();
  return g;
}

// The range [lo, hi) of output columns ow whose input column ow*s + off lies in [0, W).
void valid_range(int64_t OW, int64_t W, int64_t s, int64_t off, int64_t& lo, int64_t& hi) {
  lo = off >= 0 ? 0 : (-off + s - 1) / s;
  hi = W - off <= 0 ? 0 : (W - off - 1) / s + 1;
  lo = std::min(lo, OW);
  hi = std::clamp(hi, lo, OW);
}

// im2col of one sample (Note [conv im2col]); T is an unsigned type of the element's size (values only move).
template <class T>
void im2col(const T* x, T* col, const Geometry& g) {
  const int64_t L = g.L();
  for (int64_t c = 0; c < g.C; ++c) {
    for (int64_t i = 0; i < g.kH; ++i) {
      for (int64_t j = 0; j < g.kW; ++j) {
        T* row = col + ((c * g.kH + i) * g.kW + j) * L;
        const int64_t off = j * g.dW - g.pW;
        int64_t lo, hi;
        valid_range(g.OW, g.W, g.sW, off, lo, hi);
        for (int64_t oh = 0; oh < g.OH; ++oh) {
          T* dst = row + oh * g.OW;
          const int64_t ih = oh * g.sH - g.pH + i * g.dH;
          if (ih < 0 || ih >= g.H) {
            std::fill(dst, dst + g.OW, T(0));
            continue;
          }
          const T* src = x + (c * g.H + ih) * g.W + off;
          std::fill(dst, dst + lo, T(0));
          if (g.sW == 1) {
            std::copy(src + lo, src + hi, dst + lo);
          } else {
            for (int64_t ow = lo; ow < hi; ++ow) dst[ow] = src[ow * g.sW];
          }
          std::fill(dst + hi, dst + g.OW, T(0));
        }
      }
    }
  }
}

// col2im of one sample: adds every column entry back onto the input element it was unfolded from (dx must
// hold zeros, or what the entries add to).
template <class T>
void col2im(const T* col, T* dx, const Geometry& g) {
  const int64_t L = g.L();
  for (int64_t c = 0; c < g.C; ++c) {
    for (int64_t i = 0; i < g.kH; ++i) {
      for (int64_t j = 0; j < g.kW; ++j) {
        const T* row = col + ((c * g.kH + i) * g.kW + j) * L;
        const int64_t off = j * g.dW - g.pW;
        int64_t lo, hi;
        valid_range(g.OW, g.W, g.sW, off, lo, hi);
        for (int64_t oh = 0; oh < g.OH; ++oh) {
          const int64_t ih = oh * g.sH - g.pH + i * g.dH;
          if (ih < 0 || ih >= g.H) continue;
          const T* src = row + oh * g.OW;
          T* dst = dx + (c * g.H + ih) * g.W + off;
          if (g.sW == 1) {
            for (int64_t ow = lo; ow < hi; ++ow) dst[ow] += src[ow];
          } else {
            for (int64_t ow = lo; ow < hi; ++ow) dst[ow * g.sW] += src[ow];
          }
        }
      }
    }
  }
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

}  // namespace

Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                   IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                   int64_t groups) {
  const char* op = "convolution";
  const Tensor* b = bias && bias->defined() ? &*bias : nullptr;
  const conv::ConvParams p =
      conv::check_convolution(op, input, weight.sizes(), b ? OptionalIntArrayRef(b->sizes()) : std::nullopt, stride,
                              padding, dilation, transposed, output_padding, groups);
  EMBER_CHECK_KIND(ErrorKind::NotImplemented, !transposed, "{}: transposed convolution is not implemented yet", op);
  EMBER_CHECK(weight.dim() <= 4, "{}: only 1-D and 2-D convolutions are implemented (weight of size {})", op,
              weight.sizes());
  check_dtypes(op, input, weight, b, false);
  if (input.dtype() == kBFloat16) {  // See Note [conv im2col]: computed in float32.
    std::optional<Tensor> b32;
    if (b) b32 = ember::_to_copy(*b, kFloat32);
    Tensor y = cpu::convolution(ember::_to_copy(input, kFloat32), ember::_to_copy(weight, kFloat32), b32, stride,
                                padding, dilation, transposed, output_padding, groups);
    return ember::_to_copy(y, kBFloat16);
  }
  if (channels_last_conv(input, weight)) {  // Note [channels-last convolution]
    Geometry g = geometry_of(input.sizes(), weight.sizes(), p);
    g.channels_last = true;
    Tensor out = ember::empty(conv::output_sizes(input.sizes(), weight.sizes(), p), input.dtype(), std::nullopt,
                              MemoryFormat::ChannelsLast);
    if (out.numel() == 0) return out;
    const Tensor x = input.contiguous(MemoryFormat::ChannelsLast), w = weight.contiguous();
    const Tensor bc = b ? b->contiguous() : Tensor();
    if (g.C > 0 && conv_forward_providers().run({x.dtype(), g, x.data_ptr(), w.data_ptr(),
                                                 b ? bc.data_ptr() : nullptr, out.data_ptr()}))
      return out;
    return in_format(cpu::convolution(input.contiguous(), weight.contiguous(), bias, stride, padding, dilation,
                                      transposed, output_padding, groups),
                     MemoryFormat::ChannelsLast);
  }
  const Geometry g = geometry_of(input.sizes(), weight.sizes(), p);
  Tensor out = make_empty(conv::output_sizes(input.sizes(), weight.sizes(), p), input.dtype());
  if (out.numel() == 0) return out;
  const Tensor x = input.contiguous(), w = weight.contiguous();
  const Tensor bc = b ? b->contiguous() : Tensor();
  const size_t elem = static_cast<size_t>(x.element_size());
  if (g.C > 0 && conv_forward_providers().run({x.dtype(), g, x.data_ptr(), w.data_ptr(),
                                               b ? bc.data_ptr() : nullptr, out.data_ptr()}))
    return out;
  const char* xp = static_cast<const char*>(x.data_ptr());
  char* yp = static_cast<char*>(out.data_ptr());
  const int64_t chunks = num_chunks(g);
  parallel_for(chunks, 1, [&](int64_t c0, int64_t c1) {
    Tensor buffer = g.pointwise() ? Tensor() : make_empty({g.C * g.kH * g.kW * g.L()}, x.dtype());
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
        a.dtype = x.dtype();
        a.batch = g.G;
        a.m = g.Coutg;
        a.n = g.L();
        a.k = g.Kg();
        a.a = stack(w.data_ptr(), g.Coutg, g.Kg());
        a.b = stack(col, g.Kg(), g.L());
        a.c = stack(yn, g.Coutg, g.L());
        if (b) {
          fill_bias(elem, bc.data_ptr(), yn, g);
          a.beta = Scalar(int64_t{1});
        }
        gemm(a);
      }
    }
  });
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
  EMBER_CHECK_KIND(ErrorKind::NotImplemented, !transposed, "{}: transposed convolution is not implemented yet", op);
  EMBER_CHECK(weight.dim() <= 4, "{}: only 1-D and 2-D convolutions are implemented (weight of size {})", op,
              weight.sizes());
  check_dtypes(op, input, weight, nullptr, true);
  EMBER_CHECK(grad_output.dtype() == input.dtype(), "{}: expected grad_output of dtype {}, but got {}", op,
              input.dtype(), grad_output.dtype());
  const DimVector out_sizes = conv::output_sizes(input.sizes(), weight.sizes(), p);
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
  Geometry g = geometry_of(input.sizes(), weight.sizes(), p);
  const bool need_input = output_mask[0], need_weight = output_mask[1];
  Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[2]) {
    DimVector dims{0};
    for (int64_t d = 2; d < grad_output.dim(); ++d) dims.push_back(d);
    grad_bias = ember::sum(grad_output, IntArrayRef(dims));
  }
  const bool empty = (!need_input && !need_weight) || g.N == 0 || g.C == 0 || grad_output.numel() == 0;
  if (channels_last_conv(input, weight)) {  // Note [channels-last convolution]
    constexpr MemoryFormat kCL = MemoryFormat::ChannelsLast;
    g.channels_last = true;
    const Tensor dy = empty ? Tensor() : grad_output.contiguous(kCL);
    const Tensor x = need_weight && !empty ? input.contiguous(kCL) : Tensor();
    const Tensor w = need_input && !empty ? weight.contiguous() : Tensor();
    ConvBackwardArgs args{input.dtype(), g, dy.defined() ? dy.data_ptr() : nullptr,
                          x.defined() ? x.data_ptr() : nullptr, w.defined() ? w.data_ptr() : nullptr, nullptr, nullptr};
    if (const auto* k = empty ? nullptr : conv_backward_providers().select(args)) {
      if (need_input)
        args.grad_input = (grad_input = ember::empty(input.sizes(), input.dtype(), std::nullopt, kCL)).data_ptr();
      if (need_weight) args.grad_weight = (grad_weight = make_empty(weight.sizes(), weight.dtype())).data_ptr();
      k->run(args);
      if (grad_weight.defined()) grad_weight = in_format(grad_weight, kCL);
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
  const Tensor dy = empty ? Tensor() : grad_output.contiguous();
  const Tensor x = need_weight && !empty ? input.contiguous() : Tensor();
  const Tensor w = need_input && !empty ? weight.contiguous() : Tensor();
  ConvBackwardArgs args{input.dtype(), g, dy.defined() ? dy.data_ptr() : nullptr, x.defined() ? x.data_ptr() : nullptr,
                        w.defined() ? w.data_ptr() : nullptr, nullptr, nullptr};
  if (const auto* k = empty ? nullptr : conv_backward_providers().select(args)) {
    // The provider overwrites the gradients (Note [conv providers]): no zero fill.
    if (need_input) args.grad_input = (grad_input = make_empty(input.sizes(), input.dtype())).data_ptr();
    if (need_weight) args.grad_weight = (grad_weight = make_empty(weight.sizes(), weight.dtype())).data_ptr();
    k->run(args);
    return {grad_input, grad_weight, grad_bias};
  }
  if (need_input) grad_input = ember::zeros(input.sizes(), input.dtype());
  if (need_weight) grad_weight = ember::zeros(weight.sizes(), weight.dtype());
  if (empty) return {grad_input, grad_weight, grad_bias};

  const size_t elem = static_cast<size_t>(dy.element_size());
  const int64_t chunks = num_chunks(g);
  // Chunk 0 sums into grad_weight itself, the others into their own partial sums (Note [conv im2col]).
  std::vector<Tensor> partial(static_cast<size_t>(chunks));
  if (need_weight) {
    partial[0] = grad_weight;
    for (int64_t c = 1; c < chunks; ++c) partial[c] = make_empty(weight.sizes(), weight.dtype());
  }
  parallel_for(chunks, 1, [&](int64_t c0, int64_t c1) {
    Tensor buffer = g.pointwise() ? Tensor() : make_empty({g.C * g.kH * g.kW * g.L()}, dy.dtype());
    for (int64_t c = c0; c < c1; ++c) {
      bool first = true;
      for (int64_t n = chunk_begin(g.N, chunks, c); n < chunk_begin(g.N, chunks, c + 1); ++n) {
        const void* dyn = static_cast<const char*>(dy.data_ptr()) + n * g.out_sample() * elem;
        if (need_weight) {
          const void* xn = static_cast<const char*>(x.data_ptr()) + n * g.in_sample() * elem;
          const void* col = xn;
          if (!g.pointwise()) {
            im2col_any(elem, xn, buffer.data_ptr(), g);
            col = buffer.data_ptr();
          }
          GemmArgs a;  // dW[g] (+)= dy[g] (Coutg, L) @ col[g]^T (L, Kg)
          a.dtype = dy.dtype();
          a.batch = g.G;
          a.m = g.Coutg;
          a.n = g.Kg();
          a.k = g.L();
          a.a = stack(dyn, g.Coutg, g.L());
          a.b = stack_t(col, g.Kg(), g.L());
          a.c = stack(partial[c].data_ptr(), g.Coutg, g.Kg());
          a.beta = Scalar(int64_t{first ? 0 : 1});
          gemm(a);
          first = false;
        }
        if (need_input) {
          void* dxn = static_cast<char*>(grad_input.data_ptr()) + n * g.in_sample() * elem;
          GemmArgs a;  // dcol[g] (Kg, L) = W[g]^T (Kg, Coutg) @ dy[g] (Coutg, L)
          a.dtype = dy.dtype();
          a.batch = g.G;
          a.m = g.Kg();
          a.n = g.L();
          a.k = g.Coutg;
          a.a = stack_t(w.data_ptr(), g.Coutg, g.Kg());
          a.b = stack(dyn, g.Coutg, g.L());
          a.c = stack(g.pointwise() ? dxn : buffer.data_ptr(), g.Kg(), g.L());
          gemm(a);
          if (!g.pointwise()) {
            dispatch_dtypes<kBackwardTypes>(dy.dtype(), op, [&]<class T>() {
              col2im<T>(static_cast<const T*>(buffer.data_ptr()), static_cast<T*>(dxn), g);
            });
          }
        }
      }
    }
  });
  for (int64_t c = 1; c < chunks && need_weight; ++c) grad_weight.add_(partial[c]);
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace ember::cpu
