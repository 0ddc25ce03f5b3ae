#pragma once
// ember._C._distributed_c10d (torch._C._distributed_c10d): the stores, Work and ProcessGroupGloo of
// ember/distributed for the Python package ember.distributed.
#include <pybind11/pybind11.h>

namespace ember::python {

void init_distributed(pybind11::module_& m);

}  // namespace ember::python
