// The runtime module (Module.h).
#include "ember/jit/runtime/Module.h"

#include <cctype>
#include <functional>

#include "ember/base/Error.h"
#include "ember/jit/ir/IRParser.h"
#include "ember/jit/runtime/Interpreter.h"

namespace ember::jit {
namespace {

bool is_identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// Attribute names are identifiers or, as TorchScript allows for the numbered children of Sequential and
// ModuleList, digits ("0"): letters, digits and '_', never a '.' (paths are dotted).
bool is_attribute_name(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

const char* kind_name(SlotKind k) {
  switch (k) {
    case SlotKind::Parameter: return "parameter";
    case SlotKind::Buffer: return "buffer";
    case SlotKind::Module: return "submodule";
    case SlotKind::Attribute: return "attribute";
  }
  return "?";
}

// The IR type of a plain attribute's value (int, float, bool, str, None, Tensor, int[], Tensor[], tuples and
// lists of those).
TypePtr type_of(const IValue& v) {
  switch (v.tag()) {
    case IValue::Tag::None: return Type::none_type();
    case IValue::Tag::Bool: return Type::bool_type();
    case IValue::Tag::Int: return Type::int_type();
    case IValue::Tag::Double: return Type::float_type();
    case IValue::Tag::String: return Type::str_type();
    case IValue::Tag::Tensor: return Type::tensor_type();
    case IValue::Tag::Device: return Type::device_type();
    case IValue::Tag::IntList: return ListType::create(Type::int_type());
    case IValue::Tag::TensorList: return ListType::create(Type::tensor_type());
    case IValue::Tag::List: {
      const auto& l = v.to_list();
      EMBER_CHECK(!l.empty(), "jit::Module: the type of an empty list attribute is unknown; pass its type");
      return ListType::create(type_of(l[0]));
    }
    case IValue::Tag::Tuple: {
      std::vector<TypePtr> elems;
      for (const IValue& e : v.to_tuple()) elems.push_back(type_of(e));
      return TupleType::create(std::move(elems));
    }
    default: EMBER_FAIL("jit::Module: cannot infer the type of a {} attribute; pass its type", v.tag_name());
  }
}

// Every class type of the hierarchy under obj, by name (for parsing method text).
void collect_types(const Object& obj, std::unordered_map<std::string, std::shared_ptr<ClassType>>& out) {
  out.emplace(obj.type()->name(), obj.type());
  for (const Slot& s : obj.slots())
    if (s.kind == SlotKind::Module) collect_types(*s.module, out);
}

bool contains(const Object& tree, const Object* target) {
  if (&tree == target) return true;
  for (const Slot& s : tree.slots())
    if (s.kind == SlotKind::Module && contains(*s.module, target)) return true;
  return false;
}

}  // namespace

int64_t Object::find_slot(std::string_view name) const {
  auto it = slot_index_.find(name);
  return it == slot_index_.end() ? -1 : static_cast<int64_t>(it->second);
}

const Method* Object::find_method(std::string_view name) const {
  auto it = methods_.find(name);
  return it == methods_.end() ? nullptr : &it->second;
}

Module::Module(std::string class_name) : obj_(std::make_shared<Object>(ClassType::create(std::move(class_name)))) {}

size_t Module::add_slot(const std::string& name, SlotKind kind, IValue v, std::shared_ptr<Object> m,
                        TypePtr type) {
  EMBER_CHECK(is_attribute_name(name), "{}: '{}' is not a valid attribute name", type_name(), name);
  EMBER_CHECK(name != "training", "{}: 'training' is the module's flag (train()/eval()), not an attribute",
              type_name());
  int64_t old = obj_->find_slot(name);
  EMBER_CHECK(old < 0, "{}: attribute '{}' already exists (a {})", type_name(), name,
              kind_name(obj_->slots_[static_cast<size_t>(old < 0 ? 0 : old)].kind));
  obj_->type_->add_attribute(name, std::move(type));
  obj_->slot_index_.emplace(name, static_cast<uint32_t>(obj_->slots_.size()));
  obj_->slots_.push_back(Slot{name, kind, std::move(v), std::move(m)});
  return obj_->slots_.size() - 1;
}

const std::string& Module::type_name() const { return obj_->type()->name(); }

void Module::register_parameter(const std::string& name, const Tensor& t) {
  EMBER_CHECK(t.defined(), "{}: parameter '{}' is an undefined tensor", type_name(), name);
  add_slot(name, SlotKind::Parameter, IValue(t), nullptr, Type::tensor_type());
}

void Module::register_buffer(const std::string& name, const Tensor& t) {
  EMBER_CHECK(t.defined(), "{}: buffer '{}' is an undefined tensor", type_name(), name);
  add_slot(name, SlotKind::Buffer, IValue(t), nullptr, Type::tensor_type());
}

void Module::register_module(const std::string& name, const Module& m) {
  EMBER_CHECK(!contains(*m.obj_, obj_.get()), "{}: submodule '{}' would contain the module itself", type_name(),
              name);
  add_slot(name, SlotKind::Module, IValue(), m.obj_, m.type());
}

void Module::register_attribute(const std::string& name, IValue v, TypePtr type) {
  if (!type) type = type_of(v);
  std::string what;
  EMBER_CHECK(fits(v, *type, what), "{}: attribute '{}' of type {}: {}", type_name(), name, type->str(), what);
  add_slot(name, SlotKind::Attribute, std::move(v), nullptr, std::move(type));
}

void Module::set_attr(const std::string& name, IValue v) {
  int64_t i = obj_->find_slot(name);
  EMBER_CHECK(i >= 0, "{}: no attribute '{}'", type_name(), name);
  Slot& s = obj_->slots_[static_cast<size_t>(i)];
  EMBER_CHECK(s.kind != SlotKind::Module, "{}: '{}' is a submodule; it cannot be replaced by set_attr",
              type_name(), name);
  EMBER_CHECK(s.value.tag() == v.tag() && (!v.is_tensor() || v.to_tensor().defined()),
              "{}: attribute '{}' holds a {}; cannot set it to {}", type_name(), name, s.value.tag_name(),
              v.repr());
  s.value = std::move(v);
}

IValue Module::attr(const std::string& name) const {
  int64_t i = obj_->find_slot(name);
  if (i < 0 && name == "training") return IValue(is_training());
  if (i < 0) {
    std::string names;
    for (const Slot& s : obj_->slots()) names += (names.empty() ? "" : ", ") + s.name;
    EMBER_FAIL("{}: no attribute '{}' (attributes: {})", type_name(), name, names.empty() ? "none" : names);
  }
  const Slot& s = obj_->slots()[static_cast<size_t>(i)];
  EMBER_CHECK(s.kind != SlotKind::Module, "{}: '{}' is a submodule; use submodule()", type_name(), name);
  return s.value;
}

Module Module::submodule(const std::string& name) const {
  int64_t i = obj_->find_slot(name);
  EMBER_CHECK(i >= 0 && obj_->slots()[static_cast<size_t>(i)].kind == SlotKind::Module,
              "{}: no submodule '{}'", type_name(), name);
  return Module(obj_->slots()[static_cast<size_t>(i)].module);
}

void Module::collect(SlotKind kind, bool recurse, const std::string& prefix,
                     std::vector<std::pair<std::string, Tensor>>& out) const {
  for (const Slot& s : obj_->slots())
    if (s.kind == kind) out.emplace_back(prefix + s.name, s.value.to_tensor());
  if (!recurse) return;
  for (const Slot& s : obj_->slots())
    if (s.kind == SlotKind::Module) Module(s.module).collect(kind, true, prefix + s.name + ".", out);
}

std::vector<std::pair<std::string, Tensor>> Module::named_parameters(bool recurse) const {
  std::vector<std::pair<std::string, Tensor>> out;
  collect(SlotKind::Parameter, recurse, "", out);
  return out;
}

std::vector<std::pair<std::string, Tensor>> Module::named_buffers(bool recurse) const {
  std::vector<std::pair<std::string, Tensor>> out;
  collect(SlotKind::Buffer, recurse, "", out);
  return out;
}

std::vector<std::pair<std::string, Module>> Module::named_children() const {
  std::vector<std::pair<std::string, Module>> out;
  for (const Slot& s : obj_->slots())
    if (s.kind == SlotKind::Module) out.emplace_back(s.name, Module(s.module));
  return out;
}

void Module::train(bool on) {
  obj_->training_.store(on, std::memory_order_relaxed);
  for (const Slot& s : obj_->slots())
    if (s.kind == SlotKind::Module) Module(s.module).train(on);
}

void Module::define_method(const std::string& name, std::shared_ptr<Graph> graph) {
  EMBER_CHECK(graph != nullptr, "{}: define_method '{}': null graph", type_name(), name);
  EMBER_CHECK(is_identifier(name), "{}: '{}' is not a valid method name", type_name(), name);
  std::span<Value* const> in = graph->inputs();
  EMBER_CHECK(!in.empty() && in[0]->type()->kind() == TypeKind::Class &&
                  in[0]->type()->cast<ClassType>()->name() == type_name(),
              "{}.{}: a method's graph takes the module object (%self : {}) as its first input, got {}",
              type_name(), name, type_name(), in.empty() ? std::string("no inputs") : in[0]->type()->str());
  std::shared_ptr<const Code> code = compile(*graph, type_name() + "." + name, obj_.get());
  if (!obj_->methods_.count(name)) obj_->method_order_.push_back(name);
  obj_->methods_[name] = Method{std::move(graph), std::move(code)};
}

void Module::define_method(const std::string& name, std::string_view ir_text,
                           const std::vector<Tensor>* tensor_table) {
  std::unordered_map<std::string, std::shared_ptr<ClassType>> types = class_types();
  ParseOptions options;
  options.class_types = &types;
  options.tensor_table = tensor_table;
  define_method(name, parse_ir(ir_text, options));
}

std::unordered_map<std::string, std::shared_ptr<ClassType>> Module::class_types() const {
  std::unordered_map<std::string, std::shared_ptr<ClassType>> types;
  collect_types(*obj_, types);
  return types;
}

const Method& Module::method(const std::string& name) const {
  const Method* m = obj_->find_method(name);
  if (!m) {
    std::string names;
    for (const auto& [n, x] : obj_->methods_) names += (names.empty() ? "" : ", ") + n;
    EMBER_FAIL("{}: no method '{}' (methods: {})", type_name(), name, names.empty() ? "none" : names);
  }
  return *m;
}

IValue Module::run_method(const std::string& name, std::vector<IValue> inputs) const {
  return run(*method(name).code, std::move(inputs));
}

// Note [saved functions]
// The archive holds modules only; a traced function is saved as TorchScript saves one (ScriptFunction.save):
// a module with no attributes and one method, `forward`, running the function's graph. Loading gives a module,
// not a function (ember.jit.load and torch.jit.load alike), so `jit::load(path).forward({x})` in C++ and
// `ember.jit.load(path)(x)` in Python call the function. The graph is copied, so adding %self leaves the
// function's own graph (which its compiled code was made from) unchanged.
Module function_module(const Graph& graph) {
  Module m(kFunctionModuleClass);
  std::shared_ptr<Graph> g = graph.copy();
  g->insert_input(0, "self", m.type());
  m.define_method("forward", std::move(g));
  return m;
}

}  // namespace ember::jit
