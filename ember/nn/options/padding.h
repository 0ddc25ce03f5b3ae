#pragma once
// Options of ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d, ConstantPad1d/2d/3d and ZeroPad2d (LibTorch's
// names; F::pad's PadFuncOptions are in ember/nn/functional/linear.h). A padding is one int for every side or
// 2*D ints ordered as F::pad's: (left, right) of the last dim, then (top, bottom) of the one before, then
// (front, back).
#include <cstdint>

#include "ember/nn/ExpandingArray.h"
#include "ember/nn/Options.h"

namespace ember::nn {

/// Options of ReflectionPad{D}d: ReflectionPad2dOptions(1) or ReflectionPad2dOptions({1, 1, 2, 0}).
template <size_t D>
struct ReflectionPadOptions {
  /*implicit*/ ReflectionPadOptions(ExpandingArray<D * 2> padding) : padding_(padding) {}
  EMBER_ARG(ExpandingArray<D * 2>, padding);
};
using ReflectionPad1dOptions = ReflectionPadOptions<1>;
using ReflectionPad2dOptions = ReflectionPadOptions<2>;
using ReflectionPad3dOptions = ReflectionPadOptions<3>;

/// Options of ReplicationPad{D}d: ReplicationPad1dOptions({3, 1}).
template <size_t D>
struct ReplicationPadOptions {
  /*implicit*/ ReplicationPadOptions(ExpandingArray<D * 2> padding) : padding_(padding) {}
  EMBER_ARG(ExpandingArray<D * 2>, padding);
};
using ReplicationPad1dOptions = ReplicationPadOptions<1>;
using ReplicationPad2dOptions = ReplicationPadOptions<2>;
using ReplicationPad3dOptions = ReplicationPadOptions<3>;

/// Options of ConstantPad{D}d: ConstantPad2dOptions({1, 2, 0, 1}, 3.5) pads with 3.5.
template <size_t D>
struct ConstantPadOptions {
  ConstantPadOptions(ExpandingArray<D * 2> padding, double value) : padding_(padding), value_(value) {}
  EMBER_ARG(ExpandingArray<D * 2>, padding);
  EMBER_ARG(double, value);
};
using ConstantPad1dOptions = ConstantPadOptions<1>;
using ConstantPad2dOptions = ConstantPadOptions<2>;
using ConstantPad3dOptions = ConstantPadOptions<3>;

/// Options of ZeroPad2d: ZeroPad2dOptions({1, 1, 2, 0}).
struct ZeroPad2dOptions {
  /*implicit*/ ZeroPad2dOptions(ExpandingArray<4> padding) : padding_(padding) {}
  EMBER_ARG(ExpandingArray<4>, padding);
};

}  // namespace ember::nn
