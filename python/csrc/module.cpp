// ember._C: the native module. The hot parts (Tensor type, op callables) use the CPython API directly; the
// rest (settings, statistics) is bound with pybind11.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "dtype.h"
#include "ember/autograd/autograd.h"
#include "ember/backends/onednn/OneDNN.h"
#include "ember/backends/openblas/OpenBLAS.h"
#include "ember/data/Idx.h"
#include "ember/dispatch/LoadLibrary.h"
#include "ember/kernels/cpu/Provider.h"
#include "ember/kernels/cpu/isa/VecLoops.h"
#include "generator.h"
#include "jit.h"
#include "op_binding.h"
#include "python_ops.h"
#include "python_common.h"
#include "serialization.h"
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
  } else if (const auto* pe = dynamic_cast<const py::error_already_set*>(&e)) {
    // A Python exception raised inside a Python kernel (custom op) or hook: restore it as it was.
    const_cast<py::error_already_set*>(pe)->restore();
  } else if (const auto* be = dynamic_cast<const py::builtin_exception*>(&e)) {
    be->set_error();  // py::type_error and friends thrown by binding code under the dispatcher
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

namespace {
// A Python object kept by C++ (a hook, a custom function's ctx): released with the GIL held, whichever
// thread drops the last reference.
std::shared_ptr<PyObject> keep_py(py::handle o) {
  return std::shared_ptr<PyObject>(o.inc_ref().ptr(), [](PyObject* p) {
    py::gil_scoped_acquire gil;
    Py_DECREF(p);
  });
}

py::object tensor_or_none(const Tensor& t) {
  if (!t.defined()) return py::none();
  return py::reinterpret_steal<py::object>(wrap(t));
}

// The guard behind ember.inference_mode (entered and left from Python's __enter__/__exit__).
struct PyInferenceMode {
  std::unique_ptr<ember::autograd::InferenceMode> guard;
};

// ember.autograd.Function, hooks, inference mode, anomaly mode, gradcheck (Note [custom functions],
// Note [tensor hooks], Note [inference tensors], Note [anomaly mode], Note [gradcheck]).
void init_autograd_extensions(py::module_& m) {
  namespace ag = ember::autograd;
  auto T = [](py::handle h) -> const Tensor& {
    if (!is_tensor(h.ptr())) throw py::type_error("expected a Tensor");
    return unwrap(h.ptr());
  };
  auto list = [T](py::handle seq) {
    ag::variable_list v;
    if (seq.is_none()) return v;
    for (py::handle h : seq) v.push_back(h.is_none() ? Tensor() : T(h));
    return v;
  };
  auto to_py_list = [](const ag::variable_list& v) {
    py::list out;
    for (const Tensor& t : v) out.append(tensor_or_none(t));
    return out;
  };

  // ---- hooks
  py::class_<ag::RemovableHandle>(m, "_RemovableHandle", "Unregisters a hook: remove().")
      .def("remove", &ag::RemovableHandle::remove);
  m.def("_register_hook", [T](py::handle t, py::function fn) {
    std::string name = py::hasattr(fn, "__name__") ? py::str(fn.attr("__name__")).cast<std::string>() : "hook";
    std::shared_ptr<PyObject> f = keep_py(fn);
    ag::GradHook hook = [f](const Tensor& g) -> Tensor {
      py::gil_scoped_acquire gil;
      py::object r = py::reinterpret_borrow<py::object>(f.get())(tensor_or_none(g));
      if (r.is_none()) return Tensor();
      if (!is_tensor(r.ptr()))
        throw py::type_error("expected Variable, but hook returned '" +
                             std::string(Py_TYPE(r.ptr())->tp_name) + "'");
      return unwrap(r.ptr());
    };
    return ag::register_hook(T(t), std::move(hook), name);
  });

  // ---- custom functions: ember/autograd/function.py drives these
  py::class_<ag::FunctionNode, ag::Node, std::shared_ptr<ag::FunctionNode>>(m, "_FunctionNode");
  struct WeakFunctionNode {
    std::weak_ptr<ag::FunctionNode> node;
    std::shared_ptr<ag::FunctionNode> lock() const {
      auto n = node.lock();
      if (!n) throw py::value_error("the graph of this custom function has been freed");
      return n;
    }
  };
  py::class_<WeakFunctionNode>(m, "_WeakFunctionNode")
      .def("saved_tensors", [to_py_list](const WeakFunctionNode& w) {
        return py::tuple(to_py_list(w.lock()->ctx.get_saved_variables()));
      })
      .def("next_functions", [](const WeakFunctionNode& w) {
        py::list out;
        for (const ag::Edge& e : w.lock()->next_edges())
          out.append(py::make_tuple(e.fn ? py::cast(e.fn) : py::none(), e.input_nr));
        return py::tuple(out);
      });
  // Makes the node of one call of a Python custom function (ctx: its ctx object, which backward is called
  // on and which the node keeps alive) and adds the tensor inputs when the call is recorded.
  m.def("_function_node", [list](py::handle ctx, std::string name, std::vector<bool> is_tensor_arg,
                                 py::handle tensor_inputs) {
    PyObject* raw = ctx.ptr();  // kept alive by the node's payload
    auto node = std::make_shared<ag::FunctionNode>(
        std::move(name), std::move(is_tensor_arg), [raw](ag::AutogradContext*, ag::variable_list grads) {
          py::gil_scoped_acquire gil;
          py::tuple args(grads.size());
          for (size_t i = 0; i < grads.size(); ++i) args[i] = tensor_or_none(grads[i]);
          py::object r = py::handle(raw).attr("_do_backward")(args);
          ag::variable_list out;
          for (py::handle h : r) out.push_back(h.is_none() ? Tensor() : unwrap(h.ptr()));
          return out;
        });
    node->payload = keep_py(ctx);
    bool recorded = ag::prepare_function_inputs(*node, list(tensor_inputs));
    return py::make_tuple(node, WeakFunctionNode{node}, recorded);
  });
  // Wires the tensor outputs of forward (Note [custom functions]); returns what apply returns for them.
  m.def("_function_wrap", [list, to_py_list](std::shared_ptr<ag::FunctionNode> node, py::handle tensor_inputs,
                                             py::handle outputs, py::handle to_save, py::handle dirty,
                                             py::handle non_differentiable, bool materialize_grads) {
    node->ctx.save_for_backward(list(to_save));
    node->ctx.mark_dirty(list(dirty));
    node->ctx.mark_non_differentiable(list(non_differentiable));
    node->ctx.set_materialize_grads(materialize_grads);
    ag::variable_list outs = list(outputs);
    ag::wrap_function_outputs(node, list(tensor_inputs), outs);
    return to_py_list(outs);
  });
  m.def("_delayed_error", [list, to_py_list](const std::string& msg, py::handle inputs, py::handle outputs) {
    return to_py_list(ag::delayed_error(msg, list(inputs), list(outputs)));
  });

  // ---- inference mode
  py::class_<PyInferenceMode>(m, "_InferenceMode")
      .def(py::init([](bool mode) { return PyInferenceMode{std::make_unique<ag::InferenceMode>(mode)}; }))
      .def("close", [](PyInferenceMode& g) { g.guard.reset(); });
  m.def("is_inference_mode_enabled", &ag::InferenceMode::is_enabled, "Whether inference mode is on in this thread.");
  m.def("_is_inference", [T](py::handle t) { return T(t).is_inference(); });

  // ---- anomaly mode
  m.def("is_anomaly_enabled", &ag::AnomalyMode::is_enabled, "Whether anomaly detection is on.");
  m.def("is_anomaly_check_nan_enabled", &ag::AnomalyMode::should_check_nan,
        "Whether anomaly detection checks backward outputs for NaN.");
  m.def("_set_anomaly_enabled", [](bool enabled, bool check_nan) { ag::AnomalyMode::set_enabled(enabled, check_nan); },
        py::arg("enabled"), py::arg("check_nan") = true);
  ag::AnomalyMode::set_trace_provider([]() -> std::string {
    py::gil_scoped_acquire gil;
    try {
      py::list frames = py::module_::import("traceback").attr("format_stack")();
      std::string r;
      for (py::handle f : frames) r += f.cast<std::string>();
      return r;
    } catch (py::error_already_set&) {
      return std::string();
    }
  });
  ag::AnomalyMode::set_warning_handler([](const std::string& msg) {
    py::gil_scoped_acquire gil;
    if (PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 1) < 0) PyErr_Clear();
  });

  // ---- gradcheck: fn takes and returns lists of tensors (ember/autograd/gradcheck.py adapts the user's)
  auto as_fn = [list](py::function fn) -> ag::GradcheckFunction {
    return [fn, list](const ag::variable_list& xs) {
      py::list args;
      for (const Tensor& x : xs) args.append(tensor_or_none(x));
      return list(fn(args));
    };
  };
  auto result = [](const ag::GradcheckResult& r) { return py::make_tuple(r.ok, r.message); };
  m.def("_gradcheck", [list, as_fn, result](py::function fn, py::handle inputs, double eps, double atol, double rtol,
                                            double nondet_tol) {
    return result(ag::gradcheck(as_fn(fn), list(inputs), {eps, atol, rtol, nondet_tol}));
  });
  m.def("_gradgradcheck", [list, as_fn, result](py::function fn, py::handle inputs, py::handle grad_outputs,
                                                double eps, double atol, double rtol, double nondet_tol) {
    return result(ag::gradgradcheck(as_fn(fn), list(inputs), list(grad_outputs), {eps, atol, rtol, nondet_tol}));
  });
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
  m.def("_grad_fn", [T](py::handle t) -> py::object {
    std::shared_ptr<ag::Node> n = ag::grad_fn(T(t));
    if (!n) return py::none();
    // A Python custom function's node is represented by its ctx object (as PyTorch's).
    if (auto* f = dynamic_cast<ag::FunctionNode*>(n.get()); f && f->payload)
      return py::reinterpret_borrow<py::object>(static_cast<PyObject*>(f->payload.get()));
    return py::cast(n);
  });
  m.def("_grad", [T, wrap_opt](py::handle t) { return wrap_opt(ag::grad(T(t))); });
  m.def("_set_grad", [T](py::handle t, py::handle g) { ag::set_grad(T(t), g.is_none() ? Tensor() : T(g)); });
  m.def("_retain_grad", [T](py::handle t) { ag::retain_grad(T(t)); });
  m.def("_retains_grad", [T](py::handle t) { return ag::retains_grad(T(t)); });
  // Tensor._make_subclass, as PyTorch's: a new object of the Tensor subclass cls (ember.nn.Parameter) around a
  // detached alias of data (same storage and version counter, a TensorImpl of its own so that the object is
  // its Python object), with requires_grad set.
  m.def("_make_subclass", [T](py::handle cls, py::handle data, bool requires_grad) {
    if (!PyType_Check(cls.ptr()) ||
        !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls.ptr()), &TensorBaseType))
      throw py::type_error("_make_subclass: cls must be a subclass of Tensor");
    Tensor t = T(data).detach();
    ag::set_requires_grad(t, requires_grad);
    auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
    PyObject* o = type->tp_alloc(type, 0);
    if (!o) throw py::error_already_set();
    new (&reinterpret_cast<PyTensor*>(o)->t) Tensor(std::move(t));
    reinterpret_cast<PyTensor*>(o)->t.impl()->set_pyobj(o);
    return py::reinterpret_steal<py::object>(o);
  });
  // Tensor.data = data, as PyTorch's set_data: the object self takes a detached alias of data (its storage,
  // dtype and geometry) as its tensor; a leaf's requires_grad stays, and its grad moves over when it still fits
  // (same sizes and dtype), else it is dropped (Ember's grads always match their tensor). Module._apply uses it
  // so that .double() keeps the identity of the Parameter objects.
  m.def("_set_data", [T](py::handle self, py::handle data) {
    PyTensor* p = reinterpret_cast<PyTensor*>(self.ptr());
    T(self);
    if (!ag::is_leaf(p->t)) throw py::value_error("data can only be assigned to a leaf tensor in Ember");
    Tensor n = T(data).detach();
    const bool requires_grad = ag::requires_grad(p->t);
    Tensor g = ag::grad(p->t);
    if (requires_grad) ag::set_requires_grad(n, true);
    if (g.defined() && g.dtype() == n.dtype() && ag::same_sizes(g.sizes(), n.sizes())) ag::set_grad(n, g);
    if (p->t.impl()->pyobj() == self.ptr()) p->t.impl()->set_pyobj(nullptr);
    p->t = std::move(n);
    p->t.impl()->set_pyobj(self.ptr());
  });
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
  init_autograd_extensions(m);
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
  init_jit(m);  // ember.jit: tracer, graphs, the Python executor
  init_serialization(m);
  init_python_ops(m);  // ember.library.custom_op
  m.def("_load_library", [](const std::string& path) {
        try {
          ember::load_library(path);
        } catch (const ember::LibraryLoadError& e) {
          PyErr_SetString(PyExc_OSError, e.what());  // as torch.ops.load_library (ctypes) raises
          throw py::error_already_set();
        }
      }, py::arg("path"), "Loads a shared library of ops (ember::load_library); OSError when the OS cannot load it.");
  m.def("_loaded_libraries", &ember::loaded_libraries, "The op libraries loaded so far, in order.");
  m.def(
      "_qualified_op",
      [](const std::string& name) { return py::reinterpret_steal<py::object>(make_qualified_op(name)); },
      py::arg("name"), "The op object of every overload of 'ns::op', or None when no such op is defined.");
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
  m.def("_read_idx", [](const std::string& path) {
        Tensor t;
        {
          py::gil_scoped_release no_gil;  // decompressing takes a while; other threads may run
          t = data::read_idx(path);
        }
        return tensor_or_none(t);
      }, py::arg("path"), "Reads an IDX file (plain or gzip) into a tensor; see ember/data/Idx.h.");
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
  m.def("_op_schemas", [] {
    std::vector<std::string> r;
    for (const auto& h : Dispatcher::singleton().all_ops()) r.push_back(h.schema().str());
    return r;
  }, "The schema of every registered op.");
}
