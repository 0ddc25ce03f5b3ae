#pragma once
// BatchNorm1d/2d/3d (LibTorch's torch::nn::BatchNorm1d/2d/3d, Python's ember.nn.BatchNorm1d/2d/3d):
// parameters weight and bias (affine), buffers running_mean, running_var and num_batches_tracked
// (track_running_stats), with Python's state-dict names.
#include <string>

#include "ember/core/Tensor.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Module.h"
#include "ember/nn/ModuleHolder.h"
#include "ember/nn/NormImplBase.h"
#include "ember/nn/options/normalization.h"

namespace ember::nn {

/// The shared part of BatchNorm1d/2d/3d; D is the number of spatial dims of the input (0 or 1 for 1d, 2 for 2d,
/// 3 for 3d).
template <size_t D>
class BatchNormImpl : public Module, public NormImplBase {
 public:
  explicit BatchNormImpl(BatchNormOptions options);
  explicit BatchNormImpl(int64_t num_features) : BatchNormImpl(BatchNormOptions(num_features)) {}

  /// Training: normalizes with the batch statistics and updates the running ones (momentum, or the
  /// cumulative average when momentum is nullopt) and num_batches_tracked. Eval: normalizes with the
  /// running statistics (the batch's when not tracked). Errors: an input of the wrong rank (ValueError) or
  /// channel count (naming the layer and the shape); one value per channel when training (ValueError).
  Tensor forward(const Tensor& input);

  /// Python's: "3, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True".
  std::string extra_repr() const override;

  BatchNormOptions options;

 private:
  static std::string layer_name() { return "BatchNorm" + std::to_string(D) + "d"; }
};

extern template class BatchNormImpl<1>;
extern template class BatchNormImpl<2>;
extern template class BatchNormImpl<3>;

/// Batch normalization of (N, C) or (N, C, L) input over N (and L) per channel C.
class BatchNorm1dImpl : public Cloneable<BatchNorm1dImpl, BatchNormImpl<1>> {
 public:
  using Cloneable::Cloneable;
};

/// Batch normalization of (N, C, H, W) input over N, H and W per channel C.
class BatchNorm2dImpl : public Cloneable<BatchNorm2dImpl, BatchNormImpl<2>> {
 public:
  using Cloneable::Cloneable;
};

/// Batch normalization of (N, C, D, H, W) input over N, D, H and W per channel C.
class BatchNorm3dImpl : public Cloneable<BatchNorm3dImpl, BatchNormImpl<3>> {
 public:
  using Cloneable::Cloneable;
};

EMBER_MODULE(BatchNorm1d);
EMBER_MODULE(BatchNorm2d);
EMBER_MODULE(BatchNorm3d);

}  // namespace ember::nn
