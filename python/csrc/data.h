#pragma once
// ember._C's data loading helpers (pybind11) for ember.utils.data and ember.datasets.
#include <pybind11/pybind11.h>

namespace ember::python {

void init_data(pybind11::module_& m);

}  // namespace ember::python
