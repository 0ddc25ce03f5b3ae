#pragma once
// Options of CosineSimilarity and PairwiseDistance and of their functions (LibTorch's names).
#include <cstdint>

#include "ember/nn/Options.h"

namespace ember::nn {

/// Options of CosineSimilarity: the dim reduced and the floor of each norm.
struct CosineSimilarityOptions {
  EMBER_ARG(int64_t, dim) = 1;
  EMBER_ARG(double, eps) = 1e-8;
};

/// Options of PairwiseDistance: the norm degree p, the eps added to the difference, and keepdim.
struct PairwiseDistanceOptions {
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(bool, keepdim) = false;
};

namespace functional {
using CosineSimilarityFuncOptions = CosineSimilarityOptions;
using PairwiseDistanceFuncOptions = PairwiseDistanceOptions;
}  // namespace functional

}  // namespace ember::nn
