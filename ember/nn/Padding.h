#pragma once
// Padding layers (LibTorch's torch::nn::ReflectionPad2d, ReplicationPad1d, ConstantPad3d, ZeroPad2d, ...;
// Python's ember.nn.ReflectionPad2d, ...): F::pad with a fixed padding and mode. No parameters or buffers.
#include <string>

#include "ember/core/Tensor.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Module.h"
#include "ember/nn/ModuleHolder.h"
#include "ember/nn/options/padding.h"

namespace ember::nn {

/// Pads the last D dims with the reflection of the input about its edges (the edge is not repeated):
/// ReflectionPad2d(ReflectionPad2dOptions({1, 1, 2, 0})).
/// input: (N, C, *spatial) or unbatched (C, *spatial) with D spatial dims; returns each spatial size plus
/// its two pads, e.g. W_out = W + left + right.
/// Errors (each naming the shapes): an input of another rank; a pad >= the size it pads.
template <size_t D>
class ReflectionPadImpl : public Cloneable<ReflectionPadImpl<D>> {
 public:
  explicit ReflectionPadImpl(const ReflectionPadOptions<D>& options);
  explicit ReflectionPadImpl(ExpandingArray<D * 2> padding) : ReflectionPadImpl(ReflectionPadOptions<D>(padding)) {}
  /// Nothing to register (no parameters or buffers).
  void reset() override {}
  Tensor forward(const Tensor& input);
  /// Python's: "(1, 1, 2, 0)".
  std::string extra_repr() const override;

  ReflectionPadOptions<D> options;
};

/// Pads the last D dims with copies of the edge elements: ReplicationPad1d(ReplicationPad1dOptions({3, 1})).
/// input: (N, C, *spatial) or unbatched (C, *spatial) with D spatial dims; returns each spatial size plus
/// its two pads. Errors (naming the shapes): an input of another rank.
template <size_t D>
class ReplicationPadImpl : public Cloneable<ReplicationPadImpl<D>> {
 public:
  explicit ReplicationPadImpl(const ReplicationPadOptions<D>& options);
  explicit ReplicationPadImpl(ExpandingArray<D * 2> padding) : ReplicationPadImpl(ReplicationPadOptions<D>(padding)) {}
  /// Nothing to register (no parameters or buffers).
  void reset() override {}
  Tensor forward(const Tensor& input);
  /// Python's: "(3, 1)".
  std::string extra_repr() const override;

  ReplicationPadOptions<D> options;
};

/// Pads the last D dims with a constant: ConstantPad2d(ConstantPad2dOptions({1, 2, 0, 1}, 3.5)).
/// input: any rank >= D; returns each of the last D sizes plus its two pads (negative pads crop).
/// Errors (naming the shapes): fewer than D dims; an output size below 0.
template <size_t D>
class ConstantPadImpl : public Cloneable<ConstantPadImpl<D>> {
 public:
  explicit ConstantPadImpl(const ConstantPadOptions<D>& options);
  ConstantPadImpl(ExpandingArray<D * 2> padding, double value)
      : ConstantPadImpl(ConstantPadOptions<D>(padding, value)) {}
  /// Nothing to register (no parameters or buffers).
  void reset() override {}
  Tensor forward(const Tensor& input);
  /// Python's: "padding=(1, 2, 0, 1), value=3.5".
  std::string extra_repr() const override;

  ConstantPadOptions<D> options;
};

/// Pads the last 2 dims with zeros: ZeroPad2d(ZeroPad2dOptions({1, 1, 2, 0})). As ConstantPad2d with value 0.
class ZeroPad2dImpl : public Cloneable<ZeroPad2dImpl> {
 public:
  explicit ZeroPad2dImpl(const ZeroPad2dOptions& options);
  explicit ZeroPad2dImpl(ExpandingArray<4> padding) : ZeroPad2dImpl(ZeroPad2dOptions(padding)) {}
  /// Nothing to register (no parameters or buffers).
  void reset() override {}
  Tensor forward(const Tensor& input);
  /// Python's: "(1, 1, 2, 0)".
  std::string extra_repr() const override;

  ZeroPad2dOptions options;
};

extern template class ReflectionPadImpl<1>;
extern template class ReflectionPadImpl<2>;
extern template class ReflectionPadImpl<3>;
extern template class ReplicationPadImpl<1>;
extern template class ReplicationPadImpl<2>;
extern template class ReplicationPadImpl<3>;
extern template class ConstantPadImpl<1>;
extern template class ConstantPadImpl<2>;
extern template class ConstantPadImpl<3>;

using ReflectionPad1dImpl = ReflectionPadImpl<1>;
using ReflectionPad2dImpl = ReflectionPadImpl<2>;
using ReflectionPad3dImpl = ReflectionPadImpl<3>;
using ReplicationPad1dImpl = ReplicationPadImpl<1>;
using ReplicationPad2dImpl = ReplicationPadImpl<2>;
using ReplicationPad3dImpl = ReplicationPadImpl<3>;
using ConstantPad1dImpl = ConstantPadImpl<1>;
using ConstantPad2dImpl = ConstantPadImpl<2>;
using ConstantPad3dImpl = ConstantPadImpl<3>;

EMBER_MODULE(ReflectionPad1d);
EMBER_MODULE(ReflectionPad2d);
EMBER_MODULE(ReflectionPad3d);
EMBER_MODULE(ReplicationPad1d);
EMBER_MODULE(ReplicationPad2d);
EMBER_MODULE(ReplicationPad3d);
EMBER_MODULE(ConstantPad1d);
EMBER_MODULE(ConstantPad2d);
EMBER_MODULE(ConstantPad3d);
EMBER_MODULE(ZeroPad2d);

}  // namespace ember::nn
