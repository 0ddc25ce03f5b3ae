#pragma once
// Ops whose kernels are Python functions (ember.library.custom_op), and the IValue <-> Python conversions
// they need.
#include <pybind11/pybind11.h>

#include "ember/dispatch/IValue.h"
#include "ember/dispatch/Schema.h"

namespace ember::python {

/// A Python object for an IValue: None, bool, int, float, str, Tensor (None when undefined), list (int and
/// Tensor lists too), tuple, dict. Errors: TypeError for kinds Python has no value for (generators, devices).
pybind11::object ivalue_to_python(const IValue& v);

/// The IValue for a Python value returned as schema type `t` by a Python kernel of op `op`. Errors: TypeError
/// naming the op and the expected type.
IValue python_to_ivalue(pybind11::handle o, const SchemaType& t, const std::string& op);

/// Adds _C._define_op and _C._impl_python.
void init_python_ops(pybind11::module_& m);

}  // namespace ember::python
