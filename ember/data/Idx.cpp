#include "ember/data/Idx.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <climits>
#include <cstring>
#include <optional>
#include <vector>

#include "ember/ops/Functions.h"

// Note [IDX format]
// An IDX file is a 4-byte magic number, then one big-endian uint32 per dimension, then the values in row-major
// order, big-endian, with nothing after them. The magic is two zero bytes, a type code and the number of
// dimensions (0..255). MNIST-style data sets ship the files gzip-compressed; zlib's gz* functions read a gzip
// stream and, transparently, a plain file, so one code path serves both and the file name does not matter.
//
// A corrupt header must not make the reader allocate what the file cannot hold (a flipped bit in a dimension
// asks for gigabytes). Before allocating, the data size the header asks for is checked against the file: a
// plain file must hold exactly that many bytes after the header; a gzip file of S bytes cannot inflate to
// more than about 1032 * S bytes (deflate's best ratio), so the request is bounded by that. Both checks need
// the size of the file, hence open() + fstat() + gzdopen() rather than gzopen(); when the size is unknown (a
// pipe), the read itself finds truncation.
//
// zlib stops at the end of the (last) gzip member and ignores non-gzip bytes after it, so "trailing garbage"
// is detected in the decompressed data: bytes after the values the header describes.

namespace ember::data {
namespace {

constexpr int64_t kDeflateMaxRatio = 1032;
constexpr unsigned kGzBufferBytes = 1 << 18;  // zlib reads the file in pieces of this size (default 8 KiB)

/// The dtype of an IDX type code, or nullopt for an unknown code.
std::optional<DType> idx_dtype(uint8_t code) {
  switch (code) {
    case 0x08: return kUInt8;
    case 0x09: return kInt8;
    case 0x0B: return kInt16;
    case 0x0C: return kInt32;
    case 0x0D: return kFloat32;
    case 0x0E: return kFloat64;
    default: return std::nullopt;
  }
}

/// An open IDX file: a zlib reader over a file descriptor, with the file's size when it is a regular file.
class IdxFile {
 public:
  explicit IdxFile(const std::string& path) : path_(path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    EMBER_CHECK(fd >= 0, "read_idx: cannot open '{}': {}", path, std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
      int err = S_ISDIR(st.st_mode) ? EISDIR : errno;
      ::close(fd);
      EMBER_FAIL("read_idx: cannot read '{}': {}", path, std::strerror(err));
    }
    if (S_ISREG(st.st_mode)) file_size_ = static_cast<int64_t>(st.st_size);
    gz_ = gzdopen(fd, "rb");
    if (gz_ == nullptr) {
      ::close(fd);
      EMBER_FAIL("read_idx: cannot read '{}': out of memory for the zlib reader", path);
    }
    gzbuffer(gz_, kGzBufferBytes);
  }
  IdxFile(const IdxFile&) = delete;
  IdxFile& operator=(const IdxFile&) = delete;
  ~IdxFile() { gzclose(gz_); }

  /// Reads up to n bytes into buf and returns how many were read: fewer only at the end of the data. Throws
  /// on a corrupt gzip stream or a read error; a gzip stream cut short counts as the end (the caller reports
  /// the truncation, with `cut_short()` telling why).
  int64_t read(void* buf, int64_t n) {
    auto* p = static_cast<unsigned char*>(buf);
    int64_t got = 0;
    while (got < n) {
      unsigned chunk = static_cast<unsigned>(std::min<int64_t>(n - got, INT_MAX / 2 + 1));
      int r = gzread(gz_, p + got, chunk);
      check_stream();
      if (r <= 0) break;
      got += r;
      if (static_cast<unsigned>(r) < chunk) break;
    }
    return got;
  }

  /// Whether the input was a gzip stream that ended before its end marker (a truncated .gz file).
  bool cut_short() const {
    int err = Z_OK;
    gzerror(gz_, &err);
    return err == Z_BUF_ERROR;
  }
  /// Whether the file is read as is (not gzip). Valid after the first read.
  bool plain() const { return gzdirect(gz_) == 1; }
  /// The file's size in bytes, or -1 when it is not a regular file.
  int64_t file_size() const { return file_size_; }
  const std::string& path() const { return path_; }

 private:
  void check_stream() const {
    int err = Z_OK;
    const char* msg = gzerror(gz_, &err);
    if (err == Z_OK || err == Z_BUF_ERROR) return;
    if (err == Z_ERRNO) EMBER_FAIL("read_idx: cannot read '{}': {}", path_, std::strerror(errno));
    if (err == Z_MEM_ERROR) EMBER_FAIL("read_idx: '{}': out of memory while decompressing", path_);
    EMBER_FAIL("read_idx: '{}': corrupt gzip stream ({})", path_, msg);
  }

