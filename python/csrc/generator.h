#pragma once
// ember.Generator: a Python handle to an ember::Generator (PyTorch's torch.Generator for the CPU).
#include "python_common.h"

namespace ember::python {

struct PyGenerator {
  PyObject_HEAD
  Generator gen;
};

extern PyTypeObject GeneratorType;

inline bool is_generator(PyObject* o) { return PyObject_TypeCheck(o, &GeneratorType); }
inline const Generator& unwrap_generator(PyObject* o) { return reinterpret_cast<PyGenerator*>(o)->gen; }

/// Registers ember._C.Generator and ember._C.default_generator (the Python object of the process's default
/// generator) on module m.
void init_generator(PyObject* m);

}  // namespace ember::python
