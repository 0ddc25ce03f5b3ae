#pragma once
// Options of EmbeddingBag, EmbeddingBag::from_pretrained and F::embedding_bag (LibTorch's names).
#include <cstdint>
#include <optional>
#include <variant>

#include "ember/core/Tensor.h"
#include "ember/nn/Options.h"
#include "ember/nn/enum.h"

namespace ember::nn {

/// How a bag's rows combine: ember::kSum, ember::kMean (the default) or ember::kMax.
using EmbeddingBagMode = std::variant<enumtype::kSum, enumtype::kMean, enumtype::kMax>;

/// Options of EmbeddingBag: `EmbeddingBagOptions(10, 3).mode(ember::kSum).padding_idx(0)`.
struct EmbeddingBagOptions {
  EmbeddingBagOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  /// Rows of the table.
  EMBER_ARG(int64_t, num_embeddings);
  /// Size of each row.
  EMBER_ARG(int64_t, embedding_dim);
  /// When set, each row looked up whose norm_type-norm exceeds it is rescaled in place to that norm first.
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  /// The p of max_norm's p-norm.
  EMBER_ARG(double, norm_type) = 2.;
  /// Scales gradients by the inverse frequency of the indices in the batch (not with kMax).
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(EmbeddingBagMode, mode) = ember::kMean;
  /// Accepted for LibTorch compatibility; Ember computes a dense gradient.
  EMBER_ARG(bool, sparse) = false;
  /// An initial table (num_embeddings, embedding_dim) used as is instead of drawing one.
  EMBER_ARG(Tensor, _weight) = Tensor();
  /// offsets has B + 1 entries, the last one the end of the last bag.
  EMBER_ARG(bool, include_last_offset) = false;
  /// A row that is zero at initialisation, left out of the bags and gets no gradient (negative counts from
  /// the end).
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

/// Options of EmbeddingBag::from_pretrained.
struct EmbeddingBagFromPretrainedOptions {
  /// Whether the table is frozen (no gradient).
  EMBER_ARG(bool, freeze) = true;
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(EmbeddingBagMode, mode) = ember::kMean;
  EMBER_ARG(bool, sparse) = false;
  EMBER_ARG(bool, include_last_offset) = false;
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

namespace functional {
/// Options of F::embedding_bag: the module's, with offsets and per_sample_weights (undefined: none).
struct EmbeddingBagFuncOptions {
  /// (B) starts of the bags of a 1-D input ((B + 1) boundaries with include_last_offset); none for 2-D input.
  EMBER_ARG(Tensor, offsets) = Tensor();
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(EmbeddingBagMode, mode) = ember::kMean;
  EMBER_ARG(bool, sparse) = false;
  /// Of input's shape: scales each looked-up row (kSum only).
  EMBER_ARG(Tensor, per_sample_weights) = Tensor();
  EMBER_ARG(bool, include_last_offset) = false;
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};
}  // namespace functional

}  // namespace ember::nn
