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
// dimensions (0..255). MNIST-style data sets ship the files gzip-compressed; a file that starts with gzip's
// magic bytes (1F 8B) is inflated with zlib, any other is read as is, so the file name does not matter.
//
// A corrupt header must not make the reader allocate what the file cannot hold (a flipped bit in a dimension
// asks for gigabytes). Before allocating, the data size the header asks for is checked against the file: a
// plain file must hold exactly that many bytes after the header; a gzip file of S bytes cannot inflate to
// more than about 1032 * S bytes (deflate's best ratio), so the request is bounded by that. Both checks need
// the size of the file (fstat); when the size is unknown (a pipe), the read itself finds truncation.
//
// Note [gzip members]
// A gzip file is one or more gzip members back to back (`cat a.gz b.gz` is valid gzip: gzip -d and Python's
// gzip module read it as the concatenated data), so the reader inflates member after member. After a member's
// end (its CRC and length checked by zlib) only another member may follow, or zero bytes: Python's gzip
// module skips zero padding (what tape and block devices add) between and after members, and so does this
// reader. Anything else there is trailing garbage and an error naming the file and its offset; zlib's gz*
// functions would silently stop there instead, which is why the reader drives inflate() itself. Bytes after
// the values the header describes, in the same or a later member, are an error too ("trailing data"):
// counting them stops after one buffer, so a decompression bomb after valid data is reported, not inflated.

namespace ember::data {
namespace {

constexpr int64_t kDeflateMaxRatio = 1032;
constexpr size_t kInBytes = size_t{1} << 18;  // compressed input is read from the file in pieces of this size

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

/// An open IDX file, plain or gzip (Note [gzip members]), with the file's size when it is a regular file; or the
/// bytes of one in memory (read_idx_from_bytes), read through the same code.
class IdxFile {
 public:
  explicit IdxFile(const std::string& path) : path_(path), in_(kInBytes) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    EMBER_CHECK(fd_ >= 0, "read_idx: cannot open '{}': {}", path, std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0 || S_ISDIR(st.st_mode)) {
      int err = S_ISDIR(st.st_mode) ? EISDIR : errno;
      ::close(fd_);
      EMBER_FAIL("read_idx: cannot read '{}': {}", path, std::strerror(err));
    }
    if (S_ISREG(st.st_mode)) file_size_ = static_cast<int64_t>(st.st_size);
    zs_.next_in = in_.data();
  }
  IdxFile(std::string_view data, std::string_view name)
      : path_(name), file_size_(static_cast<int64_t>(data.size())), memory_(data), in_(kInBytes) {
    zs_.next_in = in_.data();
  }
  IdxFile(const IdxFile&) = delete;
  IdxFile& operator=(const IdxFile&) = delete;
  ~IdxFile() {
    if (mode_ == Mode::Gzip) inflateEnd(&zs_);
    if (fd_ >= 0) ::close(fd_);
  }

  /// Reads up to n bytes of (decompressed) data into buf and returns how many were read: fewer only at the
  /// end of the data. Throws on a corrupt gzip stream, trailing garbage after it or a read error; a gzip stream
  /// cut short counts as the end (the caller reports the truncation, with `cut_short()` telling why).
  int64_t read(void* buf, int64_t n) {
    if (mode_ == Mode::Unknown) start();
    auto* p = static_cast<unsigned char*>(buf);
    return mode_ == Mode::Plain ? read_plain(p, n) : read_gzip(p, n);
  }

  /// Whether the input was a gzip stream that ended before its end marker (a truncated .gz file).
  bool cut_short() const { return cut_short_; }
  /// Whether the file is read as is (not gzip). Valid after the first read.
  bool plain() const { return mode_ == Mode::Plain; }
  /// The file's size in bytes, or -1 when it is not a regular file.
  int64_t file_size() const { return file_size_; }

 private:
  enum class Mode { Unknown, Plain, Gzip };

  // Decides between plain and gzip from the first two bytes.
  void start() {
    ensure(2);
    if (zs_.avail_in >= 2 && zs_.next_in[0] == 0x1F && zs_.next_in[1] == 0x8B) {
      const int r = inflateInit2(&zs_, 16 + MAX_WBITS);  // gzip wrapper only
      EMBER_CHECK(r == Z_OK, "read_idx: '{}': cannot start zlib ({})", path_,
                  r == Z_MEM_ERROR ? "out of memory" : "error");
      mode_ = Mode::Gzip;
    } else {
      mode_ = Mode::Plain;
    }
  }

