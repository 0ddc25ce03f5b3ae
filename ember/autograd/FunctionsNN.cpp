// Backward formulas of the NN ops; see FunctionsNN.h and Note [nn gradients at non-smooth points].
#include "ember/autograd/FunctionsNN.h"

#include <algorithm>
#include <utility>

#include "ember/autograd/GradMode.h"

namespace ember::autograd::detail {

namespace {

constexpr int64_t kMean = 1;  // at::Reduction::Mean

bool defined(const std::optional<Tensor>& t) { return t && t->defined(); }

// Sizes (1, C, 1, ...) of `ndim` dims: a per-channel (C) tensor broadcast over (N, C, *).
DimVector channel_shape(int64_t ndim, int64_t C) {
  DimVector s(static_cast<size_t>(std::max<int64_t>(ndim, 2)), 1);
  s[1] = C;
  return s;
}

// The dims of an n-dim tensor but `keep` (the channel dim of batch_norm's and group_norm's reductions).
DimVector all_dims_but(int64_t n, int64_t keep) {
  DimVector d;
  for (int64_t i = 0; i < n; ++i)
    if (i != keep) d.push_back(i);
  return d;
}

// Sum of t over dims keeping none of them; t itself when dims is empty (sum over no dims would reduce all).
Tensor sum_over(const Tensor& t, IntArrayRef dims) {
  return dims.empty() ? t : ember::sum(t, OptionalIntArrayRef(dims), /*keepdim=*/false);
}

Tensor mean_keep(const Tensor& t, IntArrayRef dims) {
  return ember::mean(t, OptionalIntArrayRef(dims), /*keepdim=*/true);
}

// Mean and 1 / sqrt(biased variance + eps) of x over dims (kept): the statistics recomputed with Ember ops for
// a differentiable backward (Note [normalization backward]).
std::pair<Tensor, Tensor> moments(const Tensor& x, IntArrayRef dims, double eps) {
  const Tensor mean = mean_keep(x, dims);
  const Tensor c = x - mean;
  return {mean, Scalar(1) / ember::sqrt(mean_keep(c * c, dims) + Scalar(eps))};
}

// rstd * (gxhat - mean(gxhat) - xhat * mean(gxhat * xhat)) over dims: the input gradient of a normalization
// with batch statistics (Note [normalization backward]).
Tensor normalize_backward(const Tensor& gxhat, const Tensor& xhat, const Tensor& rstd, IntArrayRef dims) {
  return rstd * (gxhat - mean_keep(gxhat, dims) - xhat * mean_keep(gxhat * xhat, dims));
}

// A 0-dim zero of g's dtype: the "else" operand of where() in a mask (broadcasts, keeps g's dtype).
Tensor zero_like_scalar(const Tensor& g) { return ember::zeros({}, g.dtype()); }

// 0 where `zero` holds, else g. See Note [nn gradients at non-smooth points].
Tensor zero_where(const Tensor& zero, const Tensor& g) { return ember::where(zero, zero_like_scalar(g), g); }

// The upstream gradient of a loss, divided by the element count of the unreduced loss for the mean.
Tensor loss_grad_scale(const Tensor& grad, int64_t reduction, int64_t numel) {
  return reduction == kMean ? grad / Scalar(static_cast<double>(numel)) : grad;
}

}  // namespace

// ---- activations
Tensor hardtanh_backward(const Tensor& grad, const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  return zero_where(ember::logical_or(ember::le(self, min_val), ember::ge(self, max_val)), grad);
}

Tensor leaky_relu_backward(const Tensor& grad, const Tensor& self, const Scalar& negative_slope) {
  return ember::where(ember::gt(self, Scalar(0)), grad, grad * negative_slope);
}

Tensor elu_backward(const Tensor& grad, const Tensor& self, const Scalar& alpha, const Scalar& scale,
                    const Scalar& input_scale) {
  const double in_s = input_scale.to_double();
  const Tensor neg = grad * Scalar(alpha.to_double() * scale.to_double() * in_s) * ember::exp(self * Scalar(in_s));
  return ember::where(ember::le(self, Scalar(0)), neg, grad * scale);
}

double celu_input_scale(const Scalar& alpha) {
  return 1.0 / static_cast<double>(static_cast<float>(alpha.to_double()));
}

Tensor softplus_backward(const Tensor& grad, const Tensor& self, const Scalar& beta, const Scalar& threshold) {
  const Tensor bx = self * beta;
  return ember::where(ember::gt(bx, threshold), grad, grad * ember::sigmoid(bx));
}

Tensor hardsigmoid_backward(const Tensor& grad, const Tensor& self) {
  const Tensor inside = ember::logical_and(ember::gt(self, Scalar(-3)), ember::lt(self, Scalar(3)));
  return ember::where(inside, grad * Scalar(static_cast<double>(1.0f / 6.0f)), zero_like_scalar(grad));
}

Tensor hardshrink_backward(const Tensor& grad, const Tensor& self, const Scalar& lambd) {
  const Tensor inside = ember::logical_and(ember::ge(self, Scalar(-lambd.to_double())), ember::le(self, lambd));
  return zero_where(inside, grad);
}

Tensor hardswish_backward(const Tensor& grad, const Tensor& self) {
  const Tensor mid = ember::where(ember::lt(self, Scalar(3)), grad * (self / Scalar(3) + Scalar(0.5)), grad);
  return zero_where(ember::lt(self, Scalar(-3)), mid);
}

Tensor mish_backward(const Tensor& grad, const Tensor& self) {
  const Tensor t = ember::tanh(ember::softplus(self));
  return grad * (t + self * ember::sigmoid(self) * (Scalar(1) - t * t));
}

Tensor log_sigmoid_backward(const Tensor& grad, const Tensor& self) { return grad * ember::sigmoid(-self); }

Tensor glu_backward(const Tensor& grad, const Tensor& self, int64_t dim) {
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t half = self.size(d) / 2;
  const Tensor a = self.narrow(d, 0, half), sb = ember::sigmoid(self.narrow(d, half, half));
  const Tensor ga = grad * sb;
  const Tensor gb = ga * a * (Scalar(1) - sb);
  return ember::cat({ga, gb}, d);
}

// ---- pooling and embedding
Tensor max_pool_double_backward(const Tensor& grad, const Tensor& indices) {
  // Both flattened over the plane: (..., H * W) read at (..., OH * OW).
  const Tensor g = ember::flatten(grad, -2, -1), ix = ember::flatten(indices, -2, -1);
  return ember::gather(g, -1, ix).view(indices.sizes());
}

Tensor adaptive_avg_pool2d_double_backward(const Tensor& grad, IntArrayRef grad_output_sizes) {
  return ember::_adaptive_avg_pool2d(grad, IntArrayRef(grad_output_sizes.end() - 2, 2));
}

Tensor embedding_dense_double_backward(const Tensor& grad, const Tensor& indices, int64_t padding_idx) {
  const Tensor rows = ember::embedding(grad, indices);
  if (padding_idx < 0) return rows;
  return zero_where(ember::eq(indices, Scalar(padding_idx)).unsqueeze(-1), rows);
}

// ---- normalization
TensorTriple batch_norm_backward(const Tensor& grad, const Tensor& input, const std::optional<Tensor>& weight,
                                 const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
                                 const Tensor& save_mean, const Tensor& save_invstd, bool training, double eps,
                                 OutputMask output_mask) {
  if (!GradMode::is_enabled()) {
    // No graph to record: one fused kernel (Note [batch_norm backward kernel] in ember/kernels/cpu/norm.cpp).
    auto [gi, gw, gb] = ember::native_batch_norm_backward(grad, input, weight, running_mean, running_var, save_mean,
                                                          save_invstd, training, eps, output_mask);
    return {gi, defined(weight) ? gw : Tensor(), gb};
  }
  const int64_t C = input.size(1);
  const DimVector cs = channel_shape(input.dim(), C), dims = all_dims_but(input.dim(), 1);
  Tensor mean, rstd;
  if (!training) {
    mean = running_mean->view(cs);
    rstd = Scalar(1) / ember::sqrt(running_var->view(cs) + Scalar(eps));
  } else {
    std::tie(mean, rstd) = moments(input, dims, eps);
  }
  const Tensor xhat = (input - mean) * rstd;
  Tensor gi, gw, gb;
  if (output_mask[0]) {
    const Tensor gxhat = defined(weight) ? grad * weight->view(cs) : grad;
    gi = training ? normalize_backward(gxhat, xhat, rstd, dims) : gxhat * rstd;
  }
  if (output_mask[1] && defined(weight)) gw = sum_over(grad * xhat, dims);
  if (output_mask[2]) gb = sum_over(grad, dims);
  return {gi, gw, gb};
}

TensorTriple layer_norm_backward(const Tensor& grad, const Tensor& input, IntArrayRef normalized_shape,
                                 const Tensor& mean, const Tensor& rstd, const std::optional<Tensor>& weight,
                                 double eps, OutputMask output_mask) {
  const int64_t axis = input.dim() - static_cast<int64_t>(normalized_shape.size());
  DimVector norm_dims, lead_dims;
  for (int64_t d = 0; d < input.dim(); ++d) (d < axis ? lead_dims : norm_dims).push_back(d);
  Tensor m = mean, r = rstd;
  if (GradMode::is_enabled()) std::tie(m, r) = moments(input, norm_dims, eps);
  const Tensor xhat = (input - m) * r;
  Tensor gi, gw, gb;
  if (output_mask[0]) gi = normalize_backward(defined(weight) ? grad * *weight : grad, xhat, r, norm_dims);
  if (output_mask[1] && defined(weight)) gw = sum_over(grad * xhat, lead_dims);
  if (output_mask[2]) gb = sum_over(grad, lead_dims);
  return {gi, gw, gb};
}

TensorTriple group_norm_backward(const Tensor& grad, const Tensor& input, const Tensor& mean, const Tensor& rstd,
                                 const std::optional<Tensor>& weight, int64_t N, int64_t C, int64_t group, double eps,
                                 OutputMask output_mask) {
  // Normalized over (C / group) * HxW elements of each (n, group): computed on the (N, group, per_group) view
  // (per_group spelled out: with N = 0 a -1 could not be inferred).
  const int64_t in[1] = {2};
  const IntArrayRef gdims(in, 1);
  int64_t per_group = C / group;
  for (int64_t d = 2; d < input.dim(); ++d) per_group *= input.size(d);
  const Tensor xg = input.reshape({N, group, per_group});
  Tensor m = mean.view({N, group, 1}), r = rstd.view({N, group, 1});
  if (GradMode::is_enabled()) std::tie(m, r) = moments(xg, gdims, eps);
  const Tensor xhat = ((xg - m) * r).view(input.sizes());
  const DimVector cs = channel_shape(input.dim(), C), dims = all_dims_but(input.dim(), 1);
  Tensor gi, gw, gb;
  if (output_mask[0]) {
    const Tensor gxhat = (defined(weight) ? grad * weight->view(cs) : grad).reshape({N, group, per_group});
    gi = normalize_backward(gxhat, xhat.reshape({N, group, per_group}), r, gdims).view(input.sizes());
  }
  if (output_mask[1] && defined(weight)) gw = sum_over(grad * xhat, dims);
  if (output_mask[2]) gb = sum_over(grad, dims);
  return {gi, gw, gb};
}

// ---- losses
Tensor nll_loss_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                         const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                         const Tensor& total_weight) {
  // Dense: -(one-hot of the target along the class dim) * weight[class] * grad, with ignored targets all zero.
  const int64_t class_dim = self.dim() == 1 ? 0 : 1, C = self.size(class_dim);
  DimVector classes_shape(static_cast<size_t>(self.dim()), 1);
  classes_shape[static_cast<size_t>(class_dim)] = C;
  const Tensor t = target.unsqueeze(class_dim);
  const Tensor hit = ember::logical_and(ember::eq(t, ember::arange(Scalar(C), target.dtype()).view(classes_shape)),
                                        ember::ne(t, Scalar(ignore_index)));
  Tensor g = reduction == 0 ? grad.unsqueeze(class_dim) : grad;
  if (reduction == kMean) g = g / total_weight;
  Tensor w = defined(weight) ? -weight->view(classes_shape) : ember::full({}, Scalar(-1), self.dtype());
  return ember::where(hit, g * w, zero_like_scalar(g));
}

