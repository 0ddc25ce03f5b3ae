#pragma once
// Ops whose kernels are Python functions (ember.library.custom_op), the IValue <-> Python conversions they
// need, and the op table's other Python entry points (op libraries, qualified op lookup, schemas).
#include <pybind11/pybind11.h>

#include "ember/dispatch/IValue.h"

namespace ember::python {

/// A Python object for an IValue: None, bool, int, float, str, Tensor (None when undefined), list (int and
/// Tensor lists too), tuple, dict. Errors: TypeError for kinds Python has no value for (generators, devices).
pybind11::object ivalue_to_python(const IValue& v);

/// Adds _C._define_op, _C._impl_python, _C._load_library, _C._loaded_libraries, _C._qualified_op and
/// _C._op_schemas.
void init_python_ops(pybind11::module_& m);

}  // namespace ember::python
