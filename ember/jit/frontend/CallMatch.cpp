// Calls in TorchScript: overload resolution against the dispatcher's schemas, and calls of the unit's functions.
//
// Note [schema matching in the compiler]
// A call `op(a, b, k=c)` tries the overloads of the op in the dispatcher's order, twice, as PyTorch 1.13's
// matchSchemas does: first each argument must fit exactly (an int does not fit a float argument), then
// implicit conversions are allowed (int for float, a tuple for a list, a single int or several ints for an int
// list: `x.view(2, 3)`). The first overload that fits wins. Binding follows Python: positional arguments fill the
// schema's non-keyword-only arguments in order, keywords by name, the rest take the schema's defaults, emitted
// as constants, since graphs pass every argument (Note [schema matching] in Graph.h). A list argument (int[],
// float[]) that is the last positional one takes all remaining positional values (varargs), as TorchScript's
// `x.view(2, 3)` and `torch.zeros(2, 3)`.
#include <fmt/format.h>

#include "ember/jit/frontend/Emitter.h"
#include "ember/jit/passes/GraphEdit.h"

namespace ember::jit::script {

namespace {

// A type as Python writes it: List[int], Optional[Tensor], Dict[str, int], Tuple[int, float].
std::string py_str(const Type& t) {
  switch (t.kind()) {
    case TypeKind::Tensor: return "Tensor";
    case TypeKind::List: return "List[" + py_str(*t.cast<ListType>()->elem()) + "]";
    case TypeKind::Optional: return "Optional[" + py_str(*t.cast<OptionalType>()->elem()) + "]";
    case TypeKind::Dict: {
      const auto* d = t.cast<DictType>();
      return "Dict[" + py_str(*d->key()) + ", " + py_str(*d->value()) + "]";
    }
    case TypeKind::Tuple: {
      std::string r;
      for (const TypePtr& e : t.cast<TupleType>()->elements()) r += (r.empty() ? "" : ", ") + py_str(*e);
      return "Tuple[" + r + "]";
    }
    default: return t.str();
  }
}

std::string py_str(const SchemaType& s) {
  using K = SchemaType::Kind;
  switch (s.kind) {
    case K::List: return "List[" + py_str(*s.elem) + "]";
    case K::Optional: return "Optional[" + py_str(*s.elem) + "]";
    default: return s.str();
  }
}

// Whether a value of type t fits schema type s; exact: no implicit conversions (an int is not a float).
bool fits(const Type& t, const SchemaType& s, bool exact) {
  using K = SchemaType::Kind;
  if (exact) {
    if (s.kind == K::Float && t.kind() == TypeKind::Int) return false;
    if (s.kind == K::List && s.fixed_size >= 0 && t.kind() == TypeKind::Int) return false;
    if (s.kind == K::Optional && t.kind() != TypeKind::None && t.kind() != TypeKind::Optional)
      return fits(t, *s.elem, true);
    if (s.kind == K::Optional && t.kind() == TypeKind::Optional)
      return fits(*t.cast<OptionalType>()->elem(), *s.elem, true);
    if (s.kind == K::List && t.kind() == TypeKind::List) return fits(*t.cast<ListType>()->elem(), *s.elem, true);
  }
  return matches_schema_type(t, s);
}

// A tuple whose elements all fit the list type s (a conversion of the second round).
bool tuple_fits_list(const Type& t, const SchemaType& s) {
  const auto* tt = t.cast<TupleType>();
  if (!tt || s.kind != SchemaType::Kind::List) return false;
  for (const TypePtr& e : tt->elements())
    if (!fits(*e, *s.elem, false)) return false;
  return true;
}

// Whether schema argument i may take the remaining positional values as a list (Note [schema matching in the
// compiler]): an int or float list that is the last positional argument.
bool takes_varargs(const FunctionSchema& s, size_t i) {
  const SchemaType& t = s.arguments[i].type;
  if (t.kind != SchemaType::Kind::List) return false;
  if (t.elem->kind != SchemaType::Kind::Int && t.elem->kind != SchemaType::Kind::Float) return false;
  return i + 1 == s.arguments.size() || s.arguments[i + 1].kwarg_only;
}

}  // namespace

namespace {

// Matches `args` against schema s (Note [schema matching in the compiler]); on success the inputs are emitted
// (conversions, default constants) into e's graph.
SchemaMatch match_schema(Emitter& e, const SourceRange& loc, const FunctionSchema& s, const CallArgs& call,
                         bool exact) {
  SchemaMatch m;
  const size_t n = s.arguments.size();
  std::vector<const NamedValue*> bound(n, nullptr);
  std::vector<std::vector<const NamedValue*>> varargs(n);
  size_t pos = 0;
  for (size_t i = 0; i < n && pos < call.args.size(); ++i) {
    const SchemaArgument& a = s.arguments[i];
    if (a.kwarg_only) break;
    const NamedValue& v = call.args[pos];
    bool rest_as_list = takes_varargs(s, i) && !fits(*v.value->type(), a.type, exact) &&
                        v.value->type()->kind() != TypeKind::Tuple;
    if (rest_as_list) {
      for (; pos < call.args.size(); ++pos) varargs[i].push_back(&call.args[pos]);
    } else {
      bound[i] = &v;
      ++pos;
    }
  }
  if (pos < call.args.size()) {
    m.why = fmt::format("Expected at most {} argument(s) but found {} positional argument(s).", n,
                        call.args.size());
    return m;
  }
  for (const NamedValue& kw : call.kwargs) {
    size_t i = 0;
    while (i < n && s.arguments[i].name != kw.name) ++i;
    if (i == n) {
      m.why = fmt::format("Keyword argument {} unknown.", kw.name);
      return m;
    }
    if (bound[i] || !varargs[i].empty()) {
      m.why = fmt::format("Argument {} specified twice in schema.", kw.name);
      return m;
    }
    bound[i] = &kw;
  }
  // Check every argument before emitting anything (a failed overload leaves no nodes behind).
  for (size_t i = 0; i < n; ++i) {
    const SchemaArgument& a = s.arguments[i];
    if (!varargs[i].empty()) {
      for (const NamedValue* v : varargs[i]) {
        if (!fits(*v->value->type(), *a.type.elem, exact)) {
          m.why = fmt::format("Expected a value of type '{}' for argument '{}' but instead found type '{}'.",
                              py_str(*a.type.elem), a.name, py_str(*v->value->type()));
          return m;
        }
      }
      continue;
    }
    if (!bound[i]) {
      if (!a.default_value) {
        m.why = fmt::format("Argument {} not provided.", a.name);
        return m;
      }
      continue;
    }
    const Type& t = *bound[i]->value->type();
    if (fits(t, a.type, exact) || (!exact && tuple_fits_list(t, a.type))) continue;
    m.why = fmt::format("Expected a value of type '{}' for argument '{}' but instead found type '{}'.",
                        py_str(a.type), a.name, py_str(t));
    return m;
  }
  Graph& g = e.graph();
  for (size_t i = 0; i < n; ++i) {
    const SchemaArgument& a = s.arguments[i];
    if (!varargs[i].empty()) {
      std::vector<Value*> vs;
      for (const NamedValue* v : varargs[i]) vs.push_back(v->value);
      m.inputs.push_back(g.insert_list(type_from_schema(*a.type.elem), vs));
    } else if (!bound[i]) {
      try {
        m.inputs.push_back(e.constant(*a.default_value));
      } catch (const Error& err) {
        Emitter::fail(loc, fmt::format("the default of argument '{}' of {} cannot be passed: {}", a.name,
                                       s.str(), err.what()));
      }
    } else if (!fits(*bound[i]->value->type(), a.type, false)) {  // a tuple for a list
      Node* u = g.insert_tuple_unpack(bound[i]->value);
      std::vector<Value*> elems(u->outputs().begin(), u->outputs().end());
      m.inputs.push_back(g.insert_list(type_from_schema(*a.type.elem), elems));
    } else {
      m.inputs.push_back(bound[i]->value);
    }
  }
  m.ok = true;
  return m;
}

std::string arg_types(const CallArgs& call) {
  std::string r;
  for (const NamedValue& a : call.args) r += (r.empty() ? "" : ", ") + py_str(*a.value->type());
  for (const NamedValue& a : call.kwargs) r += (r.empty() ? "" : ", ") + a.name + "=" + py_str(*a.value->type());
  return r;
}

}  // namespace

Value* Emitter::try_emit_op(const SourceRange& loc, const std::string& qualified_name, const CallArgs& args) {
  size_t sep = qualified_name.find("::");
  size_t dot = qualified_name.find('.', sep == std::string::npos ? 0 : sep + 2);
  std::vector<OperatorHandle> ops;
  if (dot != std::string::npos) {
    OperatorHandle op = Dispatcher::singleton().find(qualified_name);
    if (op.valid()) ops.push_back(op);
  } else {
    ops = Dispatcher::singleton().overloads(qualified_name);
  }
  if (ops.empty()) fail(loc, fmt::format("unknown builtin op: {} (Ember has no op of that name)", qualified_name));
  for (bool exact : {true, false}) {
    for (const OperatorHandle& op : ops) {
      SchemaMatch m = match_schema(*this, loc, op.schema(), args, exact);
      if (!m.ok) continue;
      Node* node = graph_->insert_op(op, m.inputs);
      if (node->num_outputs() == 0) return constant(IValue());
      if (node->num_outputs() == 1) return node->output();
      std::vector<Value*> outs(node->outputs().begin(), node->outputs().end());
      return graph_->insert_tuple(outs);
    }
  }
  return nullptr;
}

Value* Emitter::emit_op(const SourceRange& loc, const std::string& qualified_name, const CallArgs& args) {
  if (Value* v = try_emit_op(loc, qualified_name, args)) return v;
  // Say why each overload failed, as PyTorch does.
  size_t sep = qualified_name.find("::");
  size_t dot = qualified_name.find('.', sep == std::string::npos ? 0 : sep + 2);
  std::vector<OperatorHandle> ops;
  if (dot != std::string::npos) ops.push_back(Dispatcher::singleton().find(qualified_name));
  else ops = Dispatcher::singleton().overloads(qualified_name);
  // Matching emits nothing until it succeeds, so asking again for the reasons is safe.
  if (ops.size() == 1) {
    SchemaMatch m = match_schema(*this, loc, ops[0].schema(), args, false);
    fail(loc, fmt::format("{}\n{} for call with argument types ({})", m.why, ops[0].schema().str(), arg_types(args)));
  }
  std::string msg = "Arguments for call are not valid.\nThe following variants are available:\n";
  for (const OperatorHandle& op : ops) {
    SchemaMatch m = match_schema(*this, loc, op.schema(), args, false);
    msg += fmt::format("\n  {}:\n  {}\n", op.schema().str(), m.why);
  }
  msg += fmt::format("\nThe original call with argument types ({}) is", arg_types(args));
  fail(loc, msg);
}

Value* Emitter::emit_op(const SourceRange& loc, const std::string& qualified_name, std::vector<Value*> args) {
  CallArgs call;
  for (Value* v : args) call.args.push_back(NamedValue{loc, "", v});
  return emit_op(loc, qualified_name, call);
}

Value* Emitter::emit_function_call(const SourceRange& loc, const GraphFunction& fn, const CallArgs& call) {
  if (fn.is_method()) fail(loc, fmt::format("{} is a method: call it as self.{}(...)", fn.name(), fn.name()));
  const auto& params = fn.parameters();
  std::vector<Value*> inputs(params.size(), nullptr);
  size_t positional = 0;
  for (const NamedValue& a : call.args) {
    if (positional >= params.size() || params[positional].kwarg_only)
      fail(loc, fmt::format("{}() expected at most {} argument(s) but received {} argument(s)", fn.name(),
                            params.size(), call.args.size()));
    inputs[positional++] = a.value;
  }
  for (const NamedValue& kw : call.kwargs) {
    size_t i = 0;
    while (i < params.size() && params[i].name != kw.name) ++i;
    if (i == params.size())
      fail(kw.loc, fmt::format("{}() got an unexpected keyword argument '{}'", fn.name(), kw.name));
    if (inputs[i]) fail(kw.loc, fmt::format("{}() got multiple values for argument '{}'", fn.name(), kw.name));
    inputs[i] = kw.value;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const ScriptParameter& p = params[i];
    if (!inputs[i]) {
      if (!p.default_value) fail(loc, fmt::format("{}() is missing value for argument '{}'", fn.name(), p.name));
      inputs[i] = constant(*p.default_value);
    }
    if (p.type->kind() == TypeKind::Float && inputs[i]->type()->kind() == TypeKind::Int)
      inputs[i] = emit_op(loc, "aten::Float", std::vector<Value*>{inputs[i]});
    if (!inputs[i]->type()->is_subtype_of(*p.type))
      fail(loc, fmt::format("Expected a value of type '{}' for argument '{}' but instead found type '{}'.",
                            py_str(*p.type), p.name, py_str(*inputs[i]->type())));
  }
  std::vector<Value*> outs = passes::insert_graph_copy(*graph_, fn.graph(), inputs);
  if (outs.empty()) return constant(IValue());
  return outs.size() == 1 ? outs[0] : graph_->insert_tuple(outs);
}

}  // namespace ember::jit::script
