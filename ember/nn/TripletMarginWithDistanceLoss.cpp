#include "ember/nn/TripletMarginWithDistanceLoss.h"

#include <utility>

#include "ember/nn/functional/margin_loss.h"

namespace ember::nn {

TripletMarginWithDistanceLossImpl::TripletMarginWithDistanceLossImpl(TripletMarginWithDistanceLossOptions options_)
    : Cloneable<TripletMarginWithDistanceLossImpl>("TripletMarginWithDistanceLoss"), options(std::move(options_)) {
  if (!options.distance_function()) distance_function = register_module("distance_function", PairwiseDistance());
}

Tensor TripletMarginWithDistanceLossImpl::forward(const Tensor& anchor, const Tensor& positive,
                                                  const Tensor& negative) {
  TripletMarginWithDistanceLossOptions o = options;
  if (!o.distance_function()) {
    auto* distance = distance_function.get();
    o.distance_function([distance](const Tensor& x1, const Tensor& x2) { return distance->forward(x1, x2); });
  }
  return functional::triplet_margin_with_distance_loss(anchor, positive, negative, o);
}

}  // namespace ember::nn
