#pragma once
// EmbeddingBag (LibTorch's torch::nn::EmbeddingBag; Python's ember.nn.EmbeddingBag).
#include <cstdint>
#include <string>

#include "ember/core/Tensor.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/ModuleHolder.h"
#include "ember/nn/options/embedding_bag.h"

namespace ember::nn {

/// Sums, means or maxima of bags of rows of a table (F::embedding_bag has the shapes and errors).
///
/// weight: (num_embeddings, embedding_dim), initialised N(0, 1) as Python's (then the padding row zeroed), so
///         equal to PyTorch's under the same seed
/// forward(input, offsets = {}, per_sample_weights = {}): input (B, N) fixed-size bags, or (L) with offsets
///         (B) ((B + 1) with include_last_offset); returns (B, embedding_dim).
/// Errors: padding_idx outside [-num_embeddings, num_embeddings) or a _weight of another shape (at
/// construction, ValueError).
class EmbeddingBagImpl : public Cloneable<EmbeddingBagImpl> {
 public:
  EmbeddingBagImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingBagImpl(EmbeddingBagOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingBagImpl(EmbeddingBagOptions options);

  /// Draws a new table from N(0, 1) and zeroes the padding row.
  void reset_parameters();
  Tensor forward(const Tensor& input, const Tensor& offsets = {}, const Tensor& per_sample_weights = {});
  /// "10, 3, mode=sum, padding_idx=0" as Python's.
  std::string extra_repr() const override;

  /// The options, with padding_idx made non-negative.
  EmbeddingBagOptions options;
  Tensor weight;
};

/// The holder of EmbeddingBagImpl, with from_pretrained.
class EmbeddingBag : public ModuleHolder<EmbeddingBagImpl> {
 public:
  using ModuleHolder<EmbeddingBagImpl>::ModuleHolder;
  using Impl = EmbeddingBagImpl;
  /// An EmbeddingBag whose table is embeddings (2-D, shared, not copied); freeze turns its gradient off.
  /// Errors: embeddings not 2-D (ValueError).
  static EmbeddingBag from_pretrained(const Tensor& embeddings, const EmbeddingBagFromPretrainedOptions& options = {});
};

}  // namespace ember::nn
