#pragma once
// ember::nn::functional's convolutions: F::conv1d/2d/3d(input, weight, Conv2dFuncOptions()...) and
// F::conv_transpose1d/2d/3d, over the ops ember::conv1d/2d (ember/ops/ops_conv.yaml), conv3d and
// conv_transpose1d/2d/3d (ops_nn_spatial.yaml), which report bad shapes.
#include "ember/core/Tensor.h"
#include "ember/nn/options/conv.h"

namespace ember::nn::functional {

/// 1-D convolution. input: (N, C_in, L) or (C_in, L); weight: (C_out, C_in / groups, k); bias: (C_out) or
/// undefined. Returns (N, C_out, L_out), L_out = floor((L + 2*padding - dilation*(k - 1) - 1) / stride) + 1.
/// padding may be ember::kSame (stride 1) or ember::kValid. Errors (from the op): C_in not divisible by
/// groups, a weight of the wrong rank or channel count, an output size below 1.
Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options = {});

/// 2-D convolution. input: (N, C_in, H, W) or (C_in, H, W); weight: (C_out, C_in / groups, kH, kW); bias:
/// (C_out) or undefined. Returns (N, C_out, H_out, W_out) with conv1d's size rule per spatial dim.
Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options = {});

/// 3-D convolution. input: (N, C_in, D, H, W) or (C_in, D, H, W); weight: (C_out, C_in / groups, kD, kH, kW);
/// bias: (C_out) or undefined. Returns (N, C_out, D_out, H_out, W_out) with conv1d's size rule per spatial dim.
Tensor conv3d(const Tensor& input, const Tensor& weight, const Conv3dFuncOptions& options = {});

/// Transposed convolutions (the adjoint of conv1d/2d/3d). input: (N, C_in, *spatial) or (C_in, *spatial);
/// weight: (C_in, C_out / groups, *kernel); bias: (C_out) or undefined. Each output size is
/// (in - 1)*stride - 2*padding + dilation*(k - 1) + output_padding + 1. Errors (from the op): channel counts
/// that do not fit, output_padding not below stride or dilation, a non-positive output size.
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const ConvTranspose1dFuncOptions& options = {});
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const ConvTranspose2dFuncOptions& options = {});
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const ConvTranspose3dFuncOptions& options = {});

}  // namespace ember::nn::functional
