// Read-only memory maps of input files (MappedFile.h).
#include "ember/serialize/MappedFile.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ember/base/Error.h"

namespace ember::serialize {

std::shared_ptr<MappedFile> MappedFile::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) EMBER_FAIL("load: '{}': {}", path, std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    EMBER_FAIL("load: '{}': {}", path, std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    EMBER_FAIL("load: '{}': {}", path, S_ISDIR(st.st_mode) ? std::strerror(EISDIR) : "not a regular file");
  }
  const auto size = static_cast<size_t>(st.st_size);
  void* data = nullptr;
  if (size > 0) {
    // MAP_PRIVATE: tensors adopting the pages may be written; their writes never reach the file.
    data = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (data == MAP_FAILED) {
      const int e = errno;
      ::close(fd);
      EMBER_FAIL("load: '{}': cannot map the file: {}", path, std::strerror(e));
    }
  }
  ::close(fd);
  return std::shared_ptr<MappedFile>(new MappedFile(path, data, size));
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(data_, size_);
}

namespace {
void release_mapping(void* ctx, void*) { delete static_cast<std::shared_ptr<MappedFile>*>(ctx); }
}  // namespace

Storage MappedFile::as_storage(const std::shared_ptr<MappedFile>& file, uint64_t offset, uint64_t nbytes) {
  if (nbytes == 0) return make_intrusive<StorageImpl>(0);
  auto* keep = new std::shared_ptr<MappedFile>(file);
  char* base = static_cast<char*>(file->data_);
  return make_intrusive<StorageImpl>(base ? base + offset : nullptr, static_cast<size_t>(nbytes), release_mapping,
                                     keep);
}

}  // namespace ember::serialize
