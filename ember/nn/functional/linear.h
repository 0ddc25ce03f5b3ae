#pragma once
// ember::nn::functional's linear, bilinear, dropout, embedding, one_hot and pad (LibTorch's F::linear, F::dropout,
// F::embedding, F::one_hot, F::pad), over the ops of the same names.
#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "ember/core/Tensor.h"
#include "ember/nn/Options.h"
#include "ember/nn/enum.h"

namespace ember::nn::functional {

/// Options of F::dropout: drop probability p in [0, 1], training (identity when false), inplace.
struct DropoutFuncOptions {
  EMBER_ARG(double, p) = 0.5;
  EMBER_ARG(bool, training) = true;
  EMBER_ARG(bool, inplace) = false;
};

/// Options of F::embedding: padding_idx (its row gets no gradient; negative counts from the end), max_norm
/// (rows looked up whose norm exceeds it are rescaled in weight, in place), norm_type, scale_grad_by_freq,
/// sparse.
struct EmbeddingFuncOptions {
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.0;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(bool, sparse) = false;
};

/// Options of F::pad: the (before, after) amounts starting from the last dim, the mode, and the fill value
/// of constant mode (0 when unset).
struct PadFuncOptions {
  using mode_t = std::variant<enumtype::kConstant, enumtype::kReflect, enumtype::kReplicate, enumtype::kCircular>;
  /*implicit*/ PadFuncOptions(std::vector<int64_t> pad) : pad_(std::move(pad)) {}
  EMBER_ARG(std::vector<int64_t>, pad);
  EMBER_ARG(mode_t, mode) = ember::kConstant;
  EMBER_ARG(std::optional<double>, value) = std::nullopt;
};

/// input @ weight.T + bias. input: (*, in); weight: (out, in); bias: (out) or undefined. Returns (*, out).
/// Errors (from the op): shapes that cannot be multiplied, operands of different dtypes.
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});

/// Bilinear form y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o].
/// input1: (*, in1); input2: (*, in2) with the same leading dims; weight: (out, in1, in2); bias: (out) or
/// undefined. Returns (*, out). Errors: inputs of different ranks or leading sizes, feature sizes that differ
/// from weight's, a weight that is not 3-D, a bias of the wrong size (each naming the sizes).
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias = {});

/// Zeroes each element with probability p and scales the rest by 1 / (1 - p) when training; returns the
/// input itself otherwise. Draws from the default generator as Python's F.dropout does.
/// Errors: p outside [0, 1] (ValueError).
Tensor dropout(const Tensor& input, const DropoutFuncOptions& options = {});

/// The rows of weight (num_embeddings, D) at the integer indices input: shape input.shape + (D,).
/// Errors: an index out of range (IndexError, from the op); padding_idx outside [-num_embeddings,
/// num_embeddings).
Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& options = {});

/// int64 one-hot encoding of an int64 tensor: shape tensor.shape + (num_classes,); -1 infers max + 1.
Tensor one_hot(const Tensor& tensor, int64_t num_classes = -1);

/// Pads input (see Python's F.pad): constant, reflect, replicate or circular.
Tensor pad(const Tensor& input, const PadFuncOptions& options);

}  // namespace ember::nn::functional
