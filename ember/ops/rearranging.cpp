// Ops that rearrange or repeat elements, written with other ops (ops_shape.yaml: tile, roll, rot90, fliplr,
// flipud, ravel, repeat_interleave, diff) and the diagonal builders (diag_embed, diag, diagflat). The errors are
// PyTorch 1.13's.
#include <cstdlib>

#include "ember/ops/generated/CompositeKernels.h"
#include "ember/ops/out.h"
#include "ember/ops/shape.h"

namespace ember::composite {

Tensor tile(const Tensor& self, IntArrayRef dims) {
  // Fewer counts than dims: leading 1s (repeat needs at least one count per dim).
  const int64_t missing = self.dim() - static_cast<int64_t>(dims.size());
  if (missing <= 0) return self.repeat(dims);
  DimVector padded(static_cast<size_t>(missing), 1);
  for (int64_t d : dims) padded.push_back(d);
  return self.repeat(padded);
}

namespace {
// A copy of self rolled along one dim: the last `shift` elements moved to the front (cat of two narrow views).
Tensor roll_dim(const Tensor& self, int64_t shift, int64_t dim) {
  const int64_t n = self.size(dim);
  const int64_t s = n == 0 ? 0 : ((shift % n) + n) % n;
  if (s == 0) return self.clone();
  return ember::cat({self.narrow(dim, n - s, s), self.narrow(dim, 0, n - s)}, dim);
}
}  // namespace

Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  EMBER_CHECK(!shifts.empty(), "`shifts` required");
  if (dims.empty() && shifts.size() == 1) {  // the flattened self
    return roll_dim(self.flatten(), shifts[0], 0).view(self.sizes());
  }
  EMBER_CHECK(shifts.size() == dims.size(), "shifts and dimensions must align. shifts: {}, dims:{}", shifts.size(),
              dims.size());
  EMBER_CHECK_INDEX(self.dim() > 0, "Dimension specified as {} but tensor has no dimensions", dims[0]);
  Tensor r = self;
  for (size_t i = 0; i < dims.size(); ++i) r = roll_dim(r, shifts[i], checked_dim("roll", dims[i], self.dim()));
  return r;
}
Tensor roll_out(const Tensor& self, IntArrayRef shifts, IntArrayRef dims, const Tensor& out) {
  return write_out("roll", out, composite::roll(self, shifts, dims));
}

Tensor rot90(const Tensor& self, int64_t k, IntArrayRef dims) {
  EMBER_CHECK(dims.size() == 2, "expected total rotation dims == 2, but got dims = {}", dims.size());
  EMBER_CHECK(self.dim() >= 2, "expected total dims >= 2, but got total dims = {}", self.dim());
  const int64_t n = self.dim();
  EMBER_CHECK(dims[0] != dims[1] && std::abs(dims[0] - dims[1]) != n,
              "expected rotation dims to be different, but got dim0 = {} and dim1 = {}", dims[0], dims[1]);
  EMBER_CHECK(dims[0] < n && dims[0] >= -n, "Rotation dim0 out of range, dim0 = {}", dims[0]);
  EMBER_CHECK(dims[1] < n && dims[1] >= -n, "Rotation dim1 out of range, dim1 = {}", dims[1]);
  switch (((k % 4) + 4) % 4) {
    case 1: return self.flip({dims[1]}).transpose(dims[0], dims[1]);
    case 2: return self.flip(dims);
    case 3: return self.flip({dims[0]}).transpose(dims[0], dims[1]);
    default: return self.clone();
  }
}
Tensor rot90_out(const Tensor& self, int64_t k, IntArrayRef dims, const Tensor& out) {
  return write_out("rot90", out, composite::rot90(self, k, dims));
}

Tensor fliplr(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 2, "Input must be >= 2-d.");
  return self.flip({1});
}

Tensor flipud(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 1, "Input must be >= 1-d.");
  return self.flip({0});
}

