// ember::nn::functional's activations: the ops Python's ember.nn.functional calls (python/ember/nn/functional.py).
#include "ember/nn/functional/activation.h"

#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"

namespace ember::nn::functional {

Tensor relu(const Tensor& input, const ReLUFuncOptions& options) {
  return options.inplace() ? ember::relu_(input) : ember::relu(input);
}

Tensor relu6(const Tensor& input, const ReLU6FuncOptions& options) {
  return options.inplace() ? ember::relu6_(input) : ember::relu6(input);
}

Tensor hardtanh(const Tensor& input, const HardtanhFuncOptions& options) {
  return options.inplace() ? ember::hardtanh_(input, options.min_val(), options.max_val())
                           : ember::hardtanh(input, options.min_val(), options.max_val());
}

Tensor leaky_relu(const Tensor& input, const LeakyReLUFuncOptions& options) {
  return options.inplace() ? ember::leaky_relu_(input, options.negative_slope())
                           : ember::leaky_relu(input, options.negative_slope());
}

Tensor elu(const Tensor& input, const ELUFuncOptions& options) {
  return options.inplace() ? ember::elu_(input, options.alpha()) : ember::elu(input, options.alpha());
}

Tensor selu(const Tensor& input, const SELUFuncOptions& options) {
  return options.inplace() ? ember::selu_(input) : ember::selu(input);
}

Tensor celu(const Tensor& input, const CELUFuncOptions& options) {
  return options.inplace() ? ember::celu_(input, options.alpha()) : ember::celu(input, options.alpha());
}

Tensor gelu(const Tensor& input, const GELUFuncOptions& options) { return ember::gelu(input, options.approximate()); }

Tensor silu(const Tensor& input, const SiLUFuncOptions& options) {
  return options.inplace() ? ember::silu_(input) : ember::silu(input);
}

Tensor mish(const Tensor& input, const MishFuncOptions& options) {
  return options.inplace() ? ember::mish_(input) : ember::mish(input);
}

Tensor hardsigmoid(const Tensor& input, const HardsigmoidFuncOptions& options) {
  return options.inplace() ? ember::hardsigmoid_(input) : ember::hardsigmoid(input);
}

Tensor hardswish(const Tensor& input, const HardswishFuncOptions& options) {
  return options.inplace() ? ember::hardswish_(input) : ember::hardswish(input);
}

Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options) {
  return ember::softplus(input, options.beta(), options.threshold());
}

Tensor logsigmoid(const Tensor& input) { return ember::log_sigmoid(input); }

Tensor glu(const Tensor& input, const GLUFuncOptions& options) {
  // The op itself would report a dim out of range; PyTorch's message names the real problem.
  EMBER_CHECK(input.dim() > 0, "glu does not support scalars because halving size must be even");
  return ember::glu(input, options.dim());
}

Tensor threshold(const Tensor& input, const ThresholdFuncOptions& options) {
  return options.inplace() ? ember::threshold_(input, options.threshold(), options.value())
                           : ember::threshold(input, options.threshold(), options.value());
}

Tensor sigmoid(const Tensor& input) { return ember::sigmoid(input); }

Tensor tanh(const Tensor& input) { return ember::tanh(input); }

Tensor softsign(const Tensor& input) { return input / (input.abs() + 1); }

Tensor tanhshrink(const Tensor& input) { return input - input.tanh(); }

Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options) {
  return ember::softmax(input, options.dim(), options.dtype());
}

Tensor softmin(const Tensor& input, const SoftminFuncOptions& options) {
  // As Python's F.softmin: the dtype conversion comes before the negation.
  const Tensor x = options.dtype() ? input.to(*options.dtype()) : input;
  return ember::softmax(-x, options.dim());
}

Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options) {
  return ember::log_softmax(input, options.dim(), options.dtype());
}

}  // namespace ember::nn::functional
