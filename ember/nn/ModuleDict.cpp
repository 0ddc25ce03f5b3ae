#include "ember/nn/ModuleDict.h"

#include "ember/base/Error.h"
#include "ember/nn/Cloneable.h"

namespace ember::nn {

ModuleDictImpl::ModuleDictImpl(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules) {
  update(modules);
}

ModuleDictImpl::ModuleDictImpl(const OrderedDict<std::string, std::shared_ptr<Module>>& modules) {
  for (const auto& item : modules) insert(item.key(), item.value());
}

void ModuleDictImpl::insert(const std::string& key, std::shared_ptr<Module> module) {
  EMBER_CHECK(module != nullptr, "ModuleDict: cannot insert an empty (null) module as '{}'", key);
  register_module(key, module);  // checks the key; replaces a module of the same key in place
  if (auto* existing = modules_.find(key))
    *existing = std::move(module);
  else
    modules_.insert(key, std::move(module));
}

void ModuleDictImpl::update(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules) {
  for (const auto& [key, module] : modules) insert(key, module);
}

std::shared_ptr<Module> ModuleDictImpl::pop(const std::string& key) {
  std::shared_ptr<Module> module = (*this)[key];
  modules_.erase(key);
  unregister_module(key);
  return module;
}

void ModuleDictImpl::clear() {
  for (const std::string& key : modules_.keys()) unregister_module(key);
  modules_.clear();
}

std::shared_ptr<Module> ModuleDictImpl::operator[](const std::string& key) const {
  const auto* module = modules_.find(key);
  EMBER_CHECK(module != nullptr, "ModuleDict: no module named '{}'", key);
  return *module;
}

void ModuleDictImpl::throw_wrong_type(const std::string& key, const std::type_info& wanted) const {
  EMBER_FAIL("ModuleDict: the module '{}' is a {}, not a {}", key, (*this)[key]->name(),
             detail::readable_type_name(wanted));
}

std::shared_ptr<Module> ModuleDictImpl::clone(const std::optional<Device>& device) const {
  check_clone_device(device);
  auto copy = std::make_shared<ModuleDictImpl>();
  detail::CloneMemo<std::shared_ptr<Module>> clones;
  for (const auto& item : modules_) {
    const std::shared_ptr<Module>& m = item.value();
    copy->insert(item.key(), clones.get(m.get(), [&] { return m->clone(device); }));
  }
  copy->is_training_ = is_training_;
  return copy;
}

}  // namespace ember::nn
