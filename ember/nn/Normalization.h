#pragma once
// LayerNorm and GroupNorm (LibTorch's torch::nn::LayerNorm/GroupNorm, Python's ember.nn.LayerNorm/GroupNorm).
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

EMBER_MODULE(LayerNorm);
EMBER_MODULE(GroupNorm);

}  // namespace ember::nn
