#pragma once
// Shape arithmetic shared by the view ops and the shape rules.
#include <optional>

#include "ember/base/ArrayRef.h"

namespace ember {

/// The shape `shape` with its one -1 entry (if any) resolved so the product is numel. Errors: more than one
/// -1, a negative size other than -1, or a product that cannot match numel ("shape '[2, 5]' is invalid for
/// input of size 6", RuntimeError).
DimVector infer_size(IntArrayRef shape, int64_t numel, const char* op);

/// Strides for viewing a tensor of (sizes, strides) with new_sizes without copying, or nullopt when the
/// memory layout does not allow it (a merged group of dims must be contiguous among themselves).
std::optional<DimVector> compute_view_strides(IntArrayRef sizes, IntArrayRef strides, IntArrayRef new_sizes);

/// dim wrapped into [0, ndim) (a 0-dim tensor accepts -1 and 0), for op. Errors: IndexError "<op>: Dimension out
/// of range (expected to be in range of [-ndim, ndim-1], but got dim)" (PyTorch's message after the op name).
int64_t checked_dim(const char* op, int64_t dim, int64_t ndim);

}  // namespace ember
