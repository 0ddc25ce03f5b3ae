#pragma once
// F::multi_head_attention_forward (LibTorch's torch::nn::functional::multi_head_attention_forward; Python's
// ember.nn.functional.multi_head_attention_forward, python/ember/nn/_functional_attention.py, whose math and
// mask handling this follows op for op).
#include <tuple>

#include "ember/core/Tensor.h"
#include "ember/nn/options/attention.h"

namespace ember::nn::functional {

/// Multi-head attention (Vaswani et al., "Attention Is All You Need", 2017) in the sequence-first layout:
/// out_proj(concat_h(softmax(Q_h K_h^T / sqrt(head_dim) + mask) V_h)), Q, K, V the input projections of
/// query, key and value, head_dim = E / num_heads.
///
/// query: (L, N, E) or unbatched (L, E)        key: (S, N, E_k) or (S, E_k)      value: (S, N, E_v) or (S, E_v)
/// E_k, E_v may differ from E only with use_separate_proj_weight (q/k/v_proj_weight (E, E), (E, E_k), (E, E_v));
/// otherwise in_proj_weight (3E, E) holds the three projections' rows, in_proj_bias (3E) their biases.
/// bias_k, bias_v: (1, 1, E), appended as one more key and value; add_zero_attn appends one of zeros.
/// attn_mask: (L, S) or (N * num_heads, L, S), bool (true: may not attend), uint8 (deprecated, as bool) or
/// floating (added to the scores). key_padding_mask: (N, S) or (S), bool (true: ignore that key) or floating
/// (added). Both become one additive mask, as Note [attention masks] of _functional_attention.py describes.
/// returns (attn_output, attn_weights): attn_output (L, N, E) or (L, E); attn_weights (N, L, S') averaged over
/// the heads or (N, num_heads, L, S') (without N when unbatched), undefined unless need_weights; S' counts the
/// keys bias_k and add_zero_attn add.
/// Errors (RuntimeError, starting "multi_head_attention_forward:" and naming the shapes): a query that is not
/// 2-D or 3-D, key/value/masks of inconsistent ranks or shapes, E other than embed_dim_to_check or not divisible
/// by num_heads, projection weights of the wrong shapes, masks of an unsupported dtype, bias_k without bias_v.
std::tuple<Tensor, Tensor> multi_head_attention_forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                        const MultiheadAttentionForwardFuncOptions& options);

}  // namespace ember::nn::functional
