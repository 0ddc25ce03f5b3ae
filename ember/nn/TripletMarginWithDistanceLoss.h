#pragma once
// TripletMarginWithDistanceLoss (LibTorch's torch::nn::TripletMarginWithDistanceLoss; Python's
// ember.nn.TripletMarginWithDistanceLoss).
#include "ember/core/Tensor.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Distance.h"
#include "ember/nn/ModuleHolder.h"
#include "ember/nn/options/loss.h"

namespace ember::nn {

/// forward(anchor, positive, negative): max(0, d(anchor, positive) - d(anchor, negative) + margin) with the
/// options' distance_function d (F::triplet_margin_with_distance_loss has the shapes and errors). Without one,
/// d is a PairwiseDistance submodule named "distance_function", as Python's, so the module prints as
/// "TripletMarginWithDistanceLoss(\n  (distance_function): PairwiseDistance()\n)"; with one, as
/// "TripletMarginWithDistanceLoss()".
class TripletMarginWithDistanceLossImpl : public Cloneable<TripletMarginWithDistanceLossImpl> {
 public:
  explicit TripletMarginWithDistanceLossImpl(TripletMarginWithDistanceLossOptions options_ = {});
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative);

  TripletMarginWithDistanceLossOptions options;
  /// The default distance (empty when options.distance_function() is set).
  PairwiseDistance distance_function = nullptr;
};

EMBER_MODULE(TripletMarginWithDistanceLoss);

}  // namespace ember::nn
