#pragma once
// A writer of zip archives whose entries are stored (not compressed), for ember/serialize.
//
// Note [zip writer]
// Archives are read with libzip, but written here: libzip copies every entry through an 8 KiB buffer into
// stdio (and into a fragmented buffer for in-memory archives), which made saving a 100 MB state dict four
// times slower than torch.save (and in memory thirty times). A stored entry is only a header, the bytes and a
// CRC, so this writer emits each storage with one write() straight from the tensor's memory. Every entry and
// the end record use the ZIP64 fields, whatever the sizes, so the path that archives over 4 GiB take is the
// one every archive takes (and every test exercises). File names are UTF-8 (flag bit 11); entries carry a fixed
// date (1980-01-01) so the same object always gives the same bytes.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ember::serialize::detail {

/// Where archive bytes go: a file descriptor or a string.
class ByteSink {
 public:
  virtual ~ByteSink() = default;
  /// Appends n bytes. Errors: RuntimeError (I/O failure).
  virtual void write(const void* data, size_t n) = 0;
};

/// Writes the archive's entries in order, then the central directory on finish().
class ZipWriter {
 public:
  explicit ZipWriter(ByteSink& sink) : sink_(sink) {}
  /// Adds a stored entry holding the n bytes at data.
  void add(std::string_view name, const void* data, uint64_t n);
  /// Writes the central directory and the end records; the writer is done afterwards.
  void finish();
  /// Total size of an archive with entries of these name lengths and data sizes (for reserving memory).
  static uint64_t archive_size(const std::vector<std::pair<size_t, uint64_t>>& entries);

 private:
  struct Record {
    std::string name;
    uint32_t crc;
    uint64_t size, offset;
  };
  void put(const std::string& bytes);
  ByteSink& sink_;
  uint64_t offset_ = 0;
  std::vector<Record> records_;
};

}  // namespace ember::serialize::detail
