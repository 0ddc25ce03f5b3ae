// ember::nn::functional's kl_div, poisson_nll_loss and gaussian_nll_loss as compositions of ops, mirroring
// python/ember/_losses.py and python/ember/nn/_functional_loss.py.
#include "ember/nn/functional/distribution_loss.h"

#include <cmath>
#include <numbers>
#include <variant>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/autograd/autograd.h"
#include "ember/nn/functional/detail.h"
#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"

namespace ember::nn::functional {

using detail::apply_reduction;

Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& options) {
  EMBER_CHECK(input.is_floating_point() && target.is_floating_point(),
              "kl_div: Integral inputs not supported (input {}, target {})", input.dtype(), target.dtype());
  detail::check_broadcast("kl_div", "input", input, "target", target);
  const auto& r = options.reduction();
  if (std::holds_alternative<enumtype::kMean>(r)) {
    EMBER_WARN(
        "reduction: 'mean' divides the total loss by both the batch size and the support size.'batchmean' "
        "divides only by the batch size, and aligns with the KL div math definition.'mean' will be changed "
        "to behave the same as 'batchmean' in the next major release.");
  }
  const Tensor loss =
      options.log_target() ? target.exp() * (target - input) : ember::xlogy(target, target) - target * input;
  if (std::holds_alternative<enumtype::kNone>(r)) return loss;
  if (std::holds_alternative<enumtype::kMean>(r)) return loss.mean();
  Tensor sum = loss.sum();
  if (std::holds_alternative<enumtype::kBatchMean>(r) && input.dim() != 0) sum = sum / input.size(0);
  return sum;
}

Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, const PoissonNLLLossFuncOptions& options) {
  detail::check_broadcast("poisson_nll_loss", "input", input, "target", target);
  Tensor loss = options.log_input() ? input.exp() - target * input : input - target * (input + options.eps()).log();
  if (options.full()) {
    const Tensor stirling = target * target.log() - target + 0.5 * (2 * std::numbers::pi * target).log();
    loss = loss + stirling.masked_fill(target <= 1, 0);
  }
  return apply_reduction(loss, options.reduction());
}

Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var_,
                         const GaussianNLLLossFuncOptions& options) {
  Tensor var = var_;
  if (!var.sizes().equals(input.sizes())) {
    const IntArrayRef in = input.sizes(), v = var.sizes();
    // input's sizes without the last one (none for a 0-dim input)
    const IntArrayRef lead(in.data(), in.empty() ? 0 : in.size() - 1);
    const bool lead_equal = !in.empty() && lead.equals(v);
    const bool last_one =
        !in.empty() && v.size() == in.size() && v.back() == 1 && lead.equals(IntArrayRef(v.data(), v.size() - 1));
    EMBER_CHECK_VALUE(lead_equal || last_one,
                      "gaussian_nll_loss: var is of incorrect size [{}] for input [{}]; expected input's size, or "
                      "it with the last dim 1 or dropped",
                      fmt::join(v, ", "), fmt::join(in, ", "));
    if (lead_equal) var = var.unsqueeze(-1);
  }
  detail::check_broadcast("gaussian_nll_loss", "input", input, "target", target);
  EMBER_CHECK_VALUE(!(var < 0).any().item<bool>(), "gaussian_nll_loss: var has negative entry/entries");
  var = var.clone();
  {
    // the clamp is outside the graph: the gradient is that of the unclamped var (PyTorch's)
    autograd::NoGradGuard no_grad;
    var.clamp_min_(options.eps());
  }
  Tensor loss = 0.5 * (var.log() + (input - target).pow(2) / var);
  if (options.full()) loss = loss + 0.5 * std::log(2 * std::numbers::pi);
  return apply_reduction(loss, options.reduction());
}

}  // namespace ember::nn::functional
