#include "ember/nn/Dropout.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/nn/Repr.h"
#include "ember/nn/functional/dropout.h"
#include "ember/ops/Operators.h"
#include "ember/ops/Functions.h"

namespace ember::nn {

DropoutImpl::DropoutImpl(const DropoutOptions& options_) : options(options_) {
  EMBER_CHECK_VALUE(options.p() >= 0 && options.p() <= 1,
                    "Dropout: dropout probability has to be between 0 and 1, but got {}", repr::py(options.p()));
}

Tensor DropoutImpl::forward(const Tensor& input) {
  return options.inplace() ? ember::dropout_(input, options.p(), is_training())
                           : ember::dropout(input, options.p(), is_training());
}

std::string DropoutImpl::extra_repr() const {
  return "p=" + repr::py(options.p()) + ", inplace=" + repr::py(options.inplace());
}

AlphaDropoutImpl::AlphaDropoutImpl(const AlphaDropoutOptions& options_) : options(options_) {
  EMBER_CHECK_VALUE(options.p() >= 0 && options.p() <= 1,
                    "AlphaDropout: dropout probability has to be between 0 and 1, but got {}", repr::py(options.p()));
}

Tensor AlphaDropoutImpl::forward(const Tensor& input) {
  // options.inplace() is kept for printing but not used, as Python's and LibTorch's AlphaDropout.
  return functional::alpha_dropout(input, functional::AlphaDropoutFuncOptions().p(options.p()).training(is_training()));
}

std::string AlphaDropoutImpl::extra_repr() const {
  return "p=" + repr::py(options.p()) + ", inplace=" + repr::py(options.inplace());
}

FeatureAlphaDropoutImpl::FeatureAlphaDropoutImpl(const FeatureAlphaDropoutOptions& options_) : options(options_) {
  EMBER_CHECK_VALUE(options.p() >= 0 && options.p() <= 1,
                    "FeatureAlphaDropout: dropout probability has to be between 0 and 1, but got {}",
                    repr::py(options.p()));
}

Tensor FeatureAlphaDropoutImpl::forward(const Tensor& input) {
  // options.inplace() is kept for printing but not used, as Python's and LibTorch's FeatureAlphaDropout.
  return functional::feature_alpha_dropout(
      input, functional::FeatureAlphaDropoutFuncOptions().p(options.p()).training(is_training()));
}

std::string FeatureAlphaDropoutImpl::extra_repr() const {
  return "p=" + repr::py(options.p()) + ", inplace=" + repr::py(options.inplace());
}

namespace functional {
Tensor feature_dropout(const Tensor& input, int64_t spatial_dims, double p, bool training, bool inplace) {
  EMBER_CHECK_VALUE(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got {}", repr::py(p));
  EMBER_CHECK(input.dim() == spatial_dims + 1 || input.dim() == spatial_dims + 2,
              "dropout{}d: expected a {}-D (unbatched) or {}-D (batched) input, got one of shape [{}]", spatial_dims,
              spatial_dims + 1, spatial_dims + 2, fmt::join(input.sizes(), ", "));
  if (!training || p == 0) return input;
  // One draw per channel (per sample): the noise has the input's leading dims and 1 for each spatial dim.
  std::vector<int64_t> noise_shape(input.sizes().begin(), input.sizes().end());
  for (size_t i = noise_shape.size() - static_cast<size_t>(spatial_dims); i < noise_shape.size(); ++i)
    noise_shape[i] = 1;
  Tensor noise = p == 1 ? ember::zeros(noise_shape, input.dtype())
                        : ember::empty(noise_shape, input.dtype()).bernoulli_(1 - p).div_(1 - p);
  return inplace ? input.mul_(noise) : input * noise;
}
}  // namespace functional

template <size_t D>
FeatureDropoutImpl<D>::FeatureDropoutImpl(const DropoutOptions& options_)
    : Cloneable<FeatureDropoutImpl<D>>(fmt::format("Dropout{}d", D)), options(options_) {
  EMBER_CHECK_VALUE(options.p() >= 0 && options.p() <= 1,
                    "Dropout{}d: dropout probability has to be between 0 and 1, but got {}", D, repr::py(options.p()));
}

template <size_t D>
Tensor FeatureDropoutImpl<D>::forward(const Tensor& input) {
  return functional::feature_dropout(input, static_cast<int64_t>(D), options.p(), this->is_training(),
                                     options.inplace());
}

template <size_t D>
std::string FeatureDropoutImpl<D>::extra_repr() const {
  return "p=" + repr::py(options.p()) + ", inplace=" + repr::py(options.inplace());
}

template class FeatureDropoutImpl<1>;
template class FeatureDropoutImpl<2>;
template class FeatureDropoutImpl<3>;

}  // namespace ember::nn
