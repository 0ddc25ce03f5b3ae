#pragma once
// The pooling modules (LibTorch's torch::nn::MaxPool1d/2d/3d, AvgPool1d/2d/3d, AdaptiveAvgPool1d/2d/3d,
// AdaptiveMaxPool1d/2d/3d, LPPool1d/2d, MaxUnpool1d/2d/3d, FractionalMaxPool2d/3d): each applies its
// ember::nn::functional function with its options. See Note [functional modules]; the unpooling and fractional
// modules, which take more than the input or hold a buffer, are classes defined in Pooling.cpp.
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "ember/nn/functional/pooling.h"
#include "ember/nn/FunctionalModule.h"
#include "ember/nn/Repr.h"

namespace ember::nn {

namespace detail {
/// Python's printing of a pooling size: the number when every dim has the same, else the tuple.
template <size_t D>
std::string pool_size_repr(const ExpandingArray<D>& a) {
  return repr::py_size(*a);
}

/// A pooling module (see Note [functional modules]) whose forward_with_indices also returns the indices of the
/// maxima, as withIndices(input, options) computes them.
template <typename Options, auto Fn, auto WithIndices, FixedName Name>
class PoolWithIndicesImpl
    : public Cloneable<PoolWithIndicesImpl<Options, Fn, WithIndices, Name>, FunctionalModuleImpl<Options, Fn, Name>> {
 public:
  using Cloneable<PoolWithIndicesImpl, FunctionalModuleImpl<Options, Fn, Name>>::Cloneable;
  /// (values, int64 indices).
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input) { return WithIndices(input, this->options); }
};
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

/// Python's extra_repr of the adaptive poolings: "output_size=3", "output_size=(3, None)".
template <typename output_size_t>
std::string options_repr(const AdaptiveAvgPoolOptions<output_size_t>& o) {
  return "output_size=" + repr::py_size(*o.output_size());
}
template <typename output_size_t>
std::string options_repr(const AdaptiveMaxPoolOptions<output_size_t>& o) {
  return "output_size=" + repr::py_size(*o.output_size());
}
/// Python's extra_repr of LPPool1d/2d: "norm_type=2.0, kernel_size=3, stride=2, ceil_mode=False".
template <size_t D>
std::string options_repr(const LPPoolOptions<D>& o) {
  return fmt::format("norm_type={}, kernel_size={}, stride={}, ceil_mode={}", repr::py(o.norm_type()),
                     repr::py_size(*o.kernel_size()), repr::py_size(*o.stride()), repr::py(o.ceil_mode()));
}

/// 1-D max pooling. MaxPool1d(MaxPool1dOptions(3).stride(2)); forward_with_indices also returns the int64
/// indices of the maxima along L.
using MaxPool1dImpl = detail::PoolWithIndicesImpl<MaxPool1dOptions, &functional::max_pool1d,
                                                  &functional::max_pool1d_with_indices, "MaxPool1d">;
/// 3-D max pooling. MaxPool3d(MaxPool3dOptions(2)); forward_with_indices also returns the flat indices
/// d * H * W + h * W + w.
using MaxPool3dImpl = detail::PoolWithIndicesImpl<MaxPool3dOptions, &functional::max_pool3d,
                                                  &functional::max_pool3d_with_indices, "MaxPool3d">;
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

/// Adaptive average pooling of (N, C, L) or (C, L) input. AdaptiveAvgPool1d(3).
using AdaptiveAvgPool1dImpl =
    detail::FunctionalModuleImpl<AdaptiveAvgPool1dOptions, &functional::adaptive_avg_pool1d, "AdaptiveAvgPool1d">;
/// Adaptive average pooling of (N, C, D, H, W) or (C, D, H, W) input. AdaptiveAvgPool3d({2, std::nullopt, 3}).
using AdaptiveAvgPool3dImpl =
    detail::FunctionalModuleImpl<AdaptiveAvgPool3dOptions, &functional::adaptive_avg_pool3d, "AdaptiveAvgPool3d">;

/// Adaptive max pooling (functional::adaptive_max_pool1d/2d/3d); forward_with_indices also returns the int64
/// indices of the maxima. AdaptiveMaxPool2d({3, std::nullopt}).
using AdaptiveMaxPool1dImpl =
    detail::PoolWithIndicesImpl<AdaptiveMaxPool1dOptions, &functional::adaptive_max_pool1d,
                                &functional::adaptive_max_pool1d_with_indices, "AdaptiveMaxPool1d">;
using AdaptiveMaxPool2dImpl =
    detail::PoolWithIndicesImpl<AdaptiveMaxPool2dOptions, &functional::adaptive_max_pool2d,
                                &functional::adaptive_max_pool2d_with_indices, "AdaptiveMaxPool2d">;
using AdaptiveMaxPool3dImpl =
    detail::PoolWithIndicesImpl<AdaptiveMaxPool3dOptions, &functional::adaptive_max_pool3d,
                                &functional::adaptive_max_pool3d_with_indices, "AdaptiveMaxPool3d">;

/// Power-average pooling (functional::lp_pool1d / lp_pool2d). LPPool2d(LPPool2dOptions(2.0, 3).stride(2)).
using LPPool1dImpl = detail::FunctionalModuleImpl<LPPool1dOptions, &functional::lp_pool1d, "LPPool1d">;
using LPPool2dImpl = detail::FunctionalModuleImpl<LPPool2dOptions, &functional::lp_pool2d, "LPPool2d">;

/// The partial inverse of MaxPool1d/2d/3d (functional::max_unpool1d/2d/3d): forward(input, indices) puts each
/// value back at its index in a zero tensor of the default output size, or of output_size when given.
/// MaxUnpool2d(MaxUnpool2dOptions(2).stride(2)). Prints as Python's "MaxUnpool2d(kernel_size=(2, 2),
/// stride=(2, 2), padding=(0, 0))". Errors: as the functions.
template <size_t D>
class MaxUnpoolImpl : public Cloneable<MaxUnpoolImpl<D>> {
 public:
  explicit MaxUnpoolImpl(const MaxUnpoolOptions<D>& options);
  /// MaxUnpoolOptions<D>(kernel_size): MaxUnpool2d(2).
  explicit MaxUnpoolImpl(ExpandingArray<D> kernel_size) : MaxUnpoolImpl(MaxUnpoolOptions<D>(kernel_size)) {}
  Tensor forward(const Tensor& input, const Tensor& indices,
                 const std::optional<std::vector<int64_t>>& output_size = std::nullopt);
  std::string extra_repr() const override;

