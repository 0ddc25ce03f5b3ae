// Common subexpression elimination (Passes.h).
#include <algorithm>
#include <cstring>
#include <functional>
#include <type_traits>
#include <variant>
#include <unordered_map>
#include <vector>

#include "ember/jit/passes/Analysis.h"
#include "ember/jit/passes/Passes.h"
#include "ember/ops/Functions.h"

namespace ember::jit {
namespace {

using passes::AliasDb;

bool same_tensor(const Tensor& a, const Tensor& b) {
  if (a.impl() == b.impl()) return true;
  // Constants of equal dtype, shape and values (NaNs never compare equal, so such tensors are kept apart).
  return a.dtype() == b.dtype() && a.sizes().vec() == b.sizes().vec() && a.device() == b.device() && equal(a, b);
}

bool same_doubles(const double* x, const double* y, size_t n) {  // bitwise: 0. and -0. differ, nan equals nan
  return n == 0 || std::memcmp(x, y, n * sizeof(double)) == 0;
}

bool same_attribute(const Attribute& a, const Attribute& b) {
  if (a.name != b.name || a.value.index() != b.value.index()) return false;
  return std::visit(
      [&](const auto& x) -> bool {
        using T = std::decay_t<decltype(x)>;
        const T& y = std::get<T>(b.value);
        if constexpr (std::is_same_v<T, Tensor>) return same_tensor(x, y);
        else if constexpr (std::is_same_v<T, double>) return same_doubles(&x, &y, 1);
        else if constexpr (std::is_same_v<T, std::vector<double>>)
          return x.size() == y.size() && same_doubles(x.data(), y.data(), x.size());
        else return x == y;
      },
      a.value);
}

// Same kind, inputs (by identity), attributes (in any order) and output types.
bool same_node(const Node* a, const Node* b) {
  if (a->kind() != b->kind() || a->num_inputs() != b->num_inputs() || a->num_outputs() != b->num_outputs() ||
      a->attributes().size() != b->attributes().size())
    return false;
  for (size_t i = 0; i < a->num_inputs(); ++i)
    if (a->input(i) != b->input(i)) return false;
  for (size_t i = 0; i < a->num_outputs(); ++i)
    if (!a->output(i)->type()->equals(*b->output(i)->type())) return false;
  for (const Attribute& x : a->attributes()) {
    const Attribute* y = b->find_attribute(x.name);
    if (!y || !same_attribute(x, *y)) return false;
  }
  return true;
}

size_t hash_node(const Node* n) {
  size_t h = std::hash<Symbol>()(n->kind());
  for (const Value* v : n->inputs()) h = h * 31 + std::hash<const Value*>()(v);
  for (const Attribute& a : n->attributes()) h = h * 31 + std::hash<std::string>()(a.name);
  return h;
}

class Cse {
 public:
  explicit Cse(const AliasDb& db) : db_(db) {}

  bool run(Block* b) {
    std::vector<std::pair<size_t, Node*>> added;  // this scope's entries, removed when it ends
    bool changed = false;
    for (auto it = b->nodes().begin(); it != b->nodes().end();) {
      Node* n = *it;
      ++it;
      for (Block* sub : n->blocks()) changed |= run(sub);
      if (!eligible(n)) continue;
      size_t h = hash_node(n);
      std::vector<Node*>& bucket = table_[h];
      Node* earlier = nullptr;
      for (Node* m : bucket)
        if (same_node(m, n)) earlier = m;
      if (earlier) {
        for (size_t i = 0; i < n->num_outputs(); ++i) {
          if (!earlier->output(i)->has_debug_name() && n->output(i)->has_debug_name()) {
            std::string name = n->output(i)->debug_name();
            n->output(i)->set_debug_name("");
            earlier->output(i)->set_debug_name(name);
          }
        }
        n->replace_all_uses_with(earlier);
        n->destroy();
        changed = true;
      } else {
        bucket.push_back(n);
        added.emplace_back(h, n);
      }
    }
    for (const auto& [h, n] : added) {
      std::vector<Node*>& bucket = table_[h];
      bucket.erase(std::find(bucket.begin(), bucket.end(), n));
    }
    return changed;
  }

 private:
  bool eligible(const Node* n) const {
    if (!n->blocks().empty() || passes::has_side_effects(n)) return false;
    if (n->kind() == prim::GetAttr && db_.has_calls_or_setattr()) return false;
    if (n->kind() == prim::Uninitialized) return false;
    for (const Value* v : n->inputs())
      if (db_.may_be_written(v)) return false;
    for (const Value* v : n->outputs())
      if (db_.may_be_written(v)) return false;
    return true;
  }

  const AliasDb& db_;
  std::unordered_map<size_t, std::vector<Node*>> table_;
};

}  // namespace

bool eliminate_common_subexpression(std::shared_ptr<Graph>& graph) {
  AliasDb db(*graph);
  return Cse(db).run(graph->block());
}

}  // namespace ember::jit
