#pragma once
// Options of MultiheadAttention and F::multi_head_attention_forward (LibTorch 1.13's MultiheadAttentionOptions
// and MultiheadAttentionForwardFuncOptions, same names and defaults).
#include <cstdint>

#include "ember/core/Tensor.h"
#include "ember/nn/Options.h"

namespace ember::nn {

/// Options of MultiheadAttention: `MultiheadAttentionOptions(embed_dim, num_heads).dropout(0.1).kdim(6)`.
struct MultiheadAttentionOptions {
  MultiheadAttentionOptions(int64_t embed_dim, int64_t num_heads)
      : embed_dim_(embed_dim), num_heads_(num_heads), kdim_(embed_dim), vdim_(embed_dim) {}
  /// E: the features of the query and of the output.
  EMBER_ARG(int64_t, embed_dim);
  /// The number of heads; E must be divisible by it.
  EMBER_ARG(int64_t, num_heads);
  /// Dropout probability on the attention weights, in training mode.
  EMBER_ARG(double, dropout) = 0.0;
  /// Whether the input and output projections have biases.
  EMBER_ARG(bool, bias) = true;
  /// Whether to learn one more key and value (bias_k, bias_v) appended to the key and value sequences.
  EMBER_ARG(bool, add_bias_kv) = false;
  /// Whether to append one more key and value of zeros.
  EMBER_ARG(bool, add_zero_attn) = false;
  /// The key's features (embed_dim by default).
  EMBER_ARG(int64_t, kdim);
  /// The value's features (embed_dim by default).
  EMBER_ARG(int64_t, vdim);
};

namespace functional {

/// Options of F::multi_head_attention_forward: the weights of the layer and how to run it (LibTorch's names;
/// undefined tensors stand for absent ones).
struct MultiheadAttentionForwardFuncOptions {
  MultiheadAttentionForwardFuncOptions(int64_t embed_dim_to_check, int64_t num_heads, Tensor in_proj_weight,
                                       Tensor in_proj_bias, Tensor bias_k, Tensor bias_v, bool add_zero_attn,
                                       double dropout_p, Tensor out_proj_weight, Tensor out_proj_bias)
      : embed_dim_to_check_(embed_dim_to_check), num_heads_(num_heads), in_proj_weight_(std::move(in_proj_weight)),
        in_proj_bias_(std::move(in_proj_bias)), bias_k_(std::move(bias_k)), bias_v_(std::move(bias_v)),
        add_zero_attn_(add_zero_attn), dropout_p_(dropout_p), out_proj_weight_(std::move(out_proj_weight)),
        out_proj_bias_(std::move(out_proj_bias)) {}
  EMBER_ARG(int64_t, embed_dim_to_check);
  EMBER_ARG(int64_t, num_heads);
  EMBER_ARG(Tensor, in_proj_weight);
  EMBER_ARG(Tensor, in_proj_bias);
  EMBER_ARG(Tensor, bias_k);
  EMBER_ARG(Tensor, bias_v);
  EMBER_ARG(bool, add_zero_attn);
  EMBER_ARG(double, dropout_p);
  EMBER_ARG(Tensor, out_proj_weight);
  EMBER_ARG(Tensor, out_proj_bias);
  /// Apply dropout to the attention weights.
  EMBER_ARG(bool, training) = true;
  EMBER_ARG(Tensor, key_padding_mask) = {};
  EMBER_ARG(bool, need_weights) = true;
  EMBER_ARG(Tensor, attn_mask) = {};
  /// Project with q_proj_weight, k_proj_weight and v_proj_weight instead of in_proj_weight.
  EMBER_ARG(bool, use_separate_proj_weight) = false;
  EMBER_ARG(Tensor, q_proj_weight) = {};
  EMBER_ARG(Tensor, k_proj_weight) = {};
  EMBER_ARG(Tensor, v_proj_weight) = {};
  /// Keys and values (N * num_heads, S, head_dim) used instead of the projected ones.
  EMBER_ARG(Tensor, static_k) = {};
  EMBER_ARG(Tensor, static_v) = {};
  /// Average the returned weights over the heads.
  EMBER_ARG(bool, average_attn_weights) = true;
};

}  // namespace functional
}  // namespace ember::nn
