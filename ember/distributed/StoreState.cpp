// StoreState: the accounted key-value map of the TCP store's server and the file store.
//
// Note [store limits]
// A TCP store's server parses requests from whoever reaches its port, and a file store parses a file in a folder
// other programs can write to, so both are readers of untrusted bytes (Note [reader limits] in STYLE.md) and take
// a StoreLimits. What a store holds is bounded by max_total_bytes (keys plus values, 1 GiB) and max_keys (2^20);
// a change past either is refused with an ember::Error naming the key and the limit (the TCP server sends it to
// the client as an error reply, Note [tcp store protocol]), and the store is left as it was. What a reader
// allocates is bounded by what arrived: a TCP request grows its arguments as their bytes come in (a length field
// alone allocates at most 64 KiB), within max_args arguments of max_arg_bytes and max_request_bytes in all; a
// store file is read whole, at most max_file_bytes, and its records are parsed in place, each one consuming its
// bytes, so parsing takes time linear in the file and memory below the file's size plus the map's nodes (at most
// max_keys of them).
#include "ember/distributed/StoreState.h"

#include "ember/base/Error.h"

namespace ember::distributed::detail {

std::string format_bytes(int64_t n) {
  if (n >= (int64_t{1} << 30) && n % (int64_t{1} << 30) == 0) return std::to_string(n >> 30) + " GiB";
  if (n >= (int64_t{1} << 20) && n % (int64_t{1} << 20) == 0) return std::to_string(n >> 20) + " MiB";
  return std::to_string(n) + (n == 1 ? " byte" : " bytes");
}

const std::vector<uint8_t>* StoreState::find(const std::string& key) const {
  auto it = data_.find(key);
  return it == data_.end() ? nullptr : &it->second;
}

void StoreState::check_set(const std::string& key, int64_t value_bytes) const {
  auto it = data_.find(key);
  const int64_t old_bytes = it == data_.end() ? 0 : static_cast<int64_t>(key.size() + it->second.size());
  const int64_t new_bytes = static_cast<int64_t>(key.size()) + value_bytes;
  EMBER_CHECK(it != data_.end() || num_keys() < limits_.max_keys,
              "Store: cannot add key '{}': the store holds {} keys (limit)", key.substr(0, 200), limits_.max_keys);
  EMBER_CHECK(total_bytes_ - old_bytes <= limits_.max_total_bytes - new_bytes,
              "Store: cannot set key '{}' to {}: the store would hold {} of keys and values, more than its limit of {}",
              key.substr(0, 200), format_bytes(value_bytes), format_bytes(total_bytes_ - old_bytes + new_bytes),
              format_bytes(limits_.max_total_bytes));
}

void StoreState::set(const std::string& key, std::vector<uint8_t> value) {
  check_set(key, static_cast<int64_t>(value.size()));
  auto [it, added] = data_.try_emplace(key);
  if (!added) total_bytes_ -= static_cast<int64_t>(key.size() + it->second.size());
  total_bytes_ += static_cast<int64_t>(key.size() + value.size());
  it->second = std::move(value);
}

bool StoreState::erase(const std::string& key) {
  auto it = data_.find(key);
  if (it == data_.end()) return false;
  total_bytes_ -= static_cast<int64_t>(key.size() + it->second.size());
  data_.erase(it);
  return true;
}

void StoreState::clear() {
  data_.clear();
  total_bytes_ = 0;
}

}  // namespace ember::distributed::detail
