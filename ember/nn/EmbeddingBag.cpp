#include "ember/nn/EmbeddingBag.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/autograd/autograd.h"
#include "ember/nn/Repr.h"
#include "ember/nn/functional/embedding_bag.h"
#include "ember/nn/init.h"
#include "ember/ops/Functions.h"

namespace ember::nn {

EmbeddingBagImpl::EmbeddingBagImpl(EmbeddingBagOptions options_)
    : Cloneable<EmbeddingBagImpl>("EmbeddingBag"), options(std::move(options_)) {
  const int64_t n = options.num_embeddings(), dim = options.embedding_dim();
  if (options.padding_idx()) {
    const int64_t idx = *options.padding_idx();
    EMBER_CHECK_VALUE(idx >= -n && idx < n, "EmbeddingBag: padding_idx must be within num_embeddings ({}), got {}", n,
                      idx);
    if (idx < 0) options.padding_idx(idx + n);
  }
  if (options._weight().defined()) {
    const Tensor& w = options._weight();
    EMBER_CHECK_VALUE(w.dim() == 2 && w.size(0) == n && w.size(1) == dim,
                      "EmbeddingBag: shape of _weight [{}] does not match num_embeddings and embedding_dim ({}, {})",
                      fmt::join(w.sizes(), ", "), n, dim);
    // used as is (shared); a tensor with history is detached, as Python's Parameter(_weight)
    weight = register_parameter("weight", autograd::is_leaf(w) ? w : w.detach());
  } else {
    weight = register_parameter("weight", ember::empty({n, dim}, kFloat32));
    reset_parameters();
  }
}

void EmbeddingBagImpl::reset_parameters() {
  init::normal_(weight);
  if (options.padding_idx()) {
    autograd::NoGradGuard no_grad;
    weight.select(0, *options.padding_idx()).fill_(0);
  }
}

Tensor EmbeddingBagImpl::forward(const Tensor& input, const Tensor& offsets, const Tensor& per_sample_weights) {
  return functional::embedding_bag(input, weight,
                                   functional::EmbeddingBagFuncOptions()
                                       .offsets(offsets)
                                       .max_norm(options.max_norm())
                                       .norm_type(options.norm_type())
                                       .scale_grad_by_freq(options.scale_grad_by_freq())
                                       .mode(options.mode())
                                       .sparse(options.sparse())
                                       .per_sample_weights(per_sample_weights)
                                       .include_last_offset(options.include_last_offset())
                                       .padding_idx(options.padding_idx()));
}

std::string EmbeddingBagImpl::extra_repr() const {
  std::string s = fmt::format("{}, {}", options.num_embeddings(), options.embedding_dim());
  if (options.max_norm()) s += ", max_norm=" + repr::py(*options.max_norm());
  if (options.norm_type() != 2) s += ", norm_type=" + repr::py(options.norm_type());
  if (options.scale_grad_by_freq()) s += ", scale_grad_by_freq=True";
  s += ", mode=" + enum_name(options.mode());
  if (options.padding_idx()) s += fmt::format(", padding_idx={}", *options.padding_idx());
  return s;
}

EmbeddingBag EmbeddingBag::from_pretrained(const Tensor& embeddings, const EmbeddingBagFromPretrainedOptions& options) {
  EMBER_CHECK_VALUE(embeddings.dim() == 2, "EmbeddingBag::from_pretrained: embeddings must be 2-D, got shape [{}]",
                    fmt::join(embeddings.sizes(), ", "));
  EmbeddingBag bag(EmbeddingBagOptions(embeddings.size(0), embeddings.size(1))
                       ._weight(embeddings)
                       .max_norm(options.max_norm())
                       .norm_type(options.norm_type())
                       .scale_grad_by_freq(options.scale_grad_by_freq())
                       .mode(options.mode())
                       .sparse(options.sparse())
                       .include_last_offset(options.include_last_offset())
                       .padding_idx(options.padding_idx()));
  autograd::set_requires_grad(bag->weight, !options.freeze());
  return bag;
}

}  // namespace ember::nn
