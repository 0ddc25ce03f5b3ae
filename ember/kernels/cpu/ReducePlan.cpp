// Making reduction plans (Note [reductions] in ReducePlan.h).
#include "ember/kernels/cpu/ReducePlan.h"

namespace ember::cpu {

DimVector reduce_dims(const Tensor& self, OptionalIntArrayRef dims) {
  int64_t nd = self.dim();
  DimVector r;
  if (!dims || dims->empty()) {
    for (int64_t d = 0; d < nd; ++d) r.push_back(d);
    return r;
  }
  uint64_t seen = 0;
  for (int64_t d : *dims) {
    int64_t w = wrap_dim(d, nd);
    EMBER_CHECK(!(seen >> w & 1), "dim {} appears multiple times in the list of dims", w);
    seen |= uint64_t{1} << w;
  }
  for (int64_t d = 0; d < std::max<int64_t>(nd, 1); ++d)
    if (seen >> d & 1 && d < nd) r.push_back(d);
  return r;
}

DimVector reduced_sizes(IntArrayRef sizes, IntArrayRef dims, bool keepdim) {
  DimVector r;
  size_t k = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    bool reduced = k < dims.size() && dims[k] == static_cast<int64_t>(d);
    if (reduced) ++k;
    if (!reduced) r.push_back(sizes[d]);
    else if (keepdim) r.push_back(1);
  }
  return r;
}

namespace {
// Merges neighbouring dims (outer into inner) where the outer stride continues the inner one; drops size-1 dims.
void coalesce(DimVector& sizes, DimVector& strides) {
  DimVector s, t;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 1) continue;
    if (!s.empty() && t.back() == strides[i] * sizes[i]) {
      s.back() *= sizes[i];
      t.back() = strides[i];
    } else {
      s.push_back(sizes[i]);
      t.push_back(strides[i]);
    }
  }
  sizes = s;
  strides = t;
}
}  // namespace

ReducePlan make_reduce_plan(const Tensor& self, IntArrayRef dims) {
  ReducePlan p;
  size_t k = 0;
  for (int64_t d = 0; d < self.dim(); ++d) {
    bool reduced = k < dims.size() && dims[k] == d;
    if (reduced) {
      ++k;
      p.red_sizes.push_back(self.sizes()[d]);
      p.red_strides.push_back(self.strides()[d]);
    } else {
      p.kept_sizes.push_back(self.sizes()[d]);
      p.kept_strides.push_back(self.strides()[d]);
    }
  }
  for (int64_t s : p.kept_sizes) p.num_outputs *= s;
  for (int64_t s : p.red_sizes) p.num_reduced *= s;
  bool one_dim = p.red_sizes.size() == 1;  // keep a single reduced dim as is: indices are positions along it
  coalesce(p.kept_sizes, p.kept_strides);
  if (!one_dim) coalesce(p.red_sizes, p.red_strides);
  if (p.red_sizes.empty()) {
    p.red_sizes.push_back(1);
    p.red_strides.push_back(0);
  }
  return p;
}

}  // namespace ember::cpu
