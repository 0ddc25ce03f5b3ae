// ember._C: the native module. The hot parts (Tensor type, op callables) use the CPython API directly; the
// rest (settings, statistics) is bound with pybind11.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "dtype.h"
#include "ember/autograd/autograd.h"
#include "ember/backends/openblas/OpenBLAS.h"
#include "ember/kernels/cpu/Provider.h"
#include "ember/kernels/cpu/isa/VecLoops.h"
#include "generator.h"
#include "op_binding.h"
#include "python_common.h"
#include "tensor.h"
#include "tensor_new.h"

namespace py = pybind11;

namespace ember::python {

void set_python_error(const std::exception& e) {
  if (const auto* ee = dynamic_cast<const Error*>(&e)) {
    PyObject* type = PyExc_RuntimeError;
    switch (ee->kind()) {
      case ErrorKind::Index: type = PyExc_IndexError; break;
      case ErrorKind::Type: type = PyExc_TypeError; break;
      case ErrorKind::Value: type = PyExc_ValueError; break;
      case ErrorKind::NotImplemented: type = PyExc_NotImplementedError; break;
      case ErrorKind::Runtime: break;
    }
    PyErr_SetString(type, ee->what());
  } else if (dynamic_cast<const std::bad_alloc*>(&e)) {
    PyErr_SetString(PyExc_MemoryError, e.what());
  } else if (!PyErr_Occurred()) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
}

namespace {
py::object dtype_obj(DType d) { return py::reinterpret_steal<py::object>(new_ref_dtype(d)); }
DType dtype_of(py::handle o) {
  DType d;
  if (!as_dtype(o.ptr(), &d)) throw py::type_error("expected an ember.dtype");
  return d;
}
}  // namespace

// The autograd API for ember/_tensor.py and ember/autograd (not per-op hot: pybind11).
void init_autograd(py::module_& m) {
  namespace ag = ember::autograd;
  auto T = [](py::handle h) -> const Tensor& {
    if (!is_tensor(h.ptr())) throw py::type_error("expected a Tensor");
    return unwrap(h.ptr());
  };
  auto wrap_opt = [](Tensor t) -> py::object {
    if (!t.defined()) return py::none();
    return py::reinterpret_steal<py::object>(wrap(std::move(t)));
  };
  auto list = [T](py::handle seq) {
    ag::variable_list v;
    if (seq.is_none()) return v;
    for (py::handle h : seq) v.push_back(h.is_none() ? Tensor() : T(h));
    return v;
  };
  py::class_<ag::Node, std::shared_ptr<ag::Node>>(m, "_Node", "A node of the autograd graph (Tensor.grad_fn).")
      .def("name", &ag::Node::name)
      .def_property_readonly("next_functions", [](const ag::Node& n) {
        py::list out;
        for (const ag::Edge& e : n.next_edges())
          out.append(py::make_tuple(e.fn ? py::cast(e.fn) : py::none(), e.input_nr));
        return py::tuple(out);
      })
      .def_property_readonly("variable", [wrap_opt](const ag::Node& n) -> py::object {
        if (auto* a = dynamic_cast<const ag::AccumulateGrad*>(&n)) return wrap_opt(a->variable);
        throw py::attribute_error("'" + n.name() + "' object has no attribute 'variable'");
      })
      .def("__repr__", [](const ag::Node& n) { return "<" + n.name() + " object>"; });
  m.def("_requires_grad", [T](py::handle t) { return ag::requires_grad(T(t)); });
  m.def("_set_requires_grad", [T](py::handle t, bool r) { ag::set_requires_grad(T(t), r); });
  m.def("_is_leaf", [T](py::handle t) { return ag::is_leaf(T(t)); });
  m.def("_grad_fn", [T](py::handle t) { return ag::grad_fn(T(t)); });
  m.def("_grad", [T, wrap_opt](py::handle t) { return wrap_opt(ag::grad(T(t))); });
  m.def("_set_grad", [T](py::handle t, py::handle g) { ag::set_grad(T(t), g.is_none() ? Tensor() : T(g)); });
  m.def("_retain_grad", [T](py::handle t) { ag::retain_grad(T(t)); });
  m.def("_retains_grad", [T](py::handle t) { return ag::retains_grad(T(t)); });
  m.def("_view_base", [T, wrap_opt](py::handle t) { return wrap_opt(T(t)._base()); });
  m.def("_detach_", [T](py::handle t) { ag::detach_(T(t)); });
  m.def("_backward", [list](py::handle tensors, py::handle grads, std::optional<bool> retain_graph, bool create_graph,
                            py::handle inputs) {
    ag::backward(list(tensors), list(grads), retain_graph, create_graph, list(inputs));
  });
  m.def("_grad_of", [list, wrap_opt](py::handle outputs, py::handle inputs, py::handle grads,
                                     std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
    ag::variable_list r = ag::grad(list(outputs), list(inputs), list(grads), retain_graph, create_graph, allow_unused);
    py::list out;
    for (Tensor& t : r) out.append(wrap_opt(std::move(t)));
    return py::tuple(out);
  });
  m.def("is_grad_enabled", &ag::GradMode::is_enabled, "Whether autograd records operations on this thread.");
  m.def("_set_grad_enabled", &ag::GradMode::set_enabled);
}

}  // namespace ember::python

PYBIND11_MODULE(_C, m) {
  using namespace ember;
  using namespace ember::python;
  m.doc() = "Ember's native module.";
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
  m.def("_set_provider_enabled", [](const std::string& name, bool enabled) { cpu::set_provider_enabled(name, enabled); },
        py::arg("name"), py::arg("enabled"),
        "Switches the provider called name on or off. Raises RuntimeError for an unknown name.");
  m.def("_blas_config", &backends::blas::config,
        "OpenBLAS's build configuration, the core it chose and the path of the loaded library.");
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
  m.def("_op_schemas", [] {
    std::vector<std::string> r;
    for (const auto& h : Dispatcher::singleton().all_ops()) r.push_back(h.schema().str());
    return r;
  }, "The schema of every registered op.");
}
