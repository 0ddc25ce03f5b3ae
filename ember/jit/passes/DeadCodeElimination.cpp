// Dead code elimination (Passes.h).
#include "ember/jit/passes/Passes.h"
#include "ember/jit/passes/Analysis.h"

namespace ember::jit {
namespace {

using passes::has_side_effects;

bool any_output_used(const Node* n) {
  for (const Value* v : n->outputs())
    if (v->has_uses()) return true;
  return false;
}

// Drops outputs of a prim::If that nobody reads, with the branch values that fed them.
bool remove_unused_if_outputs(Node* n) {
  bool changed = false;
  for (size_t i = n->num_outputs(); i-- > 0;) {
    if (n->output(i)->has_uses()) continue;
    for (Block* b : n->blocks()) b->erase_output(i);
    n->erase_output(i);
    changed = true;
  }
  return changed;
}

// Drops loop-carried values that neither the code after the loop nor the body reads: output i of the loop,
// its initial value (input i + 2), the body's input i + 1 and the body's output i + 1.
bool remove_unused_loop_carried(Node* n) {
  Block* body = n->blocks()[0];
  bool changed = false;
  for (size_t i = n->num_outputs(); i-- > 0;) {
    if (n->output(i)->has_uses() || body->inputs()[i + 1]->has_uses()) continue;
    body->erase_output(i + 1);
    body->erase_input(i + 1);
    n->remove_input(i + 2);
    n->erase_output(i);
    changed = true;
  }
  return changed;
}

bool dce_block(Block* b) {
  bool changed = false;
  NodeRange range = b->reverse_nodes();
  for (auto it = range.begin(); it != range.end();) {
    Node* n = *it;
    ++it;  // steps past n first: n may be destroyed below
    if (n->kind() == prim::If) changed |= remove_unused_if_outputs(n);
    if (n->kind() == prim::Loop) changed |= remove_unused_loop_carried(n);
    for (Block* sub : n->blocks()) changed |= dce_block(sub);
    if (!any_output_used(n) && !has_side_effects(n)) {
      n->destroy();
      changed = true;
    }
  }
  return changed;
}

}  // namespace

bool eliminate_dead_code(std::shared_ptr<Graph>& graph) {
  // One sweep from the end clears straight-line code (a node's users come after it); dropping a loop-carried
  // value can leave another body input unused, which the next sweep sees. Each sweep that changes something
  // removes at least one node or value, so this ends.
  bool changed = false;
  while (dce_block(graph->block())) changed = true;
  return changed;
}

}  // namespace ember::jit
