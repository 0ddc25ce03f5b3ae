#pragma once
// Python indexing of tensors, as PyTorch's (Note [python indexing] in indexing.cpp): ints, slices, None,
// Ellipsis, bools, integer and bool tensors and lists, mixed in a tuple. The index is converted to the items
// of ember::indexing (ember/ops/TensorIndexing.h), whose get_item/set_item C++'s x.index({...}) uses too.
#include "python_common.h"

namespace ember::python {

PyObject* tensor_getitem(PyObject* self, PyObject* index);
int tensor_setitem(PyObject* self, PyObject* index, PyObject* value);

}  // namespace ember::python
