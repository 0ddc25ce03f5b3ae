#pragma once
// ember::nn::functional's distances: cosine_similarity and pairwise_distance (LibTorch's names), composed of
// ops as Python's ember.nn.functional (python/ember/_losses.py).
#include "ember/core/Tensor.h"
#include "ember/nn/options/distance.h"

namespace ember::nn::functional {

/// Cosine of the angle between x1 and x2 along dim: sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps)), each
/// norm clamped on its own (PyTorch 1.13's formula; the clamp is outside the graph, so the derivative of a norm
/// is x / max(||x||, eps)). x1, x2: shapes that broadcast together; returns the broadcast shape without dim.
/// Errors: a common dtype that is not floating point; shapes that do not broadcast; dim out of range.
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, const CosineSimilarityFuncOptions& options = {});

/// The p-norm of x1 - x2 + eps over the last dim of their broadcast: (*, D) -> (*), or (*, 1) with keepdim.
/// eps keeps the norm differentiable where x1 == x2. Errors: shapes that do not broadcast (naming both).
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, const PairwiseDistanceFuncOptions& options = {});

}  // namespace ember::nn::functional
