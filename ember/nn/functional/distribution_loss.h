#pragma once
// ember::nn::functional's losses of probability distributions (LibTorch's F::kl_div, F::poisson_nll_loss and
// Python's F.gaussian_nll_loss), composed of ops as Python's ember.nn.functional (python/ember/_losses.py,
// python/ember/nn/_functional_loss.py), so values and gradients match PyTorch 1.13's.
#include "ember/core/Tensor.h"
#include "ember/nn/options/loss.h"

namespace ember::nn::functional {

/// Kullback-Leibler divergence of log-probabilities input against target: target (log(target) - input), a
/// zero target contributing 0 (xlogy); with log_target, exp(target) (target - input). input and target
/// broadcast together. Reduction kBatchMean: the sum divided by input.size(0) (the KL divergence); kMean: the
/// mean over all elements (PyTorch warns, as here).
/// Errors: integral input or target; shapes that do not broadcast.
Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& options = {});

/// Negative log likelihood of target under Poisson(rate): exp(input) - target input when log_input (input is
/// the log rate), else input - target log(input + eps); full adds Stirling's term target log(target) - target
/// + 0.5 log(2 pi target) where target > 1. input and target broadcast together.
/// Errors: shapes that do not broadcast.
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, const PoissonNLLLossFuncOptions& options = {});

/// Negative log likelihood of target under N(input, var): 0.5 (log(v) + (input - target)^2 / v) with
/// v = max(var, eps) (the clamp invisible to autograd), plus 0.5 log(2 pi) with full.
/// input: (N, *) or (*); target broadcastable to input; var: input's shape, or it with the last dim 1 or
/// missing (one variance per sample).
/// Errors (ValueError): var of another size; a negative var entry.
Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var,
                         const GaussianNLLLossFuncOptions& options = {});

}  // namespace ember::nn::functional
