#include "ember/core/MemoryFormat.h"

#include "ember/base/Error.h"
#include "ember/core/DimOrder.h"

namespace ember {

namespace {
// The dims of a channels-last tensor from innermost to outermost: C, then the spatial dims from last to first,
// then N. Null for a rank the format does not apply to.
const int* channels_last_order(MemoryFormat f, size_t ndim) {
  static constexpr int k2d[] = {1, 3, 2, 0};
  static constexpr int k3d[] = {1, 4, 3, 2, 0};
  if (f == MemoryFormat::ChannelsLast && ndim == 4) return k2d;
  if (f == MemoryFormat::ChannelsLast3d && ndim == 5) return k3d;
  return nullptr;
}

void check_rank(MemoryFormat f, size_t ndim) {
  EMBER_CHECK(f != MemoryFormat::ChannelsLast || ndim == 4, "required rank 4 tensor to use channels_last format");
  EMBER_CHECK(f != MemoryFormat::ChannelsLast3d || ndim == 5,
              "required rank 5 tensor to use channels_last_3d format");
}
}  // namespace

const char* memory_format_name(MemoryFormat f) {
  switch (f) {
    case MemoryFormat::Contiguous: return "contiguous_format";
    case MemoryFormat::Preserve: return "preserve_format";
    case MemoryFormat::ChannelsLast: return "channels_last";
    case MemoryFormat::ChannelsLast3d: return "channels_last_3d";
  }
  return "?";
}

DimVector strides_for_memory_format(IntArrayRef sizes, MemoryFormat f) {
  EMBER_CHECK(f != MemoryFormat::Preserve, "unsupported memory format Preserve: it asks to keep a tensor's layout");
  DimVector strides(sizes.size());
  if (f == MemoryFormat::Contiguous) {
    int64_t s = 1;  // row-major; a size of 0 counts as 1 (PyTorch's contiguous strides)
    for (size_t i = sizes.size(); i-- > 0;) {
      strides[i] = s;
      s *= sizes[i] > 1 ? sizes[i] : 1;
    }
    return strides;
  }
  check_rank(f, sizes.size());
  const int* order = channels_last_order(f, sizes.size());
  int64_t s = 1;  // PyTorch multiplies the sizes as they are here, zeros included
  for (size_t i = 0; i < sizes.size(); ++i) {
    strides[order[i]] = s;
    s *= sizes[order[i]];
  }
  return strides;
}

bool is_contiguous_in(IntArrayRef sizes, IntArrayRef strides, MemoryFormat f) {
  EMBER_CHECK(f != MemoryFormat::Preserve, "is_contiguous: unsupported memory format Preserve");
  const size_t nd = sizes.size();
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  if (f == MemoryFormat::Contiguous) {
    if (numel == 0) return true;
    int64_t expected = 1;
    for (size_t i = nd; i-- > 0;) {
      if (sizes[i] == 1) continue;
      if (strides[i] != expected) return false;
      expected *= sizes[i];
    }
    return true;
  }
  const int* order = channels_last_order(f, nd);
  if (!order) return false;
  int64_t expected = 1;  // no shortcut for empty tensors here: PyTorch's channels-last tests have none
  for (size_t i = 0; i < nd; ++i) {
    int d = order[i];
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

bool is_strides_like(IntArrayRef sizes, IntArrayRef strides, MemoryFormat f) {
  const int* order = channels_last_order(f, sizes.size());
  if (!order || strides[1] == 0) return false;
  // Walking from C outwards, each dim's stride must be at least what the dims inside it span. An N,1,1,1
  // layout whose N stride equals C's is ambiguous and counts as row-major.
  int64_t min = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    int d = order[i];
    if (sizes[d] == 0 || strides[d] < min) return false;
    if (d == 0 && min == strides[1]) return false;
    min = strides[d];
    if (sizes[d] > 1) min *= sizes[d];
  }
  return true;
}

MemoryFormat suggest_memory_format(IntArrayRef sizes, IntArrayRef strides) {
  if (is_strides_like(sizes, strides, MemoryFormat::ChannelsLast)) return MemoryFormat::ChannelsLast;
  if (is_strides_like(sizes, strides, MemoryFormat::ChannelsLast3d)) return MemoryFormat::ChannelsLast3d;
  return MemoryFormat::Contiguous;
}

bool is_non_overlapping_and_dense(IntArrayRef sizes, IntArrayRef strides) {
  const size_t nd = sizes.size();
  if (nd == 1) return sizes[0] < 2 || strides[0] == 1;
  // Dims of size < 2 place no element apart from another: ignore them; sort the rest by stride (insertion
  // sort on a small array, no allocation) and require each to span exactly the dims inside it.
  SmallVector<size_t, 6> perm;
  for (size_t d = 0; d < nd; ++d)
    if (sizes[d] >= 2) perm.push_back(d);
  for (size_t i = 1; i < perm.size(); ++i)
    for (size_t j = i; j > 0 && strides[perm[j]] < strides[perm[j - 1]]; --j) std::swap(perm[j], perm[j - 1]);
  int64_t expected = 1;
  for (size_t d : perm) {
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

DimVector infer_dense_strides(IntArrayRef sizes, IntArrayRef strides) {
  const size_t nd = sizes.size();
  // A dim moves inwards while the one inside it should be outside (larger stride, or equal stride and larger
  // size). Stride-0 dims never move.
  const SmallVector<size_t, 6> perm = innermost_first_dim_order(nd, [&](size_t inner, size_t outer) {
    if (strides[inner] == 0 || strides[outer] == 0) return 0;
    if (strides[inner] != strides[outer]) return strides[inner] < strides[outer] ? -1 : 1;
    return sizes[inner] > sizes[outer] ? 1 : 0;
  });
  DimVector out(nd);
  int64_t s = 1;
  for (size_t i = 0; i < nd; ++i) {
    out[perm[i]] = s;
    if (sizes[perm[i]] > 1) s *= sizes[perm[i]];
  }
  return out;
}

}  // namespace ember
