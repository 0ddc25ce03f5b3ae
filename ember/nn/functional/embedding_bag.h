#pragma once
// ember::nn::functional::embedding_bag (LibTorch's F::embedding_bag), composed of ops as Python's
// ember.nn.functional.embedding_bag (python/ember/nn/_functional_loss.py, python/ember/_losses.py).
#include "ember/core/Tensor.h"
#include "ember/nn/options/embedding_bag.h"

namespace ember::nn::functional {

/// Sums, means or maxima of bags of rows of weight (num_embeddings, D), without building the (bag, length, D)
/// lookups.
///
/// input: int64/int32 indices, (B, N) fixed-length bags, or (L) with offsets (B) (the start of each bag; the
/// last runs to L) or, with include_last_offset, (B + 1) boundaries. Entries equal to padding_idx are left out
/// of their bag and of the mean's count. per_sample_weights (input's shape, kSum only) scales each row.
/// Returns (B, D); an empty bag gives zeros. max_norm rescales the rows looked up in weight, in place.
/// Errors: offsets with a 2-D input or missing for a 1-D one, input of another rank, kMax with
/// scale_grad_by_freq or sparse, per_sample_weights of another shape (ValueError); per_sample_weights with a
/// mode other than kSum (NotImplementedError); index dtypes other than int64/int32, a non-floating weight,
/// offsets[0] != 0, decreasing offsets or offsets past L, an index or padding_idx out of range (RuntimeError).
Tensor embedding_bag(const Tensor& input, const Tensor& weight, const EmbeddingBagFuncOptions& options = {});

}  // namespace ember::nn::functional
