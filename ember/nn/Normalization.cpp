// LayerNorm and GroupNorm (python/ember/nn/modules/normalization.py).
#include "ember/nn/Normalization.h"

#include <algorithm>

#include "ember/nn/functional/normalization.h"
#include "ember/nn/Repr.h"
#include "ember/nn/init.h"
#include "ember/ops/Functions.h"

namespace ember::nn {

LayerNormImpl::LayerNormImpl(LayerNormOptions options_) : options(std::move(options_)) {
  if (options.elementwise_affine()) {
    weight = register_parameter("weight", ember::empty(options.normalized_shape()));
    bias = register_parameter("bias", ember::empty(options.normalized_shape()));
  }
  reset_parameters();
}

void LayerNormImpl::reset_parameters() {
  if (options.elementwise_affine()) {
    init::ones_(weight);
    init::zeros_(bias);
  }
}

Tensor LayerNormImpl::forward(const Tensor& input) {
  const auto& shape = options.normalized_shape();
  const auto n = static_cast<int64_t>(shape.size());
  EMBER_CHECK(input.dim() >= n && std::equal(shape.begin(), shape.end(), input.sizes().end() - n),
              "LayerNorm: expected input of shape (*, {}) for normalized_shape=[{}], but got input of shape [{}]",
              fmt::join(shape, ", "), fmt::join(shape, ", "), fmt::join(input.sizes(), ", "));
  return functional::layer_norm(
      input, functional::LayerNormFuncOptions(shape).weight(weight).bias(bias).eps(options.eps()));
}

std::string LayerNormImpl::extra_repr() const {
  return fmt::format("{}, eps={}, elementwise_affine={}", repr::py_tuple(options.normalized_shape()),
                     repr::py(options.eps()), repr::py(options.elementwise_affine()));
}

GroupNormImpl::GroupNormImpl(GroupNormOptions options_) : options(std::move(options_)) {
  EMBER_CHECK_VALUE(options.num_groups() > 0 && options.num_channels() % options.num_groups() == 0,
                    "GroupNorm: num_channels ({}) must be divisible by num_groups ({})", options.num_channels(),
                    options.num_groups());
  if (options.affine()) {
    weight = register_parameter("weight", ember::empty({options.num_channels()}));
    bias = register_parameter("bias", ember::empty({options.num_channels()}));
  }
  reset_parameters();
}

void GroupNormImpl::reset_parameters() {
  if (options.affine()) {
    init::ones_(weight);
    init::zeros_(bias);
  }
}

Tensor GroupNormImpl::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() >= 2 && input.size(1) == options.num_channels(),
              "GroupNorm: expected input of shape (N, {}, *) for num_channels={}, but got input of shape [{}]",
              options.num_channels(), options.num_channels(), fmt::join(input.sizes(), ", "));
  return functional::group_norm(
      input, functional::GroupNormFuncOptions(options.num_groups()).weight(weight).bias(bias).eps(options.eps()));
}

std::string GroupNormImpl::extra_repr() const {
  return fmt::format("{}, {}, eps={}, affine={}", options.num_groups(), options.num_channels(), repr::py(options.eps()),
                     repr::py(options.affine()));
}

}  // namespace ember::nn
