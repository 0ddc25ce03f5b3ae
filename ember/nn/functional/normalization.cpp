// ember::nn::functional's normalizations over the ops Python's ember.nn.functional calls.
#include "ember/nn/functional/normalization.h"

#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/autograd/GradMode.h"
#include "ember/nn/functional/detail.h"
#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"

namespace ember::nn::functional {
namespace {

// Python's _verify_batch_size: statistics over a single value per channel are meaningless when training.
void verify_batch_size(const std::vector<int64_t>& size) {
  int64_t values = size.empty() ? 1 : size[0];
  for (size_t i = 2; i < size.size(); ++i) values *= size[i];
  EMBER_CHECK_VALUE(values != 1, "Expected more than 1 value per channel when training, got input size [{}]",
                    fmt::join(size, ", "));
}

}  // namespace

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& o) {
  if (o.training()) verify_batch_size(std::vector<int64_t>(input.sizes().begin(), input.sizes().end()));
  return ember::batch_norm(input, detail::optional_tensor(o.weight()), detail::optional_tensor(o.bias()),
                           detail::optional_tensor(running_mean), detail::optional_tensor(running_var),
                           o.training(), o.momentum().value_or(0.0), o.eps(), false);
}

Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& o) {
  // As Python's F.instance_norm and ember.instance_norm (python/ember/_norm.py): the batch norm of the input
  // seen as (1, N * C, *) with weight, bias and the running statistics repeated N times.
  const std::vector<int64_t> shape(input.sizes().begin(), input.sizes().end());
  EMBER_CHECK(shape.size() >= 2, "instance_norm: expected an input of shape (N, C, *), got one of shape [{}]",
              fmt::join(shape, ", "));
  if (o.use_input_stats()) {
    int64_t spatial = 1;
    for (size_t i = 2; i < shape.size(); ++i) spatial *= shape[i];
    EMBER_CHECK_VALUE(spatial != 1, "Expected more than 1 spatial element when training, got input size [{}]",
                      fmt::join(shape, ", "));
  } else {
    EMBER_CHECK(o.running_mean().defined() && o.running_var().defined(),
                "Expected running_mean and running_var to be defined when use_input_stats is false");
  }
  const int64_t b = shape[0], c = shape[1];
  const std::pair<const Tensor*, const char*> args[] = {
      {&o.weight(), "weight"}, {&o.bias(), "bias"}, {&o.running_mean(), "running_mean"},
      {&o.running_var(), "running_var"}};
  for (const auto& [t, what] : args) {
    EMBER_CHECK(!t->defined() || t->numel() == c,
                "instance_norm: {} should contain {} elements (the channels of input of shape [{}]), not {}", what, c,
                fmt::join(shape, ", "), t->numel());
  }
  auto repeated = [b](const Tensor& t) {
    return t.defined() ? ember::repeat(t, std::vector<int64_t>{b}) : Tensor();
  };
  const Tensor mean_copies = repeated(o.running_mean()), var_copies = repeated(o.running_var());
  std::vector<int64_t> flat_shape{1, b * c};
  flat_shape.insert(flat_shape.end(), shape.begin() + 2, shape.end());
  const Tensor out =
      ember::batch_norm(input.contiguous().view(flat_shape), detail::optional_tensor(repeated(o.weight())),
                        detail::optional_tensor(repeated(o.bias())), detail::optional_tensor(mean_copies),
                        detail::optional_tensor(var_copies), o.use_input_stats(), o.momentum(), o.eps(), false);
  {
    autograd::NoGradGuard no_grad;
    const std::vector<int64_t> batch_dim{0};
    // each channel's statistic becomes the average of its N updated copies
    if (o.running_mean().defined()) {
      o.running_mean().copy_(ember::mean(mean_copies.view({b, c}), IntArrayRef(batch_dim)));
    }
    if (o.running_var().defined()) {
      o.running_var().copy_(ember::mean(var_copies.view({b, c}), IntArrayRef(batch_dim)));
    }
  }
  return out.view(shape);
}

Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& o) {
  return ember::layer_norm(input, o.normalized_shape(), detail::optional_tensor(o.weight()),
                           detail::optional_tensor(o.bias()), o.eps(), false);
}

Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& o) {
  // Checked before the op (as Python's F.group_norm): the per-group size (N * C / G, G, *spatial).
  if (input.dim() >= 2 && o.num_groups() > 0) {
    std::vector<int64_t> size{input.size(0) * input.size(1) / o.num_groups(), o.num_groups()};
    for (int64_t d = 2; d < input.dim(); ++d) size.push_back(input.size(d));
    verify_batch_size(size);
  }
  return ember::group_norm(input, o.num_groups(), detail::optional_tensor(o.weight()),
                           detail::optional_tensor(o.bias()), o.eps(), false);
}

Tensor normalize(const Tensor& input, const NormalizeFuncOptions& o) {
  const Tensor denom = input.norm(o.p(), {o.dim()}, /*keepdim=*/true).clamp_min(o.eps()).expand_as(input);
  return input / denom;
}

Tensor local_response_norm(const Tensor& input, const LocalResponseNormFuncOptions& o) {
  // Python's composite (python/ember/nn/_functional_norm.py): the squares padded with zeros along dim 1, then
  // the mean of each window of `size` channels.
  const int64_t dim = input.dim();
  EMBER_CHECK_VALUE(dim >= 3, "local_response_norm: Expected 3D or higher dimensionality input (got {} dimensions, "
                    "input of shape [{}])", dim, fmt::join(input.sizes(), ", "));
  if (input.numel() == 0) return input;
  const int64_t size = o.size();
  EMBER_CHECK(size >= 1, "local_response_norm: size should be greater than zero, but got {}", size);
  EMBER_CHECK(input.dtype() != kBool, "local_response_norm: not implemented for bool input");
  std::vector<int64_t> pad(static_cast<size_t>(2 * (dim - 2)), 0);
  pad.push_back(size / 2);
  pad.push_back((size - 1) / 2);
  const Tensor windows = ember::unfold(ember::constant_pad_nd(input * input, pad, 0), 1, size, 1);
  const Tensor div = input.is_floating_point()
                         ? ember::mean(windows, IntArrayRef{-1})
                         : ember::div(ember::sum(windows, IntArrayRef{-1}), ember::scalar_tensor(size), "floor");
  return input / ember::pow(div * o.alpha() + o.k(), o.beta());
}

}  // namespace ember::nn::functional
