#include "ember/nn/Linear.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/nn/Repr.h"
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

}  // namespace ember::nn
