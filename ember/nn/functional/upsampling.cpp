// ember::nn::functional's resampling over the ops Python's F.interpolate and F.pixel_shuffle call
// (python/ember/nn/_functional_spatial.py): _resample, pixel_shuffle, pixel_unshuffle.
#include "ember/nn/functional/upsampling.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <string>
#include <vector>

#include "ember/ops/Functions.h"

namespace ember::nn::functional {

Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& o) {
  const std::string mode = enum_name(o.mode());
  const auto shape = fmt::join(input.sizes(), ", ");
  const bool nearest_or_area = mode == "nearest" || mode == "area" || mode == "nearest-exact";
  EMBER_CHECK_VALUE(!nearest_or_area || !o.align_corners(),
                    "interpolate: align_corners option can only be set with the interpolating modes: "
                    "linear | bilinear | bicubic | trilinear (got mode {})",
                    mode);
  const bool align_corners = o.align_corners().value_or(false);
  const int64_t dim = input.dim() - 2;
  EMBER_CHECK_VALUE(!(o.size() && o.scale_factor()), "interpolate: only one of size or scale_factor should be defined");
  EMBER_CHECK_VALUE(o.size() || o.scale_factor(), "interpolate: either size or scale_factor should be defined");
  // The rank and mode checks come first here so that the lengths below can be compared with a valid rank.
  const int64_t wanted = mode == "linear"                          ? 3
                         : mode == "bilinear" || mode == "bicubic" ? 4
                         : mode == "trilinear"                     ? 5
                                                                   : 0;
  EMBER_CHECK_NOT_IMPLEMENTED(input.dim() >= 3 && input.dim() <= 5,
                              "interpolate: Input Error: Only 3D, 4D and 5D input Tensors supported (got {}D input "
                              "of shape [{}]) for the modes: nearest | linear | bilinear | bicubic | trilinear | "
                              "area | nearest-exact (got {})",
                              input.dim(), shape, mode);
  EMBER_CHECK_NOT_IMPLEMENTED(wanted == 0 || input.dim() == wanted,
                              "interpolate: Got {}D input of shape [{}], but {} mode needs {}D input", input.dim(),
                              shape, mode, wanted);
  EMBER_CHECK_NOT_IMPLEMENTED(!o.antialias(), "interpolate: antialias=True is not implemented in Ember");
  std::vector<int64_t> output_size;
  std::vector<double> scales;
  if (o.size()) {
    EMBER_CHECK_VALUE(static_cast<int64_t>(o.size()->size()) == dim,
                      "interpolate: Input and output must have the same number of spatial dimensions, but got input "
                      "of shape [{}] and output size of [{}]",
                      shape, fmt::join(*o.size(), ", "));
    EMBER_CHECK_VALUE(!o.recompute_scale_factor().value_or(false),
                      "interpolate: recompute_scale_factor is not meaningful with an explicit size.");
    output_size = *o.size();
  } else {
    EMBER_CHECK_VALUE(static_cast<int64_t>(o.scale_factor()->size()) == dim,
                      "interpolate: Input and scale_factor must have the same number of spatial dimensions, but got "
                      "input of shape [{}] and scale_factor of [{}]",
                      shape, fmt::join(*o.scale_factor(), ", "));
    for (int64_t i = 0; i < dim; ++i) {
      const double s = (*o.scale_factor())[static_cast<size_t>(i)];
      output_size.push_back(static_cast<int64_t>(std::floor(static_cast<double>(input.size(i + 2)) * s)));
    }
    // Python passes a given scale on to the kernel's source-index formula unless it is recomputed (always for
    // area).
    if (!o.recompute_scale_factor().value_or(false) && mode != "area") scales = *o.scale_factor();
  }
  auto scale = [&](size_t i) { return i < scales.size() ? std::optional<double>(scales[i]) : std::nullopt; };
  if (mode == "area") return ember::_resample(input, output_size, "area", false);
  const std::string kernel_mode = mode == "bilinear" || mode == "trilinear" ? "linear"
                                  : mode == "bicubic"                       ? "cubic"
                                                                            : mode;
  return ember::_resample(input, output_size, kernel_mode, align_corners, scale(0), scale(1), scale(2));
}

Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& options) {
  return ember::pixel_shuffle(input, options.upscale_factor());
}

Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& options) {
  return ember::pixel_unshuffle(input, options.downscale_factor());
}

}  // namespace ember::nn::functional