Tensor ravel(const Tensor& self) { return self.contiguous().view({-1}); }

// ---------------------------------------------------------------------------------------------- repeat_interleave

namespace {
Tensor check_output_size(const Tensor& result, int64_t dim, std::optional<int64_t> output_size) {
  EMBER_CHECK(!output_size || *output_size == result.size(dim), "allocated size does not match required size");
  return result;
}
}  // namespace

Tensor repeat_interleave_self_int(const Tensor& self, int64_t repeats, std::optional<int64_t> dim,
                                  std::optional<int64_t> output_size) {
  EMBER_CHECK(repeats >= 0, "repeats can not be negative");
  Tensor x = dim ? self : self.flatten();
  EMBER_CHECK_INDEX(x.dim() > 0, "Dimension specified as {} but tensor has no dimensions", *dim);
  const int64_t d = dim ? checked_dim("repeat_interleave", *dim, x.dim()) : 0;
  // (.., n, ..) -> (.., n, repeats, ..) expanded -> (.., n * repeats, ..): each slice repeated in place.
  DimVector sizes;
  for (int64_t i = 0; i < x.dim(); ++i) {
    sizes.push_back(x.size(i));
    if (i == d) sizes.push_back(repeats);
  }
  Tensor r = x.unsqueeze(d + 1).expand(sizes).flatten(d, d + 1);
  return check_output_size(r, d, output_size);
}

// Index i repeated repeats[i] times: a count of each position's index from the cumulative sums (values read
// once on the host, as PyTorch's CPU kernel does).
Tensor repeat_interleave_tensor(const Tensor& repeats, std::optional<int64_t> output_size) {
  EMBER_CHECK(repeats.dim() == 1, "repeat_interleave only accept 1D vector as repeat");
  EMBER_CHECK(repeats.dtype() == kInt64 || repeats.dtype() == kInt32, "\"repeat_interleave_cpu\" not implemented "
              "for '{}'", linalg::scalar_type_name(repeats.dtype()));
  Tensor counts = repeats.to(kInt64).contiguous();
  const int64_t* c = counts.data_ptr<int64_t>();
  int64_t total = 0;
  for (int64_t i = 0; i < counts.numel(); ++i) {
    EMBER_CHECK(c[i] >= 0, "repeats can not be negative");
    total += c[i];
  }
  EMBER_CHECK(!output_size || *output_size == total, "allocated size does not match required size");
  Tensor result = ember::empty({total}, kInt64);
  int64_t* r = result.data_ptr<int64_t>();
  for (int64_t i = 0, k = 0; i < counts.numel(); ++i) {
    for (int64_t j = 0; j < c[i]; ++j) r[k++] = i;
  }
  return result.to(repeats.dtype());
}
Tensor repeat_interleave_tensor_out(const Tensor& repeats, std::optional<int64_t> output_size, const Tensor& out) {
  return write_out("repeat_interleave", out, repeat_interleave_tensor(repeats, output_size));
}

Tensor repeat_interleave_self_tensor(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim,
                                     std::optional<int64_t> output_size) {
  if (repeats.dim() == 0 || (repeats.dim() == 1 && repeats.numel() == 1)) {
    EMBER_CHECK(!is_floating_point(repeats.dtype()) && repeats.dtype() != kBool, "\"repeat_interleave_cpu\" not "
                "implemented for '{}'", linalg::scalar_type_name(repeats.dtype()));
    return repeat_interleave_self_int(self, repeats.item<int64_t>(), dim, output_size);
  }
  EMBER_CHECK(repeats.dim() == 1, "repeats must be 0-dim or 1-dim tensor");
  Tensor x = dim ? self : self.flatten();
  EMBER_CHECK_INDEX(x.dim() > 0, "Dimension specified as {} but tensor has no dimensions", *dim);
  const int64_t d = dim ? checked_dim("repeat_interleave", *dim, x.dim()) : 0;
  EMBER_CHECK(repeats.size(0) == x.size(d), "repeats must have the same size as input along dim");
  Tensor r = x.index_select(d, repeat_interleave_tensor(repeats.to(kInt64), std::nullopt));
  return check_output_size(r, d, output_size);
}

