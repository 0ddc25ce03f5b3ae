#pragma once
// ModuleList (LibTorch's torch::nn::ModuleList; Python's ember.nn.ModuleList): a list of submodules, named
// "0", "1", ... by position, that the owner calls itself (it has no forward).
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "ember/nn/Module.h"
#include "ember/nn/ModuleHolder.h"

namespace ember::nn {

/// Submodules in a list. Positions are the names ("0.weight"), renumbered after insert() as Python's.
/// Errors: an index out of range (IndexError); at<T>/ptr<T> of another type; a null module.
class ModuleListImpl : public Module {
 public:
  ModuleListImpl() = default;
  /// The given modules (holders or shared_ptrs), in order.
  template <typename... Modules>
    requires(sizeof...(Modules) > 0)
  explicit ModuleListImpl(Modules&&... modules) {
    (push_back(std::forward<Modules>(modules)), ...);
  }

  /// Appends module.
  void push_back(std::shared_ptr<Module> module);
  template <typename M>
  void push_back(const ModuleHolder<M>& holder) {
    push_back(std::shared_ptr<Module>(holder.ptr()));
  }
  /// Inserts module before position index (0..size(); negative counts from the end).
  void insert(int64_t index, std::shared_ptr<Module> module);
  template <typename M>
  void insert(int64_t index, const ModuleHolder<M>& holder) {
    insert(index, std::shared_ptr<Module>(holder.ptr()));
  }
  /// Appends the modules of other.
  void extend(const ModuleListImpl& other);

  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }
  /// The module at index (negative counts from the end).
  std::shared_ptr<Module> operator[](int64_t index) const { return modules_[checked(index)]; }
  std::shared_ptr<Module> ptr(int64_t index) const { return (*this)[index]; }
  /// The module at index as T (e.g. LinearImpl).
  template <typename T>
  std::shared_ptr<T> ptr(int64_t index) const {
    auto typed = std::dynamic_pointer_cast<T>((*this)[index]);
    if (!typed) throw_wrong_type(index, typeid(T));
    return typed;
  }
  template <typename T>
  T& at(int64_t index) const {
    return *ptr<T>(index);
  }

  /// A deep copy: a new ModuleList of clones of the modules (a module held twice is cloned once). Errors: as
  /// Module::clone.
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

  std::vector<std::shared_ptr<Module>>::const_iterator begin() const { return modules_.begin(); }
  std::vector<std::shared_ptr<Module>>::const_iterator end() const { return modules_.end(); }

 private:
  size_t checked(int64_t index) const;
  [[noreturn]] void throw_wrong_type(int64_t index, const std::type_info& wanted) const;
  // Re-registers every module under its position (after insert()).
  void renumber();

  std::vector<std::shared_ptr<Module>> modules_;
};
EMBER_MODULE(ModuleList);

}  // namespace ember::nn
