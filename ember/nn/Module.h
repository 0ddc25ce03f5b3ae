#pragma once
// ember::nn::Module, the base of the C++ frontend's layers (LibTorch's torch::nn::Module), with Python's
// ember.nn.Module semantics where the two differ in what users can see: dotted names, traversal order,
// de-duplication of shared members, state dict keys and the printed form.
//
//   struct NetImpl : ember::nn::Module {
//     NetImpl() { fc = register_module("fc", ember::nn::Linear(4, 3)); }
//     ember::Tensor forward(const ember::Tensor& x) { return fc(x); }
//     ember::nn::Linear fc{nullptr};
//   };
//   EMBER_MODULE(Net);
//   Net net;  net->named_parameters().keys();   // {"fc.weight", "fc.bias"}
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ember/core/Tensor.h"
#include "ember/nn/OrderedDict.h"

namespace ember::serialize {
class OutputArchive;  // ember/serialize/OutputArchive.h
class InputArchive;   // ember/serialize/InputArchive.h
}  // namespace ember::serialize

namespace ember::nn {

template <typename Contained>
class ModuleHolder;

/// Whether T is a module holder (a class made by EMBER_MODULE or a ModuleHolder<...>).
template <typename T>
inline constexpr bool is_module_holder_v = requires(const T& t) {
  typename T::ContainedType;
  requires std::is_base_of_v<ModuleHolder<typename T::ContainedType>, T>;
};

namespace detail {
// The module type a holder holds (nn::Conv2d -> Conv2dImpl); any other type is itself (Module::as).
template <typename T>
struct ContainedOf {
  using type = T;
};
template <typename T>
  requires is_module_holder_v<T>
struct ContainedOf<T> {
  using type = typename T::ContainedType;
};
}  // namespace detail

/// The base class of modules: named parameters, buffers and submodules, the training flag, traversals,
/// conversions, state dicts and printing. Modules are shared (std::shared_ptr) and non-copyable; a submodule
/// may be registered in several parents (shared weights), and traversals list it once.
///
/// Naming (as Python's ember.nn.Module): names are non-empty and contain no '.'; a submodule's members are
/// reached as "<child>.<member>" ("0.weight", "encoder.fc.bias"). Registering a name again with the same kind
/// replaces the value in place (keeping its position); a name used by another kind is an error.
class Module : public std::enable_shared_from_this<Module> {
 public:
  /// A module named `name` (what name() returns and printing shows).
  explicit Module(std::string name);
  /// A module named after its dynamic type, demangled, without namespaces and without an "Impl" suffix
  /// (LinearImpl prints as "Linear", a user's NetImpl as "Net").
  Module();
  virtual ~Module() = default;
  Module& operator=(const Module&) = delete;

  /// The module's name (see the constructors).
  const std::string& name() const noexcept;

  // ------------------------------------------------------------------------------------------ members
  /// The parameters of this module and (recurse) of its submodules, depth first, each tensor once.
  std::vector<Tensor> parameters(bool recurse = true) const;
  /// parameters() by dotted name ("fc.weight"); a tensor shared by two modules appears once, under the name
  /// met first. Undefined (absent, as Python's None) parameters are skipped.
  OrderedDict<std::string, Tensor> named_parameters(bool recurse = true) const;
  /// The buffers of this module and (recurse) its submodules, each tensor once.
  std::vector<Tensor> buffers(bool recurse = true) const;
  /// buffers() by dotted name ("bn.running_mean").
  OrderedDict<std::string, Tensor> named_buffers(bool recurse = true) const;

  // ------------------------------------------------------------------------------------------ submodules
  /// This module (include_self) and every submodule, depth first, each once. Errors: include_self on a module
  /// that is not owned by a std::shared_ptr (e.g. one on the stack).
  std::vector<std::shared_ptr<Module>> modules(bool include_self = true) const;
  /// modules() by dotted name; this module is named name_prefix ("" by default) and the others
  /// name_prefix + "." + path (or just path when name_prefix is empty).
  OrderedDict<std::string, std::shared_ptr<Module>> named_modules(const std::string& name_prefix = "",
                                                                  bool include_self = true) const;
  /// The direct submodules, each once.
  std::vector<std::shared_ptr<Module>> children() const;
  /// children() by name.
  OrderedDict<std::string, std::shared_ptr<Module>> named_children() const;
  /// Calls fn on this module and then on every submodule (depth first, each once).
  void apply(const std::function<void(Module&)>& fn);
  void apply(const std::function<void(const Module&)>& fn) const;

