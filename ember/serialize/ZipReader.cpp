// Bounded reading of zip archives with libzip (Note [zip reader limits] in ZipReader.h).
#include "ember/serialize/ZipReader.h"

#include <zip.h>

#include <filesystem>

namespace ember::serialize {

namespace {

// The text of a libzip error, releasing what the error holds.
std::string take_message(zip_error_t* e) {
  std::string s = zip_error_strerror(e);
  zip_error_fini(e);
  return s;
}

// Opens src read-only with consistency checks; on failure src is freed and the error raised naming `name`.
zip_t* open_source(zip_source_t* src, zip_error_t* err, std::string_view name) {
  zip_t* za = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, err);
  if (!za) {
    zip_source_free(src);  // still ours when the open failed
    EMBER_FAIL("load: '{}': {}", name, take_message(err));
  }
  return za;
}

}  // namespace

ZipReader::ZipReader(zip* za, std::string file, uint64_t size) : za_(za), file_(std::move(file)), archive_size_(size) {}

ZipReader::ZipReader(ZipReader&& o) noexcept
    : za_(o.za_), file_(std::move(o.file_)), archive_size_(o.archive_size_), compressed_total_(o.compressed_total_) {
  o.za_ = nullptr;
}

ZipReader::~ZipReader() {
  if (za_) zip_discard(za_);
}

ZipReader ZipReader::open_file(const std::string& path) {
  std::error_code ec;
  uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) EMBER_FAIL("load: '{}': {}", path, ec.message());
  EMBER_CHECK(size > 0, "load: '{}': the file is empty (Not a zip archive)", path);
  // Through a zip_error_t rather than zip_open's error code: a code alone gets whatever errno happens to hold
  // for its system part, so a corrupt archive read as "No such file or directory".
  zip_error_t err;
  zip_error_init(&err);
  zip_source_t* src = zip_source_file_create(path.c_str(), 0, -1, &err);
  if (!src) EMBER_FAIL("load: '{}': {}", path, take_message(&err));
  return ZipReader(open_source(src, &err, path), path, size);
}

ZipReader ZipReader::open_bytes(std::string_view data, std::string_view name) {
  // libzip reads zero bytes as an empty archive; an empty file is no archive.
  EMBER_CHECK(!data.empty(), "load: '{}': the file is empty (Not a zip archive)", name);
  zip_error_t err;
  zip_error_init(&err);
  zip_source_t* src = zip_source_buffer_create(data.data(), data.size(), 0, &err);
  if (!src) EMBER_FAIL("load: '{}': {}", name, take_message(&err));
  return ZipReader(open_source(src, &err, name), std::string(name), data.size());
}

std::vector<std::string> ZipReader::names() const {
  std::vector<std::string> r;
  const zip_int64_t n = zip_get_num_entries(za_, 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    const char* name = zip_get_name(za_, static_cast<zip_uint64_t>(i), 0);
    r.emplace_back(name ? name : "");
  }
  return r;
}

int64_t ZipReader::find(std::string_view name) const {
  return zip_name_locate(za_, std::string(name).c_str(), 0);
}

int64_t ZipReader::locate(std::string_view name) const {
  const int64_t idx = find(name);
  if (idx < 0) fail("the archive has no entry '{}'", name);
  return idx;
}

uint64_t ZipReader::checked_size(int64_t idx, std::string_view name, const uint64_t* expected,
                                 std::string_view source) {
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat_index(za_, static_cast<zip_uint64_t>(idx), 0, &st) != 0)
    fail("cannot read the directory record of '{}': {}", name, zip_strerror(za_));
  constexpr zip_uint64_t need = ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD;
  if ((st.valid & need) != need) fail("the directory record of '{}' is incomplete", name);
  if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE)
    fail("entry '{}' is encrypted", name);
  constexpr uint64_t kDeflateMaxRatio = 1032;  // deflate cannot compress better than about 1032:1
  if (st.comp_size > archive_size_)
    fail("entry '{}' claims {} bytes but the archive has only {}", name, st.comp_size, archive_size_);
  if (st.comp_method == ZIP_CM_STORE) {
    if (st.size != st.comp_size) fail("stored entry '{}' has inconsistent sizes", name);
  } else if (st.comp_method == ZIP_CM_DEFLATE) {
    if (st.size / kDeflateMaxRatio > st.comp_size + 1) fail("entry '{}' claims an impossible size", name);
  } else {
    fail("entry '{}' uses compression method {}; only stored and deflated entries are read", name, st.comp_method);
  }
  if (expected && st.size != *expected)
    fail("entry '{}' holds {} bytes but {} says {}", name, st.size, source, *expected);
  compressed_total_ += st.comp_size;
  if (compressed_total_ > archive_size_) fail("entries overlap (their sizes add up to more than the archive)");
  return st.size;
}

void ZipReader::read(int64_t idx, std::string_view name, void* dst, uint64_t n) const {
  zip_file_t* zf = zip_fopen_index(za_, static_cast<zip_uint64_t>(idx), 0);
  if (!zf) fail("cannot open entry '{}': {}", name, zip_strerror(za_));
  std::unique_ptr<zip_file_t, int (*)(zip_file_t*)> guard(zf, zip_fclose);
  uint64_t done = 0;
  while (done < n) {
    zip_int64_t got = zip_fread(zf, static_cast<char*>(dst) + done, n - done);
    if (got < 0) fail("cannot read entry '{}': {}", name, zip_file_strerror(zf));
    if (got == 0) fail("entry '{}' ends after {} of {} bytes", name, done, n);
    done += static_cast<uint64_t>(got);
  }
  char extra;
  zip_int64_t got = zip_fread(zf, &extra, 1);  // reading to the end makes libzip check the CRC
  if (got < 0) fail("cannot read entry '{}': {}", name, zip_file_strerror(zf));
  if (got > 0) fail("entry '{}' holds more than {} bytes", name, n);
}

std::string ZipReader::read_all(std::string_view name, uint64_t max_bytes) {
  const int64_t idx = locate(name);
  const uint64_t size = checked_size(idx, name);
  if (size > max_bytes) fail("entry '{}' would inflate to {} bytes, more than the limit of {}", name, size, max_bytes);
  std::string text(size, '\0');
  read(idx, name, text.data(), size);
  return text;
}

}  // namespace ember::serialize
