// Constant propagation (Passes.h).
#include "ember/base/Error.h"
#include "ember/jit/passes/Analysis.h"
#include "ember/jit/passes/Passes.h"
#include "ember/jit/runtime/Interpreter.h"

namespace ember::jit {
namespace {

using passes::AliasDb;

// The constants of n's inputs, or nullopt when one is not a constant (or a tensor constant without data).
std::optional<std::vector<IValue>> constant_inputs(const Node* n) {
  std::vector<IValue> values;
  for (const Value* v : n->inputs()) {
    std::optional<IValue> c = constant_value(v);
    if (!c || (c->is_none() && v->type()->kind() != TypeKind::None && v->type()->kind() != TypeKind::Optional))
      return std::nullopt;
    values.push_back(std::move(*c));
  }
  return values;
}

// Note [evaluating constant nodes]
// A foldable op node is evaluated by copying it, with its constant inputs, into a one-node graph that the
// interpreter runs: the call then goes through the dispatcher's boxed path with exactly the argument
// conversions (ints for dtypes, an int for int[N]) the real run would apply, so a folded value is the value
// the graph would have computed. An op that raises (bad shapes, say) is not folded: the error then happens at
// run time, where it belongs, instead of while optimising.
std::optional<std::vector<IValue>> evaluate(const Node* n, const std::vector<IValue>& inputs) {
  try {
    auto g = std::make_shared<Graph>();
    std::vector<Value*> ins;
    for (const IValue& v : inputs) ins.push_back(g->insert_constant(v));  // raises for an empty float[], say
    Node* m = g->insert_node(g->create(n->kind(), ins, n->num_outputs()));
    for (size_t i = 0; i < n->num_outputs(); ++i) {
      m->output(i)->set_type(n->output(i)->type());
      g->register_output(m->output(i));
    }
    IValue r = Function("constant propagation", g)({});
    if (n->num_outputs() == 1) return std::vector<IValue>{std::move(r)};
    return r.to_tuple();
  } catch (const Error&) {
    return std::nullopt;
  }
}

// Whether v can be a prim::Constant (Graph::insert_constant's kinds).
bool representable(const IValue& v) {
  switch (v.tag()) {
    case IValue::Tag::None:
    case IValue::Tag::Bool:
    case IValue::Tag::Int:
    case IValue::Tag::Double:
    case IValue::Tag::String:
    case IValue::Tag::DType:
    case IValue::Tag::Device:
    case IValue::Tag::IntList: return true;
    case IValue::Tag::Tensor: return v.to_tensor().defined();
    case IValue::Tag::List: {
      const std::vector<IValue>& l = v.to_list();
      if (l.empty()) return false;
      for (const IValue& e : l)
        if (e.tag() != l[0].tag() || !(e.is_double() || e.is_bool() || e.is_int() || e.is_string())) return false;
      return true;
    }
    default: return false;
  }
}

class ConstantPropagator {
 public:
  ConstantPropagator(Graph& g, const AliasDb& db) : g_(g), db_(db) {}

  bool run(Block* b) {
    bool changed = false;
    for (Node* n = b->param_node()->next(); n != b->return_node();) {
      Node* next = n->next();
      if (n->kind() == prim::If) {
        if (Node* first = fold_if(n)) {
          next = first;  // the inlined branch's nodes are visited next
          changed = true;
        } else {
          for (Block* sub : n->blocks()) changed |= run(sub);
        }
      } else if (n->kind() == prim::Loop) {
        if (fold_loop(n)) changed = true;
        else changed |= run(n->blocks()[0]);
      } else if (n->kind() == prim::ListConstruct) {
        changed |= fold_list(n);
      } else if (foldable(n)) {
        changed |= fold_op(n);
      }
      n = next;
    }
    return changed;
  }

 private:
  bool foldable(const Node* n) const {
    if (!n->is_op() || !n->blocks().empty() || n->num_outputs() == 0 || passes::has_side_effects(n)) return false;
    for (const Value* v : n->inputs())
      if (v->node()->kind() != prim::Constant || db_.may_be_written(v)) return false;
    for (const Value* v : n->outputs())
      if (db_.may_be_written(v)) return false;
    return true;
  }

  // Replaces each output of n by a constant of the given value (inserted before n) and destroys n.
  void replace_with_constants(Node* n, const std::vector<IValue>& values) {
    InsertPointGuard guard(g_, n);
    for (size_t i = 0; i < values.size(); ++i) {
      Value* old = n->output(i);
      Value* c = g_.insert_constant(values[i]);
      std::string name = old->has_debug_name() ? old->debug_name() : "";
      old->replace_all_uses_with(c);
      old->set_debug_name("");
      if (!name.empty()) c->set_debug_name(name);
    }
    n->destroy();
  }

  bool fold_op(Node* n) {
    std::optional<std::vector<IValue>> in = constant_inputs(n);
    if (!in) return false;
    std::optional<std::vector<IValue>> out = evaluate(n, *in);
    if (!out || out->size() != n->num_outputs()) return false;
    for (const IValue& v : *out)
      if (!representable(v)) return false;
    replace_with_constants(n, *out);
    return true;
  }

  bool fold_list(Node* n) {
    const auto* lt = n->output()->type()->cast<ListType>();
    if (!lt || n->num_inputs() == 0 || db_.may_be_written(n->output())) return false;
    TypeKind ek = lt->elem()->kind();
    if (ek != TypeKind::Int && ek != TypeKind::Float && ek != TypeKind::Bool && ek != TypeKind::Str) return false;
    std::optional<std::vector<IValue>> in = constant_inputs(n);
    if (!in) return false;
    IValue list = ek == TypeKind::Int ? IValue([&] {
      std::vector<int64_t> l;
      for (const IValue& e : *in) l.push_back(e.to_int());
      return l;
    }())
                                      : IValue::list(*in);
    if (!representable(list)) return false;
    replace_with_constants(n, {list});
    return true;
  }

  // prim::If on a constant condition: the taken branch's nodes move before the If, whose outputs become the
  // branch's outputs. Returns the first moved node (or the node after the If when the branch is empty), or
  // null when the condition is not a constant.
  Node* fold_if(Node* n) {
    std::optional<IValue> cond = constant_value(n->input(0));
    if (!cond || !cond->is_bool()) return nullptr;
    Block* taken = n->blocks()[cond->to_bool() ? 0 : 1];
    Node* first = nullptr;
    for (auto it = taken->nodes().begin(); it != taken->nodes().end();) {
      Node* m = *it;
      ++it;
      m->move_before(n);
      if (!first) first = m;
    }
    for (size_t i = 0; i < n->num_outputs(); ++i) n->output(i)->replace_all_uses_with(taken->outputs()[i]);
    Node* next = n->next();
    n->destroy();
    return first ? first : next;
  }

  // prim::Loop that never runs its body (a constant False condition or a constant trip count <= 0): its
  // outputs are the initial carried values.
  bool fold_loop(Node* n) {
    std::optional<IValue> max = constant_value(n->input(0)), cond = constant_value(n->input(1));
    bool never = (cond && cond->is_bool() && !cond->to_bool()) || (max && max->is_int() && max->to_int() <= 0);
    if (!never) return false;
    for (size_t i = 0; i < n->num_outputs(); ++i) n->output(i)->replace_all_uses_with(n->input(i + 2));
    n->destroy();
    return true;
  }

  Graph& g_;
  const AliasDb& db_;
};

}  // namespace

bool propagate_constants(std::shared_ptr<Graph>& graph) {
  passes::AliasDb db(*graph);
  return ConstantPropagator(*graph, db).run(graph->block());
}

}  // namespace ember::jit
