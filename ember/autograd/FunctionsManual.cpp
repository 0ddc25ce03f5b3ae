#include "ember/autograd/FunctionsManual.h"

#include <algorithm>

#include "ember/autograd/GradMode.h"

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

// The scatter-into-zeros formulas write through a view of a fresh tensor: not yet differentiable twice.
Tensor select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t index) {
  Tensor z = ember::zeros(sizes, grad.dtype());
  NoGradGuard g;
  z.select(dim, index).copy_(grad);
  return z;
}

Tensor slice_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, std::optional<int64_t> start,
                      std::optional<int64_t> end, int64_t step) {
  Tensor z = ember::zeros(sizes, grad.dtype());
  NoGradGuard g;
  z.slice(dim, start, end, step).copy_(grad);
  return z;
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
