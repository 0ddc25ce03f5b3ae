// Scoping of the TorchScript compiler: frames of names (Note [environments] in Emitter.h) and the scan of the
// names a loop body assigns (its carried values).
#include <fmt/format.h>

#include "ember/jit/frontend/Emitter.h"

namespace ember::jit::script {

Frame* Emitter::push_frame() {
  frames_.push_back(std::make_unique<Frame>());
  Frame* f = frames_.back().get();
  f->parent = frame_;
  frame_ = f;
  return f;
}

void Emitter::pop_frame(Frame* f) { frame_ = f->parent; }

Value* Emitter::lookup(const std::string& name, const SourceRange& loc) {
  for (Frame* f = frame_; f; f = f->parent) {
    auto it = f->vars.find(name);
    if (it == f->vars.end()) continue;
    if (!it->second.error.empty()) fail(loc, it->second.error);
    return it->second.value;
  }
  return nullptr;
}

SugaredPtr Emitter::lookup_sugared(const std::string& name) const {
  for (const Frame* f = frame_; f; f = f->parent) {
    auto it = f->vars.find(name);
    if (it != f->vars.end()) return it->second.sugared;
  }
  return nullptr;
}

bool Emitter::defined(const std::string& name) const {
  for (const Frame* f = frame_; f; f = f->parent) {
    auto it = f->vars.find(name);
    if (it != f->vars.end()) return it->second.error.empty();
  }
  return false;
}

void Emitter::assign(const std::string& name, Value* v, const SourceRange& loc, bool refinement) {
  // A variable of an enclosing block keeps its type (Note [TorchScript compiler]).
  if (!refinement && !frame_->vars.count(name)) {
    for (Frame* f = frame_->parent; f; f = f->parent) {
      auto it = f->vars.find(name);
      if (it == f->vars.end()) continue;
      Value* old = it->second.value;
      if (old && !v->type()->is_subtype_of(*old->type()) && name != kReturnValue)
        fail(loc, fmt::format("Variable '{}' previously had type {} but is now being assigned to a value of type {}",
                              name, old->type()->str(), v->type()->str()));
      break;
    }
  }
  Binding& b = frame_->vars[name];
  if (!refinement && !b.assigned) {
    b.assigned = true;
    frame_->order.push_back(name);
  }
  b.value = v;
  b.error.clear();
  if (name[0] != '$' && !v->has_debug_name() && v->node()->kind() != prim::Constant &&
      v->node()->kind() != prim::Param)
    v->set_debug_name(name);
}

namespace {

void target_names(const Tree& t, std::set<std::string>& out) {
  switch (t.kind) {
    case TreeKind::Name: out.insert(t.text); break;
    case TreeKind::Tuple:
    case TreeKind::List:
      for (const TreePtr& c : t.children) target_names(*c, out);
      break;
    case TreeKind::Starred: target_names(*t.child(0), out); break;
    default: break;  // subscripts and attributes mutate, they do not rebind
  }
}

void collect_block(const Tree* block, std::set<std::string>& out, int loop_depth);

void collect_stmt(const Tree& s, std::set<std::string>& out, int loop_depth) {
  switch (s.kind) {
    case TreeKind::Assign:
      for (const TreePtr& t : s.child(0)->children) target_names(*t, out);
      break;
    case TreeKind::AnnAssign:
    case TreeKind::AugAssign: target_names(*s.child(0), out); break;
    case TreeKind::If:
      collect_block(s.child(1), out, loop_depth);
      collect_block(s.child(2), out, loop_depth);
      break;
    case TreeKind::While: collect_block(s.child(1), out, loop_depth + 1); break;
    case TreeKind::For:
      target_names(*s.child(0), out);
      collect_block(s.child(2), out, loop_depth + 1);
      break;
    case TreeKind::With: collect_block(s.children.back().get(), out, loop_depth); break;
    case TreeKind::Return:
      out.insert(Emitter::kReturnFlag);
      out.insert(Emitter::kReturnValue);
      break;
    default: break;
  }
}

void collect_block(const Tree* block, std::set<std::string>& out, int loop_depth) {
  if (!block) return;
  for (const TreePtr& s : block->children) collect_stmt(*s, out, loop_depth);
}

}  // namespace

void collect_assigned(const std::vector<TreePtr>& stmts, std::set<std::string>& out, int loop_depth) {
  for (const TreePtr& s : stmts) collect_stmt(*s, out, loop_depth);
}

}  // namespace ember::jit::script
