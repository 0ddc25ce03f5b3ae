#include "ember/nn/Flatten.h"

#include <fmt/format.h>

#include "ember/nn/Repr.h"

namespace ember::nn {

Tensor FlattenImpl::forward(const Tensor& input) { return input.flatten(options.start_dim(), options.end_dim()); }

std::string FlattenImpl::extra_repr() const {
  return fmt::format("start_dim={}, end_dim={}", options.start_dim(), options.end_dim());
}

Tensor UnflattenImpl::forward(const Tensor& input) { return input.unflatten(options.dim(), options.sizes()); }

std::string UnflattenImpl::extra_repr() const {
  return fmt::format("dim={}, unflattened_size={}", options.dim(), repr::py_tuple(options.sizes()));
}

}  // namespace ember::nn
