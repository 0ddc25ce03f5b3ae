// ember::nn::functional's losses over the ops Python's ember.nn.functional calls.
#include "ember/nn/functional/loss.h"

#include <utility>

#include "ember/core/TypePromotion.h"
#include "ember/nn/functional/detail.h"
#include "ember/ops/Functions.h"

namespace ember::nn::functional {
namespace {

using ember::nn::detail::reduction_enum;
using detail::optional_tensor;

// The element-wise losses take input and target of one shape: as Python's _broadcast_pair, both are expanded
// to their broadcast shape (which reports sizes that do not broadcast).
std::pair<Tensor, Tensor> broadcast_pair(const Tensor& input, const Tensor& target) {
  if (input.sizes().equals(target.sizes())) return {input, target};
  const auto shape = broadcast_shapes(input.sizes(), target.sizes());
  return {input.expand(shape), target.expand(shape)};
}

// binary_cross_entropy(_with_logits) require equal sizes (PyTorch raises ValueError).
void check_same_size(const char* message, const Tensor& input, const Tensor& target) {
  EMBER_CHECK_VALUE(input.sizes().equals(target.sizes()), fmt::runtime(message), fmt::join(target.sizes(), ", "),
                    fmt::join(input.sizes(), ", "));
}

}  // namespace

Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options) {
  const auto [x, y] = broadcast_pair(input, target);
  return ember::l1_loss(x, y, reduction_enum(options.reduction()));
}

Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options) {
  const auto [x, y] = broadcast_pair(input, target);
  return ember::mse_loss(x, y, reduction_enum(options.reduction()));
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options) {
  return ember::nll_loss_nd(input, target, optional_tensor(options.weight()), reduction_enum(options.reduction()),
                            options.ignore_index());
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyFuncOptions& options) {
  return ember::cross_entropy_loss(input, target, optional_tensor(options.weight()),
                                   reduction_enum(options.reduction()), options.ignore_index(),
                                   options.label_smoothing());
}

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const BinaryCrossEntropyFuncOptions& options) {
  check_same_size(
      "Using a target size ([{}]) that is different to the input size ([{}]) is deprecated. Please ensure they "
      "have the same size.",
      input, target);
  std::optional<Tensor> weight;
  if (options.weight().defined()) {
    weight = options.weight().expand(broadcast_shapes(target.sizes(), options.weight().sizes()));
  }
  return ember::binary_cross_entropy(input, target, weight, reduction_enum(options.reduction()));
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const BinaryCrossEntropyWithLogitsFuncOptions& options) {
  check_same_size("Target size ([{}]) must be the same as input size ([{}])", input, target);
  return ember::binary_cross_entropy_with_logits(input, target, optional_tensor(options.weight()),
                                                 optional_tensor(options.pos_weight()),
                                                 reduction_enum(options.reduction()));
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const SmoothL1LossFuncOptions& options) {
  const auto [x, y] = broadcast_pair(input, target);
  return ember::smooth_l1_loss(x, y, reduction_enum(options.reduction()), options.beta());
}

Tensor huber_loss(const Tensor& input, const Tensor& target, const HuberLossFuncOptions& options) {
  const auto [x, y] = broadcast_pair(input, target);
  return ember::huber_loss(x, y, reduction_enum(options.reduction()), options.delta());
}

}  // namespace ember::nn::functional
