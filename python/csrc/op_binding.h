#pragma once
// Op callables: one Python object per op name ("add" covers add.Tensor and add.out), built from the operator
// table at import, used as module functions (ember.add) and as Tensor methods (x.add). Calls go through
// vectorcall and the generic parser (Note [python argument parsing]).
#include <string>

#include "python_common.h"

namespace ember::python {

/// Creates the op objects: module functions in `functions` (a dict), the functions of ops with a
/// python_module in `module_functions` (a dict: module name -> dict of functions) and methods on _TensorBase.
void init_ops(PyObject* m, PyObject* functions, PyObject* module_functions);

/// The op object for `name` (a function, or an in-place method such as add_), borrowed; null if absent.
/// Look it up once and keep it: this is a string search.
PyObject* find_op(const char* name);

/// Calls op (from find_op) with positional args; returns NotImplemented (new ref) when no overload accepts the
/// argument types (so Python tries the reflected operator), raises on other errors.
PyObject* call_op_or_notimplemented(PyObject* op, PyObject* const* args, Py_ssize_t nargs);

/// A new op object for every overload of the qualified name "ns::op" (ember.ops.<ns>.<op>), or a new
/// reference to None when no such op is defined (yet: a library may define it later).
PyObject* make_qualified_op(const std::string& qualified_name);

}  // namespace ember::python
