// FileStore: an append-only log of records in one file.
//
// Note [file store format]
// The file is a sequence of records: u32 key length, key, u32 value length, value (host byte order: every
// rank shares the machine's file system; a record whose value length is 0xFFFFFFFF deletes the key). Each
// operation opens the file, takes flock(LOCK_EX), reads the records appended since it last looked into its
// cache, appends its own, and unlocks. `add` reads and appends under one lock, so it is atomic across
// processes. A get or wait polls (1 ms up to 20 ms between looks) until the keys appear or the timeout expires.
// Opening per operation (not keeping a descriptor) lets the last worker's removal of the file end cleanly.
// The file is untrusted input (any program may write to the shared folder): it is read within the store's
// limits, records parsed in place by read_file_store_records (Note [store limits]).
#include "ember/distributed/FileStore.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "ember/base/Error.h"

namespace ember::distributed {
namespace {
using Clock = std::chrono::steady_clock;
constexpr uint32_t kDeleted = 0xFFFFFFFFu;
const std::string kRefCountKey = "__ember_filestore_refcount__";

[[noreturn]] void broken_record(const std::string& path, int64_t offset, const std::string& what) {
  EMBER_FAIL("FileStore: '{}' is not a store file (byte {}: {}); give a new path", path, offset, what);
}
}  // namespace

class FileStore::Locked {
 public:
  // Opens and locks the file and brings the store's cache up to date; the caller holds store.mutex_.
  explicit Locked(FileStore& store) : store_(store) {
    fd_ = ::open(store.path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    EMBER_CHECK(fd_ >= 0, "FileStore: cannot open '{}': {}", store.path_, std::strerror(errno));
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR) {
        int e = errno;
        ::close(fd_);
        EMBER_FAIL("FileStore: cannot lock '{}': {}", store.path_, std::strerror(e));
      }
    }
    refresh();
  }
  ~Locked() {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }

  // Appends a record setting key to *value (deleting it when value is null). Errors: a key or value longer than
  // max_arg_bytes, a set past the store's limits (the file unchanged).
  void append(const std::string& key, const std::vector<uint8_t>* value) {
    const StoreLimits& limits = store_.cache_.limits();
    EMBER_CHECK(static_cast<int64_t>(key.size()) <= limits.max_arg_bytes, "FileStore: a key of {} bytes, more than "
                "the limit of {}", key.size(), detail::format_bytes(limits.max_arg_bytes));
    EMBER_CHECK(!value || static_cast<int64_t>(value->size()) <= limits.max_arg_bytes,
                "FileStore: cannot set key '{}' to {} bytes, more than the limit of {}", key,
                value ? value->size() : 0, detail::format_bytes(limits.max_arg_bytes));
    if (value) store_.cache_.check_set(key, static_cast<int64_t>(value->size()));
    std::vector<uint8_t> rec;
    auto put32 = [&](uint32_t v) {
      const auto* b = reinterpret_cast<const uint8_t*>(&v);
      rec.insert(rec.end(), b, b + 4);
    };
    put32(static_cast<uint32_t>(key.size()));
    rec.insert(rec.end(), key.begin(), key.end());
    put32(value ? static_cast<uint32_t>(value->size()) : kDeleted);
    if (value) rec.insert(rec.end(), value->begin(), value->end());
    EMBER_CHECK(::lseek(fd_, 0, SEEK_END) == store_.pos_,
                "FileStore: '{}' changed while locked (another program writes to it?)", store_.path_);
    size_t done = 0;
    while (done < rec.size()) {
      ssize_t w = ::write(fd_, rec.data() + done, rec.size() - done);
      if (w < 0 && errno == EINTR) continue;
      EMBER_CHECK(w > 0, "FileStore: cannot write to '{}': {}", store_.path_, std::strerror(errno));
      done += static_cast<size_t>(w);
    }
    store_.pos_ += static_cast<int64_t>(rec.size());
    if (value) store_.cache_.set(key, *value);
    else store_.cache_.erase(key);
  }

 private:
  void refresh() {
    struct stat st;
    EMBER_CHECK(::fstat(fd_, &st) == 0, "FileStore: cannot stat '{}': {}", store_.path_, std::strerror(errno));
    if (st.st_size < store_.pos_) {  // the file was removed and made anew: start over
      store_.cache_.clear();
      store_.pos_ = 0;
    }
    const int64_t limit = store_.cache_.limits().max_file_bytes;
    EMBER_CHECK(st.st_size <= limit, "FileStore: '{}' holds {} bytes, more than the limit of {}; give a new path",
                store_.path_, static_cast<int64_t>(st.st_size), detail::format_bytes(limit));
    std::vector<uint8_t> buf(static_cast<size_t>(st.st_size - store_.pos_));
    size_t done = 0;
    while (done < buf.size()) {
      ssize_t r = ::pread(fd_, buf.data() + done, buf.size() - done, store_.pos_ + static_cast<int64_t>(done));
      if (r < 0 && errno == EINTR) continue;
      EMBER_CHECK(r > 0, "FileStore: cannot read '{}': {}", store_.path_, r < 0 ? std::strerror(errno) : "truncated");
      done += static_cast<size_t>(r);
    }
    detail::read_file_store_records(std::string_view(reinterpret_cast<const char*>(buf.data()), buf.size()),
                                    store_.cache_, store_.path_, store_.pos_);
    store_.pos_ = st.st_size;
  }

