#include "ember/serialize/Save.h"

#include "ember/serialize/EmberFormat.h"

namespace ember {
namespace {

// The loaded value with the requires_grad flags the archive recorded (the serialize layer sits below autograd;
// Tensor::requires_grad_ reaches it through Note [variable hooks]).
IValue load_with_flags(const std::string& path) {
  serialize::Attributes attrs;
  IValue v = serialize::load(path, &attrs);
  auto restore = [&](const Tensor& t) {
    if (attrs.requires_grad.count(t.impl())) t.requires_grad_(true);
  };
  if (v.is_tensor()) {
    restore(v.to_tensor());
  } else if (v.is_list() || v.is_tuple()) {
    for (const IValue& item : v.to_list())
      if (item.is_tensor()) restore(item.to_tensor());
  } else if (v.is_tensor_list()) {
    for (const Tensor& t : v.to_tensor_list()) restore(t);
  }
  return v;
}

}  // namespace

void save(const Tensor& t, const std::string& path) {
  EMBER_CHECK(t.defined(), "save: '{}': the tensor is undefined", path);
  serialize::save(IValue(t), path);
}

void save(const std::vector<Tensor>& tensors, const std::string& path) {
  std::vector<IValue> items;
  items.reserve(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].defined(), "save: '{}': tensor {} of the list is undefined", path, i);
    items.emplace_back(tensors[i]);
  }
  serialize::save(IValue::list(std::move(items)), path);
}

void load(Tensor& t, const std::string& path) {
  IValue v = load_with_flags(path);
  EMBER_CHECK(v.is_tensor(), "load: '{}': expected a tensor but the archive holds a {}", path, v.tag_name());
  t = v.to_tensor();
}

void load(std::vector<Tensor>& tensors, const std::string& path) {
  IValue v = load_with_flags(path);
  std::vector<Tensor> out;
  if (v.is_tensor_list()) {
    out = v.to_tensor_list().vec();
  } else {
    EMBER_CHECK(v.is_list() || v.is_tuple(), "load: '{}': expected a list of tensors but the archive holds a {}",
                path, v.tag_name());
    const std::vector<IValue>& items = v.to_list();
    out.reserve(items.size());
    for (size_t i = 0; i < items.size(); ++i) {
      EMBER_CHECK(items[i].is_tensor(), "load: '{}': expected a list of tensors but item {} is a {}", path, i,
                  items[i].tag_name());
      out.push_back(items[i].to_tensor());
    }
  }
  tensors = std::move(out);
}

}  // namespace ember
