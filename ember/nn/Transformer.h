#pragma once
// The Transformer of Vaswani et al., "Attention Is All You Need" (2017), as LibTorch 1.13's
// torch::nn::TransformerEncoderLayer, TransformerDecoderLayer, TransformerEncoder, TransformerDecoder and
// Transformer (Python's ember.nn of the same names, python/ember/nn/modules/transformer.py, without batch_first
// and norm_first, which LibTorch 1.13's C++ modules do not have):
//
//   ember::nn::Transformer model(ember::nn::TransformerOptions(64, 4, 2, 2).dim_feedforward(128));
//   auto mask = ember::nn::TransformerImpl::generate_square_subsequent_mask(tgt.size(0));
//   Tensor out = model->forward(src, tgt, /*src_mask=*/{}, /*tgt_mask=*/mask);
//
// Module trees and parameter names are Python's and PyTorch's (self_attn.in_proj_weight, linear1.weight,
// norm1.weight, layers.0...., encoder.layers.0...., decoder.norm.weight), registered in Python's order, so
// their state dicts load here and a seed gives their initial values.
#include <cstdint>

#include "ember/core/Tensor.h"
#include "ember/nn/AnyModule.h"
#include "ember/nn/Attention.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Dropout.h"
#include "ember/nn/Linear.h"
#include "ember/nn/ModuleHolder.h"
#include "ember/nn/ModuleList.h"
#include "ember/nn/Normalization.h"
#include "ember/nn/options/transformer.h"

namespace ember::nn {

/// Self-attention then a feed-forward block, each followed by dropout, a residual sum and LayerNorm (post-LN):
/// x = norm1(x + dropout1(self_attn(x, x, x))); x = norm2(x + dropout2(linear2(dropout(act(linear1(x)))))).
///
/// src: (S, N, E) or unbatched (S, E); src_mask: (S, S) or (N * nhead, S, S); src_key_padding_mask: (N, S) or
/// (S); masks bool (true: masked) or floating (added). Returns src's shape.
/// Errors: d_model not divisible by nhead, an activation token other than kReLU/kGELU (ValueError, at
/// construction); a key padding mask neither bool nor floating, and MultiheadAttention's errors, in forward.
class TransformerEncoderLayerImpl : public Cloneable<TransformerEncoderLayerImpl> {
 public:
  TransformerEncoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayerImpl(TransformerEncoderLayerOptions(d_model, nhead)) {}
  explicit TransformerEncoderLayerImpl(TransformerEncoderLayerOptions options);
  Tensor forward(const Tensor& src, const Tensor& src_mask = {}, const Tensor& src_key_padding_mask = {});
  /// Registers the submodules, drawing their initial values (the constructor calls it).
  void reset() override;
  /// Draws new initial values for the attention and the linear layers; the norms get weight 1, bias 0.
  void reset_parameters();

  TransformerEncoderLayerOptions options;
  MultiheadAttention self_attn = nullptr;
  Linear linear1 = nullptr;
  Dropout dropout = nullptr;
  Linear linear2 = nullptr;
  LayerNorm norm1 = nullptr, norm2 = nullptr;
  Dropout dropout1 = nullptr, dropout2 = nullptr;
};
EMBER_MODULE(TransformerEncoderLayer);

/// Self-attention, attention over memory, then a feed-forward block, each followed by dropout, a residual sum
/// and LayerNorm (norm1, norm2, norm3).
///
/// tgt: (T, N, E) or (T, E); memory: (S, N, E) or (S, E); tgt_mask (T, T) or (N * nhead, T, T); memory_mask
/// (T, S) or (N * nhead, T, S); tgt_key_padding_mask (N, T); memory_key_padding_mask (N, S). Returns tgt's
/// shape. Errors: as TransformerEncoderLayer.
class TransformerDecoderLayerImpl : public Cloneable<TransformerDecoderLayerImpl> {
 public:
  TransformerDecoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerDecoderLayerImpl(TransformerDecoderLayerOptions(d_model, nhead)) {}
  explicit TransformerDecoderLayerImpl(TransformerDecoderLayerOptions options);
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {});
  void reset() override;
  void reset_parameters();

  TransformerDecoderLayerOptions options;
  MultiheadAttention self_attn = nullptr, multihead_attn = nullptr;
  Linear linear1 = nullptr;
  Dropout dropout = nullptr;
  Linear linear2 = nullptr;
  LayerNorm norm1 = nullptr, norm2 = nullptr, norm3 = nullptr;
  Dropout dropout1 = nullptr, dropout2 = nullptr, dropout3 = nullptr;
};
EMBER_MODULE(TransformerDecoderLayer);

