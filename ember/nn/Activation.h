#pragma once
// The activation modules of Python's ember.nn (LibTorch's torch::nn::ReLU, ...): each applies its
// ember::nn::functional function with its options. Those without parameters or a training mode are instances of
// one template, detail::FunctionalModuleImpl, so each is one line here (see Note [functional modules]); PReLU
// (a learnt slope) and RReLU (random slopes in training) are classes, defined in Activation.cpp.
#include <cmath>
#include <cstdint>
#include <string>

#include "ember/nn/functional/activation.h"
#include "ember/nn/FunctionalModule.h"
#include "ember/nn/Repr.h"

namespace ember::nn {

namespace detail {
// Softmax-like modules hold only the dim; their functions take the functional options (with a dtype).
inline Tensor softmax_forward(const Tensor& x, const SoftmaxOptions& o) { return functional::softmax(x, o.dim()); }
inline Tensor softmin_forward(const Tensor& x, const SoftminOptions& o) { return functional::softmin(x, o.dim()); }
inline Tensor log_softmax_forward(const Tensor& x, const LogSoftmaxOptions& o) {
  return functional::log_softmax(x, o.dim());
}
/// Softmax2d's function: softmax over dim -3 of a 3-D or 4-D input.
Tensor softmax2d_forward(const Tensor& x);
}  // namespace detail

// What the activation modules print in their repr (FunctionalModuleImpl::extra_repr finds these by argument-
// dependent lookup): Python's extra_repr of the same module, e.g. "negative_slope=0.2", "dim=1",
// "alpha=1.0, inplace=True"; "inplace=True" is shown only when set, as Python does.
namespace detail {
inline std::string inplace_repr(bool inplace, const char* sep = ", ") {
  return inplace ? std::string(sep) + "inplace=True" : "";
}
}  // namespace detail
template <typename Tag>
std::string options_repr(const detail::InplaceOptions<Tag>& o) {
  return detail::inplace_repr(o.inplace(), "");
}
inline std::string options_repr(const HardsigmoidOptions&) { return ""; }  // Python prints no inplace for these
inline std::string options_repr(const HardswishOptions&) { return ""; }
inline std::string options_repr(const HardtanhOptions& o) {
  return "min_val=" + repr::py(o.min_val()) + ", max_val=" + repr::py(o.max_val()) + detail::inplace_repr(o.inplace());
}
inline std::string options_repr(const LeakyReLUOptions& o) {
  return "negative_slope=" + repr::py(o.negative_slope()) + detail::inplace_repr(o.inplace());
}
inline std::string options_repr(const ELUOptions& o) {
  return "alpha=" + repr::py(o.alpha()) + detail::inplace_repr(o.inplace());
}
inline std::string options_repr(const CELUOptions& o) {
  return "alpha=" + repr::py(o.alpha()) + detail::inplace_repr(o.inplace());
}
inline std::string options_repr(const GELUOptions& o) { return "approximate='" + o.approximate() + "'"; }
inline std::string options_repr(const SoftplusOptions& o) {
  // Python's default threshold is the int 20 and prints as "20"; an integral threshold prints so here.
  const double t = o.threshold();
  const bool integral = std::isfinite(t) && t == std::trunc(t) && std::abs(t) < 1e15;
  return "beta=" + repr::py(o.beta()) + ", threshold=" + (integral ? repr::py(static_cast<int64_t>(t)) : repr::py(t));
}
inline std::string options_repr(const ThresholdOptions& o) {
  return "threshold=" + repr::py(o.threshold()) + ", value=" + repr::py(o.value()) + detail::inplace_repr(o.inplace());
}
inline std::string options_repr(const GLUOptions& o) { return "dim=" + repr::py(o.dim()); }
template <typename Tag>
std::string options_repr(const ShrinkOptions<Tag>& o) {
  return repr::py(o.lambda());
}
template <typename Tag>
std::string options_repr(const detail::SoftmaxLikeOptions<Tag, false>& o) {
  return "dim=" + repr::py(o.dim());
}

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
/// 0 where -lambda <= x <= lambda, else x. Hardshrink(0.3); prints as "Hardshrink(0.3)".
using HardshrinkImpl = detail::FunctionalModuleImpl<HardshrinkOptions, &functional::hardshrink, "Hardshrink">;
/// x - lambda where x > lambda, x + lambda where x < -lambda, else 0. Errors: see functional::softshrink.
using SoftshrinkImpl = detail::FunctionalModuleImpl<SoftshrinkOptions, &functional::softshrink, "Softshrink">;
/// Softmax over the channels (dim -3) at each location of (N, C, H, W) or (C, H, W) input.
/// Errors: an input that is not 3-D or 4-D (naming its shape).
using Softmax2dImpl = detail::FunctionalModuleImpl<void, &detail::softmax2d_forward, "Softmax2d">;

/// Parametric ReLU: x where x > 0, else weight * x, with num_parameters learnt slopes (1 shared, or one per
/// channel of dim 1). PReLU(PReLUOptions().num_parameters(3).init(0.1)).
/// weight: (num_parameters), filled with init (as Python's reset_parameters). input: any shape; returns its shape.
/// Errors: num_parameters below 1 (at construction); see functional::prelu for forward's.
class PReLUImpl : public Cloneable<PReLUImpl> {
 public:
  explicit PReLUImpl(const PReLUOptions& options = {});
  /// Fills weight with options.init().
  void reset_parameters();
  Tensor forward(const Tensor& input);
  /// "num_parameters=1".
  std::string extra_repr() const override;

  PReLUOptions options;
  Tensor weight;
};

/// Randomized leaky ReLU: slopes drawn from U(lower, upper) per non-positive element in training (PyTorch's
/// draws under the same seed), the slope (lower + upper) / 2 in eval mode. See functional::rrelu.
/// Errors: lower > upper (at construction, as in forward).
class RReLUImpl : public Cloneable<RReLUImpl> {
 public:
  explicit RReLUImpl(const RReLUOptions& options = {});
  Tensor forward(const Tensor& input);
  /// "lower=0.125, upper=0.3333333333333333" (and ", inplace=True" when set).
  std::string extra_repr() const override;

  RReLUOptions options;
};

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
EMBER_MODULE(Hardshrink);
EMBER_MODULE(Softshrink);
EMBER_MODULE(Softmax2d);
EMBER_MODULE(PReLU);
EMBER_MODULE(RReLU);

}  // namespace ember::nn
