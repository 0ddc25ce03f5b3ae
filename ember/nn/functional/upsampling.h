#pragma once
// ember::nn::functional's resampling: interpolate, pixel_shuffle, pixel_unshuffle (LibTorch's F::...).
#include "ember/core/Tensor.h"
#include "ember/nn/options/upsampling.h"

namespace ember::nn::functional {

/// Resamples (N, C, *spatial) input with 1-3 spatial dims to options.size() or by options.scale_factor(), as
/// PyTorch 1.13's F.interpolate: kNearest, kNearestExact, kArea (any of the ranks), kLinear (3-D input),
/// kBilinear and kBicubic (4-D), kTrilinear (5-D). Output size i = floor(size_i * scale_i) when scaled; a
/// given scale is passed on to the source-index formula unless recompute_scale_factor.
/// Errors: both or neither of size and scale_factor, or lengths other than the spatial rank (ValueError,
/// naming the input's shape); align_corners with a nearest or area mode (ValueError); a mode that does not
/// fit the input's rank, or antialias (NotImplementedError, naming the ranks).
Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options = {});

/// (*, C*r*r, H, W) -> (*, C, H*r, W*r) (r = upscale_factor). Errors: fewer than 3 dims; C not divisible by r*r.
Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& options);

/// The inverse of pixel_shuffle: (*, C, H*r, W*r) -> (*, C*r*r, H, W). Errors: H or W not divisible by r.
Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& options);

}  // namespace ember::nn::functional
