#include "ember/nn/Serialize.h"

#include <istream>
#include <iterator>
#include <ostream>

#include "ember/base/Error.h"
#include "ember/serialize/EmberFormat.h"
#include "ember/serialize/InputArchive.h"
#include "ember/serialize/OutputArchive.h"

namespace ember {

namespace nn {

IValue state_dict_to_ivalue(const OrderedDict<std::string, Tensor>& state) {
  std::vector<std::pair<IValue, IValue>> items;
  items.reserve(state.size());
  for (const auto& item : state) items.emplace_back(IValue(item.key()), IValue(item.value()));
  return IValue::dict(std::move(items));
}

OrderedDict<std::string, Tensor> state_dict_from_ivalue(const IValue& obj, const std::string& source) {
  EMBER_CHECK(obj.tag() == IValue::Tag::Dict,
              "load: '{}' holds a {}, not a state dict (a dict of str to tensors, as ember.save(model.state_dict(), "
              "path) writes)",
              source, obj.tag_name());
  OrderedDict<std::string, Tensor> state("Key");
  for (const auto& [key, value] : obj.to_dict()) {
    EMBER_CHECK(key.is_string(), "load: '{}': a state dict's keys are str, got a key of kind {}", source,
                key.tag_name());
    EMBER_CHECK(value.is_tensor(), "load: '{}': the entry '{}' of the state dict is a {}, not a tensor", source,
                key.to_string(), value.tag_name());
    state.insert(key.to_string(), value.to_tensor());
  }
  return state;
}

void Module::save(serialize::OutputArchive& archive) const {
  for (const auto& item : state_dict()) archive.write(item.key(), item.value());
}

void Module::load(serialize::InputArchive& archive) {
  // Only the module's own keys: an archive may hold more (an epoch, an optimizer's state).
  OrderedDict<std::string, Tensor> state("Key");
  for (const std::string& key : state_dict().keys()) {
    Tensor t;
    if (archive.try_read(key, t)) state.insert(key, t);
  }
  load_state_dict(state, /*strict=*/true);
}

}  // namespace nn

namespace {

serialize::Attributes ordered(const IValue& dict) {
  serialize::Attributes attrs;
  attrs.ordered_dicts.insert(dict.payload_ptr());
  return attrs;
}

// Loads state into module, with `source` (the file) in front of any error, keeping the error's kind.
void load_into(nn::Module& module, const IValue& obj, const std::string& source, bool strict) {
  const OrderedDict<std::string, Tensor> state = nn::state_dict_from_ivalue(obj, source);
  try {
    module.load_state_dict(state, strict);
  } catch (const Error& e) {
    throw Error(e.kind(), "load: '" + source + "': " + e.what());
  }
}

}  // namespace

void save(const nn::Module& module, const std::string& path) {
  const IValue obj = nn::state_dict_to_ivalue(module.state_dict());
  const serialize::Attributes attrs = ordered(obj);
  serialize::save(obj, path, &attrs);
}

void save(const nn::Module& module, std::ostream& stream) {
  const IValue obj = nn::state_dict_to_ivalue(module.state_dict());
  const serialize::Attributes attrs = ordered(obj);
  const std::string bytes = serialize::save_to_bytes(obj, &attrs);
  stream.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  EMBER_CHECK(stream.good(), "save: writing the archive of {} to the stream failed", module.name());
}

void load(nn::Module& module, const std::string& path, bool strict) {
  load_into(module, serialize::load(path), path, strict);
}

void load(nn::Module& module, std::istream& stream, bool strict) {
  const std::string bytes{std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>()};
  load_into(module, serialize::load_from_bytes(bytes, nullptr, "<stream>"), "<stream>", strict);
}

}  // namespace ember
