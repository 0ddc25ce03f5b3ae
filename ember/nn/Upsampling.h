#pragma once
// Upsample, PixelShuffle and PixelUnshuffle (LibTorch's torch::nn::Upsample, PixelShuffle, PixelUnshuffle;
// Python's ember.nn.Upsample, ...): F::interpolate / F::pixel_shuffle / F::pixel_unshuffle with fixed
// options. No parameters or buffers.
#include <string>

#include "ember/core/Tensor.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Module.h"
#include "ember/nn/ModuleHolder.h"
#include "ember/nn/options/upsampling.h"

namespace ember::nn {

/// Resamples (N, C, *spatial) input (1-3 spatial dims) to a size or by a scale factor:
/// Upsample(UpsampleOptions().scale_factor(std::vector<double>{2, 2}).mode(ember::kBilinear).align_corners(false)).
/// returns (N, C, *out), out_i = size_i, or floor(spatial_i * scale_factor_i).
/// Errors (see F::interpolate): both or neither of size and scale_factor; lengths other than the spatial rank;
/// a mode that does not fit the input's rank — each naming the input's shape.
class UpsampleImpl : public Cloneable<UpsampleImpl> {
 public:
  explicit UpsampleImpl(const UpsampleOptions& options = {});
  /// Nothing to register (no parameters or buffers).
  void reset() override {}
  Tensor forward(const Tensor& input);
  /// Python's: "scale_factor=(2.0, 2.0), mode=bilinear" (or "size=(8, 8), mode=nearest").
  std::string extra_repr() const override;

  UpsampleOptions options;
};

/// Rearranges (*, C*r*r, H, W) into (*, C, H*r, W*r), r = upscale_factor: PixelShuffle(2).
/// Errors: fewer than 3 dims; C not divisible by r*r (the op's, naming the shape).
class PixelShuffleImpl : public Cloneable<PixelShuffleImpl> {
 public:
  explicit PixelShuffleImpl(const PixelShuffleOptions& options);
  /// Nothing to register (no parameters or buffers).
  void reset() override {}
  Tensor forward(const Tensor& input);
  /// Python's: "upscale_factor=2".
  std::string extra_repr() const override;

  PixelShuffleOptions options;
};

/// The inverse of PixelShuffle: (*, C, H*r, W*r) -> (*, C*r*r, H, W), r = downscale_factor: PixelUnshuffle(2).
/// Errors: fewer than 3 dims; H or W not divisible by r (the op's, naming the shape).
class PixelUnshuffleImpl : public Cloneable<PixelUnshuffleImpl> {
 public:
  explicit PixelUnshuffleImpl(const PixelUnshuffleOptions& options);
  /// Nothing to register (no parameters or buffers).
  void reset() override {}
  Tensor forward(const Tensor& input);
  /// Python's: "downscale_factor=2".
  std::string extra_repr() const override;

  PixelUnshuffleOptions options;
};

EMBER_MODULE(Upsample);
EMBER_MODULE(PixelShuffle);
EMBER_MODULE(PixelUnshuffle);

}  // namespace ember::nn
