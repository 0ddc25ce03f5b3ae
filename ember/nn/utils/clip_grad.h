#pragma once
// Gradient clipping (LibTorch's torch::nn::utils::clip_grad_norm_ / clip_grad_value_; Python's
// ember.nn.utils.clip_grad_norm_ / clip_grad_value_, which compute the same values with the same ops).
//
//   loss.backward();
//   double total = ember::nn::utils::clip_grad_norm_(model->parameters(), /*max_norm=*/1.0);
//   optimizer.step();
#include <initializer_list>
#include <vector>

#include "ember/core/Tensor.h"

namespace ember::nn::utils {

/// Scales the gradients of parameters in place so that their total norm is at most max_norm, and returns the
/// total norm before clipping (0 when no parameter has a gradient).
///
/// The total norm is the norm_type-norm of the per-gradient norm_type-norms (for norm_type = infinity, the
/// largest |g|), computed in the gradients' dtype; every gradient is multiplied by
/// min(max_norm / (total + 1e-6), 1), as PyTorch 1.13 does (so a total below max_norm leaves the gradients
/// unchanged, and a NaN/inf total scales them by NaN or 0 unless error_if_nonfinite). Parameters without a
/// gradient are skipped. No autograd history is recorded.
/// Errors (RuntimeError): error_if_nonfinite and a NaN or infinite total norm ("The total norm of order <p> for
/// gradients from `parameters` is non-finite, so it cannot be clipped. ..."); nothing is scaled then.
double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
double clip_grad_norm_(std::initializer_list<Tensor> parameters, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);

/// Clamps the gradient of every parameter in place to [-clip_value, clip_value]; parameters without a
/// gradient are skipped. No autograd history is recorded.
void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);
void clip_grad_value_(std::initializer_list<Tensor> parameters, double clip_value);
void clip_grad_value_(const Tensor& parameter, double clip_value);

}  // namespace ember::nn::utils
