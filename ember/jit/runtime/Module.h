#pragma once
// The runtime module: an object with a class type and an attribute table (parameters, buffers, submodules,
// plain attributes), a training flag, and methods given as graphs and compiled once to interpreter code.
// A method's graph takes the module object as its first input (%self : <class type>) and reads attributes
// with prim::GetAttr.
//
// Note [module objects in graphs]
// IValue has no object kind, so module objects never live in registers: the lowering resolves %self and every
// prim::GetAttr chain of submodules to the actual objects (a method is compiled for one module instance), and
// emits a GetAttr instruction only for non-module attributes, reading the attribute's slot of that object at
// run time (so a parameter replaced through set_attr() is seen by the next call). prim::CallMethod on a
// submodule calls that submodule's compiled method directly. A graph that passes a module object anywhere else
// (through an If, in a list) is rejected at compile time.
//
// Note [module thread safety]
// A compiled method (Code) is immutable, and each call runs in its own register frame, so any number of
// threads may call forward()/run_method() on one module at once; the attributes are only read. What is not
// safe is changing the module (register_*, set_attr, define_method, train/eval) while other threads call it:
// do that before sharing the module, as with any C++ object. Module is a handle: copies share one object.
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/dispatch/IValue.h"
#include "ember/jit/ir/Graph.h"
#include "ember/jit/runtime/Code.h"

namespace ember::jit {

/// What an attribute slot holds.
enum class SlotKind : uint8_t { Parameter, Buffer, Module, Attribute };

/// One attribute of an Object.
struct Slot {
  std::string name;
  SlotKind kind;
  IValue value;                    // parameters, buffers and plain attributes
  std::shared_ptr<Object> module;  // submodules
};

/// A method: its graph and its code, compiled once when defined.
struct Method {
  std::shared_ptr<Graph> graph;
  std::shared_ptr<const Code> code;
};

/// The state behind a Module handle (see Note [module objects in graphs]).
class Object {
 public:
  explicit Object(std::shared_ptr<ClassType> type) : type_(std::move(type)) {}
  const std::shared_ptr<ClassType>& type() const { return type_; }
  const std::vector<Slot>& slots() const { return slots_; }
  /// The slot index of `name`, or -1.
  int64_t find_slot(std::string_view name) const;
  const IValue& slot_value(uint32_t i) const { return slots_[i].value; }
  bool training() const { return training_.load(std::memory_order_relaxed); }
  /// The compiled method, or nullptr.
  const Method* find_method(std::string_view name) const;
  /// Method names in the order they were first defined (a method may call only earlier ones).
  const std::vector<std::string>& method_order() const { return method_order_; }

 private:
  friend class Module;
  std::shared_ptr<ClassType> type_;
  std::vector<Slot> slots_;
  std::map<std::string, uint32_t, std::less<>> slot_index_;  // name -> place in slots_ (no linear search: a
                                                             // loaded module may have any number of slots)
  std::atomic<bool> training_{true};
  std::map<std::string, Method, std::less<>> methods_;
  std::vector<std::string> method_order_;
};

/// A runtime module (a handle; copies share the object). Thread safety: Note [module thread safety].
class Module {
 public:
  /// A new, empty module of a new class type. Errors: a name that is not a dotted identifier.
  explicit Module(std::string class_name);
  /// A handle to an existing object.
  explicit Module(std::shared_ptr<Object> object) : obj_(std::move(object)) {}

  const std::shared_ptr<Object>& object() const { return obj_; }
  const std::shared_ptr<ClassType>& type() const { return obj_->type(); }

