#pragma once
// Python indexing of tensors: x[i], x[a:b:c], x[None], x[...], and tuples of them (basic indexing, which
// returns views), plus assignment through them.
#include "python_common.h"

namespace ember::python {

PyObject* tensor_getitem(PyObject* self, PyObject* index);
int tensor_setitem(PyObject* self, PyObject* index, PyObject* value);

}  // namespace ember::python
