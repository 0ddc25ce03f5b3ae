#pragma once
// The autograd functions of ember._C (not per-op hot: pybind11): backward/grad entry points, grad mode,
// custom functions, inference and anomaly mode, gradcheck. Tensor's own autograd attributes are in
// tensor_autograd.cpp, grad_fn objects in python_node.cpp.
#include <pybind11/pybind11.h>

namespace ember::python {

void init_autograd(pybind11::module_& m);

}  // namespace ember::python
