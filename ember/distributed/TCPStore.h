#pragma once
// A store served over TCP by one of the ranks (LibTorch's c10d::TCPStore). See Note [rendezvous stores] and
// Note [tcp store protocol].
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "ember/distributed/Store.h"
#include "ember/distributed/StoreState.h"

namespace ember::distributed {

/// Options of TCPStore (c10d::TCPStoreOptions).
struct TCPStoreOptions {
  /// The server's port; with isServer, 0 picks a free one (see TCPStore::getPort).
  uint16_t port = 29500;
  /// Whether this process runs the server (one rank, usually 0, does).
  bool isServer = false;
  /// How many clients (the server's own included) the server waits for when waitWorkers is set.
  std::optional<int64_t> numWorkers;
  bool waitWorkers = true;
  /// How long a connect, a get or a wait may take before it fails.
  std::chrono::milliseconds timeout = Store::kDefaultTimeout;
};

namespace detail {
class TCPStoreServer;
}

/// A store whose server runs in the process that passes isServer (on a thread of its own) and that every
/// process, the server's included, reaches as a client over TCP.
///
/// Errors (ember::Error): the server cannot bind its port ("address already in use", naming the port); a
/// client cannot connect within the timeout (naming host:port and the last socket error); the server closes
/// the connection; a get or wait outlasts the timeout (naming the keys); with numWorkers and waitWorkers, fewer
/// clients than numWorkers connect within the timeout; the server refuses a request past its limits (the
/// server's, `limits`; Note [store limits]), naming the limit.
class TCPStore : public Store {
 public:
  TCPStore(std::string host, const TCPStoreOptions& opts = {}, const StoreLimits& limits = {});
  ~TCPStore() override;

  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  using Store::set;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t value) override;
  bool check(const std::vector<std::string>& keys) override;
  bool deleteKey(const std::string& key) override;
  int64_t getNumKeys() override;
  using Store::wait;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;

  /// The server's port (the one chosen when the options said 0).
  uint16_t getPort() const { return port_; }
  const std::string& getHost() const { return host_; }

 private:
  /// One request and its reply: status byte and values. Serialized by mutex_ (one connection per store).
  std::pair<uint8_t, std::vector<std::vector<uint8_t>>> request(uint8_t cmd,
                                                                const std::vector<std::vector<uint8_t>>& args);
  void wait_workers(int64_t n);

  std::string host_;
  uint16_t port_;
  std::unique_ptr<detail::TCPStoreServer> server_;
  std::mutex mutex_;  // guards fd_'s request/reply exchanges
  int fd_ = -1;
};

}  // namespace ember::distributed
