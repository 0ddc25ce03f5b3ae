// Statements of TorchScript -> IR (Note [TorchScript compiler] in Emitter.h): assignments, if / while / for with
// their prim::If / prim::Loop blocks, and the lowering of return / break / continue (Note [exits as flags]).
//
// Note [exits as flags]
// prim::If and prim::Loop blocks have one entry and one exit, so a statement that leaves early is lowered to
// variables, as PyTorch's exit transforms do, and the emitter keeps them like user variables (so the prim::If
// and prim::Loop merging of Note [TorchScript compiler] carries them):
// - `return v` sets `$retval = v` and `$returned = True` ($returned is False from the function's start);
// - `break` sets the loop's `$break<depth>`, `continue` its `$continue<depth>`; both are False at the start of
//   each iteration of the body;
// - after a statement that may exit (an if with a return in a branch, a loop with a return in its body), the
//   rest of the enclosing block is emitted in the false branch of `prim::If(flags it may have set)`, whose
//   true branch is the path that exited (so variables the rest defines are well-defined after it); a
//   statement that always exits ends its block (the rest cannot run). Where a branch returned (or raised),
//   the variables merged with the other branch take prim::Uninitialized there: nothing reads them again on
//   that path. Where it broke or continued they keep their values: the loop carries them on;
// - a loop body's condition output is `not ($break or $returned)` (and the while test, evaluated only when
//   neither is set), so the loop stops; `$returned` and `$retval` are carried values of loops whose body
//   returns; the function returns `$retval`.
// Where a branch or a loop has no value yet for `$retval`, a prim::Uninitialized of the return type stands in
// (never read, since `$returned` is False there). An undeclared return type is the type of the first return;
// placeholders made before it is known are typed when it is.
// `raise` (prim::RaiseException) always exits too, without flags: nothing after it runs.
#include <functional>

#include <fmt/format.h>

#include "ember/base/Error.h"
#include "ember/jit/frontend/Emitter.h"
#include "ember/jit/frontend/Sugared.h"

namespace ember::jit::script {

namespace {

constexpr int kMaxGuardNesting = 1000;

}  // namespace

class StatementEmitter {
 public:
  explicit StatementEmitter(Emitter& e) : e_(e), g_(*e.graph_) {}

  Exits block(const std::vector<TreePtr>& stmts, size_t from);
  Exits stmt(const Tree& s);

  /// prim::If on cond with two branches emitted by then_fn / else_fn in their own frames, merged (Note
  /// [environments]); r: refinements for the branches and, when one branch always exits, for after the If.
  Exits if_blocks(const SourceRange& loc, Value* cond, const std::function<Exits()>& then_fn,
                  const std::function<Exits()>& else_fn, const Emitter::Refinements* r);
  /// prim::Loop(max_trip, cond) over a body emitted by body_fn after bind(iteration) binds the target;
  /// `assigned`: the names the body may assign (its carried values are those already defined);
  /// while_test: re-evaluated at the end of each iteration.
  Exits loop(const SourceRange& loc, Value* max_trip, Value* cond, std::set<std::string> assigned,
             const std::function<void(Value*)>& bind, const std::function<Exits()>& body_fn,
             const Tree* while_test);
  /// A for loop over `iter` with target `target` (statement or comprehension).
  Exits for_loop(const SourceRange& loc, const Tree& target, const Tree& iter, std::set<std::string> assigned,
                 const std::function<Exits()>& body_fn, const std::vector<TreePtr>* body_stmts);
  void assign_target(const Tree& target, Value* v);

