// ember._C: the native module. The hot parts (Tensor type, op callables) use the CPython API directly; the
// rest is bound with pybind11. One file per area: tensor.cpp (the Tensor type) with tensor_autograd.cpp and
// indexing.cpp, python_node.cpp (grad_fn objects), op_binding.cpp (the op callables), autograd.cpp,
// settings.cpp, data.cpp, distributed.cpp, generator.cpp, jit*.cpp, serialization.cpp, python_ops.cpp (custom ops
// and the op table); this file translates errors and initialises them in order.
#include <pybind11/pybind11.h>

#include <cstring>

#include "autograd.h"
#include "data.h"
#include "distributed.h"
#include "dtype.h"
#include "generator.h"
#include "jit.h"
#include "op_binding.h"
#include "profiler.h"
#include "python_common.h"
#include "python_ops.h"
#include "serialization.h"
#include "settings.h"
#include "tensor.h"
#include "tensor_new.h"

namespace py = pybind11;

namespace ember::python {

void set_error_message(PyObject* type, const char* message) {
  PyObject* text = PyUnicode_DecodeUTF8(message, static_cast<Py_ssize_t>(std::strlen(message)), "backslashreplace");
  if (!text) return;  // out of memory: that error stays set
  PyErr_SetObject(type, text);
  Py_DECREF(text);
}

namespace {
// ember._C._LinAlgError (torch._C._LinAlgError): the type of ErrorKind::LinAlg, a RuntimeError subclass that
// ember.linalg exports as LinAlgError. Created when the module initialises.
PyObject* linalg_error_type = nullptr;
}  // namespace

void set_python_error(const std::exception& e) {
  if (const auto* ee = dynamic_cast<const Error*>(&e)) {
    PyObject* type = PyExc_RuntimeError;
    switch (ee->kind()) {
      case ErrorKind::Index: type = PyExc_IndexError; break;
      case ErrorKind::Type: type = PyExc_TypeError; break;
      case ErrorKind::Value: type = PyExc_ValueError; break;
      case ErrorKind::NotImplemented: type = PyExc_NotImplementedError; break;
      case ErrorKind::LinAlg: type = linalg_error_type ? linalg_error_type : PyExc_RuntimeError; break;
      case ErrorKind::Runtime: break;
    }
    set_error_message(type, ee->what());
  } else if (const auto* pe = dynamic_cast<const py::error_already_set*>(&e)) {
    // A Python exception raised inside a Python kernel (custom op) or hook: restore it as it was.
    const_cast<py::error_already_set*>(pe)->restore();
  } else if (const auto* be = dynamic_cast<const py::builtin_exception*>(&e)) {
    be->set_error();  // py::type_error and friends thrown by binding code under the dispatcher
  } else if (dynamic_cast<const std::bad_alloc*>(&e)) {
    PyErr_SetString(PyExc_MemoryError, e.what());
  } else if (!PyErr_Occurred()) {
    set_error_message(PyExc_RuntimeError, e.what());
  }
}

}  // namespace ember::python

PYBIND11_MODULE(_C, m) {
  using namespace ember;
  using namespace ember::python;
  m.doc() = "Ember's native module.";
  linalg_error_type = PyErr_NewExceptionWithDoc(
      "ember._C._LinAlgError",
      "Raised by ember.linalg functions for a singular or non-positive-definite input (a RuntimeError).",
      PyExc_RuntimeError, nullptr);
  if (!linalg_error_type) throw py::error_already_set();
  m.attr("_LinAlgError") = py::reinterpret_borrow<py::object>(linalg_error_type);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ember::Error& e) {
      set_python_error(e);
    } catch (const python_error_already_set&) {
    }
  });
  try {
    ember::init();
    init_dtypes(m.ptr());
    init_tensor(m.ptr());
    init_generator(m.ptr());
    py::dict functions, module_functions;
    init_ops(m.ptr(), functions.ptr(), module_functions.ptr());
    m.attr("_functions") = functions;
    // ember._C._nn (as torch._C._nn): the ops that Python reaches through ember.nn.functional.
    for (auto [mod, fns] : module_functions) {
      py::module_ sub = m.def_submodule(("_" + py::cast<std::string>(mod)).c_str());
      for (auto [name, fn] : py::cast<py::dict>(fns)) sub.attr(name) = fn;
    }
    init_tensor_new(m.ptr());
  } catch (const python_error_already_set&) {
    throw py::error_already_set();
  }

  init_autograd(m);
  init_jit(m);  // ember.jit: tracer, graphs, the Python executor
  init_serialization(m);
  init_python_ops(m);  // ember.library.custom_op, ember.ops
  init_settings(m);
  profiler::init_profiler(m);
  init_data(m);
  init_distributed(m);  // ember.distributed
}
