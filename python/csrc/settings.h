#pragma once
// ember._C's process-wide settings and statistics (pybind11): threads, default dtype and promotion queries,
// the caching allocator, the instruction-set build, the providers of faster kernels, print options.
#include <pybind11/pybind11.h>

namespace ember::python {

void init_settings(pybind11::module_& m);

}  // namespace ember::python
