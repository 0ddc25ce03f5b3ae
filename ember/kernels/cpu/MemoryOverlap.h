#pragma once
// Whether tensors share memory: the checks behind in-place, out= and copy_ aliasing rules (Note [memory overlap]).
#include <cstdint>
#include <utility>

#include "ember/core/Tensor.h"

namespace ember::cpu {

// Note [memory overlap]
// As PyTorch (its documented MemoryOverlap rules), an op refuses to write through an output whose elements alias
// each other (a stride-0 dim of size > 1: an expanded tensor), and an output that partly overlaps an input (the
// same memory range with other strides, or an intersecting range): the result would depend on the order of the
// loop. An input that is the output itself (in place, the same geometry) is fine for elementwise ops; ops that read
// an input at other positions than they write (index_select, gather, scatter's src, masked_select) refuse any
// overlap. Overlaps of views that are not dense are too hard to decide cheaply and pass, as in PyTorch; kernels
// that read such an input after writing (copy_) copy it first, so the result is still the one of reading everything
// before writing anything. Every check names the op.

/// Whether a tensor's own elements alias each other: No (dense), Yes (a stride-0 dim of size > 1), TooHard.
enum class MemOverlap { No, Yes, TooHard };
/// How two tensors' memory relates: No (disjoint or different storages), Full (the same elements, same strides),
/// Partial (intersecting otherwise), TooHard (a view that is not dense).
enum class MemOverlapStatus { No, Full, Partial, TooHard };

/// True when the elements of t, in some order of its dims, tile one contiguous block (PyTorch's
/// is_non_overlapping_and_dense); dims of size 1 are ignored.
bool non_overlapping_and_dense(const Tensor& t);
MemOverlap has_internal_overlap(const Tensor& t);
MemOverlapStatus get_overlap_status(const Tensor& a, const Tensor& b);

/// Raises RuntimeError "<op>: unsupported operation: more than one element of the written-to tensor refers to a
/// single memory location..." when t has internal overlap (Yes).
void assert_no_internal_overlap(const char* op, const Tensor& t);
/// Raises "<op>: unsupported operation: some elements of the input tensor and the written-to tensor refer to a
/// single memory location..." when a and b overlap partially (Full is allowed: in place).
void assert_no_partial_overlap(const char* op, const Tensor& a, const Tensor& b);
/// The same error for any overlap, Full included.
void assert_no_overlap(const char* op, const Tensor& a, const Tensor& b);

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
