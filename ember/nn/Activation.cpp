// The activation modules that are classes of their own: PReLU (a parameter) and RReLU (a training mode), and the
// function of Softmax2d. The rest of ember/nn/Activation.h is header-only.
#include "ember/nn/Activation.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/nn/init.h"
#include "ember/ops/Functions.h"

namespace ember::nn {

Tensor detail::softmax2d_forward(const Tensor& x) {
  EMBER_CHECK(x.dim() == 3 || x.dim() == 4, "Softmax2d: expected input to be 3D or 4D, got {}D instead (input of "
              "shape [{}])", x.dim(), fmt::join(x.sizes(), ", "));
  return ember::softmax(x, -3);
}

PReLUImpl::PReLUImpl(const PReLUOptions& options_) : options(options_) {
  EMBER_CHECK_VALUE(options.num_parameters() >= 1, "PReLU: num_parameters must be at least 1, got {}",
                    options.num_parameters());
  weight = register_parameter("weight", ember::empty({options.num_parameters()}, kFloat32));
  reset_parameters();
}

void PReLUImpl::reset_parameters() { init::constant_(weight, options.init()); }

Tensor PReLUImpl::forward(const Tensor& input) { return functional::prelu(input, weight); }

std::string PReLUImpl::extra_repr() const { return fmt::format("num_parameters={}", options.num_parameters()); }

RReLUImpl::RReLUImpl(const RReLUOptions& options_) : options(options_) {
  EMBER_CHECK(options.lower() <= options.upper(),
              "RReLU: Lower bound should be less than or equal to the upper bound (got lower={}, upper={})",
              options.lower(), options.upper());
}

Tensor RReLUImpl::forward(const Tensor& input) {
  return functional::rrelu(input, functional::RReLUFuncOptions()
                                      .lower(options.lower())
                                      .upper(options.upper())
                                      .training(is_training())
                                      .inplace(options.inplace()));
}

std::string RReLUImpl::extra_repr() const {
  return "lower=" + repr::py(options.lower()) + ", upper=" + repr::py(options.upper()) +
         detail::inplace_repr(options.inplace());
}

}  // namespace ember::nn
