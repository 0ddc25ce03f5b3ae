#pragma once
// Options of AdaptiveLogSoftmaxWithLoss (LibTorch's names).
#include <cstdint>
#include <utility>
#include <vector>

#include "ember/nn/Options.h"

namespace ember::nn {

/// Options of AdaptiveLogSoftmaxWithLoss: `AdaptiveLogSoftmaxWithLossOptions(8, 10, {3, 6}).div_value(2.)`.
struct AdaptiveLogSoftmaxWithLossOptions {
  /*implicit*/ AdaptiveLogSoftmaxWithLossOptions(int64_t in_features, int64_t n_classes, std::vector<int64_t> cutoffs)
      : in_features_(in_features), n_classes_(n_classes), cutoffs_(std::move(cutoffs)) {}
  /// Features of each input row.
  EMBER_ARG(int64_t, in_features);
  /// Number of classes.
  EMBER_ARG(int64_t, n_classes);
  /// The class bounds of the clusters: unique, increasing, within [1, n_classes - 1].
  EMBER_ARG(std::vector<int64_t>, cutoffs);
  /// Cluster i projects to in_features / div_value^(i + 1) features.
  EMBER_ARG(double, div_value) = 4.;
  /// Whether the head has a bias.
  EMBER_ARG(bool, head_bias) = false;
};

}  // namespace ember::nn
