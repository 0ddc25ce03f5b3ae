#include "ember/autograd/FunctionsManual.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "ember/autograd/GradMode.h"
#include "ember/core/TypePromotion.h"

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

Tensor maybe_multiply(const Tensor& t, const Scalar& s) {
  const bool one = s.is_floating_point() ? s.to<double>() == 1.0 : s.is_bool() ? s.to<bool>() : s.to<int64_t>() == 1;
  return one ? t : t * s;
}

namespace {
// Whether a 2-D matrix is column-major and not also row-major (Note [mm backward layout]).
bool column_major(const Tensor& m) {
  return m.dim() == 2 && m.size(0) > 1 && m.size(1) > 1 && m.stride(0) == 1 && m.stride(1) >= m.size(0);
}
}  // namespace

// Complex operands enter conjugated (PyTorch's convention, Note [complex gradients]); conj is self for real ones.
Tensor mm_mat1_backward(const Tensor& grad, const Tensor& mat1, const Tensor& mat2, const Scalar& alpha) {
  const Scalar a = alpha.is_complex() ? Scalar(std::conj(alpha.to_complex_double())) : alpha;
  if (column_major(mat1)) return maybe_multiply(ember::mm(mat2.conj(), grad.t()).t(), a);
  return maybe_multiply(ember::mm(grad, mat2.t().conj()), a);
}

Tensor mm_mat2_backward(const Tensor& grad, const Tensor& mat1, const Tensor& mat2, const Scalar& alpha) {
  const Scalar a = alpha.is_complex() ? Scalar(std::conj(alpha.to_complex_double())) : alpha;
  if (column_major(mat2)) return maybe_multiply(ember::mm(grad.t(), mat1.conj()).t(), a);
  return maybe_multiply(ember::mm(mat1.t().conj(), grad), a);
}

Tensor reduce_grad(const Tensor& grad, const InputMeta& input) {
  if (!grad.defined()) return grad;
  Tensor g = sum_to(grad, input.sizes);
  if (g.dtype() != input.dtype) g = g.to(input.dtype);
  return g;
}

Tensor unsqueeze_reduced(const Tensor& grad, int64_t ndim, OptionalIntArrayRef dims, bool keepdim) {
  if (keepdim || ndim == 0) return grad;
  std::vector<int64_t> ds;
  if (dims && !dims->empty()) {
    for (int64_t d : *dims) ds.push_back(wrap_dim(d, ndim));
  } else {
    for (int64_t d = 0; d < ndim; ++d) ds.push_back(d);
  }
  std::sort(ds.begin(), ds.end());
  Tensor g = grad;
  for (int64_t d : ds) g = g.unsqueeze(d);
  return g;
}

Tensor sum_backward(const Tensor& grad, IntArrayRef sizes, OptionalIntArrayRef dims, bool keepdim) {
  return unsqueeze_reduced(grad, static_cast<int64_t>(sizes.size()), dims, keepdim).expand(sizes);
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
  Tensor g = grad * (exponent * ember::pow(self, exponent - Scalar(1))).conj();
  return ember::where(ember::eq(exponent, Scalar(0)), ember::zeros_like(g), g);
}

