// Joining and splitting written with other ops: stack (cat of unsqueezed tensors), the list-of-views ops
// split / split_with_sizes / chunk / unbind (narrow and select, so every piece is a view of self), and
// repeat (a copy into an interleaved view of the result); NumPy's joining (hstack, vstack, dstack,
// column_stack, block_diag, cartesian_prod, meshgrid, broadcast_tensors) and splitting (tensor_split, hsplit,
// vsplit, dsplit). The errors are PyTorch 1.13's, prefixed with the op name where PyTorch's are not.
#include "ember/core/TypePromotion.h"
#include "ember/ops/generated/CompositeKernels.h"
#include "ember/ops/out.h"
#include "ember/ops/shape.h"

namespace ember::composite {

namespace {

// The size of dim of self, for ops that need at least one dim. Errors: a 0-dim self (RuntimeError, as
// PyTorch's split and chunk); a dim out of range (IndexError).
int64_t split_dim_size(const char* op, const Tensor& self, int64_t dim) {
  EMBER_CHECK(self.dim() != 0, "{} expects at least a 1-dimensional tensor", op);
  return self.sizes()[checked_dim(op, dim, self.dim())];
}

// The tensors unsqueezed at dim, for stack. Errors: an empty list; sizes that differ; dim out of range.
std::vector<Tensor> unsqueezed_for_stack(TensorList tensors, int64_t& dim) {
  EMBER_CHECK(!tensors.empty(), "stack expects a non-empty TensorList");
  dim = checked_dim("stack", dim, tensors[0].dim() + 1);
  for (size_t i = 1; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].sizes().equals(tensors[0].sizes()),
                "stack expects each tensor to be equal size, but got [{}] at entry 0 and [{}] at entry {}",
                fmt::join(tensors[0].sizes(), ", "), fmt::join(tensors[i].sizes(), ", "), i);
  }
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (const Tensor& t : tensors) parts.push_back(t.unsqueeze(dim));
  return parts;
}

}  // namespace

Tensor stack(TensorList tensors, int64_t dim) {
  std::vector<Tensor> parts = unsqueezed_for_stack(tensors, dim);
  return ember::cat(parts, dim);
}

Tensor stack_out(TensorList tensors, int64_t dim, const Tensor& out) {
  std::vector<Tensor> parts = unsqueezed_for_stack(tensors, dim);
  return ember::cat_out(out, parts, dim);
}

std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim) {
  const int64_t size = split_dim_size("split", self, dim);
  EMBER_CHECK(split_size >= 0, "split expects split_size be non-negative, but got split_size={}", split_size);
  EMBER_CHECK(split_size > 0 || size == 0,
              "split: split_size can only be 0 if dimension size is 0, but got dimension size of {}", size);
  // One piece when split_size is 0 (dim of size 0) or larger than the dim, as PyTorch.
  const int64_t n = split_size == 0 ? 1 : std::max<int64_t>((size + split_size - 1) / split_size, 1);
  const int64_t last = split_size - (split_size * n - size);
  std::vector<Tensor> pieces;
  pieces.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) pieces.push_back(self.narrow(dim, i * split_size, i < n - 1 ? split_size : last));
  return pieces;
}

std::vector<Tensor> split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  const int64_t size = split_dim_size("split_with_sizes", self, dim);
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    EMBER_CHECK(s >= 0, "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=[{}]",
                fmt::join(split_sizes, ", "));
    total += s;
  }
  EMBER_CHECK(total == size,
              "split_with_sizes expects split_sizes to sum exactly to {} (input tensor's size at dimension {}), but "
              "got split_sizes=[{}]",
              size, dim, fmt::join(split_sizes, ", "));
  std::vector<Tensor> pieces;
  pieces.reserve(split_sizes.size());
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    pieces.push_back(self.narrow(dim, start, s));
    start += s;
  }
  return pieces;
}

std::vector<Tensor> split_sizes(const Tensor& self, IntArrayRef split_size, int64_t dim) {
  return ember::split_with_sizes(self, split_size, dim);
}

std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  const int64_t size = split_dim_size("chunk", self, dim);
  EMBER_CHECK(chunks > 0, "chunk expects `chunks` to be greater than 0, got: {}", chunks);
  const int64_t split_size = (size + chunks - 1) / chunks;
  // An empty dim still gives `chunks` (empty) pieces, as PyTorch: split would give one.
  if (split_size == 0 && size == 0)
    return ember::split_with_sizes(self, DimVector(static_cast<size_t>(chunks), 0), dim);
  return ember::split(self, split_size, dim);
}

