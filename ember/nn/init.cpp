#include "ember/nn/init.h"

#include <cmath>

#include "ember/autograd/GradMode.h"
#include "ember/base/Error.h"
#include "ember/ops/Functions.h"

namespace ember::nn::init {

// Every formula below repeats python/ember/nn/init.py's double arithmetic operation for operation (math.sqrt,
// `**`, float division), so both front ends compute the same bounds and draw the same numbers.

double calculate_gain(Nonlinearity nonlinearity, double param) {
  switch (nonlinearity) {
    case Nonlinearity::Tanh: return 5.0 / 3;
    case Nonlinearity::ReLU: return std::sqrt(2.0);
    case Nonlinearity::LeakyReLU: return std::sqrt(2.0 / (1 + std::pow(param, 2)));
    case Nonlinearity::SELU: return 3.0 / 4;
    default: return 1;  // the linear ones and sigmoid
  }
}

std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor) {
  EMBER_CHECK_VALUE(tensor.dim() >= 2,
                    "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions (got {} dims)",
                    tensor.dim());
  int64_t receptive_field = 1;
  for (int64_t d = 2; d < tensor.dim(); ++d) receptive_field *= tensor.size(d);
  return {tensor.size(1) * receptive_field, tensor.size(0) * receptive_field};
}

namespace {

int64_t correct_fan(const Tensor& tensor, FanMode mode) {
  auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  return mode == FanMode::FanIn ? fan_in : fan_out;
}

// gain / sqrt(fan) of kaiming_*; nullopt for a zero-element tensor, which they leave alone (as PyTorch).
std::optional<double> kaiming_std(const Tensor& tensor, double a, FanMode mode, Nonlinearity nonlinearity) {
  if (tensor.numel() == 0) return std::nullopt;
  const int64_t fan = correct_fan(tensor, mode);
  return calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(fan));
}

double xavier_std(const Tensor& tensor, double gain) {
  auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  return gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
}

}  // namespace

Tensor uniform_(Tensor tensor, double low, double high) {
  autograd::NoGradGuard no_grad;
  tensor.uniform_(low, high);
  return tensor;
}

Tensor normal_(Tensor tensor, double mean, double std) {
  autograd::NoGradGuard no_grad;
  tensor.normal_(mean, std);
  return tensor;
}

Tensor constant_(Tensor tensor, Scalar value) {
  autograd::NoGradGuard no_grad;
  tensor.fill_(value);
  return tensor;
}

Tensor ones_(Tensor tensor) { return init::constant_(std::move(tensor), 1.0); }

Tensor zeros_(Tensor tensor) {
  autograd::NoGradGuard no_grad;
  tensor.zero_();
  return tensor;
}

Tensor eye_(Tensor tensor) {
  EMBER_CHECK_VALUE(tensor.dim() == 2, "eye_: only tensors with 2 dimensions are supported, got {} dims", tensor.dim());
  autograd::NoGradGuard no_grad;
  tensor.copy_(ember::eye(tensor.size(0), tensor.size(1), tensor.dtype()));
  return tensor;
}

Tensor xavier_uniform_(Tensor tensor, double gain) {
  const double a = std::sqrt(3.0) * xavier_std(tensor, gain);
  return init::uniform_(std::move(tensor), -a, a);
}

Tensor xavier_normal_(Tensor tensor, double gain) {
  const double std = xavier_std(tensor, gain);
  return init::normal_(std::move(tensor), 0.0, std);
}

Tensor kaiming_uniform_(Tensor tensor, double a, FanMode mode, Nonlinearity nonlinearity) {
  const std::optional<double> std = kaiming_std(tensor, a, mode, nonlinearity);
  if (!std) return tensor;
  const double bound = std::sqrt(3.0) * *std;
  return init::uniform_(std::move(tensor), -bound, bound);
}

Tensor kaiming_normal_(Tensor tensor, double a, FanMode mode, Nonlinearity nonlinearity) {
  const std::optional<double> std = kaiming_std(tensor, a, mode, nonlinearity);
  if (!std) return tensor;
  return init::normal_(std::move(tensor), 0.0, *std);
}

void default_linear_init_(const Tensor& weight, const Tensor& bias, bool draw_bias_without_fan_in) {
  kaiming_uniform_(weight, std::sqrt(5.0));
  if (!bias.defined()) return;
  const int64_t fan_in = calculate_fan_in_and_fan_out(weight).first;
  if (fan_in > 0 || draw_bias_without_fan_in) {
    const double bound = fan_in > 0 ? 1 / std::sqrt(static_cast<double>(fan_in)) : 0;
    init::uniform_(bias, -bound, bound);
  }
}

}  // namespace ember::nn::init
