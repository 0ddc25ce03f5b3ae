#pragma once
// Options of the loss modules and functions (LibTorch's names; the FuncOptions are the same structs under
// LibTorch's functional names: CrossEntropyFuncOptions, KLDivFuncOptions, MultilabelMarginLossFuncOptions, ...).
#include <cstdint>
#include <functional>
#include <optional>
#include <type_traits>
#include <variant>

#include "ember/core/Tensor.h"
#include "ember/nn/Options.h"
#include "ember/nn/enum.h"

namespace ember::nn {

namespace detail {
/// The options of a loss whose only argument is its reduction (L1Loss, MSELoss): one template, one type per
/// loss through its Tag.
template <typename Tag>
struct ReductionOptions {
  ReductionOptions() = default;
  /*implicit*/ ReductionOptions(reduction_t reduction) : reduction_(reduction) {}
  /// From a token directly: F::mse_loss(x, y, ember::kSum).
  template <typename Token>
    requires std::is_constructible_v<reduction_t, Token>
  /*implicit*/ ReductionOptions(Token token) : reduction_(token) {}
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
};
}  // namespace detail

using L1LossOptions = detail::ReductionOptions<struct L1LossTag>;
using MSELossOptions = detail::ReductionOptions<struct MSELossTag>;

/// Options of NLLLoss: class weights (undefined: all 1), the ignored target value, the reduction.
struct NLLLossOptions {
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(int64_t, ignore_index) = -100;
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
};

/// Options of CrossEntropyLoss: NLLLoss's and label_smoothing in [0, 1].
struct CrossEntropyLossOptions {
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(int64_t, ignore_index) = -100;
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
  EMBER_ARG(double, label_smoothing) = 0.0;
};

/// Options of BCELoss: per-element weights (undefined: none; broadcast to the target), the reduction.
struct BCELossOptions {
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
};

/// Options of BCEWithLogitsLoss: BCELoss's and pos_weight, the weight of the positive term per class.
struct BCEWithLogitsLossOptions {
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
  EMBER_ARG(Tensor, pos_weight) = Tensor();
};

/// Options of SmoothL1Loss: the reduction and beta, where the loss turns from quadratic to linear.
struct SmoothL1LossOptions {
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
  EMBER_ARG(double, beta) = 1.0;
};

/// Options of HuberLoss: the reduction and delta, where the loss turns from quadratic to linear.
struct HuberLossOptions {
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
  EMBER_ARG(double, delta) = 1.0;
};

using MultiLabelMarginLossOptions = detail::ReductionOptions<struct MultiLabelMarginLossTag>;
using SoftMarginLossOptions = detail::ReductionOptions<struct SoftMarginLossTag>;

/// Options of KLDivLoss: the reduction (ember::kBatchMean, the sum divided by the batch size, is the KL
/// divergence; kMean divides by every element) and log_target, whether the target holds log-probabilities.
struct KLDivLossOptions {
  using reduction_t = std::variant<enumtype::kNone, enumtype::kBatchMean, enumtype::kSum, enumtype::kMean>;
  KLDivLossOptions() = default;
  /// From a token directly: KLDivLoss(ember::kBatchMean).
  template <typename Token>
    requires std::is_constructible_v<reduction_t, Token>
  /*implicit*/ KLDivLossOptions(Token token) : reduction_(token) {}
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
  EMBER_ARG(bool, log_target) = false;
};

/// Options of HingeEmbeddingLoss: the margin of the target -1 terms, the reduction.
struct HingeEmbeddingLossOptions {
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
};

/// Options of MultiMarginLoss: the power p (1 or 2), the margin, class weights (undefined: all 1), the
/// reduction.
struct MultiMarginLossOptions {
  EMBER_ARG(int64_t, p) = 1;
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
};

/// Options of CosineEmbeddingLoss: the margin of the target -1 terms, the reduction.
struct CosineEmbeddingLossOptions {
  EMBER_ARG(double, margin) = 0.0;
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
};

/// Options of MultiLabelSoftMarginLoss: class weights (undefined: all 1), the reduction.
struct MultiLabelSoftMarginLossOptions {
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
};

/// Options of TripletMarginLoss: the margin, the norm p of the distance, the eps added to the differences,
/// swap (the negative distance is the smaller of anchor's and positive's), the reduction.
struct TripletMarginLossOptions {
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(bool, swap) = false;
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
};

/// Options of TripletMarginWithDistanceLoss: the distance (none: F::pairwise_distance), the margin, swap, the
/// reduction.
struct TripletMarginWithDistanceLossOptions {
  using distance_function_t = std::function<Tensor(const Tensor&, const Tensor&)>;
  EMBER_ARG(std::optional<distance_function_t>, distance_function) = std::nullopt;
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(bool, swap) = false;
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
};

/// Options of CTCLoss: the blank class, the reduction (kMean divides each loss by its target length first),
/// zero_infinity (infinite losses and their gradients become 0).
struct CTCLossOptions {
  EMBER_ARG(int64_t, blank) = 0;
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
  EMBER_ARG(bool, zero_infinity) = false;
};

/// Options of PoissonNLLLoss: log_input (input is the log of the rate), full (Stirling's term), eps (added to
/// the rate inside the log when not log_input), the reduction.
struct PoissonNLLLossOptions {
  EMBER_ARG(bool, log_input) = true;
  EMBER_ARG(bool, full) = false;
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
};

/// Options of MarginRankingLoss: the margin, the reduction.
struct MarginRankingLossOptions {
  EMBER_ARG(double, margin) = 0;
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
};

/// Options of GaussianNLLLoss (Python's nn.GaussianNLLLoss; LibTorch 1.13 has none): full (the constant
/// 0.5 log(2 pi)), eps (the variance's lower clamp), the reduction.
struct GaussianNLLLossOptions {
  EMBER_ARG(bool, full) = false;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(reduction_t, reduction) = ember::kMean;
};

namespace functional {
using L1LossFuncOptions = L1LossOptions;
using MSELossFuncOptions = MSELossOptions;
using NLLLossFuncOptions = NLLLossOptions;
using CrossEntropyFuncOptions = CrossEntropyLossOptions;
using BinaryCrossEntropyFuncOptions = BCELossOptions;
using BinaryCrossEntropyWithLogitsFuncOptions = BCEWithLogitsLossOptions;
using SmoothL1LossFuncOptions = SmoothL1LossOptions;
using HuberLossFuncOptions = HuberLossOptions;
using KLDivFuncOptions = KLDivLossOptions;
using HingeEmbeddingLossFuncOptions = HingeEmbeddingLossOptions;
using MultiMarginLossFuncOptions = MultiMarginLossOptions;
using CosineEmbeddingLossFuncOptions = CosineEmbeddingLossOptions;
using MultilabelMarginLossFuncOptions = MultiLabelMarginLossOptions;
using SoftMarginLossFuncOptions = SoftMarginLossOptions;
using MultilabelSoftMarginLossFuncOptions = MultiLabelSoftMarginLossOptions;
using TripletMarginLossFuncOptions = TripletMarginLossOptions;
using TripletMarginWithDistanceLossFuncOptions = TripletMarginWithDistanceLossOptions;
using CTCLossFuncOptions = CTCLossOptions;
using PoissonNLLLossFuncOptions = PoissonNLLLossOptions;
using MarginRankingLossFuncOptions = MarginRankingLossOptions;
using GaussianNLLLossFuncOptions = GaussianNLLLossOptions;
}  // namespace functional

}  // namespace ember::nn
