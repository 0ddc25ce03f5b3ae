#pragma once
// ember::nn::functional's normalizations: batch_norm, instance_norm, layer_norm, group_norm, normalize,
// local_response_norm.
#include "ember/core/Tensor.h"
#include "ember/nn/options/normalization.h"

namespace ember::nn::functional {

/// Batch normalization over dim 1 of (N, C, *) input. With training(true) it normalizes with the batch
/// statistics and updates running_mean and running_var (when defined) in place, running_var with the
/// unbiased variance; otherwise it normalizes with the running statistics. A nullopt momentum counts as 0.
/// Errors: training with a single value per channel (ValueError, naming the input size).
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& options = {});

/// Instance normalization of (N, C, *) input: each (sample, channel) plane is normalized over its * elements
/// (biased variance), then weight[c] and bias[c]. With use_input_stats the running statistics (when defined)
/// are updated in place with momentum, each to the average over N of the per-sample updates (PyTorch's rule);
/// otherwise they normalize. Errors: use_input_stats with one spatial element (ValueError, naming the size);
/// no running statistics without use_input_stats; a weight, bias or statistic without C elements (naming the
/// input's shape).
Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& options = {});

/// Normalization over the trailing dims normalized_shape, with optional weight and bias of that shape.
Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options);

/// Normalization of (N, C, *) input over num_groups groups of C / num_groups channels, with per-channel
/// weight and bias. Errors: a single value per group (ValueError); C not divisible by num_groups (the op).
Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options);

/// input / max(||input||_p over dim, eps).
Tensor normalize(const Tensor& input, const NormalizeFuncOptions& options = {});

/// Local response normalization across channels (Krizhevsky et al., 2012) of (N, C, *) input:
/// y[c] = x[c] / (k + alpha / size * sum of x[j]^2 over j = c - size / 2 .. c + (size - 1) / 2)^beta, channels
/// outside [0, C) counting as 0; integer inputs take the floor of the window mean. Returns the input itself when
/// it has no elements. Errors: an input of fewer than 3 dims (ValueError, naming its shape); size below 1; bool
/// input.
Tensor local_response_norm(const Tensor& input, const LocalResponseNormFuncOptions& options);

}  // namespace ember::nn::functional
