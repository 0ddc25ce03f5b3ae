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

}  // namespace ember
