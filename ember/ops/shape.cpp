#include "ember/ops/shape.h"

#include <algorithm>

#include "ember/base/Error.h"
#include "ember/core/TensorImpl.h"

namespace ember {

int64_t checked_dim(const char* op, int64_t dim, int64_t ndim) {
  const int64_t n = std::max<int64_t>(ndim, 1);
  EMBER_CHECK_INDEX(dim >= -n && dim < n,
                    "{}: Dimension out of range (expected to be in range of [{}, {}], but got {})", op, -n, n - 1, dim);
  return dim < 0 ? dim + n : dim;
}

DimVector infer_size(IntArrayRef shape, int64_t numel, const char* op) {
  DimVector r(shape);
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      EMBER_CHECK(infer < 0, "only one dimension can be inferred");
      infer = static_cast<int64_t>(i);
    } else {
      EMBER_CHECK(shape[i] >= 0, "invalid shape dimension {}", shape[i]);
      known *= shape[i];
    }
  }
  bool ok = infer >= 0 ? (known > 0 && numel % known == 0) : known == numel;
  EMBER_CHECK(ok, "{}: shape '[{}]' is invalid for input of size {}",
              op, fmt::join(shape, ", "), numel);
  if (infer >= 0) r[infer] = numel / known;
  return r;
}

// Walks the old dims from the innermost outwards in groups that are contiguous among themselves ("chunks"),
// and matches each chunk with a run of new dims of the same total size; the new dims of a chunk get strides
// derived from the chunk's innermost stride.
std::optional<DimVector> compute_view_strides(IntArrayRef sizes, IntArrayRef strides, IntArrayRef new_sizes) {
  DimVector out(new_sizes.size());
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  if (numel == 0 && sizes.equals(new_sizes)) return DimVector(strides);  // as PyTorch (and NumPy)
  if (numel == 0 || sizes.empty()) {
    // Any other view of an empty or 0-dim tensor is fine: use contiguous strides (which wrap around as
    // PyTorch's for an empty tensor of huge sizes, without undefined behaviour).
    return contiguous_strides(new_sizes);
  }
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  int64_t chunk_base_stride = strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= sizes[d];
    // A chunk ends at d when d is the outermost dim or the next outer dim does not continue it contiguously.
    if (d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

}  // namespace ember
