#pragma once
// Fold and Unfold (LibTorch's torch::nn::Fold / Unfold; Python's ember.nn of the same names) over
// functional::fold / functional::unfold. See Note [functional modules].
#include <string>

#include <fmt/format.h>

#include "ember/nn/FunctionalModule.h"
#include "ember/nn/Repr.h"
#include "ember/nn/functional/fold.h"

namespace ember::nn {

/// Python's extra_repr of Fold: "output_size=(4, 5), kernel_size=2, dilation=1, padding=0, stride=1" (a size
/// prints as one number when its entries are equal).
inline std::string options_repr(const FoldOptions& o) {
  return fmt::format("output_size={}, kernel_size={}, dilation={}, padding={}, stride={}",
                     repr::py_size(*o.output_size()), repr::py_size(*o.kernel_size()), repr::py_size(*o.dilation()),
                     repr::py_size(*o.padding()), repr::py_size(*o.stride()));
}
/// Python's extra_repr of Unfold: "kernel_size=2, dilation=1, padding=0, stride=1".
inline std::string options_repr(const UnfoldOptions& o) {
  return fmt::format("kernel_size={}, dilation={}, padding={}, stride={}", repr::py_size(*o.kernel_size()),
                     repr::py_size(*o.dilation()), repr::py_size(*o.padding()), repr::py_size(*o.stride()));
}

/// Sums columns (N, C*kH*kW, L) into (N, C, *output_size). Fold(FoldOptions({4, 5}, 2).stride(1)).
/// Errors: as functional::fold.
using FoldImpl = detail::FunctionalModuleImpl<FoldOptions, &functional::fold, "Fold">;
/// The sliding blocks of (N, C, H, W) input as columns (N, C*kH*kW, L). Unfold(UnfoldOptions(2).padding(1)).
/// Errors: as functional::unfold.
using UnfoldImpl = detail::FunctionalModuleImpl<UnfoldOptions, &functional::unfold, "Unfold">;

EMBER_MODULE(Fold);
EMBER_MODULE(Unfold);

}  // namespace ember::nn
