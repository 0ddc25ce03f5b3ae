#pragma once
// The size check the readers of untrusted files (GGUF, safetensors, NumPy arrays in pickles) share for a shape
// read from a file, one size at a time.
#include <algorithm>
#include <cstdint>

namespace ember::serialize {

/// Multiplies one size of a shape into numel (the element count) and extent (the product with sizes of 0
/// counted as 1: what contiguous strides multiply, so a 0 beside huge sizes cannot overflow them). False when
/// the size or the extent (never below numel) passes INT64_MAX; the caller refuses the file then.
inline bool accumulate_size(uint64_t size, uint64_t& numel, uint64_t& extent) {
  constexpr auto kMax = static_cast<uint64_t>(INT64_MAX);
  return size <= kMax && !__builtin_mul_overflow(numel, size, &numel) &&
         !__builtin_mul_overflow(extent, std::max<uint64_t>(size, 1), &extent) && extent <= kMax;
}

}  // namespace ember::serialize
