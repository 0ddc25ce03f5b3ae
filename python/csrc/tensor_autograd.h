#pragma once
// The autograd attributes and methods of _C._TensorBase (requires_grad, grad, grad_fn, data, backward, ...).
#include "python_common.h"

namespace ember::python {

/// Null-terminated tables that tensor.cpp adds to _TensorBase's own before the type is readied.
extern PyGetSetDef tensor_autograd_getset[];
extern PyMethodDef tensor_autograd_methods[];

}  // namespace ember::python
