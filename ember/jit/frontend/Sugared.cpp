// Sugared values (Note [sugared values] in Sugared.h): builtin globals, modules of ops, methods and builtins.
#include "ember/jit/frontend/Sugared.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace ember::jit::script {

// ---- defaults of the interface

SugaredPtr SugaredValue::attr(const SourceRange& loc, Emitter&, const std::string& name) {
  Emitter::fail(loc, fmt::format("{} has no attribute '{}'", kind(), name));
}

SugaredPtr SugaredValue::call(const SourceRange& loc, Emitter&, const Tree&) {
  Emitter::fail(loc, fmt::format("{} cannot be called", kind()));
}

Value* SugaredValue::as_value(const SourceRange& loc, Emitter&) {
  Emitter::fail(loc, fmt::format("{} cannot be used as a value", kind()));
}

namespace {

std::optional<DType> dtype_named(const std::string& name) {
  static const std::map<std::string, DType> names = {
      {"float32", DType::Float32}, {"float", DType::Float32},   {"float64", DType::Float64},
      {"double", DType::Float64},  {"float16", DType::Float16}, {"half", DType::Float16},
      {"bfloat16", DType::BFloat16}, {"int64", DType::Int64},   {"long", DType::Int64},
      {"int32", DType::Int32},     {"int", DType::Int32},       {"int16", DType::Int16},
      {"short", DType::Int16},     {"int8", DType::Int8},       {"uint8", DType::UInt8},
      {"bool", DType::Bool}};
  auto it = names.find(name);
  if (it == names.end()) return std::nullopt;
  return it->second;
}

}  // namespace

// ---- values

SugaredPtr ValueSugar::attr(const SourceRange& loc, Emitter& e, const std::string& name) {
  return e.value_attr(loc, v_, name);
}

SugaredPtr Emitter::value_attr(const SourceRange& loc, Value* v, const std::string& name) {
  TypeKind k = v->type()->kind();
  if (k == TypeKind::Tensor) {
    if (name == "shape") return std::make_shared<ValueSugar>(emit_op(loc, "aten::size", {v}));
    if (name == "ndim") return std::make_shared<ValueSugar>(emit_op(loc, "aten::dim", {v}));
    if (name == "dtype") return std::make_shared<ValueSugar>(emit_op(loc, "prim::dtype", {v}));
    if (name == "device") return std::make_shared<ValueSugar>(emit_op(loc, "prim::device", {v}));
    if (name == "T") {  // PyTorch's aten::numpy_T where Ember has it; t() is the same for up to 2 dims
      bool numpy_t = !Dispatcher::singleton().overloads("aten::numpy_T").empty();
      return std::make_shared<ValueSugar>(emit_op(loc, numpy_t ? "aten::numpy_T" : "aten::t", {v}));
    }
    if (name == "requires_grad") return std::make_shared<ValueSugar>(emit_op(loc, "prim::requires_grad", {v}));
    if (name == "is_cuda") return std::make_shared<ValueSugar>(constant(IValue(false)));
    return std::make_shared<OpSugar>("aten::" + name, v);
  }
  if (k == TypeKind::List || k == TypeKind::Dict || k == TypeKind::Str)
    return std::make_shared<OpSugar>("aten::" + name, v);
  fail(loc, fmt::format("'{}' object has no attribute or method '{}'", v->type()->str(), name));
}

// ---- modules

SugaredPtr ModuleSugar::attr(const SourceRange& loc, Emitter& e, const std::string& name) {
  if (name_ == "torch") {
    if (name == "nn" || name == "jit") return std::make_shared<ModuleSugar>("torch." + name);
    if (std::optional<DType> d = dtype_named(name)) return std::make_shared<ValueSugar>(e.constant(IValue(*d)));
    return std::make_shared<OpSugar>("aten::" + name);
  }
  if (name_ == "torch.nn") {
    if (name == "functional") return std::make_shared<ModuleSugar>("torch.nn.functional");
  } else if (name_ == "torch.nn.functional") {
    return std::make_shared<OpSugar>("aten::" + name, nullptr, /*functional=*/true);
  } else if (name_ == "torch.jit") {
    if (name == "annotate") return std::make_shared<BuiltinSugar>("annotate");
    if (name == "is_scripting") return std::make_shared<BuiltinSugar>("is_scripting");
  } else if (name_ == "math") {
    if (name == "pi") return std::make_shared<ValueSugar>(e.constant(IValue(M_PI)));
    if (name == "e") return std::make_shared<ValueSugar>(e.constant(IValue(M_E)));
    if (name == "inf") return std::make_shared<ValueSugar>(e.constant(IValue(std::numeric_limits<double>::infinity())));
    if (name == "nan") return std::make_shared<ValueSugar>(e.constant(IValue(std::nan(""))));
    return std::make_shared<OpSugar>("aten::" + name);
  }
  return SugaredValue::attr(loc, e, name);
}

