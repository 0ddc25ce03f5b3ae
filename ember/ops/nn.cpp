// NN ops written with other ops (CompositeImplicitAutograd): the activations that are another activation with
// fixed parameters, the front doors of pooling and normalization (argument checks, special cases, then the
// kernel), one_hot, and the losses that are compositions (nll_loss_nd, cross_entropy_loss, l1_loss,
// binary_cross_entropy_with_logits). Each follows PyTorch 1.13's composite of the same name
// (aten/src/ATen/native/{Activation,AdaptiveAveragePooling,Normalization,Onehot,Loss,LossNLL}.cpp).
#include <cmath>

#include "ember/ops/generated/CompositeKernels.h"

namespace ember::composite {

namespace {

constexpr int64_t kNone = 0, kMean = 1, kSum = 2;  // at::Reduction

bool defined(const std::optional<Tensor>& t) { return t && t->defined(); }

// PyTorch's apply_loss_reduction.
Tensor apply_loss_reduction(const Tensor& loss, int64_t reduction) {
  if (reduction == kMean) return ember::mean(loss);
  if (reduction == kSum) return ember::sum(loss);
  return loss;
}

// Sizes of a tensor of `ndim` dims that are all 1 but dim 1 (= n): a per-class weight broadcast over
// (N, C, d1, ...).
DimVector class_dim_shape(int64_t ndim, int64_t class_dim, int64_t n) {
  DimVector s(static_cast<size_t>(ndim), 1);
  s[static_cast<size_t>(class_dim)] = n;
  return s;
}

}  // namespace

// ---- activations
Tensor relu6(const Tensor& self) { return ember::hardtanh(self, 0, 6); }
Tensor relu6_(const Tensor& self) { return ember::hardtanh_(self, 0, 6); }

// SELU's constants (Klambauer et al., 2017).
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;
Tensor selu(const Tensor& self) { return ember::elu(self, kSeluAlpha, kSeluScale, 1); }
Tensor selu_(const Tensor& self) { return ember::elu_(self, kSeluAlpha, kSeluScale, 1); }

Tensor celu(const Tensor& self, const Scalar& alpha) {
  EMBER_CHECK(alpha.to_double() != 0, "celu: ZeroDivisionError: alpha cannot be 0 for CELU");
  return ember::elu(self, alpha, 1.0, 1.0 / alpha.to_double());
}
Tensor celu_(const Tensor& self, const Scalar& alpha) {
  EMBER_CHECK(alpha.to_double() != 0, "celu_: ZeroDivisionError: alpha cannot be 0 for CELU");
  return ember::elu_(self, alpha, 1.0, 1.0 / alpha.to_double());
}

// ---- pooling
Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(ember::max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode));
}

Tensor adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size) {
  EMBER_CHECK(output_size.size() == 2, "adaptive_avg_pool2d: output_size must be 2 (got {})", output_size);
  EMBER_CHECK(output_size[0] >= 0 && output_size[1] >= 0,
              "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {{{}, {}}}",
              output_size[0], output_size[1]);
  if (output_size[0] == 1 && output_size[1] == 1) {  // the mean over H and W, as PyTorch does
    const int64_t hw[2] = {-1, -2};
    return ember::mean(self, IntArrayRef(hw, 2), true, std::nullopt);
  }
  return ember::_adaptive_avg_pool2d(self, output_size);
}

// ---- normalization
Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var, bool training,
                  double momentum, double eps, bool) {
  if (input.numel() == 0) {
    // No statistics to take (nor running statistics to update): the input, scaled and shifted as PyTorch does.
    Tensor out = input.clone();
    if (defined(weight)) out = ember::mul(out, weight->select(0, 0));
    if (defined(bias)) out = ember::add(out, bias->select(0, 0));
    return out;
  }
  // Below 2 dims PyTorch 1.13 takes C as 0: a running_mean, weight, ... of any size fails its size check here
  // (RuntimeError naming it), with none given native_batch_norm's size(1) raises the IndexError.
  const int64_t C = input.dim() >= 2 ? input.size(1) : 0;
  const auto check = [C](const std::optional<Tensor>& t, const char* name) {
    EMBER_CHECK(t->numel() == C, "batch_norm: {} should contain {} elements not {}", name, C, t->numel());
  };
  if (defined(running_mean)) check(running_mean, "running_mean");
  else EMBER_CHECK(training, "batch_norm: running_mean must be defined in evaluation mode");
  if (defined(running_var)) check(running_var, "running_var");
  else EMBER_CHECK(training, "batch_norm: running_var must be defined in evaluation mode");
  if (defined(weight)) check(weight, "weight");
  if (defined(bias)) check(bias, "bias");
  return std::get<0>(ember::native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps));
}

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps, bool) {
  return std::get<0>(ember::native_layer_norm(input, normalized_shape, weight, bias, eps));
}

