#include "ember/autograd/FunctionsManual.h"

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>


namespace ember::autograd::detail {

Tensor sum_to(const Tensor& g, IntArrayRef sizes) {
  if (same_sizes(g.sizes(), sizes)) return g;
  const int64_t lead = g.dim() - static_cast<int64_t>(sizes.size());
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < g.dim(); ++i) {
    if (i < lead) dims.push_back(i);
    else if (sizes[i - lead] == 1 && g.size(i) != 1) dims.push_back(i);
  }
  Tensor r = dims.empty() ? g : ember::sum(g, OptionalIntArrayRef(IntArrayRef(dims)), /*keepdim=*/true);
  if (lead > 0 || !same_sizes(r.sizes(), sizes)) r = r.reshape(sizes);
  return r;
}

Tensor reduce_grad(const Tensor& grad, const InputMeta& input) {
  if (!grad.defined()) return grad;
  Tensor g = sum_to(grad, input.sizes);
  if (g.dtype() != input.dtype) g = g.to(input.dtype);
  return g;
}

Tensor sum_backward(const Tensor& grad, IntArrayRef sizes, OptionalIntArrayRef dims, bool keepdim) {
  Tensor g = grad;
  const int64_t n = static_cast<int64_t>(sizes.size());
  if (!keepdim && n > 0) {
    std::vector<int64_t> ds;
    if (dims && !dims->empty()) {
      for (int64_t d : *dims) ds.push_back(wrap_dim(d, n));
    } else {
      for (int64_t d = 0; d < n; ++d) ds.push_back(d);
    }
    std::sort(ds.begin(), ds.end());
    for (int64_t d : ds) g = g.unsqueeze(d);
  }
  return g.expand(sizes);
}

Tensor mean_backward(const Tensor& grad, IntArrayRef sizes, OptionalIntArrayRef dims, bool keepdim) {
  int64_t count = 1;
  const int64_t n = static_cast<int64_t>(sizes.size());
  if (dims && !dims->empty()) {
    for (int64_t d : *dims) count *= sizes[wrap_dim(d, n)];
  } else {
    for (int64_t s : sizes) count *= s;
  }
  return sum_backward(grad, sizes, dims, keepdim) / Scalar(static_cast<double>(count));
}

Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Tensor& exponent) {
  Tensor g = grad * exponent * ember::pow(self, exponent - Scalar(1));
  return ember::where(ember::eq(exponent, Scalar(0)), ember::zeros_like(g), g);
}

Tensor pow_backward_exponent(const Tensor& grad, const Tensor& self, const Tensor& exponent, const Tensor& result) {
  Tensor g = grad * result * ember::log(self);
  Tensor zero = ember::logical_and(ember::eq(self, Scalar(0)), ember::ge(exponent, Scalar(0)));
  return ember::where(zero, ember::zeros_like(g), g);
}

Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max) {
  Tensor keep;
  if (min) keep = ember::ge(self, *min);
  if (max) keep = keep.defined() ? ember::logical_and(keep, ember::le(self, *max)) : ember::le(self, *max);
  if (!keep.defined()) return grad;
  return ember::where(keep, grad, ember::zeros_like(grad));
}

// Note [clamp with tensor bounds]
// As PyTorch: self's gradient passes where min <= self <= max (bounds included; NaN anywhere blocks it); min's
// where self < min, and when max is given too only where min < max (else max wins: clamp applies max last);
// max's where self > max, or wherever max < min.
std::tuple<Tensor, Tensor, Tensor> clamp_backward_min_max(const Tensor& grad, const Tensor& self,
                                                          const std::optional<Tensor>& min,
                                                          const std::optional<Tensor>& max,
                                                          const std::array<bool, 3>& mask) {
  auto pass = [&](const Tensor& keep) { return ember::where(keep, grad, ember::zeros_like(grad)); };
  Tensor gs, gmin, gmax;
  if (mask[0]) {
    Tensor keep;
    if (min) keep = ember::ge(self, *min);
    if (max) keep = keep.defined() ? ember::logical_and(keep, ember::le(self, *max)) : ember::le(self, *max);
    gs = keep.defined() ? pass(keep) : grad;
  }
  if (mask[1] && min) {
    Tensor keep = ember::lt(self, *min);
    gmin = pass(max ? ember::logical_and(keep, ember::lt(*min, *max)) : keep);
  }
  if (mask[2] && max) {
    Tensor keep = ember::gt(self, *max);
    gmax = pass(min ? ember::logical_or(keep, ember::lt(*max, *min)) : keep);
  }
  return {gs, gmin, gmax};
}

Tensor threshold_backward(const Tensor& grad, const Tensor& result) {
  return ember::where(ember::gt(result, Scalar(0)), grad, ember::zeros_like(grad));
}

Tensor softmax_backward(const Tensor& grad, const Tensor& result, int64_t dim) {
  Tensor gr = grad * result;
  return gr - result * ember::sum(gr, OptionalIntArrayRef(IntArrayRef{dim}), true);
}

Tensor log_softmax_backward(const Tensor& grad, const Tensor& result, int64_t dim) {
  return grad - ember::exp(result) * ember::sum(grad, OptionalIntArrayRef(IntArrayRef{dim}), true);
}

Tensor permute_backward(const Tensor& grad, IntArrayRef dims) {
  const int64_t n = static_cast<int64_t>(dims.size());
  std::vector<int64_t> inv(n);
  for (int64_t i = 0; i < n; ++i) inv[wrap_dim(dims[i], n)] = i;
  return grad.permute(inv);
}

Tensor slice_backward_opt(const Tensor& grad, IntArrayRef sizes, int64_t dim, std::optional<int64_t> start,
                          std::optional<int64_t> end, int64_t step) {
  return ember::slice_backward(grad, sizes, dim, start.value_or(0), end.value_or(std::numeric_limits<int64_t>::max()),
                               step);
}