SugaredPtr Emitter::builtin_global(const std::string& name) {
  if (name == "torch" || name == "ember") return std::make_shared<ModuleSugar>("torch");
  if (name == "F") return std::make_shared<ModuleSugar>("torch.nn.functional");
  if (name == "nn") return std::make_shared<ModuleSugar>("torch.nn");
  if (name == "math") return std::make_shared<ModuleSugar>("math");
  static const std::set<std::string> builtins = {"len",   "range", "min",        "max",      "abs",      "int",
                                                 "float", "bool",  "str",        "print",    "isinstance",
                                                 "zip",   "enumerate", "annotate", "is_scripting"};
  if (builtins.count(name)) return std::make_shared<BuiltinSugar>(name);
  return nullptr;
}

// ---- calls

// Note [functional calls]
// torch.nn.functional's functions are Python functions over the ops of the same name (PyTorch scripts their
// source); Ember calls the op, adapting the keywords that differ: `input` is the op's first argument, `training`
// is dropout's `train`, and `inplace=False` / `_stacklevel` (which the op does not take) are dropped.
static void adapt_functional_call(const SourceRange& loc, CallArgs& args) {
  std::vector<NamedValue> kept;
  for (NamedValue& kw : args.kwargs) {
    if (kw.name == "input" && args.args.empty()) {
      args.args.push_back(NamedValue{kw.loc, "", kw.value});
      continue;
    }
    if (kw.name == "_stacklevel") continue;
    if (kw.name == "inplace") {
      std::optional<IValue> c = constant_value(kw.value);
      if (!c || !c->is_bool() || c->to_bool())
        Emitter::fail(loc, "torch.nn.functional with inplace=True is not supported (call the in-place op)");
      continue;
    }
    if (kw.name == "training") kw.name = "train";
    kept.push_back(kw);
  }
  args.kwargs = std::move(kept);
}

SugaredPtr OpSugar::call(const SourceRange& loc, Emitter& e, const Tree& call) {
  CallArgs args = e.emit_call_args(call);
  if (functional_) adapt_functional_call(loc, args);
  if (self_) args.args.insert(args.args.begin(), NamedValue{loc, "", self_});
  return std::make_shared<ValueSugar>(e.emit_op(loc, op_, args));
}

SugaredPtr FunctionSugar::call(const SourceRange& loc, Emitter& e, const Tree& call) {
  return std::make_shared<ValueSugar>(e.emit_function_call(loc, *fn_, e.emit_call_args(call)));
}

namespace {

// The numeric builtins that pick prim:: for numbers and aten:: for tensors (min, max, abs).
bool any_tensor(const CallArgs& a) {
  for (const NamedValue& v : a.args)
    if (v.value->type()->kind() == TypeKind::Tensor) return true;
  return false;
}

// isinstance(v, T) decided on the static type: True, False, or null when only a run-time test can tell
// (an Optional against its element type).
std::optional<bool> static_isinstance(const TypePtr& t, const TypePtr& target) {
  if (t->is_subtype_of(*target)) return true;
  if (const auto* o = t->cast<OptionalType>(); o && (o->elem()->is_subtype_of(*target) ||
                                                     target->kind() == TypeKind::None))
    return std::nullopt;
  return false;
}

}  // namespace

