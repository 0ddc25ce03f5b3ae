#pragma once
// The activation modules of Python's ember.nn (LibTorch's torch::nn::ReLU, ...): each applies its
// ember::nn::functional function with its options; none has parameters. They are instances of one template,
// detail::FunctionalModuleImpl, so each is one line here. See Note [functional modules].
#include "ember/nn/functional/activation.h"
#include "ember/nn/FunctionalModule.h"

namespace ember::nn {

namespace detail {
// Softmax-like modules hold only the dim; their functions take the functional options (with a dtype).
inline Tensor softmax_forward(const Tensor& x, const SoftmaxOptions& o) { return functional::softmax(x, o.dim()); }
inline Tensor softmin_forward(const Tensor& x, const SoftminOptions& o) { return functional::softmin(x, o.dim()); }
inline Tensor log_softmax_forward(const Tensor& x, const LogSoftmaxOptions& o) {
  return functional::log_softmax(x, o.dim());
}
}  // namespace detail

/// max(x, 0). ReLU(ReLUOptions().inplace(true)).
using ReLUImpl = detail::FunctionalModuleImpl<ReLUOptions, &functional::relu, "ReLU">;
/// min(max(x, 0), 6).
using ReLU6Impl = detail::FunctionalModuleImpl<ReLU6Options, &functional::relu6, "ReLU6">;
/// min(max(x, min_val), max_val).
using HardtanhImpl = detail::FunctionalModuleImpl<HardtanhOptions, &functional::hardtanh, "Hardtanh">;
/// x if x > 0 else negative_slope * x.
using LeakyReLUImpl = detail::FunctionalModuleImpl<LeakyReLUOptions, &functional::leaky_relu, "LeakyReLU">;
/// x if x > 0 else alpha * (exp(x) - 1).
using ELUImpl = detail::FunctionalModuleImpl<ELUOptions, &functional::elu, "ELU">;
/// max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
using CELUImpl = detail::FunctionalModuleImpl<CELUOptions, &functional::celu, "CELU">;
/// scale * elu(x, alpha) with SELU's constants.
using SELUImpl = detail::FunctionalModuleImpl<SELUOptions, &functional::selu, "SELU">;
/// x * Phi(x) (approximate "none" or "tanh").
using GELUImpl = detail::FunctionalModuleImpl<GELUOptions, &functional::gelu, "GELU">;
/// x * sigmoid(x).
using SiLUImpl = detail::FunctionalModuleImpl<SiLUOptions, &functional::silu, "SiLU">;
/// x * tanh(softplus(x)).
using MishImpl = detail::FunctionalModuleImpl<MishOptions, &functional::mish, "Mish">;
/// log(1 + exp(beta * x)) / beta.
using SoftplusImpl = detail::FunctionalModuleImpl<SoftplusOptions, &functional::softplus, "Softplus">;
/// min(max(x + 3, 0), 6) / 6.
using HardsigmoidImpl = detail::FunctionalModuleImpl<HardsigmoidOptions, &functional::hardsigmoid, "Hardsigmoid">;
/// x * min(max(x + 3, 0), 6) / 6.
using HardswishImpl = detail::FunctionalModuleImpl<HardswishOptions, &functional::hardswish, "Hardswish">;
/// x where x > threshold, else value. Threshold(0.1, 20.0).
using ThresholdImpl = detail::FunctionalModuleImpl<ThresholdOptions, &functional::threshold, "Threshold">;
/// a * sigmoid(b) for the halves of the input along dim.
using GLUImpl = detail::FunctionalModuleImpl<GLUOptions, &functional::glu, "GLU">;
/// softmax along dim. Softmax(1).
using SoftmaxImpl = detail::FunctionalModuleImpl<SoftmaxOptions, &detail::softmax_forward, "Softmax">;
/// softmax(-x) along dim.
using SoftminImpl = detail::FunctionalModuleImpl<SoftminOptions, &detail::softmin_forward, "Softmin">;
/// log(softmax(x)) along dim.
using LogSoftmaxImpl = detail::FunctionalModuleImpl<LogSoftmaxOptions, &detail::log_softmax_forward, "LogSoftmax">;
/// 1 / (1 + exp(-x)).
using SigmoidImpl = detail::FunctionalModuleImpl<void, &functional::sigmoid, "Sigmoid">;
/// tanh(x).
using TanhImpl = detail::FunctionalModuleImpl<void, &functional::tanh, "Tanh">;
/// log(sigmoid(x)).
using LogSigmoidImpl = detail::FunctionalModuleImpl<void, &functional::logsigmoid, "LogSigmoid">;
/// x / (1 + |x|).
using SoftsignImpl = detail::FunctionalModuleImpl<void, &functional::softsign, "Softsign">;
/// x - tanh(x).
using TanhshrinkImpl = detail::FunctionalModuleImpl<void, &functional::tanhshrink, "Tanhshrink">;

EMBER_MODULE(ReLU);
EMBER_MODULE(ReLU6);
EMBER_MODULE(Hardtanh);
EMBER_MODULE(LeakyReLU);
EMBER_MODULE(ELU);
EMBER_MODULE(CELU);
EMBER_MODULE(SELU);
EMBER_MODULE(GELU);
EMBER_MODULE(SiLU);
EMBER_MODULE(Mish);
EMBER_MODULE(Softplus);
EMBER_MODULE(Hardsigmoid);
EMBER_MODULE(Hardswish);
EMBER_MODULE(Threshold);
EMBER_MODULE(GLU);
EMBER_MODULE(Softmax);
EMBER_MODULE(Softmin);
EMBER_MODULE(LogSoftmax);
EMBER_MODULE(Sigmoid);
EMBER_MODULE(Tanh);
EMBER_MODULE(LogSigmoid);
EMBER_MODULE(Softsign);
EMBER_MODULE(Tanhshrink);

}  // namespace ember::nn
