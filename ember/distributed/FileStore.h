#pragma once
// A store in one file of a file system every rank sees (LibTorch's c10d::FileStore; PyTorch's `file://`
// rendezvous). See Note [rendezvous stores] and Note [file store format].
#include <mutex>
#include <string>
#include <string_view>

#include "ember/distributed/Store.h"
#include "ember/distributed/StoreState.h"

namespace ember::distributed {

/// A store kept as an append-only log in the file `path`, created when absent, locked with flock(2) for each
/// operation. With numWorkers > 0, the last of numWorkers stores to be destroyed removes the file, so the path
/// can serve the next run (c10d's cleanup); a crashed run leaves it behind, and a stale file misleads the next
/// rendezvous — give each run a fresh path.
///
/// Errors (ember::Error): the file cannot be opened, locked, read or written (naming the path and the system's
/// reason); it is not a store file or breaks a limit (`limits`, Note [store limits]; naming the path, the byte
/// offset and the limit); a set past a limit (the file unchanged); a get or wait outlasts the timeout (naming
/// the keys).
class FileStore : public Store {
 public:
  FileStore(std::string path, int numWorkers, std::chrono::milliseconds timeout = kDefaultTimeout,
            const StoreLimits& limits = {});
  ~FileStore() override;

  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  using Store::set;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t value) override;
  bool check(const std::vector<std::string>& keys) override;
  bool deleteKey(const std::string& key) override;
  int64_t getNumKeys() override;
  using Store::wait;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;

  const std::string& getPath() const { return path_; }

 private:
  class Locked;  // the file opened and locked, with the log read up to its end
  const std::vector<uint8_t>* find(const std::string& key) const { return cache_.find(key); }

  std::string path_;
  int numWorkers_;
  std::mutex mutex_;  // guards cache_ and pos_ (the file lock orders processes, this one threads)
  detail::StoreState cache_;
  int64_t pos_ = 0;  // how much of the log cache_ reflects
};

namespace detail {
/// Applies the records of a store file (Note [file store format]) in bytes, which start at byte `offset` of the
/// file `path` (for messages), to state. Errors (ember::Error naming path and the byte offset): a truncated or
/// broken record, a key or value longer than max_arg_bytes, a limit of state (records before it stay applied).
void read_file_store_records(std::string_view bytes, StoreState& state, const std::string& path, int64_t offset);
}  // namespace detail

}  // namespace ember::distributed
