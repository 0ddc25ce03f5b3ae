// The elementwise fusion pass. See Note [elementwise fusion].
//
// Note [elementwise fusion]
// FuseElementwise replaces each group of two or more fusible elementwise nodes by one
// aten::_fused_elementwise node whose program (Note [fused elementwise programs], ember/ops/FusedProgram.h)
// computes the group's result in one pass over memory:
//   %in : Tensor[] = prim::ListConstruct(<the group's tensor inputs>)
//   %prog : int[] = prim::Constant[value=[...]]()
//   %consts : int[] = prim::Constant[value=[...]]()
//   %r : <the result's type> = aten::_fused_elementwise(%in, %prog, %consts)
// Fusible nodes: those of the ops whose database entries have `fused:` opcodes (generated/FusedOps.h's
// kFusedOpPatterns), when their other arguments are the constants the entry names: add/sub with alpha the
// constant 1 (other a tensor or a constant number), mul/div of a tensor by a tensor or a constant number,
// maximum/minimum, and unary ops such as relu, sigmoid, exp or gelu with approximate 'none' or 'tanh'.
// Types decide what is safe: a node joins a group only when its tensor inputs and its result have a known
// dtype, all the same, float32 or float64 (traced graphs carry complete types). The fused op computes in that
// dtype exactly as the unfused ops would (no promotion can occur among equal float dtypes; a constant number
// is rounded to the dtype as the unfused op rounds it), and its result has the broadcast shape of its inputs,
// which is the broadcast the chain performs step by step. No run-time check is inserted: graphs whose types
// are unknown are left alone. (A graph run with inputs of another dtype than its types say gets the fused
// op's clear dtype error instead of promotion; the interpreter checks input types against the graph's.)
// Grouping: nodes are visited last to first; an unvisited fusible node starts a group as its result, and the
// group absorbs the fusible producers of its inputs whose every use is inside the group, until nothing
// changes. So each group is a DAG with one result whose intermediates are used nowhere else, and the fused
// node computes it at the result's position, where every group input is already defined. Groups never cross
// blocks; nested blocks are fused separately. The pass emits only ops of the database, so the interpreter
// runs the result like any graph; the fused node is not differentiable (Note [no derivative for fused
// elementwise]), which is why the pass is meant for inference (frozen) graphs.
#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "ember/jit/passes/Passes.h"
#include "ember/ops/FusedProgram.h"

namespace ember::jit {

namespace {

// How a node computes: its opcode and which inputs are its operands (the rest must be constants of the
// expected values, checked by fusible()).
struct Pattern {
  FusedOpcode op;
  int arity;  // tensor-or-number operands: inputs 0 (and 1)
};

// The float dtype a tensor value is known to have, or nullopt.
std::optional<DType> float_dtype(const Value* v) {
  const auto* t = v->type()->cast<TensorType>();
  if (!t || !t->dtype()) return std::nullopt;
  if (*t->dtype() != kFloat32 && *t->dtype() != kFloat64) return std::nullopt;
  return t->dtype();
}

// A constant int or float (not bool) value of v, or nullopt.
std::optional<double> constant_number(const Value* v) {
  std::optional<IValue> c = constant_value(v);
  if (!c) return std::nullopt;
  if (c->is_int()) return static_cast<double>(c->to_int());
  if (c->is_double()) return c->to_double();
  return std::nullopt;
}

// Whether argument c.index of n is the constant c asks for (a string, or a number).
bool meets(const Node* n, const FusedCondition& c) {
  if (c.string) {
    std::optional<IValue> v = constant_value(n->input(c.index));
    return v && v->is_string() && v->to_string() == c.string;
  }
  std::optional<double> v = constant_number(n->input(c.index));
  return v && *v == c.number;
}

// The opcode standing for node n (generated/FusedOps.h, from the database's `fused:`), or nullopt.
std::optional<Pattern> pattern_of(const Node* n) {
  const std::string_view name = n->kind().name();
  for (const FusedOpPattern& p : kFusedOpPatterns) {
    if (!p.op || name != p.op || n->num_inputs() != static_cast<size_t>(p.num_args)) continue;
    bool ok = true;
    for (const FusedCondition& c : p.when)
      if (c.index >= 0) ok = ok && meets(n, c);
    if (ok) return Pattern{p.opcode, p.arity};
  }
  return std::nullopt;
}

// The node's pattern when it is fusible in dtype terms (see Note [elementwise fusion]), else nullopt.
std::optional<Pattern> fusible(const Node* n) {
  if (!n->is_op() || n->kind().ns() != "aten" || n->num_outputs() != 1 || !n->blocks().empty()) return std::nullopt;
  std::optional<Pattern> p = pattern_of(n);
  if (!p) return std::nullopt;
  // Types: the result and every tensor operand of one float dtype; the first operand a tensor; a second
  // operand that is not a tensor must be a constant number.
  std::optional<DType> dt = float_dtype(n->output());
  if (!dt || float_dtype(n->input(0)) != dt) return std::nullopt;
  if (p->arity == 2) {
    const Value* other = n->input(1);
    const bool ok = other->type()->cast<TensorType>() ? float_dtype(other) == dt : constant_number(other).has_value();
    if (!ok) return std::nullopt;
  }
  return p;
}

struct Group {
  std::vector<Node*> nodes;  // the result's node first, then as absorbed
  std::unordered_set<Node*> members;
};

// Grows a group from its result node: absorbs fusible producers whose every use is inside the group.
void grow(Group& g, DType dt, const std::unordered_set<Node*>& taken) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t k = 0; k < g.nodes.size(); ++k) {
      Node* n = g.nodes[k];
      for (Value* in : n->inputs()) {
        Node* p = in->node();
        if (g.members.count(p) || taken.count(p) || p->owning_block() != n->owning_block()) continue;
        std::optional<Pattern> pat = fusible(p);
        if (!pat || float_dtype(p->output()) != dt) continue;
        const bool inside = std::all_of(in->uses().begin(), in->uses().end(),
                                        [&](const Use& u) { return g.members.count(u.user) > 0; });
        if (!inside) continue;
        g.nodes.push_back(p);
        g.members.insert(p);
        changed = true;
      }
    }
  }
}