Tensor pow_backward_exponent(const Tensor& grad, const Tensor& self, const Tensor& exponent, const Tensor& result) {
  Tensor g = grad * (result * ember::log(self)).conj();
  // A complex exponent counts as non-negative when it is real and >= 0 (PyTorch's condition).
  const Tensor nonneg = exponent.is_complex()
                            ? ember::logical_and(ember::eq(ember::imag(exponent), Scalar(0)),
                                                 ember::ge(ember::real(exponent), Scalar(0)))
                            : ember::ge(exponent, Scalar(0));
  Tensor zero = ember::logical_and(ember::eq(self, Scalar(0)), nonneg);
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

Tensor as_strided_grad(const Tensor& grad, const TensorGeometry& self, IntArrayRef size, IntArrayRef stride,
                       std::optional<int64_t> storage_offset) {
  // PyTorch splits a storage element's gradient among the elements of an overlapping self (an expanded one,
  // say); reading it back by self's geometry would count it once per alias, so Ember raises instead.
  if (may_overlap(self.sizes, self.strides))
    EMBER_FAIL_KIND(ErrorKind::NotImplemented,
                    "the derivative of as_strided for an input whose elements overlap in memory (sizes [{}], "
                    "strides [{}]) is not implemented; apply as_strided to a contiguous copy",
                    fmt::join(self.sizes, ", "), fmt::join(self.strides, ", "));
  return ember::as_strided_backward(grad, size, stride, storage_offset.value_or(self.storage_offset), self.sizes,
                                    self.strides, self.storage_offset);
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
  const int64_t ndim = static_cast<int64_t>(sizes.size());
  const Tensor g = unsqueeze_reduced(grad, ndim, IntArrayRef{dim}, keepdim);
  const Tensor i = unsqueeze_reduced(indices, ndim, IntArrayRef{dim}, keepdim);
  return ember::zeros(sizes, grad.dtype()).scatter(dim, i, g);
}

// ---------------------------------------------------------------------------------------------- reductions

namespace {

// The dims a reduction over `dims` (absent or empty: all) reduces, as an owned list for sum(..., dims).
std::vector<int64_t> reduced_dims(int64_t ndim, OptionalIntArrayRef dims) {
  std::vector<int64_t> ds;
  if (dims && !dims->empty()) {
    for (int64_t d : *dims) ds.push_back(wrap_dim(d, ndim));
  } else {
    for (int64_t d = 0; d < ndim; ++d) ds.push_back(d);
  }
  return ds;
}

// The number of elements a reduction over `dims` folds into one.
int64_t reduced_count(IntArrayRef sizes, OptionalIntArrayRef dims) {
  int64_t n = 1;
  for (int64_t d : reduced_dims(static_cast<int64_t>(sizes.size()), dims)) n *= sizes[d];
  return n;
}

// mask.sum(dims, keepdim=True): how many elements of each slice the mask selects (all dims when dims is
// empty; a 0-dim mask is its own count).
Tensor count_per_slice(const Tensor& mask, OptionalIntArrayRef dims) {
  if (mask.dim() == 0) return mask.to(DType::Int64);
  const std::vector<int64_t> ds = reduced_dims(mask.dim(), dims);
  return ember::sum(mask, OptionalIntArrayRef(IntArrayRef(ds)), /*keepdim=*/true);
}

bool has_zero(const Tensor& t) { return ember::any(ember::eq(t, Scalar(0))).item<bool>(); }

// sign(t) as a constant: sign's derivative is zero wherever it exists, so the formulas using it need no graph
// through it.
Tensor sign_of(const Tensor& t) { return ember::sign(t.detach()); }

// The running sum of t along dim from the end: out[i] = sum_{k >= i} t[k].
Tensor reverse_cumsum(const Tensor& t, int64_t dim) { return t.flip({dim}).cumsum(dim).flip({dim}); }

// For each element along dim, the product of the others of its slice, without division (exact with zeros):
// the exclusive running products from the left and from the right, multiplied.
Tensor prod_of_others(const Tensor& x, int64_t dim) {
  const int64_t n = x.size(dim);
  DimVector one_sizes(x.sizes());
  one_sizes[dim] = 1;
  const Tensor ones = ember::ones(one_sizes, x.dtype());
  const Tensor left = ember::cat({ones, x.narrow(dim, 0, n - 1)}, dim).cumprod(dim);
  const Tensor right = ember::cat({ones, x.flip({dim}).narrow(dim, 0, n - 1)}, dim).cumprod(dim).flip({dim});
  return left * right;
}

}  // namespace

Tensor nansum_backward(const Tensor& grad, const Tensor& self, OptionalIntArrayRef dims, bool keepdim) {
  return sum_backward(grad, self.sizes(), dims, keepdim).masked_fill(ember::isnan(self), Scalar(0));
}

// Note [prod and cumprod with zeros]
// d prod / d x_i is the product of the other elements. Without zeros that is result / x_i (one division,
// PyTorch's fast path). With a zero, the products of the others are formed without division (exclusive
// running products from both ends), which is exact for one zero (the zero's gradient is the product of the
// rest) and for several (all zero), and stays differentiable: PyTorch 1.13 returns an unconnected zero
// tensor for the full prod with two or more zeros, whose second derivative is then lost; ours is exact.
//
// cumprod: out_k = prod_{j<=k} x_j and d L / d x_i = sum_{k>=i} g_k prod_{j<=k, j!=i} x_j. Without zeros,
// reverse_cumsum(g * out) / x. With z the first zero of a slice: before z the same expression holds (x_i != 0
// there, and out_k = 0 for k >= z); at z it is reverse_cumsum(g * cumprod(y)) with y = x whose first zero is
// replaced by 1; after z every term holds the factor x_z, and what multiplies it is the cumprod gradient of y,
// computed by the same rule (recursing once per zero of the slice). Each piece is an exact expression of x
// near the point, so the result is differentiable again (create_graph).
Tensor prod_backward(const Tensor& grad, const Tensor& self, const Tensor& result) {
  if (self.dim() == 0 || self.numel() == 0) return grad.expand(self.sizes());
  if (!has_zero(self)) return grad * (result / self).conj();
  return (grad * prod_of_others(self.reshape({-1}), 0).conj()).reshape(self.sizes());
}

Tensor prod_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim, bool keepdim) {
  if (self.dim() == 0) return grad;
  dim = wrap_dim(dim, self.dim());
  const Tensor g = unsqueeze_reduced(grad, self.dim(), IntArrayRef{dim}, keepdim);
  if (self.numel() == 0) return g.expand(self.sizes());
  if (!has_zero(self)) return g * (unsqueeze_reduced(result, self.dim(), IntArrayRef{dim}, keepdim) / self).conj();
  return g * prod_of_others(self, dim).conj();
}

Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& self, const Tensor& result) {
  const Tensor mask = ember::isnan(result).item<bool>() ? ember::isnan(self) : ember::eq(self, result);
  const Tensor share = grad / count_per_slice(mask, std::nullopt).reshape({});
  return ember::zeros_like(self, grad.dtype()).masked_fill(mask, share);
}

