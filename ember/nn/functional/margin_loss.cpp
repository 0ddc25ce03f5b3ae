// ember::nn::functional's margin, hinge and triplet losses as compositions of ops, mirroring
// python/ember/_losses.py and python/ember/nn/_functional_loss.py (PyTorch 1.13's formulas).
#include "ember/nn/functional/margin_loss.h"

#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/nn/functional/detail.h"
#include "ember/nn/functional/distance.h"
#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"

namespace ember::nn::functional {
namespace {

using detail::apply_reduction;
using detail::check_broadcast;

// z where z > 0, else 0, with gradient 0 at z == 0 (PyTorch's margin kernels).
Tensor positive_part(const Tensor& z) { return ember::where(z > 0, z, ember::zeros_like(z)); }

// where(keep, x, 0).
Tensor keep_or_zero(const Tensor& keep, const Tensor& x) { return ember::where(keep, x, ember::zeros_like(x)); }

// (N, C) of a margin loss's (N, C), (C) or 0-dim input, with PyTorch's checks of input and target.
std::pair<int64_t, int64_t> margin_shapes(const char* fn, const Tensor& input, const Tensor& target) {
  const int64_t dim = input.dim();
  EMBER_CHECK(dim <= 2 && !(dim == 1 && input.numel() == 0) && !(dim == 2 && input.size(1) == 0),
              "{}: Expected non-empty vector or matrix with optional 0-dim batch size, but got: [{}]", fn,
              fmt::join(input.sizes(), ", "));
  EMBER_CHECK(input.is_floating_point(), "{}: expected a floating-point input, but got {}", fn, input.dtype());
  EMBER_CHECK(target.dtype() == kInt64, "{}: expected a target of scalar type Long (int64) but found {}", fn,
              target.dtype());
  if (dim == 2) return {input.size(0), input.size(1)};
  return {1, dim == 0 ? 1 : input.size(0)};
}

}  // namespace

Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, const HingeEmbeddingLossFuncOptions& options) {
  check_broadcast("hinge_embedding_loss", "input", input, "target", target);
  const Tensor zeros = ember::zeros_like(input);
  // computed in input's dtype, margin included (as PyTorch's)
  const Tensor margin_part =
      ember::where(target != 1, (ember::full_like(input, options.margin()) - input).clamp_min(0), zeros);
  const Tensor self_part = ember::where(target != -1, input, zeros);
  return apply_reduction(margin_part + self_part, options.reduction());
}

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           const MarginRankingLossFuncOptions& options) {
  EMBER_CHECK(input1.dim() == input2.dim() && input1.dim() == target.dim(),
              "margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: [{}], "
              "input2: [{}], target: [{}]",
              fmt::join(input1.sizes(), ", "), fmt::join(input2.sizes(), ", "), fmt::join(target.sizes(), ", "));
  check_broadcast("margin_ranking_loss", "input1", input1, "input2", input2);
  const Tensor diff = input1 - input2;
  check_broadcast("margin_ranking_loss", "input1 - input2", diff, "target", target);
  return apply_reduction((-target * diff + options.margin()).clamp_min(0), options.reduction());
}

Tensor soft_margin_loss(const Tensor& input, const Tensor& target, const SoftMarginLossFuncOptions& options) {
  EMBER_CHECK(input.is_floating_point(), "soft_margin_loss: expected a floating-point input, but got {}",
              input.dtype());
  check_broadcast("soft_margin_loss", "input", input, "target", target);
  return apply_reduction((-input * target).exp().log1p(), options.reduction());
}

Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                                   const MultilabelSoftMarginLossFuncOptions& options) {
  EMBER_CHECK_INDEX(input.dim() >= 1,
                    "multilabel_soft_margin_loss: expected an input of at least 1 dim (the "
                    "classes), got a 0-dim one");
  check_broadcast("multilabel_soft_margin_loss", "input", input, "target", target);
  Tensor loss = -(target * ember::log_sigmoid(input) + (1 - target) * ember::log_sigmoid(-input));
  if (options.weight().defined()) loss = loss * options.weight();
  const int64_t class_dim = input.dim() - 1;
  loss = loss.sum({class_dim}) / input.size(class_dim);
  return apply_reduction(loss, options.reduction());
}

