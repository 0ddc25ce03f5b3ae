#pragma once
// The key-value map a store holds, with the limits that bound it: the TCP store's server keeps one for all its
// clients, the file store one for the records of its file. See Note [store limits].
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ember::distributed {

/// Limits of one store (Note [store limits]). The defaults suit any rendezvous: a process group keeps a few
/// short keys per rank.
struct StoreLimits {
  /// Bytes of one argument of a TCP store request, and of one key or value of a store file.
  int64_t max_arg_bytes = int64_t{1} << 30;
  /// Arguments of one TCP store request (a CHECK names many keys).
  int64_t max_args = int64_t{1} << 20;
  /// Bytes of one TCP store request's arguments together.
  int64_t max_request_bytes = int64_t{1} << 30;
  /// Bytes the store holds: its keys and values together.
  int64_t max_total_bytes = int64_t{1} << 30;
  /// Keys the store holds.
  int64_t max_keys = int64_t{1} << 20;
  /// Bytes of a store file (its log of records, overwritten and deleted keys included).
  int64_t max_file_bytes = int64_t{4} << 30;
};

namespace detail {

/// "1 GiB" / "300 bytes" for error messages.
std::string format_bytes(int64_t n);

/// A map of keys to values that counts what it holds and refuses a change that would pass max_total_bytes or
/// max_keys. Not synchronized: its owner locks.
class StoreState {
 public:
  explicit StoreState(const StoreLimits& limits = {}) : limits_(limits) {}

  /// The value of key, or null.
  const std::vector<uint8_t>* find(const std::string& key) const;
  /// Raises the error set(key, <value_bytes bytes>) would raise (below), changing nothing.
  void check_set(const std::string& key, int64_t value_bytes) const;
  /// Sets key to value. Errors (ember::Error, the store unchanged): the store would hold more than
  /// max_total_bytes or max_keys (naming the key, the sizes and the limit).
  void set(const std::string& key, std::vector<uint8_t> value);
  /// Removes key; whether it existed.
  bool erase(const std::string& key);
  void clear();

  int64_t num_keys() const { return static_cast<int64_t>(data_.size()); }
  /// Bytes of the keys and values held.
  int64_t total_bytes() const { return total_bytes_; }
  const StoreLimits& limits() const { return limits_; }

 private:
  StoreLimits limits_;
  std::map<std::string, std::vector<uint8_t>> data_;
  int64_t total_bytes_ = 0;
};

}  // namespace detail
}  // namespace ember::distributed
