#pragma once
// The loss modules (LibTorch's torch::nn::L1Loss, ..., Python's ember.nn losses): forward(input, target), or
// the three or four tensors of the ranking, triplet, Gaussian and CTC losses, applies the ember::nn::functional
// loss with the module's options. Class weights (weight, pos_weight) are registered as buffers, as in Python, so
// state dicts match. See Note [functional modules]. TripletMarginWithDistanceLoss, which holds a submodule, has
// its own header.
#include <concepts>
#include <utility>

#include "ember/core/Tensor.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Module.h"
#include "ember/nn/ModuleHolder.h"
#include "ember/nn/functional/ctc_loss.h"
#include "ember/nn/functional/distribution_loss.h"
#include "ember/nn/functional/loss.h"
#include "ember/nn/functional/margin_loss.h"
#include "ember/nn/FunctionalModule.h"
#include "ember/nn/TripletMarginWithDistanceLoss.h"

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

  /// The loss of input against target, or of the three or four tensors the functional loss takes
  /// (MarginRankingLoss, TripletMarginLoss, GaussianNLLLoss, CTCLoss, ...): that function's shapes and errors.
  template <typename... Inputs>
    requires(std::same_as<Inputs, Tensor> && ...) && std::invocable<decltype(Fn), const Inputs&..., const Options&>
  Tensor forward(const Inputs&... inputs) {
    // The buffers, not the options' tensors: they are what to(dtype) and load_state_dict change.
    Options o = options;
    if constexpr (requires { o.weight(); }) o.weight(weight);
    if constexpr (requires { o.pos_weight(); }) o.pos_weight(pos_weight);
    return Fn(inputs..., o);
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

/// Kullback-Leibler divergence of log-probabilities against (log-)probabilities; kBatchMean is the divergence.
using KLDivLossImpl = detail::LossModuleImpl<KLDivLossOptions, &functional::kl_div, "KLDivLoss">;
/// input where target is 1, max(0, margin - input) where it is -1.
using HingeEmbeddingLossImpl =
    detail::LossModuleImpl<HingeEmbeddingLossOptions, &functional::hinge_embedding_loss, "HingeEmbeddingLoss">;
/// Multi-class hinge loss of (N, C) scores at int64 class indices (N), with class weights.
using MultiMarginLossImpl =
    detail::LossModuleImpl<MultiMarginLossOptions, &functional::multi_margin_loss, "MultiMarginLoss">;
/// forward(input1, input2, target): 1 - cos for target 1, max(0, cos - margin) for target -1.
using CosineEmbeddingLossImpl =
    detail::LossModuleImpl<CosineEmbeddingLossOptions, &functional::cosine_embedding_loss, "CosineEmbeddingLoss">;
/// Multi-label hinge loss of (N, C) scores at int64 target classes (N, C), each row ended by -1.
using MultiLabelMarginLossImpl =
    detail::LossModuleImpl<MultiLabelMarginLossOptions, &functional::multilabel_margin_loss, "MultiLabelMarginLoss">;
/// log(1 + exp(-target input)), targets 1 / -1.
using SoftMarginLossImpl =
    detail::LossModuleImpl<SoftMarginLossOptions, &functional::soft_margin_loss, "SoftMarginLoss">;
/// Per-class logistic loss of (N, C) scores against 0 / 1 targets (N, C), with class weights.
using MultiLabelSoftMarginLossImpl =
    detail::LossModuleImpl<MultiLabelSoftMarginLossOptions, &functional::multilabel_soft_margin_loss,
                           "MultiLabelSoftMarginLoss">;
/// forward(anchor, positive, negative): max(0, margin + d(a, p) - d(a, n)) with the p-norm distance.
using TripletMarginLossImpl =
    detail::LossModuleImpl<TripletMarginLossOptions, &functional::triplet_margin_loss, "TripletMarginLoss">;
/// forward(log_probs, targets, input_lengths, target_lengths): connectionist temporal classification.
using CTCLossImpl = detail::LossModuleImpl<CTCLossOptions, &functional::ctc_loss, "CTCLoss">;
/// Negative log likelihood of target under Poisson(input) (input the log rate by default).
using PoissonNLLLossImpl =
    detail::LossModuleImpl<PoissonNLLLossOptions, &functional::poisson_nll_loss, "PoissonNLLLoss">;
/// forward(input1, input2, target): max(0, -target (input1 - input2) + margin).
using MarginRankingLossImpl =
    detail::LossModuleImpl<MarginRankingLossOptions, &functional::margin_ranking_loss, "MarginRankingLoss">;
/// forward(input, target, var): negative log likelihood of target under N(input, var).
using GaussianNLLLossImpl =
    detail::LossModuleImpl<GaussianNLLLossOptions, &functional::gaussian_nll_loss, "GaussianNLLLoss">;

EMBER_MODULE(L1Loss);
EMBER_MODULE(MSELoss);
EMBER_MODULE(NLLLoss);
EMBER_MODULE(CrossEntropyLoss);
EMBER_MODULE(BCELoss);
EMBER_MODULE(BCEWithLogitsLoss);
EMBER_MODULE(SmoothL1Loss);
EMBER_MODULE(HuberLoss);
EMBER_MODULE(KLDivLoss);
EMBER_MODULE(HingeEmbeddingLoss);
EMBER_MODULE(MultiMarginLoss);
EMBER_MODULE(CosineEmbeddingLoss);
EMBER_MODULE(MultiLabelMarginLoss);
EMBER_MODULE(SoftMarginLoss);
EMBER_MODULE(MultiLabelSoftMarginLoss);
EMBER_MODULE(TripletMarginLoss);
EMBER_MODULE(CTCLoss);
EMBER_MODULE(PoissonNLLLoss);
EMBER_MODULE(MarginRankingLoss);
EMBER_MODULE(GaussianNLLLoss);

}  // namespace ember::nn
