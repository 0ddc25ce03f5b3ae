// Indexing ops written with other ops (ops_index.yaml): the numpy-style forms of nonzero; take and
// take_along_dim (index_select and gather of flattened or broadcast operands).
#include "ember/ops/generated/CompositeKernels.h"
#include "ember/ops/linalg.h"
#include "ember/ops/out.h"
#include "ember/ops/shape.h"

namespace ember::composite {

std::vector<Tensor> nonzero_numpy(const Tensor& self) {
  // A 0-dim tensor counts as one element of a 1-D tensor, as NumPy (and PyTorch) do.
  Tensor nz = self.dim() == 0 ? self.unsqueeze(0).nonzero() : self.nonzero();
  std::vector<Tensor> columns;
  columns.reserve(static_cast<size_t>(nz.size(1)));
  for (int64_t j = 0; j < nz.size(1); ++j) columns.push_back(nz.select(1, j));
  return columns;
}

Tensor argwhere(const Tensor& self) { return self.nonzero(); }

std::vector<Tensor> where_condition(const Tensor& condition) { return condition.nonzero_numpy(); }

// The indices are checked and wrapped (negative ones count from the end) on the host, then index_select of the
// flattened self takes the elements (its backward accumulates repeated indices).
Tensor take(const Tensor& self, const Tensor& index) {
  EMBER_CHECK(index.dtype() == kInt64, "take(): Expected a long tensor for index, but got {}",
              linalg::scalar_type_name(index.dtype()));
  const int64_t n = self.numel();
  EMBER_CHECK_INDEX(n > 0 || index.numel() == 0, "take(): tried to take from an empty tensor");
  Tensor idx = index.reshape({-1}).contiguous();
  Tensor wrapped = ember::empty({idx.numel()}, kInt64);
  const int64_t* in = idx.data_ptr<int64_t>();
  int64_t* w = wrapped.data_ptr<int64_t>();
  for (int64_t i = 0; i < idx.numel(); ++i) {
    EMBER_CHECK_INDEX(in[i] >= -n && in[i] < n, "out of range: tried to access index {} on a tensor of {} elements.",
                      in[i], n);
    w[i] = in[i] < 0 ? in[i] + n : in[i];
  }
  return self.reshape({-1}).index_select(0, wrapped).view(index.sizes());
}
Tensor take_out(const Tensor& self, const Tensor& index, const Tensor& out) {
  return write_out("take", out, composite::take(self, index));
}

Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  EMBER_CHECK(indices.dtype() == kInt64, "torch.take_along_dim(): dtype of indices should be Long but got {}",
              linalg::scalar_type_name(indices.dtype()));
  if (!dim) return self.view({-1}).gather(0, indices.view({-1}));
  EMBER_CHECK(self.dim() == indices.dim(), "torch.take_along_dim(): input and indices should have the same number of "
              "dimensions, but got {} dimensions for input, and {} dimensions for indices", self.dim(), indices.dim());
  const int64_t d = checked_dim("take_along_dim", *dim, self.dim());
  // Every dim but d broadcast between the two; along d, indices keeps its size and self its own.
  DimVector self_sizes(self.sizes().begin(), self.sizes().end()), index_sizes(indices.sizes().begin(),
                                                                             indices.sizes().end());
  if (self.dim() > 0) {
    self_sizes[d] = indices.size(d);
    index_sizes[d] = self.size(d);
  }
  Tensor idx = indices.expand(broadcast_shapes(self_sizes, indices.sizes()));
  return self.expand(broadcast_shapes(index_sizes, self.sizes())).gather(d, idx);
}
Tensor take_along_dim_out(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim, const Tensor& out) {
  return write_out("take_along_dim", out, composite::take_along_dim(self, indices, dim));
}

}  // namespace ember::composite
