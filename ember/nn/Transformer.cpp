// The Transformer layers, stacks and model (python/ember/nn/modules/transformer.py: the same submodules,
// registered and initialised in the same order, and the same forward math).
#include "ember/nn/Transformer.h"

#include <limits>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/nn/init.h"
#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"

namespace ember::nn {

namespace {

// Errors: d_model not divisible by nhead, or an activation token other than kReLU (ValueError).
void check_layer(const char* name, int64_t d_model, int64_t nhead, const activation_t& activation) {
  EMBER_CHECK_VALUE(d_model > 0 && nhead > 0 && d_model % nhead == 0, "{}: d_model ({}) must be positive and "
                    "divisible by nhead ({})", name, d_model, nhead);
  if (const auto* n = std::get_if<init::Nonlinearity>(&activation)) {
    EMBER_CHECK_VALUE(*n == init::Nonlinearity::ReLU, "{}: activation should be ember::kReLU, ember::kGELU or a "
                      "function, not another nn::init token", name);
  }
  if (const auto* f = std::get_if<std::function<Tensor(const Tensor&)>>(&activation)) {
    EMBER_CHECK_VALUE(static_cast<bool>(*f), "{}: the activation function is empty", name);
  }
}

Tensor activate(const activation_t& activation, const Tensor& x) {
  if (std::holds_alternative<init::Nonlinearity>(activation)) return ember::relu(x);
  if (std::holds_alternative<enumtype::kGELU>(activation)) return ember::gelu(x);
  return std::get<std::function<Tensor(const Tensor&)>>(activation)(x);
}

void check_padding_mask_dtype(const char* name, const Tensor& mask) {
  EMBER_CHECK(!mask.defined() || mask.dtype() == kBool || mask.is_floating_point(), "{}: only bool and floating "
              "types of key_padding_mask are supported, got {}", name, mask.dtype());
}

MultiheadAttention attention(int64_t d_model, int64_t nhead, double dropout) {
  return MultiheadAttention(MultiheadAttentionOptions(d_model, nhead).dropout(dropout));
}

LayerNorm layer_norm(int64_t d_model) { return LayerNorm(LayerNormOptions({d_model})); }

// x's self-attention output (need_weights off), as Python's _sa_block before its dropout.
Tensor self_attention(MultiheadAttention& attn, const Tensor& x, const Tensor& mask, const Tensor& padding) {
  return std::get<0>(attn->forward(x, x, x, padding, /*need_weights=*/false, mask));
}

}  // namespace

// ---------------------------------------------------------------------------------------------- layers

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(TransformerEncoderLayerOptions options_)
    : options(std::move(options_)) {
  check_layer("TransformerEncoderLayer", options.d_model(), options.nhead(), options.activation());
  reset();
}

void TransformerEncoderLayerImpl::reset() {
  const auto& o = options;
  self_attn = register_module("self_attn", attention(o.d_model(), o.nhead(), o.dropout()));
  linear1 = register_module("linear1", Linear(o.d_model(), o.dim_feedforward()));
  dropout = register_module("dropout", Dropout(o.dropout()));
  linear2 = register_module("linear2", Linear(o.dim_feedforward(), o.d_model()));
  norm1 = register_module("norm1", layer_norm(o.d_model()));
  norm2 = register_module("norm2", layer_norm(o.d_model()));
  dropout1 = register_module("dropout1", Dropout(o.dropout()));
  dropout2 = register_module("dropout2", Dropout(o.dropout()));
}

void TransformerEncoderLayerImpl::reset_parameters() {
  self_attn->_reset_parameters();
  linear1->reset_parameters();
  linear2->reset_parameters();
  norm1->reset_parameters();
  norm2->reset_parameters();
}

Tensor TransformerEncoderLayerImpl::forward(const Tensor& src, const Tensor& src_mask,
                                            const Tensor& src_key_padding_mask) {
  check_padding_mask_dtype("TransformerEncoderLayer", src_key_padding_mask);
  Tensor x = norm1(src + dropout1(self_attention(self_attn, src, src_mask, src_key_padding_mask)));
  Tensor ff = dropout2(linear2(dropout(activate(options.activation(), linear1(x)))));
  return norm2(x + ff);
}

TransformerDecoderLayerImpl::TransformerDecoderLayerImpl(TransformerDecoderLayerOptions options_)
    : options(std::move(options_)) {
  check_layer("TransformerDecoderLayer", options.d_model(), options.nhead(), options.activation());
  reset();
}

void TransformerDecoderLayerImpl::reset() {
  const auto& o = options;
  self_attn = register_module("self_attn", attention(o.d_model(), o.nhead(), o.dropout()));
  multihead_attn = register_module("multihead_attn", attention(o.d_model(), o.nhead(), o.dropout()));
  linear1 = register_module("linear1", Linear(o.d_model(), o.dim_feedforward()));
  dropout = register_module("dropout", Dropout(o.dropout()));
  linear2 = register_module("linear2", Linear(o.dim_feedforward(), o.d_model()));
  norm1 = register_module("norm1", layer_norm(o.d_model()));
  norm2 = register_module("norm2", layer_norm(o.d_model()));
  norm3 = register_module("norm3", layer_norm(o.d_model()));
  dropout1 = register_module("dropout1", Dropout(o.dropout()));
  dropout2 = register_module("dropout2", Dropout(o.dropout()));
  dropout3 = register_module("dropout3", Dropout(o.dropout()));
}

void TransformerDecoderLayerImpl::reset_parameters() {
  self_attn->_reset_parameters();
  multihead_attn->_reset_parameters();
  linear1->reset_parameters();
  linear2->reset_parameters();
  norm1->reset_parameters();
  norm2->reset_parameters();
  norm3->reset_parameters();
}

Tensor TransformerDecoderLayerImpl::forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask,
                                            const Tensor& memory_mask, const Tensor& tgt_key_padding_mask,
                                            const Tensor& memory_key_padding_mask) {
  check_padding_mask_dtype("TransformerDecoderLayer", tgt_key_padding_mask);
  check_padding_mask_dtype("TransformerDecoderLayer", memory_key_padding_mask);
  Tensor x = norm1(tgt + dropout1(self_attention(self_attn, tgt, tgt_mask, tgt_key_padding_mask)));
  Tensor cross = std::get<0>(multihead_attn->forward(x, memory, memory, memory_key_padding_mask,
                                                     /*need_weights=*/false, memory_mask));
  x = norm2(x + dropout2(cross));
  Tensor ff = dropout3(linear2(dropout(activate(options.activation(), linear1(x)))));
  return norm3(x + ff);
}

