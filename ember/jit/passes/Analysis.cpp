// Analyses shared by the graph passes (Analysis.h).
#include "ember/jit/passes/Analysis.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "ember/base/Error.h"
#include "ember/jit/runtime/Module.h"

namespace ember::jit::passes {
namespace {

bool is_generator(const SchemaType& t) {
  if (t.kind == SchemaType::Kind::Generator) return true;
  return t.kind == SchemaType::Kind::Optional && t.elem && t.elem->kind == SchemaType::Kind::Generator;
}

bool is_dropout(std::string_view name) {
  return name == "dropout" || name == "feature_dropout" || name == "alpha_dropout" ||
         name == "feature_alpha_dropout";
}

}  // namespace

bool is_nondeterministic(const Node* n) {
  if (!n->is_op()) return false;
  std::string_view name = n->kind().name();
  const FunctionSchema* s = n->maybe_schema();
  if (s) {
    for (const SchemaArgument& a : s->arguments)
      if (is_generator(a.type)) return true;
  }
  static constexpr std::array<std::string_view, 14> kRandom = {
      "rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like", "normal", "bernoulli",
      "multinomial", "poisson", "rrelu", "rrelu_with_noise", "uniform"};
  if (std::find(kRandom.begin(), kRandom.end(), name) != kRandom.end()) return true;
  if (is_dropout(name)) {
    // dropout(input, p, train): deterministic (the identity) when train is the constant False.
    std::optional<IValue> train = n->num_inputs() == 3 ? constant_value(n->input(2)) : std::nullopt;
    return !(train && train->is_bool() && !train->to_bool());
  }
  return false;
}

bool has_side_effects(const Node* n) {
  Symbol k = n->kind();
  if (k == prim::SetAttr || k == prim::RaiseException || k == prim::CallMethod || k == prim::CallFunction ||
      k == prim::Print)
    return true;
  if (n->is_op()) {
    const FunctionSchema* s = n->maybe_schema();
    if (!s || s->is_mutable()) return true;
    return is_nondeterministic(n);
  }
  for (const Block* b : n->blocks())
    for (const Node* m : b->nodes())
      if (has_side_effects(m)) return true;
  return false;
}

bool may_hold_tensors(const Type& t) {
  switch (t.kind()) {
    case TypeKind::Tensor:
    case TypeKind::Any: return true;
    case TypeKind::List:
    case TypeKind::Tuple:
    case TypeKind::Dict:
    case TypeKind::Optional:
      for (const TypePtr& e : t.contained())
        if (may_hold_tensors(*e)) return true;
      return false;
    default: return false;
  }
}

// ---- AliasDb (Note [alias classes])

AliasDb::AliasDb(const Graph& g) {
  std::vector<const Value*> inputs;
  for (const Value* v : g.inputs())
    if (may_hold_tensors(*v->type())) inputs.push_back(v);
  unite_all(inputs);
  visit_block(g.block());
  for (const Value* v : marked_) written_.insert(find(index(v)));
}

size_t AliasDb::index(const Value* v) {
  auto [it, fresh] = index_.emplace(v, parent_.size());
  if (fresh) parent_.push_back(parent_.size());
  return it->second;
}

size_t AliasDb::find(size_t i) const {
  while (parent_[i] != i) i = parent_[i] = parent_[parent_[i]];
  return i;
}

void AliasDb::unite(const Value* a, const Value* b) {
  if (!may_hold_tensors(*a->type()) || !may_hold_tensors(*b->type())) return;
  size_t x = find(index(a)), y = find(index(b));
  if (x != y) parent_[x] = y;
}

void AliasDb::unite_all(const std::vector<const Value*>& vs) {
  for (size_t i = 1; i < vs.size(); ++i) unite(vs[0], vs[i]);
}

bool AliasDb::may_be_written(const Value* v) const {
  if (!may_hold_tensors(*v->type())) return false;
  auto it = index_.find(v);
  if (it == index_.end()) return false;
  return written_.count(find(it->second)) > 0;
}

void AliasDb::visit_block(const Block* b) {
  for (const Node* n : b->nodes()) visit_node(n);
}

void AliasDb::visit_node(const Node* n) {
  Symbol k = n->kind();
  auto all_values = [&] {
    std::vector<const Value*> vs(n->inputs().begin(), n->inputs().end());
    vs.insert(vs.end(), n->outputs().begin(), n->outputs().end());
    return vs;
  };
  for (const Value* v : n->outputs()) index(v);
  if (n->is_op()) {
    const FunctionSchema* s = n->maybe_schema();
    if (!s) {
      unite_all(all_values());
      marked_.insert(marked_.end(), n->inputs().begin(), n->inputs().end());
      return;
    }
    for (size_t r = 0; r < s->returns.size() && r < n->num_outputs(); ++r) {
      const auto& ra = s->returns[r].alias;
      if (!ra) continue;
      for (size_t a = 0; a < s->arguments.size() && a < n->num_inputs(); ++a) {
        const auto& aa = s->arguments[a].alias;
        if (ra->set == "*" || (aa && (aa->set == ra->set || aa->to_wildcard))) unite(n->output(r), n->input(a));
      }
    }
    for (size_t a = 0; a < s->arguments.size() && a < n->num_inputs(); ++a) {
      const auto& aa = s->arguments[a].alias;
      if (!aa) continue;
      if (aa->to_wildcard)
        for (const Value* o : n->outputs()) unite(o, n->input(a));
      if (aa->is_write) marked_.push_back(n->input(a));
    }
    return;
  }
  if (k == prim::ListConstruct || k == prim::ListUnpack || k == prim::TupleConstruct || k == prim::TupleUnpack ||
      k == prim::TupleIndex || k == prim::DictConstruct) {
    unite_all(all_values());
  } else if (k == prim::GetAttr) {
    const Value* o = n->output();
    if (may_hold_tensors(*o->type())) {
      auto [it, fresh] = attr_rep_.emplace(n->s("name"), o);
      if (!fresh) unite(o, it->second);
    }
  } else if (k == prim::SetAttr) {
    calls_or_setattr_ = true;
    const Value* v = n->inputs().back();
    auto [it, fresh] = attr_rep_.emplace(n->s("name"), v);
    if (!fresh) unite(v, it->second);
    marked_.push_back(v);
  } else if (k == prim::CallMethod || k == prim::CallFunction) {
    // The callee may write its arguments and any attribute of the module.
    calls_or_setattr_ = true;
    unite_all(all_values());
    marked_.insert(marked_.end(), n->inputs().begin(), n->inputs().end());
    for (const auto& [name, v] : attr_rep_) marked_.push_back(v);
  } else if (k == prim::If) {
    for (const Block* b : n->blocks()) {
      visit_block(b);
      for (size_t i = 0; i < n->num_outputs() && i < b->outputs().size(); ++i) unite(n->output(i), b->outputs()[i]);
    }
  } else if (k == prim::Loop) {
    const Block* body = n->blocks()[0];
    for (size_t i = 0; i < n->num_outputs(); ++i) {
      unite(n->output(i), n->input(i + 2));
      unite(n->output(i), body->inputs()[i + 1]);
    }
    visit_block(body);
    for (size_t i = 0; i < n->num_outputs(); ++i) unite(n->output(i), body->outputs()[i + 1]);
  } else {
    for (const Block* b : n->blocks()) visit_block(b);
  }
}

const Object* submodule_read(const Node* n, const std::unordered_map<const Value*, const Object*>& objects) {
  if (n->kind() != prim::GetAttr) return nullptr;
  auto it = objects.find(n->input(0));
  if (it == objects.end()) return nullptr;
  int64_t slot = it->second->find_slot(n->s("name"));
  if (slot < 0) return nullptr;
  const Slot& s = it->second->slots()[static_cast<size_t>(slot)];
  return s.kind == SlotKind::Module ? s.module.get() : nullptr;
}

std::unordered_map<const Value*, const Object*> module_objects(const Graph& g, const Object* self) {
  std::unordered_map<const Value*, const Object*> objects;
  if (!g.inputs().empty()) objects[g.inputs()[0]] = self;
  for_each_node(g.block(), [&](const Node* n) {
    if (const Object* o = submodule_read(n, objects)) objects[n->output()] = o;
  });
  return objects;
}

}  // namespace ember::jit::passes
