#pragma once
// ember::nn::functional's pooling: max_pool2d(_with_indices), avg_pool2d, adaptive_avg_pool2d over the ops
// of the same names (ember/ops/ops_nn.yaml), which report bad sizes.
#include <tuple>

#include "ember/core/Tensor.h"
#include "ember/nn/options/pooling.h"

namespace ember::nn::functional {

/// 2-D max pooling of (N, C, H, W) or (C, H, W) input; padding (at most half the kernel) pads with -inf.
/// Errors: a kernel, stride or dilation below 1, too much padding, an output size below 1, a 2-D or 5-D input.
Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options);

/// max_pool2d and the int64 flat indices (h * W + w) of the maxima.
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const MaxPool2dFuncOptions& options);

/// 2-D average pooling of (N, C, H, W) or (C, H, W) input; zero padding counts in the divisor when
/// count_include_pad, and divisor_override replaces the divisor.
Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options);

/// 1-D and 3-D max pooling of (N, C, L) / (C, L) and (N, C, D, H, W) / (C, D, H, W) input, as max_pool2d.
Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options);
Tensor max_pool3d(const Tensor& input, const MaxPool3dFuncOptions& options);
/// 1-D and 3-D average pooling, as avg_pool2d (1-D has no divisor_override, as PyTorch's).
Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options);
Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& options);

/// Average pooling of (N, C, H, W) or (C, H, W) input to output_size; a nullopt entry keeps the input's
/// size. Errors: an input of fewer than 3 dims (ValueError).
Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options);

}  // namespace ember::nn::functional
