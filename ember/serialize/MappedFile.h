#pragma once
// A file mapped read-only into memory (mmap), for the readers that take bytes in place: torch.save's legacy
// format, safetensors, GGUF. Tensors may adopt ranges of the mapping (as_storage), which keeps it alive.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "ember/core/Storage.h"

namespace ember::serialize {

/// The bytes of a file, mapped read-only and private; shared by every storage adopted from it.
class MappedFile {
 public:
  /// Maps the file at path. Errors: RuntimeError "load: '<path>': <reason>" (missing, a directory, unreadable).
  static std::shared_ptr<MappedFile> open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }
  const std::string& path() const { return path_; }

  /// A storage over bytes [offset, offset + nbytes) of the mapping, copy-on-write (writes stay in this process's
  /// memory, the file is never changed), keeping the mapping alive. The caller checks the range.
  static Storage as_storage(const std::shared_ptr<MappedFile>& file, uint64_t offset, uint64_t nbytes);

 private:
  MappedFile(std::string path, void* data, size_t size) : path_(std::move(path)), data_(data), size_(size) {}
  std::string path_;
  void* data_;
  size_t size_;
};

}  // namespace ember::serialize
