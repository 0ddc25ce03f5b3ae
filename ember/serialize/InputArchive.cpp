#include "ember/serialize/InputArchive.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <istream>
#include <iterator>

#include "ember/base/Error.h"
#include "ember/serialize/EmberFormat.h"

namespace ember::serialize {

void InputArchive::set_root(const IValue& root, const std::string& source) {
  EMBER_CHECK(root.tag() == IValue::Tag::Dict, "InputArchive: '{}' does not hold a dict of keys to values", source);
  std::vector<std::pair<std::string, IValue>> items;
  for (const auto& [k, v] : root.to_dict()) {
    EMBER_CHECK(k.is_string(), "InputArchive: '{}' has a key that is not a string", source);
    items.emplace_back(k.to_string(), v);
  }
  items_ = std::move(items);
  source_ = source;
}

// The requires_grad flags the archive recorded, set on its tensors (Tensor::requires_grad_ reaches autograd
// through Note [variable hooks]; the serialize layer sits below it).
static void restore_requires_grad(const IValue& v, const Attributes& attrs) {
  if (v.is_tensor()) {
    if (attrs.requires_grad.count(v.to_tensor().impl())) v.to_tensor().requires_grad_(true);
  } else if (v.is_list() || v.is_tuple()) {
    for (const IValue& item : v.to_list()) restore_requires_grad(item, attrs);
  } else if (v.tag() == IValue::Tag::Dict) {
    for (const auto& item : v.to_dict()) restore_requires_grad(item.second, attrs);
  }
}

void InputArchive::load_from(const std::string& path) {
  Attributes attrs;
  IValue root = load(path, &attrs);
  restore_requires_grad(root, attrs);
  set_root(root, path);
}

void InputArchive::load_from(std::istream& stream) {
  const std::string bytes{std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>()};
  Attributes attrs;
  IValue root = load_from_bytes(bytes, &attrs, "<stream>");
  restore_requires_grad(root, attrs);
  set_root(root, "<stream>");
}

const IValue* InputArchive::find(const std::string& key) const {
  for (const auto& [k, v] : items_)
    if (k == key) return &v;
  return nullptr;
}

const IValue& InputArchive::at(const std::string& key) const {
  const IValue* v = find(key);
  EMBER_CHECK(v, "InputArchive.read: no key '{}' in '{}' (keys: {})", key, source_, fmt::join(keys(), ", "));
  return *v;
}

void InputArchive::read(const std::string& key, Tensor& tensor, bool is_buffer) {
  EMBER_CHECK(try_read(key, tensor, is_buffer), "InputArchive.read: no key '{}' in '{}' (keys: {})", key, source_,
              fmt::join(keys(), ", "));
}

bool InputArchive::try_read(const std::string& key, Tensor& tensor, bool /*is_buffer*/) {
  const IValue* v = find(key);
  if (!v) return false;
  EMBER_CHECK(v->is_tensor(), "InputArchive.read: the value of '{}' in '{}' is not a tensor", key, source_);
  const Tensor& loaded = v->to_tensor();
  if (tensor.defined()) {
    tensor.impl()->set_data(*loaded.impl());
  } else {
    tensor = loaded;
  }
  return true;
}

void InputArchive::read(const std::string& key, IValue& value) { value = at(key); }

void InputArchive::read(const std::string& key, InputArchive& nested) {
  nested.set_root(at(key), source_ + "['" + key + "']");
}

bool InputArchive::contains(const std::string& key) const { return find(key) != nullptr; }

std::vector<std::string> InputArchive::keys() const {
  std::vector<std::string> out;
  for (const auto& item : items_) out.push_back(item.first);
  return out;
}

}  // namespace ember::serialize
