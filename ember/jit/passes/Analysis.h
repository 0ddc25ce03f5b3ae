#pragma once
// Analyses shared by the graph passes (Passes.h): side effects, random draws, which values may alias a tensor
// that some node writes, and which module objects values stand for.
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ember/jit/ir/Graph.h"

namespace ember::jit {
class Object;
}

namespace ember::jit::passes {

/// Note [side effects]
/// A node has side effects when running it does more than compute its outputs, so removing, merging or
/// moving it would change what the program does: an op whose schema writes an argument (`Tensor(a!)`), an op
/// without a known schema (nothing can be assumed), prim::SetAttr, prim::RaiseException, prim::CallMethod and
/// prim::CallFunction (the callee is not analysed here), prim::If / prim::Loop whose blocks hold such a node,
/// and random ops (is_nondeterministic). Random ops count because each draw advances the global generator:
/// removing an unused rand() would change every later draw, so a program's random stream would differ from
/// the eager model's. (TorchScript removes unused random ops; Ember keeps them, the safer reading.)
bool has_side_effects(const Node* n);

/// Whether n draws random numbers: an op with a Generator argument, one of the random factories and
/// samplers (rand, randn, randint, randperm and their _like forms, normal, bernoulli, multinomial, poisson,
/// rrelu), or a dropout op unless its `train` input is the constant False (then it returns its input).
bool is_nondeterministic(const Node* n);

/// Whether values of type t can hold tensors (Tensor, containers of tensors, Optional[Tensor], Any).
bool may_hold_tensors(const Type& t);

/// Note [alias classes]
/// A conservative alias analysis: values that may share tensor storage are put in one class (union-find).
/// An op's result joins the arguments with the same alias set in the schema (`Tensor(a) self -> Tensor(a)`:
/// views and the results of in-place ops), a wildcard joins everything it touches; list, tuple and dict
/// constructs/unpacks join their elements; prim::If outputs join both branches' outputs; loop-carried values
/// join their body inputs and outputs; prim::GetAttr results of one attribute name join each other; all graph
/// inputs form one class (a caller may pass one tensor twice). Values of types that hold no tensor (ints,
/// floats, int lists, strings) never alias. A class is *written* when a member is passed for a `Tensor(a!)`
/// argument or to a node without schema or a call. Passes fold or merge only values whose class is not
/// written: such a tensor's contents never change during a run, so equal computations give equal values.
class AliasDb {
 public:
  explicit AliasDb(const Graph& g);
  /// Whether v may share storage with a tensor some node of the graph writes.
  bool may_be_written(const Value* v) const;
  /// Whether any node writes a tensor.
  bool has_writes() const { return !written_.empty(); }
  /// Whether the graph holds prim::SetAttr, prim::CallMethod or prim::CallFunction (attribute reads may then
  /// differ between two points of the graph).
  bool has_calls_or_setattr() const { return calls_or_setattr_; }

 private:
  size_t index(const Value* v);
  size_t find(size_t i) const;
  void unite(const Value* a, const Value* b);
  void unite_all(const std::vector<const Value*>& vs);
  void visit_block(const Block* b);
  void visit_node(const Node* n);

  std::unordered_map<const Value*, size_t> index_;
  mutable std::vector<size_t> parent_;
  std::unordered_map<std::string, const Value*> attr_rep_;
  std::vector<const Value*> marked_;
  std::unordered_set<size_t> written_;
  bool calls_or_setattr_ = false;
};

/// Calls f(node) for every node of b and, depth first, of the blocks nested in it.
template <class F>
void for_each_node(const Block* b, F&& f) {
  for (Node* n : b->nodes()) {
    f(n);
    for (const Block* sub : n->blocks()) for_each_node(sub, f);
  }
}

/// The submodule object a prim::GetAttr node reads, when its input stands for a known object (in `objects`)
/// and the attribute is a submodule slot; else null.
const Object* submodule_read(const Node* get_attr, const std::unordered_map<const Value*, const Object*>& objects);

/// The module objects of g's values: %self (g's first input) is `self`, and a prim::GetAttr of a submodule
/// slot of a known object is that submodule (Note [module objects in graphs] in Module.h).
std::unordered_map<const Value*, const Object*> module_objects(const Graph& g, const Object* self);

}  // namespace ember::jit::passes
