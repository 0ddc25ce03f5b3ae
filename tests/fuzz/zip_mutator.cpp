// libFuzzer's custom mutator for the targets whose input is a zip archive (archive.cpp, jit_module.cpp).
//
// Note [zip mutator]
// Ember's archives store a CRC with every entry and the loader checks it, so byte-level mutations of an archive
// almost never reach the manifest parser or anything after it. This mutator opens the input as a zip (libzip),
// mutates the bytes of one entry with libFuzzer's own mutators (LLVMFuzzerMutate, which also uses the -dict
// tokens): the manifest three times in four, or a random entry, or an entry's name, then writes the archive
// again with correct CRCs. One mutation in eight works on the raw bytes instead, so the container's own
// checks (sizes, overlapping entries, truncation) stay fuzzed too, as do inputs that are not zips at all.
#include <zip.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

struct Entry {
  std::string name, bytes;
};

// The entries of the zip in data, or false when it is not one libzip reads (or an entry is not readable).
bool read_entries(const uint8_t* data, size_t size, size_t max_size, std::vector<Entry>& out) {
  zip_error_t err;
  zip_error_init(&err);
  zip_source_t* src = zip_source_buffer_create(data, size, 0, &err);
  if (!src) return false;
  zip_t* za = zip_open_from_source(src, ZIP_RDONLY, &err);
  if (!za) {
    zip_source_free(src);
    return false;
  }
  bool ok = true;
  const zip_int64_t n = zip_get_num_entries(za, 0);
  for (zip_int64_t i = 0; ok && i < n; ++i) {
    zip_stat_t st;
    zip_stat_init(&st);
    const auto idx = static_cast<zip_uint64_t>(i);
    ok = zip_stat_index(za, idx, 0, &st) == 0 && (st.valid & ZIP_STAT_SIZE) && (st.valid & ZIP_STAT_NAME) &&
         st.size <= max_size;
    if (!ok) break;
    Entry e{st.name, std::string(st.size, '\0')};
    zip_file_t* f = zip_fopen_index(za, idx, 0);
    ok = f && zip_fread(f, e.bytes.data(), st.size) == static_cast<zip_int64_t>(st.size);
    if (f) zip_fclose(f);
    out.push_back(std::move(e));
  }
  zip_discard(za);
  return ok && !out.empty();
}

// Writes entries as a zip (stored entries, as Ember writes them) into data; 0 when it exceeds max_size.
size_t write_entries(const std::vector<Entry>& entries, uint8_t* data, size_t max_size) {
  zip_error_t err;
  zip_error_init(&err);
  zip_source_t* out = zip_source_buffer_create(nullptr, 0, 0, &err);
  if (!out) return 0;
  zip_t* za = zip_open_from_source(out, ZIP_TRUNCATE, &err);
  if (!za) {
    zip_source_free(out);
    return 0;
  }
  zip_source_keep(out);  // read back after zip_close
  bool ok = true;
  for (const Entry& e : entries) {
    zip_source_t* s = zip_source_buffer(za, e.bytes.data(), e.bytes.size(), 0);
    const zip_int64_t idx = s ? zip_file_add(za, e.name.c_str(), s, ZIP_FL_ENC_UTF_8) : -1;
    if (idx < 0) {
      if (s) zip_source_free(s);
      ok = false;  // e.g. a mutated name that is empty or repeats another entry's
      break;
    }
    zip_set_file_compression(za, static_cast<zip_uint64_t>(idx), ZIP_CM_STORE, 0);
  }
  if (!ok || zip_close(za) != 0) {
    zip_discard(za);
    zip_source_free(out);
    return 0;
  }
  size_t n = 0;
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_source_stat(out, &st) == 0 && (st.valid & ZIP_STAT_SIZE) && st.size <= max_size &&
      zip_source_open(out) == 0) {
    if (zip_source_read(out, data, st.size) == static_cast<zip_int64_t>(st.size)) n = st.size;
    zip_source_close(out);
  }
  zip_source_free(out);
  return n;
}

// Mutates s in place with libFuzzer's mutators, allowing it to grow up to limit bytes.
void mutate(std::string& s, size_t limit) {
  const size_t size = s.size();
  s.resize(std::max(limit, size + 1));
  s.resize(LLVMFuzzerMutate(reinterpret_cast<uint8_t*>(s.data()), size, s.size()));
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  std::minstd_rand rng(seed);
  std::vector<Entry> entries;
  if (rng() % 8 == 0 || !read_entries(data, size, max_size, entries)) return LLVMFuzzerMutate(data, size, max_size);
  size_t pick = rng() % entries.size();
  if (rng() % 4 != 0) {
    for (size_t i = 0; i < entries.size(); ++i)
      if (entries[i].name == "manifest.json") pick = i;
  }
  const size_t budget = max_size > size ? max_size - size : 0;  // what the entry may grow by
  if (rng() % 16 == 0) mutate(entries[pick].name, entries[pick].name.size() + std::min<size_t>(budget, 64));
  else mutate(entries[pick].bytes, entries[pick].bytes.size() + budget);
  const size_t n = write_entries(entries, data, max_size);
  return n ? n : LLVMFuzzerMutate(data, size, max_size);
}