/// Options of TransformerEncoder: `TransformerEncoderOptions(layer_or_its_options, num_layers).norm(...)`.
struct TransformerEncoderOptions {
  TransformerEncoderOptions(TransformerEncoderLayer encoder_layer, int64_t num_layers)
      : encoder_layer_(std::move(encoder_layer)), num_layers_(num_layers) {}
  /// Builds the layer from its options (drawing its initial values).
  TransformerEncoderOptions(const TransformerEncoderLayerOptions& encoder_layer_options, int64_t num_layers)
      : encoder_layer_(encoder_layer_options), num_layers_(num_layers) {}
  /// The layer the stack is made of: num_layers clones of it (the same initial values in each).
  EMBER_ARG(TransformerEncoderLayer, encoder_layer) = nullptr;
  EMBER_ARG(int64_t, num_layers);
  /// Applied to the last layer's output when set (a LayerNorm usually); the stack holds a clone of it.
  EMBER_ARG(AnyModule, norm);
};

/// Options of TransformerDecoder: as TransformerEncoderOptions.
struct TransformerDecoderOptions {
  TransformerDecoderOptions(TransformerDecoderLayer decoder_layer, int64_t num_layers)
      : decoder_layer_(std::move(decoder_layer)), num_layers_(num_layers) {}
  TransformerDecoderOptions(const TransformerDecoderLayerOptions& decoder_layer_options, int64_t num_layers)
      : decoder_layer_(decoder_layer_options), num_layers_(num_layers) {}
  EMBER_ARG(TransformerDecoderLayer, decoder_layer) = nullptr;
  EMBER_ARG(int64_t, num_layers);
  EMBER_ARG(AnyModule, norm);
};

/// num_layers clones of encoder_layer ("layers.0", ...), then the optional norm ("norm").
/// forward(src, src_mask, src_key_padding_mask): shapes as TransformerEncoderLayer's.
/// Errors: num_layers negative or no layer (ValueError, at construction); the layers' in forward.
class TransformerEncoderImpl : public Cloneable<TransformerEncoderImpl> {
 public:
  TransformerEncoderImpl(TransformerEncoderLayer encoder_layer, int64_t num_layers)
      : TransformerEncoderImpl(TransformerEncoderOptions(std::move(encoder_layer), num_layers)) {}
  explicit TransformerEncoderImpl(TransformerEncoderOptions options);
  Tensor forward(const Tensor& src, const Tensor& src_mask = {}, const Tensor& src_key_padding_mask = {});
  void reset() override;
  /// Draws new initial values in every layer (each its own) and resets the norm when it is a LayerNorm.
  void reset_parameters();

  TransformerEncoderOptions options;
  ModuleList layers = nullptr;
  AnyModule norm;
};
EMBER_MODULE(TransformerEncoder);

/// num_layers clones of decoder_layer, then the optional norm. forward's shapes as TransformerDecoderLayer's.
class TransformerDecoderImpl : public Cloneable<TransformerDecoderImpl> {
 public:
  TransformerDecoderImpl(TransformerDecoderLayer decoder_layer, int64_t num_layers)
      : TransformerDecoderImpl(TransformerDecoderOptions(std::move(decoder_layer), num_layers)) {}
  explicit TransformerDecoderImpl(TransformerDecoderOptions options);
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {});
  void reset() override;
  void reset_parameters();

  TransformerDecoderOptions options;
  ModuleList layers = nullptr;
  AnyModule norm;
};
EMBER_MODULE(TransformerDecoder);

/// The encoder-decoder Transformer: encoder (num_encoder_layers layers and a LayerNorm), decoder (likewise);
/// every parameter of more than one dim is then re-drawn with xavier_uniform_, as Python's and PyTorch's.
///
/// src: (S, N, E) or (S, E); tgt: (T, N, E) or (T, E); src_mask (S, S); tgt_mask (T, T); memory_mask (T, S)
/// (or their (N * nhead, ., .) forms); key padding masks (N, S), (N, T), (N, S). Returns (T, N, E) or (T, E).
/// Errors (RuntimeError): batched src and tgt of different batch sizes, or features other than d_model.
class TransformerImpl : public Cloneable<TransformerImpl> {
 public:
  explicit TransformerImpl(TransformerOptions options);
  Tensor forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask = {}, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& src_key_padding_mask = {},
                 const Tensor& tgt_key_padding_mask = {}, const Tensor& memory_key_padding_mask = {});
  void reset() override;
  /// xavier_uniform_ on every parameter of more than one dim, in parameters() order.
  void reset_parameters();
  /// The (sz, sz) float causal mask: 0 on and below the diagonal, -inf above (position i attends j <= i).
  static Tensor generate_square_subsequent_mask(int64_t sz);

  TransformerOptions options;
  TransformerEncoder encoder = nullptr;
  TransformerDecoder decoder = nullptr;
};
EMBER_MODULE(Transformer);

}  // namespace ember::nn