// ---------------------------------------------------------------------------------------------- stacks

namespace {
void check_stack(const char* name, const Module* layer, int64_t num_layers) {
  EMBER_CHECK_VALUE(layer != nullptr, "{}: the layer to stack is null", name);
  EMBER_CHECK_VALUE(num_layers >= 0, "{}: num_layers must be non-negative, got {}", name, num_layers);
}

// The stack's layers: num_layers clones of layer (Module::clone leaves the generator where it was, as
// Python's copy.deepcopy); and the clone of norm, registered as "norm", when there is one.
template <typename Layer>
ModuleList clones(Module& owner, const Layer& layer, int64_t num_layers, const AnyModule& norm_in,
                  AnyModule& norm_out) {
  ModuleList layers = owner.register_module("layers", ModuleList());
  for (int64_t i = 0; i < num_layers; ++i) layers->push_back(layer->clone());
  norm_out = norm_in.is_empty() ? AnyModule() : norm_in.clone();
  if (!norm_out.is_empty()) owner.register_module("norm", norm_out.ptr());
  return layers;
}

void reset_norm(const AnyModule& norm) {
  if (norm.is_empty()) return;
  if (auto* ln = norm.ptr()->as<LayerNorm>()) ln->reset_parameters();
}
}  // namespace

TransformerEncoderImpl::TransformerEncoderImpl(TransformerEncoderOptions options_) : options(std::move(options_)) {
  check_stack("TransformerEncoder", options.encoder_layer().ptr().get(), options.num_layers());
  reset();
}

void TransformerEncoderImpl::reset() {
  layers = clones(*this, options.encoder_layer(), options.num_layers(), options.norm(), norm);
}

void TransformerEncoderImpl::reset_parameters() {
  for (const auto& layer : *layers) layer->as<TransformerEncoderLayer>()->reset_parameters();
  reset_norm(norm);
}

Tensor TransformerEncoderImpl::forward(const Tensor& src, const Tensor& src_mask,
                                       const Tensor& src_key_padding_mask) {
  check_padding_mask_dtype("TransformerEncoder", src_key_padding_mask);
  Tensor output = src;
  for (const auto& layer : *layers) {
    output = layer->as<TransformerEncoderLayer>()->forward(output, src_mask, src_key_padding_mask);
  }
  return norm.is_empty() ? output : norm.forward(output);
}