Tensor group_norm(const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps, bool) {
  const int64_t N = input.size(0), C = input.size(1);  // IndexError below 2 dims, as PyTorch's
  EMBER_CHECK(num_groups > 0, "group_norm: Expected num groups to be greater than 0, got {}", num_groups);
  EMBER_CHECK(C % num_groups == 0,
              "group_norm: Expected number of channels in input to be divisible by num_groups, but got input of shape "
              "{} and num_groups={}", input.sizes(), num_groups);
  EMBER_CHECK(!defined(weight) || (weight->dim() == 1 && weight->numel() == C),
              "group_norm: Expected weight to be a vector of size equal to the number of channels in input, but got "
              "weight of shape {} and input of shape {}", weight ? weight->sizes() : IntArrayRef(), input.sizes());
  EMBER_CHECK(!defined(bias) || (bias->dim() == 1 && bias->numel() == C),
              "group_norm: Expected bias to be a vector of size equal to the number of channels in input, but got "
              "bias of shape {} and input of shape {}", bias ? bias->sizes() : IntArrayRef(), input.sizes());
  int64_t HxW = 1;
  for (int64_t d = 2; d < input.dim(); ++d) HxW *= input.size(d);
  return std::get<0>(ember::native_group_norm(input.contiguous(), weight, bias, N, C, HxW, num_groups, eps));
}

// ---- one_hot: self == arange(num_classes), broadcast over a new last dim.
Tensor one_hot(const Tensor& self, int64_t num_classes) {
  EMBER_CHECK(self.dtype() == kInt64, "one_hot: one_hot is only applicable to index tensor (got dtype {}).",
              self.dtype());
  DimVector shape(self.sizes().begin(), self.sizes().end());
  if (self.numel() == 0) {
    EMBER_CHECK(num_classes > 0, "one_hot: Can not infer total number of classes from empty tensor.");
    shape.push_back(num_classes);
    return ember::empty(shape, kInt64);
  }
  EMBER_CHECK(ember::min(self).item<int64_t>() >= 0, "one_hot: Class values must be non-negative.");
  const int64_t mx = ember::max(self).item<int64_t>();
  if (num_classes == -1) num_classes = mx + 1;
  else EMBER_CHECK(num_classes > mx, "one_hot: Class values must be smaller than num_classes ({}); got {}.",
                   num_classes, mx);
  return ember::eq(self.unsqueeze(-1), ember::arange(Scalar(num_classes), kInt64)).to(kInt64);
}

// ---- losses
Tensor nll_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction,
                int64_t ignore_index) {
  return std::get<0>(ember::nll_loss_forward(self, target, weight, reduction, ignore_index));
}

Tensor nll_loss2d(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction,
                  int64_t ignore_index) {
  return std::get<0>(ember::nll_loss2d_forward(self, target, weight, reduction, ignore_index));
}

