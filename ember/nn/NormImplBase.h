#pragma once
// What BatchNorm1d-3d and InstanceNorm1d-3d share (LibTorch's torch::nn::NormImplBase): the affine parameters,
// the running statistics, and how both are registered and reset.
#include <cstdint>

#include "ember/core/Tensor.h"
#include "ember/nn/Module.h"

namespace ember::nn {

/// The state of a normalization layer over channels: parameters weight and bias (shape (C), when affine) and
/// buffers running_mean, running_var (shape (C)) and num_batches_tracked (0-dim int64, when tracking running
/// statistics), under Python's state-dict names. A mixin beside the layer's Module base: the layer registers the
/// state on itself with register_norm_state().
class NormImplBase {
 public:
  /// running_mean 0, running_var 1, num_batches_tracked 0 (nothing when the statistics are not tracked).
  void reset_running_stats();
  /// reset_running_stats(), weight 1 and bias 0.
  void reset_parameters();

  Tensor weight, bias;                                    // undefined unless affine
  Tensor running_mean, running_var, num_batches_tracked;  // undefined unless track_running_stats

 protected:
  /// Registers on `self` (the layer) the parameters (affine) and buffers (track_running_stats) of
  /// num_features channels, then reset_parameters().
  void register_norm_state(Module& self, int64_t num_features, bool affine, bool track_running_stats);
};

}  // namespace ember::nn
