// Inlining of submodule method calls (Passes.h).
#include "ember/base/Error.h"
#include "ember/jit/ir/IRPrinter.h"
#include "ember/jit/passes/Analysis.h"
#include "ember/jit/passes/GraphEdit.h"
#include "ember/jit/passes/Passes.h"

namespace ember::jit {
namespace {

// Binds the callee's outputs to the call's: one per output, or a tuple for a call with one output of a
// callee with several (what run() returns), None for a callee without outputs, unpacked when the call has
// several outputs and the callee returns one tuple.
void bind_outputs(Graph& g, Node* call, std::vector<Value*> outs) {
  size_t want = call->num_outputs();
  if (want == 0) return;
  if (outs.size() != want) {
    if (want == 1 && outs.empty()) {
      outs = {g.insert_constant(IValue())};
    } else if (want == 1) {
      outs = {g.insert_tuple(outs)};
    } else if (outs.size() == 1 && outs[0]->type()->kind() == TypeKind::Tuple) {
      Node* u = g.insert_tuple_unpack(outs[0]);
      outs.assign(u->outputs().begin(), u->outputs().end());
    }
    EMBER_CHECK(outs.size() == want, "jit inline: {} has {} outputs but the method returns {} values",
                node_line(call), want, outs.size());
  }
  for (size_t i = 0; i < want; ++i) call->output(i)->replace_all_uses_with(outs[i]);
}

class Inliner {
 public:
  Inliner(Graph& g, const Object* self) : g_(g) {
    if (!g.inputs().empty()) objects_[g.inputs()[0]] = self;
  }

  bool run(Block* b) {
    bool changed = false;
    for (Node* n = b->param_node()->next(); n != b->return_node();) {
      Node* next = n->next();
      if (const Object* o = passes::submodule_read(n, objects_)) {
        objects_[n->output()] = o;
      } else if (n->kind() == prim::CallMethod) {
        next = inline_call(n);
        changed = true;
      } else {
        for (Block* sub : n->blocks()) changed |= run(sub);
      }
      n = next;
    }
    return changed;
  }

 private:
  // Replaces the call by the callee's nodes; returns the first of them (so that their own calls are inlined
  // next), or the node after the call when the callee has none.
  Node* inline_call(Node* call) {
    auto it = objects_.find(call->input(0));
    EMBER_CHECK(it != objects_.end(), "jit inline: {} calls a method of %{}, which is not a submodule reached "
                "from %self by prim::GetAttr", node_line(call), call->input(0)->display_name());
    const Object* obj = it->second;
    const std::string& name = call->s("name");
    const Method* m = obj->find_method(name);
    EMBER_CHECK(m != nullptr, "jit inline: module {} has no method '{}' (called by: {})", obj->type()->name(), name,
                node_line(call));
    Node* before = call->prev();
    {
      InsertPointGuard guard(g_, call);
      std::vector<Value*> outs = passes::insert_graph_copy(g_, *m->graph, call->inputs());
      bind_outputs(g_, call, std::move(outs));
    }
    Node* first = before->next();
    if (first == call) first = call->next();
    call->destroy();
    return first;
  }

  Graph& g_;
  std::unordered_map<const Value*, const Object*> objects_;
};

}  // namespace

bool inline_method_calls(std::shared_ptr<Graph>& graph, const Module& self) {
  return Inliner(*graph, self.object().get()).run(graph->block());
}

}  // namespace ember::jit
