// Indexing ops written with other ops (ops_index.yaml): the numpy-style forms of nonzero.
#include "ember/ops/generated/CompositeKernels.h"

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

}  // namespace ember::composite
