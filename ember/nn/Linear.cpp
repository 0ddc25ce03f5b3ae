#include "ember/nn/Linear.h"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/nn/Repr.h"
#include "ember/nn/functional/linear.h"
#include "ember/nn/init.h"
#include "ember/ops/Functions.h"

namespace ember::nn {

Tensor IdentityImpl::forward(const Tensor& input) { return input; }

LinearImpl::LinearImpl(const LinearOptions& options_) : options(options_) {
  EMBER_CHECK_VALUE(options.in_features() >= 0 && options.out_features() >= 0,
                    "Linear: in_features and out_features must be non-negative, got in_features={}, out_features={}",
                    options.in_features(), options.out_features());
  weight = register_parameter("weight", ember::empty({options.out_features(), options.in_features()}, kFloat32));
  bias = register_parameter("bias", options.bias() ? ember::empty({options.out_features()}, kFloat32) : Tensor(),
                            options.bias());
  reset_parameters();
}

void LinearImpl::reset_parameters() { init::default_linear_init_(weight, bias, /*draw_bias_without_fan_in=*/true); }

Tensor LinearImpl::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() >= 1 && input.size(-1) == options.in_features(),
              "Linear({}): expected an input of shape (*, {}), got one of shape [{}]", extra_repr(),
              options.in_features(), fmt::join(input.sizes(), ", "));
  return ember::linear(input, weight, bias.defined() ? std::optional<Tensor>(bias) : std::nullopt);
}

std::string LinearImpl::extra_repr() const {
  return fmt::format("in_features={}, out_features={}, bias={}", options.in_features(), options.out_features(),
                     repr::py(bias.defined()));
}

BilinearImpl::BilinearImpl(const BilinearOptions& options_) : options(options_) {
  EMBER_CHECK_VALUE(options.in1_features() >= 0 && options.in2_features() >= 0 && options.out_features() >= 0,
                    "Bilinear: feature counts must be non-negative, got in1_features={}, in2_features={}, "
                    "out_features={}", options.in1_features(), options.in2_features(), options.out_features());
  weight = register_parameter(
      "weight", ember::empty({options.out_features(), options.in1_features(), options.in2_features()}, kFloat32));
  bias = register_parameter("bias", options.bias() ? ember::empty({options.out_features()}, kFloat32) : Tensor(),
                            options.bias());
  reset_parameters();
}

void BilinearImpl::reset_parameters() {
  // Python's reset_parameters: bound 1 / sqrt(weight.size(1)), weight drawn first, then bias.
  const double bound = 1.0 / std::sqrt(static_cast<double>(weight.size(1)));
  init::uniform_(weight, -bound, bound);
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}

Tensor BilinearImpl::forward(const Tensor& input1, const Tensor& input2) {
  return functional::bilinear(input1, input2, weight, bias);
}

std::string BilinearImpl::extra_repr() const {
  return fmt::format("in1_features={}, in2_features={}, out_features={}, bias={}", options.in1_features(),
                     options.in2_features(), options.out_features(), repr::py(bias.defined()));
}

}  // namespace ember::nn
