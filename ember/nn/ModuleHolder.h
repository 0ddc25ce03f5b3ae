#pragma once
// ModuleHolder and EMBER_MODULE: LibTorch's holder style, so module code ports by renaming.
//
//   EMBER_MODULE(Linear);                        // Linear holds a std::shared_ptr<LinearImpl>
//   ember::nn::Linear fc{nullptr};               // empty until assigned
//   fc = ember::nn::Linear(ember::nn::LinearOptions(4, 3).bias(false));
//   fc->forward(x);  fc(x);  fc->weight;  fc.ptr();
#include <memory>
#include <ostream>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "ember/nn/Module.h"

namespace ember::nn {

namespace detail {
/// Throws the error of a use of an empty holder, naming the module type.
[[noreturn]] void throw_empty_holder(const std::type_info& contained);
/// The name a module type prints with ("ember::nn::LinearImpl" -> "Linear").
std::string readable_type_name(const std::type_info& type);
}  // namespace detail

/// A shared handle to a module of type Contained (a subclass of Module), with value semantics for the user:
/// copies share the module. Empty when made from nullptr; every access to an empty holder throws
/// ("<Name> holder is empty ..."). Constructing from other arguments forwards them to Contained's constructor.
template <typename Contained>
class ModuleHolder {
 public:
  using ContainedType = Contained;

  /// Holds a default-constructed Contained (only for modules with a default constructor; otherwise write
  /// `Name x{nullptr};`).
  ModuleHolder() : impl_(make_default()) {}
  /// An empty holder.
  ModuleHolder(std::nullptr_t) : impl_(nullptr) {}  // NOLINT(google-explicit-constructor)
  /// Holds module (shared).
  ModuleHolder(std::shared_ptr<Contained> module) : impl_(std::move(module)) {}  // NOLINT
  /// Holds a new Contained(args...).
  template <typename Head, typename... Tail>
    requires(!(sizeof...(Tail) == 0 &&
               (std::is_base_of_v<ModuleHolder, std::decay_t<Head>> ||
                std::is_same_v<std::decay_t<Head>, std::shared_ptr<Contained>> ||
                std::is_same_v<std::decay_t<Head>, std::nullptr_t>)))
  explicit ModuleHolder(Head&& head, Tail&&... tail)
      : impl_(std::make_shared<Contained>(std::forward<Head>(head), std::forward<Tail>(tail)...)) {}

  /// Whether the holder holds a module.
  explicit operator bool() const noexcept { return !is_empty(); }
  bool is_empty() const noexcept { return impl_ == nullptr; }

  Contained* operator->() { return get(); }
  const Contained* operator->() const { return get(); }
  Contained& operator*() { return *get(); }
  const Contained& operator*() const { return *get(); }
  /// The shared module. Errors: an empty holder.
  const std::shared_ptr<Contained>& ptr() const {
    check();
    return impl_;
  }
  Contained* get() {
    check();
    return impl_.get();
  }
  const Contained* get() const {
    check();
    return impl_.get();
  }

  /// Calls the module's forward with args: `fc(x)` is `fc->forward(x)`.
  template <typename... Args>
  decltype(auto) operator()(Args&&... args) {
    return get()->forward(std::forward<Args>(args)...);
  }
  /// Indexes the module (Sequential, ModuleList): `seq[0]`.
  template <typename Arg>
  decltype(auto) operator[](Arg&& arg) {
    return (*get())[std::forward<Arg>(arg)];
  }

 private:
  void check() const {
    if (!impl_) detail::throw_empty_holder(typeid(Contained));
  }
  static std::shared_ptr<Contained> make_default() {
    static_assert(std::is_default_constructible_v<Contained>,
                  "This module has no default constructor: make an empty holder with `Name x{nullptr};` and assign "
                  "it a module later, or pass the module's options");
    return std::make_shared<Contained>();
  }

  std::shared_ptr<Contained> impl_;
};

// is_module_holder_v<T> (whether T is a holder) is in Module.h, where Module::as uses it.

/// Writes the held module's Python-style repr (an empty holder throws).
template <typename Contained>
std::ostream& operator<<(std::ostream& stream, const ModuleHolder<Contained>& holder) {
  return stream << *holder;
}

}  // namespace ember::nn

/// Declares the holder class `Name` of the module class `ImplType` (LibTorch's TORCH_MODULE_IMPL).
#define EMBER_MODULE_IMPL(Name, ImplType)                          \
  class Name : public ::ember::nn::ModuleHolder<ImplType> {        \
   public:                                                         \
    using ::ember::nn::ModuleHolder<ImplType>::ModuleHolder;       \
    using Impl = ImplType;                                         \
  }

/// Declares the holder class `Name` of the module class `Name##Impl` (LibTorch's TORCH_MODULE):
/// `EMBER_MODULE(Linear);` makes ember::nn::Linear from LinearImpl.
#define EMBER_MODULE(Name) EMBER_MODULE_IMPL(Name, Name##Impl)
