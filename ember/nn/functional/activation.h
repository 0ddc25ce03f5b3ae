#pragma once
// ember::nn::functional's activations (LibTorch's torch::nn::functional names and options). Each calls the
// op of the database that Python's ember.nn.functional calls, so C++ and Python give identical values;
// errors come from the ops. With inplace(true) the result is the input tensor, overwritten.
#include "ember/core/Tensor.h"
#include "ember/nn/options/activation.h"

namespace ember::nn::functional {

/// max(x, 0).
Tensor relu(const Tensor& input, const ReLUFuncOptions& options = {});
/// min(max(x, 0), 6).
Tensor relu6(const Tensor& input, const ReLU6FuncOptions& options = {});
/// min(max(x, min_val), max_val) (integer inputs keep their dtype).
Tensor hardtanh(const Tensor& input, const HardtanhFuncOptions& options = {});
/// x if x > 0 else negative_slope * x.
Tensor leaky_relu(const Tensor& input, const LeakyReLUFuncOptions& options = {});
/// x if x > 0 else alpha * (exp(x) - 1).
Tensor elu(const Tensor& input, const ELUFuncOptions& options = {});
/// scale * elu(x, alpha) with SELU's fixed constants.
Tensor selu(const Tensor& input, const SELUFuncOptions& options = {});
/// max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
Tensor celu(const Tensor& input, const CELUFuncOptions& options = {});
/// x * Phi(x), or its tanh approximation with approximate("tanh").
Tensor gelu(const Tensor& input, const GELUFuncOptions& options = {});
/// x * sigmoid(x).
Tensor silu(const Tensor& input, const SiLUFuncOptions& options = {});
/// x * tanh(softplus(x)).
Tensor mish(const Tensor& input, const MishFuncOptions& options = {});
/// min(max(x + 3, 0), 6) / 6.
Tensor hardsigmoid(const Tensor& input, const HardsigmoidFuncOptions& options = {});
/// x * min(max(x + 3, 0), 6) / 6.
Tensor hardswish(const Tensor& input, const HardswishFuncOptions& options = {});
/// log(1 + exp(beta * x)) / beta, or x where beta * x > threshold.
Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options = {});
/// log(sigmoid(x)), computed stably.
Tensor logsigmoid(const Tensor& input);
/// a * sigmoid(b) for the halves a, b of input along dim. Errors: a 0-dim input, an odd size along dim.
Tensor glu(const Tensor& input, const GLUFuncOptions& options = {});
/// x where x > threshold, else value.
Tensor threshold(const Tensor& input, const ThresholdFuncOptions& options);
/// 1 / (1 + exp(-x)).
Tensor sigmoid(const Tensor& input);
/// tanh(x).
Tensor tanh(const Tensor& input);
/// x / (1 + |x|).
Tensor softsign(const Tensor& input);
/// x - tanh(x).
Tensor tanhshrink(const Tensor& input);
/// 0 where -lambda <= x <= lambda, else x (the op hardshrink).
Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& options = {});
/// x - lambda where x > lambda, x + lambda where x < -lambda, else 0 (NaN gives 0, as PyTorch 1.13).
/// Errors: a negative lambda; a non-floating input.
Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& options = {});
/// Parametric ReLU (He et al., "Delving Deep into Rectifiers", 2015): x where x > 0, else weight * x.
/// input: any shape, its channel dim is dim 1 (a 1-D input has 1 channel); weight: (1) shared, or (C) one
/// slope per channel. Errors: weight of more than 1 dim, or of neither 1 nor C elements (naming both); a
/// non-floating input; input and weight of different dtypes.
Tensor prelu(const Tensor& input, const Tensor& weight);
/// Randomized leaky ReLU (Xu et al., 2015): x where x > 0, else a * x. In training a is drawn per
/// non-positive element from U(lower, upper) with PyTorch's draws under the same seed (one double uniform per
/// such element, in the contiguous input's order); otherwise a = (lower + upper) / 2.
/// Errors: lower > upper; in training, a dtype other than float32, float64 or bfloat16.
Tensor rrelu(const Tensor& input, const RReLUFuncOptions& options = {});
/// exp(x) / sum(exp(x)) along dim, computed stably; dtype converts the input first.
Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options);
/// softmax(-x) along dim; dtype converts the input first.
Tensor softmin(const Tensor& input, const SoftminFuncOptions& options);
/// log(softmax(x)) along dim, computed stably; dtype converts the input first.
Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options);

}  // namespace ember::nn::functional
