#pragma once
// ember::nn::functional's margin, hinge and triplet losses (LibTorch's F::hinge_embedding_loss,
// F::margin_ranking_loss, F::soft_margin_loss, F::multilabel_soft_margin_loss, F::multi_margin_loss,
// F::multilabel_margin_loss, F::cosine_embedding_loss, F::triplet_margin_loss,
// F::triplet_margin_with_distance_loss), composed of ops as Python's ember.nn.functional
// (python/ember/_losses.py, python/ember/nn/_functional_loss.py), so values and gradients match PyTorch 1.13's.
// The reduction is ember::kNone, ember::kMean (default) or ember::kSum.
#include "ember/core/Tensor.h"
#include "ember/nn/options/loss.h"

namespace ember::nn::functional {

/// input where target is 1, max(0, margin - input) where it is -1 (both terms for other targets); input and
/// target broadcast together. Errors: shapes that do not broadcast.
Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target,
                            const HingeEmbeddingLossFuncOptions& options = {});

/// max(0, -target (input1 - input2) + margin); the three broadcast together.
/// Errors: inputs of different numbers of dims (naming the three shapes); shapes that do not broadcast.
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           const MarginRankingLossFuncOptions& options = {});

/// log(1 + exp(-target input)) element-wise (targets 1 / -1); input and target broadcast together.
/// Errors: a non-floating input; shapes that do not broadcast.
Tensor soft_margin_loss(const Tensor& input, const Tensor& target, const SoftMarginLossFuncOptions& options = {});

/// Per sample, the mean over the C classes (the last dim) of -(y log sigmoid(x) + (1 - y) log sigmoid(-x)),
/// each class scaled by weight (C). input (N, C) or (*, C); target of input's shape; kNone gives (N) / (*).
/// Errors: a 0-dim input (IndexError); shapes that do not broadcast.
Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                                   const MultilabelSoftMarginLossFuncOptions& options = {});

/// Multi-class hinge loss: per sample of class y, sum over i != y of weight[y] max(0, margin - x[y] + x[i])^p
/// divided by C. input (N, C), (C) or (); target int64 (N) (or () / (1)); weight (C); kNone gives target's shape.
/// Errors: p not 1 or 2, weight not 1-D (ValueError); input of more than 2 dims or no classes, non-floating
/// input, a non-int64 target or one of another size, a target outside [0, C), a weight of another size than C.
Tensor multi_margin_loss(const Tensor& input, const Tensor& target, const MultiMarginLossFuncOptions& options = {});

/// Multi-label hinge loss: per sample, sum over its target classes j (the entries of its target row before
/// the first -1) and its non-target classes i of max(0, 1 - (x[j] - x[i])), divided by C.
/// input (N, C), (C) or (); target int64 of input's shape; kNone gives (N) for a 2-D input, else ().
/// Errors: input of more than 2 dims or no classes, non-floating input, a target that is not int64 or of
/// another size, a target class outside [0, C).
Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target,
                              const MultilabelMarginLossFuncOptions& options = {});

/// 1 - cos(input1, input2) for target 1, max(0, cos - margin) for target -1 (0 otherwise), the cosine over
/// the last dim with 1e-12 added to each squared norm. input1, input2 (N, D) with target (N), or (D) with a
/// 0-dim target; returns (N) or () with kNone.
/// Errors: a target of more than 1 dim, input dims that do not fit the target's; shapes that do not broadcast.
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             const CosineEmbeddingLossFuncOptions& options = {});

/// max(0, margin + d(anchor, positive) - d(anchor, negative)), d the p-norm pairwise_distance (eps added);
/// swap uses min(d(anchor, negative), d(positive, negative)) (Balntas et al., BMVC 2016). (N, D) or (D)
/// inputs; kNone gives (N) or ().
/// Errors: inputs of different numbers of dims; shapes that do not broadcast.
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           const TripletMarginLossFuncOptions& options = {});

/// max(0, d(anchor, positive) - d(anchor, negative) + margin) for the distance_function d (a function of two
/// tensors returning non-negative distances; none: pairwise_distance); swap as triplet_margin_loss's.
/// Errors: those of the distance function.
Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                         const TripletMarginWithDistanceLossFuncOptions& options = {});

}  // namespace ember::nn::functional
