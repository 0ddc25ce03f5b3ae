#pragma once
// ember._C._save and ember._C._load (ember.save / ember.load): Python objects <-> the IValue trees that
// ember/serialize writes and reads.
#include <pybind11/pybind11.h>

#include "python_common.h"

namespace ember::python {

/// Registers _save and _load on m.
void init_serialization(pybind11::module_& m);

}  // namespace ember::python
