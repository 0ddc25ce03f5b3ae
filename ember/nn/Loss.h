#pragma once
// The loss modules (LibTorch's torch::nn::L1Loss, ..., Python's ember.nn losses): forward(input, target)
// applies the ember::nn::functional loss with the module's options. Class weights (weight, pos_weight) are
// registered as buffers, as in Python, so state dicts match. See Note [functional modules].
#include <concepts>
#include <utility>

#include "ember/core/Tensor.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Module.h"
#include "ember/nn/ModuleHolder.h"
#include "ember/nn/functional/loss.h"
#include "ember/nn/FunctionalModule.h"

namespace ember::nn {
namespace detail {

template <typename Options, auto Fn, FixedName Name>
class LossModuleImpl : public Cloneable<LossModuleImpl<Options, Fn, Name>> {
 public:
  /// The options, built from args (none: the defaults); their weight tensors become buffers.
  template <typename... Args>
    requires std::constructible_from<Options, Args...>
  explicit LossModuleImpl(Args&&... args)
      : Cloneable<LossModuleImpl>(Name.chars), options(std::forward<Args>(args)...) {
    if constexpr (requires { options.weight(); }) {
      if (options.weight().defined()) weight = this->register_buffer("weight", options.weight());
    }
    if constexpr (requires { options.pos_weight(); }) {
      if (options.pos_weight().defined()) pos_weight = this->register_buffer("pos_weight", options.pos_weight());
    }
  }

  /// The loss of input against target (the functional loss's shapes and errors).
  Tensor forward(const Tensor& input, const Tensor& target) {
    // The buffers, not the options' tensors: they are what to(dtype) and load_state_dict change.
    Options o = options;
    if constexpr (requires { o.weight(); }) o.weight(weight);
    if constexpr (requires { o.pos_weight(); }) o.pos_weight(pos_weight);
    return Fn(input, target, o);
  }

  Options options;
  Tensor weight;      // undefined unless given (weighted losses)
  Tensor pos_weight;  // undefined unless given (BCEWithLogitsLoss)
};

}  // namespace detail

/// Mean (or sum, or none) of |input - target|.
using L1LossImpl = detail::LossModuleImpl<L1LossOptions, &functional::l1_loss, "L1Loss">;
/// Mean (or sum, or none) of (input - target)^2.
using MSELossImpl = detail::LossModuleImpl<MSELossOptions, &functional::mse_loss, "MSELoss">;
/// Negative log likelihood of log-probabilities at class indices.
using NLLLossImpl = detail::LossModuleImpl<NLLLossOptions, &functional::nll_loss, "NLLLoss">;
/// Cross entropy of logits against class indices or probabilities.
using CrossEntropyLossImpl =
    detail::LossModuleImpl<CrossEntropyLossOptions, &functional::cross_entropy, "CrossEntropyLoss">;
/// Binary cross entropy of probabilities.
using BCELossImpl = detail::LossModuleImpl<BCELossOptions, &functional::binary_cross_entropy, "BCELoss">;
/// Binary cross entropy of logits (with pos_weight).
using BCEWithLogitsLossImpl =
    detail::LossModuleImpl<BCEWithLogitsLossOptions, &functional::binary_cross_entropy_with_logits,
                           "BCEWithLogitsLoss">;
/// Smooth L1 loss with threshold beta.
using SmoothL1LossImpl = detail::LossModuleImpl<SmoothL1LossOptions, &functional::smooth_l1_loss, "SmoothL1Loss">;
/// Huber loss with threshold delta.
using HuberLossImpl = detail::LossModuleImpl<HuberLossOptions, &functional::huber_loss, "HuberLoss">;

EMBER_MODULE(L1Loss);
EMBER_MODULE(MSELoss);
EMBER_MODULE(NLLLoss);
EMBER_MODULE(CrossEntropyLoss);
EMBER_MODULE(BCELoss);
EMBER_MODULE(BCEWithLogitsLoss);
EMBER_MODULE(SmoothL1Loss);
EMBER_MODULE(HuberLoss);

}  // namespace ember::nn
