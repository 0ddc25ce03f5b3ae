// Reduction overloads written with other ops (PyTorch's older spellings: unbiased=, p=, ...).
#include "ember/ops/Operators.h"
#include "ember/ops/generated/CompositeKernels.h"
#include "ember/ops/linalg.h"
#include "ember/ops/out.h"
#include "ember/ops/shape.h"

namespace ember::composite {

namespace {
std::optional<int64_t> correction_of(bool unbiased) { return unbiased ? 1 : 0; }
}  // namespace

Tensor max_other(const Tensor& self, const Tensor& other) { return ember::maximum(self, other); }
Tensor min_other(const Tensor& self, const Tensor& other) { return ember::minimum(self, other); }
Tensor var_unbiased(const Tensor& self, bool unbiased) {
  return ember::var(self, std::nullopt, correction_of(unbiased), false);
}
Tensor var_dim(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return ember::var(self, dim, correction_of(unbiased), keepdim);
}
Tensor std_unbiased(const Tensor& self, bool unbiased) {
  return ember::std(self, std::nullopt, correction_of(unbiased), false);
}
Tensor std_dim(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return ember::std(self, dim, correction_of(unbiased), keepdim);
}
std::tuple<Tensor, Tensor> var_mean_unbiased(const Tensor& self, bool unbiased) {
  return ember::var_mean(self, std::nullopt, correction_of(unbiased), false);
}
std::tuple<Tensor, Tensor> var_mean_dim(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return ember::var_mean(self, dim, correction_of(unbiased), keepdim);
}
std::tuple<Tensor, Tensor> std_mean_unbiased(const Tensor& self, bool unbiased) {
  return ember::std_mean(self, std::nullopt, correction_of(unbiased), false);
}
std::tuple<Tensor, Tensor> std_mean_dim(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return ember::std_mean(self, dim, correction_of(unbiased), keepdim);
}
// Note [norm of nothing]
// aten::norm (torch.norm) gives 0 for an empty input whatever p, where linalg.vector_norm raises for the orders
// without an identity (inf, negative): an empty input is normed with ord 2 instead, which gives those zeros
// (and keeps the dtype checks and result shape).
Tensor norm_dim(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim) {
  const Scalar ord = self.numel() == 0 ? Scalar(2.0) : p.value_or(Scalar(2.0));
  return ember::linalg_vector_norm(self, ord, dim, keepdim, std::nullopt);
}
Tensor norm(const Tensor& self, const Scalar& p) {  // See Note [norm of nothing]
  return ember::linalg_vector_norm(self, self.numel() == 0 ? Scalar(2.0) : p, std::nullopt, false, std::nullopt);
}
Tensor count_nonzero(const Tensor& self, std::optional<int64_t> dim) {
  if (dim) return ember::count_nonzero(self, IntArrayRef(&*dim, 1));
  return ember::count_nonzero(self, IntArrayRef());
}

}  // namespace ember::composite

