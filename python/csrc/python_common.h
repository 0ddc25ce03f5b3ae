#pragma once
// Shared by the binding's files: Python.h first, error translation, small helpers.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstring>
#include <memory>
#include <string>

#include "ember/api/ember.h"

namespace ember::python {

/// Sets the Python exception matching an ember::Error's kind (RuntimeError, IndexError, TypeError,
/// ValueError, NotImplementedError) or a C++ exception's type.
void set_python_error(const std::exception& e);
/// PyErr_SetString for a message that may hold bytes that are not UTF-8 (an error quoting a corrupt file's bytes):
/// those are kept as \xNN escapes, where PyErr_SetString would lose the whole message.
void set_error_message(PyObject* type, const char* message);

/// A zeroed static type object with reference count 1, for the types defined with the C API.
inline PyTypeObject new_type_object() {
  PyTypeObject t;
  std::memset(static_cast<void*>(&t), 0, sizeof(t));
  Py_SET_REFCNT(reinterpret_cast<PyObject*>(&t), 1);
  return t;
}

/// A strong reference to o kept by C++ (a hook, a custom function's ctx, a node's metadata): released with
/// the GIL held, whichever thread drops the last reference.
inline std::shared_ptr<PyObject> keep_py(PyObject* o) {
  Py_INCREF(o);
  return std::shared_ptr<PyObject>(o, [](PyObject* p) {
    PyGILState_STATE s = PyGILState_Ensure();
    Py_DECREF(p);
    PyGILState_Release(s);
  });
}

/// Thrown by binding code after a Python error is already set (propagate as NULL).
struct python_error_already_set {};

}  // namespace ember::python

// Wraps a binding entry point: C++ exceptions become Python exceptions; `retval` is returned on error.
#define EMBER_PY_TRY try {
#define EMBER_PY_CATCH(retval)                            \
  }                                                       \
  catch (const ::ember::python::python_error_already_set&) { \
    return retval;                                        \
  }                                                       \
  catch (const std::exception& e) {                       \
    ::ember::python::set_python_error(e);                 \
    return retval;                                        \
  }
