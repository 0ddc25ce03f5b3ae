#pragma once
// The key-value stores through which the ranks of a process group find each other (LibTorch's c10d::Store,
// c10d::PrefixStore). See Note [rendezvous stores].
//
// Note [rendezvous stores]
// A process group starts with a rendezvous: every rank writes its Gloo address under a key and reads the
// others'. The store is the only thing the ranks share before they are connected. Gloo's own stores
// (gloo/rendezvous/{file,prefix,hash}_store.h) have no atomic counter (`add`), no TCP store, and its FileStore
// is a folder of files, where PyTorch's `file://` rendezvous is one file; so Ember has c10d's three stores
// with c10d's semantics — TCPStore (TCPStore.h), FileStore (FileStore.h) and PrefixStore (below) — and hands
// them to Gloo through an adapter (ProcessGroupGloo.cpp). Values are bytes; `add` keeps a decimal integer, as
// c10d does. Every blocking call ends with an ember::Error naming the keys and the timeout when it expires.
// All stores are safe to call from several threads.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ember::distributed {

/// A key-value store shared by the ranks of a group (c10d::Store). get and wait block until the keys exist or
/// the store's timeout (or the given one) expires, then throw ember::Error naming the keys and the timeout.
class Store {
 public:
  /// c10d's default: 300 s.
  static constexpr std::chrono::milliseconds kDefaultTimeout = std::chrono::seconds(300);
  /// As a timeout: wait forever.
  static constexpr std::chrono::milliseconds kNoTimeout = std::chrono::milliseconds::zero();

  explicit Store(std::chrono::milliseconds timeout = kDefaultTimeout) : timeout_(timeout) {}
  virtual ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  /// Sets key to value (replacing an old value).
  virtual void set(const std::string& key, const std::vector<uint8_t>& value) = 0;
  void set(const std::string& key, const std::string& value);
  /// The value of key, waiting for it up to the store's timeout. Errors: the timeout expires.
  virtual std::vector<uint8_t> get(const std::string& key) = 0;
  /// Adds value to the integer at key (0 when absent) and returns the sum; atomic across ranks.
  /// Errors: the key holds something that is not a decimal integer.
  virtual int64_t add(const std::string& key, int64_t value) = 0;
  /// Whether every key exists now (does not wait).
  virtual bool check(const std::vector<std::string>& keys) = 0;
  /// Removes key; whether it existed.
  virtual bool deleteKey(const std::string& key) = 0;
  /// The number of keys.
  virtual int64_t getNumKeys() = 0;
  /// Waits until every key exists, up to the store's timeout. Errors: the timeout expires (naming the keys).
  void wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }
  /// Waits until every key exists, up to timeout (kNoTimeout: forever).
  virtual void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) = 0;

  std::chrono::milliseconds getTimeout() const noexcept { return timeout_; }
  void setTimeout(std::chrono::milliseconds timeout) { timeout_ = timeout; }

 protected:
  std::chrono::milliseconds timeout_;
};

/// A view of another store whose keys are prefixed with "<prefix>/" (c10d::PrefixStore): process groups made
/// from one store (ember.distributed.new_group) keep their keys apart so.
class PrefixStore : public Store {
 public:
  PrefixStore(std::string prefix, std::shared_ptr<Store> store);

  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  using Store::set;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t value) override;
  bool check(const std::vector<std::string>& keys) override;
  bool deleteKey(const std::string& key) override;
  int64_t getNumKeys() override;
  using Store::wait;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;

  const std::shared_ptr<Store>& getUnderlyingStore() const { return store_; }

 private:
  std::string join(const std::string& key) const { return prefix_ + "/" + key; }
  std::vector<std::string> join(const std::vector<std::string>& keys) const;

  std::string prefix_;
  std::shared_ptr<Store> store_;
};

namespace detail {
/// "key1, key2" for error messages.
std::string join_keys(const std::vector<std::string>& keys);
/// "30 s" / "1500 ms" for error messages.
std::string format_duration(std::chrono::milliseconds d);
/// The integer an `add` key holds. Errors: not a decimal integer (names the key).
int64_t parse_counter(const std::string& key, const std::vector<uint8_t>& value);
}  // namespace detail

}  // namespace ember::distributed
