#pragma once
// Note [conv providers]
// cpu::convolution and cpu::convolution_backward (kernels/cpu/conv.cpp) ask the providers of
// conv_forward_providers() / conv_backward_providers() (Note [providers]) before running their own im2col +
// GEMM kernels (Note [conv im2col]). A provider sees the convolution as a 2-D one (a 1-D convolution is the
// case H = kH = 1, with stride, padding and dilation 1, 0, 1 along H) on contiguous memory: input (N, C, H, W),
// weight (Cout, C/G, kH, kW), bias (Cout) and output (N, Cout, OH, OW), all row-major in that order — except
// that with channels_last the input and output (and grad_output, grad_input) are NHWC (Note [memory formats]),
// which a provider that cannot read it declines — and only non-empty calls (N, C, Cout, OH, OW > 0). The bias
// gradient is not the providers' business: conv.cpp sums grad_output itself.
#include <cstdint>

#include "ember/core/DType.h"
#include "ember/kernels/cpu/Provider.h"

namespace ember::cpu {

/// The geometry of one convolution, as a 2-D one, or a 3-D one when `spatial` is 3 (Note [conv providers],
/// Note [conv im2col]). The D fields keep their neutral values (size 1, stride 1, padding 0, dilation 1) below
/// 3-D. OD, OH and OW need not follow from the other fields by the usual formula: a transposed convolution with
/// output_padding runs as the adjoint of a convolution whose input has a few more rows (Note [transposed
/// convolution]); a provider that cannot express that declines (ConvGeometry::regular()).
struct ConvGeometry {
  int64_t N, C, H, W;          // input
  int64_t Cout, G, Cg, Coutg;  // channels, groups, channels per group
  int64_t kH, kW, sH, sW, pH, pW, dH, dW;
  int64_t OH, OW;
  bool channels_last = false;  // activations stored NHWC (weights stay row-major OIHW)
  int spatial = 2;             // 3 for a volumetric convolution (NCDHW)
  int64_t D = 1, kD = 1, sD = 1, pD = 0, dD = 1, OD = 1;
  int64_t L() const { return OD * OH * OW; }        // output positions per channel
  int64_t Kg() const { return Cg * kD * kH * kW; }  // weights per output channel
  int64_t in_sample() const { return C * D * H * W; }
  int64_t out_sample() const { return Cout * OD * OH * OW; }
  bool pointwise() const {
    return kD == 1 && kH == 1 && kW == 1 && sD == 1 && sH == 1 && sW == 1 && pD == 0 && pH == 0 && pW == 0;
  }
  /// Whether the output sizes are the usual floor((in + 2p - d(k-1) - 1) / s) + 1 of every spatial dim.
  bool regular() const {
    const auto size = [](int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
      return (in + 2 * p - d * (k - 1) - 1) / s + 1;
    };
    return OD == size(D, kD, sD, pD, dD) && OH == size(H, kH, sH, pH, dH) && OW == size(W, kW, sW, pW, dW);
  }
};

/// The arguments of a convolution's forward: output = conv(input, weight) + bias (bias may be null).
struct ConvForwardArgs {
  DType dtype = kFloat32;
  ConvGeometry g{};
  const void* input = nullptr;
  const void* weight = nullptr;
  const void* bias = nullptr;
  void* output = nullptr;
};

/// The arguments of a convolution's backward: grad_input and grad_weight (each null when not wanted, never
/// both) are overwritten with the gradients of the sum of grad_output * conv(input, weight).
struct ConvBackwardArgs {
  DType dtype = kFloat32;
  ConvGeometry g{};
  const void* grad_output = nullptr;
  const void* input = nullptr;
  const void* weight = nullptr;
  void* grad_input = nullptr;
  void* grad_weight = nullptr;
};

/// The providers of a convolution's forward (oneDNN registers here).
ProviderSlot<ConvForwardArgs>& conv_forward_providers();
/// The providers of a convolution's backward (grad_input and grad_weight).
ProviderSlot<ConvBackwardArgs>& conv_backward_providers();

}  // namespace ember::cpu