  MaxUnpoolOptions<D> options;
};
extern template class MaxUnpoolImpl<1>;
extern template class MaxUnpoolImpl<2>;
extern template class MaxUnpoolImpl<3>;
using MaxUnpool1dImpl = MaxUnpoolImpl<1>;
using MaxUnpool2dImpl = MaxUnpoolImpl<2>;
using MaxUnpool3dImpl = MaxUnpoolImpl<3>;

/// Fractional max pooling (functional::fractional_max_pool2d/3d): FractionalMaxPool2d(
/// FractionalMaxPool2dOptions(3).output_ratio(0.5)). options._random_samples, when given, is registered as the
/// buffer "_random_samples" (in the state dict, as Python's) and fixes the regions; otherwise each call draws
/// new ones. forward_with_indices also returns the flat indices. Prints as Python's "FractionalMaxPool2d()".
/// Errors (ValueError, at construction): neither or both of output_size and output_ratio; a ratio outside
/// (0, 1). forward: as the functions.
template <size_t D>
class FractionalMaxPoolImpl : public Cloneable<FractionalMaxPoolImpl<D>> {
 public:
  explicit FractionalMaxPoolImpl(const FractionalMaxPoolOptions<D>& options);
  /// Registers the buffer _random_samples (undefined when not given).
  void reset() override;
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);

  FractionalMaxPoolOptions<D> options;
  Tensor _random_samples;
};
extern template class FractionalMaxPoolImpl<2>;
extern template class FractionalMaxPoolImpl<3>;
using FractionalMaxPool2dImpl = FractionalMaxPoolImpl<2>;
using FractionalMaxPool3dImpl = FractionalMaxPoolImpl<3>;

EMBER_MODULE(MaxPool1d);
EMBER_MODULE(MaxPool2d);
EMBER_MODULE(MaxPool3d);
EMBER_MODULE(AvgPool1d);
EMBER_MODULE(AvgPool2d);
EMBER_MODULE(AvgPool3d);
EMBER_MODULE(AdaptiveAvgPool2d);
EMBER_MODULE(AdaptiveAvgPool1d);
EMBER_MODULE(AdaptiveAvgPool3d);
EMBER_MODULE(AdaptiveMaxPool1d);
EMBER_MODULE(AdaptiveMaxPool2d);
EMBER_MODULE(AdaptiveMaxPool3d);
EMBER_MODULE(LPPool1d);
EMBER_MODULE(LPPool2d);
EMBER_MODULE(MaxUnpool1d);
EMBER_MODULE(MaxUnpool2d);
EMBER_MODULE(MaxUnpool3d);
EMBER_MODULE(FractionalMaxPool2d);
EMBER_MODULE(FractionalMaxPool3d);

}  // namespace ember::nn
