#pragma once
// Options of the dropout modules and of F::alpha_dropout / F::feature_alpha_dropout (LibTorch's names).
#include "ember/nn/Options.h"

namespace ember::nn {

/// Options of Dropout: `DropoutOptions(0.2).inplace(true)` (also `DropoutOptions().p(0.2)`).
struct DropoutOptions {
  /* implicit */ DropoutOptions(double p = 0.5) : p_(p) {}  // NOLINT(google-explicit-constructor)
  /// Probability of zeroing an element, in [0, 1].
  EMBER_ARG(double, p);
  /// Whether forward overwrites its input.
  EMBER_ARG(bool, inplace) = false;
};
using AlphaDropoutOptions = DropoutOptions;
using FeatureAlphaDropoutOptions = DropoutOptions;

namespace functional {
/// Options of F::alpha_dropout: p, training (draw a mask; false: return the input) and inplace.
struct AlphaDropoutFuncOptions {
  EMBER_ARG(double, p) = 0.5;
  EMBER_ARG(bool, training) = false;
  EMBER_ARG(bool, inplace) = false;
};
/// Options of F::feature_alpha_dropout, as AlphaDropoutFuncOptions.
struct FeatureAlphaDropoutFuncOptions {
  EMBER_ARG(double, p) = 0.5;
  EMBER_ARG(bool, training) = false;
  EMBER_ARG(bool, inplace) = false;
};
}  // namespace functional

}  // namespace ember::nn
