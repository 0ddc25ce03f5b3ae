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

/// The ember.utils.hooks.RemovableHandle of a registered hook (a new reference).
PyObject* make_removable_handle(autograd::RemovableHandle handle);

}  // namespace ember::python
