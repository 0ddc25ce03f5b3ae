// ember::nn::functional's linear, dropout, embedding, one_hot and pad over the ops Python's
// ember.nn.functional calls.
#include "ember/nn/functional/linear.h"

#include "ember/autograd/GradMode.h"
#include "ember/nn/functional/detail.h"
#include "ember/ops/Functions.h"

namespace ember::nn::functional {

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  return ember::linear(input, weight, detail::optional_tensor(bias));
}

Tensor dropout(const Tensor& input, const DropoutFuncOptions& o) {
  EMBER_CHECK_VALUE(o.p() >= 0.0 && o.p() <= 1.0, "dropout probability has to be between 0 and 1, but got {}", o.p());
  return o.inplace() ? ember::dropout_(input, o.p(), o.training()) : ember::dropout(input, o.p(), o.training());
}

Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& o) {
  int64_t padding_idx = -1;  // the op's "none"
  if (o.padding_idx()) {
    const int64_t rows = weight.size(0);
    padding_idx = *o.padding_idx();
    EMBER_CHECK_VALUE(padding_idx < rows && padding_idx >= -rows,
                      "embedding: padding_idx ({}) must be within num_embeddings ({})", padding_idx, rows);
    if (padding_idx < 0) padding_idx += rows;
  }
  Tensor indices = input;
  if (o.max_norm()) {
    indices = input.contiguous();
    // The rescaling is not part of the graph (as PyTorch's): it modifies a weight that may require grad.
    autograd::AutoGradMode no_grad(false);
    ember::embedding_renorm_(weight, indices, *o.max_norm(), o.norm_type());
  }
  return ember::embedding(weight, indices, padding_idx, o.scale_grad_by_freq(), o.sparse());
}

Tensor one_hot(const Tensor& tensor, int64_t num_classes) { return ember::one_hot(tensor, num_classes); }

Tensor pad(const Tensor& input, const PadFuncOptions& o) {
  return ember::pad(input, o.pad(), enum_name(o.mode()), o.value());
}

}  // namespace ember::nn::functional
