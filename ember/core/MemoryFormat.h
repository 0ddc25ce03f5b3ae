#pragma once
// Note [memory formats]
// A memory format names an order of a tensor's dims in memory, as PyTorch's torch.memory_format: Contiguous
// (row-major), ChannelsLast (a 4-d NCHW tensor stored as NHWC) and ChannelsLast3d (5-d NCDHW stored as NDHWC),
// plus Preserve, a request ("keep the layout self has") that factories like empty_like and clone resolve.
// The format is not stored: as in PyTorch, it is read off the strides. A tensor may be contiguous in both
// formats at once (N,C,1,1 with C=1, say); the question "which format is this?" is answered by
// suggest_memory_format, which prefers Contiguous when both fit.
#include <cstdint>

#include "ember/base/ArrayRef.h"
#include "ember/base/SmallVector.h"

namespace ember {

/// A memory layout request for empty/contiguous/clone/to (PyTorch's torch.memory_format).
enum class MemoryFormat : int8_t { Contiguous = 0, Preserve = 1, ChannelsLast = 2, ChannelsLast3d = 3 };

/// The name Python prints: "contiguous_format", "preserve_format", "channels_last", "channels_last_3d".
const char* memory_format_name(MemoryFormat f);

/// Strides laying `sizes` out in format `f` (Contiguous or a channels-last format; not Preserve). Sizes of 0
/// multiply as PyTorch's (a zero-size dim makes the strides outside it 0 for channels-last, 1 for row-major).
/// Errors: ChannelsLast on a tensor that is not 4-d ("required rank 4 tensor to use channels_last format"),
/// ChannelsLast3d not 5-d; Preserve.
DimVector strides_for_memory_format(IntArrayRef sizes, MemoryFormat f);

/// Whether (sizes, strides) is exactly the layout `f` would allocate, ignoring the strides of size-1 dims
/// (PyTorch's is_contiguous(memory_format)). Preserve is an error.
bool is_contiguous_in(IntArrayRef sizes, IntArrayRef strides, MemoryFormat f);

/// Whether the strides order the dims as channels-last does (C innermost, then W, H, N) although they may
/// have gaps — PyTorch's is_strides_like_channels_last, the test behind suggest_memory_format. False for
/// ranks other than 4 (ChannelsLast) and 5 (ChannelsLast3d).
bool is_strides_like(IntArrayRef sizes, IntArrayRef strides, MemoryFormat f);

/// The format a result computed from this tensor should take: ChannelsLast(3d) when the strides are
/// channels-last-like, else Contiguous (PyTorch's Tensor::suggest_memory_format).
MemoryFormat suggest_memory_format(IntArrayRef sizes, IntArrayRef strides);

/// Whether the elements fill one block of memory exactly once in some dim order (a permutation of a contiguous
/// tensor, e.g. a transpose or a channels-last tensor): PyTorch's is_non_overlapping_and_dense. Empty tensors
/// are not.
bool is_non_overlapping_and_dense(IntArrayRef sizes, IntArrayRef strides);

/// Dense strides that keep the order of the dims by stride (smallest stride innermost; equal strides keep the
/// smaller dim inside; broadcast dims, of stride 0, keep their place): PyTorch's infer_dense_strides, the
/// layout empty_like(preserve_format) gives a tensor that is not dense.
DimVector infer_dense_strides(IntArrayRef sizes, IntArrayRef strides);

}  // namespace ember