// Replaces the group by one fused node placed just before its result node.
void emit(Graph& graph, Group& g) {
  std::sort(g.nodes.begin(), g.nodes.end(), [](const Node* a, const Node* b) { return a->is_before(b); });
  Node* root = g.nodes.back();
  std::vector<Value*> inputs;
  std::vector<int64_t> program, constants;
  std::unordered_map<const Value*, int64_t> reg;  // value -> register
  std::map<int64_t, int64_t> const_reg;           // constant bits -> register
  int64_t next = 0;
  const auto operand = [&](Value* v) -> int64_t {
    if (auto it = reg.find(v); it != reg.end()) return it->second;
    if (v->type()->cast<TensorType>()) {  // a group input
      inputs.push_back(v);
      program.insert(program.end(), {static_cast<int64_t>(FusedOpcode::Input),
                                     static_cast<int64_t>(inputs.size()) - 1, 0});
      return reg[v] = next++;
    }
    const int64_t bits = fused_constant_bits(*constant_number(v));
    if (auto it = const_reg.find(bits); it != const_reg.end()) return it->second;
    constants.push_back(bits);
    program.insert(program.end(), {static_cast<int64_t>(FusedOpcode::Constant),
                                   static_cast<int64_t>(constants.size()) - 1, 0});
    return const_reg[bits] = next++;
  };
  for (Node* n : g.nodes) {
    const Pattern p = *fusible(n);
    const int64_t a = operand(n->input(0));
    const int64_t b = p.arity == 2 ? operand(n->input(1)) : 0;
    program.insert(program.end(), {static_cast<int64_t>(p.op), a, b});
    reg[n->output()] = next++;
  }
  InsertPointGuard guard(graph, root);
  Value* list = graph.insert_list(TensorType::tensor_type(), inputs);
  Value* prog = graph.insert_constant(IValue(std::move(program)));
  Value* consts = graph.insert_constant(IValue(std::move(constants)));
  Node* fused = graph.insert_op("aten::_fused_elementwise", {list, prog, consts});
  fused->output()->set_type(root->output()->type());
  root->output()->replace_all_uses_with(fused->output());
  const std::string name = root->output()->debug_name();  // the fused result keeps the chain's name
  // Destroy last to first (each node's users are gone by then), then the constants only they used.
  std::vector<Node*> maybe_dead;
  for (auto it = g.nodes.rbegin(); it != g.nodes.rend(); ++it) {
    Node* n = *it;
    for (Value* in : n->inputs())
      if (in->node()->kind() == prim::Constant) maybe_dead.push_back(in->node());
    n->destroy();
  }
  std::unordered_set<Node*> destroyed;
  for (Node* c : maybe_dead)
    if (!destroyed.count(c) && !c->output()->has_uses()) {
      destroyed.insert(c);
      c->destroy();
    }
  if (!name.empty()) fused->output()->set_debug_name(name);
}

// Returns whether it fused anything.
bool fuse_block(Graph& graph, Block* block) {
  bool changed = false;
  for (Node* n : block->nodes())
    for (Block* b : n->blocks()) changed |= fuse_block(graph, b);
  std::vector<Group> groups;
  std::unordered_set<Node*> taken;
  std::vector<Node*> order;
  for (Node* n : block->reverse_nodes()) order.push_back(n);
  for (Node* n : order) {
    if (taken.count(n) || !fusible(n)) continue;
    Group g;
    g.nodes.push_back(n);
    g.members.insert(n);
    grow(g, *float_dtype(n->output()), taken);
    for (Node* m : g.nodes) taken.insert(m);
    if (g.nodes.size() >= 2) groups.push_back(std::move(g));
  }
  for (Group& g : groups) emit(graph, g);
  return changed || !groups.empty();
}

}  // namespace

bool fuse_elementwise(std::shared_ptr<Graph>& graph) {
  EMBER_CHECK(graph, "FuseElementwise: the graph is null");
  return fuse_block(*graph, graph->block());
}

}  // namespace ember::jit