std::vector<Tensor> unbind(const Tensor& self, int64_t dim) {
  EMBER_CHECK_INDEX(self.dim() > 0, "unbind: Dimension specified as {} but tensor has no dimensions", dim);
  const int64_t d = checked_dim("unbind", dim, self.dim());
  const int64_t n = self.sizes()[d];
  std::vector<Tensor> pieces;
  pieces.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) pieces.push_back(self.select(d, i));
  return pieces;
}

// result (r0*s0, r1*s1, ...) is contiguous, so it views as (r0, s0, r1, s1, ...); self viewed as
// (1, s0, 1, s1, ...) expands to that shape, and one copy_ fills every tile.
Tensor repeat(const Tensor& self, IntArrayRef repeats) {
  const int64_t n = static_cast<int64_t>(repeats.size());
  EMBER_CHECK(n >= self.dim(),
              "repeat: Number of dimensions of repeat dims ({}) can not be smaller than number of dimensions of "
              "tensor ({})",
              n, self.dim());
  DimVector padded(static_cast<size_t>(n - self.dim()), 1);
  for (int64_t s : self.sizes()) padded.push_back(s);
  DimVector target(static_cast<size_t>(n)), tiled, source;
  for (int64_t i = 0; i < n; ++i) {
    EMBER_CHECK(repeats[i] >= 0, "repeat: repeats must be non-negative, but got repeats=[{}]",
                fmt::join(repeats, ", "));
    target[i] = padded[i] * repeats[i];
    tiled.push_back(repeats[i]);
    tiled.push_back(padded[i]);
    source.push_back(1);
    source.push_back(padded[i]);
  }
  Tensor result = ember::empty(target, self.dtype());
  if (result.numel() == 0) return result;
  result.view(tiled).copy_(self.reshape(source).expand(tiled));
  return result;
}

// ------------------------------------------------------------------------------------------ NumPy's joining

Tensor broadcast_to(const Tensor& self, IntArrayRef size) { return self.expand(size); }

std::vector<Tensor> broadcast_tensors(TensorList tensors) {
  DimVector shape;
  for (const Tensor& t : tensors) shape = broadcast_shapes(shape, t.sizes());
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(t.expand(shape));
  return out;
}

std::vector<Tensor> meshgrid(TensorList tensors) { return meshgrid_indexing(tensors, "ij"); }

// As PyTorch: with "xy" the first two tensors trade places, the grids are made as for "ij", and the first two
// grids trade places back, so grid i still holds tensor i's values (varying along dim 1 for i = 0).
std::vector<Tensor> meshgrid_indexing(TensorList tensors, std::string_view indexing) {
  EMBER_CHECK(!tensors.empty(), "meshgrid expects a non-empty TensorList");
  EMBER_CHECK(indexing == "ij" || indexing == "xy",
              "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {}", indexing);
  for (const Tensor& t : tensors) {
    EMBER_CHECK(t.dim() <= 1, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor of "
                "shape [{}]", fmt::join(t.sizes(), ", "));
    EMBER_CHECK(t.dtype() == tensors[0].dtype(), "meshgrid expects all tensors to have the same dtype");
  }
  std::vector<Tensor> in(tensors.begin(), tensors.end());
  const bool swap = indexing == "xy" && in.size() >= 2;
  if (swap) std::swap(in[0], in[1]);
  DimVector shape;
  for (const Tensor& t : in) shape.push_back(t.numel());
  std::vector<Tensor> grids;
  grids.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    DimVector view(in.size(), 1);
    view[i] = -1;
    grids.push_back(in[i].view(view).expand(shape));
  }
  if (swap) std::swap(grids[0], grids[1]);
  return grids;
}

Tensor atleast_1d(const Tensor& self) { return self.dim() == 0 ? self.reshape({1}) : self; }

Tensor atleast_2d(const Tensor& self) {
  if (self.dim() == 0) return self.reshape({1, 1});
  return self.dim() == 1 ? self.unsqueeze(0) : self;
}

Tensor atleast_3d(const Tensor& self) {
  switch (self.dim()) {
    case 0: return self.reshape({1, 1, 1});
    case 1: return self.unsqueeze(0).unsqueeze(-1);
    case 2: return self.unsqueeze(-1);
    default: return self;
  }
}

