#pragma once
// What the generated Autograd-key kernels (generated/Functions.cpp) are made of.
//
// Note [autograd dispatch]
// Autograd is a dispatch key. A tensor gets the key only when it has autograd metadata (requires_grad, a
// grad_fn, or a .grad), so ops on plain tensors never reach this layer and pay nothing for it. An
// Autograd-key kernel runs the op below its own key (ExcludeDispatchKeyGuard), and when grad mode is on
// and an input requires grad, records a node: edges to the inputs' grad_fns (or AccumulateGrad), the
// inputs' sizes and dtypes (Note [gradient shape and dtype]) and the values its formula needs. The formulas
// come from the `grad:` field of the op database and use Ember ops, so create_graph=True records the
// backward pass too. CompositeImplicitAutograd ops (matmul, linear, reshape, ...) need no formula: their
// inner ops are recorded. Ops without a formula run as if their inputs did not require grad.
//
// In-place ops are recorded as the out-of-place op on a clone of the old value, whose result is copied into
// the tensor; views rebase their base's history (Note [views and in-place], ember/autograd/Views.h).
#include "ember/autograd/FunctionsManual.h"
#include "ember/autograd/GradMode.h"
#include "ember/autograd/Node.h"
#include "ember/autograd/Views.h"
#include "ember/dispatch/Dispatcher.h"
#include "ember/dispatch/Library.h"

namespace ember::autograd::detail {

/// Adds t as the next input of node: its gradient edge and its sizes/dtype.
inline void add_input(Node& node, const Tensor& t) {
  node.add_next_edge(gradient_edge(t));
  node.input_meta.push_back({DimVector(t.sizes().begin(), t.sizes().end()), t.dtype()});
}

using autograd::check_inplace;
using autograd::mark_no_grad_view;
using autograd::mark_view;

/// Writes the recorded out-of-place result r into self and gives self r's history (its base a CopySlices
/// when self is a view); self_index is self's position among the inputs of r's node, or -1.
inline void commit_inplace(const Tensor& self, const Tensor& r, int self_index) {
  {
    ExcludeDispatchKeyGuard guard(DispatchKey::Autograd);
    self.copy_(r);
  }
  if (AutogradMeta* rm = get_meta(r); rm && rm->grad_fn) rebase_history(self, rm->grad_fn, self_index);
}

}  // namespace ember::autograd::detail
