#pragma once
// ember::nn::init, in-place initialisations of parameters (LibTorch's torch::nn::init, Python's
// ember.nn.init). Each draws from the default generator with the same ops, in the same order and with the same
// double arithmetic as python/ember/nn/init.py, so after ember::manual_seed(s) a tensor initialised here
// equals the Python layer's, and PyTorch's, bit for bit.
#include <cstdint>
#include <utility>

#include "ember/core/Tensor.h"

namespace ember::nn::init {

/// The nonlinearities calculate_gain knows (LibTorch's torch::kReLU, ... as one enum).
enum class Nonlinearity {
  Linear, Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d,
  Sigmoid, Tanh, ReLU, LeakyReLU, SELU
};
/// Which fan the Kaiming initialisations keep the variance of: the forward pass's (FanIn) or the backward's.
enum class FanMode { FanIn, FanOut };

inline constexpr Nonlinearity kLinear = Nonlinearity::Linear;
inline constexpr Nonlinearity kConv1d = Nonlinearity::Conv1d;
inline constexpr Nonlinearity kConv2d = Nonlinearity::Conv2d;
inline constexpr Nonlinearity kConv3d = Nonlinearity::Conv3d;
inline constexpr Nonlinearity kConvTranspose1d = Nonlinearity::ConvTranspose1d;
inline constexpr Nonlinearity kConvTranspose2d = Nonlinearity::ConvTranspose2d;
inline constexpr Nonlinearity kConvTranspose3d = Nonlinearity::ConvTranspose3d;
inline constexpr Nonlinearity kSigmoid = Nonlinearity::Sigmoid;
inline constexpr Nonlinearity kTanh = Nonlinearity::Tanh;
inline constexpr Nonlinearity kReLU = Nonlinearity::ReLU;
inline constexpr Nonlinearity kLeakyReLU = Nonlinearity::LeakyReLU;
inline constexpr Nonlinearity kSELU = Nonlinearity::SELU;
inline constexpr FanMode kFanIn = FanMode::FanIn;
inline constexpr FanMode kFanOut = FanMode::FanOut;

/// The recommended gain for a nonlinearity: 1 for the linear ones and sigmoid, 5/3 for tanh, sqrt(2) for
/// relu, sqrt(2 / (1 + param^2)) for leaky_relu (param is its negative slope), 3/4 for selu.
double calculate_gain(Nonlinearity nonlinearity, double param = 0.01);

/// (fan_in, fan_out) of a weight (out, in, *kernel): in and out times the kernel's element count.
/// Errors: a tensor of fewer than 2 dims (ValueError).
std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor);

/// Fills tensor with values drawn from U(low, high), without autograd history. Returns tensor.
Tensor uniform_(Tensor tensor, double low = 0, double high = 1);
/// Fills tensor with values drawn from N(mean, std^2). Returns tensor.
Tensor normal_(Tensor tensor, double mean = 0, double std = 1);
/// Fills tensor with value. Returns tensor.
Tensor constant_(Tensor tensor, Scalar value);
/// Fills tensor with 1. Returns tensor.
Tensor ones_(Tensor tensor);
/// Fills tensor with 0. Returns tensor.
Tensor zeros_(Tensor tensor);
/// Fills a 2-D tensor with the identity (ones on the main diagonal). Errors: a tensor that is not 2-D
/// (ValueError).
Tensor eye_(Tensor tensor);
/// U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio, 2010). Errors: fewer than 2 dims.
Tensor xavier_uniform_(Tensor tensor, double gain = 1.0);
/// N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)). Errors: fewer than 2 dims.
Tensor xavier_normal_(Tensor tensor, double gain = 1.0);
/// U(-bound, bound) with bound = gain * sqrt(3 / fan), gain = calculate_gain(nonlinearity, a) (He et al.,
/// 2015). A zero-element tensor is left unchanged. Errors: fewer than 2 dims.
Tensor kaiming_uniform_(Tensor tensor, double a = 0, FanMode mode = kFanIn, Nonlinearity nonlinearity = kLeakyReLU);
/// N(0, std^2) with std = gain / sqrt(fan) (see kaiming_uniform_).
Tensor kaiming_normal_(Tensor tensor, double a = 0, FanMode mode = kFanIn, Nonlinearity nonlinearity = kLeakyReLU);

/// PyTorch's default initialisation of Linear and Conv layers: weight ~ kaiming_uniform_(a = sqrt(5)), i.e.
/// U(-1/sqrt(fan_in), 1/sqrt(fan_in)), then bias (when defined) ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)), drawn
/// in that order. With fan_in 0 Linear still draws its bias from U(0, 0) (advancing the generator) while Conv
/// leaves it: draw_bias_without_fan_in (true for Linear, false for Conv).
void default_linear_init_(const Tensor& weight, const Tensor& bias, bool draw_bias_without_fan_in = true);

}  // namespace ember::nn::init

namespace ember {
// LibTorch spells the tokens of nn::init in the top namespace (torch::kFanIn, torch::kReLU), so ported code
// that writes ember::kFanIn finds them here too.
using nn::init::kConv1d;
using nn::init::kConv2d;
using nn::init::kConv3d;
using nn::init::kConvTranspose1d;
using nn::init::kConvTranspose2d;
using nn::init::kConvTranspose3d;
using nn::init::kFanIn;
using nn::init::kFanOut;
using nn::init::kLeakyReLU;
using nn::init::kLinear;
using nn::init::kReLU;
using nn::init::kSELU;
using nn::init::kSigmoid;
using nn::init::kTanh;
}  // namespace ember
