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
// Note [views and in-place]
// An in-place op on a tensor that requires grad is recorded as the out-of-place op on a clone of the old
// value, whose result is copied into the tensor, which then takes over the result's grad_fn. This is
// correct for tensors that are not views; an in-place op on a view produced from a tensor with history (or
// on a leaf that requires grad) raises instead (PyTorch rebases the view's base: CopySlices, left for later).
#include "ember/autograd/FunctionsManual.h"
#include "ember/autograd/FunctionsNN.h"
#include "ember/autograd/GradMode.h"
#include "ember/autograd/Node.h"
#include "ember/dispatch/Dispatcher.h"
#include "ember/dispatch/Library.h"

namespace ember::autograd::detail {

/// Adds t as the next input of node: its gradient edge and its sizes/dtype.
inline void add_input(Node& node, const Tensor& t) {
  node.add_next_edge(gradient_edge(t));
  node.input_meta.push_back({DimVector(t.sizes().begin(), t.sizes().end()), t.dtype()});
}

/// Errors for in-place ops the autograd layer cannot record (Note [views and in-place]).
inline void check_inplace(const Tensor& self) {
  AutogradMeta* m = get_meta(self);
  if (!m) return;
  EMBER_CHECK(!(m->requires_grad_ && !m->grad_fn),
              "a leaf Variable that requires grad is being used in an in-place operation.");
  if (m->is_view && m->grad_fn)
    EMBER_FAIL_KIND(ErrorKind::NotImplemented,
                    "in-place operation on a view of a tensor that requires grad ({}) is not supported yet; "
                    "apply the operation out of place (e.g. x = x.mul(y) instead of x.mul_(y))",
                    m->grad_fn->name());
}

/// Writes the recorded out-of-place result r into self and gives self r's history.
inline void commit_inplace(const Tensor& self, const Tensor& r) {
  {
    ExcludeDispatchKeyGuard guard(DispatchKey::Autograd);
    self.copy_(r);
  }
  if (AutogradMeta* rm = get_meta(r); rm && rm->grad_fn) set_history(self, rm->grad_fn, rm->output_nr);
}

}  // namespace ember::autograd::detail
