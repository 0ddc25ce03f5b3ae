#pragma once
// InstanceNorm1d/2d/3d (LibTorch's torch::nn::InstanceNorm1d/2d/3d, Python's ember.nn.InstanceNorm1d/2d/3d):
// parameters weight and bias (affine), buffers running_mean, running_var and num_batches_tracked
// (track_running_stats), with Python's state-dict names. PyTorch's defaults: affine and track_running_stats
// false, so by default the layer has no state.
#include <string>

#include "ember/core/Tensor.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Module.h"
#include "ember/nn/ModuleHolder.h"
#include "ember/nn/NormImplBase.h"
#include "ember/nn/options/normalization.h"

namespace ember::nn {

/// Instance normalization of D-dimensional feature maps: each channel of each sample is normalized over its
/// spatial elements (biased variance), then weight[c] and bias[c] when affine.
/// input: (N, C, *spatial) or unbatched (C, *spatial) with D spatial dims (InstanceNorm1d: (N, C, L) or
/// (C, L)); returns the same shape.
/// Training, or without running statistics: the instance statistics are used, and the running statistics (when
/// tracked) are updated with momentum to the average over N of the per-sample updates; num_batches_tracked
/// stays 0, as PyTorch's. Eval with running statistics: those normalize.
/// Errors (ValueError, naming the shape): an input of another rank; C other than num_features when affine;
/// a single spatial element when using the instance statistics.
template <size_t D>
class InstanceNormImpl : public Cloneable<InstanceNormImpl<D>>, public NormImplBase {
 public:
  explicit InstanceNormImpl(const InstanceNormOptions& options);
  explicit InstanceNormImpl(int64_t num_features) : InstanceNormImpl(InstanceNormOptions(num_features)) {}

  /// Registers weight and bias (affine) and the running statistics (track_running_stats), then
  /// reset_parameters().
  void reset() override;

  Tensor forward(const Tensor& input);
  /// Python's: "3, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False".
  std::string extra_repr() const override;

  InstanceNormOptions options;
};

extern template class InstanceNormImpl<1>;
extern template class InstanceNormImpl<2>;
extern template class InstanceNormImpl<3>;
using InstanceNorm1dImpl = InstanceNormImpl<1>;
using InstanceNorm2dImpl = InstanceNormImpl<2>;
using InstanceNorm3dImpl = InstanceNormImpl<3>;
EMBER_MODULE(InstanceNorm1d);
EMBER_MODULE(InstanceNorm2d);
EMBER_MODULE(InstanceNorm3d);

}  // namespace ember::nn