namespace {

std::vector<Tensor> each(TensorList tensors, Tensor (*f)(const Tensor&)) {
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(f(t));
  return out;
}

// The tensors of hstack and its kin made the rank they join at (atleast_nd), after the non-empty check.
std::vector<Tensor> for_stack(const char* op, TensorList tensors, Tensor (*f)(const Tensor&)) {
  EMBER_CHECK(!tensors.empty(), "{} expects a non-empty TensorList", op);
  return each(tensors, f);
}

Tensor as_column(const Tensor& t) { return t.dim() <= 1 ? t.reshape({t.numel(), 1}) : t; }

}  // namespace

std::vector<Tensor> atleast_1d_sequence(TensorList tensors) { return each(tensors, &atleast_1d); }
std::vector<Tensor> atleast_2d_sequence(TensorList tensors) { return each(tensors, &atleast_2d); }
std::vector<Tensor> atleast_3d_sequence(TensorList tensors) { return each(tensors, &atleast_3d); }

Tensor hstack(TensorList tensors) {
  std::vector<Tensor> ts = for_stack("hstack", tensors, &atleast_1d);
  return ember::cat(ts, ts[0].dim() == 1 ? 0 : 1);
}
Tensor hstack_out(TensorList tensors, const Tensor& out) {
  std::vector<Tensor> ts = for_stack("hstack", tensors, &atleast_1d);
  return ember::cat_out(out, ts, ts[0].dim() == 1 ? 0 : 1);
}
Tensor vstack(TensorList tensors) { return ember::cat(for_stack("vstack", tensors, &atleast_2d), 0); }
Tensor vstack_out(TensorList tensors, const Tensor& out) {
  return ember::cat_out(out, for_stack("vstack", tensors, &atleast_2d), 0);
}
Tensor dstack(TensorList tensors) { return ember::cat(for_stack("dstack", tensors, &atleast_3d), 2); }
Tensor dstack_out(TensorList tensors, const Tensor& out) {
  return ember::cat_out(out, for_stack("dstack", tensors, &atleast_3d), 2);
}
Tensor column_stack(TensorList tensors) { return ember::cat(for_stack("column_stack", tensors, &as_column), 1); }
Tensor column_stack_out(TensorList tensors, const Tensor& out) {
  return ember::cat_out(out, for_stack("column_stack", tensors, &as_column), 1);
}

// Each block padded with zeros to the full width (left: the widths before it, right: those after), then the
// rows joined: no writes into a result, so autograd sees only constant_pad_nd and cat.
Tensor block_diag(TensorList tensors) {
  DType dtype = tensors.empty() ? default_dtype() : result_type(tensors);
  std::vector<Tensor> blocks;
  int64_t width = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.dim() <= 2, "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {} has {} "
                "dimensions", i, t.dim());
    blocks.push_back((t.dim() == 2 ? t : t.reshape({1, t.numel()})).to(dtype));
    width += blocks.back().size(1);
  }
  if (blocks.empty()) return ember::zeros({1, 0}, dtype);
  int64_t left = 0;
  for (Tensor& b : blocks) {
    const int64_t w = b.size(1);
    b = ember::constant_pad_nd(b, {left, width - left - w});
    left += w;
  }
  return ember::cat(blocks, 0);
}

Tensor cartesian_prod(TensorList tensors) {
  for (const Tensor& t : tensors) {
    EMBER_CHECK(t.dim() == 1, "Expect a 1D vector, but got shape [{}]", fmt::join(t.sizes(), ", "));
  }
  if (tensors.size() == 1) return tensors[0];
  std::vector<Tensor> grids = meshgrid_indexing(tensors, "ij");
  for (Tensor& g : grids) g = g.flatten();
  return ember::stack(grids, 1);
}

// ------------------------------------------------------------------------------------------ NumPy's splitting

