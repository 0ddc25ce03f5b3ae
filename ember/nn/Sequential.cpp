#include "ember/nn/Sequential.h"

#include "ember/base/Error.h"

namespace ember::nn {

SequentialImpl::SequentialImpl(std::initializer_list<NamedAnyModule> named) {
  for (const NamedAnyModule& item : named) push_back(item.name, item.module);
}

void SequentialImpl::push_back(std::string name, AnyModule module) {
  EMBER_CHECK(!module.is_empty(), "Sequential: cannot add an empty module as '{}'", name);
  EMBER_CHECK(!names_.count(name), "Sequential: a module named '{}' is already in the sequence", name);
  register_module(name, module.ptr());
  names_.insert(std::move(name));
  modules_.push_back(std::move(module));
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
