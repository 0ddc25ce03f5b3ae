#pragma once
// Sequential (LibTorch's torch::nn::Sequential; Python's ember.nn.Sequential): modules called in order.
//
//   ember::nn::Sequential net{ember::nn::Linear(4, 8), ember::nn::Dropout(0.1), ember::nn::Linear(8, 2)};
//   net->forward(x);  net[0];  net->size();  net->named_parameters();   // "0.weight", "0.bias", "2.weight", ...
//   ember::nn::Sequential named({{"fc", ember::nn::Linear(4, 2)}});      // "fc.weight", ...
//
// Note [layer order]
// C++ leaves the evaluation order of function arguments unspecified (GCC goes right to left), so in
// `Sequential(Linear(4, 8), Linear(8, 2))` the second Linear may be constructed, and draw its initial values,
// first: the same seed then gives other weights than Python's nn.Sequential. Braces (`Sequential{...}`) are
// evaluated left to right by the language's rule, as are push_back calls in sequence; use either when the
// initial values must match Python's.
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ember/nn/AnyModule.h"
#include "ember/nn/Module.h"
#include "ember/nn/ModuleHolder.h"

namespace ember::nn {

/// A module name and a module for Sequential's named constructor; accepts holders and shared_ptrs.
struct NamedAnyModule {
  template <typename M>
  NamedAnyModule(std::string name, M&& module) : name(std::move(name)), module(to_any(std::forward<M>(module))) {}
  NamedAnyModule(std::string name, AnyModule module) : name(std::move(name)), module(std::move(module)) {}

  template <typename M>
  static AnyModule to_any(M&& module) {
    return AnyModule(std::forward<M>(module));
  }

  std::string name;
  AnyModule module;
};

/// Calls its modules in order, each on the previous one's output: input -> m0 -> m1 -> ... -> returns.
/// Modules are named "0", "1", ... in insertion order (or by the names given), as Python's; every module must
/// have `Tensor forward(const Tensor&)` (compile error otherwise). Errors: an index out of range (IndexError),
/// at<T>/ptr<T> of another type, forward of an empty Sequential returns its input (as Python's).
class SequentialImpl : public Module {
 public:
  SequentialImpl() = default;
  /// The given modules (holders or shared_ptrs), named "0", "1", ... Write `Sequential{a, b}` (braces) for
  /// left-to-right construction of the arguments (Note [layer order]).
  template <typename... Modules>
    requires(sizeof...(Modules) > 0)
  explicit SequentialImpl(Modules&&... modules) {
    (push_back(std::forward<Modules>(modules)), ...);
  }
  /// The given modules with the given names. Errors: a name used twice or containing '.'.
  explicit SequentialImpl(std::initializer_list<NamedAnyModule> named);

  /// Appends module (a holder, a shared_ptr or an AnyModule) named after its position.
  template <typename M>
  void push_back(M&& module) {
    push_back(std::to_string(modules_.size()), std::forward<M>(module));
  }
  /// Appends module under name.
  template <typename M>
  void push_back(std::string name, M&& module) {
    push_back(std::move(name), AnyModule(std::forward<M>(module)));
  }
  void push_back(std::string name, AnyModule module);
  void push_back(AnyModule module) { push_back(std::to_string(modules_.size()), std::move(module)); }
  /// Appends every module of other (keeping their order, named after their new positions).
  void extend(const SequentialImpl& other);

  /// A deep copy: a new Sequential of clones of the modules, under the same names (a module held twice is
  /// cloned once and held twice). Errors: as Module::clone.
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

  /// Runs the modules in order on input.
  Tensor forward(const Tensor& input);

  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }
  /// The module at index (a negative index counts from the end). Errors: out of range (IndexError).
  std::shared_ptr<Module> operator[](int64_t index) const { return modules_[checked(index)].ptr(); }
  std::shared_ptr<Module> ptr(int64_t index) const { return (*this)[index]; }
  /// The module at index as T (e.g. LinearImpl). Errors: out of range; another type.
  template <typename T>
  std::shared_ptr<T> ptr(int64_t index) const {
    return modules_[checked(index)].ptr<T>();
  }
  template <typename T>
  T& at(int64_t index) const {
    return *ptr<T>(index);
  }

  std::vector<AnyModule>::const_iterator begin() const { return modules_.begin(); }
  std::vector<AnyModule>::const_iterator end() const { return modules_.end(); }

 private:
  size_t checked(int64_t index) const;

  std::vector<AnyModule> modules_;
  std::vector<std::string> names_;  // of modules_, in order
};

/// The holder of SequentialImpl; also constructible from named modules: `Sequential({{"fc", Linear(4, 2)}})`.
class Sequential : public ModuleHolder<SequentialImpl> {
 public:
  using ModuleHolder<SequentialImpl>::ModuleHolder;
  using Impl = SequentialImpl;
  Sequential() : ModuleHolder() {}
  Sequential(std::initializer_list<NamedAnyModule> named)  // NOLINT(google-explicit-constructor)
      : ModuleHolder(std::make_shared<SequentialImpl>(named)) {}
};

}  // namespace ember::nn
