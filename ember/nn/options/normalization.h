#pragma once
// Options of BatchNorm1d/2d/3d, InstanceNorm1d/2d/3d, LayerNorm, GroupNorm and of F::batch_norm,
// F::instance_norm, F::layer_norm, F::group_norm, F::normalize (LibTorch's names).
#include <cstdint>
#include <optional>
#include <vector>

#include "ember/core/Tensor.h"
#include "ember/nn/Options.h"

namespace ember::nn {

/// Options of BatchNorm1d/2d: BatchNorm2dOptions(num_features).eps(1e-5).momentum(0.1).affine(true)
/// .track_running_stats(true). momentum nullopt: the running statistics are the cumulative average.
struct BatchNormOptions {
  /*implicit*/ BatchNormOptions(int64_t num_features) : num_features_(num_features) {}
  EMBER_ARG(int64_t, num_features);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(std::optional<double>, momentum) = 0.1;
  EMBER_ARG(bool, affine) = true;
  EMBER_ARG(bool, track_running_stats) = true;
};
using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;
using BatchNorm3dOptions = BatchNormOptions;

/// Options of InstanceNorm1d/2d/3d: InstanceNorm2dOptions(num_features).eps(1e-5).momentum(0.1).affine(false)
/// .track_running_stats(false) (PyTorch's defaults: no weight and bias, no running statistics).
struct InstanceNormOptions {
  /*implicit*/ InstanceNormOptions(int64_t num_features) : num_features_(num_features) {}
  EMBER_ARG(int64_t, num_features);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(double, momentum) = 0.1;
  EMBER_ARG(bool, affine) = false;
  EMBER_ARG(bool, track_running_stats) = false;
};
using InstanceNorm1dOptions = InstanceNormOptions;
using InstanceNorm2dOptions = InstanceNormOptions;
using InstanceNorm3dOptions = InstanceNormOptions;

/// Options of LayerNorm: the trailing shape normalized over, eps, and whether it has weight and bias.
struct LayerNormOptions {
  /*implicit*/ LayerNormOptions(std::vector<int64_t> normalized_shape)
      : normalized_shape_(std::move(normalized_shape)) {}
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(bool, elementwise_affine) = true;
};

/// Options of GroupNorm: GroupNormOptions(num_groups, num_channels).eps(1e-5).affine(true).
struct GroupNormOptions {
  GroupNormOptions(int64_t num_groups, int64_t num_channels)
      : num_groups_(num_groups), num_channels_(num_channels) {}
  EMBER_ARG(int64_t, num_groups);
  EMBER_ARG(int64_t, num_channels);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(bool, affine) = true;
};

/// Options of LocalResponseNorm and F::local_response_norm: the number of neighbouring channels summed, alpha,
/// beta and k of y = x / (k + alpha / size * sum x^2)^beta.
struct LocalResponseNormOptions {
  /*implicit*/ LocalResponseNormOptions(int64_t size) : size_(size) {}
  EMBER_ARG(int64_t, size);
  EMBER_ARG(double, alpha) = 1e-4;
  EMBER_ARG(double, beta) = 0.75;
  EMBER_ARG(double, k) = 1.;
};

/// Options of CrossMapLRN2d (Lua Torch's cross-channel LRN): size, alpha, beta and the integer k.
struct CrossMapLRN2dOptions {
  /*implicit*/ CrossMapLRN2dOptions(int64_t size) : size_(size) {}
  EMBER_ARG(int64_t, size);
  EMBER_ARG(double, alpha) = 1e-4;
  EMBER_ARG(double, beta) = 0.75;
  EMBER_ARG(int64_t, k) = 1;
};

namespace functional {
using LocalResponseNormFuncOptions = LocalResponseNormOptions;

/// Options of F::batch_norm(input, running_mean, running_var, options): weight and bias (undefined: none),
/// training (normalize with the batch statistics and update the running ones), momentum, eps.
struct BatchNormFuncOptions {
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(bool, training) = false;
  EMBER_ARG(std::optional<double>, momentum) = 0.1;
  EMBER_ARG(double, eps) = 1e-5;
};

/// Options of F::instance_norm(input, options): the running statistics, weight and bias (undefined: none),
/// use_input_stats (normalize with each instance's statistics and update the running ones when given; else
/// normalize with the running ones), momentum, eps.
struct InstanceNormFuncOptions {
  EMBER_ARG(Tensor, running_mean) = Tensor();
  EMBER_ARG(Tensor, running_var) = Tensor();
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(bool, use_input_stats) = true;
  EMBER_ARG(double, momentum) = 0.1;
  EMBER_ARG(double, eps) = 1e-5;
};

/// Options of F::layer_norm: the trailing shape, weight and bias (undefined: none), eps.
struct LayerNormFuncOptions {
  /*implicit*/ LayerNormFuncOptions(std::vector<int64_t> normalized_shape)
      : normalized_shape_(std::move(normalized_shape)) {}
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(double, eps) = 1e-5;
};

/// Options of F::group_norm: the number of groups, weight and bias (undefined: none), eps.
struct GroupNormFuncOptions {
  /*implicit*/ GroupNormFuncOptions(int64_t num_groups) : num_groups_(num_groups) {}
  EMBER_ARG(int64_t, num_groups);
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(double, eps) = 1e-5;
};

/// Options of F::normalize: input / max(||input||_p over dim, eps).
struct NormalizeFuncOptions {
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(int64_t, dim) = 1;
  EMBER_ARG(double, eps) = 1e-12;
};
}  // namespace functional

}  // namespace ember::nn
