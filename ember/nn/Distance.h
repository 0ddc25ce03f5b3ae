#pragma once
// CosineSimilarity and PairwiseDistance (LibTorch's torch::nn::CosineSimilarity / PairwiseDistance; Python's
// ember.nn of the same names): modules of two inputs over ember::nn::functional's distances.
#include <string>

#include "ember/core/Tensor.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Module.h"
#include "ember/nn/ModuleHolder.h"
#include "ember/nn/functional/distance.h"

namespace ember::nn {

/// Cosine similarity of x1 and x2 along options.dim() (functional::cosine_similarity). No parameters; prints as
/// Python's "CosineSimilarity()". x1, x2: broadcastable, e.g. (N, D) and (N, D) -> (N) with dim 1.
/// Errors: as functional::cosine_similarity.
class CosineSimilarityImpl : public Cloneable<CosineSimilarityImpl> {
 public:
  explicit CosineSimilarityImpl(const CosineSimilarityOptions& options = {});
  Tensor forward(const Tensor& x1, const Tensor& x2);

  CosineSimilarityOptions options;
};
EMBER_MODULE(CosineSimilarity);

/// The p-norm of x1 - x2 + eps over the last dim (functional::pairwise_distance): (N, D), (N, D) -> (N).
/// No parameters; prints as Python's "PairwiseDistance()". Errors: as functional::pairwise_distance.
class PairwiseDistanceImpl : public Cloneable<PairwiseDistanceImpl> {
 public:
  explicit PairwiseDistanceImpl(const PairwiseDistanceOptions& options = {});
  Tensor forward(const Tensor& x1, const Tensor& x2);

  PairwiseDistanceOptions options;
};
EMBER_MODULE(PairwiseDistance);

}  // namespace ember::nn