Tensor amax_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dims, bool keepdim) {
  const Tensor g = unsqueeze_reduced(grad, self.dim(), dims, keepdim);
  const Tensor mask = ember::eq(self, unsqueeze_reduced(result, self.dim(), dims, keepdim));
  return g / count_per_slice(mask, dims) * mask;
}

Tensor var_backward(const Tensor& grad, const Tensor& self, OptionalIntArrayRef dims, std::optional<int64_t> correction,
                    bool keepdim) {
  const double dof = static_cast<double>(reduced_count(self.sizes(), dims) - correction.value_or(1));
  const Tensor g = unsqueeze_reduced(grad, self.dim(), dims, keepdim);
  const std::vector<int64_t> ds = reduced_dims(self.dim(), dims);
  const Tensor centered = self - ember::mean(self, OptionalIntArrayRef(IntArrayRef(ds)), /*keepdim=*/true);
  return g * Scalar(2.0 / dof) * centered;
}

Tensor std_backward(const Tensor& grad, const Tensor& result, const Tensor& self, OptionalIntArrayRef dims,
                    std::optional<int64_t> correction, bool keepdim) {
  const Tensor g = (grad / (result * Scalar(2))).masked_fill(ember::eq(result, Scalar(0)), Scalar(0));
  return var_backward(g, self, dims, correction, keepdim);
}

// Note [norm gradients]
// d ||x||_p / d x = sign(x) |x|^(p-1) / ||x||^(p-1), with PyTorch 1.13's conventions where that is not
// defined: p = 0 has no gradient (undefined, as PyTorch's None); p = 1 gives sign(x) (0 at 0); p = 2 gives
// x / ||x||, 0 for a zero norm; p = +-inf splits the gradient evenly among the elements whose |x| is the
// norm (or NaN), with their sign; 0 < p < 1 and p < 0 give 0 where x is 0; 1 < p gives 0 for a zero norm.
Tensor norm_backward(const Tensor& grad, const Tensor& self, const Scalar& ord, const Tensor& result,
                     OptionalIntArrayRef dims, bool keepdim) {
  const double p = ord.to_double();
  if (p == 0.0) return Tensor();
  const Tensor g = unsqueeze_reduced(grad, self.dim(), dims, keepdim);
  const Tensor norm = unsqueeze_reduced(result, self.dim(), dims, keepdim);
  if (p == 1.0) return sign_of(self) * g;
  if (p == 2.0) return g * (self / norm).masked_fill(ember::eq(norm, Scalar(0)), Scalar(0));
  const Tensor a = ember::abs(self);
  if (std::isinf(p)) {
    const Tensor mask = ember::logical_or(ember::eq(a, norm), ember::isnan(a));
    return sign_of(self) * (g / count_per_slice(mask, dims) * mask);
  }
  if (p < 1.0) {
    const Tensor scaled = sign_of(self) * ember::pow(a, Scalar(p - 1));  // inf * 0 at x = 0: masked
    return scaled.masked_fill(ember::eq(self, Scalar(0)), Scalar(0)) * g * ember::pow(norm, Scalar(1 - p));
  }
  const Tensor scaled = p < 2.0 ? sign_of(self) * ember::pow(a, Scalar(p - 1)) : self * ember::pow(a, Scalar(p - 2));
  return scaled * (g / ember::pow(norm, Scalar(p - 1))).masked_fill(ember::eq(norm, Scalar(0)), Scalar(0));
}

