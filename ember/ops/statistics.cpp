// Distances, statistics and numerical integration written with other ops (ops_linalg.yaml): dist, cdist, pdist,
// cov, corrcoef, renorm, cross, vander, combinations, trapezoid. Each follows PyTorch 1.13's composite of the
// same name (aten/src/ATen/native), so results, dtypes and errors match and the derivatives come from the ops
// called.
#include <cmath>
#include <vector>

#include "ember/ops/Operators.h"
#include "ember/ops/generated/CompositeKernels.h"
#include "ember/ops/linalg.h"
#include "ember/ops/out.h"
#include "ember/ops/shape.h"

namespace ember::composite {

Tensor dist(const Tensor& self, const Tensor& other, const Scalar& p) {
  return ember::linalg_vector_norm(self - other, p);
}

namespace {

void check_cdist_input(const char* name, const char* which, const Tensor& x) {
  EMBER_CHECK(is_floating_point(x.dtype()), "{} only supports floating-point dtypes, {} got: {}", name, which,
              linalg::scalar_type_name(x.dtype()));
}

bool narrow_float(DType d) { return d == kFloat16 || d == kBFloat16; }

// Note [cdist forms]
// p = 2 may use PyTorch's matrix-product form: |a - b|^2 = -2 a.b + |a|^2 + |b|^2 as one matmul of padded
// operands, clamped at 0 before the square root (fast, less exact); compute_mode None uses it when either
// operand has more than 25 rows, 1 always, 2 never. Otherwise the norm of the broadcast differences.
Tensor euclidean_by_matmul(const Tensor& x1, const Tensor& x2) {
  const Tensor x1_norm = x1.pow(Scalar(2)).sum({-1}, true), x2_norm = x2.pow(Scalar(2)).sum({-1}, true);
  const Tensor x1_ = ember::cat({x1.mul(Scalar(-2)), x1_norm, ember::ones_like(x1_norm)}, -1);
  const Tensor x2_ = ember::cat({x2, ember::ones_like(x2_norm), x2_norm}, -1);
  return ember::matmul(x1_, x2_.transpose(-2, -1)).clamp_min(Scalar(0)).sqrt();
}

}  // namespace

Tensor cdist(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  EMBER_CHECK(x1.dim() >= 2, "cdist only supports at least 2D tensors, X1 got: {}D", x1.dim());
  EMBER_CHECK(x2.dim() >= 2, "cdist only supports at least 2D tensors, X2 got: {}D", x2.dim());
  EMBER_CHECK(x1.size(-1) == x2.size(-1), "X1 and X2 must have the same number of columns. X1: {} X2: {}",
              x1.size(-1), x2.size(-1));
  check_cdist_input("cdist", "X1", x1);
  check_cdist_input("cdist", "X2", x2);
  EMBER_CHECK(p >= 0, "cdist only supports non-negative p values");
  const int64_t mode = compute_mode.value_or(0);
  EMBER_CHECK_VALUE(mode >= 0 && mode <= 2, "{} is not a valid value for compute_mode", mode);
  EMBER_CHECK(x1.dtype() == x2.dtype(), "cdist: expected scalar type {} but found {}",
              linalg::scalar_type_name(x1.dtype()), linalg::scalar_type_name(x2.dtype()));
  if (narrow_float(x1.dtype()))  // float16/bfloat16 computed as float32, then rounded
    return composite::cdist(x1.to(kFloat32), x2.to(kFloat32), p, compute_mode).to(x1.dtype());
  const int64_t r1 = x1.size(-2), r2 = x2.size(-2);
  DimVector batch = broadcast_shapes(IntArrayRef(x1.sizes().data(), static_cast<size_t>(x1.dim() - 2)),
                                     IntArrayRef(x2.sizes().data(), static_cast<size_t>(x2.dim() - 2)));
  DimVector out_sizes = batch;
  out_sizes.push_back(r1);
  out_sizes.push_back(r2);
  if (x1.size(-1) == 0 || r1 == 0 || r2 == 0) return ember::zeros(out_sizes, promote_types(x1.dtype(), x2.dtype()));
  const bool by_matmul = p == 2 && (mode == 1 || (mode == 0 && (r1 > 25 || r2 > 25)));
  if (by_matmul) return euclidean_by_matmul(x1, x2).expand(out_sizes).contiguous();
  return ember::linalg_vector_norm(x1.unsqueeze(-2) - x2.unsqueeze(-3), Scalar(p), IntArrayRef({-1}), false);
}

Tensor pdist(const Tensor& self, double p) {
  EMBER_CHECK(self.dim() == 2, "pdist only supports 2D tensors, got: {}D", self.dim());
  check_cdist_input("pdist", "input", self);
  EMBER_CHECK(p >= 0, "pdist only supports non-negative p values");
  if (narrow_float(self.dtype())) return composite::pdist(self.to(kFloat32), p).to(self.dtype());
  const int64_t n = self.size(0);
  if (n <= 1) return ember::empty({0}, self.dtype());
  const Tensor pairs = ember::triu_indices(n, n, 1);
  const Tensor a = self.index_select(0, pairs.select(0, 0)), b = self.index_select(0, pairs.select(0, 1));
  if (self.size(1) == 0) return ember::zeros({pairs.size(1)}, self.dtype());
  return ember::linalg_vector_norm(a - b, Scalar(p), IntArrayRef({-1}), false);
}

Tensor cov(const Tensor& self, int64_t correction, const std::optional<Tensor>& fweights,
           const std::optional<Tensor>& aweights) {
  EMBER_CHECK(self.dim() <= 2, "cov(): expected input to have two or fewer dimensions but got an input with {} "
              "dimensions", self.dim());
  EMBER_CHECK(self.dtype() != kBool, "cov(): bool dtype is not supported for input");
  Tensor in = self.dim() < 2 ? self.view({1, -1}) : self;
  const int64_t observations = in.size(1);
  Tensor w;
  if (fweights) {
    w = *fweights;
    EMBER_CHECK(w.dim() <= 1, "cov(): expected fweights to have one or fewer dimensions but got fweights with {} "
                "dimensions", w.dim());
    EMBER_CHECK(is_integral(w.dtype(), false),
                "cov(): expected fweights to have integral dtype but got fweights with {} "
                "dtype", linalg::scalar_type_name(w.dtype()));
    EMBER_CHECK(w.numel() == observations, "cov(): expected fweights to have the same numel as there are "
                "observations in the input but got {} != {}", w.numel(), observations);
    EMBER_CHECK(observations == 0 || w.min().ge(Scalar(0)).item<bool>(), "cov(): fweights cannot be negative");
  }
  if (aweights) {
    const Tensor& aw = *aweights;
    EMBER_CHECK(aw.dim() <= 1, "cov(): expected aweights to have one or fewer dimensions but got aweights with {} "
                "dimensions", aw.dim());
    EMBER_CHECK(is_floating_point(aw.dtype()), "cov(): expected aweights to have floating point dtype but got aweights "
                "with {} dtype", linalg::scalar_type_name(aw.dtype()));
    EMBER_CHECK(aw.numel() == observations, "cov(): expected aweights to have the same numel as there are "
                "observations in the input but got {} != {}", aw.numel(), observations);
    EMBER_CHECK(observations == 0 || aw.min().ge(Scalar(0)).item<bool>(), "cov(): aweights cannot be negative");
    w = w.defined() ? w * aw : aw;
  }
  const Tensor w_sum = w.defined() ? w.sum() : ember::scalar_tensor(Scalar(observations), kInt64);
  EMBER_CHECK(!w.defined() || w_sum.ne(Scalar(0)).item<bool>(), "cov(): weights sum to zero, can't be normalized");
  const Tensor avg = (w.defined() ? in * w : in).sum({1}) / w_sum;
  Tensor norm_factor = w.defined() && aweights && correction != 0
                           ? w_sum - (w * *aweights).sum() * Scalar(correction) / w_sum
                           : w_sum - Scalar(correction);
  if (norm_factor.le(Scalar(0)).item<bool>()) norm_factor = ember::zeros_like(norm_factor);
  in = in - avg.unsqueeze(1);
  const Tensor c = ember::mm(in, (w.defined() ? in * w : in).t());
  return ember::true_divide(c, norm_factor).squeeze();
}

Tensor corrcoef(const Tensor& self) {
  EMBER_CHECK(self.dim() <= 2, "corrcoef(): expected input to have two or fewer dimensions but got an input with {} "
              "dimensions", self.dim());
  Tensor c = composite::cov(self, 1, std::nullopt, std::nullopt);
  if (c.dim() == 0) return c / c;  // NaN for a covariance of NaN, inf or 0, else 1
  const Tensor stddev = ember::sqrt(c.diag());
  c = c / stddev.view({-1, 1});
  c = c / stddev.view({1, -1});
  return ember::clip(c, Scalar(-1), Scalar(1));
}

Tensor renorm(const Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm) {
  EMBER_CHECK(p.to<double>() > 0.0, "renorm: non-positive-norm not supported");
  EMBER_CHECK(is_floating_point(self.dtype()), "linalg.vector_norm: Expected a floating point or complex tensor as "
              "input. Got {}", linalg::scalar_type_name(self.dtype()));
  EMBER_CHECK(maxnorm.to<double>() >= 0.0, "renorm: expected maxnorm to be >= 0 but got {}", maxnorm.to<double>());
  EMBER_CHECK(self.dim() > 1, "renorm: input needs at least 2 dimensions, got {} dimensions", self.dim());
  const int64_t d = checked_dim("renorm", dim, self.dim());
  DimVector others;
  for (int64_t i = 0; i < self.dim(); ++i)
    if (i != d) others.push_back(i);
  const DType acc = self.dtype() == kFloat64 ? kFloat64 : kFloat32;
  const Tensor norm = ember::linalg_vector_norm(self, p, others, true, acc);
  const Tensor factor = ember::where(ember::gt(norm, maxnorm), ember::true_divide(ember::full_like(norm, maxnorm),
                                                                                  norm + Scalar(1e-7)),
                                     ember::ones_like(norm));
  return self * factor.to(self.dtype());
}
Tensor renorm_(const Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm) {
  return self.copy_(composite::renorm(self, p, dim, maxnorm));
}
Tensor renorm_out(const Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm, const Tensor& out) {
  return write_out_same_dtype("renorm", out, composite::renorm(self, p, dim, maxnorm));
}

Tensor linalg_cross(const Tensor& self, const Tensor& other, int64_t dim) {
  EMBER_CHECK(self.dim() == other.dim(), "linalg.cross: inputs must have the same number of dimensions.");
  EMBER_CHECK(self.dtype() != kBool && other.dtype() != kBool, "\"cross\" not implemented for 'Bool'");
  EMBER_CHECK(self.dtype() == other.dtype(), "linalg.cross: expected scalar type {} but found {}",
              linalg::scalar_type_name(self.dtype()), linalg::scalar_type_name(other.dtype()));
  const int64_t d = checked_dim("linalg.cross", dim, self.dim());
  EMBER_CHECK(self.size(d) == 3 && other.size(d) == 3, "linalg.cross: inputs dimension {} must have length 3. Got {} "
              "and {}", d, self.size(d), other.size(d));
  const DimVector shape = broadcast_shapes(self.sizes(), other.sizes());
  const Tensor a = self.expand(shape), b = other.expand(shape);
  auto at = [d](const Tensor& t, int64_t i) { return t.select(d, i); };
  return ember::stack({at(a, 1) * at(b, 2) - at(a, 2) * at(b, 1), at(a, 2) * at(b, 0) - at(a, 0) * at(b, 2),
                       at(a, 0) * at(b, 1) - at(a, 1) * at(b, 0)},
                      d);
}
Tensor linalg_cross_out(const Tensor& self, const Tensor& other, int64_t dim, const Tensor& out) {
  return write_out_same_dtype("linalg.cross", out, composite::linalg_cross(self, other, dim));
}
Tensor cross(const Tensor& self, const Tensor& other, std::optional<int64_t> dim) {
  int64_t d = -1;
  if (dim) {
    d = *dim;
  } else {
    for (int64_t i = 0; i < self.dim() && d < 0; ++i)
      if (self.size(i) == 3) d = i;
    EMBER_CHECK(d >= 0, "no dimension of size 3 in input");
  }
  return composite::linalg_cross(self, other, d);
}
Tensor cross_out(const Tensor& self, const Tensor& other, std::optional<int64_t> dim, const Tensor& out) {
  return write_out_same_dtype("cross", out, composite::cross(self, other, dim));
}

Tensor vander(const Tensor& x, std::optional<int64_t> N, bool increasing) {
  EMBER_CHECK(x.dim() == 1, "x must be a one-dimensional tensor.");
  int64_t n = x.size(0);
  if (N) {
    n = *N;
    EMBER_CHECK(n >= 0, "N must be non-negative.");
  }
  const DType dt = promote_types(x.dtype(), kInt64);
  Tensor result;
  if (n == 0) {
    result = ember::empty({x.size(0), 0}, dt);
  } else {
    const Tensor ones = ember::ones({x.size(0), 1}, dt);
    result = n == 1 ? ones
                    : ember::cat({ones, ember::cumprod(x.to(dt).unsqueeze(1).expand({x.size(0), n - 1}), 1)}, 1);
  }
  return increasing ? result : ember::flip(result, IntArrayRef({1}));
}

// The index tuples in itertools order (lexicographic: the row-major order of PyTorch's masked meshgrid), then
// one index_select.
Tensor combinations(const Tensor& self, int64_t r, bool with_replacement) {
  EMBER_CHECK(self.dim() == 1, "Expect a 1D vector, but got shape {}", self.sizes());
  EMBER_CHECK(r >= 0, "Expect a non-negative number, but got {}", r);
  if (r == 0) return ember::empty({0}, self.dtype());
  const int64_t n = self.numel();
  std::vector<int64_t> flat;
  // The next tuple after cur: the rightmost position that can still grow grows, the later ones restart from it.
  const int64_t room = with_replacement ? 0 : 1;  // how much each position exceeds the one before
  if (n > 0 && (with_replacement || r <= n)) {
    std::vector<int64_t> cur(static_cast<size_t>(r));
    for (int64_t i = 0; i < r; ++i) cur[i] = room * i;
    while (true) {
      flat.insert(flat.end(), cur.begin(), cur.end());
      int64_t i = r - 1;
      while (i >= 0 && cur[i] >= (with_replacement ? n - 1 : n - r + i)) --i;
      if (i < 0) break;
      ++cur[i];
      for (int64_t j = i + 1; j < r; ++j) cur[j] = cur[j - 1] + room;
    }
  }
  const int64_t count = static_cast<int64_t>(flat.size()) / r;
  const Tensor idx = ember::tensor(flat, kInt64);
  return self.index_select(0, idx).view({count, r});
}

namespace {

DimVector sizes_without(const Tensor& y, int64_t d) {
  DimVector sizes(y.sizes().begin(), y.sizes().end());
  sizes.erase(sizes.begin() + d);
  return sizes;
}

// x (1-D along dim d, or fewer dims padded with leading 1s, or y's rank) as differences dx along d.
Tensor sample_spacing(const char* name, const Tensor& y, const Tensor& x, int64_t d) {
  Tensor x_viewed;
  if (x.dim() == 1) {
    EMBER_CHECK(x.size(0) == y.size(d), "{}: There must be one `x` value for each sample point", name);
    DimVector new_sizes(static_cast<size_t>(y.dim()), 1);
    new_sizes[d] = x.size(0);
    x_viewed = x.view(new_sizes);
  } else if (x.dim() < y.dim()) {
    DimVector new_sizes(static_cast<size_t>(y.dim() - x.dim()), 1);
    for (int64_t v : x.sizes()) new_sizes.push_back(v);
    x_viewed = x.view(new_sizes);
  } else {
    x_viewed = x;
  }
  return x_viewed.slice(d, 1) - x_viewed.slice(d, 0, -1);
}

}  // namespace

Tensor trapezoid_x(const Tensor& y, const Tensor& x, int64_t dim) {
  if (narrow_float(y.dtype()) && x.dtype() == y.dtype())  // computed as float32, then rounded
    return composite::trapezoid_x(y.to(kFloat32), x.to(kFloat32), dim).to(y.dtype());
  const int64_t d = checked_dim("trapezoid", dim, y.dim());
  if (y.size(d) == 0) return ember::zeros(sizes_without(y, d), y.dtype());
  EMBER_CHECK(y.dtype() != kBool && x.dtype() != kBool, "trapezoid: received a bool input for `x` or `y`, but bool "
              "is not supported");
  const Tensor dx = sample_spacing("trapezoid", y, x, d);
  return ((dx * (y.slice(d, 0, -1) + y.slice(d, 1))) / Scalar(2.0)).sum({d});
}
Tensor trapezoid_dx(const Tensor& y, const Scalar& dx, int64_t dim) {
  const int64_t d = checked_dim("trapezoid", dim, y.dim());
  if (y.size(d) == 0) return ember::zeros(sizes_without(y, d), y.dtype());
  EMBER_CHECK(y.dtype() != kBool, "trapezoid: received a bool input for `y`, but bool is not supported");
  EMBER_CHECK(!dx.isBoolean(), "trapezoid: Currently, we only support dx as a real number.");
  return (y.sum({d}) - (y.select(d, 0) + y.select(d, -1)) * Scalar(0.5)) * Scalar(dx.to<double>());
}
Tensor trapz_x(const Tensor& y, const Tensor& x, int64_t dim) { return composite::trapezoid_x(y, x, dim); }
Tensor trapz_dx(const Tensor& y, double dx, int64_t dim) { return composite::trapezoid_dx(y, Scalar(dx), dim); }

Tensor cumulative_trapezoid_x(const Tensor& y, const Tensor& x, int64_t dim) {
  if (narrow_float(y.dtype()) && x.dtype() == y.dtype())  // computed as float32, then rounded
    return composite::cumulative_trapezoid_x(y.to(kFloat32), x.to(kFloat32), dim).to(y.dtype());
  const int64_t d = checked_dim("cumulative_trapezoid", dim, y.dim());
  EMBER_CHECK(y.dtype() != kBool && x.dtype() != kBool, "cumulative_trapezoid: received a bool input for `x` or `y`, "
              "but bool is not supported");
  const Tensor dx = sample_spacing("cumulative_trapezoid", y, x, d);
  return ((dx * (y.slice(d, 0, -1) + y.slice(d, 1))) / Scalar(2.0)).cumsum(d);
}
Tensor cumulative_trapezoid_dx(const Tensor& y, const Scalar& dx, int64_t dim) {
  EMBER_CHECK(y.dtype() != kBool, "cumulative_trapezoid: received a bool input for `y`, but bool is not supported");
  EMBER_CHECK(!dx.isBoolean(), "cumulative_trapezoid: Currently, we only support dx as a real number.");
  const int64_t d = checked_dim("cumulative_trapezoid", dim, y.dim());
  return ((y.slice(d, 0, -1) + y.slice(d, 1)) * Scalar(dx.to<double>() / 2.0)).cumsum(d);
}

}  // namespace ember::composite

