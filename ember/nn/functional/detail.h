#pragma once
// Internal to ember::nn::functional's .cpp files: the conversions between LibTorch-style options (an
// undefined Tensor for "none") and the ops' arguments (std::optional<Tensor>).
#include <optional>

#include "ember/core/Tensor.h"

namespace ember::nn::functional::detail {

/// The ops' optional tensor argument for an options field where an undefined tensor means none.
inline std::optional<Tensor> optional_tensor(const Tensor& t) {
  return t.defined() ? std::optional<Tensor>(t) : std::nullopt;
}

}  // namespace ember::nn::functional::detail
