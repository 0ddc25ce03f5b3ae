#pragma once
// ember::nn::Cloneable<Derived>: what gives a module type clone() (LibTorch's torch::nn::Cloneable).
//
//   struct NetImpl : ember::nn::Cloneable<NetImpl> {
//     explicit NetImpl(int64_t hidden) : hidden(hidden) { reset(); }
//     void reset() override {                       // registers every member; clone() calls it on the copy
//       fc1 = register_module("fc1", ember::nn::Linear(4, hidden));
//       fc2 = register_module("fc2", ember::nn::Linear(hidden, 2));
//     }
//     int64_t hidden;
//     ember::nn::Linear fc1{nullptr}, fc2{nullptr};
//   };
//   auto copy = std::dynamic_pointer_cast<NetImpl>(net->clone());
//
// Note [clone]
// A module's C++ members (LinearImpl::weight, NetImpl::fc1) are handles the base class cannot see, so a deep
// copy cannot be made by copying the registries: the copy's members would still name the original's tensors
// and submodules. clone() therefore rebuilds the module, so that the copy's own construction code assigns
// its members, and then copies the original's values into what was built (Module::copy_state_for_clone,
// which matches parameters, buffers and submodules by name, recursively):
//   - a type with an `options` member it can be constructed from (every layer of ember::nn) is rebuilt as
//     Derived(options);
//   - any other type (a user's NetImpl) is copy-constructed (its plain members such as `hidden` are copied;
//     Module's own copy constructor starts with no members) and then reset() registers the members anew, as
//     in LibTorch.
// Rebuilding draws initial values from the default generator; clone() saves and restores the generator's
// state around it, so cloning does not change the random numbers a program draws afterwards (LibTorch's
// clone does advance it; Python's copy.deepcopy does not). Containers (Sequential, ModuleList, ModuleDict)
// override clone() instead and clone each of their modules.
#include <map>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "ember/core/Device.h"
#include "ember/core/Tensor.h"
#include "ember/nn/Module.h"

namespace ember::nn {

namespace detail {
/// Saves the default generator's state and restores it when destroyed (see Note [clone]).
class DefaultGeneratorStateGuard {
 public:
  DefaultGeneratorStateGuard();
  ~DefaultGeneratorStateGuard();
  DefaultGeneratorStateGuard(const DefaultGeneratorStateGuard&) = delete;
  DefaultGeneratorStateGuard& operator=(const DefaultGeneratorStateGuard&) = delete;

 private:
  std::vector<uint8_t> state_;
};

/// A copy of a layer's options for rebuilding it in clone(), with the tensors options may hold (a loss's
/// weight and pos_weight, which the layer registers as buffers) copied too, so the clone does not share them.
template <typename Options>
Options options_for_clone(const Options& options) {
  Options copy = options;
  if constexpr (requires { copy.weight() = Tensor(); }) {
    if constexpr (std::is_same_v<std::decay_t<decltype(copy.weight())>, Tensor>) {
      if (copy.weight().defined()) copy.weight() = copy.weight().detach().clone();
    }
  }
  if constexpr (requires { copy.pos_weight() = Tensor(); }) {
    if (copy.pos_weight().defined()) copy.pos_weight() = copy.pos_weight().detach().clone();
  }
  return copy;
}

/// The clones a container's clone() has made, by original module, so that a module the container holds twice
/// is cloned once and held twice by the copy (as Python's copy.deepcopy keeps sharing).
template <typename Handle>
class CloneMemo {
 public:
  /// The clone of `original`, made by make() the first time original is met.
  template <typename Make>
  const Handle& get(const Module* original, Make&& make) {
    auto it = clones_.find(original);
    if (it == clones_.end()) it = clones_.emplace(original, make()).first;
    return it->second;
  }

 private:
  std::map<const Module*, Handle> clones_;
};
}  // namespace detail

/// The base of a cloneable module type Derived (itself): Derived derives from Cloneable<Derived>, or from
/// Cloneable<Derived, Base> to sit on another module class Base (Conv2dImpl on ConvNdImpl<2>). clone()
/// returns a Derived (see Note [clone] for how it is built and Module::clone for what it copies).
template <typename Derived, typename Base = Module>
class Cloneable : public Base {
 public:
  using Base::Base;

  /// Registers the module's parameters, buffers and submodules (and assigns the members that hold them); the
  /// constructor of a user's module usually calls it, and clone() calls it on the copy. Modules rebuilt from
  /// their options (Note [clone]) need not define it. Errors (default): not defined by a class that needs it.
  // When Base is a Cloneable itself (MaxPool2dImpl on FunctionalModuleImpl) this overrides Base's reset(); one
  // declaration cannot say `override` only then, so clang's warning about the missing `override` is off here.
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Winconsistent-missing-override"
#endif
  virtual void reset() {
    EMBER_FAIL("{}.clone: define `void reset() override` registering the module's members (Note [clone])",
               this->name());
  }
#if defined(__clang__)
#pragma clang diagnostic pop
#endif

  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override {
    this->check_clone_device(device);
    const Derived& self = static_cast<const Derived&>(*this);
    std::shared_ptr<Derived> copy;
    {
      detail::DefaultGeneratorStateGuard keep_generator;
      if constexpr (requires { Derived(self.options); }) {
        copy = std::make_shared<Derived>(detail::options_for_clone(self.options));
      } else {
        static_assert(std::is_copy_constructible_v<Derived>,
                      "Cloneable<Derived>::clone copy-constructs Derived and calls reset(): Derived must be "
                      "copy-constructible");
        copy = std::make_shared<Derived>(self);
        copy->reset();
      }
    }
    copy->copy_state_for_clone(*this);
    return copy;
  }
};

}  // namespace ember::nn
