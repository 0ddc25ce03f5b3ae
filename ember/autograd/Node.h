#pragma once
// The autograd graph: nodes (one per recorded op, named like PyTorch's `MulBackward0`), edges to the nodes of
// the op's inputs, saved tensors and the per-tensor metadata that hangs in TensorImpl's opaque autograd slot.
//
// Note [autograd graph ownership]
// A tensor's AutogradMeta owns its grad_fn (shared_ptr); a node owns its next edges (shared_ptr), so a graph
// lives as long as some output tensor (or a running backward) refers to its root. A node never owns the
// tensors it produced: an output saved for backward is stored as a detached alias plus a weak reference to
// its node (SavedVariable), which breaks the output -> grad_fn -> saved output cycle. Leaves are reached
// through AccumulateGrad nodes, which hold the leaf tensor; a leaf's meta keeps only a weak_ptr to its
// AccumulateGrad so that every use of a leaf in one graph shares one node.
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ember/base/SmallVector.h"
#include "ember/core/Tensor.h"

namespace ember::autograd {

using variable_list = std::vector<Tensor>;

inline bool same_sizes(IntArrayRef a, IntArrayRef b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}
struct Node;

/// An edge to input `input_nr` of node `fn` (a null fn means: no gradient flows there).
struct Edge {
  std::shared_ptr<Node> fn;
  uint32_t input_nr = 0;
  bool valid() const { return fn != nullptr; }
};

/// Sizes and dtype of a differentiable input of a node: gradients are summed back to these sizes (undoing
/// broadcasting) and cast to this dtype before they flow on. See Note [gradient shape and dtype].
struct InputMeta {
  DimVector sizes;
  DType dtype = DType::Float32;
};

/// A tensor saved for backward with its version at save time (Note [saved variable versions]).
class SavedVariable {
 public:
  SavedVariable() = default;
  /// Saves `t`; `is_output` when t is an output of the node that saves it (stored without its meta to avoid
  /// a reference cycle, Note [autograd graph ownership]).
  SavedVariable(const Tensor& t, bool is_output);
  /// The saved tensor, with its autograd history when it has one. `owner` is the node holding this
  /// variable (used to restore an output's grad_fn). Errors: the graph was freed by a previous backward
  /// ("Trying to backward through the graph a second time..."); the tensor was modified in place since
  /// it was saved ("one of the variables needed for gradient computation has been modified by an inplace
  /// operation...").
  Tensor unpack(const std::shared_ptr<Node>& owner = nullptr) const;
  /// Frees the saved tensor (after backward without retain_graph).
  void reset();
  bool defined() const { return was_defined_; }

 private:
  Tensor data_;
  uint32_t saved_version_ = 0;
  uint32_t output_nr_ = 0;
  bool is_output_ = false;
  bool was_defined_ = false;
  bool is_leaf_ = false;
  bool requires_grad_ = false;
  std::weak_ptr<Node> grad_fn_weak_;
  std::string grad_fn_name_;  // for the error message
};

/// A hook on the gradient of a tensor (Tensor.register_hook): it sees the gradient and may return a
/// replacement of the same sizes and dtype; an undefined result keeps the gradient as it is.
using GradHook = std::function<Tensor(const Tensor&)>;

/// A registered GradHook (Note [tensor hooks]). remove() clears `fn`, so a removed hook is skipped.
struct TensorPreHook {
  GradHook fn;
  uint32_t output_nr = 0;      // which output of the node (which input of the backward) it watches
  std::string name = "hook";   // named in its errors
};
using TensorPreHookList = std::vector<std::shared_ptr<TensorPreHook>>;

/// A hook on a node (PyTorch's Node::register_prehook; Python `grad_fn.register_prehook`): sees the gradients
/// flowing into the node (one per output of the forward op, undefined where none flowed) after the tensor hooks
/// and before the node runs, and may replace them in place. An empty function is a removed hook.
using NodePreHook = std::function<void(variable_list& grad_outputs)>;
/// A hook run after a node (Python `grad_fn.register_hook`): sees what the node computed (grad_inputs, one
/// per next edge) and what it consumed (grad_outputs, after the pre-hooks), and may replace grad_inputs in
/// place before they flow on. An empty function is a removed hook.
using NodePostHook = std::function<void(variable_list& grad_inputs, const variable_list& grad_outputs)>;

/// Runs the live hooks of `hooks` on grads in registration order (each on grads[h.output_nr] when that
/// gradient is defined). Errors: a hook changed the gradient's sizes or dtype (RuntimeError naming it).
void call_tensor_pre_hooks(const TensorPreHookList& hooks, variable_list& grads);

/// One node of the graph: computes the gradients of its inputs from the gradients of its outputs.
struct Node : std::enable_shared_from_this<Node> {
  virtual ~Node() = default;
  /// PyTorch-style name, e.g. "AddBackward0".
  virtual std::string name() const = 0;
  /// grads[i] is the gradient of output i (undefined when none flowed there); returns one gradient per
  /// next edge (undefined where none is needed).
  virtual variable_list apply(variable_list&& grads) = 0;
  /// Frees the saved tensors (called after backward unless retain_graph).
  virtual void release_variables() {}
  /// Held by the engine while apply() or release_variables() runs (Note [concurrent backward]).
  std::mutex mutex;

