#pragma once
// Internal to ember::nn::functional's .cpp files: the conversions between LibTorch-style options (an
// undefined Tensor for "none") and the ops' arguments (std::optional<Tensor>), a loss's reduction, and the
// broadcast check that names the function and the shapes.
#include <optional>
#include <variant>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/core/Tensor.h"
#include "ember/core/TypePromotion.h"
#include "ember/nn/enum.h"

namespace ember::nn::functional::detail {

/// The ops' optional tensor argument for an options field where an undefined tensor means none.
inline std::optional<Tensor> optional_tensor(const Tensor& t) {
  return t.defined() ? std::optional<Tensor>(t) : std::nullopt;
}

/// loss as is (kNone), its mean (kMean; nan for no elements, as PyTorch's) or its sum (kSum).
inline Tensor apply_reduction(const Tensor& loss, const reduction_t& reduction) {
  if (std::holds_alternative<enumtype::kMean>(reduction)) return loss.mean();
  if (std::holds_alternative<enumtype::kSum>(reduction)) return loss.sum();
  return loss;
}

/// Throws ember::Error when a and b do not broadcast together, naming the function and both shapes:
/// "kl_div: input [2, 3] and target [2, 4] do not broadcast: The size of tensor a (3) must match ...".
inline void check_broadcast(const char* fn, const char* a_name, const Tensor& a, const char* b_name, const Tensor& b) {
  try {
    (void)broadcast_shapes(a.sizes(), b.sizes());
  } catch (const Error& e) {
    throw Error(e.kind(), fmt::format("{}: {} [{}] and {} [{}] do not broadcast: {}", fn, a_name,
                                      fmt::join(a.sizes(), ", "), b_name, fmt::join(b.sizes(), ", "), e.what()));
  }
}

}  // namespace ember::nn::functional::detail
