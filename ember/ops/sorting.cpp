// Sorting ops written with sort (ember/kernels/cpu/sort.cpp): argsort.
#include "ember/ops/generated/CompositeKernels.h"

namespace ember::composite {

Tensor argsort(const Tensor& self, int64_t dim, bool descending) {
  return std::get<1>(ember::sort(self, dim, descending));
}

Tensor argsort_stable(const Tensor& self, bool stable, int64_t dim, bool descending) {
  return std::get<1>(ember::sort(self, stable, dim, descending));
}

}  // namespace ember::composite
