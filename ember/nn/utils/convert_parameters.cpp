// parameters_to_vector / vector_to_parameters, with the ops of python/ember/nn/utils/convert_parameters.py.
#include "ember/nn/utils/convert_parameters.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/core/TensorImpl.h"
#include "ember/ops/Functions.h"

namespace ember::nn::utils {

Tensor parameters_to_vector(const std::vector<Tensor>& parameters) {
  std::vector<Tensor> flat;
  flat.reserve(parameters.size());
  for (const Tensor& p : parameters) flat.push_back(p.reshape({-1}));
  return ember::cat(flat);
}

void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters) {
  int64_t total = 0;
  for (const Tensor& p : parameters) total += p.numel();
  EMBER_CHECK(vec.dim() == 1 && vec.numel() == total, "vector_to_parameters: expected a 1-D vec of {} elements (the "
              "parameters' total numel), got one of shape [{}]", total, fmt::join(vec.sizes(), ", "));
  int64_t pointer = 0;
  for (const Tensor& p : parameters) {
    const int64_t n = p.numel();
    Tensor piece = vec.detach().slice(0, pointer, pointer + n).view_as(p);
    p.impl()->set_data(*piece.impl());  // Note [set_data]
    pointer += n;
  }
}

}  // namespace ember::nn::utils
