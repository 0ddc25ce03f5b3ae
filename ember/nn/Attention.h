#pragma once
// MultiheadAttention (LibTorch's torch::nn::MultiheadAttention; Python's ember.nn.MultiheadAttention without
// batch_first, which LibTorch 1.13's C++ module does not have):
//
//   ember::nn::MultiheadAttention attn(ember::nn::MultiheadAttentionOptions(16, 4).dropout(0.1));
//   auto [out, weights] = attn->forward(x, x, x);          // x (L, N, 16): self-attention
#include <string>
#include <tuple>

#include "ember/core/Tensor.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Linear.h"
#include "ember/nn/Module.h"
#include "ember/nn/ModuleHolder.h"
#include "ember/nn/options/attention.h"

namespace ember::nn {

/// MultiheadAttention's output projection: a Linear that prints under Python's class name
/// (NonDynamicallyQuantizableLinear), so the module prints as Python's does. Everything else is Linear's.
class NonDynamicallyQuantizableLinearImpl : public Cloneable<NonDynamicallyQuantizableLinearImpl, LinearImpl> {
 public:
  using Cloneable::Cloneable;
};

/// Multi-head attention (Vaswani et al., 2017): out_proj(concat(head_1, ..., head_h)) with
/// head_i = softmax(q W_i^Q (k W_i^K)^T / sqrt(E / num_heads) + mask) v W_i^V; see
/// F::multi_head_attention_forward (ember/nn/functional/attention.h) for the masks.
///
/// Parameters (PyTorch's names, so its state dicts load): in_proj_weight (3E, E) when kdim == vdim == E, else
/// q_proj_weight (E, E), k_proj_weight (E, kdim), v_proj_weight (E, vdim); in_proj_bias (3E) with bias;
/// out_proj.weight (E, E), out_proj.bias (E); bias_k, bias_v (1, 1, E) with add_bias_kv.
/// Initialised as Python's and PyTorch's, in this order: out_proj's Linear initialisation, xavier_uniform_ on
/// the projection weights, zeros on in_proj_bias and out_proj.bias, xavier_normal_ on bias_k then bias_v.
///
/// forward: query (L, N, E) or (L, E); key (S, N, kdim) or (S, kdim); value (S, N, vdim) or (S, vdim);
/// key_padding_mask (N, S) or (S); attn_mask (L, S) or (N * num_heads, L, S) (bool: true masks; floating: added).
/// Returns (attn_output (L, N, E) or (L, E), attn_weights (N, L, S') averaged over the heads or
/// (N, num_heads, L, S') with average_attn_weights false; undefined unless need_weights).
/// Errors: embed_dim not divisible by num_heads, non-positive sizes, dropout outside [0, 1] (ValueError, at
/// construction); those of F::multi_head_attention_forward in forward.
class MultiheadAttentionImpl : public Cloneable<MultiheadAttentionImpl> {
 public:
  MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttentionImpl(MultiheadAttentionOptions(embed_dim, num_heads)) {}
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions& options);

  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const Tensor& key_padding_mask = {}, bool need_weights = true,
                                     const Tensor& attn_mask = {}, bool average_attn_weights = true);
  /// Registers the parameters and initialises them (the constructor calls it).
  void reset() override;
  /// Draws new initial values (see the class doc).
  void _reset_parameters();

  MultiheadAttentionOptions options;
  bool _qkv_same_embed_dim = true;
  Tensor in_proj_weight, in_proj_bias, bias_k, bias_v;
  Linear out_proj = nullptr;
  Tensor q_proj_weight, k_proj_weight, v_proj_weight;
  int64_t head_dim = 0;
};
EMBER_MODULE(MultiheadAttention);

}  // namespace ember::nn