namespace {
int64_t tensor_split_dim(const Tensor& self, int64_t& dim) {
  EMBER_CHECK(self.dim() > 0, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
  dim = checked_dim("tensor_split", dim, self.dim());
  return self.size(dim);
}
}  // namespace

std::vector<Tensor> tensor_split_sections(const Tensor& self, int64_t sections, int64_t dim) {
  const int64_t size = tensor_split_dim(self, dim);
  EMBER_CHECK(sections > 0, "number of sections must be larger than 0, got {}", sections);
  const int64_t base = size / sections, extra = size % sections;
  std::vector<Tensor> pieces;
  pieces.reserve(static_cast<size_t>(sections));
  int64_t start = 0;
  for (int64_t i = 0; i < sections; ++i) {
    const int64_t len = base + (i < extra ? 1 : 0);
    pieces.push_back(self.narrow(dim, start, len));
    start += len;
  }
  return pieces;
}

// Pieces between consecutive indices with slice's rules (negative indices wrap, all are clamped to the dim).
std::vector<Tensor> tensor_split_indices(const Tensor& self, IntArrayRef indices, int64_t dim) {
  const int64_t size = tensor_split_dim(self, dim);
  std::vector<Tensor> pieces;
  pieces.reserve(indices.size() + 1);
  int64_t start = 0;
  for (int64_t end : indices) {
    pieces.push_back(ember::slice(self, dim, start, end));
    start = end;
  }
  pieces.push_back(ember::slice(self, dim, start, size));
  return pieces;
}

std::vector<Tensor> tensor_split_tensor(const Tensor& self, const Tensor& tensor_indices_or_sections, int64_t dim) {
  const Tensor& t = tensor_indices_or_sections;
  EMBER_CHECK(t.dtype() == kInt64, "tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
              "{}", t.dtype());
  EMBER_CHECK(t.dim() <= 1, "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
              "one-dimensional tensor, but got a tensor with {} dims", t.dim());
  if (t.dim() == 0) return tensor_split_sections(self, t.item<int64_t>(), dim);
  Tensor c = t.contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  return tensor_split_indices(self, IntArrayRef(p, static_cast<size_t>(c.numel())), dim);
}

namespace {
// hsplit, vsplit and dsplit: self of at least min_dim dims, split along dim.
void check_nsplit(const char* op, const Tensor& self, int64_t min_dim) {
  EMBER_CHECK(self.dim() >= min_dim, "torch.{} requires a tensor with at least {} dimension, but got a tensor with {} "
              "dimensions!", op, min_dim, self.dim());
}
std::vector<Tensor> nsplit_sections(const char* op, const Tensor& self, int64_t sections, int64_t dim) {
  EMBER_CHECK(sections != 0 && self.size(dim) % sections == 0, "torch.{} attempted to split along dimension {}, but "
              "the size of the dimension {} is not divisible by the split_size {}!", op, dim, self.size(dim), sections);
  return tensor_split_sections(self, sections, dim);
}
}  // namespace

std::vector<Tensor> hsplit_int(const Tensor& self, int64_t sections) {
  check_nsplit("hsplit", self, 1);
  return nsplit_sections("hsplit", self, sections, self.dim() == 1 ? 0 : 1);
}
std::vector<Tensor> hsplit_array(const Tensor& self, IntArrayRef indices) {
  check_nsplit("hsplit", self, 1);
  return tensor_split_indices(self, indices, self.dim() == 1 ? 0 : 1);
}
std::vector<Tensor> vsplit_int(const Tensor& self, int64_t sections) {
  check_nsplit("vsplit", self, 2);
  return nsplit_sections("vsplit", self, sections, 0);
}
std::vector<Tensor> vsplit_array(const Tensor& self, IntArrayRef indices) {
  check_nsplit("vsplit", self, 2);
  return tensor_split_indices(self, indices, 0);
}
std::vector<Tensor> dsplit_int(const Tensor& self, int64_t sections) {
  check_nsplit("dsplit", self, 3);
  return nsplit_sections("dsplit", self, sections, 2);
}
std::vector<Tensor> dsplit_array(const Tensor& self, IntArrayRef indices) {
  check_nsplit("dsplit", self, 3);
  return tensor_split_indices(self, indices, 2);
}

}  // namespace ember::composite

// narrow_copy and the unsafe_ forms of split and chunk (ops_shape.yaml).
namespace ember::composite {

Tensor narrow_copy(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  // (PyTorch 1.13 fails an internal assert, a RuntimeError, for a dim out of range)
  EMBER_CHECK(dim >= -std::max<int64_t>(self.dim(), 1) && dim < std::max<int64_t>(self.dim(), 1),
              "narrow_copy(): dim {} is out of range for a tensor of {} dims", dim, self.dim());
  return self.narrow(dim, start, length).clone(MemoryFormat::Contiguous);
}
Tensor narrow_copy_out(const Tensor& self, int64_t dim, int64_t start, int64_t length, const Tensor& out) {
  return write_out_same_dtype("narrow_copy", out, composite::narrow_copy(self, dim, start, length));
}
std::vector<Tensor> unsafe_split(const Tensor& self, int64_t split_size, int64_t dim) {
  return ember::split(self, split_size, dim);
}
std::vector<Tensor> unsafe_split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  return ember::split_with_sizes(self, split_sizes, dim);
}
std::vector<Tensor> unsafe_chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  return ember::chunk(self, chunks, dim);
}

}  // namespace ember::composite
