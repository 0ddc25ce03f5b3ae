#pragma once
// Options of Fold and Unfold and of F::fold / F::unfold (LibTorch's names).
#include "ember/nn/ExpandingArray.h"
#include "ember/nn/Options.h"

namespace ember::nn {

/// Options of Fold: FoldOptions(output_size, kernel_size).dilation(d).padding(p).stride(s).
struct FoldOptions {
  FoldOptions(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : output_size_(output_size), kernel_size_(kernel_size) {}
  EMBER_ARG(ExpandingArray<2>, output_size);
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  EMBER_ARG(ExpandingArray<2>, stride) = 1;
};

/// Options of Unfold: UnfoldOptions(kernel_size).dilation(d).padding(p).stride(s).
struct UnfoldOptions {
  /*implicit*/ UnfoldOptions(ExpandingArray<2> kernel_size) : kernel_size_(kernel_size) {}
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  EMBER_ARG(ExpandingArray<2>, stride) = 1;
};

namespace functional {
using FoldFuncOptions = FoldOptions;
using UnfoldFuncOptions = UnfoldOptions;
}  // namespace functional

}  // namespace ember::nn
