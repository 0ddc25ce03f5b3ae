#pragma once
// Making tensors from Python data: ember.tensor(data), ember.from_numpy(array) and the legacy
// ember.Tensor(...) constructor.
#include "python_common.h"

namespace ember::python {

/// ember.Tensor(*sizes) / ember.Tensor(sequence) / ember.Tensor(): float tensors of the default dtype.
Tensor legacy_tensor_new(PyObject* args, PyObject* kwargs);

/// Nested sequences of numbers (or a number, a tensor or a NumPy array) as a new tensor. dtype: inferred
/// (bool, int64 or the default float dtype) unless given. Errors: ragged nesting (ValueError), items that are
/// not numbers (TypeError).
Tensor tensor_from_data(PyObject* data, std::optional<DType> dtype);

void init_tensor_new(PyObject* m);

}  // namespace ember::python
