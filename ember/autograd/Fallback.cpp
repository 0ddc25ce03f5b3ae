// The Autograd key's boxed fallback: ops without a derivative formula.
//
// Note [ops without a derivative]
// An op whose database entry has no `grad:` formula (and is not CompositeImplicitAutograd, whose inner ops are
// recorded) reaches this fallback when one of its inputs has autograd metadata. It runs the op below the
// Autograd key; when grad mode is on, an input requires grad and the op returns a floating-point tensor, it
// raises NotImplementedError instead of returning a result that silently drops the gradient (for example
// x.max() + x.sum() would backpropagate through sum only). Results that are not floating point (comparisons,
// argmax, indices) are not differentiable in PyTorch either and pass through, as do the ops in
// kNonDifferentiable (generated from the database's `differentiable: false`), whose floating results PyTorch
// also leaves without a gradient.
#include <string_view>

#include "ember/autograd/GradMode.h"
#include "ember/autograd/Node.h"
#include "ember/autograd/generated/NonDifferentiable.h"
#include "ember/dispatch/Dispatcher.h"
#include "ember/dispatch/Library.h"

namespace ember::autograd {

namespace {

// Ops with floating results that PyTorch does not differentiate through (their outputs never require grad):
// the database's `differentiable: false` entries.
bool non_differentiable(const FunctionSchema& schema) {
  for (const OpName& n : kNonDifferentiable)
    if (n.name == schema.name && n.overload == schema.overload) return true;
  return false;
}

bool any_requires_grad(const Stack& s, size_t n) {
  for (size_t i = s.size() - n; i < s.size(); ++i) {
    const IValue& v = s[i];
    if (v.is_tensor()) {
      if (v.to_tensor().defined() && requires_grad(v.to_tensor())) return true;
    } else if (v.is_tensor_list()) {
      for (const Tensor& t : v.to_tensor_list())
        if (t.defined() && requires_grad(t)) return true;
    }
  }
  return false;
}

// Whether the call writes a floating out= tensor: a keyword-only argument the schema writes
// (add.out(..., *, Tensor(a!) out)); integral results (argmax's indices) have no derivative anyway.
bool writes_floating_out(const FunctionSchema& schema, const Stack& s) {
  const size_t n = schema.arguments.size();
  for (size_t i = 0; i < n; ++i) {
    const SchemaArgument& a = schema.arguments[i];
    const IValue& v = s[s.size() - n + i];
    if (a.kwarg_only && a.alias && a.alias->is_write && v.is_tensor() && v.to_tensor().defined() &&
        (is_floating_point(v.to_tensor().dtype()) || is_complex(v.to_tensor().dtype())))
      return true;
  }
  return false;
}

void autograd_fallback(const OperatorHandle& op, Stack* s) {
  const FunctionSchema& schema = op.schema();
  size_t n = schema.arguments.size();
  bool differentiate = GradMode::is_enabled() && any_requires_grad(*s, n) && !non_differentiable(schema);
  // As PyTorch, refused before anything is written (found by tools/random_calls.py, which saw NotImplementedError
  // after out= had been written): out= results have no history, whatever the op.
  EMBER_CHECK(!differentiate || !writes_floating_out(schema, *s),
              "{}(): functions with out=... arguments don't support automatic differentiation, but one of the "
              "arguments requires grad.", schema.base_name());
  DispatchKeySet below = compute_keys_boxed(*s, n).remove(DispatchKey::Autograd);
  {
    ExcludeDispatchKeyGuard guard(DispatchKey::Autograd);
    op.redispatch_boxed(below, s);
  }
  if (!differentiate) return;
  size_t r = schema.returns.size();
  for (size_t i = s->size() - r; i < s->size(); ++i) {
    const IValue& v = (*s)[i];
    if (v.is_tensor() && v.to_tensor().defined() &&
        (is_floating_point(v.to_tensor().dtype()) || is_complex(v.to_tensor().dtype())))
      EMBER_FAIL_KIND(ErrorKind::NotImplemented,
                      "the derivative for '{}' is not implemented yet (an input requires grad); compute it "
                      "under ember.no_grad() or on detached inputs if no gradient is needed",
                      schema.full_name());
  }
}

// ADInplaceOrView's fallback, for ops outside the database (custom ops) whose schema writes an argument: runs
// the op below the key and bumps each written tensor once (Note [version counter]). The generated kernels
// (generated/ADInplaceOrView.cpp) do the same for the database's ops without boxing.
void inplace_or_view_fallback(const OperatorHandle& op, Stack* s) {
  const FunctionSchema& schema = op.schema();
  const size_t n = schema.arguments.size();
  std::vector<Tensor> written;
  for (size_t i = 0; i < n; ++i) {
    const IValue& v = (*s)[s->size() - n + i];
    if (schema.arguments[i].alias && schema.arguments[i].alias->is_write && v.is_tensor() &&
        v.to_tensor().defined())
      written.push_back(v.to_tensor());
  }
  DispatchKeySet below = compute_keys_boxed(*s, n).remove(DispatchKey::ADInplaceOrView);
  {
    ExcludeDispatchKeyGuard guard(DispatchKey::ADInplaceOrView);
    op.redispatch_boxed(below, s);
  }
  for (const Tensor& t : written) t.impl()->bump_version();
}

}  // namespace

void register_autograd_fallback(Library& m) { m.fallback(KernelFunction::from_boxed(&autograd_fallback)); }

/// Registers ADInplaceOrView's boxed fallback (used only by ops that write an argument).
void register_inplace_or_view_fallback(Library& m) {
  m.fallback(KernelFunction::from_boxed(&inplace_or_view_fallback));
}

}  // namespace ember::autograd