// (C) and (N, C) go to nll_loss, (N, C, H, W) to nll_loss2d, and (N, C, d1, ..., dk) for other k are viewed as
// (N, C, 1, d1 * ... * dk) for nll_loss2d (the unreduced result viewed back as (N, d1, ..., dk)).
Tensor nll_loss_nd(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction,
                   int64_t ignore_index) {
  EMBER_CHECK_VALUE(self.dim() >= 1, "nll_loss_nd: Expected 1 or more dimensions (got {})", self.dim());
  EMBER_CHECK_VALUE(self.dim() == 1 || (target.dim() >= 1 && self.size(0) == target.size(0)),
                    "nll_loss_nd: Expected input batch_size ({}) to match target batch_size ({}).", self.size(0),
                    target.dim() >= 1 ? target.size(0) : 0);
  if (self.dim() == 1 || self.dim() == 2) return ember::nll_loss(self, target, weight, reduction, ignore_index);
  if (self.dim() == 4) return ember::nll_loss2d(self, target, weight, reduction, ignore_index);
  const int64_t n = self.size(0), c = self.size(1);
  DimVector out_size{n};
  for (int64_t d = 2; d < self.dim(); ++d) out_size.push_back(self.size(d));
  const bool match = target.dim() == self.dim() - 1 &&
                     IntArrayRef(target.sizes().data() + 1, target.sizes().size() - 1)
                         .equals(IntArrayRef(self.sizes().data() + 2, self.sizes().size() - 2));
  EMBER_CHECK(match, "nll_loss_nd: Expected target size {}, got {}", out_size, target.sizes());
  Tensor input = self.contiguous(), tgt = target.contiguous();
  input = input.numel() > 0 ? input.view({n, c, 1, -1}) : input.view({n, c, 0, 0});
  tgt = tgt.numel() > 0 ? tgt.view({n, 1, -1}) : tgt.view({n, 0, 0});
  Tensor out = ember::nll_loss2d(input, tgt, weight, reduction, ignore_index);
  return reduction == kNone ? out.view(out_size) : out;
}

namespace {

// Cross entropy with class-probability targets (target has self's shape).
Tensor cross_entropy_prob_target(const Tensor& self, const Tensor& target_in, const std::optional<Tensor>& weight,
                                 int64_t reduction, double label_smoothing) {
  const int64_t class_dim = self.dim() == 1 ? 0 : 1;
  const int64_t n_classes = self.size(class_dim);
  EMBER_CHECK(!defined(weight) || (weight->dim() == 1 && weight->numel() == n_classes),
              "cross_entropy: weight tensor should be defined either for all {} classes or no classes but got weight "
              "tensor of shape: {}", n_classes, weight ? weight->sizes() : IntArrayRef());
  const Tensor input = ember::log_softmax(self, class_dim, self.dtype());
  Tensor target = target_in;
  if (label_smoothing > 0.0) {
    EMBER_CHECK(label_smoothing <= 1.0, "cross_entropy: label_smoothing must be between 0.0 and 1.0. Got: {}",
                label_smoothing);
    target = ember::add(ember::mul(target_in, 1 - label_smoothing), label_smoothing / static_cast<double>(n_classes));
  }
  Tensor terms = ember::mul(input, target);
  if (defined(weight)) {
    const Tensor w = input.dim() > 1 ? weight->view(class_dim_shape(input.dim(), class_dim, n_classes)) : *weight;
    terms = ember::mul(terms, w);
  }
  switch (reduction) {
    case kMean: {
      if (input.numel() == 0) return ember::neg(ember::sum(terms)).fill_(std::nan(""));
      return ember::div(ember::neg(ember::sum(terms)), input.numel() / n_classes);
    }
    case kSum: return ember::neg(ember::sum(terms));
    default: return ember::neg(ember::sum(terms, IntArrayRef(&class_dim, 1)));
  }
}

// Cross entropy with class indices and label smoothing: (1 - ls) * nll + ls / C * smooth, where smooth is the
// (weighted) sum of -log_softmax over the classes, 0 at ignored targets; its mean divides by the number of
// targets that count (by the sum of their weights when weighted, as nll_loss's mean does).
Tensor cross_entropy_label_smoothing(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                     int64_t reduction, int64_t ignore_index, double label_smoothing) {
  const int64_t class_dim = self.dim() == 1 ? 0 : 1;
  const Tensor input = ember::log_softmax(self, class_dim, self.dtype());
  const Tensor nllloss = ember::nll_loss_nd(input, target, weight, reduction, ignore_index);
  const int64_t n_classes = input.size(class_dim);
  const Tensor ignore_mask = ember::eq(target, ignore_index);
  Tensor smooth_loss;
  if (defined(weight)) {
    const Tensor w = weight->view(class_dim_shape(input.dim(), class_dim, weight->size(0)));
    smooth_loss = ember::neg(ember::sum(ember::mul(input, w), IntArrayRef(&class_dim, 1)));
  } else {
    smooth_loss = ember::neg(ember::sum(input, IntArrayRef(&class_dim, 1)));
  }
  smooth_loss = ember::where(ignore_mask, ember::zeros_like(smooth_loss), smooth_loss);
  Tensor ret;
  switch (reduction) {
    case kMean:
      if (defined(weight)) {
        // The weights of the targets that count (nll_loss has checked every target is in range): a row lookup
        // of weight viewed as a (C, 1) table, the ignored positions first sent to row 0 and then zeroed.
        const Tensor safe = ember::where(ignore_mask, ember::zeros_like(target), target).to(kInt64);
        const Tensor tw = ember::embedding(weight->view({-1, 1}), safe).view(target.sizes());
        ret = ember::div(ember::sum(smooth_loss), ember::sum(ember::where(ignore_mask, ember::zeros_like(tw), tw)));
      } else {
        ret = ember::div(ember::sum(smooth_loss), ember::sum(ember::logical_not(ignore_mask)));
      }
      break;
    case kSum: ret = ember::sum(smooth_loss); break;
    default: ret = smooth_loss; break;
  }
  return ember::add(ember::mul(nllloss, 1 - label_smoothing),
                    ember::mul(ret, label_smoothing / static_cast<double>(n_classes)));
}

}  // namespace