  // Makes at least k unread input bytes available, unless the file ends first.
  void ensure(size_t k) {
    while (zs_.avail_in < k && !eof_) {
      if (zs_.next_in != in_.data()) {
        std::memmove(in_.data(), zs_.next_in, zs_.avail_in);
        zs_.next_in = in_.data();
      }
      const int64_t r = pull(in_.data() + zs_.avail_in, in_.size() - zs_.avail_in);
      if (r == 0) eof_ = true;
      zs_.avail_in += static_cast<unsigned>(r);
      read_total_ += r;
    }
  }

  int64_t read_plain(unsigned char* p, int64_t n) {
    int64_t got = std::min<int64_t>(n, zs_.avail_in);  // what start() buffered, then straight from the file
    if (got > 0) std::memcpy(p, zs_.next_in, static_cast<size_t>(got));  // next_in may be null when empty
    zs_.next_in += got;
    zs_.avail_in -= static_cast<unsigned>(got);
    while (got < n && !eof_) {
      const int64_t r = pull(p + got, static_cast<size_t>(std::min<int64_t>(n - got, int64_t{1} << 30)));
      if (r == 0) eof_ = true;
      got += r;
    }
    return got;
  }

  // Reads up to n > 0 bytes of the file (or of the bytes in memory) into dst; 0 at its end.
  int64_t pull(unsigned char* dst, size_t n) {
    if (fd_ < 0) {
      const size_t k = std::min(n, memory_.size());
      std::memcpy(dst, memory_.data(), k);
      memory_.remove_prefix(k);
      return static_cast<int64_t>(k);
    }
    for (;;) {
      const ssize_t r = ::read(fd_, dst, n);
      if (r < 0 && errno == EINTR) continue;
      EMBER_CHECK(r >= 0, "read_idx: cannot read '{}': {}", path_, std::strerror(errno));
      return r;
    }
  }

  int64_t read_gzip(unsigned char* p, int64_t n) {
    int64_t got = 0;
    while (got < n) {
      if (member_done_ && !next_member()) break;
      ensure(1);
      if (zs_.avail_in == 0) {  // the file ends inside a member
        cut_short_ = true;
        break;
      }
      const auto chunk = static_cast<unsigned>(std::min<int64_t>(n - got, UINT_MAX));
      zs_.next_out = p + got;
      zs_.avail_out = chunk;
      const int r = inflate(&zs_, Z_NO_FLUSH);
      got += chunk - zs_.avail_out;
      if (r == Z_STREAM_END) member_done_ = true;
      else if (r == Z_MEM_ERROR) EMBER_FAIL("read_idx: '{}': out of memory while decompressing", path_);
      else if (r != Z_OK && r != Z_BUF_ERROR)
        EMBER_FAIL("read_idx: '{}': corrupt gzip stream ({})", path_, zs_.msg ? zs_.msg : "bad data");
    }
    return got;
  }

  // After a member's end: skips zero padding and starts the next member. False at the end of the file; throws
  // on anything else (Note [gzip members]).
  bool next_member() {
    for (;;) {
      ensure(2);
      while (zs_.avail_in > 0 && zs_.next_in[0] == 0) {
        ++zs_.next_in;
        --zs_.avail_in;
      }
      if (zs_.avail_in == 0 && eof_) return false;
      if (zs_.avail_in >= 2 || eof_) break;
    }
    const int64_t offset = read_total_ - zs_.avail_in;
    EMBER_CHECK(zs_.avail_in >= 2 && zs_.next_in[0] == 0x1F && zs_.next_in[1] == 0x8B,
                "read_idx: '{}': trailing garbage after the end of the gzip stream at byte {} (0x{:02X}...): only "
                "further gzip members or zero padding may follow one",
                path_, offset, zs_.next_in[0]);
    inflateReset(&zs_);
    member_done_ = false;
    return true;
  }

  std::string path_;
  int fd_ = -1;
  int64_t file_size_ = -1;
  std::string_view memory_;  // the unread bytes, when reading from memory (fd_ < 0)
  Mode mode_ = Mode::Unknown;
  std::vector<unsigned char> in_;  // input read ahead: zs_.next_in / avail_in is the unread part
  z_stream zs_{};
  int64_t read_total_ = 0;  // bytes read from the file so far
  bool eof_ = false, member_done_ = false, cut_short_ = false;
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

// The tensor of an IDX file (Note [IDX format]); `path` names it in errors.
Tensor read_idx(IdxFile& file, std::string_view path) {
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
  // gzip trailer (CRC and length) and reads what follows the stream (Note [gzip members]).
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

}  // namespace

Tensor read_idx(const std::string& path) {
  IdxFile file(path);
  return read_idx(file, path);
}

Tensor read_idx_from_bytes(std::string_view data, std::string_view name) {
  IdxFile file(data, name);
  return read_idx(file, name);
}

}  // namespace ember::data
