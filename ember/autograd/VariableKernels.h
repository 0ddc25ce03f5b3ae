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
#include "ember/autograd/FunctionsLinalg.h"
#include "ember/autograd/FunctionsManual.h"
#include "ember/autograd/FunctionsNN.h"
#include "ember/autograd/GradMode.h"
#include "ember/autograd/Node.h"
#include "ember/autograd/Views.h"
#include "ember/dispatch/Dispatcher.h"
#include "ember/dispatch/Library.h"

namespace ember::autograd::detail {

/// Sizes and dtype of t (of an input, or of an output whose missing gradient becomes zeros). An undefined
/// result (convolution_backward's masked-out gradients) is recorded as bool, so its gradient stays undefined.
inline InputMeta meta_of(const Tensor& t) {
  if (!t.defined()) return {{}, DType::Bool};
  return {DimVector(t.sizes().begin(), t.sizes().end()), t.dtype()};
}
/// Whether tensors of dtype t can require grad: floating point and complex (PyTorch's rule).
inline bool is_differentiable_dtype(DType t) { return is_floating_point(t) || is_complex(t); }
/// Whether a result gets a grad_fn: defined and of a differentiable dtype (floating point or complex).
inline bool floating_output(const Tensor& t) { return t.defined() && is_differentiable_dtype(t.dtype()); }

/// Adds t as the next input of node: its gradient edge and its sizes/dtype.
inline void add_input(Node& node, const Tensor& t) {
  node.add_next_edge(gradient_edge(t));
  node.input_meta.push_back(meta_of(t));
}
/// An optional input takes a slot either way; absent, it has no edge (and gets no gradient).
inline void add_input(Node& node, const std::optional<Tensor>& t) {
  if (t && t->defined()) return add_input(node, *t);
  node.add_next_edge(Edge{});
  node.input_meta.push_back(meta_of(Tensor()));
}
/// A list input takes one slot per element.
inline void add_input(Node& node, TensorList ts) {
  for (const Tensor& t : ts) add_input(node, t);
}

inline bool any_requires_grad(const Tensor& t) { return requires_grad(t); }
inline bool any_requires_grad(const std::optional<Tensor>& t) { return t && t->defined() && requires_grad(*t); }
inline bool any_requires_grad(TensorList ts) {
  for (const Tensor& t : ts)
    if (requires_grad(t)) return true;
  return false;
}

/// Whether any of the `count` slots from `begin` needs a gradient (a list input).
inline bool any_needed(const Node& node, size_t begin, size_t count) {
  for (size_t i = begin; i < begin + count; ++i)
    if (node.needs_input_grad(i)) return true;
  return false;
}

/// The saved tensors of a list input.
inline variable_list unpack_list(const std::vector<SavedVariable>& saved, const std::shared_ptr<Node>& owner) {
  variable_list r;
  r.reserve(saved.size());
  for (const SavedVariable& v : saved) r.push_back(v.unpack(owner));
  return r;
}

/// The sizes of a list input's elements (slots begin .. begin + count).
inline std::vector<IntArrayRef> list_sizes(const std::vector<InputMeta>& meta, size_t begin, size_t count) {
  std::vector<IntArrayRef> r;
  for (size_t i = begin; i < begin + count; ++i) r.emplace_back(meta[i].sizes);
  return r;
}

/// Note [gradients of multi-output ops]
/// A node of an op with several results runs when any of its outputs received a gradient; the others arrive
/// undefined. Formulas read every grads[i], so the missing ones become zeros of the output's sizes and dtype
/// (PyTorch's formulas test for undefined instead; zeros keep ours one expression each).
inline void materialize_grads(variable_list& grads, const std::vector<InputMeta>& outputs) {
  if (grads.size() < outputs.size()) grads.resize(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i)
    if (!grads[i].defined() && is_differentiable_dtype(outputs[i].dtype))
      grads[i] = ember::zeros(outputs[i].sizes, outputs[i].dtype);
}

/// Whether a list result has a floating-point (differentiable) element.
inline bool differentiable(const std::vector<Tensor>& ts) {
  for (const Tensor& t : ts)
    if (floating_output(t)) return true;
  return false;
}

/// Makes node the grad_fn of every floating element of a list result (output i = element i), recording
/// their metadata for Note [gradients of multi-output ops].
inline void set_list_history(const std::vector<Tensor>& ts, const std::shared_ptr<Node>& node,
                             std::vector<InputMeta>& output_meta, bool view) {
  node->num_outputs = static_cast<uint32_t>(ts.size());
  for (size_t i = 0; i < ts.size(); ++i) {
    output_meta.push_back(meta_of(ts[i]));
    if (!floating_output(ts[i])) continue;
    set_history(ts[i], node, static_cast<uint32_t>(i));
    if (view) mark_view(ts[i]);  // Note [views and in-place]
  }
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

/// After an in-place view op recorded as node (Note [in-place view ops], ember/ops/ops_view.yaml): node is self's
/// new history. Only self's geometry changed, so a view's base keeps its history; the view's new grad_fn is
/// marked current (it would otherwise be regenerated from the base, as the op bumped the shared version).
inline void set_inplace_view_history(const Tensor& self, const std::shared_ptr<Node>& node) {
  set_history(self, node, 0);
  mark_view(self);
}

}  // namespace ember::autograd::detail
