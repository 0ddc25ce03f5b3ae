#pragma once
// Making tensors from Python data: ember.tensor(data), ember.from_numpy(array) and the legacy
// ember.Tensor(...) constructor.
#include "python_common.h"

namespace ember::python {

/// ember.Tensor(*sizes) / ember.Tensor(sequence) / ember.Tensor(): float tensors of the default dtype.
Tensor legacy_tensor_new(PyObject* args, PyObject* kwargs);

void init_tensor_new(PyObject* m);

}  // namespace ember::python