// Note [einsum]
// The equation is parsed into one list of labels per operand (letters; the dims an ellipsis covers get labels of
// their own, aligned from the right, so they broadcast). Each operand first takes the diagonal of a repeated
// label and sums the labels no one else needs; then the operands are contracted left to right: labels both
// share and still needed (by the output or a later operand) are batch dims, shared labels no longer needed are
// summed by the product, the rest are the rows and columns of one bmm. Size-1 dims broadcast against the other
// operand's size. The result is permuted into the output's order. The implicit output (no '->') is the
// ellipsis dims, then the labels used once, in ASCII order, as PyTorch.
namespace ember::composite {

namespace {

constexpr int kEllipsisLabel = 128;  // labels: ASCII letters; kEllipsisLabel + i for the i-th ellipsis dim

struct Term {
  std::vector<int> labels;
  bool has_ellipsis = false;
  int64_t ellipsis_at = 0;  // position of the ellipsis among the letters
};

Term parse_term(std::string_view text, int64_t operand) {
  Term t;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.') {
      EMBER_CHECK(!t.has_ellipsis && text.substr(i, 3) == "...", "einsum(): found '.' for operand {} that is not part "
                  "of any ellipsis", operand);
      t.has_ellipsis = true;
      t.ellipsis_at = static_cast<int64_t>(t.labels.size());
      i += 2;
    } else {
      EMBER_CHECK((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'), "einsum(): invalid subscript given at index {} in "
                  "the equation string, subscripts must be in [a-zA-Z]", i);
      t.labels.push_back(static_cast<unsigned char>(c));
    }
  }
  return t;
}

struct Operand {
  Tensor t;
  std::vector<int> labels;  // one per dim, all distinct
};

// Sums the dims of x whose labels are not in `needed`.
void sum_unneeded(Operand& x, const std::vector<bool>& needed) {
  DimVector dims;
  std::vector<int> kept;
  for (size_t i = 0; i < x.labels.size(); ++i) {
    if (needed[x.labels[i]]) kept.push_back(x.labels[i]);
    else dims.push_back(static_cast<int64_t>(i));
  }
  if (!dims.empty()) x.t = x.t.sum(IntArrayRef(dims), false);
  x.labels = kept;
}

int64_t size_of(const Operand& x, int label) {
  for (size_t i = 0; i < x.labels.size(); ++i)
    if (x.labels[i] == label) return x.t.size(static_cast<int64_t>(i));
  return 1;
}

// x permuted to the label order `order` (every label of x, once).
Tensor arranged(const Operand& x, const std::vector<int>& order) {
  DimVector perm;
  for (int l : order)
    for (size_t i = 0; i < x.labels.size(); ++i)
      if (x.labels[i] == l) perm.push_back(static_cast<int64_t>(i));
  return x.t.permute(perm);
}

Operand contract(const Operand& a, const Operand& b, const std::vector<bool>& needed) {
  std::vector<int> batch, contracted, a_only, b_only;
  auto in = [](const std::vector<int>& v, int l) { return std::find(v.begin(), v.end(), l) != v.end(); };
  for (int l : a.labels) {
    if (!in(b.labels, l)) a_only.push_back(l);
    else if (needed[l]) batch.push_back(l);
    else contracted.push_back(l);
  }
  for (int l : b.labels)
    if (!in(a.labels, l)) b_only.push_back(l);
  // a label's size: one operand's where the other lacks it or has size 1 (broadcast)
  auto sizes_for = [&](const std::vector<int>& labels) {
    DimVector s;
    for (int l : labels) {
      const bool in_a = in(a.labels, l), in_b = in(b.labels, l);
      const int64_t x = size_of(a, l), y = size_of(b, l);
      s.push_back(in_a && in_b ? (x == 1 ? y : x) : in_a ? x : y);
    }
    return s;
  };
  auto product = [](const DimVector& s) {
    int64_t p = 1;
    for (int64_t v : s) p *= v;
    return p;
  };
  const DimVector bs = sizes_for(batch), ks = sizes_for(contracted), as = sizes_for(a_only), cs = sizes_for(b_only);
  for (int l : batch) {
    const int64_t x = size_of(a, l), y = size_of(b, l);
    EMBER_CHECK(x == y || x == 1 || y == 1, "einsum(): operands do not broadcast with remapped shapes: subscript {} "
                "has sizes {} and {}", static_cast<char>(l), x, y);
  }
  for (int l : contracted) {
    const int64_t x = size_of(a, l), y = size_of(b, l);
    EMBER_CHECK(x == y || x == 1 || y == 1, "einsum(): operands do not broadcast with remapped shapes: subscript {} "
                "has sizes {} and {}", static_cast<char>(l), x, y);
  }
  std::vector<int> a_order = batch, b_order = batch;
  a_order.insert(a_order.end(), a_only.begin(), a_only.end());
  a_order.insert(a_order.end(), contracted.begin(), contracted.end());
  b_order.insert(b_order.end(), contracted.begin(), contracted.end());
  b_order.insert(b_order.end(), b_only.begin(), b_only.end());
  auto joined = [](std::initializer_list<const DimVector*> parts) {
    DimVector r;
    for (const DimVector* p : parts)
      for (int64_t v : *p) r.push_back(v);
    return r;
  };
  const DimVector a_full = joined({&bs, &as, &ks}), b_full = joined({&bs, &ks, &cs});
  const Tensor a3 = arranged(a, a_order).expand(a_full).reshape({product(bs), product(as), product(ks)});
  const Tensor b3 = arranged(b, b_order).expand(b_full).reshape({product(bs), product(ks), product(cs)});
  const DimVector out_sizes = joined({&bs, &as, &cs});
  Operand r;
  r.t = ember::bmm(a3, b3).reshape(out_sizes);
  r.labels = batch;
  r.labels.insert(r.labels.end(), a_only.begin(), a_only.end());
  r.labels.insert(r.labels.end(), b_only.begin(), b_only.end());
  return r;
}

}  // namespace

