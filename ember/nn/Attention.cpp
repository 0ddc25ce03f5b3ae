// MultiheadAttention (python/ember/nn/modules/activation.py's MultiheadAttention, registration and
// initialisation in the same order, so a seed gives the same values).
#include "ember/nn/Attention.h"

#include "ember/nn/functional/attention.h"
#include "ember/nn/init.h"
#include "ember/ops/Functions.h"

namespace ember::nn {

MultiheadAttentionImpl::MultiheadAttentionImpl(const MultiheadAttentionOptions& options_) : options(options_) {
  const auto& o = options;
  EMBER_CHECK_VALUE(o.embed_dim() > 0 && o.num_heads() > 0 && o.kdim() > 0 && o.vdim() > 0,
                    "MultiheadAttention: embed_dim, num_heads, kdim and vdim must be positive, got embed_dim={}, "
                    "num_heads={}, kdim={}, vdim={}", o.embed_dim(), o.num_heads(), o.kdim(), o.vdim());
  EMBER_CHECK_VALUE(o.embed_dim() % o.num_heads() == 0, "MultiheadAttention: embed_dim must be divisible by "
                    "num_heads, got embed_dim={} and num_heads={} (valid num_heads divide {})", o.embed_dim(),
                    o.num_heads(), o.embed_dim());
  EMBER_CHECK_VALUE(o.dropout() >= 0.0 && o.dropout() <= 1.0, "MultiheadAttention: dropout probability has to be "
                    "between 0 and 1, but got {}", o.dropout());
  reset();
}

void MultiheadAttentionImpl::reset() {
  const auto& o = options;
  const int64_t E = o.embed_dim();
  _qkv_same_embed_dim = o.kdim() == E && o.vdim() == E;
  head_dim = E / o.num_heads();
  if (_qkv_same_embed_dim) {
    in_proj_weight = register_parameter("in_proj_weight", ember::empty({3 * E, E}, kFloat32));
    q_proj_weight = k_proj_weight = v_proj_weight = Tensor();
  } else {
    q_proj_weight = register_parameter("q_proj_weight", ember::empty({E, E}, kFloat32));
    k_proj_weight = register_parameter("k_proj_weight", ember::empty({E, o.kdim()}, kFloat32));
    v_proj_weight = register_parameter("v_proj_weight", ember::empty({E, o.vdim()}, kFloat32));
    in_proj_weight = Tensor();
  }
  in_proj_bias = o.bias() ? register_parameter("in_proj_bias", ember::empty({3 * E}, kFloat32)) : Tensor();
  std::shared_ptr<LinearImpl> proj =
      std::make_shared<NonDynamicallyQuantizableLinearImpl>(LinearOptions(E, E).bias(o.bias()));
  out_proj = register_module("out_proj", Linear(std::move(proj)));
  if (o.add_bias_kv()) {
    bias_k = register_parameter("bias_k", ember::empty({1, 1, E}, kFloat32));
    bias_v = register_parameter("bias_v", ember::empty({1, 1, E}, kFloat32));
  } else {
    bias_k = bias_v = Tensor();
  }
  _reset_parameters();
}

void MultiheadAttentionImpl::_reset_parameters() {
  if (_qkv_same_embed_dim) {
    init::xavier_uniform_(in_proj_weight);
  } else {
    init::xavier_uniform_(q_proj_weight);
    init::xavier_uniform_(k_proj_weight);
    init::xavier_uniform_(v_proj_weight);
  }
  if (in_proj_bias.defined()) {
    init::constant_(in_proj_bias, 0.0);
    init::constant_(out_proj->bias, 0.0);
  }
  if (bias_k.defined()) init::xavier_normal_(bias_k);
  if (bias_v.defined()) init::xavier_normal_(bias_v);
}

std::tuple<Tensor, Tensor> MultiheadAttentionImpl::forward(const Tensor& query, const Tensor& key,
                                                           const Tensor& value, const Tensor& key_padding_mask,
                                                           bool need_weights, const Tensor& attn_mask,
                                                           bool average_attn_weights) {
  namespace F = functional;
  auto fo = F::MultiheadAttentionForwardFuncOptions(options.embed_dim(), options.num_heads(), in_proj_weight,
                                                    in_proj_bias, bias_k, bias_v, options.add_zero_attn(),
                                                    options.dropout(), out_proj->weight, out_proj->bias)
                .training(is_training())
                .key_padding_mask(key_padding_mask)
                .need_weights(need_weights)
                .attn_mask(attn_mask)
                .average_attn_weights(average_attn_weights);
  if (!_qkv_same_embed_dim) {
    fo.use_separate_proj_weight(true).q_proj_weight(q_proj_weight).k_proj_weight(k_proj_weight)
        .v_proj_weight(v_proj_weight);
  }
  return F::multi_head_attention_forward(query, key, value, fo);
}

}  // namespace ember::nn
