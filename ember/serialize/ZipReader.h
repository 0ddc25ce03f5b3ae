#pragma once
// Reading zip archives from outside with libzip, bounded (Note [zip reader limits]): Ember's own archive
// (EmberFormat.cpp) and torch.save's zip checkpoints (TorchCheckpoint.cpp) both read through it.
//
// Note [zip reader limits]
// An entry is read only after its directory record is checked against the archive: its compressed size fits in
// the archive, a stored entry's sizes agree, a deflated entry claims no more than deflate's best ratio (about
// 1032:1) of its compressed size, no encryption and no other method, and the compressed sizes of all entries
// read add up to at most the archive's size (directory records pointing at the same bytes, a zip-bomb trick,
// would otherwise let a small file allocate any number of copies). Reads check the CRC (libzip does, once an
// entry is read to its end). Errors: RuntimeError "load: '<file>': <problem>".
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ember/base/Error.h"

struct zip;

namespace ember::serialize {

/// An open zip archive (a file or bytes in memory) read under Note [zip reader limits].
class ZipReader {
 public:
  /// Opens the file at path. Errors: a missing, empty or unreadable file, not a zip archive.
  static ZipReader open_file(const std::string& path);
  /// Opens an archive held in memory (kept alive by the caller); name stands for it in errors.
  static ZipReader open_bytes(std::string_view data, std::string_view name);

  ZipReader(ZipReader&&) noexcept;
  ~ZipReader();

  /// The name of the archive in errors.
  const std::string& file() const { return file_; }
  /// The archive's size in bytes.
  uint64_t archive_size() const { return archive_size_; }
  /// The names of all entries, in the central directory's order.
  std::vector<std::string> names() const;
  /// The index of an entry, or -1.
  int64_t find(std::string_view name) const;
  /// The index of an entry. Errors: no such entry.
  int64_t locate(std::string_view name) const;
  /// The uncompressed size of entry idx after the checks of Note [zip reader limits]; `expected`, when given,
  /// must equal it (what `source` says, e.g. "the manifest"). Each entry may be sized once (its compressed size
  /// counts towards the archive's).
  uint64_t checked_size(int64_t idx, std::string_view name, const uint64_t* expected = nullptr,
                        std::string_view source = "the manifest");
  /// Reads exactly n bytes of entry idx into dst and verifies the CRC. Errors: shorter or longer, corrupt.
  void read(int64_t idx, std::string_view name, void* dst, uint64_t n) const;
  /// checked_size + read into a string.
  std::string read_all(std::string_view name, uint64_t max_bytes);

  /// Raises RuntimeError "load: '<file>': <message>".
  template <class... A>
  [[noreturn]] void fail(fmt::format_string<A...> f, A&&... a) const;

 private:
  ZipReader(zip* za, std::string file, uint64_t size);
  zip* za_;
  std::string file_;
  uint64_t archive_size_;
  uint64_t compressed_total_ = 0;
};

template <class... A>
void ZipReader::fail(fmt::format_string<A...> f, A&&... a) const {
  EMBER_FAIL("load: '{}': {}", file_, fmt::format(f, std::forward<A>(a)...));
}

}  // namespace ember::serialize
