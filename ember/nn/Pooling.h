#pragma once
// The pooling modules (LibTorch's torch::nn::MaxPool1d/2d/3d, AvgPool1d/2d/3d, AdaptiveAvgPool2d): each applies
// its ember::nn::functional function with its options. See Note [functional modules].
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "ember/nn/functional/pooling.h"
#include "ember/nn/FunctionalModule.h"
#include "ember/nn/Repr.h"

namespace ember::nn {

namespace detail {
/// Python's printing of a pooling size: the number when every dim has the same, else the tuple.
template <size_t D>
std::string pool_size_repr(const ExpandingArray<D>& a) {
  const auto& v = *a;
  for (size_t i = 1; i < D; ++i)
    if (v[i] != v[0]) return repr::py_tuple(IntArrayRef(v.data(), D));
  return std::to_string(v[0]);
}
}  // namespace detail

/// Python's extra_repr of MaxPool1d/2d/3d: "kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False".
template <size_t D>
std::string options_repr(const MaxPoolOptions<D>& o) {
  return fmt::format("kernel_size={}, stride={}, padding={}, dilation={}, ceil_mode={}",
                     detail::pool_size_repr(o.kernel_size()), detail::pool_size_repr(o.stride()),
                     detail::pool_size_repr(o.padding()), detail::pool_size_repr(o.dilation()),
                     repr::py(o.ceil_mode()));
}
/// Python's extra_repr of AvgPool1d/2d/3d: "kernel_size=2, stride=2, padding=0".
template <size_t D>
std::string options_repr(const AvgPoolOptions<D>& o) {
  return fmt::format("kernel_size={}, stride={}, padding={}", detail::pool_size_repr(o.kernel_size()),
                     detail::pool_size_repr(o.stride()), detail::pool_size_repr(o.padding()));
}

/// 1-D max pooling. MaxPool1d(MaxPool1dOptions(3).stride(2)).
using MaxPool1dImpl = detail::FunctionalModuleImpl<MaxPool1dOptions, &functional::max_pool1d, "MaxPool1d">;
/// 3-D max pooling. MaxPool3d(MaxPool3dOptions(2)).
using MaxPool3dImpl = detail::FunctionalModuleImpl<MaxPool3dOptions, &functional::max_pool3d, "MaxPool3d">;
/// 1-D average pooling. AvgPool1d(AvgPool1dOptions(2).count_include_pad(false)).
using AvgPool1dImpl = detail::FunctionalModuleImpl<AvgPool1dOptions, &functional::avg_pool1d, "AvgPool1d">;
/// 3-D average pooling. AvgPool3d(AvgPool3dOptions(2).stride(1)).
using AvgPool3dImpl = detail::FunctionalModuleImpl<AvgPool3dOptions, &functional::avg_pool3d, "AvgPool3d">;

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

EMBER_MODULE(MaxPool1d);
EMBER_MODULE(MaxPool2d);
EMBER_MODULE(MaxPool3d);
EMBER_MODULE(AvgPool1d);
EMBER_MODULE(AvgPool2d);
EMBER_MODULE(AvgPool3d);
EMBER_MODULE(AdaptiveAvgPool2d);

}  // namespace ember::nn