  FileStore& store_;
  int fd_ = -1;
};

FileStore::FileStore(std::string path, int numWorkers, std::chrono::milliseconds timeout, const StoreLimits& limits)
    : Store(timeout), path_(std::move(path)), numWorkers_(numWorkers), cache_(limits) {
  EMBER_CHECK(!path_.empty(), "FileStore: the path is empty");
  add(kRefCountKey, 1);
}

FileStore::~FileStore() {
  try {
    std::lock_guard<std::mutex> lock(mutex_);
    Locked file(*this);
    auto* v = find(kRefCountKey);
    int64_t left = (v ? detail::parse_counter(kRefCountKey, *v) : 1) - 1;
    auto text = std::to_string(left);
    std::vector<uint8_t> value(text.begin(), text.end());
    file.append(kRefCountKey, &value);
    if (numWorkers_ > 0 && left <= 0) ::unlink(path_.c_str());  // the last worker cleans up
  } catch (const Error&) {
    // A destructor does not throw; the file stays behind.
  }
}

void FileStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  std::lock_guard<std::mutex> lock(mutex_);
  Locked(*this).append(key, &value);
}

std::vector<uint8_t> FileStore::get(const std::string& key) {
  wait({key}, timeout_);
  std::lock_guard<std::mutex> lock(mutex_);
  Locked file(*this);
  auto* v = find(key);
  EMBER_CHECK(v != nullptr, "FileStore::get: key '{}' was deleted while being read", key);
  return *v;
}

int64_t FileStore::add(const std::string& key, int64_t value) {
  std::lock_guard<std::mutex> lock(mutex_);
  Locked file(*this);
  auto* v = find(key);
  const int64_t base = v ? detail::parse_counter(key, *v) : 0;
  int64_t sum;
  EMBER_CHECK(!__builtin_add_overflow(base, value, &sum),
              "FileStore::add: key '{}' holds {}; adding {} overflows a 64-bit integer", key, base, value);
  auto text = std::to_string(sum);
  std::vector<uint8_t> bytes(text.begin(), text.end());
  file.append(key, &bytes);
  return sum;
}

bool FileStore::check(const std::vector<std::string>& keys) {
  std::lock_guard<std::mutex> lock(mutex_);
  Locked file(*this);
  for (const auto& k : keys) {
    if (!find(k)) return false;
  }
  return true;
}

bool FileStore::deleteKey(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  Locked file(*this);
  if (!find(key)) return false;
  file.append(key, nullptr);
  return true;
}

int64_t FileStore::getNumKeys() {
  std::lock_guard<std::mutex> lock(mutex_);
  Locked file(*this);
  return cache_.num_keys() - (find(kRefCountKey) ? 1 : 0);
}

void FileStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  auto deadline = timeout == kNoTimeout ? Clock::time_point::max() : Clock::now() + timeout;
  std::chrono::milliseconds pause(1);
  while (!check(keys)) {
    if (Clock::now() > deadline) {
      EMBER_FAIL("FileStore: timed out after {} waiting for key(s) {} in '{}'", detail::format_duration(timeout),
                 detail::join_keys(keys), path_);
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
}

namespace detail {

void read_file_store_records(std::string_view bytes, StoreState& state, const std::string& path, int64_t offset) {
  const int64_t max_len = state.limits().max_arg_bytes;
  size_t at = 0;
  auto fail = [&](size_t record, const std::string& what) {
    broken_record(path, offset + static_cast<int64_t>(record), what);
  };
  auto get32 = [&](uint32_t& v) {
    if (bytes.size() - at < 4) return false;
    std::memcpy(&v, bytes.data() + at, 4);
    at += 4;
    return true;
  };
  while (at < bytes.size()) {  // each record consumes at least its 8 bytes of lengths
    const size_t record = at;
    uint32_t klen, vlen;
    if (!get32(klen)) fail(record, "a truncated record");
    if (klen > max_len) fail(record, fmt::format("a key of {} bytes, more than the limit of {}", klen,
                                                 format_bytes(max_len)));
    if (bytes.size() - at < klen) fail(record, "a truncated record");
    std::string key(bytes.substr(at, klen));
    at += klen;
    if (!get32(vlen)) fail(record, "a truncated record");
    if (vlen == kDeleted) {
      state.erase(key);
      continue;
    }
    if (vlen > max_len) fail(record, fmt::format("a value of {} bytes, more than the limit of {}", vlen,
                                                 format_bytes(max_len)));
    if (bytes.size() - at < vlen) fail(record, "a truncated record");
    try {
      state.set(key, std::vector<uint8_t>(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                                          bytes.begin() + static_cast<std::ptrdiff_t>(at + vlen)));
    } catch (const Error& e) {
      EMBER_FAIL("FileStore: '{}' byte {}: {}; give a new path", path, offset + static_cast<int64_t>(record), e.what());
    }
    at += vlen;
  }
}

}  // namespace detail
}  // namespace ember::distributed
