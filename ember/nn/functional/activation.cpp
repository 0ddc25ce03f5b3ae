// ember::nn::functional's activations: the ops Python's ember.nn.functional calls (python/ember/nn/functional.py).
#include "ember/nn/functional/activation.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/autograd/GradMode.h"

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

Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& options) {
  return ember::hardshrink(input, options.lambda());
}

Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& options) {
  const double lambd = options.lambda();
  EMBER_CHECK(lambd >= 0, "softshrink: lambda must be greater or equal to 0, but found to be {}.", lambd);
  EMBER_CHECK(input.is_floating_point(), "softshrink: expected a floating-point input, but got {}", input.dtype());
  // Python's composite (python/ember/nn/_functional_attention.py): NaN compares false both ways and gives 0.
  const Tensor zero = ember::zeros({}, input.dtype());
  return ember::where(ember::gt(input, lambd), input - lambd,
                      ember::where(ember::lt(input, -lambd), input + lambd, zero));
}

Tensor prelu(const Tensor& input, const Tensor& weight) {
  const int64_t n = weight.numel();
  EMBER_CHECK(weight.dim() <= 1, "prelu: Expected `weight` to be a scalar or 1D tensor, but got ndim = {}",
              weight.dim());
  EMBER_CHECK(input.is_floating_point(), "prelu: expected a floating-point input, but got {}", input.dtype());
  EMBER_CHECK(input.dtype() == weight.dtype(), "prelu: expected input and weight of the same dtype, but got {} and {}",
              input.dtype(), weight.dtype());
  Tensor w;
  if (n == 1) {
    w = ember::reshape(weight, {});
  } else {
    EMBER_CHECK(input.dim() > 0, "prelu: Not allow zero-dim input tensor with a weight of {} elements; a 0-dim input "
                "takes a weight of 1 element.", n);
    const int64_t channels = input.dim() > 1 ? input.size(1) : 1;
    EMBER_CHECK(channels == n, "prelu: Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                "{} and channel size = {} (input of shape [{}]).", n, channels, fmt::join(input.sizes(), ", "));
    std::vector<int64_t> shape(static_cast<size_t>(std::max<int64_t>(input.dim() - 1, 1)), 1);
    shape[0] = n;
    w = ember::reshape(weight, shape);
  }
  return ember::where(ember::gt(input, 0), input, w * input);
}

namespace {
// The multiplier of each element in training: 1 where x > 0 (and for NaN), else a draw of U(lower, upper) in
// the order of the contiguous input. PyTorch's kernel holds the bounds in the input's dtype and draws a double
// u from 53 random bits: r = u * (upper - lower) + lower in double, rounded to the input's dtype.
Tensor rrelu_noise(const Tensor& input, double lower, double upper) {
  autograd::NoGradGuard no_grad;
  const Tensor x = ember::contiguous(input.detach());
  const Tensor neg = ember::le(ember::reshape(x, {-1}), 0);
  const int64_t count = ember::sum(neg).item<int64_t>();
  Tensor noise = ember::ones({x.numel()}, input.dtype());
  if (count > 0) {
    const double lo = ember::scalar_tensor(lower, input.dtype()).item<double>();
    const double hi = ember::scalar_tensor(upper, input.dtype()).item<double>();
    const Tensor u = ember::uniform_(ember::empty({count}, kFloat64), 0.0, 1.0);
    noise = ember::masked_scatter(noise, neg, ember::to(u * (hi - lo) + lo, input.dtype()));
  }
  return ember::reshape(noise, input.sizes());
}
}  // namespace

Tensor rrelu(const Tensor& input, const RReLUFuncOptions& options) {
  const double lower = options.lower(), upper = options.upper();
  EMBER_CHECK(lower <= upper, "rrelu: Lower bound should be less than or equal to the upper bound (got lower={}, "
              "upper={})", lower, upper);
  const DType dt = input.dtype();
  EMBER_CHECK(!options.training() || dt == kFloat32 || dt == kFloat64 || dt == kBFloat16,
              "rrelu: training mode supports float32, float64 and bfloat16 inputs (as PyTorch's CPU kernel), but got "
              "{}", dt);
  if (!options.training()) {
    return leaky_relu(input, LeakyReLUFuncOptions().negative_slope((lower + upper) / 2).inplace(options.inplace()));
  }
  const Tensor noise = rrelu_noise(input, lower, upper);
  return options.inplace() ? ember::mul_(input, noise) : input * noise;
}

}  // namespace ember::nn::functional
