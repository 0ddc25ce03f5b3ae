#pragma once
// ember::nn::functional's pooling (LibTorch's F:: names): max, average, adaptive, LP and fractional pooling and
// unpooling over the ops of the same names (ember/ops/ops_nn.yaml, ops_nn_spatial.yaml), which report bad sizes,
// with the argument handling of Python's ember.nn.functional (python/ember/nn/_functional_spatial.py).
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

/// max_pool1d / max_pool3d and the int64 indices of the maxima (along L; flat d * H * W + h * W + w).
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, const MaxPool1dFuncOptions& options);
std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, const MaxPool3dFuncOptions& options);

/// Average pooling of (N, C, L) or (C, L) input to output_size cells. Errors (from the op): another rank.
Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& options);
/// Average pooling of (N, C, D, H, W) or (C, D, H, W) input to output_size; a nullopt entry keeps the input's
/// size. Errors: an input of fewer than 4 dims when an entry is nullopt (ValueError); another rank (op).
Tensor adaptive_avg_pool3d(const Tensor& input, const AdaptiveAvgPool3dFuncOptions& options);

/// Adaptive max pooling of (N, C, L) / (C, L), (N, C, H, W) / (C, H, W) and (N, C, D, H, W) / (C, D, H, W)
/// input to output_size cells (a nullopt entry keeps the input's size). The _with_indices forms also return
/// the int64 (flat, per plane) indices of the maxima, which max_unpool takes. Errors: another rank; an empty
/// non-batch dim (from the op, naming the shape).
Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                             const AdaptiveMaxPool1dFuncOptions& options);
Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                             const AdaptiveMaxPool2dFuncOptions& options);
Tensor adaptive_max_pool3d(const Tensor& input, const AdaptiveMaxPool3dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input,
                                                             const AdaptiveMaxPool3dFuncOptions& options);

/// The partial inverse of max pooling: zeros of the output size with each input value put back at its index
/// (as max_pool*_with_indices returns them). input and indices: (N, C, *in) or (C, *in), D spatial dims.
/// The output size is options.output_size() (spatial, or with the leading dims) or by default
/// (in - 1) * stride + kernel_size - 2 * padding per dim. Errors: an output_size of another length, or outside
/// (default - stride, default + stride) (ValueError, naming it); indices out of range or of another shape (op).
Tensor max_unpool1d(const Tensor& input, const Tensor& indices, const MaxUnpool1dFuncOptions& options);
Tensor max_unpool2d(const Tensor& input, const Tensor& indices, const MaxUnpool2dFuncOptions& options);
Tensor max_unpool3d(const Tensor& input, const Tensor& indices, const MaxUnpool3dFuncOptions& options);

/// Power-average pooling: (sum over each window of x^p)^(1/p), computed as PyTorch's (avg_pool of x^p, times
/// the window size, sign(y) * relu(|y|), to the 1/p). input: (N, C, L) / (C, L) for 1-D, (N, C, H, W) /
/// (C, H, W) for 2-D. Errors: as avg_pool1d / avg_pool2d.
Tensor lp_pool1d(const Tensor& input, const LPPool1dFuncOptions& options);
Tensor lp_pool2d(const Tensor& input, const LPPool2dFuncOptions& options);

/// Fractional max pooling (Graham, "Fractional Max-Pooling", 2014) of (N, C, H, W) / (C, H, W) input (3-D:
/// (N, C, D, H, W) / (C, D, H, W)) to output_size, or to floor(in * output_ratio) per dim. The pooling regions
/// come from options._random_samples (N, C, 2) (3-D: (N, C, 3)), drawn as PyTorch's rand(N, C, 2) from the
/// default generator when undefined. The _with_indices forms also return the flat int64 indices of the maxima.
/// Errors: neither or both of output_size and output_ratio (ValueError); sizes the op rejects (an output plus
/// kernel larger than the input; samples of the wrong shape), naming them.
Tensor fractional_max_pool2d(const Tensor& input, const FractionalMaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> fractional_max_pool2d_with_indices(const Tensor& input,
                                                               const FractionalMaxPool2dFuncOptions& options);
Tensor fractional_max_pool3d(const Tensor& input, const FractionalMaxPool3dFuncOptions& options);
std::tuple<Tensor, Tensor> fractional_max_pool3d_with_indices(const Tensor& input,
                                                               const FractionalMaxPool3dFuncOptions& options);

}  // namespace ember::nn::functional
