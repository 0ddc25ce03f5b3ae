// Peephole simplifications (Passes.h).
#include "ember/jit/passes/Analysis.h"
#include "ember/jit/passes/Passes.h"

namespace ember::jit {
namespace {

using passes::AliasDb;

// Note [peephole rules]
// Only rewrites that are exact for every value the graph may see:
// - Tuples and lists built and taken apart in the same graph: TupleUnpack(TupleConstruct(a, b)) gives a and b;
//   TupleIndex(TupleConstruct(...), k) with a constant k gives element k; ListUnpack(ListConstruct(...)) of
//   matching length gives the elements (no op of the database mutates a list).
// - Arithmetic identities, only on the Scalar overloads (`other` a number, so no broadcasting) and only when
//   the tensor's dtype is known from its type, because the result's dtype follows type promotion: x * 1 and
//   x / 1 are x, x - 0 is x (x - 0 keeps -0.0 and NaN payloads); with an int scalar for any dtype but bool
//   (bool * 1 is int64), with a float scalar only for floating x (int * 1.0 is float); x / 1 only for floating
//   x (true division makes integers float). x + 0 is x only for integer x: for floating x, -0.0 + 0 is +0.0.
//   sub/add need a constant int alpha (a float alpha with an integer tensor is an error the rewrite would
//   hide).
// - dropout(x, p, train=False) is x (eval-mode dropout returns its input).
// Each rewrite makes the result the same tensor as x, so it is done only when neither may be written in place
// (Note [alias classes]): writing one would then change the other.
// aten::size of a tensor with a known shape is not folded: the op database has no aten::size (traced graphs
// record sizes as constants).

std::optional<DType> known_dtype(const Value* v) {
  const auto* t = v->type()->cast<TensorType>();
  return t ? t->dtype() : std::nullopt;
}

bool is_int_constant(const Value* v, int64_t want) {
  std::optional<IValue> c = constant_value(v);
  return c && c->is_int() && c->to_int() == want;
}

bool is_float_constant(const Value* v, double want) {
  std::optional<IValue> c = constant_value(v);
  return c && c->is_double() && c->to_double() == want;
}

class Peephole {
 public:
  explicit Peephole(const AliasDb& db) : db_(db) {}

  bool run(Block* b) {
    bool changed = false;
    for (auto it = b->nodes().begin(); it != b->nodes().end();) {
      Node* n = *it;
      ++it;
      for (Block* sub : n->blocks()) changed |= run(sub);
      changed |= simplify(n);
    }
    return changed;
  }

 private:
  bool simplify(Node* n) {
    Symbol k = n->kind();
    if (k == prim::TupleUnpack || k == prim::ListUnpack) {
      Node* p = n->input(0)->node();
      Symbol want = k == prim::TupleUnpack ? prim::TupleConstruct : prim::ListConstruct;
      if (p->kind() != want || p->num_inputs() != n->num_outputs()) return false;
      for (size_t i = 0; i < n->num_outputs(); ++i) forward(n->output(i), p->input(i));
      n->destroy();
      return true;
    }
    if (k == prim::TupleIndex) {
      Node* p = n->input(0)->node();
      std::optional<IValue> idx = constant_value(n->input(1));
      if (p->kind() != prim::TupleConstruct || !idx || !idx->is_int()) return false;
      int64_t size = static_cast<int64_t>(p->num_inputs()), i = idx->to_int();
      if (i < -size || i >= size) return false;  // the run-time error stays
      forward(n->output(), p->input(static_cast<size_t>(i < 0 ? i + size : i)));
      n->destroy();
      return true;
    }
    if (!n->is_op()) return false;
    Value* x = identity_of(n);
    if (!x || db_.may_be_written(x) || db_.may_be_written(n->output())) return false;
    forward(n->output(), x);
    n->destroy();
    return true;
  }

  // The input n returns unchanged, when a rule of Note [peephole rules] applies, else null.
  Value* identity_of(const Node* n) const {
    std::string_view name = n->kind().name();
    const FunctionSchema* s = n->maybe_schema();
    if (!s || n->num_outputs() != 1) return nullptr;
    if (name == "dropout" && n->num_inputs() == 3 && !passes::is_nondeterministic(n)) return n->input(0);
    bool arith = name == "add" || name == "sub" || name == "mul" || name == "div";
    if (!arith || s->overload != "Scalar") return nullptr;
    std::optional<DType> dt = known_dtype(n->input(0));
    if (!dt || *dt == DType::Bool) return nullptr;
    bool floating = is_floating_point(*dt);
    const Value* other = n->input(1);
    if (name == "add" || name == "sub") {
      if (n->num_inputs() != 3 || !constant_value(n->input(2)) || !constant_value(n->input(2))->is_int())
        return nullptr;
      bool zero = is_int_constant(other, 0) || (floating && is_float_constant(other, 0.0));
      if (!zero || (name == "add" && floating)) return nullptr;
      return n->input(0);
    }
    if (name == "div" && !floating) return nullptr;
    bool one = is_int_constant(other, 1) || (floating && is_float_constant(other, 1.0));
    return one && n->num_inputs() == 2 ? n->input(0) : nullptr;
  }

  static void forward(Value* from, Value* to) { from->replace_all_uses_with(to); }

  const AliasDb& db_;
};

}  // namespace

bool peephole_optimize(std::shared_ptr<Graph>& graph) {
  passes::AliasDb db(*graph);
  return Peephole(db).run(graph->block());
}

}  // namespace ember::jit
