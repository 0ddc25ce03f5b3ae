#pragma once
// The layout of results computed by kernels that work on row-major memory (pooling, normalisation).
#include "ember/core/Tensor.h"
#include "ember/ops/Functions.h"

namespace ember::cpu {

/// t with exactly the strides `f` allocates (Note [memory formats]): t itself when it has them, else a copy.
/// (contiguous(f) keeps a tensor whose size-1 dims have other strides; PyTorch's kernels allocate outputs
/// with exactly these strides, which a user sees in stride().)
inline Tensor in_format(const Tensor& t, MemoryFormat f) {
  const DimVector want = strides_for_memory_format(t.sizes(), f);
  if (t.strides().equals(want)) return t;
  return ember::empty(t.sizes(), t.dtype(), std::nullopt, f).copy_(t);
}

/// `result`, computed row-major, in the channels-last format of `like` when `like` has one (Note [memory
/// formats]): PyTorch's pooling and batch-norm kernels return channels-last results for channels-last inputs.
/// Costs one copy in that case; row-major inputs cost nothing.
inline Tensor in_format_of(const Tensor& result, const Tensor& like) {
  const MemoryFormat f = like.suggest_memory_format();
  return f == MemoryFormat::Contiguous || result.dim() != like.dim() ? result : in_format(result, f);
}

}  // namespace ember::cpu
