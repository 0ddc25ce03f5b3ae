#pragma once
// ember.jit's native part: the tracer's state and guard, graphs as Python objects (jit.cpp), and runtime
// modules and functions (jit_module.cpp, Note [python script modules]).
#include <pybind11/pybind11.h>

#include <functional>
#include <string>

#include "python_common.h"

namespace ember::python {

/// Registers the _C._jit_* functions and classes on m.
void init_jit(pybind11::module_& m);
/// Registers _C._JitModule, _C._JitFunction and _C._jit_load (jit_module.cpp); init_jit calls it.
void init_jit_module(pybind11::module_& m);
/// Registers _C._CompilationUnit and _C._ScriptFunctionImpl (jit_script.cpp: ember.jit.script's compiler).
void init_jit_script(pybind11::module_& m);

/// When the current thread is tracing, warns with ember.jit.TracerWarning that converting a tensor to a
/// Python `what` ("number", "boolean", "index", "list") makes the trace treat the value as a constant (the
/// warning points at the Python line that converted it). Throws python_error_already_set when the warning
/// filter turned the warning into an error.
void warn_tracer_conversion(const char* what);
/// Makes a tensor from Python data with make(); when tracing, make() runs with tracing paused (its contents
/// are written outside the dispatcher, so its ops would not reproduce them) and the result becomes a
/// constant of the trace, with a TracerWarning `warning` unless null (ember.tensor warns, a list used as an
/// index does not, as in PyTorch).
Tensor traced_constant(const std::function<Tensor()>& make, const char* warning);
/// The warning of ember.tensor under tracing (PyTorch's text).
extern const char* const kTensorConstantWarning;
/// When the current thread is tracing, warns with ember.jit.TracerWarning and `message` (same errors).
void warn_if_tracing(const char* message);

/// Whether the current thread is tracing (a thread-local read).
bool tracing_now();
/// While tracing: x.size(dim) as a traced 0-dim int64 tensor (Note [traced sizes] in
/// ember/jit/frontend/Tracer.h). Errors: dim out of range (IndexError).
Tensor traced_size(const Tensor& x, int64_t dim);
/// While tracing: argument `arg` (element `elem` of an int[], or -1) of the next call of op came from the
/// tensor t (the argument parser calls this for tensors given as ints; Note [traced sizes]).
void note_traced_int(const FunctionSchema& op, size_t arg, int64_t elem, const Tensor& t);

}  // namespace ember::python
