// ember::nn::functional's alpha dropouts, in Python's order of operations (python/ember/_attention.py).
#include "ember/nn/functional/dropout.h"

#include <cmath>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/nn/Repr.h"
#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"

namespace ember::nn::functional {

namespace {
// SELU's alpha * scale: the negative saturation value that dropped activations are set to (see the doc above).
constexpr double kSeluSaturation = 1.7580993408473766;

// See Note [dropout family] (python/ember/_attention.py): the arithmetic follows PyTorch's order in the input's
// dtype, so values equal Python's, not only come close.
Tensor alpha_dropout_family(const Tensor& input, double p, bool training, bool inplace, bool feature,
                            const char* name) {
  EMBER_CHECK(p >= 0 && p <= 1, "{}: dropout probability has to be between 0 and 1, but got {}", name, repr::py(p));
  if (p == 0 || !training || input.numel() == 0) return input;
  const Tensor zero = ember::zeros({}, input.dtype());
  if (p == 1) return inplace ? ember::mul_(input, zero) : input * zero;
  std::vector<int64_t> shape(input.sizes().begin(), input.sizes().end());
  if (feature) {
    EMBER_CHECK(input.dim() >= 2, "{}: Feature dropout requires at least 2 dimensions in the input, but got a {}-D "
                "input of shape [{}]", name, input.dim(), fmt::join(input.sizes(), ", "));
    for (size_t i = 2; i < shape.size(); ++i) shape[i] = 1;
  }
  Tensor noise = ember::bernoulli_(ember::empty(shape, input.dtype()), 1 - p);
  const double s = kSeluSaturation;
  const double a = 1.0 / std::sqrt((s * s * p + 1) * (1 - p));
  Tensor b = ember::add(noise, -1).mul_(s * a).add_(s * a * p);
  noise.mul_(a);
  return ember::add_(inplace ? ember::mul_(input, noise) : input * noise, b);
}
}  // namespace

Tensor alpha_dropout(const Tensor& input, const AlphaDropoutFuncOptions& o) {
  return alpha_dropout_family(input, o.p(), o.training(), o.inplace(), /*feature=*/false, "alpha_dropout");
}

Tensor feature_alpha_dropout(const Tensor& input, const FeatureAlphaDropoutFuncOptions& o) {
  return alpha_dropout_family(input, o.p(), o.training(), o.inplace(), /*feature=*/true, "feature_alpha_dropout");
}

}  // namespace ember::nn::functional
