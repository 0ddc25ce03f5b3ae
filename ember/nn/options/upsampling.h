#pragma once
// Options of Upsample, PixelShuffle, PixelUnshuffle and of F::interpolate, F::pixel_shuffle,
// F::pixel_unshuffle (LibTorch's names).
#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "ember/base/Error.h"
#include "ember/nn/Options.h"
#include "ember/nn/enum.h"
#include "ember/nn/init.h"

namespace ember::nn {

namespace detail {
// ember::kLinear is nn::init's token (a Nonlinearity); as a resampling mode it means enumtype::kLinear.
inline enumtype::kLinear linear_mode(init::Nonlinearity n) {
  EMBER_CHECK_VALUE(n == init::kLinear, "resampling mode: of nn::init's tokens only ember::kLinear is a mode");
  return {};
}
}  // namespace detail

/// Options of Upsample: UpsampleOptions().scale_factor(std::vector<double>{2, 2}).mode(ember::kBilinear)
/// .align_corners(false), or .size(std::vector<int64_t>{8, 8}). One of size and scale_factor must be set.
struct UpsampleOptions {
  using mode_t = std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear, enumtype::kBicubic,
                              enumtype::kTrilinear>;
  EMBER_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  EMBER_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  EMBER_ARG(mode_t, mode) = enumtype::kNearest{};
  /// For the linear and cubic modes only; nullopt means false there.
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;

 public:
  UpsampleOptions& mode(init::Nonlinearity n) {
    mode_ = detail::linear_mode(n);
    return *this;
  }
};

/// Options of PixelShuffle: PixelShuffleOptions(upscale_factor).
struct PixelShuffleOptions {
  /*implicit*/ PixelShuffleOptions(int64_t upscale_factor) : upscale_factor_(upscale_factor) {}
  EMBER_ARG(int64_t, upscale_factor);
};

/// Options of PixelUnshuffle: PixelUnshuffleOptions(downscale_factor).
struct PixelUnshuffleOptions {
  /*implicit*/ PixelUnshuffleOptions(int64_t downscale_factor) : downscale_factor_(downscale_factor) {}
  EMBER_ARG(int64_t, downscale_factor);
};

namespace functional {
/// Options of F::interpolate: exactly one of size and scale_factor (one value per spatial dim), the mode,
/// align_corners (linear and cubic modes only), recompute_scale_factor, antialias (not implemented).
struct InterpolateFuncOptions {
  using mode_t = std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear, enumtype::kBicubic,
                              enumtype::kTrilinear, enumtype::kArea, enumtype::kNearestExact>;
  EMBER_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  EMBER_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  EMBER_ARG(mode_t, mode) = enumtype::kNearest{};
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
  EMBER_ARG(std::optional<bool>, recompute_scale_factor) = std::nullopt;
  EMBER_ARG(bool, antialias) = false;

 public:
  InterpolateFuncOptions& mode(init::Nonlinearity n) {
    mode_ = detail::linear_mode(n);
    return *this;
  }
};

using PixelShuffleFuncOptions = PixelShuffleOptions;
using PixelUnshuffleFuncOptions = PixelUnshuffleOptions;
}  // namespace functional

}  // namespace ember::nn
