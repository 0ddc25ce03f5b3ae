#pragma once
// Whether two tensors may share memory: the check behind out= and copy_ aliasing rules in the kernels.
#include <cstdint>
#include <utility>

#include "ember/core/Tensor.h"

namespace ember::cpu {

/// True when a and b view the same storage and their byte ranges (from the first to the last element each
/// can reach) intersect. Conservative: interleaved strided views that never touch the same element count as
/// overlapping. Empty tensors overlap nothing.
inline bool may_overlap(const Tensor& a, const Tensor& b) {
  if (a.numel() == 0 || b.numel() == 0 || a.impl()->storage().get() != b.impl()->storage().get()) return false;
  auto range = [](const Tensor& t) {
    int64_t lo = t.storage_offset(), hi = lo;
    for (int64_t d = 0; d < t.dim(); ++d) hi += (t.size(d) - 1) * t.stride(d);
    return std::pair<int64_t, int64_t>{lo * t.element_size(), (hi + 1) * t.element_size()};
  };
  auto [alo, ahi] = range(a);
  auto [blo, bhi] = range(b);
  return alo < bhi && blo < ahi;
}

}  // namespace ember::cpu
