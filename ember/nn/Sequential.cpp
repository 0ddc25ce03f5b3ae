#include "ember/nn/Sequential.h"

#include <algorithm>

#include "ember/base/Error.h"
#include "ember/nn/Cloneable.h"

namespace ember::nn {

SequentialImpl::SequentialImpl(std::initializer_list<NamedAnyModule> named) {
  for (const NamedAnyModule& item : named) push_back(item.name, item.module);
}

void SequentialImpl::push_back(std::string name, AnyModule module) {
  EMBER_CHECK(!module.is_empty(), "Sequential: cannot add an empty module as '{}'", name);
  EMBER_CHECK(std::find(names_.begin(), names_.end(), name) == names_.end(),
              "Sequential: a module named '{}' is already in the sequence", name);
  register_module(name, module.ptr());
  names_.push_back(std::move(name));
  modules_.push_back(std::move(module));
}

std::shared_ptr<Module> SequentialImpl::clone(const std::optional<Device>& device) const {
  check_clone_device(device);
  auto copy = std::make_shared<SequentialImpl>();
  detail::CloneMemo<AnyModule> clones;
  for (size_t i = 0; i < modules_.size(); ++i) {
    const AnyModule& m = modules_[i];
    copy->push_back(names_[i], clones.get(m.ptr().get(), [&] { return m.clone(device); }));
  }
  copy->is_training_ = is_training_;
  return copy;
}

void SequentialImpl::extend(const SequentialImpl& other) {
  // Copy first: other may be this sequence.
  const std::vector<AnyModule> more = other.modules_;
  for (const AnyModule& m : more) push_back(m);
}

Tensor SequentialImpl::forward(const Tensor& input) {
  Tensor x = input;
  for (const AnyModule& m : modules_) x = m.forward(x);
  return x;
}

size_t SequentialImpl::checked(int64_t index) const {
  const int64_t n = static_cast<int64_t>(modules_.size());
  EMBER_CHECK_INDEX(index >= -n && index < n, "Sequential: index {} is out of range for a sequence of {} modules",
                    index, n);
  return static_cast<size_t>(index < 0 ? index + n : index);
}

}  // namespace ember::nn
