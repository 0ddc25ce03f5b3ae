#include "ember/nn/FunctionalModule.h"

#include "ember/base/Error.h"

namespace ember::nn {

FunctionalImpl::FunctionalImpl(Function function) : Cloneable("Functional"), function_(std::move(function)) {
  EMBER_CHECK(static_cast<bool>(function_), "Functional: the function is empty");
}

Tensor FunctionalImpl::forward(Tensor input) { return function_(std::move(input)); }

}  // namespace ember::nn
