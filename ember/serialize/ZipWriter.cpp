// Note [zip writer]: stored entries, ZIP64 everywhere, one write per entry's data.
#include "ember/serialize/ZipWriter.h"

#include <zlib.h>

#include <algorithm>

#include "ember/base/Error.h"

namespace ember::serialize::detail {
namespace {

// Little-endian fields of the zip records (APPNOTE.TXT 4.3).
void u16(std::string& b, uint64_t v) {
  for (int i = 0; i < 2; ++i) b.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
void u32(std::string& b, uint64_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
void u64(std::string& b, uint64_t v) {
  for (int i = 0; i < 8; ++i) b.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEnd64Sig = 0x06064b50,
                   kLocator64Sig = 0x07064b50, kEndSig = 0x06054b50;
constexpr uint16_t kVersion = 45;               // ZIP64
constexpr uint16_t kMadeBy = (3 << 8) | 45;     // Unix, spec 4.5
constexpr uint16_t kUtf8Flag = 1 << 11;
constexpr uint16_t kDosTime = 0, kDosDate = (0 << 9) | (1 << 5) | 1;  // 1980-01-01 00:00
constexpr uint32_t kUnixMode = 0100644u << 16;  // a regular file, rw-r--r--
constexpr uint64_t kLocalFixed = 30, kCentralFixed = 46, kLocalExtra = 20, kCentralExtra = 28, kEnd64 = 56,
                   kLocator64 = 20, kEnd = 22;

// zlib's crc32 takes 32-bit lengths; feed it in slices.
uint32_t crc_of(const void* data, uint64_t n) {
  uLong crc = crc32(0L, Z_NULL, 0);
  const auto* p = static_cast<const Bytef*>(data);
  while (n > 0) {
    const uInt chunk = static_cast<uInt>(std::min<uint64_t>(n, uint64_t{1} << 30));
    crc = crc32(crc, p, chunk);
    p += chunk;
    n -= chunk;
  }
  return static_cast<uint32_t>(crc);
}

}  // namespace

void ZipWriter::put(const std::string& bytes) {
  sink_.write(bytes.data(), bytes.size());
  offset_ += bytes.size();
}

void ZipWriter::add(std::string_view name, const void* data, uint64_t n) {
  EMBER_CHECK(name.size() < 0xFFFF, "zip: entry name too long");
  Record r{std::string(name), crc_of(data, n), n, offset_};
  std::string h;
  u32(h, kLocalSig);
  u16(h, kVersion);
  u16(h, kUtf8Flag);
  u16(h, 0);  // stored
  u16(h, kDosTime);
  u16(h, kDosDate);
  u32(h, r.crc);
  u32(h, 0xFFFFFFFF);  // sizes in the ZIP64 extra field
  u32(h, 0xFFFFFFFF);
  u16(h, name.size());
  u16(h, kLocalExtra);
  h += name;
  u16(h, 0x0001);  // ZIP64 extra: uncompressed and compressed size
  u16(h, 16);
  u64(h, n);
  u64(h, n);
  put(h);
  if (n > 0) sink_.write(data, n);
  offset_ += n;
  records_.push_back(std::move(r));
}

void ZipWriter::finish() {
  const uint64_t cd_offset = offset_;
  for (const Record& r : records_) {
    std::string h;
    u32(h, kCentralSig);
    u16(h, kMadeBy);
    u16(h, kVersion);
    u16(h, kUtf8Flag);
    u16(h, 0);
    u16(h, kDosTime);
    u16(h, kDosDate);
    u32(h, r.crc);
    u32(h, 0xFFFFFFFF);
    u32(h, 0xFFFFFFFF);
    u16(h, r.name.size());
    u16(h, kCentralExtra);
    u16(h, 0);  // comment
    u16(h, 0);  // disk
    u16(h, 0);  // internal attributes
    u32(h, kUnixMode);
    u32(h, 0xFFFFFFFF);  // local header offset in the ZIP64 extra field
    h += r.name;
    u16(h, 0x0001);
    u16(h, 24);
    u64(h, r.size);
    u64(h, r.size);
    u64(h, r.offset);
    put(h);
  }
  const uint64_t cd_size = offset_ - cd_offset, end64_offset = offset_;
  std::string e;
  u32(e, kEnd64Sig);
  u64(e, kEnd64 - 12);  // size of the rest of the record
  u16(e, kMadeBy);
  u16(e, kVersion);
  u32(e, 0);  // this disk
  u32(e, 0);  // disk of the central directory
  u64(e, records_.size());
  u64(e, records_.size());
  u64(e, cd_size);
  u64(e, cd_offset);
  u32(e, kLocator64Sig);
  u32(e, 0);
  u64(e, end64_offset);
  u32(e, 1);  // total disks
  u32(e, kEndSig);
  u16(e, 0);
  u16(e, 0);
  u16(e, 0xFFFF);  // entry counts, size and offset in the ZIP64 record
  u16(e, 0xFFFF);
  u32(e, 0xFFFFFFFF);
  u32(e, 0xFFFFFFFF);
  u16(e, 0);  // comment
  put(e);
}

uint64_t ZipWriter::archive_size(const std::vector<std::pair<size_t, uint64_t>>& entries) {
  uint64_t n = kEnd64 + kLocator64 + kEnd;
  for (const auto& [name, size] : entries) n += kLocalFixed + kLocalExtra + kCentralFixed + kCentralExtra + 2 * name + size;
  return n;
}

}  // namespace ember::serialize::detail
