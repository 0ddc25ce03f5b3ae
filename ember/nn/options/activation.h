#pragma once
// Options of the activation modules and of their ember::nn::functional counterparts (LibTorch's names: the
// module's ReLUOptions is also F::ReLUFuncOptions). Fields are EMBER_ARG setters/getters (ember/nn/Options.h).
#include <cstdint>
#include <optional>
#include <string>

#include "ember/core/DType.h"
#include "ember/nn/Options.h"

namespace ember::nn {

namespace detail {
/// The options of an activation whose only argument is `inplace` (ReLU, ReLU6, SELU, SiLU, Mish,
/// Hardsigmoid, Hardswish): one template, one distinct type per activation through its Tag.
template <typename Tag>
struct InplaceOptions {
  /*implicit*/ InplaceOptions(bool inplace = false) : inplace_(inplace) {}
  /// Overwrite the input with the result (the result is the input tensor).
  EMBER_ARG(bool, inplace);
};

/// The options of softmax-like functions: the dim, and for the functional form a dtype the input is
/// converted to first.
template <typename Tag, bool Functional>
struct SoftmaxLikeOptions {
  /*implicit*/ SoftmaxLikeOptions(int64_t dim) : dim_(dim) {}
  EMBER_ARG(int64_t, dim);
};
template <typename Tag>
struct SoftmaxLikeOptions<Tag, true> {
  /*implicit*/ SoftmaxLikeOptions(int64_t dim) : dim_(dim) {}
  EMBER_ARG(int64_t, dim);
  EMBER_ARG(std::optional<DType>, dtype) = std::nullopt;
};
}  // namespace detail

using ReLUOptions = detail::InplaceOptions<struct ReLUTag>;
using ReLU6Options = detail::InplaceOptions<struct ReLU6Tag>;
using SELUOptions = detail::InplaceOptions<struct SELUTag>;
using SiLUOptions = detail::InplaceOptions<struct SiLUTag>;
using MishOptions = detail::InplaceOptions<struct MishTag>;
using HardsigmoidOptions = detail::InplaceOptions<struct HardsigmoidTag>;
using HardswishOptions = detail::InplaceOptions<struct HardswishTag>;

/// Options of ELU: alpha * (exp(x) - 1) for x <= 0.
struct ELUOptions {
  EMBER_ARG(double, alpha) = 1.0;
  EMBER_ARG(bool, inplace) = false;
};

/// Options of CELU: alpha * (exp(x / alpha) - 1) for x <= 0.
struct CELUOptions {
  EMBER_ARG(double, alpha) = 1.0;
  EMBER_ARG(bool, inplace) = false;
};

/// Options of GLU: the dim split in halves.
struct GLUOptions {
  /*implicit*/ GLUOptions(int64_t dim = -1) : dim_(dim) {}
  EMBER_ARG(int64_t, dim);
};

/// Options of GELU: approximate "none" (exact, with erf) or "tanh".
struct GELUOptions {
  EMBER_ARG(std::string, approximate) = "none";
};

/// Options of Hardtanh: clamp to [min_val, max_val].
struct HardtanhOptions {
  EMBER_ARG(double, min_val) = -1.0;
  EMBER_ARG(double, max_val) = 1.0;
  EMBER_ARG(bool, inplace) = false;
};

/// Options of LeakyReLU: the slope for x < 0.
struct LeakyReLUOptions {
  EMBER_ARG(double, negative_slope) = 1e-2;
  EMBER_ARG(bool, inplace) = false;
};

/// Options of Softplus: log(1 + exp(beta * x)) / beta, linear above threshold.
struct SoftplusOptions {
  EMBER_ARG(double, beta) = 1.0;
  EMBER_ARG(double, threshold) = 20.0;
};

/// Options of Threshold: x where x > threshold, else value.
struct ThresholdOptions {
  ThresholdOptions(double threshold, double value) : threshold_(threshold), value_(value) {}
  EMBER_ARG(double, threshold);
  EMBER_ARG(double, value);
  EMBER_ARG(bool, inplace) = false;
};

/// Options of Hardshrink and Softshrink: the threshold lambda (LibTorch's name; Python's lambd), >= 0 for
/// Softshrink.
template <typename Tag>
struct ShrinkOptions {
  /*implicit*/ ShrinkOptions(double lambda = 0.5) : lambda_(lambda) {}
  EMBER_ARG(double, lambda);
};
using HardshrinkOptions = ShrinkOptions<struct HardshrinkTag>;
using SoftshrinkOptions = ShrinkOptions<struct SoftshrinkTag>;

/// Options of PReLU: the number of learnt slopes (1, or the channel count) and their initial value.
struct PReLUOptions {
  EMBER_ARG(int64_t, num_parameters) = 1;
  EMBER_ARG(double, init) = 0.25;
};

/// Options of RReLU: the bounds of the random slope, and whether forward overwrites its input.
struct RReLUOptions {
  EMBER_ARG(double, lower) = 1.0 / 8.0;
  EMBER_ARG(double, upper) = 1.0 / 3.0;
  EMBER_ARG(bool, inplace) = false;
};

using SoftmaxOptions = detail::SoftmaxLikeOptions<struct SoftmaxTag, false>;
using SoftminOptions = detail::SoftmaxLikeOptions<struct SoftminTag, false>;
using LogSoftmaxOptions = detail::SoftmaxLikeOptions<struct LogSoftmaxTag, false>;

namespace functional {
using ReLUFuncOptions = ReLUOptions;
using ReLU6FuncOptions = ReLU6Options;
using SELUFuncOptions = SELUOptions;
using SiLUFuncOptions = SiLUOptions;
using MishFuncOptions = MishOptions;
using HardsigmoidFuncOptions = HardsigmoidOptions;
using HardswishFuncOptions = HardswishOptions;
using ELUFuncOptions = ELUOptions;
using CELUFuncOptions = CELUOptions;
using GLUFuncOptions = GLUOptions;
using GELUFuncOptions = GELUOptions;
using HardtanhFuncOptions = HardtanhOptions;
using LeakyReLUFuncOptions = LeakyReLUOptions;
using SoftplusFuncOptions = SoftplusOptions;
using ThresholdFuncOptions = ThresholdOptions;
using HardshrinkFuncOptions = HardshrinkOptions;
using SoftshrinkFuncOptions = SoftshrinkOptions;
/// Options of F::rrelu: RReLUOptions and whether to draw the slopes (training).
struct RReLUFuncOptions {
  EMBER_ARG(double, lower) = 1.0 / 8.0;
  EMBER_ARG(double, upper) = 1.0 / 3.0;
  EMBER_ARG(bool, training) = false;
  EMBER_ARG(bool, inplace) = false;
};
using SoftmaxFuncOptions = detail::SoftmaxLikeOptions<struct SoftmaxTag, true>;
using SoftminFuncOptions = detail::SoftmaxLikeOptions<struct SoftminTag, true>;
using LogSoftmaxFuncOptions = detail::SoftmaxLikeOptions<struct LogSoftmaxTag, true>;
}  // namespace functional

}  // namespace ember::nn