  std::string path_;
  gzFile gz_ = nullptr;
  int64_t file_size_ = -1;
};

uint16_t bswap(uint16_t v) { return __builtin_bswap16(v); }
uint32_t bswap(uint32_t v) { return __builtin_bswap32(v); }
uint64_t bswap(uint64_t v) { return __builtin_bswap64(v); }

/// Byte-swaps n values of `width` bytes in place (IDX is big-endian; see the static_assert below).
void swap_to_native(void* data, int64_t n, int64_t width) {
  auto swap = [n]<class U>(U* p) {
    for (int64_t i = 0; i < n; ++i) p[i] = bswap(p[i]);
  };
  switch (width) {
    case 2: swap(static_cast<uint16_t*>(data)); break;
    case 4: swap(static_cast<uint32_t*>(data)); break;
    case 8: swap(static_cast<uint64_t*>(data)); break;
    default: break;
  }
}
static_assert(std::endian::native == std::endian::little, "read_idx assumes a little-endian host");

}  // namespace

Tensor read_idx(const std::string& path) {
  IdxFile file(path);

  unsigned char magic[4];
  int64_t got = file.read(magic, 4);
  EMBER_CHECK(got == 4, "read_idx: '{}': truncated header: expected 4 bytes of magic number, got {}{}", path, got,
              file.cut_short() ? " (the gzip stream ends early)" : "");
  EMBER_CHECK(magic[0] == 0 && magic[1] == 0,
              "read_idx: '{}': bad magic number 0x{:02X}{:02X}{:02X}{:02X}: an IDX file starts with two zero bytes, "
              "a type code and the number of dimensions",
              path, magic[0], magic[1], magic[2], magic[3]);
  std::optional<DType> dtype = idx_dtype(magic[2]);
  EMBER_CHECK(dtype.has_value(),
              "read_idx: '{}': unknown type code 0x{:02X} (expected 0x08 uint8, 0x09 int8, 0x0B int16, 0x0C int32, "
              "0x0D float32 or 0x0E float64)",
              path, magic[2]);
  const int ndim = magic[3];

  unsigned char dim_bytes[4 * 255];
  got = file.read(dim_bytes, 4 * ndim);
  EMBER_CHECK(got == 4 * ndim, "read_idx: '{}': truncated header: {} dimensions need {} bytes, got {}{}", path, ndim,
              4 * ndim, got, file.cut_short() ? " (the gzip stream ends early)" : "");
  std::vector<int64_t> sizes(ndim);
  const int64_t width = element_size(*dtype);
  int64_t nbytes = width;
  bool overflow = false;
  for (int d = 0; d < ndim; ++d) {
    uint32_t be;
    std::memcpy(&be, dim_bytes + 4 * d, 4);
    sizes[d] = bswap(be);
    overflow = overflow || __builtin_mul_overflow(nbytes, sizes[d], &nbytes);
  }
  EMBER_CHECK(!overflow, "read_idx: '{}': dimensions {} of {} overflow the size of a tensor", path, sizes,
              dtype_name(*dtype));

  // See Note [IDX format]: no allocation beyond what the file can hold.
  const int64_t header = 4 + 4 * int64_t(ndim);
  if (file.file_size() >= 0) {
    if (file.plain()) {
      const int64_t avail = file.file_size() - header;
      EMBER_CHECK(avail >= nbytes, "read_idx: '{}': truncated data: dimensions {} of {} need {} bytes, got {}", path,
                  sizes, dtype_name(*dtype), nbytes, avail);
    } else {
      const int64_t cap = file.file_size() > INT64_MAX / kDeflateMaxRatio ? INT64_MAX
                                                                          : file.file_size() * kDeflateMaxRatio;
      EMBER_CHECK(nbytes <= cap,
                  "read_idx: '{}': dimensions {} of {} need {} bytes of data, more than a gzip file of {} bytes can "
                  "hold (corrupt header?)",
                  path, sizes, dtype_name(*dtype), nbytes, file.file_size());
    }
  }

  Tensor out = empty(sizes, *dtype);
  got = file.read(out.data_ptr(), nbytes);
  EMBER_CHECK(got == nbytes, "read_idx: '{}': truncated data: dimensions {} of {} need {} bytes, got {}{}", path,
              sizes, dtype_name(*dtype), nbytes, got, file.cut_short() ? " (the gzip stream ends early)" : "");

  // Look for bytes after the data (a plain file's size tells at once). The final read also makes zlib check the
  // gzip trailer (CRC and length). Counting stops at one buffer: a decompression bomb after valid data is
  // reported, not inflated.
  int64_t trailing = 0;
  bool more = false;
  if (file.plain() && file.file_size() >= 0) {
    trailing = file.file_size() - header - nbytes;
  } else {
    std::vector<unsigned char> scratch(1 << 16);
    trailing = file.read(scratch.data(), int64_t(scratch.size()));
    more = trailing == int64_t(scratch.size());
  }
  EMBER_CHECK(!file.cut_short(),
              "read_idx: '{}': the gzip stream ends early (truncated file: its end marker and CRC are missing)",
              path);
  EMBER_CHECK(trailing == 0,
              "read_idx: '{}': {}{} bytes of trailing data after the {} bytes that dimensions {} of {} need", path,
              more ? "at least " : "", trailing, nbytes, sizes, dtype_name(*dtype));

  swap_to_native(out.data_ptr(), nbytes / width, width);
  return out;
}

}  // namespace ember::data
