// Graph edits shared by the graph passes (GraphEdit.h).
#include "ember/jit/passes/GraphEdit.h"

#include <unordered_map>
#include <unordered_set>

#include "ember/base/Error.h"
#include "ember/jit/ir/Verifier.h"

namespace ember::jit::passes {

void name_if_free(Value* v, const std::string& name) {
  if (name.empty() || v->has_debug_name()) return;
  for (const Value* o : v->owning_graph()->all_values())
    if (o->debug_name() == name) return;
  v->set_debug_name(name);
}

void verify_after(const Graph& g, const char* pass) {
  try {
    verify(g);
  } catch (const Error& e) {
    EMBER_FAIL_KIND(e.kind(), "jit pass {} made an invalid graph: {}", pass, e.what());  // "verify: ..."
  }
}

std::vector<Value*> insert_graph_copy(Graph& g, const Graph& callee, std::span<Value* const> inputs) {
  EMBER_CHECK(inputs.size() == callee.inputs().size(), "jit: inlining a graph of {} inputs with {} values",
              callee.inputs().size(), inputs.size());
  std::unordered_set<std::string> taken;
  for (const Value* v : g.all_values())
    if (v->has_debug_name()) taken.insert(v->debug_name());
  std::unordered_map<const Value*, Value*> map;
  for (size_t i = 0; i < inputs.size(); ++i) map[callee.inputs()[i]] = inputs[i];
  auto copy_value = [&](const Value* from, Value* to) {
    to->set_type(from->type());
    if (from->has_debug_name() && taken.insert(from->debug_name()).second) to->set_debug_name(from->debug_name());
    map[from] = to;
  };
  // into == nullptr: at g's insertion point; else at the end of that block.
  auto copy_nodes = [&](const Block* from, Block* into, auto&& self) -> void {
    for (const Node* n : from->nodes()) {
      Node* m = g.create(n->kind(), {}, 0);
      for (const Value* v : n->inputs()) m->add_input(map.at(v));
      for (const Value* v : n->outputs()) copy_value(v, m->add_output());
      for (const Attribute& a : n->attributes()) m->set_attribute(a.name, a.value);
      for (const Block* b : n->blocks()) {
        Block* nb = m->add_block();
        for (const Value* v : b->inputs()) copy_value(v, nb->add_input("", v->type()));
        self(b, nb, self);
        for (const Value* v : b->outputs()) nb->register_output(map.at(v));
      }
      if (into) into->append_node(m);
      else g.insert_node(m);
    }
  };
  copy_nodes(callee.block(), nullptr, copy_nodes);
  std::vector<Value*> outs;
  for (const Value* v : callee.outputs()) outs.push_back(map.at(v));
  return outs;
}

}  // namespace ember::jit::passes