// nanmean, aminmax and the quantiles (ops_reduce.yaml), written with nansum, amin/amax, sort and gather.
namespace ember::composite {

Tensor nanmean(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<DType> dtype) {
  EMBER_CHECK(is_floating_point(self.dtype()), "nanmean(): expected input to have floating point dtype but got {}",
              linalg::scalar_type_name(self.dtype()));
  EMBER_CHECK(!dtype || is_floating_point(*dtype), "\"nansum_cpu\" not implemented for '{}'",
              linalg::scalar_type_name(dtype.value_or(self.dtype())));
  const Tensor count = ember::logical_not(ember::isnan(self)).sum(dim, keepdim);
  return ember::nansum(self, dim, keepdim, dtype).div(count);
}
Tensor nanmean_out(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<DType> dtype,
                   const Tensor& out) {
  EMBER_CHECK(!dtype || out.dtype() == *dtype, "nansum: provided dtype must match dtype of result. Got {} and {}.",
              linalg::scalar_type_name(out.dtype()), linalg::scalar_type_name(*dtype));
  return write_out("nanmean", out, composite::nanmean(self, dim, keepdim, dtype));
}

std::tuple<Tensor, Tensor> aminmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  if (!dim) {
    EMBER_CHECK(self.numel() > 0, "aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                "identity.");
    const Tensor flat = self.reshape({-1});
    Tensor mn = flat.amin({0}), mx = flat.amax({0});
    if (keepdim) {
      DimVector ones(static_cast<size_t>(self.dim()), 1);
      return {mn.reshape(ones), mx.reshape(ones)};
    }
    return {mn, mx};
  }
  const int64_t d = checked_dim("aminmax", *dim, self.dim());
  EMBER_CHECK_INDEX(self.dim() == 0 || self.size(d) > 0, "aminmax(): Expected reduction dim {} to have non-zero size.",
                    d);
  if (self.dim() == 0) return {self.clone(), self.clone()};
  return {self.amin({d}, keepdim), self.amax({d}, keepdim)};
}

namespace {

// PyTorch 1.13's quantile_compute: sort the reduced dim (moved last), rank = q * (n - 1) (over the non-NaN
// count for nanquantile; the last index when a NaN is present for quantile), values at floor/ceil of the rank
// interpolated as asked. q: 0-dim or 1-D; a 1-D q's dim goes first in the result.
Tensor quantile_impl(const char* name, const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                     std::string_view interpolation, bool ignore_nan) {
  EMBER_CHECK(self.numel() > 0, "{}() input tensor must be non-empty", name);
  EMBER_CHECK(q.dim() <= 1, "{}() q must be a scalar or 1D tensor", name);
  EMBER_CHECK(is_floating_point(self.dtype()), "{}() input tensor must be either float or double dtype", name);
  EMBER_CHECK(self.dtype() == q.dtype(), "{}() q tensor must be same dtype as the input tensor", name);
  EMBER_CHECK(interpolation == "linear" || interpolation == "lower" || interpolation == "higher" ||
                  interpolation == "midpoint" || interpolation == "nearest",
              "{}() interpolation must be one of linear, lower, higher, midpoint or nearest. Got {}", name,
              interpolation);
  EMBER_CHECK(ember::logical_and(ember::ge(q, Scalar(0)), ember::le(q, Scalar(1))).all().item<bool>(),
              "{}() q values must be in the range [0, 1]", name);
  DimVector out_shape;
  std::optional<int64_t> d;
  if (dim) d = checked_dim(name, *dim, self.dim());
  if (d && self.dim() > 0) {
    out_shape.assign(self.sizes().begin(), self.sizes().end());
    if (keepdim) out_shape[*d] = 1;
    else out_shape.erase(out_shape.begin() + *d);
  } else if (keepdim) {
    out_shape.assign(static_cast<size_t>(self.dim()), 1);
  }
  Tensor sorted;
  if (!d || self.dim() == 0) sorted = std::get<0>(ember::sort(self.reshape({-1}), -1, false));
  else if (*d == self.dim() - 1) sorted = std::get<0>(ember::sort(self, -1, false));
  else sorted = std::get<0>(ember::sort(self.unsqueeze(-1).transpose(*d, -1), -1, false));
  DimVector in_shape(out_shape.begin(), out_shape.end());
  in_shape.push_back(sorted.size(-1));
  sorted = sorted.reshape(in_shape);
  const Tensor& qd = q;  // differentiable: a linear quantile moves with q, as PyTorch's
  Tensor ranks;
  if (ignore_nan) {
    ranks = qd * (ember::logical_not(ember::isnan(sorted)).sum({-1}, true) - 1);
    ranks = ranks.masked_fill(ember::lt(ranks, Scalar(0)), Scalar(0));
  } else {
    const int64_t last_index = sorted.size(-1) - 1;
    std::vector<Tensor> tl = ember::broadcast_tensors({qd * Scalar(last_index), ember::isnan(sorted).any(-1, true)});
    ranks = tl[0].masked_fill(tl[1], Scalar(last_index));
  }
  if (interpolation == "lower") ranks = ranks.floor();
  else if (interpolation == "higher") ranks = ranks.ceil();
  else if (interpolation == "nearest") ranks = ranks.round();
  const Tensor ranks_below = ranks.to(kInt64);
  Tensor values = sorted.gather(-1, ranks_below);
  if (interpolation == "linear" || interpolation == "midpoint") {
    const Tensor weights = interpolation == "midpoint" ? ember::full_like(ranks, Scalar(0.5)) : ranks - ranks_below;
    const Tensor values_above = sorted.gather(-1, ranks.ceil().to(kInt64));
    values = ember::lerp(values, values_above, weights);
  }
  if (q.dim() == 0) return values.squeeze(-1);
  return values.unsqueeze(0).transpose(0, -1).squeeze(-1);
}

void check_quantile_out(const char* name, const Tensor& self, const Tensor& out) {
  EMBER_CHECK(out.dtype() == self.dtype(), "{}() out tensor must be same dtype as the input tensor", name);
}

}  // namespace

Tensor quantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                std::string_view interpolation) {
  return quantile_impl("quantile", self, q, dim, keepdim, interpolation, false);
}
Tensor quantile_out(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                    std::string_view interpolation, const Tensor& out) {
  check_quantile_out("quantile", self, out);
  return write_out("quantile", out, composite::quantile(self, q, dim, keepdim, interpolation));
}
Tensor quantile_scalar(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                       std::string_view interpolation) {
  EMBER_CHECK(q >= 0 && q <= 1, "quantile() q must be in the range [0, 1] but got {}", q);
  return quantile_impl("quantile", self, ember::scalar_tensor(Scalar(q), self.dtype()), dim, keepdim, interpolation,
                       false);
}
Tensor quantile_scalar_out(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                           std::string_view interpolation, const Tensor& out) {
  check_quantile_out("quantile", self, out);
  return write_out("quantile", out, composite::quantile_scalar(self, q, dim, keepdim, interpolation));
}
Tensor nanquantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                   std::string_view interpolation) {
  return quantile_impl("nanquantile", self, q, dim, keepdim, interpolation, true);
}
Tensor nanquantile_out(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                       std::string_view interpolation, const Tensor& out) {
  check_quantile_out("nanquantile", self, out);
  return write_out("nanquantile", out, composite::nanquantile(self, q, dim, keepdim, interpolation));
}
Tensor nanquantile_scalar(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                          std::string_view interpolation) {
  EMBER_CHECK(q >= 0 && q <= 1, "nanquantile() q must be in the range [0, 1] but got {}", q);
  return quantile_impl("nanquantile", self, ember::scalar_tensor(Scalar(q), self.dtype()), dim, keepdim,
                       interpolation, true);
}
Tensor nanquantile_scalar_out(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                              std::string_view interpolation, const Tensor& out) {
  check_quantile_out("nanquantile", self, out);
  return write_out("nanquantile", out, composite::nanquantile_scalar(self, q, dim, keepdim, interpolation));
}

}  // namespace ember::composite