TransformerDecoderImpl::TransformerDecoderImpl(TransformerDecoderOptions options_) : options(std::move(options_)) {
  check_stack("TransformerDecoder", options.decoder_layer().ptr().get(), options.num_layers());
  reset();
}

void TransformerDecoderImpl::reset() {
  layers = clones(*this, options.decoder_layer(), options.num_layers(), options.norm(), norm);
}

void TransformerDecoderImpl::reset_parameters() {
  for (const auto& layer : *layers) layer->as<TransformerDecoderLayer>()->reset_parameters();
  reset_norm(norm);
}

Tensor TransformerDecoderImpl::forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask,
                                       const Tensor& memory_mask, const Tensor& tgt_key_padding_mask,
                                       const Tensor& memory_key_padding_mask) {
  Tensor output = tgt;
  for (const auto& layer : *layers) {
    output = layer->as<TransformerDecoderLayer>()->forward(output, memory, tgt_mask, memory_mask,
                                                           tgt_key_padding_mask, memory_key_padding_mask);
  }
  return norm.is_empty() ? output : norm.forward(output);
}

// ---------------------------------------------------------------------------------------------- model

TransformerImpl::TransformerImpl(TransformerOptions options_) : options(std::move(options_)) {
  const auto& o = options;
  check_layer("Transformer", o.d_model(), o.nhead(), o.activation());
  EMBER_CHECK_VALUE(o.num_encoder_layers() >= 0 && o.num_decoder_layers() >= 0, "Transformer: the layer counts "
                    "must be non-negative, got num_encoder_layers={}, num_decoder_layers={}",
                    o.num_encoder_layers(), o.num_decoder_layers());
  reset();
}

void TransformerImpl::reset() {
  const auto& o = options;
  // Python's order of construction (encoder layer, encoder, decoder layer, decoder), so a seed draws the same.
  auto enc_layer = TransformerEncoderLayer(TransformerEncoderLayerOptions(o.d_model(), o.nhead())
                                               .dim_feedforward(o.dim_feedforward())
                                               .dropout(o.dropout())
                                               .activation(o.activation()));
  encoder = register_module("encoder", TransformerEncoder(TransformerEncoderOptions(enc_layer, o.num_encoder_layers())
                                                              .norm(AnyModule(layer_norm(o.d_model())))));
  auto dec_layer = TransformerDecoderLayer(TransformerDecoderLayerOptions(o.d_model(), o.nhead())
                                               .dim_feedforward(o.dim_feedforward())
                                               .dropout(o.dropout())
                                               .activation(o.activation()));
  decoder = register_module("decoder", TransformerDecoder(TransformerDecoderOptions(dec_layer, o.num_decoder_layers())
                                                              .norm(AnyModule(layer_norm(o.d_model())))));
  reset_parameters();
}

void TransformerImpl::reset_parameters() {
  for (Tensor& p : parameters()) {
    if (p.dim() > 1) init::xavier_uniform_(p);
  }
}

Tensor TransformerImpl::forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask,
                                const Tensor& tgt_mask, const Tensor& memory_mask, const Tensor& src_key_padding_mask,
                                const Tensor& tgt_key_padding_mask, const Tensor& memory_key_padding_mask) {
  const bool batched = src.dim() == 3;
  EMBER_CHECK(!batched || (tgt.dim() == 3 && src.size(1) == tgt.size(1)), "Transformer: the batch number of src "
              "and tgt must be equal, got src of shape [{}] and tgt of shape [{}] (batch is dim 1)",
              fmt::join(src.sizes(), ", "), fmt::join(tgt.sizes(), ", "));
  EMBER_CHECK(src.dim() >= 1 && tgt.dim() >= 1 && src.size(-1) == options.d_model() &&
              tgt.size(-1) == options.d_model(), "Transformer: the feature number of src and tgt must be equal to "
              "d_model ({}), got src of shape [{}] and tgt of shape [{}]", options.d_model(),
              fmt::join(src.sizes(), ", "), fmt::join(tgt.sizes(), ", "));
  Tensor memory = encoder->forward(src, src_mask, src_key_padding_mask);
  return decoder->forward(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask);
}

Tensor TransformerImpl::generate_square_subsequent_mask(int64_t sz) {
  EMBER_CHECK_VALUE(sz >= 0, "Transformer.generate_square_subsequent_mask: sz must be non-negative, got {}", sz);
  return ember::triu(ember::full({sz, sz}, -std::numeric_limits<double>::infinity(), kFloat32), 1);
}

}  // namespace ember::nn