  // ------------------------------------------------------------------------------------------ modes, grads
  /// Sets the training flag of this module and all its submodules (Dropout drops, BatchNorm uses batch
  /// statistics when on).
  virtual void train(bool on = true);
  /// train(false).
  void eval();
  /// The training flag (true for a new module).
  virtual bool is_training() const noexcept;
  /// Zeroes the .grad of every parameter (PyTorch 1.13's default, detaching a grad that has history), or
  /// drops it (set_to_none).
  virtual void zero_grad(bool set_to_none = false);
  /// Converts the floating-point parameters (and their grads) and buffers to dtype, keeping each tensor's
  /// identity (handles held by layers or optimizers see the new data; Note [module conversion]); integer
  /// tensors keep their dtype. Errors: a dtype that is not floating point (TypeError).
  virtual void to(DType dtype, bool non_blocking = false);
  /// Moves the parameters and buffers to device (LibTorch's Module::to(Device)). Ember runs on the CPU only, so
  /// the CPU leaves the module as it is. Errors: any other device (RuntimeError naming it).
  virtual void to(Device device, bool non_blocking = false);
  /// to(device), then to(dtype). Errors: as the two.
  virtual void to(Device device, DType dtype, bool non_blocking = false);

  // ------------------------------------------------------------------------------------------ copies
  /// A deep copy (LibTorch's Module::clone; use `std::dynamic_pointer_cast<LinearImpl>(fc->clone())`): the
  /// same type and structure, every parameter and buffer copied into new storage (same values, dtype and
  /// requires_grad; gradients are not copied, as LibTorch's), submodules cloned recursively, training flags
  /// kept. The copy shares nothing with the original and the default generator is left where it was. The
  /// layers of ember::nn and the containers support it; a module class of one's own gets it by deriving from
  /// ember::nn::Cloneable<NetImpl> (ember/nn/Cloneable.h, Note [clone]).
  /// Errors: a module type that does not derive from Cloneable (naming it); a device other than the CPU.
  virtual std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const;

  // ------------------------------------------------------------------------------------------ state dicts
  /// The parameters and persistent buffers by dotted name, detached (no autograd history), in Python's
  /// state_dict() order: a module's own parameters, then its buffers, then each child's entries. Unlike
  /// named_parameters(), a tensor shared by two modules appears under both names (as Python's).
  OrderedDict<std::string, Tensor> state_dict() const;
  /// Copies the tensors of state (keys as state_dict()'s) into this module's parameters and persistent
  /// buffers, without recording autograd history (Python's load_state_dict). A 1-element tensor loads into
  /// a 0-dim one. With strict, keys missing from state or unknown to the module are errors.
  /// Errors (RuntimeError "Error(s) in loading state_dict for <name>:" followed by one line per problem,
  /// as PyTorch's): missing keys, unexpected keys, and "size mismatch for <key>: copying a param with shape
  /// [..] from checkpoint, the shape in current model is [..]." Nothing is copied when there is any error.
  void load_state_dict(const OrderedDict<std::string, Tensor>& state, bool strict = true);

  /// Writes the state dict's entries into archive under their dotted names (LibTorch's Module::save; Note
  /// [checkpoint archives] in ember/serialize/OutputArchive.h). Other keys of the archive are kept.
  virtual void save(serialize::OutputArchive& archive) const;
  /// Loads the entries of the state dict's keys from archive (written by save(), or any archive holding them,
  /// e.g. Python's ember.save(model.state_dict(), path)) with load_state_dict's checks; other keys of the
  /// archive (an "epoch") are ignored. Errors: as load_state_dict (a missing key, a size mismatch).
  virtual void load(serialize::InputArchive& archive);

  // ------------------------------------------------------------------------------------------ printing
  /// The layer's settings for printing, e.g. "in_features=4, out_features=3, bias=True" (Python's
  /// extra_repr; may span several lines). "" by default.
  virtual std::string extra_repr() const;
  /// Writes Python's repr of the module: "Name(extra)" or, with submodules, one "(child): ..." line each,
  /// indented. operator<< calls it.
  virtual void pretty_print(std::ostream& stream) const;

