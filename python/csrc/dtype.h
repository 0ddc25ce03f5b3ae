#pragma once
// ember.dtype, ember.device and ember.memory_format objects.
#include "python_common.h"

namespace ember::python {

/// New reference to the singleton ember.dtype object of d.
PyObject* new_ref_dtype(DType d);
/// True when o is an ember.dtype; *out receives its value.
bool as_dtype(PyObject* o, DType* out);
/// A new ember.device object.
PyObject* make_device(Device d);
/// True when o is an ember.device or a device string; *out receives it. Errors in the string raise.
bool as_device(PyObject* o, Device* out);
/// True when o is an ember.memory_format; *out receives it.
bool as_memory_format(PyObject* o, MemoryFormat* out);

void init_dtypes(PyObject* m);

}  // namespace ember::python