Tensor logsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dims,
                          bool keepdim) {
  const Tensor g = unsqueeze_reduced(grad, self.dim(), dims, keepdim);
  return g * ember::exp(self - unsqueeze_reduced(result, self.dim(), dims, keepdim));
}

Tensor cumsum_backward(const Tensor& grad, int64_t dim) {
  if (grad.dim() == 0) return grad;
  return reverse_cumsum(grad, wrap_dim(dim, grad.dim()));
}

std::tuple<Tensor, Tensor> scatter_reduce_backward(const Tensor& grad, const Tensor& self, int64_t dim,
                                                   const Tensor& index, const Tensor& src, std::string_view reduce,
                                                   bool include_self, const Tensor& result) {
  Tensor grad_self, grad_src;
  if (reduce == "sum") {
    grad_self = grad;
    grad_src = grad.gather(dim, index);
  } else if (reduce == "prod") {
    // The product without each zero factor, so a single zero passes the product of the others.
    const Tensor masked_self = self.masked_fill(ember::eq(self, Scalar(0)), Scalar(1));
    const Tensor masked_self_result = masked_self.scatter_reduce(dim, index, src, reduce, include_self);
    grad_self = grad * masked_self_result / masked_self;
    const Tensor src_zero = ember::eq(src, Scalar(0));
    const Tensor src_num_zeros =
        ember::zeros_like(self).scatter_add(dim, index, src_zero.to(self.dtype())).gather(dim, index);
    const Tensor src_single_zero = ember::logical_and(src_zero, ember::eq(src_num_zeros, Scalar(1)));
    const Tensor masked_src = src.masked_fill(src_single_zero, Scalar(1));
    const Tensor masked_src_result = self.scatter_reduce(dim, index, masked_src, reduce, include_self);
    grad_src = ember::where(src_single_zero, (grad * masked_src_result).gather(dim, index),
                            (grad * result).gather(dim, index) / src.masked_fill(src_zero, Scalar(1)));
  } else if (reduce == "mean") {
    Tensor n = include_self ? ember::ones_like(grad) : ember::zeros_like(grad);
    n = n.scatter_add(dim, index, ember::ones_like(src));
    n = n.masked_fill(ember::eq(n, Scalar(0)), Scalar(1));
    grad_self = grad / n;
    grad_src = grad.gather(dim, index) / n.gather(dim, index);
  } else {  // amax, amin
    const Tensor value = result.gather(dim, index);
    const Tensor self_is_result = ember::eq(self, result).to(self.dtype());
    const Tensor src_is_result = ember::eq(src, value).to(self.dtype());
    const Tensor n_to_distribute = self_is_result.scatter_add(dim, index, src_is_result);
    const Tensor grad_distributed = grad / n_to_distribute;
    grad_self = self_is_result * grad_distributed;
    grad_src = src_is_result * grad_distributed.gather(dim, index);
  }
  if (!include_self) grad_self = grad_self.scatter(dim, index, Scalar(0));
  return {grad_self, grad_src};
}