Tensor cross_entropy_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                          int64_t reduction, int64_t ignore_index, double label_smoothing) {
  if (self.sizes().equals(target.sizes())) {  // class probabilities
    EMBER_CHECK(target.is_floating_point(),
                "cross_entropy: Expected floating point type for target with class probabilities, got {}",
                target.dtype());
    EMBER_CHECK(ignore_index < 0, "cross_entropy: ignore_index is not supported for floating point target");
    return cross_entropy_prob_target(self, target, weight, reduction, label_smoothing);
  }
  if (label_smoothing > 0.0) {
    EMBER_CHECK(label_smoothing <= 1.0, "cross_entropy: label_smoothing must be between 0.0 and 1.0. Got: {}",
                label_smoothing);
    return cross_entropy_label_smoothing(self, target, weight, reduction, ignore_index, label_smoothing);
  }
  const int64_t class_dim = self.dim() == 1 ? 0 : 1;
  return ember::nll_loss_nd(ember::log_softmax(self, class_dim, self.dtype()), target, weight, reduction,
                            ignore_index);
}

Tensor l1_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  return apply_loss_reduction(ember::sub(self, target).abs(), reduction);
}

// The stable form of -w [t log sigmoid(x) + (1 - t) log(1 - sigmoid(x))] with pos_weight p on the positive
// term: (1 - t) x + (1 + (p - 1) t) (log(exp(-m) + exp(-x - m)) + m), m = max(-x, 0).
Tensor binary_cross_entropy_with_logits(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                        const std::optional<Tensor>& pos_weight, int64_t reduction) {
  const Tensor max_val = ember::neg(self).clamp_min_(0);
  const Tensor one_minus_t = ember::sub(wrapped_scalar_tensor(1), target);
  // log(exp(-m) + exp(-x - m)) + m = log(1 + exp(-x))
  const Tensor log_term =
      ember::neg(max_val).exp_().add_(ember::sub(ember::neg(self), max_val).exp_()).log_().add_(max_val);
  Tensor loss;
  if (defined(pos_weight)) {
    const Tensor log_weight = ember::sub(*pos_weight, 1).mul(target).add_(wrapped_scalar_tensor(1));
    loss = one_minus_t.mul_(self).add_(log_weight.mul_(log_term));
  } else {
    loss = one_minus_t.mul_(self).add_(log_term);
  }
  if (defined(weight)) loss.mul_(*weight);
  return apply_loss_reduction(loss, reduction);
}

}  // namespace ember::composite
