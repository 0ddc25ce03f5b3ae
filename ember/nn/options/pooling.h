#pragma once
// Options of the pooling modules and functions (LibTorch's MaxPool2dOptions, AvgPool2dOptions,
// AdaptiveAvgPool2dOptions; the FuncOptions are the same structs).
#include <cstdint>
#include <optional>

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
using AdaptiveAvgPool2dOptions = AdaptiveAvgPoolOptions<ExpandingArray<2, std::optional<int64_t>>>;

namespace functional {
using MaxPool1dFuncOptions = MaxPool1dOptions;
using MaxPool2dFuncOptions = MaxPool2dOptions;
using MaxPool3dFuncOptions = MaxPool3dOptions;
using AvgPool1dFuncOptions = AvgPool1dOptions;
using AvgPool2dFuncOptions = AvgPool2dOptions;
using AvgPool3dFuncOptions = AvgPool3dOptions;
using AdaptiveAvgPool2dFuncOptions = AdaptiveAvgPool2dOptions;
}  // namespace functional

}  // namespace ember::nn
