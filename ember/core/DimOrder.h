// The dim order of a dense layout that follows other tensors' strides (Note [output layout] in
// ember/kernels/cpu/TensorIterator.cpp): shared by infer_dense_strides (MemoryFormat.cpp) and TensorIterator's
// output allocation, which differ only in what decides whether two dims should swap.
#pragma once

#include <cstddef>
#include <utility>

#include "ember/base/SmallVector.h"

namespace ember {

/// The dims 0..nd-1 innermost first. Starts from row-major order and moves each dim inwards past the dims inside
/// it while should_swap(inner, outer) is positive (the inner dim belongs outside), stopping at the first negative
/// answer; 0 is no opinion (PyTorch's insertion sort of infer_dense_strides / reorder_dimensions). The result is
/// row-major ({nd-1, ..., 0}) exactly when no swap happened: an insertion never undoes an earlier one.
template <class ShouldSwap>
SmallVector<size_t, 6> innermost_first_dim_order(size_t nd, ShouldSwap&& should_swap) {
  SmallVector<size_t, 6> perm(nd);
  for (size_t i = 0; i < nd; ++i) perm[i] = nd - 1 - i;
  for (size_t i = 1; i < nd; ++i) {
    size_t d1 = i;
    for (size_t d0 = i; d0-- > 0;) {
      int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  return perm;
}

}  // namespace ember