 private:
  Exits emit_if(const Tree& s);
  Exits emit_while(const Tree& s);
  Exits emit_return(const Tree& s);
  Exits emit_raise(const Tree& s);
  void emit_assert(const Tree& s);
  void emit_aug_assign(const Tree& s);
  void assign_subscript(const Tree& target, Value* v);
  void set_tensor_slice(const SourceRange& loc, Value* view, Value* v);
  void emit_return_value(const SourceRange& loc, Value* v);
  Value* uninitialized(const TypePtr& t);
  Value* exit_test(const SourceRange& loc, const Exits& ex, bool stops_loop);
  Value* emit_not(const SourceRange& loc, Value* v) { return e_.emit_op(loc, "aten::__not__", {v}); }
  Value* emit_or(const SourceRange& loc, Value* a, Value* b) { return e_.emit_op(loc, "aten::__or__", {a, b}); }
  Value* element(const SourceRange& loc, Value* iterable, Value* i);
  Value* length(const SourceRange& loc, Value* iterable);
  Value* min_int(const SourceRange& loc, Value* a, Value* b);
  void note_untyped(Value* v) {
    if (v->type()->kind() == TypeKind::Any) e_.untyped_returns_.push_back(v);
  }
  TypePtr return_type_or_any() const { return e_.return_type_ ? e_.return_type_ : Type::any_type(); }

