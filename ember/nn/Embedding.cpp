#include "ember/nn/Embedding.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/autograd/autograd.h"
#include "ember/nn/Repr.h"
#include "ember/nn/init.h"
#include "ember/ops/Functions.h"

namespace ember::nn {

EmbeddingImpl::EmbeddingImpl(EmbeddingOptions options_) : options(std::move(options_)) {
  const int64_t n = options.num_embeddings(), dim = options.embedding_dim();
  if (options.padding_idx()) {
    const int64_t idx = *options.padding_idx();
    EMBER_CHECK_VALUE(idx >= -n && idx < n, "Embedding: padding_idx must be within num_embeddings ({}), got {}", n, idx);
    if (idx < 0) options.padding_idx(idx + n);
  }
  if (options._weight().defined()) {
    const Tensor& w = options._weight();
    EMBER_CHECK_VALUE(w.dim() == 2 && w.size(0) == n && w.size(1) == dim,
                      "Embedding: shape of _weight [{}] does not match num_embeddings and embedding_dim ({}, {})",
                      fmt::join(w.sizes(), ", "), n, dim);
    // The table is used as is (shared); a tensor with history is detached, as Python's Parameter(_weight).
    weight = register_parameter("weight", autograd::is_leaf(w) ? w : w.detach());
  } else {
    weight = register_parameter("weight", ember::empty({n, dim}, kFloat32));
    reset_parameters();
  }
}

void EmbeddingImpl::reset_parameters() {
  init::normal_(weight);
  if (options.padding_idx()) {
    autograd::NoGradGuard no_grad;
    weight.select(0, *options.padding_idx()).fill_(0);
  }
}

Tensor EmbeddingImpl::forward(const Tensor& input) {
  if (options.max_norm()) {
    // The rescaling is not part of the graph (as PyTorch's): it changes the table in place.
    autograd::NoGradGuard no_grad;
    ember::embedding_renorm_(weight, input.contiguous(), *options.max_norm(), options.norm_type());
  }
  return ember::embedding(weight, input, options.padding_idx().value_or(-1), options.scale_grad_by_freq(),
                          options.sparse());
}

std::string EmbeddingImpl::extra_repr() const {
  std::string s = fmt::format("{}, {}", options.num_embeddings(), options.embedding_dim());
  if (options.padding_idx()) s += fmt::format(", padding_idx={}", *options.padding_idx());
  if (options.max_norm()) s += ", max_norm=" + repr::py(*options.max_norm());
  if (options.norm_type() != 2) s += ", norm_type=" + repr::py(options.norm_type());
  if (options.scale_grad_by_freq()) s += ", scale_grad_by_freq=True";
  if (options.sparse()) s += ", sparse=True";
  return s;
}

Embedding Embedding::from_pretrained(const Tensor& embeddings, const EmbeddingFromPretrainedOptions& options) {
  EMBER_CHECK_VALUE(embeddings.dim() == 2, "Embedding::from_pretrained: embeddings must be 2-D, got shape [{}]",
                    fmt::join(embeddings.sizes(), ", "));
  Embedding embedding(EmbeddingOptions(embeddings.size(0), embeddings.size(1))
                          ._weight(embeddings)
                          .padding_idx(options.padding_idx())
                          .max_norm(options.max_norm())
                          .norm_type(options.norm_type())
                          .scale_grad_by_freq(options.scale_grad_by_freq())
                          .sparse(options.sparse()));
  autograd::set_requires_grad(embedding->weight, !options.freeze());
  return embedding;
}

}  // namespace ember::nn
