// ember._C's autograd functions for ember/autograd (backward, grad, grad mode, custom functions, inference
// and anomaly mode, gradcheck), bound with pybind11.
#include "autograd.h"

#include <pybind11/stl.h>

#include "ember/autograd/autograd.h"
#include "python_common.h"
#include "python_node.h"
#include "tensor.h"

namespace py = pybind11;

namespace ember::python {

namespace {
namespace ag = ember::autograd;

py::object tensor_or_none(const Tensor& t) {
  if (!t.defined()) return py::none();
  return py::reinterpret_steal<py::object>(wrap(t));
}

const Tensor& as_tensor(py::handle h) {
  if (!is_tensor(h.ptr())) throw py::type_error("expected a Tensor");
  return unwrap(h.ptr());
}

// A sequence of tensors (None entries are undefined tensors); None is the empty list.
ag::variable_list as_list(py::handle seq) {
  ag::variable_list v;
  if (seq.is_none()) return v;
  for (py::handle h : seq) v.push_back(h.is_none() ? Tensor() : as_tensor(h));
  return v;
}

py::list to_py_list(const ag::variable_list& v) {
  py::list out;
  for (const Tensor& t : v) out.append(tensor_or_none(t));
  return out;
}

py::tuple next_functions(const ag::Node& n) {
  py::list out;
  for (const ag::Edge& e : n.next_edges())
    out.append(py::make_tuple(py::reinterpret_steal<py::object>(wrap_node(e.fn)), e.input_nr));
  return py::tuple(out);
}

// The guard behind ember.inference_mode (entered and left from Python's __enter__/__exit__).
struct PyInferenceMode {
  std::unique_ptr<ag::InferenceMode> guard;
};

// ---- custom functions: ember/autograd/function.py drives these (Note [custom functions])
void init_custom_functions(py::module_& m) {
  py::class_<ag::FunctionNode, std::shared_ptr<ag::FunctionNode>>(m, "_FunctionNode");
  struct WeakFunctionNode {
    std::weak_ptr<ag::FunctionNode> node;
    std::shared_ptr<ag::FunctionNode> lock() const {
      auto n = node.lock();
      if (!n) throw py::value_error("the graph of this custom function has been freed");
      return n;
    }
  };
  py::class_<WeakFunctionNode>(m, "_WeakFunctionNode")
      .def("saved_tensors", [](const WeakFunctionNode& w) {
        return py::tuple(to_py_list(w.lock()->ctx.get_saved_variables()));
      })
      .def("next_functions", [](const WeakFunctionNode& w) { return next_functions(*w.lock()); })
      // grad_fn.register_hook / register_prehook of a custom function (its grad_fn is the ctx object)
      .def("register_hook", [](const WeakFunctionNode& w, py::handle fn) {
        PyObject* h = register_node_hook(*w.lock(), fn.ptr());
        if (!h) throw py::error_already_set();
        return py::reinterpret_steal<py::object>(h);
      })
      .def("register_prehook", [](const WeakFunctionNode& w, py::handle fn) {
        PyObject* h = register_node_prehook(*w.lock(), fn.ptr());
        if (!h) throw py::error_already_set();
        return py::reinterpret_steal<py::object>(h);
      });
  // Makes the node of one call of a Python custom function (ctx: its ctx object, which backward is called
  // on and which the node keeps alive) and adds the tensor inputs when the call is recorded.
  m.def("_function_node", [](py::handle ctx, std::string name, std::vector<bool> is_tensor_arg,
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
    node->payload = keep_py(ctx.ptr());
    bool recorded = ag::prepare_function_inputs(*node, as_list(tensor_inputs));
    return py::make_tuple(node, WeakFunctionNode{node}, recorded);
  });
  // Wires the tensor outputs of forward (Note [custom functions]); returns what apply returns for them.
  m.def("_function_wrap", [](std::shared_ptr<ag::FunctionNode> node, py::handle tensor_inputs, py::handle outputs,
                             py::handle to_save, py::handle dirty, py::handle non_differentiable,
                             bool materialize_grads) {
    node->ctx.save_for_backward(as_list(to_save));
    node->ctx.mark_dirty(as_list(dirty));
    node->ctx.mark_non_differentiable(as_list(non_differentiable));
    node->ctx.set_materialize_grads(materialize_grads);
    ag::variable_list outs = as_list(outputs);
    ag::wrap_function_outputs(node, as_list(tensor_inputs), outs);
    return to_py_list(outs);
  });
  m.def("_delayed_error", [](const std::string& msg, py::handle inputs, py::handle outputs) {
    return to_py_list(ag::delayed_error(msg, as_list(inputs), as_list(outputs)));
  });
}

// ---- inference mode and anomaly mode (Note [inference tensors], Note [anomaly mode])
void init_modes(py::module_& m) {
  py::class_<PyInferenceMode>(m, "_InferenceMode")
      .def(py::init([](bool mode) { return PyInferenceMode{std::make_unique<ag::InferenceMode>(mode)}; }))
      .def("close", [](PyInferenceMode& g) { g.guard.reset(); });
  m.def("is_inference_mode_enabled", &ag::InferenceMode::is_enabled, "Whether inference mode is on in this thread.");

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

  m.def("is_grad_enabled", &ag::GradMode::is_enabled, "Whether autograd records operations on this thread.");
  m.def("_set_grad_enabled", &ag::GradMode::set_enabled);
}

// ---- gradcheck (Note [gradcheck]): fn takes and returns lists of tensors (ember/autograd/gradcheck.py adapts
// the user's)
void init_gradcheck(py::module_& m) {
  auto as_fn = [](py::function fn) -> ag::GradcheckFunction {
    return [fn](const ag::variable_list& xs) {
      py::list args;
      for (const Tensor& x : xs) args.append(tensor_or_none(x));
      return as_list(fn(args));
    };
  };
  auto result = [](const ag::GradcheckResult& r) { return py::make_tuple(r.ok, r.message); };
  m.def("_gradcheck", [as_fn, result](py::function fn, py::handle inputs, double eps, double atol, double rtol,
                                      double nondet_tol) {
    return result(ag::gradcheck(as_fn(fn), as_list(inputs), {eps, atol, rtol, nondet_tol}));
  });
  m.def("_gradgradcheck", [as_fn, result](py::function fn, py::handle inputs, py::handle grad_outputs, double eps,
                                          double atol, double rtol, double nondet_tol) {
    return result(
        ag::gradgradcheck(as_fn(fn), as_list(inputs), as_list(grad_outputs), {eps, atol, rtol, nondet_tol}));
  });
}

}  // namespace

void init_autograd(py::module_& m) {
  // The handle behind ember.utils.hooks.RemovableHandle (Tensor.register_hook, grad_fn.register_hook, ...).
  py::class_<ag::RemovableHandle>(m, "_RemovableHandle", "Unregisters a hook: remove().")
      .def("remove", &ag::RemovableHandle::remove);
  m.def("_backward", [](py::handle tensors, py::handle grads, std::optional<bool> retain_graph, bool create_graph,
                        py::handle inputs) {
    ag::backward(as_list(tensors), as_list(grads), retain_graph, create_graph, as_list(inputs));
  });
  m.def("_grad_of", [](py::handle outputs, py::handle inputs, py::handle grads, std::optional<bool> retain_graph,
                       bool create_graph, bool allow_unused) {
    ag::variable_list r = ag::grad(as_list(outputs), as_list(inputs), as_list(grads), retain_graph, create_graph,
                                   allow_unused);
    return py::tuple(to_py_list(r));
  });
  init_custom_functions(m);
  init_modes(m);
  init_gradcheck(m);
}

}  // namespace ember::python