SugaredPtr BuiltinSugar::call(const SourceRange& loc, Emitter& e, const Tree& call) {
  const Tree& args_tree = *call.child(1);
  auto wrap = [](Value* v) { return std::make_shared<ValueSugar>(v); };
  if (name_ == "annotate") {
    if (args_tree.children.size() != 2) Emitter::fail(loc, "annotate() takes a type and a value");
    TypePtr t = e.parse_type(*args_tree.child(0));
    Value* v = e.emit_expr(*args_tree.child(1), t);
    return wrap(e.coerce(args_tree.child(1)->range, v, t, "annotate()'s value"));
  }
  if (name_ == "isinstance") {
    if (args_tree.children.size() != 2) Emitter::fail(loc, "isinstance() takes a value and a type");
    Value* v = e.emit_expr(*args_tree.child(0));
    std::vector<TypePtr> targets;
    const Tree* ts = args_tree.child(1);
    if (ts->kind == TreeKind::Tuple)
      for (const TreePtr& t : ts->children) targets.push_back(e.parse_type(*t));
    else
      targets.push_back(e.parse_type(*ts));
    bool maybe = false;
    for (const TypePtr& t : targets) {
      std::optional<bool> r = static_isinstance(v->type(), t);
      if (r && *r) return wrap(e.constant(IValue(true)));
      maybe |= !r;
      if (!r && t->kind() == TypeKind::None) return wrap(e.emit_op(loc, "aten::__is__", {v, e.constant(IValue())}));
    }
    if (maybe) return wrap(e.emit_op(loc, "aten::__isnot__", {v, e.constant(IValue())}));
    return wrap(e.constant(IValue(false)));
  }
  if (name_ == "is_scripting") return wrap(e.constant(IValue(true)));
  CallArgs a = e.emit_call_args(call);
  auto want = [&](size_t lo, size_t hi) {
    if (!a.kwargs.empty()) Emitter::fail(loc, fmt::format("{}() takes no keyword arguments", name_));
    if (a.args.size() < lo || a.args.size() > hi)
      Emitter::fail(loc, lo == hi ? fmt::format("{}() expected {} argument(s) but got {}", name_, lo, a.args.size())
                                  : fmt::format("{}() expected {} to {} arguments but got {}", name_, lo, hi,
                                                a.args.size()));
  };
  if (name_ == "print") {
    Node* n = e.graph().create(prim::Print, {}, 0);
    for (const NamedValue& v : a.args) n->add_input(v.value);
    e.graph().insert_node(n);
    return wrap(e.constant(IValue()));
  }
  if (name_ == "range" || name_ == "zip" || name_ == "enumerate") {
    if (name_ == "range") want(1, 3);
    else if (name_ == "enumerate") want(1, 2);
    else want(1, 64);
    std::vector<Value*> vs;
    for (const NamedValue& v : a.args) vs.push_back(v.value);
    if (name_ == "range")
      for (const NamedValue& v : a.args)
        if (v.value->type()->kind() != TypeKind::Int)
          Emitter::fail(v.loc, fmt::format("range() expects int arguments, not {}", v.value->type()->str()));
    auto k = name_ == "range" ? IterableSugar::Kind::Range
             : name_ == "zip" ? IterableSugar::Kind::Zip : IterableSugar::Kind::Enumerate;
    return std::make_shared<IterableSugar>(k, std::move(vs));
  }
  if (name_ == "len") {
    want(1, 1);
    if (const auto* tt = a.args[0].value->type()->cast<TupleType>())  // a tuple's length is known here
      return wrap(e.constant(IValue(static_cast<int64_t>(tt->elements().size()))));
    return wrap(e.emit_op(loc, "aten::len", a));
  }
  if (name_ == "min" || name_ == "max" || name_ == "abs") {
    if (name_ == "abs") want(1, 1);
    else want(1, 2);
    return wrap(e.emit_op(loc, (any_tensor(a) ? "aten::" : "prim::") + name_, a));
  }
  if (name_ == "int" || name_ == "float" || name_ == "bool" || name_ == "str") {
    want(1, 1);
    static const std::map<std::string, TypeKind> kinds = {
        {"int", TypeKind::Int}, {"float", TypeKind::Float}, {"bool", TypeKind::Bool}, {"str", TypeKind::Str}};
    if (a.args[0].value->type()->kind() == kinds.at(name_)) return wrap(a.args[0].value);
    std::string op = name_ == "str" ? "aten::str" : "aten::" + std::string(1, static_cast<char>(name_[0] - 32)) +
                                                        name_.substr(1);
    return wrap(e.emit_op(loc, op, a));
  }
  Emitter::fail(loc, fmt::format("builtin '{}' is not supported", name_));
}

}  // namespace ember::jit::script