Tensor logcumsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim) {
  if (grad.dim() == 0 || grad.numel() == 0) return grad;
  const int64_t d = wrap_dim(dim, grad.dim());
  auto reverse_logcumsumexp = [d](const Tensor& x) {
    return ember::flip(ember::logcumsumexp(ember::flip(x, IntArrayRef(&d, 1)), d), IntArrayRef(&d, 1));
  };
  const double lowest_value = grad.dtype() == kFloat64 ? std::numeric_limits<double>::lowest()
                                                       : static_cast<double>(std::numeric_limits<float>::lowest());
  const Tensor lowest = ember::scalar_tensor(Scalar(lowest_value), grad.dtype());
  const Tensor log_abs_grad = grad.abs().log();
  const Tensor log_grad_positive = ember::where(ember::gt(grad, Scalar(0)), log_abs_grad, lowest);
  const Tensor log_grad_negative = ember::where(ember::lt(grad, Scalar(0)), log_abs_grad, lowest);
  const Tensor output_pos = (reverse_logcumsumexp(log_grad_positive - result) + self).exp();
  const Tensor output_neg = (reverse_logcumsumexp(log_grad_negative - result) + self).exp();
  return output_pos - output_neg;
}

namespace {

// Note [prod and cumprod with zeros]; x, g and out = cumprod(x, dim) of one dtype.
Tensor cumprod_grad(const Tensor& x, const Tensor& g, int64_t dim, const Tensor& out) {
  const Tensor zero = ember::eq(x, Scalar(0));
  if (!ember::any(zero).item<bool>()) return reverse_cumsum(g * out, dim) / x;
  const Tensor zeros_so_far = zero.cumsum(dim);
  const Tensor before = ember::eq(zeros_so_far, Scalar(0));
  const Tensor first = ember::logical_and(zero, ember::eq(zeros_so_far, Scalar(1)));
  const Tensor y = x.masked_fill(first, Scalar(1));
  const Tensor y_out = y.cumprod(dim);
  // Divides only where x != 0 (1 elsewhere), so the unused entries carry no inf into a double backward.
  const Tensor at_before = reverse_cumsum(g * out, dim) / x.masked_fill(ember::logical_not(before), Scalar(1));
  const Tensor at_first = reverse_cumsum(g * y_out, dim);
  const Tensor x_first = ember::sum(x.masked_fill(ember::logical_not(first), Scalar(0)),
                                    OptionalIntArrayRef(IntArrayRef{dim}), /*keepdim=*/true);
  const Tensor after = x_first * cumprod_grad(y, g, dim, y_out);
  return ember::where(before, at_before, ember::where(first, at_first, after));
}

}  // namespace

Tensor cumprod_backward(const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& result) {
  if (self.dim() == 0 || self.numel() == 0) return grad;
  // grad comes in self's dtype (PyTorch's convention); a cumprod with dtype= has a result in another.
  const Tensor out = result.dtype() == grad.dtype() ? result : result.to(grad.dtype());
  return cumprod_grad(self, grad, wrap_dim(dim, self.dim()), out);
}

// ---------------------------------------------------------------------------------------------- indexing
// Note [differentiable scatter-into-zeros]
// Several gradients are "zeros of the input's sizes with grad written into a part" (index_select, gather,
// index, masked_select, ...). Writing through a view of a fresh tensor under NoGradGuard would cut the graph
// and a double backward (create_graph=True) would lose the gradient, so they are written with ops whose own
// derivative exists: index_add, scatter_add, index_put. (select and slice have backward ops of their own,
// Note [view backward ops].)

Tensor index_select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, const Tensor& index) {
  if (sizes.empty()) return grad.reshape(sizes);  // 0-dim self: index selects the element itself
  return ember::zeros(sizes, grad.dtype()).index_add(dim, index, grad);
}

Tensor scatter_src_backward(const Tensor& grad, int64_t dim, const Tensor& index, IntArrayRef src_sizes) {
  const Tensor g = grad.gather(dim, index);
  if (same_sizes(g.sizes(), src_sizes) || g.dim() != static_cast<int64_t>(src_sizes.size())) return g;
  std::vector<int64_t> pad;  // zeros after the gathered part in every dim (Note [pad layout])
  for (int64_t d = g.dim() - 1; d >= 0; --d) {
    pad.push_back(0);
    pad.push_back(src_sizes[d] - g.size(d));
  }
  if (g.numel() == 0) return ember::zeros(src_sizes, g.dtype());
  return ember::constant_pad_nd(g, pad);
}

Tensor index_add_source_backward(const Tensor& grad, int64_t dim, const Tensor& index, IntArrayRef source_sizes,
                                 const Scalar& alpha) {
  Tensor g = grad.dim() == 0 ? grad : grad.index_select(dim, index.reshape({-1}));
  if (source_sizes.empty()) g = g.reshape({});
  return alpha.to_double() == 1.0 ? g : g * alpha;
}

