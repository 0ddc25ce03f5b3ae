#pragma once
// parameters_to_vector and vector_to_parameters (LibTorch's torch::nn::utils; Python's
// ember.nn.utils.parameters_to_vector / vector_to_parameters, python/ember/nn/utils/convert_parameters.py).
#include <vector>

#include "ember/core/Tensor.h"

namespace ember::nn::utils {

/// The parameters flattened and concatenated into one 1-D tensor of sum(numel) elements (part of the autograd
/// graph: a cat of reshape(-1)s). Errors: an empty list (as cat's).
Tensor parameters_to_vector(const std::vector<Tensor>& parameters);

/// Makes each parameter's data the next numel() elements of the 1-D vec, viewed as the parameter (the inverse of
/// parameters_to_vector; the parameters then share vec's storage, as Python's `param.data = ...`), keeping
/// each parameter's identity and requires_grad.
/// Errors (RuntimeError): vec not 1-D, or its size not the parameters' total numel (naming both).
void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters);

}  // namespace ember::nn::utils
