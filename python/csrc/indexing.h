#pragma once
// Python indexing of tensors, as PyTorch's (Note [python indexing] in indexing.cpp): ints, slices, None,
// Ellipsis, bools, integer and bool tensors and lists, mixed in a tuple. Basic indexing returns views;
// advanced indexing (tensors, lists, bools) returns copies through aten::index, and assignment through it
// is aten::index_put_.
#include "python_common.h"

namespace ember::python {

PyObject* tensor_getitem(PyObject* self, PyObject* index);
int tensor_setitem(PyObject* self, PyObject* index, PyObject* value);

}  // namespace ember::python
