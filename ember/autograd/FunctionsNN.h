#pragma once
// Backward formulas of the NN ops (ember/ops/ops_nn.yaml, ops_conv.yaml): activations, pooling, normalization,
// embedding, losses and convolution. Like FunctionsManual.h's, every formula is written with Ember ops (or with
// backward ops that have a derivative of their own), so create_graph=True differentiates through it.
//
// Note [nn gradients at non-smooth points]
// The masks follow PyTorch 1.13's backward kernels, including where a NaN input sends its gradient: each mask
// is written as "the condition under which PyTorch's kernel returns zero" so that a NaN (for which every
// comparison is false) takes the same branch as there (hardtanh passes the gradient at a NaN input, hardsigmoid
// zeroes it). The zero is selected with where(), so a NaN or inf upstream gradient at a masked position gives 0,
// not NaN.
#include <array>
#include <optional>
#include <tuple>

#include "ember/autograd/Node.h"
#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"

namespace ember::autograd::detail {

// ---- activations (self is the forward input)
/// hardtanh: grad where min_val < self < max_val (NaN passes), else 0.
Tensor hardtanh_backward(const Tensor& grad, const Tensor& self, const Scalar& min_val, const Scalar& max_val);
/// leaky_relu: grad where self > 0, else negative_slope * grad.
Tensor leaky_relu_backward(const Tensor& grad, const Tensor& self, const Scalar& negative_slope);
/// elu(self, alpha, scale, input_scale): scale * grad where self > 0 (or NaN), else
/// grad * alpha * scale * input_scale * exp(input_scale * self). celu is elu(alpha, 1, 1 / alpha).
Tensor elu_backward(const Tensor& grad, const Tensor& self, const Scalar& alpha, const Scalar& scale,
                    const Scalar& input_scale);
/// celu's input_scale in its backward: 1 / alpha with alpha rounded to float, as PyTorch 1.13's formula has it
/// (the forward uses 1 / alpha in double), so that the gradients agree to the last bit.
double celu_input_scale(const Scalar& alpha);
/// softplus: grad where beta * self > threshold, else grad * sigmoid(beta * self).
Tensor softplus_backward(const Tensor& grad, const Tensor& self, const Scalar& beta, const Scalar& threshold);
/// hardsigmoid: grad * (1/6 in float, as PyTorch's kernel) where -3 < self < 3, else 0.
Tensor hardsigmoid_backward(const Tensor& grad, const Tensor& self);
/// The derivative of hardshrink: 0 where -lambd <= self <= lambd, else grad (NaN passes grad).
Tensor hardshrink_backward(const Tensor& grad, const Tensor& self, const Scalar& lambd);
/// hardswish: 0 below -3, grad * (self / 3 + 1/2) on [-3, 3), grad from 3 on (and at NaN), as PyTorch 1.13.
Tensor hardswish_backward(const Tensor& grad, const Tensor& self);
/// mish: grad * (tanh(softplus(x)) + x * sigmoid(x) * (1 - tanh(softplus(x))^2)).
Tensor mish_backward(const Tensor& grad, const Tensor& self);
/// log_sigmoid: grad * sigmoid(-self).
Tensor log_sigmoid_backward(const Tensor& grad, const Tensor& self);
/// glu over halves a, b of self along dim: cat(grad * sigmoid(b), grad * a * sigmoid(b) * (1 - sigmoid(b))).
Tensor glu_backward(const Tensor& grad, const Tensor& self, int64_t dim);

// ---- pooling and embedding: the gradients of the backward ops (double backward)
/// max_pool2d_with_indices_backward with respect to grad_output: grad (input-shaped) read at the indices of
/// each plane, giving grad_output's shape.
Tensor max_pool_double_backward(const Tensor& grad, const Tensor& indices);
/// _adaptive_avg_pool2d_backward with respect to grad_output: grad pooled to grad_output's last two sizes.
Tensor adaptive_avg_pool2d_double_backward(const Tensor& grad, IntArrayRef grad_output_sizes);
/// embedding_dense_backward with respect to grad_output: the rows of grad (num_weights, D) the indices name,
/// zero where the index is padding_idx; scale_grad_by_freq is not applied, as in PyTorch 1.13.
Tensor embedding_dense_double_backward(const Tensor& grad, const Tensor& indices, int64_t padding_idx);

// ---- losses (reduction as at::Reduction: 0 none, 1 mean, 2 sum; see ops_nn.yaml)
/// mse_loss with respect to self: 2 (self - target) grad, divided by the element count for the mean.
Tensor mse_loss_backward(const Tensor& grad, const Tensor& self, const Tensor& target, int64_t reduction);
/// smooth_l1_loss with respect to self: with z = self - target, -grad where z <= -beta, grad where z >= beta,
/// else z / beta grad (so -grad at z = 0 when beta is 0, as PyTorch's kernel); divided by the element count for
/// the mean.
Tensor smooth_l1_loss_backward(const Tensor& grad, const Tensor& self, const Tensor& target, int64_t reduction,
                               double beta);
/// huber_loss with respect to self: delta sign(z) grad where |z| > delta, else z grad (z = self - target).
Tensor huber_loss_backward(const Tensor& grad, const Tensor& self, const Tensor& target, int64_t reduction,
                           double delta);

// ---- normalization: (grad_input, grad_weight, grad_bias), each computed only where output_mask says so.
//
// Note [normalization backward]
// With xhat = (x - mean) * rstd over the normalized elements and gxhat = grad * weight, the input's gradient is
//   rstd * (gxhat - mean(gxhat) - xhat * mean(gxhat * xhat))      (statistics of the batch),
//   rstd * gxhat                                                   (batch_norm in evaluation: constant stats),
// the weight's sum(grad * xhat) and the bias's sum(grad) over everything but the channel (batch_norm,
// group_norm) or over the leading dims (layer_norm). The formulas use Ember ops. Under create_graph (grad
// mode on) mean and rstd are recomputed from the input with Ember ops, so that the gradient is a
// differentiable function of the input (double backward); otherwise the statistics the forward saved are used.
using OutputMask = std::array<bool, 3>;
using TensorTriple = std::tuple<Tensor, Tensor, Tensor>;

/// native_batch_norm's gradients: input (N, C, *), save_mean/save_invstd (C) from a training forward.
TensorTriple batch_norm_backward(const Tensor& grad, const Tensor& input, const std::optional<Tensor>& weight,
                                 const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
                                 const Tensor& save_mean, const Tensor& save_invstd, bool training, double eps,
                                 OutputMask output_mask);
/// native_layer_norm's gradients: mean/rstd of input's leading sizes followed by ones.
TensorTriple layer_norm_backward(const Tensor& grad, const Tensor& input, IntArrayRef normalized_shape,
                                 const Tensor& mean, const Tensor& rstd, const std::optional<Tensor>& weight,
                                 double eps, OutputMask output_mask);
/// native_group_norm's gradients: input (N, C, HxW...), mean/rstd (N, group).
TensorTriple group_norm_backward(const Tensor& grad, const Tensor& input, const Tensor& mean, const Tensor& rstd,
                                 const std::optional<Tensor>& weight, int64_t N, int64_t C, int64_t group, double eps,
                                 OutputMask output_mask);

// ---- losses with class targets and weights
/// nll_loss_forward / nll_loss2d_forward with respect to self ((C), (N, C) or (N, C, H, W)): -weight[t] grad at
/// each target's class (not at ignore_index), divided by total_weight for the mean; zero elsewhere.
Tensor nll_loss_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                         const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                         const Tensor& total_weight);
/// binary_cross_entropy with respect to self: grad * weight * (self - target) / max(self (1 - self), 1e-12),
/// and with respect to target: grad * weight * (log(1 - self) - log(self)), each log clamped at -100 (log of
/// 1 - self rather than log1p(-self): the same in double to the last bits for self away from 0).
Tensor binary_cross_entropy_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                     const std::optional<Tensor>& weight, int64_t reduction);
Tensor binary_cross_entropy_target_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                            const std::optional<Tensor>& weight, int64_t reduction);
/// binary_cross_entropy_with_logits with respect to self: grad * weight * ((p t + 1 - t) sigmoid(x) - p t)
/// (p = pos_weight, 1 without), and to target: grad * weight * ((p - 1) log(1 + exp(-x)) - x).
Tensor binary_cross_entropy_with_logits_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                                 const std::optional<Tensor>& weight,
                                                 const std::optional<Tensor>& pos_weight, int64_t reduction);