namespace {

// weight (when given) times the reduction's scale of the upstream gradient.
Tensor weighted_loss_grad(const Tensor& grad, const std::optional<Tensor>& weight, int64_t reduction, int64_t numel) {
  const Tensor g = loss_grad_scale(grad, reduction, numel);
  return defined(weight) ? g * *weight : g;
}

}  // namespace

Tensor binary_cross_entropy_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                     const std::optional<Tensor>& weight, int64_t reduction) {
  const Tensor denom = ember::clamp_min(self * (Scalar(1) - self), Scalar(1e-12));
  return weighted_loss_grad(grad, weight, reduction, self.numel()) * (self - target) / denom;
}

Tensor binary_cross_entropy_target_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                            const std::optional<Tensor>& weight, int64_t reduction) {
  const Tensor log1m = ember::clamp_min(ember::log(Scalar(1) - self), Scalar(-100));
  const Tensor logp = ember::clamp_min(ember::log(self), Scalar(-100));
  return weighted_loss_grad(grad, weight, reduction, target.numel()) * (log1m - logp);
}

Tensor binary_cross_entropy_with_logits_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                                 const std::optional<Tensor>& weight,
                                                 const std::optional<Tensor>& pos_weight, int64_t reduction) {
  const Tensor s = ember::sigmoid(self);
  Tensor d;
  if (defined(pos_weight)) {
    const Tensor pt = *pos_weight * target;
    d = (pt + Scalar(1) - target) * s - pt;
  } else {
    d = s - target;
  }
  return weighted_loss_grad(grad, weight, reduction, d.numel()) * d;
}

