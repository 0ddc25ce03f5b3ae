// ember::nn::functional's linear, dropout, embedding, one_hot and pad over the ops Python's
// ember.nn.functional calls.
#include "ember/nn/functional/linear.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/autograd/GradMode.h"
#include "ember/nn/functional/detail.h"
#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"

namespace ember::nn::functional {

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  return ember::linear(input, weight, detail::optional_tensor(bias));
}

Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias) {
  // Python's composite (python/ember/_losses.py): one matmul with weight laid out (in1, out * in2), then the
  // contraction of in2 with input2.
  EMBER_CHECK(weight.dim() == 3, "bilinear(): expected a 3-D weight (out, in1, in2), but got one of shape [{}]",
              fmt::join(weight.sizes(), ", "));
  EMBER_CHECK(input1.dim() == input2.dim(), "bilinear(): input dimensions do not match: got {} and {}",
              input1.dim(), input2.dim());
  EMBER_CHECK(input1.dim() >= 1, "bilinear(): expected inputs of at least 1 dim, but got 0-dim inputs");
  for (int64_t i = 0; i + 1 < input1.dim(); ++i) {
    EMBER_CHECK(input1.size(i) == input2.size(i),
                "bilinear(): input batch dimensions do not match at dim {}: got {} and {}", i, input1.size(i),
                input2.size(i));
  }
  const int64_t out_features = weight.size(0), in1 = weight.size(1), in2 = weight.size(2);
  EMBER_CHECK(input1.size(-1) == in1, "bilinear(): input1 size does not match weight size: got {} but expected {}",
              input1.size(-1), in1);
  EMBER_CHECK(input2.size(-1) == in2, "bilinear(): input2 size does not match weight size: got {} but expected {}",
              input2.size(-1), in2);
  EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == out_features),
              "bilinear(): bias size does not match weight size: got [{}] but expected [{}]",
              fmt::join(bias.defined() ? bias.sizes() : IntArrayRef{}, ", "), out_features);
  std::vector<int64_t> shape(input1.sizes().begin(), input1.sizes().end() - 1);
  const Tensor x1 = ember::reshape(input1, {-1, in1});
  const Tensor x2 = ember::reshape(input2, {-1, in2});
  const Tensor w = ember::reshape(ember::permute(weight, {1, 0, 2}), {in1, out_features * in2});
  const Tensor left = ember::reshape(ember::matmul(x1, w), {-1, out_features, in2});
  Tensor out = ember::sum(left * ember::unsqueeze(x2, 1), IntArrayRef{-1});
  if (bias.defined()) out = out + bias;
  shape.push_back(out_features);
  return ember::reshape(out, shape);
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