namespace {
// Whether two elements of a geometry can share a storage element (size-1 dims never step; empty: no elements).
bool may_overlap(IntArrayRef sizes, IntArrayRef strides) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of the dims that step
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return false;
    if (sizes[i] > 1) dims.emplace_back(strides[i], sizes[i]);
  }
  std::sort(dims.begin(), dims.end());
  int64_t span = 0;  // the largest offset the dims with smaller strides reach
  for (auto [stride, size] : dims) {
    if (stride <= span) return true;
    span += (size - 1) * stride;
  }
  return false;
}
}  // namespace

Tensor as_strided_grad(const Tensor& grad, const Tensor& self, IntArrayRef size, IntArrayRef stride,
                       std::optional<int64_t> storage_offset) {
  // PyTorch splits a storage element's gradient among the elements of an overlapping self (an expanded one,
  // say); reading it back by self's geometry would count it once per alias, so Ember raises instead.
  if (may_overlap(self.sizes(), self.strides()))
    EMBER_FAIL_KIND(ErrorKind::NotImplemented,
                    "the derivative of as_strided for an input whose elements overlap in memory (sizes [{}], "
                    "strides [{}]) is not implemented; apply as_strided to a contiguous copy",
                    fmt::join(self.sizes(), ", "), fmt::join(self.strides(), ", "));
  return ember::as_strided_backward(grad, size, stride, storage_offset.value_or(self.storage_offset()), self.sizes(),
                                    self.strides(), self.storage_offset());
}

Tensor gelu_backward(const Tensor& grad, const Tensor& self, std::string_view approximate) {
  if (approximate == "tanh") {
    // d/dx [x/2 (1 + tanh(u))], u = sqrt(2/pi) (x + k x^3): (1 + t)/2 + x/2 (1 - t^2) u'.
    constexpr double kBeta = 0.7978845608028654;  // sqrt(2 / pi)
    constexpr double kKappa = 0.044715;
    Tensor x2 = self * self;
    Tensor t = ember::tanh((self + x2 * self * Scalar(kKappa)) * Scalar(kBeta));
    Tensor du = (x2 * Scalar(3 * kKappa) + Scalar(1)) * Scalar(kBeta);
    return grad * ((t + Scalar(1)) * Scalar(0.5) + self * Scalar(0.5) * (Scalar(1) - t * t) * du);
  }
  constexpr double kInvSqrt2 = 0.7071067811865476;    // 1 / sqrt(2)
  constexpr double kInvSqrt2Pi = 0.3989422804014327;  // 1 / sqrt(2 pi)
  Tensor cdf = (ember::erf(self * Scalar(kInvSqrt2)) + Scalar(1)) * Scalar(0.5);
  Tensor pdf = ember::exp(self * self * Scalar(-0.5)) * Scalar(kInvSqrt2Pi);
  return grad * (cdf + self * pdf);
}

Tensor silu_backward(const Tensor& grad, const Tensor& self) {
  Tensor s = ember::sigmoid(self);
  return grad * s * (self * (Scalar(1) - s) + Scalar(1));
}

Tensor div_mode_backward_self(const Tensor& grad, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  if (rounding_mode) return ember::zeros_like(grad);
  return grad / other;
}

Tensor div_mode_backward_other(const Tensor& grad, const Tensor& self, const Tensor& other,
                               std::optional<std::string_view> rounding_mode) {
  if (rounding_mode) return ember::zeros_like(grad);
  return -grad * self / (other * other);
}

Tensor max_min_backward(const Tensor& grad, const Tensor& self, const Tensor& other, bool is_max, bool for_self) {
  Tensor g = ember::where(ember::eq(self, other), grad / Scalar(2), grad);
  // The operand that loses gets nothing: for self under maximum, where self < other.
  Tensor loses = (is_max == for_self) ? ember::lt(self, other) : ember::gt(self, other);
  return ember::where(loses, ember::zeros_like(g), g);
}

Tensor fmax_fmin_backward(const Tensor& grad, const Tensor& self, const Tensor& other, bool is_max, bool for_self) {
  // self wins where it is at least as good as other (ties included) or other is NaN.
  Tensor self_wins =
      ember::logical_or(is_max ? ember::ge(self, other) : ember::le(self, other), ember::isnan(other));
  return for_self ? ember::where(self_wins, grad, ember::zeros_like(grad))
                  : ember::where(self_wins, ember::zeros_like(grad), grad);
}

variable_list cat_backward(const Tensor& grad, const std::vector<IntArrayRef>& sizes, int64_t dim) {
  variable_list r;
  r.reserve(sizes.size());
  dim = wrap_dim(dim, grad.dim());
  int64_t offset = 0;
  for (IntArrayRef s : sizes) {
    if (s.size() == 1 && s[0] == 0) {  // skipped by cat (legacy empty tensor)
      r.push_back(ember::zeros(s, grad.dtype()));
      continue;
    }
    r.push_back(grad.narrow(dim, offset, s[dim]));
    offset += s[dim];
  }
  return r;
}

Tensor value_selecting_reduction_backward(const Tensor& grad, int64_t dim, const Tensor& indices, IntArrayRef sizes,
                                          bool keepdim) {
  if (sizes.empty()) return grad.reshape(sizes);  // 0-dim input: the value is the element
  dim = wrap_dim(dim, static_cast<int64_t>(sizes.size()));
  Tensor g = keepdim ? grad : grad.unsqueeze(dim);
  Tensor i = keepdim ? indices : indices.unsqueeze(dim);
  return ember::zeros(sizes, grad.dtype()).scatter(dim, i, g);
}

}  // namespace ember::autograd::detail
