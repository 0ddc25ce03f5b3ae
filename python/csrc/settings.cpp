// ember._C's settings and statistics: ember.set_num_threads, ember.set_default_dtype, ember.promote_types,
// ember.memory_stats, ember.backends.<provider>.enabled, ember.set_printoptions, ...
#include "settings.h"

#include <pybind11/stl.h>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "dtype.h"
#include "ember/backends/onednn/OneDNN.h"
#include "ember/backends/openblas/OpenBLAS.h"
#include "ember/kernels/cpu/Provider.h"
#include "ember/kernels/cpu/isa/VecLoops.h"
#include "python_common.h"
#include "tensor.h"

namespace py = pybind11;

namespace ember::python {

namespace {
py::object dtype_obj(DType d) { return py::reinterpret_steal<py::object>(new_ref_dtype(d)); }
DType dtype_of(py::handle o) {
  DType d;
  if (!as_dtype(o.ptr(), &d)) throw py::type_error("expected an ember.dtype");
  return d;
}
}  // namespace

void init_settings(py::module_& m) {
  m.def("_set_flush_denormal", [](bool on) {
#if defined(__x86_64__)
        constexpr unsigned kFlushBits = 0x8040;  // MXCSR's flush-to-zero (bit 15) and denormals-are-zero (bit 6)
        const unsigned csr = _mm_getcsr();
        _mm_setcsr(on ? (csr | kFlushBits) : (csr & ~kFlushBits));
        return true;
#else
        (void)on;
        return false;
#endif
      }, py::arg("mode"), "Sets or clears the calling thread's FTZ and DAZ modes; whether the CPU has them.");
  m.def("set_num_threads", &ember::set_num_threads, py::arg("n"),
        "Sets the number of threads used by CPU kernels (and OpenBLAS). Raises RuntimeError for n < 1.");
  m.def("get_num_threads", &ember::get_num_threads, "Number of threads used by CPU kernels.");
  m.def("get_default_dtype", [] { return dtype_obj(default_dtype()); }, "The default floating dtype.");
  m.def("set_default_dtype", [](py::handle d) { set_default_dtype(dtype_of(d)); }, py::arg("d"),
        "Sets the default floating dtype (float32 or float64, ...). Raises TypeError for non-floating dtypes.");
  m.def("promote_types", [](py::handle a, py::handle b) { return dtype_obj(promote_types(dtype_of(a), dtype_of(b))); },
        "The dtype both a and b convert to (PyTorch's torch.promote_types).");
  m.def("can_cast", [](py::handle from, py::handle to) { return can_cast(dtype_of(from), dtype_of(to)); },
        py::arg("from_"), py::arg("to"), "Whether a value of dtype from_ may be written to dtype to by an op.");
  m.def("result_type", [](py::handle a, py::handle b) {
        ResultTypeState s;
        for (py::handle x : {a, b}) {
          if (is_tensor(x.ptr())) s.add(unwrap(x.ptr()));
          else if (PyBool_Check(x.ptr())) s.add(Scalar(x.ptr() == Py_True));
          else if (PyLong_Check(x.ptr())) s.add(Scalar(static_cast<int64_t>(PyLong_AsLongLong(x.ptr()))));
          else if (PyFloat_Check(x.ptr())) s.add(Scalar(PyFloat_AsDouble(x.ptr())));
          else throw py::type_error("result_type: expected tensors or numbers");
        }
        return dtype_obj(s.result());
      }, py::arg("tensor1"), py::arg("tensor2"), "The dtype an op on these operands computes in (torch.result_type).");
  m.def("memory_stats", [] {
        MemoryStats s = cpu_allocator::stats();
        py::dict d;
        d["allocated_bytes"] = s.allocated_bytes;
        d["peak_allocated_bytes"] = s.peak_allocated_bytes;
        d["cached_bytes"] = s.cached_bytes;
        d["num_allocs"] = s.num_allocs;
        d["num_cache_hits"] = s.num_cache_hits;
        d["num_os_allocs"] = s.num_os_allocs;
        return d;
      }, "Statistics of the caching CPU allocator (bytes and counts).");
  m.def("reset_peak_memory_stats", &cpu_allocator::reset_peak_stats);
  m.def("empty_cache", &cpu_allocator::empty_cache, "Returns every cached block to the OS.");
  m.def("set_caching_allocator_enabled", &cpu_allocator::set_caching_enabled, py::arg("enabled"),
        "Turns block caching on or off (off frees cached blocks; for leak checkers).");
  m.def("_cpu_capability", [] { return std::string(cpu::cpu_capability()); },
        "The instruction-set build in use: default, avx2 or avx512.");
  // Providers (Note [providers]): ember.backends.<name>.enabled reads and writes these.
  m.def("_providers", [] {
    py::dict d;
    for (cpu::Provider* p : cpu::providers()) d[py::str(p->name())] = p->enabled();
    return d;
  }, "Every provider of faster kernels and whether it is on: {'blas': True, ...}.");
  m.def("_get_provider_enabled", [](const std::string& name) { return cpu::provider_enabled(name); },
        py::arg("name"), "Whether the provider called name is on. Raises RuntimeError for an unknown name.");
  m.def(
      "_set_provider_enabled", [](const std::string& name, bool enabled) { cpu::set_provider_enabled(name, enabled); },
      py::arg("name"), py::arg("enabled"),
      "Switches the provider called name on or off. Raises RuntimeError for an unknown name.");
  m.def("_blas_config", &backends::blas::config,
        "OpenBLAS's build configuration, the core it chose and the path of the loaded library.");
  m.def("_onednn_config", &backends::onednn::config,
        "oneDNN's version, its CPU threading runtime and the path of the loaded library.");
  m.def("_set_printoptions", [](int precision, int64_t threshold, int64_t edgeitems, int64_t linewidth,
                                std::optional<bool> sci_mode) {
    PrintOptions& o = print_options();
    o.precision = precision;
    o.threshold = threshold;
    o.edgeitems = edgeitems;
    o.linewidth = linewidth;
    o.sci_mode = sci_mode;
  });
  m.def("_get_printoptions", [] {
    const PrintOptions& o = print_options();
    py::dict d;
    d["precision"] = o.precision;
    d["threshold"] = o.threshold;
    d["edgeitems"] = o.edgeitems;
    d["linewidth"] = o.linewidth;
    d["sci_mode"] = o.sci_mode ? py::object(py::bool_(*o.sci_mode)) : py::object(py::none());
    return d;
  });
}

}  // namespace ember::python
