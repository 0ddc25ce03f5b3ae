#include "ember/nn/ModuleList.h"

#include <string>

#include "ember/base/Error.h"
#include "ember/nn/Cloneable.h"

namespace ember::nn {

void ModuleListImpl::push_back(std::shared_ptr<Module> module) {
  EMBER_CHECK(module != nullptr, "ModuleList: cannot add an empty (null) module");
  register_module(std::to_string(modules_.size()), module);
  modules_.push_back(std::move(module));
}

void ModuleListImpl::insert(int64_t index, std::shared_ptr<Module> module) {
  EMBER_CHECK(module != nullptr, "ModuleList: cannot insert an empty (null) module");
  const int64_t n = static_cast<int64_t>(modules_.size());
  EMBER_CHECK_INDEX(index >= -n && index <= n, "ModuleList.insert: index {} is out of range for a list of {} modules",
                    index, n);
  modules_.insert(modules_.begin() + (index < 0 ? index + n : index), std::move(module));
  renumber();
}

void ModuleListImpl::extend(const ModuleListImpl& other) {
  const std::vector<std::shared_ptr<Module>> more = other.modules_;  // other may be this list
  for (const auto& m : more) push_back(m);
}

void ModuleListImpl::renumber() {
  for (size_t i = 0; i + 1 < modules_.size(); ++i) unregister_module(std::to_string(i));
  for (size_t i = 0; i < modules_.size(); ++i) register_module(std::to_string(i), modules_[i]);
}

size_t ModuleListImpl::checked(int64_t index) const {
  const int64_t n = static_cast<int64_t>(modules_.size());
  EMBER_CHECK_INDEX(index >= -n && index < n, "ModuleList: index {} is out of range for a list of {} modules", index,
                    n);
  return static_cast<size_t>(index < 0 ? index + n : index);
}

void ModuleListImpl::throw_wrong_type(int64_t index, const std::type_info& wanted) const {
  EMBER_FAIL("ModuleList: the module at index {} is a {}, not a {}", index, (*this)[index]->name(),
             detail::readable_type_name(wanted));
}

std::shared_ptr<Module> ModuleListImpl::clone(const std::optional<Device>& device) const {
  check_clone_device(device);
  auto copy = std::make_shared<ModuleListImpl>();
  detail::CloneMemo<std::shared_ptr<Module>> clones;
  for (const auto& m : modules_) copy->push_back(clones.get(m.get(), [&] { return m->clone(device); }));
  copy->is_training_ = is_training_;
  return copy;
}

}  // namespace ember::nn