Tensor binary_cross_entropy_with_logits_target_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                                        const std::optional<Tensor>& weight,
                                                        const std::optional<Tensor>& pos_weight, int64_t reduction) {
  Tensor d = -self;
  if (defined(pos_weight)) d = d - (*pos_weight - Scalar(1)) * ember::log_sigmoid(self);
  return weighted_loss_grad(grad, weight, reduction, (self - target).numel()) * d;
}

Tensor mse_loss_backward(const Tensor& grad, const Tensor& self, const Tensor& target, int64_t reduction) {
  const Tensor diff = self - target;
  return loss_grad_scale(grad, reduction, diff.numel()) * Scalar(2) * diff;
}

Tensor smooth_l1_loss_backward(const Tensor& grad, const Tensor& self, const Tensor& target, int64_t reduction,
                               double beta) {
  const Tensor z = self - target;
  const Tensor g = loss_grad_scale(grad, reduction, z.numel());
  // The bounds belong to the linear pieces, as in PyTorch's kernel: with beta = 0, z = 0 gets -1. Then there is
  // no quadratic piece at all (z / 0 would make the double backward NaN through where's unselected branch).
  const Tensor minus_one = ember::full({}, Scalar(-1), z.dtype()), one = ember::full({}, Scalar(1), z.dtype());
  const Tensor upper = beta == 0 ? one : ember::where(ember::ge(z, Scalar(beta)), one, z / Scalar(beta));
  const Tensor slope = ember::where(ember::le(z, Scalar(-beta)), minus_one, upper);
  return g * slope;
}