  /// This module as ModuleType, or null when it is another type. ModuleType is a Module subclass, an Impl, or
  /// a holder such as nn::Conv2d, which names its Impl (`m.as<nn::Conv2d>()` is a Conv2dImpl*, as LibTorch's).
  template <typename ModuleType>
  auto* as() noexcept {
    return dynamic_cast<typename detail::ContainedOf<ModuleType>::type*>(this);
  }
  template <typename ModuleType>
  const auto* as() const noexcept {
    return dynamic_cast<const typename detail::ContainedOf<ModuleType>::type*>(this);
  }

  // ------------------------------------------------------------------------------------------ registration
  /// Registers tensor as the parameter `name` and returns the stored handle. The tensor is set to require
  /// grad (requires_grad) and becomes part of parameters() and the state dict; an undefined tensor stands for
  /// an absent parameter (Python's None, e.g. Linear without bias). Errors: a bad name (see the class doc);
  /// a non-leaf tensor (ValueError: parameters must be leaves).
  Tensor& register_parameter(std::string name, Tensor tensor, bool requires_grad = true);
  /// Registers tensor as the buffer `name` (state that is not a parameter, such as BatchNorm's
  /// running_mean). Non-persistent buffers are left out of the state dict. Errors: a bad name.
  Tensor& register_buffer(std::string name, Tensor tensor, bool persistent = true);
  /// Registers module as the submodule `name` and returns it. Errors: a bad name; a null module.
  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name, std::shared_ptr<ModuleType> module) {
    std::shared_ptr<Module> base = module;
    register_module_impl(std::move(name), std::move(base));
    return module;
  }
  /// The same for a holder (`fc = register_module("fc", Linear(4, 3))`); returns the holder's module.
  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name, ModuleHolder<ModuleType> holder) {
    return register_module(std::move(name), holder.ptr());
  }
  /// Replaces the submodule `name` by module. Errors: no submodule of that name.
  template <typename ModuleType>
  std::shared_ptr<ModuleType> replace_module(const std::string& name, std::shared_ptr<ModuleType> module) {
    std::shared_ptr<Module> base = module;
    replace_module_impl(name, std::move(base));
    return module;
  }
  template <typename ModuleType>
  std::shared_ptr<ModuleType> replace_module(const std::string& name, ModuleHolder<ModuleType> holder) {
    return replace_module(name, holder.ptr());
  }
  /// Removes the submodule `name`. Errors: no submodule of that name.
  void unregister_module(const std::string& name);

 protected:
  /// A copy of other's name and training flag with no parameters, buffers or submodules: what a subclass's
  /// copy constructor starts from when Cloneable::clone() copies it before reset() registers new members.
  Module(const Module& other);
  /// Copies, after a clone was rebuilt, the values of original's parameters and buffers (into new storage;
  /// requires_grad kept), its non-persistent buffer set and training flags, here and recursively in the
  /// submodules of the same names (Note [clone]). Errors: the rebuilt structure differs from the original's
  /// (naming the module and both name lists).
  void copy_state_for_clone(const Module& original);
  /// Checks the device argument of clone(): none or the CPU.
  void check_clone_device(const std::optional<Device>& device) const;

  /// Whether this module is in training mode (set by train()/eval()).
  bool is_training_ = true;

 private:
  using Visitor = std::function<void(const std::string& prefix, const Module& module)>;
  // Depth first over this module and its submodules with dotted prefixes; each module once (by address)
  // when dedup, as Python's named_modules.
  void visit(const std::string& prefix, bool dedup, std::unordered_set<const Module*>& seen,
             const Visitor& fn) const;
  OrderedDict<std::string, Tensor> named_members(bool recurse, bool buffers) const;
  void check_new_name(const std::string& name, const char* kind, const void* own_registry) const;
  void register_module_impl(std::string name, std::shared_ptr<Module> module);
  void replace_module_impl(const std::string& name, std::shared_ptr<Module> module);

  mutable std::string name_;
  OrderedDict<std::string, Tensor> parameters_{"Parameter"};
  OrderedDict<std::string, Tensor> buffers_{"Buffer"};
  std::unordered_set<std::string> non_persistent_buffers_;
  OrderedDict<std::string, std::shared_ptr<Module>> children_{"Module"};
};

/// Writes module.pretty_print(stream) (Python's repr of the module).
std::ostream& operator<<(std::ostream& stream, const Module& module);

}  // namespace ember::nn
