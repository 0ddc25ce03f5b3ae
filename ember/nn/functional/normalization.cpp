// ember::nn::functional's normalizations over the ops Python's ember.nn.functional calls.
#include "ember/nn/functional/normalization.h"

#include <vector>

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

}  // namespace ember::nn::functional
