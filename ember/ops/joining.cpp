// Joining and splitting written with other ops: stack (cat of unsqueezed tensors), the list-of-views ops
// split / split_with_sizes / chunk / unbind (narrow and select, so every piece is a view of self), and
// repeat (a copy into an interleaved view of the result). The errors are PyTorch 1.13's, prefixed with the
// op name.
#include "ember/ops/generated/CompositeKernels.h"
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

Tensor concat(TensorList tensors, int64_t dim) { return ember::cat(tensors, dim); }

Tensor concat_out(TensorList tensors, int64_t dim, const Tensor& out) { return ember::cat_out(out, tensors, dim); }

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

}  // namespace ember::composite
