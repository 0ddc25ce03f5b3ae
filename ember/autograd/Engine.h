#pragma once
// The backward engine (Engine.cpp), as the autograd layer's entry points backward() and grad() (autograd.cpp)
// call it. Internal to the autograd layer: other layers use ember/autograd/autograd.h.
#include "ember/autograd/Node.h"

namespace ember::autograd::detail {

/// Runs the graph backwards from `roots`, seeded with grad_roots (ones for a scalar root whose entry is absent
/// or undefined), in the order of Note [engine order]. With `inputs` empty every reachable node runs and
/// AccumulateGrad nodes add into the leaves' .grad (backward()); otherwise only the nodes from which an input
/// can be reached run, AccumulateGrad nodes do not, and the gradients arriving at the inputs' edges are
/// returned, one per input (grad(), backward(inputs=)). keep_graph: do not free the saved tensors of the nodes
/// that ran. create_graph: run with grad mode on, so the gradients have history. allow_unused: an input no
/// gradient reaches gets an undefined gradient instead of an error. hooks_before_capture: tensor hooks run
/// before an input's gradient is captured (backward(inputs=)) rather than after (grad()); Note [tensor hooks].
/// Errors (RuntimeError): as autograd::backward and autograd::grad.
variable_list run_backward(const variable_list& roots, const variable_list& grad_roots, bool keep_graph,
                           bool create_graph, const variable_list& inputs, bool allow_unused,
                           bool hooks_before_capture = true);

/// Adds g into slot: slot becomes g when undefined; an undefined g changes nothing.
void accumulate_into(Tensor& slot, const Tensor& g);

}  // namespace ember::autograd::detail
