#pragma once
// AnyModule: a module of any type with a Tensor -> Tensor forward, behind one type (LibTorch's
// torch::nn::AnyModule, limited to that signature), so Sequential can hold and call different layers.
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

#include "ember/core/Tensor.h"
#include "ember/nn/Module.h"
#include "ember/nn/ModuleHolder.h"

namespace ember::nn {

/// Whether M (a Module subclass) has a forward callable with one Tensor and returning a Tensor.
template <typename M>
concept TensorForwardModule = std::is_base_of_v<Module, M> && requires(M& m, const Tensor& x) {
  { m.forward(x) } -> std::convertible_to<Tensor>;
};

/// A shared module of any type whose forward maps one Tensor to a Tensor (calls go straight to that forward
/// through one stored function). Empty when default-constructed.
class AnyModule {
 public:
  AnyModule() = default;
  /// Holds module (shared). Compile error for a module without `Tensor forward(const Tensor&)`.
  template <typename M>
  explicit AnyModule(std::shared_ptr<M> module) : module_(module) {
    static_assert(TensorForwardModule<M>,
                  "Sequential and AnyModule hold modules with a `Tensor forward(const Tensor&)`; wrap others in a "
                  "module of your own");
    M* raw = module.get();
    forward_ = [raw](const Tensor& x) -> Tensor { return raw->forward(x); };
    // The held type is known only here: clone() casts the module's clone back to it.
    clone_ = [](const Module& m, const std::optional<Device>& device) {
      std::shared_ptr<M> copy = std::dynamic_pointer_cast<M>(m.clone(device));
      EMBER_CHECK(copy, "{}.clone: the clone is not of the held module type (derive the type from "
                  "ember::nn::Cloneable<itself>)", m.name());
      return AnyModule(std::move(copy));
    };
  }
  /// Holds the holder's module (shared).
  template <typename M>
  explicit AnyModule(const ModuleHolder<M>& holder) : AnyModule(holder.ptr()) {}
  /// Holds a module given by value, as LibTorch's AnyModule, so a Sequential can be built from plain module
  /// values: `Sequential(LinearImpl(4, 3), ReLUImpl())`. The held module is the value's clone (Module::clone:
  /// the same parameter and buffer values, registered), since a module's registrations do not move with it.
  /// Errors: as Module::clone (a module type that is not Cloneable).
  template <typename M>
    requires std::is_base_of_v<Module, std::remove_cvref_t<M>> && (!std::is_lvalue_reference_v<M>)
  explicit AnyModule(M&& module) : AnyModule(clone_value(module)) {}

  /// Calls the module's forward. Errors: an empty AnyModule.
  Tensor forward(const Tensor& input) const;
  /// The module as a Module. Errors: an empty AnyModule.
  const std::shared_ptr<Module>& ptr() const;
  /// The module as T (its Impl type), or an error naming both types when it is another type.
  template <typename T>
  std::shared_ptr<T> ptr() const {
    auto typed = std::dynamic_pointer_cast<T>(ptr());
    if (!typed) throw_wrong_type(typeid(T));
    return typed;
  }
  template <typename T>
  T& get() const {
    return *ptr<T>();
  }
  bool is_empty() const noexcept { return module_ == nullptr; }
  /// An AnyModule holding a deep copy of the module (Module::clone), of the same type. Errors: as
  /// Module::clone; an empty AnyModule.
  AnyModule clone(const std::optional<Device>& device = std::nullopt) const;

 private:
  [[noreturn]] void throw_wrong_type(const std::type_info& wanted) const;
  template <typename M>
  static std::shared_ptr<M> clone_value(const M& module) {
    std::shared_ptr<M> copy = std::dynamic_pointer_cast<M>(module.clone());
    EMBER_CHECK(copy, "{}: the clone is not of the module's type (derive it from ember::nn::Cloneable<itself>)",
                module.name());
    return copy;
  }

  std::shared_ptr<Module> module_;
  std::function<Tensor(const Tensor&)> forward_;
  std::function<AnyModule(const Module&, const std::optional<Device>&)> clone_;
};

}  // namespace ember::nn
