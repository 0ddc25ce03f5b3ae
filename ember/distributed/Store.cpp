// The Store base class and PrefixStore. See Note [rendezvous stores].
#include "ember/distributed/Store.h"

#include <charconv>

#include "ember/base/Error.h"

namespace ember::distributed {

Store::~Store() = default;

void Store::set(const std::string& key, const std::string& value) {
  set(key, std::vector<uint8_t>(value.begin(), value.end()));
}

PrefixStore::PrefixStore(std::string prefix, std::shared_ptr<Store> store)
    : Store(store ? store->getTimeout() : kDefaultTimeout), prefix_(std::move(prefix)), store_(std::move(store)) {
  EMBER_CHECK(store_ != nullptr, "PrefixStore: the underlying store is null");
}

std::vector<std::string> PrefixStore::join(const std::vector<std::string>& keys) const {
  std::vector<std::string> out;
  out.reserve(keys.size());
  for (const auto& k : keys) out.push_back(join(k));
  return out;
}

void PrefixStore::set(const std::string& key, const std::vector<uint8_t>& value) { store_->set(join(key), value); }
std::vector<uint8_t> PrefixStore::get(const std::string& key) { return store_->get(join(key)); }
int64_t PrefixStore::add(const std::string& key, int64_t value) { return store_->add(join(key), value); }
bool PrefixStore::check(const std::vector<std::string>& keys) { return store_->check(join(keys)); }
bool PrefixStore::deleteKey(const std::string& key) { return store_->deleteKey(join(key)); }
int64_t PrefixStore::getNumKeys() { return store_->getNumKeys(); }
void PrefixStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  store_->wait(join(keys), timeout);
}

namespace detail {

std::string join_keys(const std::vector<std::string>& keys) {
  std::string out;
  for (const auto& k : keys) out += (out.empty() ? "'" : ", '") + k + "'";
  return out;
}

std::string format_duration(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + " s";
  return std::to_string(d.count()) + " ms";
}

int64_t parse_counter(const std::string& key, const std::vector<uint8_t>& value) {
  int64_t v = 0;
  const char* first = reinterpret_cast<const char*>(value.data());
  const char* last = first + value.size();
  auto [ptr, ec] = std::from_chars(first, last, v);
  EMBER_CHECK(ec == std::errc() && ptr == last && !value.empty(),
              "Store::add: key '{}' holds {} bytes that are not a decimal integer", key, value.size());
  return v;
}

}  // namespace detail
}  // namespace ember::distributed
