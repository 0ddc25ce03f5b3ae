#pragma once
// ModuleDict (LibTorch's torch::nn::ModuleDict; Python's ember.nn.ModuleDict): submodules by name, in
// insertion order, that the owner calls itself (it has no forward).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/Module.h"
#include "ember/nn/ModuleHolder.h"
#include "ember/nn/OrderedDict.h"

namespace ember::nn {

/// Submodules by key ("encoder.weight" for key "encoder"). insert/update with an existing key replace the
/// module in place (as Python's). Errors: a missing key; a bad key (empty or with '.'); a null module;
/// at<T> of another type.
class ModuleDictImpl : public Module {
 public:
  ModuleDictImpl() = default;
  /// The given (key, module) pairs in order.
  explicit ModuleDictImpl(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules);
  explicit ModuleDictImpl(const OrderedDict<std::string, std::shared_ptr<Module>>& modules);

  /// Adds or replaces key -> module.
  void insert(const std::string& key, std::shared_ptr<Module> module);
  template <typename M>
  void insert(const std::string& key, const ModuleHolder<M>& holder) {
    insert(key, std::shared_ptr<Module>(holder.ptr()));
  }
  /// insert() for each pair in order.
  void update(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules);
  /// Removes key and returns its module. Errors: no such key.
  std::shared_ptr<Module> pop(const std::string& key);
  /// Removes every module.
  void clear();

  size_t size() const noexcept { return modules_.size(); }
  bool empty() const noexcept { return modules_.is_empty(); }
  bool contains(const std::string& key) const noexcept { return modules_.contains(key); }
  std::vector<std::string> keys() const { return modules_.keys(); }
  std::vector<std::shared_ptr<Module>> values() const { return modules_.values(); }
  const std::vector<OrderedDict<std::string, std::shared_ptr<Module>>::Item>& items() const { return modules_.items(); }
  /// The module of key. Errors: no such key ("ModuleDict: no module named 'x'").
  std::shared_ptr<Module> operator[](const std::string& key) const;
  /// The module of key as T (e.g. LinearImpl).
  template <typename T>
  std::shared_ptr<T> ptr(const std::string& key) const {
    auto typed = std::dynamic_pointer_cast<T>((*this)[key]);
    if (!typed) throw_wrong_type(key, typeid(T));
    return typed;
  }
  template <typename T>
  T& at(const std::string& key) const {
    return *ptr<T>(key);
  }

  /// A deep copy: a new ModuleDict of clones of the modules under the same keys (a module held twice is
  /// cloned once). Errors: as Module::clone.
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

  auto begin() const { return modules_.begin(); }
  auto end() const { return modules_.end(); }

 private:
  [[noreturn]] void throw_wrong_type(const std::string& key, const std::type_info& wanted) const;

  OrderedDict<std::string, std::shared_ptr<Module>> modules_{"ModuleDict key"};
};
EMBER_MODULE(ModuleDict);

}  // namespace ember::nn