Tensor binary_cross_entropy_with_logits_target_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                                        const std::optional<Tensor>& weight,
                                                        const std::optional<Tensor>& pos_weight, int64_t reduction);

// ---- convolution
/// convolution's gradients through the convolution_backward op (with respect to input, weight, bias; the bias's
/// only when output_mask[2], which is false when there is no bias).
TensorTriple convolution_backward_grads(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                        bool transposed, IntArrayRef output_padding, int64_t groups,
                                        OutputMask output_mask);
/// convolution_backward's gradients (double backward of convolution): from the gradients ggI, ggW, ggb of its
/// three results (each may be undefined), the gradients of grad_output, input and weight:
///   grad_output: conv(ggI, weight) + conv(input, ggW) + ggb (broadcast over the output),
///   input:       convolution_backward(gO, ., ggW).grad_input   (ggW convolved transposed with gO),
///   weight:      convolution_backward(gO, ggI, .).grad_weight.
/// Each is again made of convolution and convolution_backward, so higher orders follow.
TensorTriple convolution_double_backward(const Tensor& ggI, const Tensor& ggW, const Tensor& ggb, const Tensor& gO,
                                         const Tensor& input, const Tensor& weight, IntArrayRef stride,
                                         IntArrayRef padding, IntArrayRef dilation, bool transposed,
                                         IntArrayRef output_padding, int64_t groups, OutputMask output_mask);

}  // namespace ember::autograd::detail
