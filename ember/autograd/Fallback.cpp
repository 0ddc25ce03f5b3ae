// The Autograd key's boxed fallback: ops without a derivative formula.
//
// Note [ops without a derivative]
// An op whose database entry has no `grad:` formula (and is not CompositeImplicitAutograd, whose inner ops are
// recorded) reaches this fallback when one of its inputs has autograd metadata. It runs the op below the
// Autograd key; when grad mode is on, an input requires grad and the op returns a floating-point tensor, it
// raises NotImplementedError instead of returning a result that silently drops the gradient (for example
// x.max() + x.sum() would backpropagate through sum only). Results that are not floating point (comparisons,
// argmax, indices) are not differentiable in PyTorch either and pass through, as do the ops in
// kNonDifferentiable, whose floating results PyTorch also leaves without a gradient.
#include <string_view>

#include "ember/autograd/GradMode.h"
#include "ember/autograd/Node.h"
#include "ember/dispatch/Dispatcher.h"
#include "ember/dispatch/Library.h"

namespace ember::autograd {

namespace {

// Ops with floating results that PyTorch does not differentiate through (their outputs never require grad).
bool non_differentiable(std::string_view name) {
  static constexpr std::string_view kNonDifferentiable[] = {
      "detach", "detach_", "empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like",
      "randint_like", "bernoulli", "multinomial", "normal", "one_hot", "_local_scalar_dense", "item"};
  for (std::string_view n : kNonDifferentiable)
    if (n == name) return true;
  return false;
}

// "aten::max" -> "max".
std::string_view unqualified(std::string_view name) {
  size_t p = name.find("::");
  return p == std::string_view::npos ? name : name.substr(p + 2);
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

void autograd_fallback(const OperatorHandle& op, Stack* s) {
  const FunctionSchema& schema = op.schema();
  size_t n = schema.arguments.size();
  bool differentiate =
      GradMode::is_enabled() && any_requires_grad(*s, n) && !non_differentiable(unqualified(schema.name));
  DispatchKeySet below = compute_keys_boxed(*s, n).remove(DispatchKey::Autograd);
  {
    ExcludeDispatchKeyGuard guard(DispatchKey::Autograd);
    op.redispatch_boxed(below, s);
  }
  if (!differentiate) return;
  size_t r = schema.returns.size();
  for (size_t i = s->size() - r; i < s->size(); ++i) {
    const IValue& v = (*s)[i];
    if (v.is_tensor() && v.to_tensor().defined() && is_floating_point(v.to_tensor().dtype()))
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