  const std::vector<Edge>& next_edges() const { return next_edges_; }
  void add_next_edge(Edge e) { next_edges_.push_back(std::move(e)); }
  /// Whether the gradient of input i is needed.
  bool needs_input_grad(size_t i) const { return i < next_edges_.size() && next_edges_[i].valid(); }
  /// The number of outputs of the forward op (inputs of this node).
  uint32_t num_outputs = 1;
  /// Metadata of each differentiable input (parallel to next_edges()).
  std::vector<InputMeta> input_meta;
  /// Hooks of the non-leaf tensors this node produced (register_hook and retain_grad, in registration
  /// order); the engine runs them on the incoming gradients before apply(). See Note [tensor hooks].
  TensorPreHookList tensor_pre_hooks;
  /// Hooks on the node itself (register_prehook / register_hook in autograd.h), in registration order; the
  /// engine runs the pre-hooks after tensor_pre_hooks, the post-hooks after apply() (PyTorch 1.13's order).
  std::vector<std::shared_ptr<NodePreHook>> pre_hooks;
  std::vector<std::shared_ptr<NodePostHook>> post_hooks;
  /// Slots for the Python binding, never read by this layer (Note [grad_fn objects] in
  /// python/csrc/python_node.cpp): the Python object currently wrapping this node (borrowed, or null) and
  /// the state the binding keeps with the node (grad_fn.metadata), released with it.
  void* pyobj = nullptr;
  std::shared_ptr<void> py_state;
  /// In anomaly mode, where the forward op was called (Note [anomaly mode]); empty otherwise.
  std::string anomaly_trace;
  /// Creation order: the engine runs later nodes first among ready ones.
  uint64_t sequence_nr = 0;

 protected:
  std::vector<Edge> next_edges_;
};

/// The sink of a leaf tensor: adds the incoming gradient into the leaf's .grad.
struct AccumulateGrad final : Node {
  explicit AccumulateGrad(Tensor leaf) : variable(std::move(leaf)) {}
  std::string name() const override { return "AccumulateGrad"; }
  variable_list apply(variable_list&& grads) override;
  Tensor variable;
};

/// How a view came to be, for the errors PyTorch raises on in-place ops on it (Note [views and in-place]).
enum class ViewCreation : uint8_t { Default, NoGradMode };

/// The autograd metadata of a tensor (TensorImpl's opaque autograd slot).
struct AutogradMeta final : AutogradMetaInterface {
  bool requires_grad() const override { return requires_grad_ || grad_fn != nullptr; }
  bool requires_grad_ = false;    // set by the user on leaves
  std::shared_ptr<Node> grad_fn;  // null for leaves
  std::weak_ptr<Node> grad_accumulator;  // made and read under `mutex` (Note [concurrent backward])
  std::mutex mutex;
  uint32_t output_nr = 0;
  Tensor grad;                              // .grad of a leaf
  std::shared_ptr<Tensor> retained_grad;    // .grad of a non-leaf after retain_grad()
  TensorPreHookList hooks;                  // register_hook() on a leaf: run by its AccumulateGrad
  // A view whose grad_fn follows its base's history (Note [views and in-place]): grad_fn was set at version
  // attr_version and is regenerated from the base when the shared version counter has moved since.
  bool is_view = false;
  uint32_t attr_version = 0;
  ViewCreation creation = ViewCreation::Default;
};

/// The metadata of t, or null when t has none.
inline AutogradMeta* get_meta(const Tensor& t) {
  return t.defined() ? static_cast<AutogradMeta*>(t.impl()->autograd_meta()) : nullptr;
}
/// The metadata of t, created empty when absent.
AutogradMeta* materialize_meta(const Tensor& t);
/// Whether t takes part in autograd (a leaf with requires_grad or the output of a recorded op).
inline bool requires_grad(const Tensor& t) {
  AutogradMeta* m = get_meta(t);
  return m && m->requires_grad();
}
/// The edge a gradient for t flows along: its grad_fn, its leaf's AccumulateGrad, or none. For a view, its
/// grad_fn is first brought up to date with its base (refresh_view_grad_fn).
Edge gradient_edge(const Tensor& t);
/// For a view (Note [view base]) whose base requires grad: regenerates its grad_fn (AsStridedBackward0 from
/// the base's current history) when the version counter moved since it was set, or when the view has no
/// history yet. Returns t's metadata (null when it has none).
AutogradMeta* refresh_view_grad_fn(const Tensor& t);
/// Makes `node` the grad_fn of `out` (as output `output_nr`).
void set_history(const Tensor& out, const std::shared_ptr<Node>& node, uint32_t output_nr = 0);
/// Stamps a fresh sequence number on a node (creation order).
uint64_t next_sequence_nr();

}  // namespace ember::autograd
