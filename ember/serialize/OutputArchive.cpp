#include "ember/serialize/OutputArchive.h"

#include <ostream>

#include "ember/base/Error.h"
#include "ember/serialize/EmberFormat.h"

namespace ember::serialize {

namespace {
void put(std::vector<std::pair<std::string, IValue>>& items, const std::string& key, IValue value) {
  for (auto& [k, v] : items) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  items.emplace_back(key, std::move(value));
}
}  // namespace

void OutputArchive::write(const std::string& key, const Tensor& tensor, bool /*is_buffer*/) {
  EMBER_CHECK(tensor.defined(), "OutputArchive.write: the tensor for key '{}' is undefined", key);
  put(items_, key, IValue(tensor));
}

void OutputArchive::write(const std::string& key, const IValue& value) { put(items_, key, value); }

void OutputArchive::write(const std::string& key, const OutputArchive& nested) {
  put(items_, key, nested.to_ivalue());
}

IValue OutputArchive::to_ivalue() const {
  std::vector<std::pair<IValue, IValue>> items;
  items.reserve(items_.size());
  for (const auto& [k, v] : items_) items.emplace_back(IValue(k), v);
  return IValue::dict(std::move(items));
}

std::vector<std::string> OutputArchive::keys() const {
  std::vector<std::string> out;
  for (const auto& item : items_) out.push_back(item.first);
  return out;
}

void OutputArchive::save_to(const std::string& path) const { save(to_ivalue(), path); }

void OutputArchive::save_to(std::ostream& stream) const {
  const std::string bytes = save_to_bytes(to_ivalue());
  stream.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  EMBER_CHECK(stream.good(), "OutputArchive.save_to: writing {} bytes to the stream failed", bytes.size());
}

}  // namespace ember::serialize