Tensor multi_margin_loss(const Tensor& input, const Tensor& target, const MultiMarginLossFuncOptions& options) {
  const int64_t p = options.p();
  const Tensor& weight = options.weight();
  EMBER_CHECK_VALUE(p == 1 || p == 2, "multi_margin_loss: only p == 1 and p == 2 supported, got p = {}", p);
  EMBER_CHECK_VALUE(!weight.defined() || weight.dim() == 1,
                    "multi_margin_loss: weight must be one-dimensional, got one of shape [{}]",
                    fmt::join(weight.sizes(), ", "));
  const char* fn = "multi_margin_loss";
  const auto [n, c] = margin_shapes(fn, input, target);
  EMBER_CHECK(target.dim() <= 1 && target.numel() == n,
              "{}: inconsistent target size, got: [{}] for input [{}]; expected {} target(s)", fn,
              fmt::join(target.sizes(), ", "), fmt::join(input.sizes(), ", "), n);
  EMBER_CHECK(!weight.defined() || weight.numel() == c, "{}: inconsistent weight size, expected {} but got [{}]", fn, c,
              fmt::join(weight.sizes(), ", "));
  const Tensor x = input.reshape({n, c});
  const Tensor y = target.reshape({n, 1});
  EMBER_CHECK(!((y < 0) | (y >= c)).any().item<bool>(), "{}: target out of range [0, {})", fn, c);
  Tensor h = positive_part(options.margin() - x.gather(1, y) + x);
  if (p == 2) h = h * h;
  if (weight.defined()) h = h * weight.gather(0, y.reshape({-1})).unsqueeze(1);
  const Tensor others = ember::arange(c).unsqueeze(0) != y;
  const Tensor per_sample = keep_or_zero(others, h).sum({1}) / c;
  if (std::holds_alternative<enumtype::kNone>(options.reduction())) return per_sample.reshape(target.sizes());
  return apply_reduction(per_sample, options.reduction());
}

Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target,
                              const MultilabelMarginLossFuncOptions& options) {
  const char* fn = "multilabel_margin_loss";
  const auto [n, c] = margin_shapes(fn, input, target);
  const bool fits = input.dim() <= 1 ? target.dim() <= 1 && target.numel() == c : target.sizes().equals(input.sizes());
  EMBER_CHECK(fits, "{}: inconsistent size [{}] for argument #2 'target'; expected input's size [{}]", fn,
              fmt::join(target.sizes(), ", "), fmt::join(input.sizes(), ", "));
  const Tensor x = input.reshape({n, c});
  const Tensor y = target.reshape({n, c});
  // the target classes of each row: its entries before the first -1
  const Tensor listed = (y != -1).to(kInt64).cumprod(1).to(kBool);
  EMBER_CHECK(!(listed & ((y < 0) | (y >= c))).any().item<bool>(), "{}: argument #2 'target' is out of range [0, {})",
              fn, c);
  const Tensor y_safe = keep_or_zero(listed, y);
  const Tensor is_target = ember::zeros({n, c}, kInt64).scatter_add(1, y_safe, listed.to(kInt64)) > 0;
  const Tensor x_target = x.gather(1, y_safe);                                     // (N, C): x at the j-th listed class
  const Tensor hinge = positive_part(1 - x_target.unsqueeze(2) + x.unsqueeze(1));  // (N, j, i)
  const Tensor counted = listed.unsqueeze(2) & ~is_target.unsqueeze(1);
  const Tensor per_sample = keep_or_zero(counted, hinge).sum({1, 2}) / c;
  if (std::holds_alternative<enumtype::kNone>(options.reduction())) {
    return input.dim() == 2 ? per_sample : per_sample.reshape({});
  }
  return apply_reduction(per_sample, options.reduction());
}

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             const CosineEmbeddingLossFuncOptions& options) {
  const int64_t tdim = target.dim();
  EMBER_CHECK(tdim <= 1,
              "cosine_embedding_loss: 0D or 1D target tensor expected, multi-target not supported; got "
              "target [{}]",
              fmt::join(target.sizes(), ", "));
  EMBER_CHECK(input1.dim() == tdim + 1 && input2.dim() == tdim + 1,
              "cosine_embedding_loss: {}D target tensor expects {}D input tensors, but found inputs with sizes [{}] "
              "and [{}].",
              tdim, tdim + 1, fmt::join(input1.sizes(), ", "), fmt::join(input2.sizes(), ", "));
  check_broadcast("cosine_embedding_loss", "input1", input1, "input2", input2);
  constexpr double eps = 1e-12;
  const Tensor prod_sum = (input1 * input2).sum({tdim});
  const Tensor mag_square1 = (input1 * input1).sum({tdim}) + eps;
  const Tensor mag_square2 = (input2 * input2).sum({tdim}) + eps;
  const Tensor cos = prod_sum / (mag_square1 * mag_square2).sqrt();
  check_broadcast("cosine_embedding_loss", "cosine", cos, "target", target);
  const Tensor pos = keep_or_zero(target == 1, 1 - cos);
  const Tensor neg = keep_or_zero(target == -1, (cos - options.margin()).clamp_min(0));
  return apply_reduction(pos + neg, options.reduction());
}

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           const TripletMarginLossFuncOptions& options) {
  EMBER_CHECK(anchor.dim() == positive.dim() && anchor.dim() == negative.dim(),
              "triplet_margin_loss: All inputs should have same dimension but got {}D, {}D and {}D inputs "
              "(anchor [{}], positive [{}], negative [{}]).",
              anchor.dim(), positive.dim(), negative.dim(), fmt::join(anchor.sizes(), ", "),
              fmt::join(positive.sizes(), ", "), fmt::join(negative.sizes(), ", "));
  const auto d = PairwiseDistanceFuncOptions().p(options.p()).eps(options.eps());
  const Tensor dist_pos = pairwise_distance(anchor, positive, d);
  Tensor dist_neg = pairwise_distance(anchor, negative, d);
  if (options.swap()) dist_neg = ember::minimum(dist_neg, pairwise_distance(positive, negative, d));
  return apply_reduction((options.margin() + dist_pos - dist_neg).clamp_min(0), options.reduction());
}

Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                         const TripletMarginWithDistanceLossFuncOptions& options) {
  const auto distance = [&](const Tensor& a, const Tensor& b) {
    return options.distance_function() ? (*options.distance_function())(a, b) : pairwise_distance(a, b);
  };
  const Tensor dist_pos = distance(anchor, positive);
  Tensor dist_neg = distance(anchor, negative);
  if (options.swap()) dist_neg = ember::minimum(dist_neg, distance(positive, negative));
  return apply_reduction((dist_pos - dist_neg + options.margin()).clamp_min(0), options.reduction());
}

}  // namespace ember::nn::functional
