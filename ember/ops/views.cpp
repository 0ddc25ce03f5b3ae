// View ops: each makes a new TensorImpl over the same storage through make_view (Note [views]). They are
// CompositeExplicitAutograd kernels in the ops layer because they are the same on every backend.
#include <algorithm>
#include <numeric>

#include "ember/ops/generated/CompositeKernels.h"
#include "ember/ops/shape.h"

namespace ember::composite {

Tensor as_strided(const Tensor& self, IntArrayRef size, IntArrayRef stride, std::optional<int64_t> storage_offset) {
  EMBER_CHECK(size.size() == stride.size(), "as_strided: mismatch in length of strides and shape ({} vs {})",
              stride.size(), size.size());
  return make_view(self, size, stride, storage_offset.value_or(self.storage_offset()));
}

Tensor view(const Tensor& self, IntArrayRef size) {
  DimVector shape = infer_size(size, self.numel(), "view");
  std::optional<DimVector> strides = compute_view_strides(self.sizes(), self.strides(), shape);
  EMBER_CHECK(strides.has_value(),
              "view size is not compatible with input tensor's size and stride (at least one dimension spans across "
              "two contiguous subspaces). Use .reshape(...) instead.");
  return make_view(self, shape, *strides, self.storage_offset());
}

Tensor reshape(const Tensor& self, IntArrayRef shape) {
  DimVector s = infer_size(shape, self.numel(), "reshape");
  if (compute_view_strides(self.sizes(), self.strides(), s)) return self.view(s);
  return self.clone(MemoryFormat::Contiguous).view(s);  // a row-major copy always views as s
}

Tensor view_as(const Tensor& self, const Tensor& other) { return self.view(other.sizes()); }
Tensor reshape_as(const Tensor& self, const Tensor& other) { return self.reshape(other.sizes()); }

Tensor permute(const Tensor& self, IntArrayRef dims) {
  int64_t n = self.dim();
  EMBER_CHECK(static_cast<int64_t>(dims.size()) == n,
              "permute(): number of dims don't match in permute: the tensor input has {} dims but "
              "len(dims) = {}",
              n, dims.size());
  DimVector sizes(n), strides(n);
  std::vector<bool> seen(n, false);
  for (int64_t i = 0; i < n; ++i) {
    int64_t d = wrap_dim(dims[i], n);
    EMBER_CHECK(!seen[d], "permute(): duplicate dims are not allowed.");
    seen[d] = true;
    sizes[i] = self.sizes()[d];
    strides[i] = self.strides()[d];
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1) {
  int64_t n = self.dim();
  int64_t a = wrap_dim(dim0, n), b = wrap_dim(dim1, n);
  if (n == 0) return make_view(self, {}, {}, self.storage_offset());
  DimVector sizes(self.sizes()), strides(self.strides());
  std::swap(sizes[a], sizes[b]);
  std::swap(strides[a], strides[b]);
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor t(const Tensor& self) {
  EMBER_CHECK(self.dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is {}D", self.dim());
  return self.dim() < 2 ? self.transpose(0, 0) : self.transpose(0, 1);
}

Tensor expand(const Tensor& self, IntArrayRef size, bool /*implicit*/) {
  int64_t n = static_cast<int64_t>(size.size()), d = self.dim();
  EMBER_CHECK(n >= d,
              "expand({} tensor of size [{}], size=[{}]): the number of sizes provided ({}) must be greater or equal "
              "to the number of dimensions in the tensor ({})",
              self.dtype(), fmt::join(self.sizes(), ", "), fmt::join(size, ", "), n, d);
  DimVector sizes(n), strides(n);
  for (int64_t i = n - 1; i >= 0; --i) {
    int64_t j = i - (n - d);  // matching dim of self, or < 0 for a new leading dim
    int64_t want = size[i];
    if (j >= 0) {
      int64_t have = self.sizes()[j];
      if (want == -1) want = have;
      EMBER_CHECK(have == want || have == 1,
                  "The expanded size of the tensor ({}) must match the existing size ({}) at non-singleton dimension "
                  "{}.  Target sizes: [{}].  Tensor sizes: [{}]",
                  want, have, i, fmt::join(size, ", "), fmt::join(self.sizes(), ", "));
      sizes[i] = want;
      strides[i] = have == want ? self.strides()[j] : 0;
    } else {
      EMBER_CHECK(want >= 0,
                  "The expanded size of the tensor ({}) isn't allowed in a leading, non-existing dimension {}", want,
                  i);
      sizes[i] = want;
      strides[i] = 0;
    }
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor expand_as(const Tensor& self, const Tensor& other) { return self.expand(other.sizes()); }

Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  EMBER_CHECK(self.dim() > 0, "narrow() cannot be applied to a 0-dim tensor.");
  int64_t d = wrap_dim(dim, self.dim());
  int64_t size = self.sizes()[d];
  // start == size (an empty slice at the end) is valid; other starts wrap as a dim would, as PyTorch (a size-0
  // dim wraps like a size-1 one: start -1 is 0).
  if (start != size) start = wrap_dim(start, size);
  EMBER_CHECK(length >= 0 && start <= size - length, "start ({}) + length ({}) exceeds dimension size ({}).", start,
              length, size);
  return self.slice(d, start, start + length, 1);
}

Tensor select(const Tensor& self, int64_t dim, int64_t index) {
  EMBER_CHECK_INDEX(self.dim() > 0, "select() cannot be applied to a 0-dim tensor.");
  int64_t d = wrap_dim(dim, self.dim());
  int64_t size = self.sizes()[d];
  EMBER_CHECK_INDEX(index >= -size && index < size,
                    "select(): index {} out of range for tensor of size [{}] at dimension {}", index,
                    fmt::join(self.sizes(), ", "), dim);
  if (index < 0) index += size;
  DimVector sizes(self.sizes()), strides(self.strides());
  int64_t offset = self.storage_offset() + index * strides[d];
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  return make_view(self, sizes, strides, offset);
}

Tensor slice(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
             int64_t step) {
  EMBER_CHECK_INDEX(self.dim() > 0, "slice() cannot be applied to a 0-dim tensor.");
  EMBER_CHECK_VALUE(step > 0, "slice step must be positive");
  int64_t d = wrap_dim(dim, self.dim());
  int64_t size = self.sizes()[d];
  auto clamp_index = [&](int64_t i) {  // Python slice semantics: negatives count from the end, then clamp
    if (i < 0) i += size;
    return std::clamp<int64_t>(i, 0, size);
  };
  int64_t s = start ? clamp_index(*start) : 0;
  int64_t e = end ? clamp_index(*end) : size;
  if (e < s) e = s;
  DimVector sizes(self.sizes()), strides(self.strides());
  sizes[d] = e > s ? (e - s - 1) / step + 1 : 0;  // not (e - s + step - 1) / step, which overflows for huge steps
  int64_t offset = self.storage_offset() + s * strides[d];
  // With a step beyond the dim's size at most one element is taken and its stride is never used; keep it
  // finite rather than overflowing.
  if (__builtin_mul_overflow(strides[d], step, &strides[d])) strides[d] = self.strides()[d];
  return make_view(self, sizes, strides, offset);
}

Tensor squeeze(const Tensor& self) {
  DimVector sizes, strides;
  for (int64_t i = 0; i < self.dim(); ++i) {
    if (self.sizes()[i] == 1) continue;
    sizes.push_back(self.sizes()[i]);
    strides.push_back(self.strides()[i]);
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor squeeze(const Tensor& self, int64_t dim) {
  int64_t d = wrap_dim(dim, self.dim());
  if (self.dim() == 0 || self.sizes()[d] != 1)
    return make_view(self, self.sizes(), self.strides(), self.storage_offset());
  DimVector sizes(self.sizes()), strides(self.strides());
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor unsqueeze(const Tensor& self, int64_t dim) {
  int64_t d = wrap_dim(dim, self.dim() + 1);
  DimVector sizes(self.sizes()), strides(self.strides());
  int64_t st = d < self.dim() ? sizes[d] * strides[d] : 1;
  sizes.insert(sizes.begin() + d, 1);
  strides.insert(strides.begin() + d, st);
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor flatten(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  int64_t s = wrap_dim(start_dim, self.dim()), e = wrap_dim(end_dim, self.dim());  // first, also for 0-dim
  EMBER_CHECK(s <= e, "flatten() has invalid args: start_dim cannot come after end_dim");  // RuntimeError, as PyTorch
  if (self.dim() == 0) return self.reshape({1});
  if (s == e) return self;
  DimVector shape;
  for (int64_t i = 0; i < s; ++i) shape.push_back(self.sizes()[i]);
  int64_t m = 1;
  for (int64_t i = s; i <= e; ++i) m *= self.sizes()[i];
  shape.push_back(m);
  for (int64_t i = e + 1; i < self.dim(); ++i) shape.push_back(self.sizes()[i]);
  return self.reshape(shape);
}

Tensor unflatten(const Tensor& self, int64_t dim, IntArrayRef sizes) {
  EMBER_CHECK_INDEX(self.dim() > 0, "Dimension specified as {} but tensor has no dimensions", dim);
  int64_t d = wrap_dim(dim, self.dim());
  EMBER_CHECK(!sizes.empty(), "unflatten: sizes must be non-empty");
  DimVector inner = infer_size(sizes, self.sizes()[d], "unflatten");
  DimVector shape(self.sizes().begin(), self.sizes().begin() + d);
  for (int64_t s : inner) shape.push_back(s);
  for (int64_t i = d + 1; i < self.dim(); ++i) shape.push_back(self.sizes()[i]);
  return self.view(shape);
}

Tensor unfold(const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  int64_t d = wrap_dim(dimension, self.dim());
  int64_t len = self.dim() == 0 ? 1 : self.sizes()[d];
  EMBER_CHECK(size <= len, "maximum size for tensor at dimension {} is {} but size is {}", d, len, size);
  EMBER_CHECK(step > 0, "step is {} but must be > 0", step);
  EMBER_CHECK(size >= 0, "size is {} but must be >= 0", size);
  DimVector sizes(self.sizes()), strides(self.strides());
  int64_t st = self.dim() == 0 ? 1 : strides[d];
  if (self.dim() > 0) {
    sizes[d] = (len - size) / step + 1;
    if (__builtin_mul_overflow(st, step, &strides[d])) strides[d] = st;  // one window only; See slice()
  }
  sizes.push_back(size);
  strides.push_back(st);
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor diagonal(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  int64_t n = self.dim();
  // Wrapping first: a 1-D input fails on dim2 with IndexError, as PyTorch.
  int64_t a = wrap_dim(dim1, n), b = wrap_dim(dim2, n);
  EMBER_CHECK(a != b, "diagonal dimensions cannot be identical {}, {}", dim1, dim2);
  int64_t len, start = self.storage_offset();
  if (offset >= 0) {
    len = std::max<int64_t>(std::min(self.sizes()[a], self.sizes()[b] - offset), 0);
    if (len > 0) start += offset * self.strides()[b];
  } else {
    len = std::max<int64_t>(std::min(self.sizes()[a] + offset, self.sizes()[b]), 0);
    if (len > 0) start -= offset * self.strides()[a];
  }
  DimVector sizes, strides;
  for (int64_t i = 0; i < n; ++i) {
    if (i == a || i == b) continue;
    sizes.push_back(self.sizes()[i]);
    strides.push_back(self.strides()[i]);
  }
  sizes.push_back(len);
  strides.push_back(self.strides()[a] + self.strides()[b]);
  return make_view(self, sizes, strides, start);
}

Tensor movedim(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  int64_t n = self.dim();
  EMBER_CHECK(source.size() == destination.size(),
              "movedim: Invalid source or destination dims: source ({} dims) should contain the same number of dims as "
              "destination ({} dims)",
              fmt::join(source, ", "), fmt::join(destination, ", "));
  // A 0-dim tensor has one (wrappable) dim, 0, as PyTorch: movedim(0, -1) of it is itself.
  const int64_t slots = std::max<int64_t>(n, 1);
  std::vector<int64_t> order(slots, -1);
  std::vector<bool> used_src(slots, false), used_dst(slots, false);
  for (size_t i = 0; i < source.size(); ++i) {
    int64_t s = wrap_dim(source[i], n), d = wrap_dim(destination[i], n);
    EMBER_CHECK(!used_src[s], "movedim: repeated dim in `source` ({})", fmt::join(source, ", "));
    EMBER_CHECK(!used_dst[d], "movedim: repeated dim in `destination` ({})", fmt::join(destination, ", "));
    used_src[s] = used_dst[d] = true;
    order[d] = s;
  }
  int64_t next = 0;
  for (int64_t d = 0; d < n; ++d) {
    if (order[d] >= 0) continue;
    while (used_src[next]) ++next;
    order[d] = next++;
  }
  if (n == 0) return self.permute({});
  return self.permute(order);
}

Tensor movedim(const Tensor& self, int64_t source, int64_t destination) {
  return composite::movedim(self, IntArrayRef(&source, 1), IntArrayRef(&destination, 1));
}

Tensor detach(const Tensor& self) { return make_view(self, self.sizes(), self.strides(), self.storage_offset()); }
Tensor alias(const Tensor& self) { return make_view(self, self.sizes(), self.strides(), self.storage_offset()); }

// See Note [in-place view ops] in ops_view.yaml: the kernels of t_, squeeze_, ... are generated as
// assign_view_geometry(self, <view op>(self, ...)), so each in-place view op checks its arguments and computes
// its geometry exactly as its view op does; a bad argument raises before self changes.
Tensor assign_view_geometry(const Tensor& self, const Tensor& view) {
  if (view.is_same(self)) return self;
  self.impl()->set_geometry(view.sizes(), view.strides(), view.storage_offset());
  return self;
}

}  // namespace ember::composite

// ---- gradients of views (Note [view backward ops] in ops_view.yaml)
namespace ember::composite {

Tensor select_backward(const Tensor& grad_output, IntArrayRef input_sizes, int64_t dim, int64_t index) {
  Tensor z = ember::zeros(input_sizes, grad_output.dtype());
  z.select(dim, index).copy_(grad_output);
  return z;
}

Tensor slice_backward(const Tensor& grad_output, IntArrayRef input_sizes, int64_t dim, int64_t start, int64_t end,
                      int64_t step) {
  Tensor z = ember::zeros(input_sizes, grad_output.dtype());
  z.slice(dim, start, end, step).copy_(grad_output);
  return z;
}

Tensor diagonal_backward(const Tensor& grad_output, IntArrayRef input_sizes, int64_t offset, int64_t dim1,
                         int64_t dim2) {
  Tensor z = ember::zeros(input_sizes, grad_output.dtype());
  z.diagonal(offset, dim1, dim2).copy_(grad_output);
  return z;
}

Tensor unfold_backward(const Tensor& grad_in, IntArrayRef input_sizes, int64_t dim, int64_t size, int64_t step) {
  // A 0-dim input has one window of size 0 or 1 over its only element.
  if (input_sizes.empty()) return grad_in.sum();  // [] or [x]: 0 or x
  const int64_t d = wrap_dim(dim, static_cast<int64_t>(input_sizes.size()));
  Tensor z = ember::zeros(input_sizes, grad_in.dtype());
  const int64_t windows = grad_in.size(d);
  // Element j of every window: positions j, j + step, ... of dim d. Windows overlap when step < size, so the
  // gradients are added one window element at a time (size strided adds rather than one per window).
  for (int64_t j = 0; j < size; ++j) z.slice(d, j, j + (windows - 1) * step + 1, step).add_(grad_in.select(-1, j));
  return z;
}

namespace {
// One past the largest storage element a geometry reaches (its offset when it is empty).
int64_t storage_extent(IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  int64_t end = offset + 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return offset;
    end += (sizes[i] - 1) * strides[i];
  }
  return end;
}
}  // namespace

// Note [as_strided gradient]
// as_strided reads self's storage with an arbitrary geometry, so its gradient goes through the storage: the
// output gradient is summed into a zero buffer spanning both geometries (index_add, since output elements may
// share a storage element), which is then read with self's geometry. That is exact when self's own elements
// do not share storage; as_strided's formula (as_strided_grad) raises for one that does. With that, the op is
// "scatter-add by one geometry, read by another", whose adjoint is the same op with the geometries swapped
// (overlaps included): its own derivative.
Tensor as_strided_backward(const Tensor& grad_output, IntArrayRef size, IntArrayRef stride, int64_t storage_offset,
                           IntArrayRef input_sizes, IntArrayRef input_strides, int64_t input_storage_offset) {
  const int64_t base = std::min(storage_offset, input_storage_offset);
  const int64_t n = std::max(storage_extent(size, stride, storage_offset),
                             storage_extent(input_sizes, input_strides, input_storage_offset)) - base;
  Tensor buffer = ember::zeros({n}, grad_output.dtype());
  Tensor positions = ember::arange(n, kInt64).as_strided(size, stride, storage_offset - base).reshape({-1});
  buffer.index_add_(0, positions, grad_output.reshape({-1}));
  return buffer.as_strided(input_sizes, input_strides, input_storage_offset - base).contiguous();
}

}  // namespace ember::composite

// ---- sizes and ints as ops, for traces (Note [traced sizes] in ember/jit/frontend/Tracer.h)

namespace ember::composite {

int64_t size_int(const Tensor& self, int64_t dim) { return self.size(wrap_dim(dim, self.dim())); }

int64_t Int_Tensor(const Tensor& a) {
  EMBER_CHECK(a.numel() == 1, "Int: a tensor with {} elements cannot be converted to an int (one element needed)",
              a.numel());
  return a.item().to_long();
}

}  // namespace ember::composite

namespace ember::composite {

// PyTorch's view_dtype: the same geometry for equal element sizes; else the last dimension (stride 1) is
// split into or merged from `ratio` elements of the new dtype, the other strides and the offset scaled.
Tensor view_dtype(const Tensor& self, DType dtype) {
  const int64_t old_size = element_size(self.dtype()), new_size = element_size(dtype);
  if (old_size == new_size) return make_view(self, dtype, self.sizes(), self.strides(), self.storage_offset());
  EMBER_CHECK(self.dim() > 0, "self.dim() cannot be 0 to view {} as {} (different element sizes)", self.dtype(),
              dtype);
  EMBER_CHECK(self.stride(-1) == 1, "self.stride(-1) must be 1 to view {} as {} (different element sizes), but got {}",
              self.dtype(), dtype, self.stride(-1));
  const int64_t last = self.dim() - 1;
  DimVector sizes(self.sizes().begin(), self.sizes().end());
  DimVector strides(self.strides().begin(), self.strides().end());
  if (old_size > new_size) {
    const int64_t ratio = old_size / new_size;
    for (int64_t d = 0; d < last; ++d) strides[d] *= ratio;
    sizes[last] *= ratio;
    return make_view(self, dtype, sizes, strides, self.storage_offset() * ratio);
  }
  const int64_t ratio = new_size / old_size;
  EMBER_CHECK(sizes[last] % ratio == 0,
              "self.size(-1) must be divisible by {} to view {} as {} (different element sizes), but got {}", ratio,
              self.dtype(), dtype, sizes[last]);
  EMBER_CHECK(self.storage_offset() % ratio == 0,
              "self.storage_offset() must be divisible by {} to view {} as {} (different element sizes), but got {}",
              ratio, self.dtype(), dtype, self.storage_offset());
  for (int64_t d = 0; d < last; ++d) {
    EMBER_CHECK(strides[d] % ratio == 0,
                "self.stride({}) must be divisible by {} to view {} as {} (different element sizes), but got {}", d,
                ratio, self.dtype(), dtype, strides[d]);
    strides[d] /= ratio;
  }
  sizes[last] /= ratio;
  return make_view(self, dtype, sizes, strides, self.storage_offset() / ratio);
}

}  // namespace ember::composite
