#pragma once
// Options of Conv1d/2d/3d, ConvTranspose1d/2d/3d and of F::conv1d/2d/3d, F::conv_transpose1d/2d/3d (LibTorch's
// ConvOptions<D>, ConvTransposeOptions<D>, ConvFuncOptions<D>, ConvTransposeFuncOptions<D>).
#include <cstdint>
#include <initializer_list>
#include <variant>

#include "ember/core/Tensor.h"
#include "ember/nn/ExpandingArray.h"
#include "ember/nn/Options.h"
#include "ember/nn/enum.h"

namespace ember::nn {

namespace detail {
/// A convolution's padding: D amounts (one int repeats), or ember::kValid (none) or ember::kSame (the output
/// keeps the input's size; stride 1 only).
template <size_t D>
using conv_padding_t = std::variant<ExpandingArray<D>, enumtype::kValid, enumtype::kSame>;

/// How a Conv module pads: with zeros (inside the op) or by F::pad's reflect, replicate or circular modes.
using conv_padding_mode_t =
    std::variant<enumtype::kZeros, enumtype::kReflect, enumtype::kReplicate, enumtype::kCircular>;

// The setter `padding({1, 2})`: a braced list cannot convert to the variant by itself.
#define EMBER_CONV_PADDING_LIST_SETTER(D)                                     \
 public:                                                                      \
  auto padding(std::initializer_list<int64_t> p) -> decltype(*this) {         \
    this->padding_ = ExpandingArray<D>(p);                                    \
    return *this;                                                             \
  }
}  // namespace detail

/// Options of ConvNd modules: Conv2dOptions(in_channels, out_channels, kernel_size).stride(2).padding(1)
/// .dilation(1).groups(1).bias(true).padding_mode(ember::kZeros).
template <size_t D>
struct ConvOptions {
  using padding_t = detail::conv_padding_t<D>;
  using padding_mode_t = detail::conv_padding_mode_t;
  ConvOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(padding_t, padding) = 0;
  EMBER_CONV_PADDING_LIST_SETTER(D)
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(padding_mode_t, padding_mode) = ember::kZeros;
};
using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;
using Conv3dOptions = ConvOptions<3>;

/// Options of ConvTransposeNd modules: ConvTranspose2dOptions(in_channels, out_channels, kernel_size).stride(2)
/// .padding(1).output_padding(1).groups(1).bias(true).dilation(1).padding_mode(ember::kZeros) (zeros only, as
/// PyTorch's).
template <size_t D>
struct ConvTransposeOptions {
  using padding_mode_t = detail::conv_padding_mode_t;
  ConvTransposeOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(padding_mode_t, padding_mode) = ember::kZeros;
};
using ConvTranspose1dOptions = ConvTransposeOptions<1>;
using ConvTranspose2dOptions = ConvTransposeOptions<2>;
using ConvTranspose3dOptions = ConvTransposeOptions<3>;

namespace functional {
/// Options of F::conv1d / F::conv2d: bias (undefined: none), stride, padding, dilation, groups.
template <size_t D>
struct ConvFuncOptions {
  using padding_t = detail::conv_padding_t<D>;
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(padding_t, padding) = 0;
  EMBER_CONV_PADDING_LIST_SETTER(D)
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
};
using Conv1dFuncOptions = ConvFuncOptions<1>;
using Conv2dFuncOptions = ConvFuncOptions<2>;
using Conv3dFuncOptions = ConvFuncOptions<3>;

/// Options of F::conv_transpose1d/2d/3d: bias (undefined: none), stride, padding, output_padding, groups,
/// dilation.
template <size_t D>
struct ConvTransposeFuncOptions {
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
};
using ConvTranspose1dFuncOptions = ConvTransposeFuncOptions<1>;
using ConvTranspose2dFuncOptions = ConvTransposeFuncOptions<2>;
using ConvTranspose3dFuncOptions = ConvTransposeFuncOptions<3>;
}  // namespace functional

#undef EMBER_CONV_PADDING_LIST_SETTER

}  // namespace ember::nn
