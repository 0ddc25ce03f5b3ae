#pragma once
// Embedding (LibTorch's torch::nn::Embedding; Python's ember.nn.Embedding).
#include <cstdint>
#include <optional>

#include "ember/core/Tensor.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Module.h"
#include "ember/nn/ModuleHolder.h"
#include "ember/nn/Options.h"

namespace ember::nn {

/// Options of Embedding: `EmbeddingOptions(10, 3).padding_idx(0).max_norm(1.0)`.
struct EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  /// Rows of the table.
  EMBER_ARG(int64_t, num_embeddings);
  /// Size of each row.
  EMBER_ARG(int64_t, embedding_dim);
  /// A row that is zero at initialisation and gets no gradient (negative counts from the end).
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  /// When set, each row looked up whose norm_type-norm exceeds it is rescaled in place to that norm first.
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  /// The p of max_norm's p-norm.
  EMBER_ARG(double, norm_type) = 2.;
  /// Scales gradients by the inverse frequency of the indices in the batch.
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  /// Accepted for LibTorch compatibility; Ember computes a dense gradient.
  EMBER_ARG(bool, sparse) = false;
  /// An initial table (num_embeddings, embedding_dim) used as is instead of drawing one.
  EMBER_ARG(Tensor, _weight) = Tensor();
};

/// Options of Embedding::from_pretrained.
struct EmbeddingFromPretrainedOptions {
  /// Whether the table is frozen (no gradient).
  EMBER_ARG(bool, freeze) = true;
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(bool, sparse) = false;
};

/// A lookup table: row i of weight for each index i.
///
/// weight: (num_embeddings, embedding_dim), initialised N(0, 1) as Python's (then the padding row zeroed)
/// input:  int64 or int32 indices of any shape    returns: input.shape + (embedding_dim)
/// Errors: padding_idx outside [-num_embeddings, num_embeddings) or a _weight of another shape (at
/// construction); an index out of range (IndexError, from embedding).
class EmbeddingImpl : public Cloneable<EmbeddingImpl> {
 public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(EmbeddingOptions options);

  /// Draws a new table from N(0, 1) and zeroes the padding row.
  void reset_parameters();
  Tensor forward(const Tensor& input);
  /// "10, 3, padding_idx=0" as Python's.
  std::string extra_repr() const override;

  /// The options, with padding_idx made non-negative.
  EmbeddingOptions options;
  Tensor weight;
};

/// The holder of EmbeddingImpl, with from_pretrained.
class Embedding : public ModuleHolder<EmbeddingImpl> {
 public:
  using ModuleHolder<EmbeddingImpl>::ModuleHolder;
  using Impl = EmbeddingImpl;
  /// An Embedding whose table is embeddings (2-D, shared, not copied); freeze turns its gradient off.
  /// Errors: embeddings not 2-D.
  static Embedding from_pretrained(const Tensor& embeddings, const EmbeddingFromPretrainedOptions& options = {});
};

}  // namespace ember::nn
