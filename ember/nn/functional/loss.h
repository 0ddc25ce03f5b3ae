#pragma once
// ember::nn::functional's losses: (input, target, options) over the loss ops of ember/ops/ops_nn.yaml, which
// check the shapes; the reduction is ember::kNone, ember::kMean (default) or ember::kSum.
#include "ember/core/Tensor.h"
#include "ember/nn/options/loss.h"

namespace ember::nn::functional {

/// |input - target|, reduced. Shapes broadcast to a common shape.
Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options = {});
/// (input - target)^2, reduced. Shapes broadcast to a common shape.
Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options = {});
/// Negative log likelihood of log-probabilities input (C), (N, C) or (N, C, d1, ...) at class indices
/// target (), (N) or (N, d1, ...); the mean divides by the summed weights of the targets that count.
Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options = {});
/// Cross entropy of logits input against class indices (nll_loss(log_softmax(input, 1), target)) or class
/// probabilities of input's shape; label_smoothing mixes the target with the uniform distribution.
Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyFuncOptions& options = {});
/// -weight (target log(input) + (1 - target) log(1 - input)), logs clamped at -100; reduced.
/// Errors: target's size differs from input's (ValueError); input outside [0, 1] (the op).
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const BinaryCrossEntropyFuncOptions& options = {});
/// binary_cross_entropy(sigmoid(input), target) computed stably; pos_weight weighs the positive term.
/// Errors: target's size differs from input's (ValueError).
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const BinaryCrossEntropyWithLogitsFuncOptions& options = {});
/// 0.5 z^2 / beta where z = |input - target| < beta, else z - 0.5 beta; reduced.
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const SmoothL1LossFuncOptions& options = {});
/// 0.5 z^2 where z = |input - target| < delta, else delta (z - 0.5 delta); reduced.
Tensor huber_loss(const Tensor& input, const Tensor& target, const HuberLossFuncOptions& options = {});

}  // namespace ember::nn::functional