// ---------------------------------------------------------------------------------------------- diff

namespace {
Tensor diff_body(const Tensor& self, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
                 const std::optional<Tensor>& append) {
  EMBER_CHECK(self.dim() >= 1, "diff expects input to be at least one-dimensional");
  const int64_t d = checked_dim("diff", dim, self.dim());
  Tensor x = self;
  if ((prepend && prepend->defined()) || (append && append->defined())) {
    std::vector<Tensor> parts;
    for (const std::optional<Tensor>* p : {&prepend, &append}) {
      if (*p && (*p)->defined()) {
        EMBER_CHECK((*p)->dim() == self.dim(), "diff expects prepend or append to be the same dimension as input");
      }
    }
    if (prepend && prepend->defined()) parts.push_back(*prepend);
    parts.push_back(self);
    if (append && append->defined()) parts.push_back(*append);
    x = ember::cat(parts, d);
  }
  for (int64_t i = 0; i < n && x.size(d) > 0; ++i) {  // (n < 0 leaves self as it is, as PyTorch 1.13)
    const int64_t len = x.size(d) - 1;
    Tensor hi = x.narrow(d, 1, len), lo = x.narrow(d, 0, len);
    x = x.dtype() == kBool ? hi.logical_xor(lo) : hi.sub(lo);
  }
  return x.is_same(self) ? self.clone() : x;
}
}  // namespace

Tensor diff(const Tensor& self, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
            const std::optional<Tensor>& append) {
  return diff_body(self, n, dim, prepend, append);
}
Tensor diff_out(const Tensor& self, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
                const std::optional<Tensor>& append, const Tensor& out) {
  return write_out("diff", out, diff_body(self, n, dim, prepend, append));
}

// ---------------------------------------------------------------------------------------------- diagonals

// self's last dim (n) put on the diagonal of (n, n) matrices with where (no writes, so autograd and NaN/inf
// values pass as they are), padded to n + |offset| to move it off the main diagonal, then the two new dims
// moved to dim1 and dim2 of the result.
Tensor diag_embed(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t ndim = self.dim() + 1;
  const int64_t d1 = checked_dim("diag_embed", dim1, ndim), d2 = checked_dim("diag_embed", dim2, ndim);
  EMBER_CHECK(d1 != d2, "diagonal dimensions cannot be identical {}, {}", dim1, dim2);
  const int64_t n = self.size(-1);
  Tensor square = ember::where(ember::eye(n, kBool), self.unsqueeze(-1), ember::zeros({}, self.dtype()));
  if (offset > 0) square = ember::constant_pad_nd(square, {offset, 0, 0, offset});
  if (offset < 0) square = ember::constant_pad_nd(square, {0, -offset, -offset, 0});
  return square.movedim({ndim - 2, ndim - 1}, {d1, d2});
}
Tensor diag_embed_out(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2, const Tensor& out) {
  return write_out("diag_embed", out, composite::diag_embed(self, offset, dim1, dim2));
}

Tensor diag(const Tensor& self, int64_t diagonal) {
  EMBER_CHECK(self.dim() == 1 || self.dim() == 2, "matrix or a vector expected");
  return self.dim() == 1 ? composite::diag_embed(self, diagonal, 0, 1) : self.diagonal(diagonal).clone();
}
Tensor diag_out(const Tensor& self, int64_t diagonal, const Tensor& out) {
  return write_out("diag", out, composite::diag(self, diagonal));
}

Tensor diagflat(const Tensor& self, int64_t offset) { return composite::diag_embed(self.flatten(), offset, 0, 1); }

}  // namespace ember::composite
