#include "ember/nn/utils/clip_grad.h"

#include <cmath>

#include "ember/autograd/GradMode.h"
#include "ember/ops/Functions.h"

namespace ember::nn::utils {

namespace {
std::vector<Tensor> defined_grads(const std::vector<Tensor>& parameters) {
  std::vector<Tensor> grads;
  for (const Tensor& p : parameters) {
    if (p.defined() && p.grad().defined()) grads.push_back(p.grad());
  }
  return grads;
}
}  // namespace

double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  const std::vector<Tensor> grads = defined_grads(parameters);
  if (grads.empty()) return 0.0;
  NoGradGuard no_grad;
  // The same ops in the same order as Python's clip_grad_norm_ (and PyTorch's), so the values agree bit for bit.
  Tensor total;
  std::vector<Tensor> norms;
  norms.reserve(grads.size());
  if (std::isinf(norm_type) && norm_type > 0) {
    for (const Tensor& g : grads) norms.push_back(g.abs().max());
    total = norms.size() == 1 ? norms[0] : ember::stack(norms).max();
  } else {
    for (const Tensor& g : grads) norms.push_back(g.norm(norm_type));
    total = ember::stack(norms).norm(norm_type);
  }
  const double total_value = total.item<double>();
  EMBER_CHECK(!error_if_nonfinite || std::isfinite(total_value),
              "The total norm of order {} for gradients from `parameters` is non-finite, so it cannot be clipped. "
              "To disable this error and scale the gradients by the non-finite norm anyway, set "
              "`error_if_nonfinite=false`",
              norm_type);
  const Tensor coef = ember::div(wrapped_scalar_tensor(max_norm), total.add(1e-6)).clamp_max(1.0);
  for (const Tensor& g : grads) g.mul_(coef.to(g.dtype()));
  return total_value;
}

double clip_grad_norm_(std::initializer_list<Tensor> parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>(parameters), max_norm, norm_type, error_if_nonfinite);
}

double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type, bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>{parameter}, max_norm, norm_type, error_if_nonfinite);
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  NoGradGuard no_grad;
  for (const Tensor& g : defined_grads(parameters)) g.clamp_(-clip_value, clip_value);
}

void clip_grad_value_(std::initializer_list<Tensor> parameters, double clip_value) {
  clip_grad_value_(std::vector<Tensor>(parameters), clip_value);
}

void clip_grad_value_(const Tensor& parameter, double clip_value) {
  clip_grad_value_(std::vector<Tensor>{parameter}, clip_value);
}

}  // namespace ember::nn::utils
