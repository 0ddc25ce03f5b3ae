#pragma once
// The Python Tensor type. _C._TensorBase is written against the CPython API (the per-op hot path); the
// Python class ember.Tensor subclasses it and adds the pure-Python parts (repr, numpy interop).
#include "python_common.h"

namespace ember::python {

struct PyTensor {
  PyObject_HEAD
  Tensor t;
};

/// _C._TensorBase.
extern PyTypeObject TensorBaseType;
/// The class new tensors are created as (ember.Tensor once the Python package registered it).
PyTypeObject* tensor_class();
void set_tensor_class(PyTypeObject* cls);

inline bool is_tensor(PyObject* o) { return PyObject_TypeCheck(o, &TensorBaseType); }
inline const Tensor& unwrap(PyObject* o) { return reinterpret_cast<PyTensor*>(o)->t; }

/// A new reference to the Python object of t: the existing one if t's TensorImpl already has one (so object
/// identity is preserved, `x.add_(1) is x`), else a new ember.Tensor. An undefined t gives None.
PyObject* wrap(Tensor t);

/// A new object of type (_TensorBase or a subclass) around t, which becomes t's Python object; t must have
/// none yet (a fresh tensor or alias). Null with a Python error set when allocation fails.
PyObject* wrap_as(PyTypeObject* type, Tensor t);

/// Registers the type and the number/sequence/mapping protocols on module m.
void init_tensor(PyObject* m);

}  // namespace ember::python
