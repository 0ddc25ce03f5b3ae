#pragma once
// The pooling modules (LibTorch's torch::nn::MaxPool2d, AvgPool2d, AdaptiveAvgPool2d): each applies its
// ember::nn::functional function with its options. See Note [functional modules].
#include <tuple>

#include "ember/nn/functional/pooling.h"
#include "ember/nn/FunctionalModule.h"

namespace ember::nn {

/// 2-D max pooling. MaxPool2d(MaxPool2dOptions(3).stride(2)); forward_with_indices also returns the flat
/// indices of the maxima.
class MaxPool2dImpl
    : public Cloneable<MaxPool2dImpl,
                       detail::FunctionalModuleImpl<MaxPool2dOptions, &functional::max_pool2d, "MaxPool2d">> {
 public:
  using Cloneable::Cloneable;
  /// (values, int64 indices h * W + w).
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input) {
    return functional::max_pool2d_with_indices(input, options);
  }
};

/// 2-D average pooling. AvgPool2d(AvgPool2dOptions(2).count_include_pad(false)).
using AvgPool2dImpl = detail::FunctionalModuleImpl<AvgPool2dOptions, &functional::avg_pool2d, "AvgPool2d">;

/// Average pooling to a fixed output size. AdaptiveAvgPool2d({3, 3}) or AdaptiveAvgPool2d(1).
using AdaptiveAvgPool2dImpl =
    detail::FunctionalModuleImpl<AdaptiveAvgPool2dOptions, &functional::adaptive_avg_pool2d, "AdaptiveAvgPool2d">;

EMBER_MODULE(MaxPool2d);
EMBER_MODULE(AvgPool2d);
EMBER_MODULE(AdaptiveAvgPool2d);

}  // namespace ember::nn
