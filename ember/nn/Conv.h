#pragma once
// Conv1d and Conv2d modules (LibTorch's torch::nn::Conv1d/Conv2d): one template, ConvNdImpl<D>, holds the
// weight (out, in / groups, *kernel) and bias (out), initialised as Python's ember.nn.Conv1d/Conv2d are.
#include <string>

#include "ember/core/Tensor.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Module.h"
#include "ember/nn/ModuleHolder.h"
#include "ember/nn/options/conv.h"

namespace ember::nn {

/// The shared part of Conv1d/Conv2d: argument checks, parameters, initialisation, the padding for the
/// non-zeros padding modes, and the input-shape check of forward.
template <size_t D>
class ConvNdImpl : public Module {
 public:
  /// Errors (ValueError, as Python's): groups below 1; in_channels or out_channels not divisible by groups;
  /// padding kSame with a stride other than 1.
  explicit ConvNdImpl(ConvOptions<D> options);

  /// Draws weight and bias again: kaiming_uniform_(a = sqrt(5)) for the weight, then U(-1/sqrt(fan_in),
  /// 1/sqrt(fan_in)) for the bias, as Python's layer (the same ops in the same order, so the same values under
  /// the same seed).
  void reset_parameters();

  /// (N, C_in, *spatial) or (C_in, *spatial) -> (N, C_out, *spatial_out). Errors: an input of another rank or
  /// channel count (naming the layer and both shapes); the op's errors.
  Tensor forward(const Tensor& input);

  /// Python's: "4, 6, kernel_size=(3, 2), stride=(2, 2), padding=(1, 1)" (padding, dilation, groups, bias
  /// and padding_mode only when not the default).
  std::string extra_repr() const override;

  ConvOptions<D> options;
  Tensor weight;
  Tensor bias;  // undefined with bias(false)

 protected:
  // "Conv1d" / "Conv2d", for messages.
  static std::string layer_name() { return "Conv" + std::to_string(D) + "d"; }
};

extern template class ConvNdImpl<1>;
extern template class ConvNdImpl<2>;

/// 1-D convolution of (N, C_in, L) or (C_in, L) input. Conv1d(Conv1dOptions(in, out, k).stride(2)).
class Conv1dImpl : public Cloneable<Conv1dImpl, ConvNdImpl<1>> {
 public:
  using Cloneable::Cloneable;
  Conv1dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<1> kernel_size)
      : Cloneable(Conv1dOptions(in_channels, out_channels, kernel_size)) {}
};

/// 2-D convolution of (N, C_in, H, W) or (C_in, H, W) input. Conv2d(Conv2dOptions(in, out, k).padding(1)).
class Conv2dImpl : public Cloneable<Conv2dImpl, ConvNdImpl<2>> {
 public:
  using Cloneable::Cloneable;
  Conv2dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<2> kernel_size)
      : Cloneable(Conv2dOptions(in_channels, out_channels, kernel_size)) {}
};

EMBER_MODULE(Conv1d);
EMBER_MODULE(Conv2d);

}  // namespace ember::nn