Tensor masked_select_backward(const Tensor& grad, IntArrayRef self_sizes, const Tensor& mask) {
  const DimVector shape = broadcast_shapes(self_sizes, mask.sizes());
  return ember::zeros(shape, grad.dtype()).index_put({mask.expand(shape)}, grad, /*accumulate=*/false);
}

// ---------------------------------------------------------------------------------------------- shape

Tensor constant_pad_nd_backward(const Tensor& grad, IntArrayRef pad) {
  std::vector<int64_t> crop(pad.begin(), pad.end());
  for (int64_t& p : crop) p = -p;
  return ember::constant_pad_nd(grad, crop);
}

Tensor repeat_backward(const Tensor& grad, IntArrayRef repeats, IntArrayRef sizes) {
  const int64_t n = static_cast<int64_t>(repeats.size());
  if (n == 0) return grad;
  const int64_t lead = n - static_cast<int64_t>(sizes.size());
  // grad's dim i holds repeats[i] tiles of the (1-padded) input size: split it as (tile, size), sum the tiles.
  std::vector<int64_t> split, tiles;
  for (int64_t i = 0; i < n; ++i) {
    split.push_back(repeats[i]);
    split.push_back(i < lead ? 1 : sizes[i - lead]);
    tiles.push_back(2 * i);
  }
  return ember::sum(grad.reshape(split), OptionalIntArrayRef(IntArrayRef(tiles)), false).reshape(sizes);
}

Tensor split_backward(const std::vector<Tensor>& grads, int64_t dim, IntArrayRef sizes) {
  // cat skips 1-D empty tensors (legacy), so an empty self (all pieces empty) gets its zeros directly.
  if (std::find(sizes.begin(), sizes.end(), 0) != sizes.end()) return ember::zeros(sizes, grads[0].dtype());
  return ember::cat(grads, dim);
}

variable_list stack_backward(const Tensor& grad, size_t n, int64_t dim) {
  dim = wrap_dim(dim, grad.dim());
  variable_list r;
  r.reserve(n);
  for (size_t i = 0; i < n; ++i) r.push_back(grad.select(dim, static_cast<int64_t>(i)));
  return r;
}

Tensor pad_backward(const Tensor& grad, IntArrayRef sizes, IntArrayRef pad, PadMode mode) {
  // The pads are separable: along each padded dim, output position o copies input position map(o). The
  // gradient goes back one dim at a time, each output slice added to the input slice it copies.
  const int64_t ndim = static_cast<int64_t>(sizes.size());
  Tensor g = grad;
  for (int64_t i = 0; i < static_cast<int64_t>(pad.size() / 2); ++i) {
    const int64_t d = ndim - 1 - i, in = sizes[d], left = pad[2 * i], right = pad[2 * i + 1];
    Tensor map;
    if (mode == PadMode::Circular) {
      // Wraps around within the middle that negative pads leave, as the forward does.
      const int64_t crop_left = std::max<int64_t>(-left, 0), crop_right = std::max<int64_t>(-right, 0);
      const int64_t pad_left = std::max<int64_t>(left, 0);
      const Tensor k = ember::arange(Scalar(-pad_left), Scalar(g.size(d) - pad_left), Scalar(1), DType::Int64);
      map = ember::remainder(k, Scalar(in - crop_left - crop_right)) + Scalar(crop_left);
    } else {
      const Tensor j = ember::arange(Scalar(-left), Scalar(g.size(d) - left), Scalar(1), DType::Int64);
      map = mode == PadMode::Reflection
                ? ember::abs(ember::abs(j) - Scalar(in - 1)).neg() + Scalar(in - 1)  // about 0 and about in - 1
                : ember::clamp(j, std::optional<Scalar>(0), std::optional<Scalar>(in - 1));
    }
    DimVector s(g.sizes());
    s[d] = in;
    g = ember::zeros(s, g.dtype()).index_add(d, map, g);
  }
  return g;
}

// Note [complex gradients]
// As PyTorch: the gradient of a real loss L with respect to a complex input z is the conjugate Wirtinger
// derivative dL/dz* (times 2 folded into the convention: for L = |z|^2 the gradient is 2z), so a backward
// formula multiplies the incoming gradient by the conjugate of the holomorphic derivative (grad * f'(z).conj()),
// and a real input fed into a complex op receives the real part (the node's dtype cast, Note [gradient shape
// and dtype]). conj() is self for real tensors, so the formulas serve both.

