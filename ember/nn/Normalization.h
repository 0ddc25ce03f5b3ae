#pragma once
// LayerNorm, GroupNorm, LocalResponseNorm and CrossMapLRN2d (LibTorch's torch::nn of those names; Python's
// ember.nn of the same).
#include "ember/core/Tensor.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Module.h"
#include "ember/nn/ModuleHolder.h"
#include "ember/nn/options/normalization.h"

namespace ember::nn {

/// Normalization over the trailing dims normalized_shape, with weight (1) and bias (0) of that shape when
/// elementwise_affine.
class LayerNormImpl : public Cloneable<LayerNormImpl> {
 public:
  explicit LayerNormImpl(LayerNormOptions options);
  /// weight 1, bias 0.
  void reset_parameters();
  /// (*, normalized_shape) -> same shape. Errors: trailing dims other than normalized_shape (naming the
  /// layer and both shapes).
  Tensor forward(const Tensor& input);
  /// Python's: "(5, 2), eps=1e-05, elementwise_affine=True".
  std::string extra_repr() const override;

  LayerNormOptions options;
  Tensor weight, bias;  // undefined unless elementwise_affine
};

/// Normalization of (N, C, *) input over num_groups groups of channels, with per-channel weight (1) and bias
/// (0) when affine.
class GroupNormImpl : public Cloneable<GroupNormImpl> {
 public:
  /// Errors: num_channels not divisible by num_groups (ValueError).
  explicit GroupNormImpl(GroupNormOptions options);
  GroupNormImpl(int64_t num_groups, int64_t num_channels) : GroupNormImpl(GroupNormOptions(num_groups, num_channels)) {}
  /// weight 1, bias 0.
  void reset_parameters();
  /// (N, C, *) -> same shape. Errors: C other than num_channels (naming the layer and the shape).
  Tensor forward(const Tensor& input);
  /// Python's: "3, 6, eps=1e-05, affine=True".
  std::string extra_repr() const override;

  GroupNormOptions options;
  Tensor weight, bias;  // undefined unless affine
};

/// Local response normalization across the channels of (N, C, *) input (functional::local_response_norm).
/// LocalResponseNorm(LocalResponseNormOptions(2).alpha(1e-3)). No parameters. Errors: as the function.
class LocalResponseNormImpl : public Cloneable<LocalResponseNormImpl> {
 public:
  explicit LocalResponseNormImpl(const LocalResponseNormOptions& options);
  Tensor forward(const Tensor& input);
  /// Python's: "2, alpha=0.0001, beta=0.75, k=1.0".
  std::string extra_repr() const override;

  LocalResponseNormOptions options;
};

/// The cross-channel LRN of Lua Torch, of (N, C, H, W) input, as PyTorch 1.13 computes it:
/// y[c] = x[c] * (k + alpha / size * sum of x[j]^2 over a window of channels)^(-beta), with that implementation's
/// window (channel 0 always counts) and its hand-written gradient, which is not the derivative of the forward
/// (see Note [CrossMapLRN2d's windows] in python/ember/nn/modules/normalization.py; prefer LocalResponseNorm).
/// No parameters. Errors: an input that is not 4-D (naming its shape); backward with size 1 (as PyTorch's).
class CrossMapLRN2dImpl : public Cloneable<CrossMapLRN2dImpl> {
 public:
  explicit CrossMapLRN2dImpl(const CrossMapLRN2dOptions& options);
  Tensor forward(const Tensor& input);
  /// Python's: "3, alpha=0.0001, beta=0.75, k=1".
  std::string extra_repr() const override;

  CrossMapLRN2dOptions options;
};

EMBER_MODULE(LayerNorm);
EMBER_MODULE(GroupNorm);
EMBER_MODULE(LocalResponseNorm);
EMBER_MODULE(CrossMapLRN2d);

}  // namespace ember::nn
