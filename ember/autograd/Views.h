#pragma once
// In-place ops on views: the base's CopySlices node and the view's regenerated AsStridedBackward0.
//
// Note [views and in-place]
// A view shares its base's memory, so an in-place op on the view changes the base too, and both histories
// must say so (PyTorch's CopySlices). Every view knows its base (Note [view base]). When an in-place op that
// autograd records writes a view, the op is recorded as usual as a node `fn` computing the view's new value
// from its old one (the out-of-place formula), and then:
//  - the base's grad_fn becomes CopySlices(fn): given the base's gradient, it hands fn the part that lies in
//    the view (base and view geometry are kept, as_strided finds the part), writes fn's gradient for the
//    view's old value back into that part, and passes the whole to the base's previous history; fn's other
//    inputs get fn's other gradients. Its next edges are the base's previous edge and fn's edges but self's.
//  - every view of that base is now stale: its grad_fn still leads to the base's old history. A view's
//    AutogradMeta records the version at which its grad_fn was set (attr_version); when the shared version
//    counter has moved since, gradient_edge() and grad_fn() regenerate it as AsStridedBackward0 from the
//    base's current history (as PyTorch does lazily). The view written in place gets its new node at once.
// A view made from a tensor without history has no AutogradMeta; it is refreshed the same way as soon as an
// op records it while its base requires grad (out = zeros(n); out[i] = f(x) makes out's grad_fn a chain of
// CopySlices). Unlike PyTorch, such a view does not report requires_grad=True by itself before it is used.
// Errors, as PyTorch: an in-place op on a view of a leaf that requires grad; on a view made in no_grad mode
// from a tensor that requires grad, modified with grad mode on; detach_() of a view.
#include "ember/autograd/Node.h"

namespace ember::autograd {

/// Sizes, strides and storage offset of a tensor.
struct TensorGeometry {
  DimVector sizes, strides;
  int64_t storage_offset = 0;
  TensorGeometry() = default;
  explicit TensorGeometry(const Tensor& t)
      : sizes(t.sizes().begin(), t.sizes().end()),
        strides(t.strides().begin(), t.strides().end()),
        storage_offset(t.storage_offset()) {}
};

/// The grad_fn of a view regenerated from its base: scatters the view's gradient into a zero gradient of the
/// base's geometry (summing where the view's elements overlap, as in expanded views).
struct AsStridedBackward0 final : Node {
  AsStridedBackward0(const Tensor& base, const Tensor& view) : base(base), view(view) {}
  std::string name() const override { return "AsStridedBackward0"; }
  variable_list apply(variable_list&& grads) override;
  TensorGeometry base, view;
};

/// The grad_fn of a base after an in-place op `fn` on one of its views (Note [views and in-place]).
struct CopySlices final : Node {
  /// self_index: the position of the view's old value among fn's inputs, or -1 when fn does not take it
  /// (copy_ and fill_ overwrite it, so no gradient flows to it).
  CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn, int self_index);
  std::string name() const override { return "CopySlices"; }
  variable_list apply(variable_list&& grads) override;
  void release_variables() override { fn->release_variables(); }
  TensorGeometry base, view;
  std::shared_ptr<Node> fn;
  int self_index;
};

/// After an in-place op on self recorded as fn (self being fn's input self_index, or -1): gives self fn's
/// history, or, when self is a view, its base a CopySlices node and self a fresh AsStridedBackward0.
void rebase_history(const Tensor& self, const std::shared_ptr<Node>& fn, int self_index);

/// Errors for an in-place op on self that autograd is about to record: a leaf that requires grad, a view
/// of one, or a view made in no_grad mode (Note [views and in-place]).
void check_inplace(const Tensor& self);

/// Marks the result of a view op recorded by autograd as a view following its base (Note [views and in-place]).
void mark_view(const Tensor& view);
/// Marks a view made in no_grad mode from a tensor that requires grad (in-place ops on it with grad mode on
/// raise, as PyTorch).
void mark_no_grad_view(const Tensor& view);

}  // namespace ember::autograd
