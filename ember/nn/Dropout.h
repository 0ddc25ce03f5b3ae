#pragma once
// Dropout, the channel-wise Dropout1d/2d/3d, AlphaDropout and FeatureAlphaDropout (LibTorch's torch::nn::Dropout...;
// Python's ember.nn.Dropout...).
#include "ember/core/Tensor.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Module.h"
#include "ember/nn/ModuleHolder.h"
#include "ember/nn/Options.h"
#include "ember/nn/options/dropout.h"

namespace ember::nn {

/// In training mode zeroes each element with probability p (Bernoulli draws from the default generator, the
/// same stream as Python's and PyTorch's dropout) and scales the others by 1 / (1 - p); in eval mode returns
/// its input. input: any shape; returns the same shape.
/// Errors: p outside [0, 1] (ValueError, at construction).
class DropoutImpl : public Cloneable<DropoutImpl> {
 public:
  explicit DropoutImpl(const DropoutOptions& options = {});
  Tensor forward(const Tensor& input);
  /// "p=0.5, inplace=False".
  std::string extra_repr() const override;

  DropoutOptions options;
};
EMBER_MODULE(Dropout);

/// Channel-wise dropout of D-dimensional feature maps (PyTorch's feature dropout): in training mode each
/// channel of each sample is zeroed with probability p (one Bernoulli draw per (N, C) pair, from the default
/// generator) and the kept channels are scaled by 1 / (1 - p); in eval mode the input is returned.
/// input: (N, C, *spatial) or unbatched (C, *spatial), with D spatial dims; returns the same shape.
/// Errors: p outside [0, 1] (ValueError, at construction); an input of another rank (RuntimeError).
template <size_t D>
class FeatureDropoutImpl : public Cloneable<FeatureDropoutImpl<D>> {
 public:
  explicit FeatureDropoutImpl(const DropoutOptions& options = {});
  Tensor forward(const Tensor& input);
  /// "p=0.5, inplace=False".
  std::string extra_repr() const override;

  DropoutOptions options;
};
extern template class FeatureDropoutImpl<1>;
extern template class FeatureDropoutImpl<2>;
extern template class FeatureDropoutImpl<3>;
using Dropout1dImpl = FeatureDropoutImpl<1>;
using Dropout2dImpl = FeatureDropoutImpl<2>;
using Dropout3dImpl = FeatureDropoutImpl<3>;
using Dropout1dOptions = DropoutOptions;
using Dropout2dOptions = DropoutOptions;
using Dropout3dOptions = DropoutOptions;
EMBER_MODULE(Dropout1d);
EMBER_MODULE(Dropout2d);
EMBER_MODULE(Dropout3d);

/// Alpha dropout for SELU networks (functional::alpha_dropout) in training mode; the input itself in eval mode.
/// input: any shape; returns its shape. Errors: p outside [0, 1] (ValueError, at construction).
class AlphaDropoutImpl : public Cloneable<AlphaDropoutImpl> {
 public:
  explicit AlphaDropoutImpl(const AlphaDropoutOptions& options = {});
  Tensor forward(const Tensor& input);
  /// "p=0.5, inplace=False".
  std::string extra_repr() const override;

  AlphaDropoutOptions options;
};
EMBER_MODULE(AlphaDropout);

/// Channel-wise alpha dropout of (N, C, *) input (functional::feature_alpha_dropout) in training mode; the input
/// itself in eval mode. Errors: p outside [0, 1] (ValueError, at construction); in training, an input of fewer
/// than 2 dims.
class FeatureAlphaDropoutImpl : public Cloneable<FeatureAlphaDropoutImpl> {
 public:
  explicit FeatureAlphaDropoutImpl(const FeatureAlphaDropoutOptions& options = {});
  Tensor forward(const Tensor& input);
  /// "p=0.5, inplace=False".
  std::string extra_repr() const override;

  FeatureAlphaDropoutOptions options;
};
EMBER_MODULE(FeatureAlphaDropout);

namespace functional {
/// The function of Dropout1d/2d/3d: feature dropout of `spatial_dims`-dimensional maps (see FeatureDropoutImpl).
Tensor feature_dropout(const Tensor& input, int64_t spatial_dims, double p, bool training, bool inplace = false);
}  // namespace functional

}  // namespace ember::nn
