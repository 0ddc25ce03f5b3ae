#include "ember/nn/Dropout.h"

#include "ember/nn/Repr.h"
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

}  // namespace ember::nn
