// Expressions of TorchScript -> IR values (Note [TorchScript compiler] in Emitter.h).
#include <fmt/format.h>

#include "ember/base/Error.h"
#include "ember/jit/frontend/Emitter.h"
#include "ember/jit/frontend/Sugared.h"

namespace ember::jit::script {

namespace {

// Counts the emitter's recursion; the tree's height bounds it (ScriptLimits), this keeps a mistake from
// turning into a stack overflow.
class DepthGuard {
 public:
  DepthGuard(int& depth, const SourceRange& loc) : depth_(depth) {
    if (++depth_ > 4096) Emitter::fail(loc, "expression nested too deeply to compile (limit 4096)");
  }
  ~DepthGuard() { --depth_; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;

 private:
  int& depth_;
};

bool is_none_literal(const Tree& t) { return t.kind == TreeKind::Const && t.text == "None"; }

// The ops of Python's binary operators on numbers and on tensors.
struct BinaryOp {
  const char* number;
  const char* tensor;
  const char* inplace;  // the augmented assignment on a tensor (x += y)
};
const BinaryOp* binary_op(const std::string& op) {
  static const std::map<std::string, BinaryOp> ops = {
      {"+", {"aten::add", "aten::add", "aten::add_"}},
      {"-", {"aten::sub", "aten::sub", "aten::sub_"}},
      {"*", {"aten::mul", "aten::mul", "aten::mul_"}},
      {"/", {"aten::div", "aten::div", "aten::div_"}},
      {"//", {"aten::floordiv", "aten::floor_divide", "aten::floor_divide_"}},
      {"%", {"aten::remainder", "aten::remainder", "aten::remainder_"}},
      {"**", {"aten::pow", "aten::pow", "aten::pow_"}},
      {"@", {"aten::matmul", "aten::matmul", "aten::matmul"}},
      {"&", {"aten::__and__", "aten::__and__", "aten::__iand__"}},
      {"|", {"aten::__or__", "aten::__or__", "aten::__ior__"}},
      {"^", {"aten::__xor__", "aten::__xor__", "aten::__ixor__"}},
      {"<<", {"aten::__lshift__", "aten::__lshift__", "aten::__ilshift__"}},
      {">>", {"aten::__rshift__", "aten::__rshift__", "aten::__irshift__"}},
  };
  auto it = ops.find(op);
  return it == ops.end() ? nullptr : &it->second;
}

const char* compare_op(const std::string& op) {
  if (op == "<") return "aten::lt";
  if (op == ">") return "aten::gt";
  if (op == "<=") return "aten::le";
  if (op == ">=") return "aten::ge";
  if (op == "==") return "aten::eq";
  if (op == "!=") return "aten::ne";
  return nullptr;
}

bool is_number(const Type& t) {
  return t.kind() == TypeKind::Int || t.kind() == TypeKind::Float || t.kind() == TypeKind::Number ||
         t.kind() == TypeKind::Bool;
}

}  // namespace

void Emitter::fail(const SourceRange& loc, const std::string& message) { throw_script_error(loc, message); }

Value* Emitter::constant(const IValue& v) { return graph_->insert_constant(v); }

// ---- names, attributes, calls

SugaredPtr Emitter::emit_sugared(const Tree& e) {
  DepthGuard guard(depth_, e.range);
  switch (e.kind) {
    case TreeKind::Name: {
      if (SugaredPtr s = lookup_sugared(e.text)) return s;
      if (Value* v = lookup(e.text, e.range)) return std::make_shared<ValueSugar>(v);
      if (resolver_)
        if (SugaredPtr s = resolver_->resolve(e.text, e.range, *this)) return s;
      if (auto it = functions_.find(e.text); it != functions_.end())
        return std::make_shared<FunctionSugar>(it->second.get());
      if (SugaredPtr s = builtin_global(e.text)) return s;
      fail(e.range, fmt::format("undefined value {}", e.text));
    }
    case TreeKind::Attribute: return emit_sugared(*e.child(0))->attr(e.range, *this, e.text);
    case TreeKind::Call: {
      if (e.child(1))
        for (const TreePtr& a : e.child(1)->children)
          if (a->kind == TreeKind::Starred) fail(a->range, "starred arguments (*args) are not supported");
      return emit_sugared(*e.child(0))->call(e.range, *this, e);
    }
    default: return std::make_shared<ValueSugar>(emit_expr(e));
  }
}

CallArgs Emitter::emit_call_args(const Tree& call) {
  CallArgs r;
  for (const TreePtr& a : call.child(1)->children) r.args.push_back(NamedValue{a->range, "", emit_expr(*a)});
  if (call.child(2))
    for (const TreePtr& kw : call.child(2)->children)
      r.kwargs.push_back(NamedValue{kw->range, kw->text, emit_expr(*kw->child(0))});
  return r;
}

// ---- expressions

Value* Emitter::emit_expr(const Tree& e, const TypePtr& hint) {
  DepthGuard guard(depth_, e.range);
  switch (e.kind) {
    case TreeKind::Name:
    case TreeKind::Attribute:
    case TreeKind::Call: return emit_sugared(e)->as_value(e.range, *this);
    case TreeKind::Int:
      if (e.int_value > static_cast<uint64_t>(INT64_MAX)) fail(e.range, "integer literal out of the range of int");
      return constant(IValue(static_cast<int64_t>(e.int_value)));
    case TreeKind::Float: return constant(IValue(e.float_value));
    case TreeKind::Str: return constant(IValue(e.text));
    case TreeKind::Const:
      if (e.text == "True") return constant(IValue(true));
      if (e.text == "False") return constant(IValue(false));
      if (e.text == "None") return constant(IValue());
      fail(e.range, "Ellipsis (...) is not supported here");
    case TreeKind::BinOp: {
      Value* l = emit_expr(*e.child(0));
      Value* r = emit_expr(*e.child(1));
      return emit_binop(e.range, e.text, l, r);
    }
    case TreeKind::UnaryOp: return emit_unary(e);
    case TreeKind::BoolOp: return emit_boolop(e);
    case TreeKind::Compare: return emit_compare(e);
    case TreeKind::IfExp: return emit_ifexp(e);
    case TreeKind::Tuple: {
      const auto* th = hint ? hint->cast<TupleType>() : nullptr;
      std::vector<Value*> vs;
      for (size_t i = 0; i < e.children.size(); ++i)
        vs.push_back(emit_expr(*e.child(i), th && i < th->elements().size() ? th->elements()[i] : nullptr));
      return graph_->insert_tuple(vs);
    }
    case TreeKind::List: return emit_list(e, hint);
    case TreeKind::Dict: return emit_dict(e, hint);
    case TreeKind::ListComp: return emit_listcomp(e, hint);
    case TreeKind::Subscript: return emit_subscript(e);
    case TreeKind::DictComp: fail(e.range, "dict comprehensions are not supported yet");
    case TreeKind::Starred: fail(e.range, "starred expressions are not supported");
    case TreeKind::Slice: fail(e.range, "a slice can only be used in a subscript");
    default: fail(e.range, fmt::format("unsupported expression ({})", tree_kind_name(e.kind)));
  }
}

Value* Emitter::emit_binop(const SourceRange& loc, const std::string& op, Value* l, Value* r) {
  const BinaryOp* b = binary_op(op);
  if (!b) fail(loc, fmt::format("unsupported binary operator {}", op));
  bool lt = l->type()->kind() == TypeKind::Tensor, rt = r->type()->kind() == TypeKind::Tensor;
  if (!lt && rt && is_number(*l->type())) {  // a number on the left of a tensor: TorchScript's __radd__ & co.
    if (op == "+" || op == "*") return emit_op(loc, b->tensor, {r, l});
    if (op == "-") return emit_op(loc, "aten::add", {emit_op(loc, "aten::neg", {r}), l});
    if (op == "/") return emit_op(loc, "aten::mul", {emit_op(loc, "aten::reciprocal", {r}), l});
  }
  return emit_op(loc, lt || rt ? b->tensor : b->number, {l, r});
}

Value* Emitter::emit_unary(const Tree& e) {
  Value* v = e.text == "not" ? emit_condition(*e.child(0)) : emit_expr(*e.child(0));
  if (e.text == "not") return emit_op(e.range, "aten::__not__", {v});
  if (e.text == "+") return v;
  if (e.text == "-") {
    if (std::optional<IValue> c = constant_value(v)) {  // fold literals: -1 is a constant, as in PyTorch
      if (c->is_int() && v->type()->kind() == TypeKind::Int) return constant(IValue(-c->to_int()));
      if (c->is_double()) return constant(IValue(-c->to_double()));
    }
    return emit_op(e.range, "aten::neg", {v});
  }
  if (e.text == "~")
    return emit_op(e.range, v->type()->kind() == TypeKind::Tensor ? "aten::bitwise_not" : "aten::__invert__", {v});
  fail(e.range, fmt::format("unsupported unary operator {}", e.text));
}

Value* Emitter::as_bool(const SourceRange& loc, Value* v) {
  switch (v->type()->kind()) {
    case TypeKind::Bool: return v;
    case TypeKind::Tensor:
    case TypeKind::Int:
    case TypeKind::Float: return emit_op(loc, "aten::Bool", {v});
    case TypeKind::Str:
    case TypeKind::List:
    case TypeKind::Dict: {  // Python's truth: non-empty
      Value* n = emit_op(loc, "aten::len", {v});
      return emit_op(loc, "aten::ne", {n, constant(IValue(int64_t{0}))});
    }
    case TypeKind::None: return constant(IValue(false));
    default:
      fail(loc, fmt::format("a value of type '{}' cannot be used as a condition (test it explicitly, e.g. "
                            "'x is not None')", v->type()->str()));
  }
}

Value* Emitter::emit_condition(const Tree& e) { return as_bool(e.range, emit_expr(e)); }

Value* Emitter::emit_is(const SourceRange& loc, Value* l, Value* r, bool negate) {
  auto may_be_none = [](const Type& t) {
    return t.kind() == TypeKind::None || t.kind() == TypeKind::Optional || t.kind() == TypeKind::Any;
  };
  // `x is None` for an x that cannot be None is decided here, as PyTorch's emitter does.
  bool ln = l->type()->kind() == TypeKind::None, rn = r->type()->kind() == TypeKind::None;
  if ((ln && !may_be_none(*r->type())) || (rn && !may_be_none(*l->type()))) return constant(IValue(negate));
  if (ln && rn) return constant(IValue(!negate));
  return emit_op(loc, negate ? "aten::__isnot__" : "aten::__is__", {l, r});
}

Value* Emitter::emit_compare(const Tree& e) {
  // a < b < c: each comparison after the first runs only when the ones before hold (a prim::If chain).
  Value* left = emit_expr(*e.child(0));
  auto compare = [&](Value* l, const Tree& cmp) -> Value* {
    Value* r = emit_expr(*cmp.child(0));
    left = r;
    const std::string& op = cmp.text;
    if (op == "is" || op == "is_not") return emit_is(cmp.range, l, r, op == "is_not");
    if (op == "in" || op == "not_in") {
      Value* c = emit_op(cmp.range, "aten::__contains__", {r, l});
      return op == "in" ? c : emit_op(cmp.range, "aten::__not__", {c});
    }
    return emit_op(cmp.range, compare_op(op), {l, r});
  };
  Value* result = compare(left, *e.child(1));
  if (e.children.size() == 2) return result;
  // Each further comparison is emitted in the true block of an If on the ones before; the Ifs nest, so the
  // right operand of one comparison (the left of the next) dominates the next.
  Node* saved = graph_->insert_point();
  std::vector<Node*> ifs;
  for (size_t i = 2; i < e.children.size(); ++i) {
    Node* n = graph_->insert_if(as_bool(e.range, result), 1);
    n->output()->set_type(Type::bool_type());
    {
      InsertPointGuard g(*graph_, n->blocks()[1]);
      n->blocks()[1]->register_output(constant(IValue(false)));
    }
    graph_->set_insert_point(n->blocks()[0]);
    ifs.push_back(n);
    result = compare(left, *e.child(i));
  }
  for (size_t k = ifs.size(); k-- > 0;) {
    ifs[k]->blocks()[0]->register_output(as_bool(e.range, result));
    result = ifs[k]->output();
    graph_->set_insert_point(k ? ifs[k - 1]->blocks()[0]->return_node() : saved);
  }
  return result;
}

Value* Emitter::emit_boolop(const Tree& e) {
  // a and b: prim::If(a) { b } else { False };  a or b: prim::If(a) { True } else { b }. The right operand
  // sees the refinements the left one implies (`x is not None and x > 0`).
  bool is_and = e.text == "and";
  Value* result = emit_condition(*e.child(0));
  Refinements acc = refinements_of(*e.child(0));
  for (size_t i = 1; i < e.children.size(); ++i) {
    Node* n = graph_->insert_if(result, 1);
    n->output()->set_type(Type::bool_type());
    Block* eval = n->blocks()[is_and ? 0 : 1];
    Block* shortcut = n->blocks()[is_and ? 1 : 0];
    {
      InsertPointGuard g(*graph_, eval);
      Frame* f = push_frame();
      apply_refinements(is_and ? acc.when_true : acc.when_false, e.range);
      eval->register_output(emit_condition(*e.child(i)));
      pop_frame(f);
    }
    {
      InsertPointGuard g(*graph_, shortcut);
      shortcut->register_output(constant(IValue(!is_and)));
    }
    Refinements more = refinements_of(*e.child(i));
    for (auto& [k, v] : (is_and ? more.when_true : more.when_false)) (is_and ? acc.when_true : acc.when_false)[k] = v;
    result = n->output();
  }
  return result;
}

Value* Emitter::emit_ifexp(const Tree& e) {
  Value* cond = emit_condition(*e.child(0));
  Refinements r = refinements_of(*e.child(0));
  Node* n = graph_->insert_if(cond, 1);
  Value* vals[2];
  for (int b = 0; b < 2; ++b) {
    InsertPointGuard g(*graph_, n->blocks()[b]);
    Frame* f = push_frame();
    apply_refinements(b == 0 ? r.when_true : r.when_false, e.range);
    vals[b] = emit_expr(*e.child(b == 0 ? 1 : 2));
    pop_frame(f);
  }
  TypePtr t = unify_types(vals[0]->type(), vals[1]->type());
  if (!t)
    fail(e.range, fmt::format("if-expression's true branch has type {} but false branch has type {}",
                              vals[0]->type()->str(), vals[1]->type()->str()));
  n->blocks()[0]->register_output(vals[0]);
  n->blocks()[1]->register_output(vals[1]);
  n->output()->set_type(t);
  return n->output();
}

Value* Emitter::emit_list(const Tree& e, const TypePtr& hint) {
  const auto* lh = hint ? hint->cast<ListType>() : nullptr;
  TypePtr elem_hint = lh ? lh->elem() : nullptr;
  std::vector<Value*> vs;
  for (const TreePtr& c : e.children) vs.push_back(emit_expr(*c, elem_hint));
  TypePtr elem = elem_hint;
  if (!elem) {
    if (vs.empty()) elem = Type::tensor_type();  // TorchScript's default for []
    for (Value* v : vs) {
      TypePtr u = elem ? unify_types(elem, v->type()) : v->type();
      if (!u)
        fail(e.range, fmt::format("Lists must contain only a single type, but found {} and {}", elem->str(),
                                  v->type()->str()));
      elem = u;
    }
  }
  for (size_t i = 0; i < vs.size(); ++i) vs[i] = coerce(e.child(i)->range, vs[i], elem, "a list element");
  return graph_->insert_list(elem, vs);
}

Value* Emitter::emit_dict(const Tree& e, const TypePtr& hint) {
  const auto* dh = hint ? hint->cast<DictType>() : nullptr;
  std::vector<Value*> ks, vs;
  for (const TreePtr& item : e.children) {
    ks.push_back(emit_expr(*item->child(0), dh ? dh->key() : nullptr));
    vs.push_back(emit_expr(*item->child(1), dh ? dh->value() : nullptr));
  }
  TypePtr kt = dh ? dh->key() : ks.empty() ? Type::str_type() : ks[0]->type();
  TypePtr vt = dh ? dh->value() : vs.empty() ? Type::tensor_type() : vs[0]->type();
  for (size_t i = 0; i < ks.size() && !dh; ++i) {
    TypePtr u = unify_types(vt, vs[i]->type());
    if (!ks[i]->type()->equals(*kt) || !u)
      fail(e.child(i)->range, fmt::format("Dict entries must have one key type and one value type, but found "
                                          "{}: {} after {}: {}", ks[i]->type()->str(), vs[i]->type()->str(),
                                          kt->str(), vt->str()));
    vt = u;
  }
  if (kt->kind() != TypeKind::Str && kt->kind() != TypeKind::Int && kt->kind() != TypeKind::Tensor)
    fail(e.range, "a dict's keys must be str, int or Tensor, not " + kt->str());
  for (size_t i = 0; i < ks.size(); ++i) {
    ks[i] = coerce(e.child(i)->range, ks[i], kt, "a dict key");
    vs[i] = coerce(e.child(i)->range, vs[i], vt, "a dict value");
  }
  return graph_->insert_dict(kt, vt, ks, vs);
}

Value* Emitter::coerce(const SourceRange& loc, Value* v, const TypePtr& t, const std::string& what) {
  if (v->type()->is_subtype_of(*t)) return v;
  if (t->kind() == TypeKind::Float && v->type()->kind() == TypeKind::Int && constant_value(v))
    return constant(IValue(constant_value(v)->to_double()));
  fail(loc, fmt::format("{} has type '{}' but is expected to have type '{}'", what, v->type()->str(), t->str()));
}

// ---- subscripts

namespace {

// The constant int a tree denotes (1, -1), or nullopt.
std::optional<int64_t> constant_int(const Tree& t) {
  if (t.kind == TreeKind::Int) return static_cast<int64_t>(t.int_value);
  if (t.kind == TreeKind::UnaryOp && t.text == "-" && t.child(0)->kind == TreeKind::Int)
    return -static_cast<int64_t>(t.child(0)->int_value);
  return std::nullopt;
}

}  // namespace

Value* Emitter::emit_subscript(const Tree& e) {
  Value* v = emit_expr(*e.child(0));
  const Tree& idx = *e.child(1);
  TypeKind k = v->type()->kind();
  if (k == TypeKind::Tensor) return emit_tensor_index(e, v, idx);
  if (const auto* tt = v->type()->cast<TupleType>()) {
    int64_t n = static_cast<int64_t>(tt->elements().size());
    if (idx.kind == TreeKind::Slice) {
      auto bound = [&](const Tree* t, int64_t dflt) -> int64_t {
        if (!t) return dflt;
        std::optional<int64_t> c = constant_int(*t);
        if (!c) fail(t->range, "tuple slices must have constant bounds");
        return std::clamp(*c < 0 ? *c + n : *c, int64_t{0}, n);
      };
      if (idx.child(2)) fail(idx.range, "tuple slices with a step are not supported");
      int64_t lo = bound(idx.child(0), 0), hi = bound(idx.child(1), n);
      std::vector<Value*> elems;
      Node* u = graph_->insert_tuple_unpack(v);
      for (int64_t i = lo; i < hi; ++i) elems.push_back(u->output(static_cast<size_t>(i)));
      return graph_->insert_tuple(elems);
    }
    std::optional<int64_t> c = constant_int(idx);
    if (!c) fail(idx.range, "tuple indices must be integer constants");
    int64_t i = *c < 0 ? *c + n : *c;
    if (i < 0 || i >= n) fail(idx.range, fmt::format("Tuple index out of range. Tuple is length {} and index is {}",
                                                     n, *c));
    Node* node = graph_->create(prim::TupleIndex, {v, constant(IValue(i))}, 1);
    node->output()->set_type(tt->elements()[static_cast<size_t>(i)]);
    return graph_->insert_node(node)->output();
  }
  if (k == TypeKind::List || k == TypeKind::Str || k == TypeKind::Dict) {
    if (idx.kind == TreeKind::Slice) {
      if (k == TypeKind::Dict) fail(idx.range, "a dict cannot be sliced");
      std::vector<Value*> args{v};
      for (int i = 0; i < 2; ++i) args.push_back(idx.child(i) ? emit_expr(*idx.child(i)) : constant(IValue()));
      args.push_back(idx.child(2) ? emit_expr(*idx.child(2)) : constant(IValue(int64_t{1})));
      return emit_op(e.range, "aten::slice", args);
    }
    return emit_op(e.range, "aten::__getitem__", {v, emit_expr(idx)});
  }
  fail(e.range, fmt::format("'{}' object is not subscriptable", v->type()->str()));
}

Value* Emitter::emit_tensor_index(const Tree& e, Value* self, const Tree& index) {
  // As TorchScript: ints select (the dim goes away), slices slice, None unsqueezes, tensors gather through one
  // aten::index at the end with None for the dims they do not index.
  std::vector<const Tree*> elems;
  if (index.kind == TreeKind::Tuple)
    for (const TreePtr& c : index.children) elems.push_back(c.get());
  else
    elems.push_back(&index);
  int64_t dim = 0;
  std::vector<std::pair<int64_t, Value*>> tensors;
  for (const Tree* el : elems) {
    if (el->kind == TreeKind::Slice) {
      Value* start = el->child(0) ? emit_expr(*el->child(0)) : constant(IValue());
      Value* end = el->child(1) ? emit_expr(*el->child(1)) : constant(IValue());
      Value* step = el->child(2) ? emit_expr(*el->child(2)) : constant(IValue(int64_t{1}));
      bool whole = !el->child(0) && !el->child(1) && !el->child(2);
      if (!whole) self = emit_op(el->range, "aten::slice", {self, constant(IValue(dim)), start, end, step});
      ++dim;
    } else if (is_none_literal(*el)) {
      self = emit_op(el->range, "aten::unsqueeze", {self, constant(IValue(dim))});
      ++dim;
    } else if (el->kind == TreeKind::Const && el->text == "...") {
      fail(el->range, "Ellipsis (...) in tensor indexing is not supported yet");
    } else {
      Value* i = emit_expr(*el);
      if (i->type()->kind() == TypeKind::Int) {
        self = emit_op(el->range, "aten::select", {self, constant(IValue(dim)), i});
      } else if (i->type()->kind() == TypeKind::Tensor) {
        tensors.emplace_back(dim++, i);
      } else if (const auto* lt = i->type()->cast<ListType>(); lt && lt->elem()->kind() == TypeKind::Int) {
        tensors.emplace_back(dim++, emit_op(el->range, "aten::tensor", {i}));
      } else {
        fail(el->range, fmt::format("a tensor cannot be indexed by a value of type '{}'", i->type()->str()));
      }
    }
  }
  if (tensors.empty()) return self;
  std::vector<Value*> idx(static_cast<size_t>(tensors.back().first + 1), nullptr);
  for (Value*& v : idx) v = constant(IValue());
  for (auto& [d, t] : tensors) idx[static_cast<size_t>(d)] = t;
  Value* list = graph_->insert_list(OptionalType::create(Type::tensor_type()), idx);
  return emit_op(e.range, "aten::index", {self, list});
}

// ---- refinements (Note [environments])

Emitter::Refinements Emitter::refinements_of(const Tree& test) {
  Refinements r;
  auto optional_elem = [&](const Tree& name) -> TypePtr {
    if (name.kind != TreeKind::Name || !defined(name.text)) return nullptr;
    Value* v = lookup(name.text, name.range);
    const auto* o = v->type()->cast<OptionalType>();
    return o ? o->elem() : nullptr;
  };
  if (test.kind == TreeKind::Compare && test.children.size() == 2) {
    const Tree& cmp = *test.child(1);
    if ((cmp.text == "is" || cmp.text == "is_not") && is_none_literal(*cmp.child(0))) {
      if (TypePtr t = optional_elem(*test.child(0))) {
        (cmp.text == "is_not" ? r.when_true : r.when_false)[test.child(0)->text] = t;
      }
    }
  } else if (test.kind == TreeKind::Call && test.child(0)->kind == TreeKind::Name &&
             test.child(0)->text == "isinstance" && !defined("isinstance") && test.child(1)->children.size() == 2) {
    if (TypePtr t = optional_elem(*test.child(1)->child(0))) {
      TypePtr target = parse_type(*test.child(1)->child(1));
      if (t->is_subtype_of(*target)) r.when_true[test.child(1)->child(0)->text] = t;
    }
  } else if (test.kind == TreeKind::UnaryOp && test.text == "not") {
    Refinements inner = refinements_of(*test.child(0));
    r.when_true = std::move(inner.when_false);
    r.when_false = std::move(inner.when_true);
  } else if (test.kind == TreeKind::BoolOp) {
    for (const TreePtr& c : test.children) {
      Refinements inner = refinements_of(*c);
      for (auto& [k, v] : test.text == "and" ? inner.when_true : inner.when_false)
        (test.text == "and" ? r.when_true : r.when_false)[k] = v;
    }
  }
  return r;
}

void Emitter::apply_refinements(const std::map<std::string, TypePtr>& r, const SourceRange& loc) {
  for (const auto& [name, t] : r) {
    Value* v = lookup(name, loc);
    if (!v || v->type()->is_subtype_of(*t)) continue;
    Node* n = graph_->create(prim::unchecked_cast, {v}, 1);
    n->output()->set_type(t);
    graph_->insert_node(n);
    assign(name, n->output(), loc, /*refinement=*/true);
  }
}

}  // namespace ember::jit::script
