// ember::nn::functional's pooling over the ops Python's ember.nn.functional calls.
#include "ember/nn/functional/pooling.h"

#include "ember/ops/Functions.h"

namespace ember::nn::functional {

Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& o) {
  return ember::max_pool2d(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(), o.ceil_mode());
}

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const MaxPool2dFuncOptions& o) {
  return ember::max_pool2d_with_indices(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(),
                                        o.ceil_mode());
}

Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& o) {
  return ember::avg_pool2d(input, o.kernel_size(), o.stride(), o.padding(), o.ceil_mode(), o.count_include_pad(),
                           o.divisor_override());
}

Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& o) {
  return ember::max_pool1d(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(), o.ceil_mode());
}

Tensor max_pool3d(const Tensor& input, const MaxPool3dFuncOptions& o) {
  return ember::max_pool3d(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(), o.ceil_mode());
}

Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& o) {
  return ember::avg_pool1d(input, o.kernel_size(), o.stride(), o.padding(), o.ceil_mode(), o.count_include_pad());
}

Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& o) {
  return ember::avg_pool3d(input, o.kernel_size(), o.stride(), o.padding(), o.ceil_mode(), o.count_include_pad(),
                           o.divisor_override());
}

Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options) {
  // As Python's _list_with_default: a nullopt entry takes the size of the matching trailing input dim.
  const auto& wanted = *options.output_size();
  EMBER_CHECK_VALUE(input.dim() > 2 || (wanted[0] && wanted[1]), "Input dimension should be at least 3");
  std::array<int64_t, 2> size{};
  for (int64_t i = 0; i < 2; ++i) {
    size[i] = wanted[i] ? *wanted[i] : input.size(input.dim() - 2 + i);
  }
  return ember::adaptive_avg_pool2d(input, IntArrayRef(size.data(), size.size()));
}

}  // namespace ember::nn::functional
