#pragma once
// ember::nn::functional's convolutions: F::conv1d / F::conv2d(input, weight, Conv2dFuncOptions()...), over
// the ops ember::conv1d / ember::conv2d (ember/ops/ops_conv.yaml), which report bad shapes.
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

}  // namespace ember::nn::functional