Tensor huber_loss_backward(const Tensor& grad, const Tensor& self, const Tensor& target, int64_t reduction,
                           double delta) {
  const Tensor z = self - target;
  const Tensor g = loss_grad_scale(grad, reduction, z.numel());
  const Tensor slope = ember::where(ember::lt(z, Scalar(-delta)), ember::full_like(z, Scalar(-delta)),
                                    ember::where(ember::gt(z, Scalar(delta)), ember::full_like(z, Scalar(delta)), z));
  return g * slope;
}

// ---- convolution
TensorTriple convolution_backward_grads(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                        bool transposed, IntArrayRef output_padding, int64_t groups,
                                        OutputMask output_mask) {
  // the bias has C_out entries: weight (C_out, C_in / G, *k), or (C_in, C_out / G, *k) when transposed
  const int64_t cout = transposed ? weight.size(1) * groups : weight.size(0);
  const OptionalIntArrayRef bias_sizes = output_mask[2] ? OptionalIntArrayRef(IntArrayRef(&cout, 1)) : std::nullopt;
  return ember::convolution_backward(grad, input, weight, bias_sizes, stride, padding, dilation, transposed,
                                     output_padding, groups, output_mask);
}

TensorTriple convolution_double_backward(const Tensor& ggI, const Tensor& ggW, const Tensor& ggb, const Tensor& gO,
                                         const Tensor& input, const Tensor& weight, IntArrayRef stride,
                                         IntArrayRef padding, IntArrayRef dilation, bool transposed,
                                         IntArrayRef output_padding, int64_t groups, OutputMask output_mask) {
  Tensor ggO, gI, gW;
  if (output_mask[0]) {
    const auto add = [&](const Tensor& t) { ggO = ggO.defined() ? ggO + t : t; };
    if (ggI.defined())
      add(ember::convolution(ggI, weight, std::nullopt, stride, padding, dilation, transposed, output_padding, groups));
    if (ggW.defined())
      add(ember::convolution(input, ggW, std::nullopt, stride, padding, dilation, transposed, output_padding, groups));
    if (ggb.defined()) {
      const Tensor b = ggb.view(channel_shape(gO.dim(), ggb.numel()));
      ggO = ggO.defined() ? ggO + b : b.expand(gO.sizes());
    }
  }
  if (output_mask[1] && ggW.defined())
    gI = std::get<0>(ember::convolution_backward(gO, input, ggW, std::nullopt, stride, padding, dilation, transposed,
                                                 output_padding, groups, {true, false, false}));
  if (output_mask[2] && ggI.defined())
    gW = std::get<1>(ember::convolution_backward(gO, ggI, weight, std::nullopt, stride, padding, dilation, transposed,
                                                 output_padding, groups, {false, true, false}));
  return {ggO, gI, gW};
}

}  // namespace ember::autograd::detail