  // ---- the attribute table (each also adds the attribute to the class type)
  /// Adds a parameter / buffer / submodule / plain attribute. Errors: the name is taken, is "training", or
  /// has characters other than letters, digits and '_' (digits alone are allowed, as TorchScript names the
  /// children of Sequential "0", "1", ...); an undefined tensor; a submodule that is this module or contains it.
  void register_parameter(const std::string& name, const Tensor& t);
  void register_buffer(const std::string& name, const Tensor& t);
  void register_module(const std::string& name, const Module& m);
  /// A plain attribute of type `type` (by default the type of v: int, float, bool, str, Tensor, int[], ...).
  void register_attribute(const std::string& name, IValue v, TypePtr type = nullptr);
  /// Replaces the value of a parameter, buffer or plain attribute (of the same kind of value). Errors: no
  /// such attribute; a submodule (use register_module on a new module); a value of another type.
  void set_attr(const std::string& name, IValue v);
  /// The value of an attribute ("training" gives the flag). Errors: no such attribute (naming the class and
  /// its attributes); a submodule (use submodule()).
  IValue attr(const std::string& name) const;
  bool has_attr(const std::string& name) const { return obj_->find_slot(name) >= 0; }
  /// A submodule. Errors: no such submodule.
  Module submodule(const std::string& name) const;

  /// Parameters / buffers of this module and (recurse) its submodules, named by dotted paths ("conv.weight"),
  /// in registration order, depth first.
  std::vector<std::pair<std::string, Tensor>> named_parameters(bool recurse = true) const;
  std::vector<std::pair<std::string, Tensor>> named_buffers(bool recurse = true) const;
  std::vector<std::pair<std::string, Module>> named_children() const;

  /// The training flag, set recursively by train()/eval(). Read by prim::GetAttr[name="training"].
  bool is_training() const { return obj_->training(); }
  void train(bool on = true);
  void eval() { train(false); }

  // ---- methods
  /// Defines (or redefines) a method from a graph whose first input is %self of this module's class type,
  /// verifying and compiling it (Interpreter.h). Errors: verify errors; a first input of another type;
  /// attributes the graph reads that the module lacks; module objects used other than by GetAttr/CallMethod.
  /// Methods compiled earlier that call this one (prim::CallMethod) keep calling the version they were compiled
  /// against; define callees first.
  void define_method(const std::string& name, std::shared_ptr<Graph> graph);
  /// The same from IR text (the class types of this module and its submodules resolve by name; <Tensor:k>
  /// constants index tensor_table when given).
  void define_method(const std::string& name, std::string_view ir_text,
                     const std::vector<Tensor>* tensor_table = nullptr);
  /// The class types of this module and of every module under it, by name: what its methods' IR text may name
  /// (ParseOptions::class_types).
  std::unordered_map<std::string, std::shared_ptr<ClassType>> class_types() const;
  bool has_method(const std::string& name) const { return obj_->find_method(name) != nullptr; }
  /// The method names in definition order.
  std::vector<std::string> method_names() const { return obj_->method_order(); }
  /// The method's graph and code. Errors: no such method.
  const Method& method(const std::string& name) const;

  /// Runs a method with `inputs` (not counting self). Errors: no such method; wrong input count or types
  /// (naming the method and the input); errors of the ops, with the failing node's line.
  IValue run_method(const std::string& name, std::vector<IValue> inputs) const;
  IValue forward(std::vector<IValue> inputs) const { return run_method("forward", std::move(inputs)); }

 private:
  const std::string& type_name() const;
  size_t add_slot(const std::string& name, SlotKind kind, IValue v, std::shared_ptr<Object> m, TypePtr type);
  void collect(SlotKind kind, bool recurse, const std::string& prefix,
               std::vector<std::pair<std::string, Tensor>>& out) const;
  std::shared_ptr<Object> obj_;
};

/// The class name of the module a function is saved as (TorchScript's name for it, so a loaded traced function
/// reports original_name "PlaceholderModule" in both frameworks).
inline constexpr const char* kFunctionModuleClass = "__torch__.PlaceholderModule";

/// A function's graph (no %self input, as ember.jit.trace of a function makes) as a module that can be saved:
/// a module of class kFunctionModuleClass, without attributes, whose method `forward` runs a copy of `graph`
/// with %self prepended to its inputs (Note [saved functions] in Module.cpp). Errors: as define_method.
Module function_module(const Graph& graph);

}  // namespace ember::jit
