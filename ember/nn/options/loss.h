#pragma once
// Options of the loss modules and functions (LibTorch's names; the FuncOptions are the same structs, except
// CrossEntropyFuncOptions and the BinaryCrossEntropy ones which are aliases with LibTorch's functional names).
#include <cstdint>
#include <type_traits>

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

namespace functional {
using L1LossFuncOptions = L1LossOptions;
using MSELossFuncOptions = MSELossOptions;
using NLLLossFuncOptions = NLLLossOptions;
using CrossEntropyFuncOptions = CrossEntropyLossOptions;
using BinaryCrossEntropyFuncOptions = BCELossOptions;
using BinaryCrossEntropyWithLogitsFuncOptions = BCEWithLogitsLossOptions;
using SmoothL1LossFuncOptions = SmoothL1LossOptions;
using HuberLossFuncOptions = HuberLossOptions;
}  // namespace functional

}  // namespace ember::nn
