#pragma once
// Options of TransformerEncoderLayer, TransformerDecoderLayer and Transformer (LibTorch 1.13's
// TransformerEncoderLayerOptions, TransformerDecoderLayerOptions, TransformerOptions: same names and defaults).
// The options of the stacks, TransformerEncoderOptions and TransformerDecoderOptions, hold a layer module and
// sit beside the modules in ember/nn/Transformer.h, as LibTorch's transformercoder.h does.
#include <cstdint>
#include <functional>
#include <variant>

#include "ember/core/Tensor.h"
#include "ember/nn/Options.h"
#include "ember/nn/enum.h"
#include "ember/nn/init.h"

namespace ember::nn {

/// The feed-forward activation of the Transformer layers: ember::kReLU (the default), ember::kGELU, or any
/// function Tensor -> Tensor. Another nn::init token (ember::kTanh, ...) is a ValueError at construction.
using activation_t = std::variant<init::Nonlinearity, enumtype::kGELU, std::function<Tensor(const Tensor&)>>;

/// Options of TransformerEncoderLayer: `TransformerEncoderLayerOptions(d_model, nhead).dim_feedforward(256)
/// .dropout(0.1).activation(ember::kGELU)`.
struct TransformerEncoderLayerOptions {
  /* implicit */ TransformerEncoderLayerOptions(int64_t d_model, int64_t nhead)  // NOLINT
      : d_model_(d_model), nhead_(nhead) {}
  /// E: the features of the input.
  EMBER_ARG(int64_t, d_model);
  /// The attention heads; d_model must be divisible by it.
  EMBER_ARG(int64_t, nhead);
  /// The hidden features of the feed-forward block.
  EMBER_ARG(int64_t, dim_feedforward) = 2048;
  /// The probability of every dropout of the layer (the attention weights' too).
  EMBER_ARG(double, dropout) = 0.1;
  EMBER_ARG(activation_t, activation) = init::Nonlinearity::ReLU;
};

/// Options of TransformerDecoderLayer: as TransformerEncoderLayerOptions.
struct TransformerDecoderLayerOptions {
  TransformerDecoderLayerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  EMBER_ARG(int64_t, d_model);
  EMBER_ARG(int64_t, nhead);
  EMBER_ARG(int64_t, dim_feedforward) = 2048;
  EMBER_ARG(double, dropout) = 0.1;
  EMBER_ARG(activation_t, activation) = init::Nonlinearity::ReLU;
};

/// Options of Transformer: `TransformerOptions(d_model, nhead, num_encoder_layers, num_decoder_layers)
/// .dim_feedforward(64).dropout(0.0)`. LibTorch's custom_encoder and custom_decoder are not offered (Ember's
/// AnyModule calls Tensor -> Tensor modules only, and the stacks take masks).
struct TransformerOptions {
  TransformerOptions() = default;
  TransformerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  TransformerOptions(int64_t d_model, int64_t nhead, int64_t num_encoder_layers, int64_t num_decoder_layers)
      : d_model_(d_model), nhead_(nhead), num_encoder_layers_(num_encoder_layers),
        num_decoder_layers_(num_decoder_layers) {}
  EMBER_ARG(int64_t, d_model) = 512;
  EMBER_ARG(int64_t, nhead) = 8;
  EMBER_ARG(int64_t, num_encoder_layers) = 6;
  EMBER_ARG(int64_t, num_decoder_layers) = 6;
  EMBER_ARG(int64_t, dim_feedforward) = 2048;
  EMBER_ARG(double, dropout) = 0.1;
  EMBER_ARG(activation_t, activation) = init::Nonlinearity::ReLU;
};

}  // namespace ember::nn
