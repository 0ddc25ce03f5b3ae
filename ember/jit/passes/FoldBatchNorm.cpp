// Conv2d / Linear + BatchNorm folding (Passes.h).
#include "ember/jit/passes/Analysis.h"
#include "ember/jit/passes/GraphEdit.h"
#include "ember/jit/passes/GraphEdit.h"
#include "ember/jit/passes/Passes.h"
#include "ember/ops/Functions.h"

namespace ember::jit {
namespace {

// Note [batch norm folding]
// In eval form batch_norm is a per-channel affine map: y = (x - mean) * gamma / sqrt(var + eps) + beta, with
// the running statistics and the affine parameters fixed. When x = conv(input, W) + b, channel c of x is linear
// in W[c] and b[c], so the two fold into one convolution (the same holds for linear, whose output features
// are the channels):
//   s[c]  = gamma[c] / sqrt(var[c] + eps)
//   W'[c] = W[c] * s[c]                       (every weight of output channel c)
//   b'[c] = (b[c] - mean[c]) * s[c] + beta[c]  (b = 0 when the op has no bias; gamma = 1, beta = 0 when None)
// The folded values are computed in float64 and rounded once to the weight's dtype, so the folded op differs
// from the pair only by the rounding of its (now single) affine step. The channel dimension of batch_norm is
// dimension 1 of its input, which is the output-channel dimension of conv2d only for batched (4-d) input and
// the feature dimension of linear only for 2-d input; the rank is taken from the value types (traced graphs
// know it) and nothing is folded when it is unknown. The op's output must feed only the batch_norm, and the
// tensors involved must not be written in place (Note [alias classes]).

std::optional<Tensor> constant_tensor(const Value* v) {
  std::optional<IValue> c = constant_value(v);
  if (!c || !c->is_tensor() || !c->to_tensor().defined()) return std::nullopt;
  return detach(c->to_tensor());
}

// A constant tensor or None (nullopt inside); nullopt outside when v is neither.
std::optional<std::optional<Tensor>> optional_constant_tensor(const Value* v) {
  std::optional<IValue> c = constant_value(v);
  if (!c) return std::nullopt;
  if (c->is_none() && v->type()->kind() != TypeKind::Tensor) return std::optional<Tensor>();
  if (!c->is_tensor() || !c->to_tensor().defined()) return std::nullopt;
  return std::optional<Tensor>(detach(c->to_tensor()));
}

std::optional<size_t> known_rank(const Value* v) {
  const auto* t = v->type()->cast<TensorType>();
  if (!t || !t->sizes()) return std::nullopt;
  return t->sizes()->size();
}

bool fold_one(Graph& g, Node* bn, const passes::AliasDb& db) {
  if (bn->num_inputs() != 9 || bn->num_outputs() != 1) return false;
  Value* x = bn->input(0);
  Node* p = x->node();
  bool conv = p->kind() == Symbol::aten("conv2d"), linear = p->kind() == Symbol::aten("linear");
  if ((!conv && !linear) || x->uses().size() != 1 || p->num_inputs() < 3) return false;
  size_t rank = conv ? 4 : 2;
  std::optional<size_t> r = known_rank(x);
  if (!r) r = known_rank(p->input(0));
  if (r != rank) return false;

  std::optional<IValue> training = constant_value(bn->input(5)), eps = constant_value(bn->input(7));
  if (!training || !training->is_bool() || training->to_bool() || !eps || !(eps->is_double() || eps->is_int()))
    return false;
  std::optional<std::optional<Tensor>> gamma = optional_constant_tensor(bn->input(1));
  std::optional<std::optional<Tensor>> beta = optional_constant_tensor(bn->input(2));
  std::optional<Tensor> mean = constant_tensor(bn->input(3)), var = constant_tensor(bn->input(4));
  std::optional<Tensor> w = constant_tensor(p->input(1));
  std::optional<std::optional<Tensor>> b = optional_constant_tensor(p->input(2));
  if (!gamma || !beta || !mean || !var || !w || !b) return false;
  for (const Value* v : {bn->input(1), bn->input(2), bn->input(3), bn->input(4), p->input(1), p->input(2), x})
    if (db.may_be_written(v)) return false;
  if (w->dim() != static_cast<int64_t>(rank) || !is_floating_point(w->dtype())) return false;
  int64_t c = w->size(0);
  auto fits = [&](const std::optional<Tensor>& t) { return !t || (t->dim() == 1 && t->size(0) == c); };
  if (!fits(*gamma) || !fits(*beta) || !fits(*mean) || !fits(*var) || !fits(*b)) return false;

  auto f64 = [](const Tensor& t) { return to(t, DType::Float64); };
  auto or_value = [&](const std::optional<Tensor>& t, double v) {
    return t ? f64(*t) : (v == 0 ? zeros({c}, DType::Float64, std::nullopt) : ones({c}, DType::Float64, std::nullopt));
  };
  double e = eps->is_double() ? eps->to_double() : static_cast<double>(eps->to_int());
  Tensor s = div(or_value(*gamma, 1), sqrt(add(f64(*var), e)));
  std::vector<int64_t> shape(rank, 1);
  shape[0] = c;
  Tensor w2 = to(mul(f64(*w), reshape(s, shape)), w->dtype());
  Tensor b2 = to(add(mul(sub(or_value(*b, 0), f64(*mean)), s), or_value(*beta, 0)), w->dtype());

  InsertPointGuard guard(g, p);
  // The folded constant replaces the op's input; it takes the old constant's name when nothing else reads it.
  auto replace_input = [&](size_t i, const Tensor& t) {
    Value* old = p->input(i);
    Value* c = g.insert_constant(IValue(contiguous(t)));
    p->replace_input(i, c);
    if (old->has_uses() || !old->has_debug_name() || old->type()->kind() != TypeKind::Tensor) return;
    std::string name = old->debug_name();
    old->node()->destroy();
    passes::name_if_free(c, name);
  };
  replace_input(1, w2);
  replace_input(2, b2);
  std::string name = bn->output()->has_debug_name() ? bn->output()->debug_name() : "";
  bn->output()->replace_all_uses_with(x);
  bn->destroy();
  passes::name_if_free(x, name);
  return true;
}

}  // namespace

bool fold_batch_norm(std::shared_ptr<Graph>& graph) {
  passes::AliasDb db(*graph);
  std::vector<Node*> bns;
  passes::for_each_node(graph->block(), [&](Node* n) {
    if (n->kind() == Symbol::aten("batch_norm")) bns.push_back(n);
  });
  bool changed = false;
  for (Node* bn : bns) changed |= fold_one(*graph, bn, db);
  return changed;
}

}  // namespace ember::jit
