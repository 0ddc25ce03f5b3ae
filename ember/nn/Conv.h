#pragma once
// Conv1d/2d/3d and ConvTranspose1d/2d/3d modules (LibTorch's torch::nn::Conv2d, ConvTranspose2d, ...): the
// templates ConvNdImpl<D> (weight (out, in / groups, *kernel)) and ConvTransposeNdImpl<D> (weight (in,
// out / groups, *kernel)) hold the weight and bias (out), initialised as Python's ember.nn layers are.
#include <optional>
#include <string>
#include <vector>

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
extern template class ConvNdImpl<3>;

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

/// 3-D convolution of (N, C_in, D, H, W) or (C_in, D, H, W) input. Conv3d(Conv3dOptions(in, out, k).padding(1)).
class Conv3dImpl : public Cloneable<Conv3dImpl, ConvNdImpl<3>> {
 public:
  using Cloneable::Cloneable;
  Conv3dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<3> kernel_size)
      : Cloneable(Conv3dOptions(in_channels, out_channels, kernel_size)) {}
};

EMBER_MODULE(Conv1d);
EMBER_MODULE(Conv2d);
EMBER_MODULE(Conv3d);

/// The shared part of ConvTranspose1d/2d/3d (Python's _ConvTransposeNd): weight (in, out / groups, *kernel),
/// bias (out), the output_padding an output_size asks for, and forward.
template <size_t D>
class ConvTransposeNdImpl : public Module {
 public:
  /// Errors (ValueError, as Python's): groups below 1; in_channels or out_channels not divisible by groups; a
  /// padding_mode other than zeros.
  explicit ConvTransposeNdImpl(ConvTransposeOptions<D> options);

  /// Draws weight and bias again, as ConvNdImpl's (fan_in = weight.size(1) * prod(kernel), as Python's).
  void reset_parameters();

  /// (N, C_in, *spatial) or (C_in, *spatial) -> (N, C_out, *spatial_out), each out = (in - 1)*stride -
  /// 2*padding + dilation*(k - 1) + output_padding + 1. output_size (the D spatial sizes, optionally with the
  /// leading batch/channel sizes) picks output_padding instead. Errors: an output_size of another length or
  /// outside [min, min + stride - 1] (ValueError, as Python's); the op's errors.
  Tensor forward(const Tensor& input, const std::optional<IntArrayRef>& output_size = std::nullopt);

  /// Python's: "4, 6, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), output_padding=(1, 1)".
  std::string extra_repr() const override;

  ConvTransposeOptions<D> options;
  Tensor weight;
  Tensor bias;  // undefined with bias(false)

 protected:
  static std::string layer_name() { return "ConvTranspose" + std::to_string(D) + "d"; }
  // output_padding for output_size (Python's _output_padding).
  std::vector<int64_t> output_padding_for(const Tensor& input, const std::optional<IntArrayRef>& output_size) const;
};

extern template class ConvTransposeNdImpl<1>;
extern template class ConvTransposeNdImpl<2>;
extern template class ConvTransposeNdImpl<3>;

/// 1-D transposed convolution. ConvTranspose1d(ConvTranspose1dOptions(in, out, k).stride(2)).
class ConvTranspose1dImpl : public Cloneable<ConvTranspose1dImpl, ConvTransposeNdImpl<1>> {
 public:
  using Cloneable::Cloneable;
  ConvTranspose1dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<1> kernel_size)
      : Cloneable(ConvTranspose1dOptions(in_channels, out_channels, kernel_size)) {}
};

/// 2-D transposed convolution. ConvTranspose2d(ConvTranspose2dOptions(in, out, k).stride(2).padding(1)).
class ConvTranspose2dImpl : public Cloneable<ConvTranspose2dImpl, ConvTransposeNdImpl<2>> {
 public:
  using Cloneable::Cloneable;
  ConvTranspose2dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<2> kernel_size)
      : Cloneable(ConvTranspose2dOptions(in_channels, out_channels, kernel_size)) {}
};

/// 3-D transposed convolution. ConvTranspose3d(ConvTranspose3dOptions(in, out, k).stride(2)).
class ConvTranspose3dImpl : public Cloneable<ConvTranspose3dImpl, ConvTransposeNdImpl<3>> {
 public:
  using Cloneable::Cloneable;
  ConvTranspose3dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<3> kernel_size)
      : Cloneable(ConvTranspose3dOptions(in_channels, out_channels, kernel_size)) {}
};

EMBER_MODULE(ConvTranspose1d);
EMBER_MODULE(ConvTranspose2d);
EMBER_MODULE(ConvTranspose3d);

}  // namespace ember::nn
