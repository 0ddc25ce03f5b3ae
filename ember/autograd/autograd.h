#pragma once
// The public autograd API for C++ users (the Python methods of Tensor map onto these one to one).
#include <optional>

#include "ember/autograd/AnomalyMode.h"
#include "ember/autograd/CustomFunction.h"
#include "ember/autograd/GradMode.h"
#include "ember/autograd/Gradcheck.h"
#include "ember/autograd/Node.h"

namespace ember::autograd {

/// Marks a tensor as a leaf that requires (or not) gradients. Errors: setting false on a non-leaf
/// ("you can only change requires_grad flags of leaf variables."); true on a non-floating dtype ("only
/// Tensors of floating point dtype can require gradients").
void set_requires_grad(const Tensor& t, bool requires_grad);
/// Whether t is a leaf: no grad_fn (tensors that do not require grad are leaves too).
bool is_leaf(const Tensor& t);
/// The node that produced t, or null for a leaf.
std::shared_ptr<Node> grad_fn(const Tensor& t);
/// Detaches t from the graph in place: no grad_fn, requires_grad False, its version unchanged (PyTorch's
/// Tensor.detach_). Errors: t is a view ("Can't detach views in-place. Use detach() instead...").
void detach_(const Tensor& t);
/// The accumulated gradient of a leaf (or of a non-leaf after retain_grad()); undefined when none.
Tensor grad(const Tensor& t);
/// Replaces t's .grad (an undefined tensor clears it). Errors: sizes or dtype differ from t's.
void set_grad(const Tensor& t, const Tensor& g);
/// Makes backward fill .grad of a non-leaf tensor as well. Errors: t does not require grad.
void retain_grad(const Tensor& t);
bool retains_grad(const Tensor& t);

/// The handle register_hook and register_prehook return: remove() unregisters the hook (a second remove()
/// does nothing).
class RemovableHandle {
 public:
  RemovableHandle() = default;
  explicit RemovableHandle(const std::shared_ptr<TensorPreHook>& hook);
  explicit RemovableHandle(const std::shared_ptr<NodePreHook>& hook);
  explicit RemovableHandle(const std::shared_ptr<NodePostHook>& hook);
  void remove();

 private:
  std::function<void()> remove_;
};

/// Registers `fn` on the gradient of t (PyTorch's Tensor.register_hook): fn sees the gradient of t and
/// may return a replacement of the same sizes and dtype (an undefined Tensor keeps it). On a leaf it runs
/// once per backward, on the summed gradient, before accumulation into .grad; on a non-leaf when the
/// gradient of t has been computed. `name` appears in its errors. See Note [tensor hooks].
/// Errors (RuntimeError): t does not require grad ("cannot register a hook on a tensor that doesn't
/// require gradient"); during backward, fn returning a gradient of other sizes or dtype.
RemovableHandle register_hook(const Tensor& t, GradHook fn, std::string name = "hook");

/// Registers `fn` to run on the gradients flowing into `node` before it runs (PyTorch's
/// Node::register_prehook; see NodePreHook). Removed hooks are dropped from the list here.
RemovableHandle register_prehook(Node& node, NodePreHook fn);
/// Registers `fn` to run on what `node` computed, before it flows on (Python grad_fn.register_hook; see
/// NodePostHook).
RemovableHandle register_hook(Node& node, NodePostHook fn);

/// Computes the gradients of `tensors` (each a scalar unless its entry of `grad_tensors` is given) with
/// respect to the leaves of the graph and adds them into their .grad (or only into `inputs` when given).
/// The graph's saved tensors are freed afterwards unless retain_graph (default: create_graph).
/// create_graph records the backward computation itself, for higher-order gradients.
/// Errors (RuntimeError): an element of tensors does not require grad; an implicit gradient for a non-scalar
/// ("grad can be implicitly created only for scalar outputs"); a second backward through freed parts of a
/// graph; a saved tensor modified in place.
void backward(const variable_list& tensors, const variable_list& grad_tensors = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
              const variable_list& inputs = {});

/// Returns d(outputs)/d(inputs) weighted by grad_outputs (each defaults to ones for a scalar output)
/// without touching any .grad. An input the outputs do not depend on raises unless allow_unused, in
/// which case its gradient is undefined. Errors as backward().
variable_list grad(const variable_list& outputs, const variable_list& inputs,
                   const variable_list& grad_outputs = {}, std::optional<bool> retain_graph = std::nullopt,
                   bool create_graph = false, bool allow_unused = false);

}  // namespace ember::autograd
