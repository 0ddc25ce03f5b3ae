#pragma once
// A store in one file of a file system every rank sees (LibTorch's c10d::FileStore; PyTorch's `file://`
// rendezvous). See Note [rendezvous stores] and Note [file store format].
#include <map>
#include <mutex>
#include <string>

#include "ember/distributed/Store.h"

namespace ember::distributed {

/// A store kept as an append-only log in the file `path`, created when absent, locked with flock(2) for each
/// operation. With numWorkers > 0, the last of numWorkers stores to be destroyed removes the file, so the path
/// can serve the next run (c10d's cleanup); a crashed run leaves it behind, and a stale file misleads the next
/// rendezvous — give each run a fresh path.
///
/// Errors (ember::Error): the file cannot be opened, locked, read or written (naming the path and the system's
/// reason); a get or wait outlasts the timeout (naming the keys).
class FileStore : public Store {
 public:
  FileStore(std::string path, int numWorkers, std::chrono::milliseconds timeout = kDefaultTimeout);
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
  std::vector<uint8_t>* find(const std::string& key);

  std::string path_;
  int numWorkers_;
  std::mutex mutex_;  // guards cache_ and pos_ (the file lock orders processes, this one threads)
  std::map<std::string, std::vector<uint8_t>> cache_;
  int64_t pos_ = 0;  // how much of the log cache_ reflects
};

}  // namespace ember::distributed
