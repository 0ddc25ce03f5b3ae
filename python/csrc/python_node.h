#pragma once
// grad_fn objects: the nodes of the autograd graph as Python objects, one Python type per node name
// (AddBackward0, MulBackward0, AccumulateGrad, ...) as PyTorch's. See Note [grad_fn objects].
#include <memory>
#include <string>

#include "python_common.h"

namespace ember::python {

/// A new reference to the Python object of node, None for a null node: the object already wrapping it while
/// that lives (so `y.grad_fn is y.grad_fn`), else a new one of the node's type. A Python custom function's
/// node is its ctx object (ember/autograd/function.py), as PyTorch's.
PyObject* wrap_node(const std::shared_ptr<autograd::Node>& node);

/// The name a Python hook goes by in errors: its __name__, else "<unknown>" (PyTorch's hook_name).
std::string hook_name(PyObject* hook);

/// Registers the Python callable fn(grad_inputs, grad_outputs) to run after node's backward; a returned tuple
/// replaces grad_inputs (checked as PyTorch's check_result). Returns the RemovableHandle (a new reference), or
/// null with a Python error set.
PyObject* register_node_hook(autograd::Node& node, PyObject* fn);
/// Registers fn(grad_outputs) to run before node's backward; a returned tuple replaces grad_outputs.
PyObject* register_node_prehook(autograd::Node& node, PyObject* fn);

/// The ember.utils.hooks.RemovableHandle of a registered hook (a new reference).
PyObject* make_removable_handle(autograd::RemovableHandle handle);

}  // namespace ember::python