  Emitter& e_;
  Graph& g_;
  int guards_ = 0;
};

// ---- blocks

Exits StatementEmitter::block(const std::vector<TreePtr>& stmts, size_t from) {
  Exits acc;
  for (size_t i = from; i < stmts.size(); ++i) {
    Exits ex = stmt(*stmts[i]);
    acc.merge(ex);
    if (ex.always) {
      acc.always = true;
      return acc;
    }
    if (ex.any() && i + 1 < stmts.size()) {
      // The rest runs only when nothing exited (Note [exits as flags]).
      if (++guards_ > kMaxGuardNesting)
        Emitter::fail(stmts[i + 1]->range, fmt::format("more than {} statements that may exit early in one "
                                                       "block (limit)", kMaxGuardNesting));
      const SourceRange& loc = stmts[i + 1]->range;
      Value* exited = exit_test(loc, ex, false);
      Exits already{true, ex.ret, ex.brk, ex.cont};
      Exits rest = if_blocks(loc, exited, [&] { return already; }, [&] { return block(stmts, i + 1); }, nullptr);
      --guards_;
      acc.merge(rest);
      acc.always = rest.always;
      return acc;
    }
  }
  return acc;
}

Value* StatementEmitter::exit_test(const SourceRange& loc, const Exits& ex, bool stops_loop) {
  Value* r = nullptr;
  auto add = [&](const std::string& flag) {
    Value* f = e_.lookup(flag, loc);
    r = r ? emit_or(loc, r, f) : f;
  };
  if (ex.ret) add(Emitter::kReturnFlag);
  if (ex.brk) add(e_.break_flag());
  if (ex.cont && !stops_loop) add(e_.continue_flag());
  return r ? r : e_.constant(IValue(false));
}

Exits StatementEmitter::stmt(const Tree& s) {
  switch (s.kind) {
    case TreeKind::ExprStmt:
      if (s.child(0)->kind != TreeKind::Str) e_.emit_sugared(*s.child(0));  // a docstring is no code
      return {};
    case TreeKind::Assign: {
      const Tree& targets = *s.child(0);
      TypePtr hint = s.child(2) ? e_.parse_type_comment(*s.child(2)) : nullptr;
      Value* v = e_.emit_expr(*s.child(1), hint);
      if (hint) v = e_.coerce(s.child(1)->range, v, hint, "the assigned value");
      for (const TreePtr& t : targets.children) assign_target(*t, v);
      return {};
    }
    case TreeKind::AnnAssign: {
      if (!s.child(2)) Emitter::fail(s.range, "a variable annotation needs a value in TorchScript (x: int = 0)");
      TypePtr t = e_.parse_type(*s.child(1));
      Value* v = e_.coerce(s.child(2)->range, e_.emit_expr(*s.child(2), t), t, "the assigned value");
      if (v->type()->kind() != t->kind() && t->kind() == TypeKind::Optional) {
        // x: Optional[int] = None: the variable has the declared type.
        Node* n = g_.create(prim::unchecked_cast, {v}, 1);
        n->output()->set_type(t);
        v = g_.insert_node(n)->output();
      }
      assign_target(*s.child(0), v);
      return {};
    }
    case TreeKind::AugAssign: emit_aug_assign(s); return {};
    case TreeKind::If: return emit_if(s);
    case TreeKind::While: return emit_while(s);
    case TreeKind::For: {
      std::set<std::string> assigned;
      collect_assigned(s.child(2)->children, assigned, e_.loop_depth_ + 1);
      return for_loop(s.range, *s.child(0), *s.child(1), std::move(assigned),
                      [&] { return block(s.child(2)->children, 0); }, &s.child(2)->children);
    }
    case TreeKind::Return: return emit_return(s);
    case TreeKind::Break:
    case TreeKind::Continue: {
      if (e_.loop_depth_ == 0) Emitter::fail(s.range, fmt::format("'{}' outside loop", tree_kind_name(s.kind)));
      bool brk = s.kind == TreeKind::Break;
      e_.assign(brk ? e_.break_flag() : e_.continue_flag(), e_.constant(IValue(true)), s.range);
      Exits ex;
      ex.always = true;
      (brk ? ex.brk : ex.cont) = true;
      return ex;
    }
    case TreeKind::Pass: return {};
    case TreeKind::Assert: emit_assert(s); return {};
    case TreeKind::Raise: return emit_raise(s);
    case TreeKind::Def: Emitter::fail(s.range, "nested function definitions are not supported");
    case TreeKind::Class: Emitter::fail(s.range, "class definitions inside a function are not supported");
    case TreeKind::With: Emitter::fail(s.range, "'with' statements are not supported yet");
    case TreeKind::Delete: Emitter::fail(s.range, "'del' statements are not supported yet");
    default: Emitter::fail(s.range, fmt::format("unsupported statement ({})", tree_kind_name(s.kind)));
  }
}

// ---- assignment

void StatementEmitter::assign_target(const Tree& t, Value* v) {
  switch (t.kind) {
    case TreeKind::Name: e_.assign(t.text, v, t.range); return;
    case TreeKind::Tuple:
    case TreeKind::List: {
      for (const TreePtr& c : t.children)
        if (c->kind == TreeKind::Starred) Emitter::fail(c->range, "starred assignment targets are not supported");
      std::vector<Value*> parts;
      if (const auto* tt = v->type()->cast<TupleType>()) {
        if (tt->elements().size() != t.children.size())
          Emitter::fail(t.range, fmt::format("too {} values to unpack: need {} but found {}",
                                             tt->elements().size() > t.children.size() ? "many" : "few",
                                             t.children.size(), tt->elements().size()));
        Node* u = g_.insert_tuple_unpack(v);
        parts.assign(u->outputs().begin(), u->outputs().end());
      } else if (v->type()->kind() == TypeKind::List) {
        Node* u = g_.insert_list_unpack(v, t.children.size());
        parts.assign(u->outputs().begin(), u->outputs().end());
      } else {
        Emitter::fail(t.range, fmt::format("cannot unpack a value of type '{}'", v->type()->str()));
      }
      for (size_t i = 0; i < parts.size(); ++i) assign_target(*t.child(i), parts[i]);
      return;
    }
    case TreeKind::Subscript: assign_subscript(t, v); return;
    case TreeKind::Attribute:
      Emitter::fail(t.range, "assignment to attributes is not supported yet (module attributes come with "
                             "scripted modules)");
    default: Emitter::fail(t.range, fmt::format("cannot assign to {}", tree_kind_name(t.kind)));
  }
}

void StatementEmitter::set_tensor_slice(const SourceRange& loc, Value* view, Value* v) {
  if (v->type()->kind() == TypeKind::Tensor) e_.emit_op(loc, "aten::copy_", {view, v});
  else e_.emit_op(loc, "aten::fill_", {view, v});
}

void StatementEmitter::assign_subscript(const Tree& t, Value* v) {
  Value* obj = e_.emit_expr(*t.child(0));
  const Tree& idx = *t.child(1);
  TypeKind k = obj->type()->kind();
  if (k == TypeKind::Tensor) {
    // x[i, 1:3] = v writes through the view the index selects; x[mask] = v (a tensor index) is index_put_.
    Value* single = idx.kind != TreeKind::Tuple && idx.kind != TreeKind::Slice ? e_.emit_expr(idx) : nullptr;
    if (single && single->type()->kind() == TypeKind::Tensor) {
      Value* list = g_.insert_list(OptionalType::create(Type::tensor_type()), std::vector<Value*>{single});
      if (v->type()->kind() != TypeKind::Tensor) v = e_.emit_op(t.range, "aten::scalar_tensor", {v});
      e_.emit_op(t.range, "aten::index_put_", {obj, list, v});
      return;
    }
    Value* view = single && single->type()->kind() == TypeKind::Int
                      ? e_.emit_op(t.range, "aten::select", {obj, e_.constant(IValue(int64_t{0})), single})
                      : e_.emit_tensor_index(t, obj, idx);
    set_tensor_slice(t.range, view, v);
    return;
  }
  if (k == TypeKind::List || k == TypeKind::Dict) {
    if (idx.kind == TreeKind::Slice) Emitter::fail(idx.range, "slice assignment to a list is not supported");
    e_.emit_op(t.range, "aten::_set_item", {obj, e_.emit_expr(idx), v});
    return;
  }
  Emitter::fail(t.range, fmt::format("'{}' object does not support item assignment", obj->type()->str()));
}

void StatementEmitter::emit_aug_assign(const Tree& s) {
  const Tree& t = *s.child(0);
  const std::string& op = s.text;
  if (t.kind == TreeKind::Name) {
    Value* cur = e_.lookup(t.text, t.range);
    if (!cur) Emitter::fail(t.range, fmt::format("undefined value {}", t.text));
    Value* rhs = e_.emit_expr(*s.child(1));
    Value* r;
    if (cur->type()->kind() == TypeKind::Tensor && op != "@") {
      // In place on tensors, as TorchScript (x += y is aten::add_).
      static const std::map<std::string, std::string> inplace = {
          {"+", "aten::add_"}, {"-", "aten::sub_"}, {"*", "aten::mul_"}, {"/", "aten::div_"}};
      auto it = inplace.find(op);
      r = it != inplace.end() ? e_.emit_op(s.range, it->second, {cur, rhs}) : e_.emit_binop(s.range, op, cur, rhs);
    } else if (cur->type()->kind() == TypeKind::List && op == "+") {
      r = e_.emit_op(s.range, "aten::add_", {cur, rhs});  // extends the list itself
    } else {
      r = e_.emit_binop(s.range, op, cur, rhs);
    }
    e_.assign(t.text, r, s.range);
    return;
  }
  if (t.kind == TreeKind::Subscript) {
    Value* cur = e_.emit_expr(t);
    Value* r = e_.emit_binop(s.range, op, cur, e_.emit_expr(*s.child(1)));
    if (cur->type()->kind() == TypeKind::Tensor) set_tensor_slice(s.range, cur, r);
    else assign_subscript(t, r);
    return;
  }
  Emitter::fail(t.range, "augmented assignment needs a name or a subscript target");
}

// ---- if

Value* StatementEmitter::uninitialized(const TypePtr& t) {
  Node* n = g_.create(prim::Uninitialized, {}, 1);
  n->output()->set_type(t);
  g_.insert_node(n);
  note_untyped(n->output());
  return n->output();
}

Exits StatementEmitter::if_blocks(const SourceRange& loc, Value* cond, const std::function<Exits()>& then_fn,
                                  const std::function<Exits()>& else_fn, const Emitter::Refinements* r) {
  Node* n = g_.insert_if(cond, 0);
  Frame* parent = e_.frame_;
  Frame* frames[2];
  Exits ex[2];
  for (int b = 0; b < 2; ++b) {
    InsertPointGuard ig(g_, n->blocks()[b]);
    frames[b] = e_.push_frame();
    if (r) e_.apply_refinements(b == 0 ? r->when_true : r->when_false, loc);
    ex[b] = b == 0 ? then_fn() : else_fn();
    e_.frame_ = parent;
  }
  // The names to merge, in first-assignment order.
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (Frame* f : frames)
    for (const std::string& name : f->order)
      if (seen.insert(name).second) names.push_back(name);
  auto value_in = [&](Frame* f, const std::string& name) -> Value* {
    for (Frame* x = f; x; x = x->parent) {
      auto it = x->vars.find(name);
      if (it != x->vars.end()) return it->second.error.empty() ? it->second.value : nullptr;
    }
    return nullptr;
  };
  for (const std::string& name : names) {
    bool special = name[0] == '$';
    Value* v[2] = {value_in(frames[0], name), value_in(frames[1], name)};
    // After a branch that returns or raises nothing reads the variables again (Note [exits as flags]): the other
    // branch's value flows on. After a break or continue they are still read (carried, or after the loop).
    for (int b = 0; b < 2; ++b)
      if (ex[b].always && !ex[b].brk && !ex[b].cont && !special && !ex[1 - b].always) v[b] = nullptr;
    if (!v[0] && !v[1]) continue;
    for (int b = 0; b < 2; ++b) {
      if (v[b]) continue;
      if (special || ex[b].always) {
        InsertPointGuard ig(g_, n->blocks()[b]);
        v[b] = name == Emitter::kReturnValue ? uninitialized(return_type_or_any()) : uninitialized(v[1 - b]->type());
      }
    }
    if (!v[0] || !v[1]) {
      Binding& bnd = parent->vars[name];
      bnd.value = nullptr;
      bnd.error = fmt::format("{} is not defined in the {} branch", name, v[0] ? "false" : "true");
      continue;
    }
    TypePtr t = unify_types(v[0]->type(), v[1]->type());
    if (!t)
      Emitter::fail(loc, fmt::format("Type mismatch: {} is set to type {} in the true branch and type {} in the "
                                     "false branch", name, v[0]->type()->str(), v[1]->type()->str()));
    n->blocks()[0]->register_output(v[0]);
    n->blocks()[1]->register_output(v[1]);
    Value* out = n->add_output();
    out->set_type(t);
    note_untyped(out);
    e_.assign(name, out, loc);
  }
  Exits result;
  result.merge(ex[0]);
  result.merge(ex[1]);
  result.always = ex[0].always && ex[1].always;
  if (r && ex[0].always && !ex[1].always) e_.apply_refinements(r->when_false, loc);
  if (r && ex[1].always && !ex[0].always) e_.apply_refinements(r->when_true, loc);
  return result;
}

Exits StatementEmitter::emit_if(const Tree& s) {
  Value* cond = e_.emit_condition(*s.child(0));
  Emitter::Refinements r = e_.refinements_of(*s.child(0));
  const std::vector<TreePtr>& then_body = s.child(1)->children;
  static const std::vector<TreePtr> empty;
  const std::vector<TreePtr>& else_body = s.child(2) ? s.child(2)->children : empty;
  if (std::optional<IValue> c = constant_value(cond)) {
    // A condition known here (`x is None` of a non-Optional x, isinstance): only the branch taken is compiled,
    // as PyTorch's emitter does, so the other may use what the type rules out.
    e_.apply_refinements(c->to_bool() ? r.when_true : r.when_false, s.range);
    return block(c->to_bool() ? then_body : else_body, 0);
  }
  return if_blocks(s.range, cond, [&] { return block(then_body, 0); }, [&] { return block(else_body, 0); }, &r);
}

// ---- assert and raise

void StatementEmitter::emit_assert(const Tree& s) {
  Value* cond = e_.emit_condition(*s.child(0));
  Emitter::Refinements r = e_.refinements_of(*s.child(0));
  Value* msg;
  if (!s.child(1)) {
    msg = e_.constant(IValue(std::string("AssertionError: ")));
  } else if (s.child(1)->kind == TreeKind::Str) {
    msg = e_.constant(IValue("AssertionError: " + s.child(1)->text));
  } else {
    Value* m = e_.emit_expr(*s.child(1));
    if (m->type()->kind() != TypeKind::Str) m = e_.emit_op(s.range, "aten::str", {m});
    msg = e_.emit_op(s.range, "aten::add", {e_.constant(IValue(std::string("AssertionError: "))), m});
  }
  Value* none = e_.constant(IValue());
  if_blocks(
      s.range, cond, [] { return Exits{}; },
      [&] {
        Node* n = g_.create(prim::RaiseException, {msg, none}, 0);
        g_.insert_node(n);
        return Exits{true};
      },
      nullptr);
  e_.apply_refinements(r.when_true, s.range);
}

Exits StatementEmitter::emit_raise(const Tree& s) {
  // raise ValueError("msg"): prim::RaiseException(msg, "builtins.ValueError"), as PyTorch 1.13.
  const Tree* exc = s.child(0);
  std::string cls = "Exception";
  Value* msg = nullptr;
  if (exc) {
    const Tree* callee = exc->kind == TreeKind::Call ? exc->child(0) : exc;
    if (callee->kind != TreeKind::Name) Emitter::fail(exc->range, "raise needs an exception class: raise E(\"...\")");
    cls = callee->text;
    if (exc->kind == TreeKind::Call && !exc->child(1)->children.empty()) {
      msg = e_.emit_expr(*exc->child(1)->child(0));
      if (msg->type()->kind() != TypeKind::Str) msg = e_.emit_op(s.range, "aten::str", {msg});
    }
  }
  if (!msg) msg = e_.constant(IValue(std::string()));
  Node* n = g_.create(prim::RaiseException, {msg, e_.constant(IValue("builtins." + cls))}, 0);
  g_.insert_node(n);
  return Exits{true};
}

// ---- return

void StatementEmitter::emit_return_value(const SourceRange& loc, Value* v) {
  if (e_.return_declared_) {
    if (!v->type()->is_subtype_of(*e_.return_type_)) {
      if (e_.return_type_->kind() == TypeKind::Float && v->type()->kind() == TypeKind::Int)
        v = e_.emit_op(loc, "aten::Float", {v});
      else
        Emitter::fail(loc, fmt::format("Return value was annotated as having type {} but is actually of type {}",
                                       e_.return_type_->str(), v->type()->str()));
    }
  } else if (!e_.return_type_) {
    e_.return_type_ = v->type();
    for (Value* u : e_.untyped_returns_) u->set_type(v->type());
    e_.untyped_returns_.clear();
  } else if (!v->type()->is_subtype_of(*e_.return_type_)) {
    Emitter::fail(loc, fmt::format("Previous return statement returned a value of type {} but this return "
                                   "statement returns a value of type {}", e_.return_type_->str(), v->type()->str()));
  }
  e_.assign(Emitter::kReturnValue, v, loc);
  e_.assign(Emitter::kReturnFlag, e_.constant(IValue(true)), loc);
}

Exits StatementEmitter::emit_return(const Tree& s) {
  Value* v = s.child(0) ? e_.emit_expr(*s.child(0), e_.return_type_) : e_.constant(IValue());
  emit_return_value(s.range, v);
  Exits ex;
  ex.always = ex.ret = true;
  return ex;
}

// ---- loops

Exits StatementEmitter::loop(const SourceRange& loc, Value* max_trip, Value* cond, std::set<std::string> assigned,
                             const std::function<void(Value*)>& bind, const std::function<Exits()>& body_fn,
                             const Tree* while_test) {
  if (assigned.count(Emitter::kReturnValue) && !e_.defined(Emitter::kReturnValue))
    e_.assign(Emitter::kReturnValue, uninitialized(return_type_or_any()), loc);
  std::vector<std::string> names;
  std::vector<Value*> init;
  for (const std::string& name : assigned) {
    if (!e_.defined(name)) continue;
    names.push_back(name);
    init.push_back(e_.lookup(name, loc));
  }
  Node* n = g_.insert_loop(max_trip, cond, init);
  Block* body = n->blocks()[0];
  Frame* parent = e_.frame_;
  ++e_.loop_depth_;
  e_.push_frame();
  Exits ex;
  {
    InsertPointGuard ig(g_, body);
    for (size_t k = 0; k < names.size(); ++k) {
      Value* in = body->inputs()[k + 1];
      note_untyped(in);
      Binding& b = e_.frame_->vars[names[k]];
      b.value = in;
      if (names[k][0] != '$') in->set_debug_name(names[k]);
    }
    e_.assign(e_.break_flag(), e_.constant(IValue(false)), loc);
    e_.assign(e_.continue_flag(), e_.constant(IValue(false)), loc);
    bind(body->inputs()[0]);
    ex = body_fn();
    // The condition of the next iteration (Note [exits as flags]).
    Exits stops = ex;
    stops.cont = false;
    Value* next = nullptr;
    if (while_test) {
      if (stops.any()) {
        Value* go = emit_not(loc, exit_test(loc, stops, true));
        Node* test = g_.insert_if(go, 1);
        test->output()->set_type(Type::bool_type());
        {
          InsertPointGuard tg(g_, test->blocks()[0]);
          Frame* f = e_.push_frame();
          test->blocks()[0]->register_output(e_.emit_condition(*while_test));
          e_.pop_frame(f);
        }
        {
          InsertPointGuard tg(g_, test->blocks()[1]);
          test->blocks()[1]->register_output(e_.constant(IValue(false)));
        }
        next = test->output();
      } else {
        next = e_.emit_condition(*while_test);
      }
    } else {
      next = stops.any() ? emit_not(loc, exit_test(loc, stops, true)) : e_.constant(IValue(true));
    }
    body->register_output(next);
    for (size_t k = 0; k < names.size(); ++k) {
      Value* v = e_.lookup(names[k], loc);
      if (!v->type()->is_subtype_of(*init[k]->type()) && init[k]->type()->kind() != TypeKind::Any)
        Emitter::fail(loc, fmt::format("Variable '{}' previously had type {} but is now being assigned to a value "
                                       "of type {}", names[k], init[k]->type()->str(), v->type()->str()));
      body->register_output(v);
    }
  }
  e_.frame_ = parent;
  --e_.loop_depth_;
  for (size_t k = 0; k < names.size(); ++k) {
    note_untyped(n->output(k));
    e_.assign(names[k], n->output(k), loc);
  }
  Exits result;
  result.ret = ex.ret;
  return result;
}

Exits StatementEmitter::emit_while(const Tree& s) {
  Value* cond = e_.emit_condition(*s.child(0));
  std::set<std::string> assigned;
  collect_assigned(s.child(1)->children, assigned, e_.loop_depth_ + 1);
  Value* max = e_.constant(IValue(std::numeric_limits<int64_t>::max()));
  return loop(s.range, max, cond, std::move(assigned), [](Value*) {},
              [&] { return block(s.child(1)->children, 0); }, s.child(0));
}

Value* StatementEmitter::length(const SourceRange& loc, Value* it) { return e_.emit_op(loc, "aten::len", {it}); }

Value* StatementEmitter::element(const SourceRange& loc, Value* it, Value* i) {
  if (it->type()->kind() == TypeKind::Tensor)
    return e_.emit_op(loc, "aten::select", {it, e_.constant(IValue(int64_t{0})), i});
  return e_.emit_op(loc, "aten::__getitem__", {it, i});
}

Value* StatementEmitter::min_int(const SourceRange& loc, Value* a, Value* b) {
  Node* n = g_.insert_if(e_.emit_op(loc, "aten::lt", {a, b}), 1);
  n->output()->set_type(Type::int_type());
  n->blocks()[0]->register_output(a);
  n->blocks()[1]->register_output(b);
  return n->output();
}

Exits StatementEmitter::for_loop(const SourceRange& loc, const Tree& target, const Tree& iter,
                                 std::set<std::string> assigned, const std::function<Exits()>& body_fn,
                                 const std::vector<TreePtr>* body_stmts) {
  SugaredPtr it = e_.emit_sugared(iter);
  Value* yes = e_.constant(IValue(true));
  auto bind_parts = [&](const std::vector<Value*>& parts) {
    if ((target.kind == TreeKind::Tuple || target.kind == TreeKind::List) && target.children.size() == parts.size()) {
      for (size_t k = 0; k < parts.size(); ++k) assign_target(*target.child(k), parts[k]);
    } else {
      assign_target(target, g_.insert_tuple(parts));
    }
  };
  if (auto* r = dynamic_cast<IterableSugar*>(it.get())) {
    const std::vector<Value*>& a = r->args();
    switch (r->which()) {
      case IterableSugar::Kind::Range: {
        if (a.size() == 1)
          return loop(loc, a[0], yes, std::move(assigned), [&](Value* i) { assign_target(target, i); }, body_fn,
                      nullptr);
        Value* step = a.size() == 3 ? a[2] : e_.constant(IValue(int64_t{1}));
        Value* n = e_.emit_op(loc, "aten::__range_length", {a[0], a[1], step});
        return loop(loc, n, yes, std::move(assigned), [&](Value* i) {
          assign_target(target, e_.emit_op(loc, "aten::__derive_index", {i, a[0], step}));
        }, body_fn, nullptr);
      }
      case IterableSugar::Kind::Zip: {
        Value* n = length(loc, a[0]);
        for (size_t k = 1; k < a.size(); ++k) n = min_int(loc, n, length(loc, a[k]));
        return loop(loc, n, yes, std::move(assigned), [&](Value* i) {
          std::vector<Value*> parts;
          for (Value* x : a) parts.push_back(element(loc, x, i));
          bind_parts(parts);
        }, body_fn, nullptr);
      }
      case IterableSugar::Kind::Enumerate: {
        Value* n = length(loc, a[0]);
        return loop(loc, n, yes, std::move(assigned), [&](Value* i) {
          Value* idx = a.size() == 2 ? e_.emit_op(loc, "aten::add", {i, a[1]}) : i;
          bind_parts({idx, element(loc, a[0], i)});
        }, body_fn, nullptr);
      }
    }
  }
  Value* v = it->as_value(iter.range, e_);
  if (const auto* tt = v->type()->cast<TupleType>()) {
    // A tuple's elements may differ in type: the body is emitted once per element (unrolled), as PyTorch does.
    if (!body_stmts) Emitter::fail(iter.range, "comprehensions over tuples are not supported");
    Node* u = g_.insert_tuple_unpack(v);
    Exits acc;
    for (size_t k = 0; k < tt->elements().size(); ++k) {
      assign_target(target, u->output(k));
      Exits ex = body_fn();
      if (ex.brk || ex.cont) Emitter::fail(loc, "break and continue in a loop over a tuple are not supported");
      acc.merge(ex);
      if (ex.always) {
        acc.always = true;
        break;
      }
      if (ex.ret) Emitter::fail(loc, "return inside a loop over a tuple is not supported yet");
    }
    return acc;
  }
  TypeKind k = v->type()->kind();
  if (k == TypeKind::Dict) v = e_.emit_op(loc, "aten::keys", {v});
  else if (k != TypeKind::List && k != TypeKind::Tensor && k != TypeKind::Str)
    Emitter::fail(iter.range, fmt::format("'{}' object is not iterable", v->type()->str()));
  Value* n = length(loc, v);
  return loop(loc, n, yes, std::move(assigned), [&](Value* i) { assign_target(target, element(loc, v, i)); },
              body_fn, nullptr);
}

Exits Emitter::emit_statements(const std::vector<TreePtr>& stmts, size_t from) {
  return StatementEmitter(*this).block(stmts, from);
}

// ---- comprehensions

Value* Emitter::emit_listcomp(const Tree& e, const TypePtr& hint) {
  // [elt for x in xs if c]: an empty list, then a loop appending to it, as PyTorch emits it.
  if (e.children.size() != 2) fail(e.range, "list comprehensions with more than one 'for' are not supported");
  const Tree& comp = *e.child(1);
  const auto* lh = hint ? hint->cast<ListType>() : nullptr;
  Node* list = graph_->create(prim::ListConstruct, {}, 1);
  list->output()->set_type(ListType::create(lh ? lh->elem() : Type::any_type()));
  graph_->insert_node(list);
  TypePtr elem = lh ? lh->elem() : nullptr;
  Frame* f = push_frame();
  StatementEmitter se(*this);
  std::set<std::string> assigned;
  auto append = [&]() {
    Value* v = emit_expr(*e.child(0), elem);
    if (elem) v = coerce(e.child(0)->range, v, elem, "a list comprehension's element");
    else elem = v->type();
    emit_op(e.range, "aten::append", {list->output(), v});
    return Exits{};
  };
  se.for_loop(e.range, *comp.child(0), *comp.child(1), assigned, [&] {
    if (comp.children.size() == 2) return append();
    Value* cond = as_bool(comp.range, emit_condition(*comp.child(2)));
    for (size_t k = 3; k < comp.children.size(); ++k)
      cond = emit_op(comp.range, "aten::__and__", {cond, emit_condition(*comp.child(k))});
    return se.if_blocks(comp.range, cond, append, [] { return Exits{}; }, nullptr);
  }, nullptr);
  pop_frame(f);
  list->output()->set_type(ListType::create(elem ? elem : Type::tensor_type()));
  return list->output();
}

}  // namespace ember::jit::script
