#pragma once
// Readers of the IDX format, the file format of MNIST and Fashion-MNIST. See Note [IDX format].
#include <string>
#include <string_view>

#include "ember/core/Tensor.h"

namespace ember::data {

/// Reads an IDX file, plain or gzip-compressed (detected from its first bytes, not its name), into a new
/// contiguous CPU tensor whose dtype follows the file's type code (0x08 uint8, 0x09 int8, 0x0B int16,
/// 0x0C int32, 0x0D float32, 0x0E float64) and whose sizes are the dimensions of its header (a header with
/// zero dimensions gives a 0-dim tensor of one element). Multi-byte values are converted from the file's
/// big-endian order.
///
/// Errors (ember::Error, RuntimeError in Python), each naming the file: the file is missing or unreadable;
/// the header is shorter than its dimensions say; bad magic (the first two bytes must be zero); an unknown
/// type code; dimensions whose product overflows or that the file cannot possibly hold; data shorter than the
/// dimensions require ("expected N bytes of data, got M"); bytes after the data; a corrupt gzip stream;
/// bytes after the gzip stream that are neither another gzip member nor zero padding ("trailing garbage",
/// with their offset). Concatenated gzip members are read as one stream, as gzip -d and Python's gzip module
/// read them (Note [gzip members]). A corrupt header never allocates more than the file can hold.
Tensor read_idx(const std::string& path);

/// read_idx() of a file held in memory (plain or gzip, the same checks and errors); `name` stands for the file
/// in error messages.
Tensor read_idx_from_bytes(std::string_view data, std::string_view name = "<bytes>");

}  // namespace ember::data
