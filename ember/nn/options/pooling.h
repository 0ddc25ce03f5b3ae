#pragma once
// Options of the pooling modules and functions (LibTorch's MaxPool2dOptions, AvgPool2dOptions, adaptive, LP,
// fractional pooling and unpooling; the FuncOptions are the same structs but MaxUnpoolFuncOptions).
#include <cstdint>
#include <optional>
#include <vector>

#include "ember/core/Tensor.h"
#include "ember/nn/ExpandingArray.h"
#include "ember/nn/Options.h"

namespace ember::nn {

/// Options of max pooling: MaxPool2dOptions(kernel_size).stride(s).padding(p).dilation(d).ceil_mode(b);
/// stride defaults to kernel_size.
template <size_t D>
struct MaxPoolOptions {
  /*implicit*/ MaxPoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(bool, ceil_mode) = false;
};
using MaxPool1dOptions = MaxPoolOptions<1>;
using MaxPool2dOptions = MaxPoolOptions<2>;
using MaxPool3dOptions = MaxPoolOptions<3>;

/// Options of average pooling: AvgPool2dOptions(kernel_size).stride(s).padding(p).ceil_mode(b)
/// .count_include_pad(b).divisor_override(n); stride defaults to kernel_size.
template <size_t D>
struct AvgPoolOptions {
  /*implicit*/ AvgPoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(bool, ceil_mode) = false;
  EMBER_ARG(bool, count_include_pad) = true;
  EMBER_ARG(std::optional<int64_t>, divisor_override) = std::nullopt;
};
using AvgPool1dOptions = AvgPoolOptions<1>;
using AvgPool2dOptions = AvgPoolOptions<2>;
using AvgPool3dOptions = AvgPoolOptions<3>;

/// Options of adaptive average pooling: the output size; a nullopt entry keeps the input's size.
template <typename output_size_t>
struct AdaptiveAvgPoolOptions {
  /*implicit*/ AdaptiveAvgPoolOptions(output_size_t output_size) : output_size_(output_size) {}
  EMBER_ARG(output_size_t, output_size);
};
using AdaptiveAvgPool1dOptions = AdaptiveAvgPoolOptions<ExpandingArray<1>>;
using AdaptiveAvgPool2dOptions = AdaptiveAvgPoolOptions<ExpandingArray<2, std::optional<int64_t>>>;
using AdaptiveAvgPool3dOptions = AdaptiveAvgPoolOptions<ExpandingArray<3, std::optional<int64_t>>>;

/// Options of adaptive max pooling: the output size; a nullopt entry (2-D, 3-D) keeps the input's size.
template <typename output_size_t>
struct AdaptiveMaxPoolOptions {
  /*implicit*/ AdaptiveMaxPoolOptions(output_size_t output_size) : output_size_(output_size) {}
  EMBER_ARG(output_size_t, output_size);
};
using AdaptiveMaxPool1dOptions = AdaptiveMaxPoolOptions<ExpandingArray<1>>;
using AdaptiveMaxPool2dOptions = AdaptiveMaxPoolOptions<ExpandingArray<2, std::optional<int64_t>>>;
using AdaptiveMaxPool3dOptions = AdaptiveMaxPoolOptions<ExpandingArray<3, std::optional<int64_t>>>;

/// Options of MaxUnpool1d/2d/3d: the kernel_size, stride (default kernel_size) and padding of the max pooling
/// being inverted.
template <size_t D>
struct MaxUnpoolOptions {
  /*implicit*/ MaxUnpoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
};
using MaxUnpool1dOptions = MaxUnpoolOptions<1>;
using MaxUnpool2dOptions = MaxUnpoolOptions<2>;
using MaxUnpool3dOptions = MaxUnpoolOptions<3>;

/// Options of fractional max pooling: kernel_size, and either output_size or output_ratio (in (0, 1));
/// _random_samples (N, C, D) fixes the pseudo-random pooling regions (drawn per call when undefined).
template <size_t D>
struct FractionalMaxPoolOptions {
  /*implicit*/ FractionalMaxPoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size) {}
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(std::optional<ExpandingArray<D>>, output_size) = std::nullopt;
  using ExpandingArrayDouble = ExpandingArray<D, double>;
  EMBER_ARG(std::optional<ExpandingArrayDouble>, output_ratio) = std::nullopt;
  EMBER_ARG(Tensor, _random_samples) = Tensor();
};
using FractionalMaxPool2dOptions = FractionalMaxPoolOptions<2>;
using FractionalMaxPool3dOptions = FractionalMaxPoolOptions<3>;

/// Options of power-average pooling: norm_type p, kernel_size, stride (default kernel_size), ceil_mode.
template <size_t D>
struct LPPoolOptions {
  LPPoolOptions(double norm_type, ExpandingArray<D> kernel_size)
      : norm_type_(norm_type), kernel_size_(kernel_size), stride_(kernel_size) {}
  EMBER_ARG(double, norm_type);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(bool, ceil_mode) = false;
};
using LPPool1dOptions = LPPoolOptions<1>;
using LPPool2dOptions = LPPoolOptions<2>;

namespace functional {
using MaxPool1dFuncOptions = MaxPool1dOptions;
using MaxPool2dFuncOptions = MaxPool2dOptions;
using MaxPool3dFuncOptions = MaxPool3dOptions;
using AvgPool1dFuncOptions = AvgPool1dOptions;
using AvgPool2dFuncOptions = AvgPool2dOptions;
using AvgPool3dFuncOptions = AvgPool3dOptions;
using AdaptiveAvgPool1dFuncOptions = AdaptiveAvgPool1dOptions;
using AdaptiveAvgPool2dFuncOptions = AdaptiveAvgPool2dOptions;
using AdaptiveAvgPool3dFuncOptions = AdaptiveAvgPool3dOptions;
using AdaptiveMaxPool1dFuncOptions = AdaptiveMaxPool1dOptions;
using AdaptiveMaxPool2dFuncOptions = AdaptiveMaxPool2dOptions;
using AdaptiveMaxPool3dFuncOptions = AdaptiveMaxPool3dOptions;
using FractionalMaxPool2dFuncOptions = FractionalMaxPool2dOptions;
using FractionalMaxPool3dFuncOptions = FractionalMaxPool3dOptions;
using LPPool1dFuncOptions = LPPool1dOptions;
using LPPool2dFuncOptions = LPPool2dOptions;

/// Options of F::max_unpool1d/2d/3d: MaxUnpoolOptions and the output size (the spatial sizes, or with the
/// leading (N, C) / (C) dims); when unset, (in - 1) * stride + kernel_size - 2 * padding per dim.
template <size_t D>
struct MaxUnpoolFuncOptions {
  /*implicit*/ MaxUnpoolFuncOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(std::optional<std::vector<int64_t>>, output_size) = std::nullopt;
};
using MaxUnpool1dFuncOptions = MaxUnpoolFuncOptions<1>;
using MaxUnpool2dFuncOptions = MaxUnpoolFuncOptions<2>;
using MaxUnpool3dFuncOptions = MaxUnpoolFuncOptions<3>;
}  // namespace functional

}  // namespace ember::nn
