// Upsample, PixelShuffle, PixelUnshuffle (python/ember/nn/modules/upsampling.py, pixelshuffle.py).
#include "ember/nn/Upsampling.h"

#include <fmt/format.h>

#include "ember/nn/Repr.h"
#include "ember/nn/functional/upsampling.h"

namespace ember::nn {

UpsampleImpl::UpsampleImpl(const UpsampleOptions& options_) : Cloneable("Upsample"), options(options_) {}

Tensor UpsampleImpl::forward(const Tensor& input) {
  functional::InterpolateFuncOptions f;
  f.size(options.size()).scale_factor(options.scale_factor()).align_corners(options.align_corners());
  std::visit([&](auto token) { f.mode(token); }, options.mode());
  return functional::interpolate(input, f);
}

std::string UpsampleImpl::extra_repr() const {
  std::string info;
  if (options.scale_factor()) {
    std::vector<std::string> parts;
    for (double s : *options.scale_factor()) parts.push_back(repr::py(s));
    info = parts.size() == 1 ? fmt::format("scale_factor=({},)", parts[0])
                             : fmt::format("scale_factor=({})", fmt::join(parts, ", "));
  } else if (options.size()) {
    info = "size=" + repr::py_tuple(*options.size());
  } else {
    info = "size=None";
  }
  return info + ", mode=" + enum_name(options.mode());
}

PixelShuffleImpl::PixelShuffleImpl(const PixelShuffleOptions& options_)
    : Cloneable("PixelShuffle"), options(options_) {}

Tensor PixelShuffleImpl::forward(const Tensor& input) { return functional::pixel_shuffle(input, options); }

std::string PixelShuffleImpl::extra_repr() const { return fmt::format("upscale_factor={}", options.upscale_factor()); }

PixelUnshuffleImpl::PixelUnshuffleImpl(const PixelUnshuffleOptions& options_)
    : Cloneable("PixelUnshuffle"), options(options_) {}

Tensor PixelUnshuffleImpl::forward(const Tensor& input) { return functional::pixel_unshuffle(input, options); }

std::string PixelUnshuffleImpl::extra_repr() const {
  return fmt::format("downscale_factor={}", options.downscale_factor());
}

}  // namespace ember::nn
