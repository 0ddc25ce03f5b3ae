// ember._C's data loading helpers: the readers of ember/data that the Python datasets call.
#include "data.h"

#include "ember/data/Idx.h"
#include "python_common.h"
#include "tensor.h"

namespace py = pybind11;

namespace ember::python {

void init_data(py::module_& m) {
  m.def("_read_idx", [](const std::string& path) {
        Tensor t;
        {
          py::gil_scoped_release no_gil;  // decompressing takes a while; other threads may run
          t = data::read_idx(path);
        }
        return py::reinterpret_steal<py::object>(wrap(t));
      }, py::arg("path"), "Reads an IDX file (plain or gzip) into a tensor; see ember/data/Idx.h.");
}

}  // namespace ember::python