Tensor sgn_backward(const Tensor& self, const Tensor& grad, const Tensor& result) {
  if (!self.is_complex()) return ember::zeros_like(grad);
  // https://arxiv.org/pdf/1701.00392.pdf Section 4.20 (PyTorch's sgn_backward):
  // (grad - real(grad * conj(sgn)) sgn) / |z|.
  const Tensor a = ember::abs(self);
  const Tensor g = (grad - ember::real(grad * result.conj()) * result) / a;
  return ember::where(ember::eq(a, Scalar(0)), ember::zeros_like(g), g);
}

Tensor angle_backward(const Tensor& grad, const Tensor& self) {
  if (!self.is_complex()) return ember::zeros_like(self, grad.dtype());
  // d angle = Im(dz / z): the gradient is grad * i z / |z|^2 (PyTorch's angle_backward), 0 at z = 0.
  const Tensor g = grad * self / ember::abs(self).pow(2) * Scalar(std::complex<double>(0.0, 1.0));
  return ember::where(ember::eq(self, Scalar(0)), ember::zeros_like(g), g);
}

}  // namespace ember::autograd::detail

namespace ember::autograd::detail {

Tensor grad_not_implemented(const Tensor& /*grad*/, std::string_view what, bool not_implemented_error) {
  if (not_implemented_error)
    EMBER_FAIL_KIND(ErrorKind::NotImplemented, "the derivative for '{}' is not implemented.", what);
  EMBER_FAIL("derivative for {} is not implemented", what);
}

Tensor copysign_self_backward(const Tensor& grad, const Tensor& self, const Tensor& result) {
  return grad * ember::masked_fill(result / self, self == Scalar(0), Scalar(0));
}

Tensor mvlgamma_backward(const Tensor& grad, const Tensor& self, int64_t p) {
  Tensor s = ember::digamma(self);
  for (int64_t j = 1; j < p; ++j) s = s + ember::digamma(self - Scalar(0.5 * static_cast<double>(j)));
  return grad * s;
}

Tensor logit_backward(const Tensor& grad, const Tensor& self, std::optional<double> eps) {
  Tensor g = grad / (self * (Scalar(1) - self));
  if (eps && *eps >= 0)
    return ember::masked_fill(g, ember::logical_or(self < Scalar(*eps), self > Scalar(1 - *eps)), Scalar(0));
  return ember::masked_fill(g, ember::logical_or(self < Scalar(0), self > Scalar(1)), Scalar(NAN));
}

Tensor sinc_backward(const Tensor& grad, const Tensor& self) {
  Tensor px = self * Scalar(M_PI);
  Tensor d = (px * ember::cos(px) - ember::sin(px)) / (px * self);
  return grad * ember::masked_fill(d, self == Scalar(0), Scalar(0));
}

namespace {
// self with its (near) zeros replaced by eps, the mask of those that are not, and eps (the dtype's epsilon)
std::tuple<Tensor, Tensor> safe_nonzero(const Tensor& self) {
  const double eps = self.dtype() == kFloat64 ? 2.220446049250313e-16 : 1.1920928955078125e-07;
  Tensor not_tiny = ember::abs(self) > Scalar(eps);
  return {ember::where(not_tiny, self, ember::full_like(self, Scalar(eps))), not_tiny};
}
}  // namespace

Tensor special_i1_backward(const Tensor& grad, const Tensor& self, const Tensor& result) {
  auto [safe, not_tiny] = safe_nonzero(self);
  Tensor gx = ember::i0(safe) - result / safe;
  return grad * ember::where(not_tiny, gx, ember::full_like(gx, Scalar(0.5)));
}

Tensor special_i1e_backward(const Tensor& grad, const Tensor& self, const Tensor& result) {
  auto [safe, not_tiny] = safe_nonzero(self);
  Tensor gx = ember::special_i0e(safe) - result * (ember::sgn(safe) + ember::reciprocal(safe));
  return grad * ember::where(not_tiny, gx, ember::full_like(gx, Scalar(0.5)));
}

}  // namespace ember::autograd::detail