Tensor einsum(std::string_view equation, TensorList tensors, OptionalIntArrayRef path) {
  (void)path;  // a contraction order hint (opt_einsum's); the left-to-right order gives the same values
  std::string eq;
  for (char c : equation)
    if (c != ' ') eq.push_back(c);
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<Term> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(parse_term(std::string_view(lhs).substr(start, comma == std::string::npos ? std::string::npos
                                                                                              : comma - start),
                               static_cast<int64_t>(terms.size())));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  EMBER_CHECK(tensors.size() > 0, "einsum(): must provide at least one operand");
  for (const Tensor& t : tensors)  // (the product is bmm's, which PyTorch 1.13 does not have for bool)
    EMBER_CHECK(t.dtype() != kBool, "einsum(): \"bmm\" not implemented for 'Bool'");
  EMBER_CHECK(terms.size() <= tensors.size(), "einsum(): more operands were provided than specified in the equation");
  EMBER_CHECK(terms.size() >= tensors.size(), "einsum(): fewer operands were provided than specified in the "
              "equation");
  // Labels of every dim (ellipsis dims aligned from the right across operands).
  int64_t ellipsis_dims = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    const int64_t letters = static_cast<int64_t>(terms[i].labels.size()), nd = tensors[i].dim();
    if (terms[i].has_ellipsis) {
      EMBER_CHECK(letters <= nd, "einsum(): the number of subscripts in the equation ({}) is more than the number of "
                  "dimensions ({}) for operand {}", letters, nd, i);
      ellipsis_dims = std::max(ellipsis_dims, nd - letters);
    } else {
      EMBER_CHECK(letters == nd, "einsum(): the number of subscripts in the equation ({}) does not match the number "
                  "of dimensions ({}) for operand {} and no ellipsis was given", letters, nd, i);
    }
  }
  std::vector<int> count(static_cast<size_t>(kEllipsisLabel + ellipsis_dims), 0);
  std::vector<Operand> ops;
  for (size_t i = 0; i < terms.size(); ++i) {
    Operand x{tensors[i], {}};
    const Term& t = terms[i];
    const int64_t covered = tensors[i].dim() - static_cast<int64_t>(t.labels.size());
    for (int64_t j = 0; j < static_cast<int64_t>(t.labels.size()); ++j) {
      if (t.has_ellipsis && j == t.ellipsis_at)
        for (int64_t e = 0; e < covered; ++e) x.labels.push_back(kEllipsisLabel + ellipsis_dims - covered + e);
      x.labels.push_back(t.labels[j]);
    }
    if (t.has_ellipsis && t.ellipsis_at == static_cast<int64_t>(t.labels.size()))
      for (int64_t e = 0; e < covered; ++e) x.labels.push_back(kEllipsisLabel + ellipsis_dims - covered + e);
    for (int l : x.labels) ++count[l];  // occurrences in the equation (the implicit output keeps the single ones)
    // A repeated label: its diagonal (moved last by diagonal()).
    for (bool again = true; again;) {
      again = false;
      for (size_t a = 0; a < x.labels.size() && !again; ++a)
        for (size_t b = a + 1; b < x.labels.size() && !again; ++b) {
          if (x.labels[a] != x.labels[b]) continue;
          EMBER_CHECK(x.t.size(a) == x.t.size(b), "einsum(): subscript {} is repeated for operand {} but the sizes "
                      "don't match, {} != {}", static_cast<char>(x.labels[a]), i, x.t.size(a), x.t.size(b));
          x.t = x.t.diagonal(0, static_cast<int64_t>(a), static_cast<int64_t>(b));
          const int l = x.labels[a];
          x.labels.erase(x.labels.begin() + static_cast<int64_t>(b));
          x.labels.erase(x.labels.begin() + static_cast<int64_t>(a));
          x.labels.push_back(l);
          again = true;
        }
    }
    ops.push_back(std::move(x));
  }
  std::vector<int> output;
  if (arrow != std::string::npos) {
    const Term out = parse_term(std::string_view(eq).substr(arrow + 2), -1);
    for (int64_t j = 0; j <= static_cast<int64_t>(out.labels.size()); ++j) {
      if (out.has_ellipsis && j == out.ellipsis_at)
        for (int64_t e = 0; e < ellipsis_dims; ++e) output.push_back(kEllipsisLabel + static_cast<int>(e));
      if (j < static_cast<int64_t>(out.labels.size())) {
        const int l = out.labels[j];
        EMBER_CHECK(count[l] > 0, "einsum(): output subscript {} does not appear in the equation for any input "
                    "operand", static_cast<char>(l));
        EMBER_CHECK(std::find(output.begin(), output.end(), l) == output.end(), "einsum(): output subscript {} appears "
                    "more than once in the output", static_cast<char>(l));
        output.push_back(l);
      }
    }
  } else {
    for (int64_t e = 0; e < ellipsis_dims; ++e) output.push_back(kEllipsisLabel + static_cast<int>(e));
    for (int l = 0; l < kEllipsisLabel; ++l)
      if (count[l] == 1) output.push_back(l);
  }
  // needed[l] while contracting operand k: l is in the output or in an operand after k.
  std::vector<bool> in_output(count.size(), false);
  for (int l : output) in_output[l] = true;
  auto needed_after = [&](size_t k) {
    std::vector<bool> needed = in_output;
    for (size_t j = k + 1; j < ops.size(); ++j)
      for (int l : ops[j].labels) needed[l] = true;
    return needed;
  };
  Operand cur = ops[0];
  {
    std::vector<bool> needed = needed_after(0);
    for (int l : ops.size() > 1 ? ops[1].labels : std::vector<int>{}) needed[l] = true;
    sum_unneeded(cur, needed);
  }
  for (size_t k = 1; k < ops.size(); ++k) {
    std::vector<bool> needed = needed_after(k);
    std::vector<bool> needed_b = needed;
    for (int l : cur.labels) needed_b[l] = true;
    Operand b = ops[k];
    sum_unneeded(b, needed_b);
    cur = contract(cur, b, needed);
  }
  sum_unneeded(cur, in_output);
  // Output labels missing from the result (size-1 broadcast dims that were summed) cannot occur: every output
  // label is in some operand and stays needed.
  return arranged(cur, output);
}

}  // namespace ember::composite
