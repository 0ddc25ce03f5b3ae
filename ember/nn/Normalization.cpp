// LayerNorm, GroupNorm, LocalResponseNorm and CrossMapLRN2d (python/ember/nn/modules/normalization.py).
#include "ember/nn/Normalization.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/autograd/CustomFunction.h"
#include "ember/nn/functional/normalization.h"
#include "ember/nn/Repr.h"
#include "ember/nn/init.h"
#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"

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

LocalResponseNormImpl::LocalResponseNormImpl(const LocalResponseNormOptions& options_) : options(options_) {}

Tensor LocalResponseNormImpl::forward(const Tensor& input) { return functional::local_response_norm(input, options); }

std::string LocalResponseNormImpl::extra_repr() const {
  return fmt::format("{}, alpha={}, beta={}, k={}", options.size(), repr::py(options.alpha()),
                     repr::py(options.beta()), repr::py(options.k()));
}

namespace {
// The 0/1 (C, C) matrices of the channels PyTorch 1.13's CrossMapLRN2d sums: for its forward (row c: the
// channels in the scale of channel c) and for its backward (row c: the channels whose ratio reaches channel c's
// gradient). See Note [CrossMapLRN2d's windows] (python/ember/nn/modules/normalization.py).
Tensor forward_window(int64_t channels, int64_t size, DType dtype) {
  const Tensor c = ember::arange(channels);
  const Tensor row = ember::unsqueeze(c, 1), col = ember::unsqueeze(c, 0);
  const int64_t p = (size - 1) / 2 + 1;
  return ember::to(ember::logical_or(ember::logical_and(ember::gt(col, row - p), ember::le(col, row + (p - 1))),
                                     ember::eq(col, 0)),
                   dtype);
}
// q = floor(size - (size - 1) / 2), the backward window's offset.
int64_t backward_offset(int64_t size) { return size - size / 2; }
Tensor backward_window(int64_t channels, int64_t size, DType dtype) {
  const Tensor c = ember::arange(channels);
  const Tensor row = ember::unsqueeze(c, 1), col = ember::unsqueeze(c, 0);
  const int64_t q = backward_offset(size);
  return ember::to(ember::logical_and(ember::ge(col, row - q), ember::le(col, row + (size - 1 - q))), dtype);
}

struct CrossMapLRN2dFunction : autograd::Function<CrossMapLRN2dFunction> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& input, int64_t size, double alpha, double beta,
                        double k) {
    const Tensor squares = input * input;
    const Tensor sums = ember::einsum("cj,njhw->nchw", {forward_window(input.size(1), size, input.dtype()), squares});
    const Tensor scale = sums * (alpha / static_cast<double>(size)) + k;
    Tensor output = input * ember::pow(scale, -beta);
    ctx->saved_data["size"] = size;
    ctx->saved_data["alpha"] = alpha;
    ctx->saved_data["beta"] = beta;
    ctx->save_for_backward({input, output, scale});
    return output;
  }

  static autograd::variable_list backward(autograd::AutogradContext* ctx, autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const Tensor &input = saved[0], &output = saved[1], &scale = saved[2];
    const int64_t size = ctx->saved_data["size"].to_int();
    const double alpha = ctx->saved_data["alpha"].to_double(), beta = ctx->saved_data["beta"].to_double();
    EMBER_CHECK(backward_offset(size) <= size - 1, "CrossMapLRN2d backward: size {} leaves no room for its padded "
                "window of {} channels (PyTorch 1.13 raises here too)", size, input.size(1));
    const Tensor& grad_output = grads[0];
    const Tensor ratio = grad_output * output / scale;
    const Tensor accumulated =
        ember::einsum("cj,njhw->nchw", {backward_window(input.size(1), size, input.dtype()), ratio});
    Tensor grad_input = ember::pow(scale, -beta) * grad_output -
                        input * (2 * alpha * beta / static_cast<double>(size)) * accumulated;
    return {grad_input, Tensor(), Tensor(), Tensor(), Tensor()};
  }
};
}  // namespace

CrossMapLRN2dImpl::CrossMapLRN2dImpl(const CrossMapLRN2dOptions& options_) : options(options_) {}

Tensor CrossMapLRN2dImpl::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() == 4, "CrossMapLRN2d: expected a 4-D input (N, C, H, W), got one of shape [{}]",
              fmt::join(input.sizes(), ", "));
  return CrossMapLRN2dFunction::apply(input, options.size(), options.alpha(), options.beta(),
                                      static_cast<double>(options.k()));
}

std::string CrossMapLRN2dImpl::extra_repr() const {
  return fmt::format("{}, alpha={}, beta={}, k={}", options.size(), repr::py(options.alpha()),
                     repr::py(options.beta()), options.k());
}

}  // namespace ember::nn
