// Runtime modules and functions (ember/jit/runtime) for Python: the object behind every ember.jit
// ScriptModule (traced or loaded), graph functions, and saving/loading archives.
//
// Note [python script modules]
// A traced or loaded Python ScriptModule (python/ember/jit/_module.py) is a thin Python Module over a runtime
// jit::Module (`_c`): the runtime object owns the class name, the attribute table and the compiled methods,
// and forward runs in the C++ interpreter with the GIL released (so Python threads calling one module run in
// parallel; Note [module thread safety]). The runtime slots hold the very tensors of the Python Parameters and
// buffers (same TensorImpl), so in-place updates are seen by the next call and autograd records through the
// interpreter's op calls into the Parameters' gradients; when Python replaces an attribute
// (`m.weight = Parameter(...)`) the Python side mirrors it into the slot with set_attr.
#include <pybind11/stl.h>

#include "ember/jit/passes/Passes.h"
#include "ember/jit/runtime/SavedModule.h"
#include "ember/jit/runtime/Interpreter.h"
#include "ember/jit/runtime/Module.h"
#include "jit.h"
#include "python_ops.h"
#include "tensor.h"

namespace py = pybind11;

namespace ember::python {

using jit::Graph;

namespace {

const Tensor& unwrap_tensor_arg(py::handle h, const char* what) {
  if (!is_tensor(h.ptr()))
    throw py::type_error(std::string("ember.jit: ") + what + ": expected a Tensor, got " + Py_TYPE(h.ptr())->tp_name);
  return unwrap(h.ptr());
}

py::object wrap_tensor_or_none(const Tensor& t) {
  if (!t.defined()) return py::none();
  return py::reinterpret_steal<py::object>(wrap(t));
}

}  // namespace

IValue python_to_ivalue(py::handle o) {
  PyObject* p = o.ptr();
  if (is_tensor(p)) return IValue(unwrap(p));
  if (o.is_none()) return IValue();
  if (PyBool_Check(p)) return IValue(p == Py_True);
  if (PyLong_Check(p)) return IValue(py::cast<int64_t>(o));
  if (PyFloat_Check(p)) return IValue(PyFloat_AsDouble(p));
  if (PyUnicode_Check(p)) return IValue(py::cast<std::string>(o));
  if (PyTuple_Check(p) || PyList_Check(p)) {
    std::vector<IValue> elems;
    for (py::handle e : o) elems.push_back(python_to_ivalue(e));
    return PyTuple_Check(p) ? IValue::tuple(std::move(elems)) : IValue::list(std::move(elems));
  }
  if (PyDict_Check(p)) {
    std::vector<std::pair<IValue, IValue>> items;
    for (auto [k, v] : py::reinterpret_borrow<py::dict>(o))
      items.emplace_back(python_to_ivalue(k), python_to_ivalue(v));
    return IValue::dict(std::move(items));
  }
  throw py::type_error(std::string("ember.jit: cannot pass a value of type '") + Py_TYPE(p)->tp_name +
                       "' to a graph (expected tensors, numbers, strings, None, or tuples, lists and dicts of them)");
}

namespace {

std::vector<IValue> to_inputs(const py::sequence& args) {
  std::vector<IValue> in;
  in.reserve(args.size());
  for (py::handle a : args) in.push_back(python_to_ivalue(a));
  return in;
}

py::list named_tensors(const std::vector<std::pair<std::string, Tensor>>& items) {
  py::list l;
  for (const auto& [n, t] : items) l.append(py::make_tuple(n, wrap_tensor_or_none(t)));
  return l;
}

}  // namespace

void init_jit_module(py::module_& m) {
  py::class_<jit::Module>(m, "_JitModule",
                          "A runtime module (ember/jit/runtime/Module.h); Note [python script modules].")
      .def(py::init<std::string>(), py::arg("class_name"))
      .def_property_readonly("class_name", [](const jit::Module& mod) { return mod.type()->name(); })
      .def("register_parameter",
           [](jit::Module& mod, const std::string& n, py::handle t) {
             mod.register_parameter(n, unwrap_tensor_arg(t, "register_parameter"));
           })
      .def("register_buffer", [](jit::Module& mod, const std::string& n,
                                 py::handle t) { mod.register_buffer(n, unwrap_tensor_arg(t, "register_buffer")); })
      .def("register_module", &jit::Module::register_module)
      .def(
          "register_attribute",
          [](jit::Module& mod, const std::string& n, py::handle v) { mod.register_attribute(n, python_to_ivalue(v)); },
          "A plain attribute of the value's type (int, float, bool, str, Tensor, lists and tuples of those).")
      .def("set_attr",
           [](jit::Module& mod, const std::string& n, py::handle v) { mod.set_attr(n, python_to_ivalue(v)); })
      .def("attr", [](const jit::Module& mod, const std::string& n) { return ivalue_to_python(mod.attr(n)); })
      .def("has_attr", &jit::Module::has_attr)
      .def(
          "slots",
          [](const jit::Module& mod) {
            // (name, kind, value) in order; kind is "parameter", "buffer", "module" or "attribute".
            py::list l;
            for (const jit::Slot& s : mod.object()->slots()) {
              static const char* const kinds[] = {"parameter", "buffer", "module", "attribute"};
              py::object v =
                  s.kind == jit::SlotKind::Module ? py::cast(jit::Module(s.module)) : ivalue_to_python(s.value);
              l.append(py::make_tuple(s.name, kinds[static_cast<int>(s.kind)], v));
            }
            return l;
          },
          "The attribute table: (name, kind, value) per slot, kind one of parameter, buffer, module, attribute.")
      .def(
          "named_parameters",
          [](const jit::Module& mod, bool recurse) { return named_tensors(mod.named_parameters(recurse)); },
          py::arg("recurse") = true)
      .def(
          "named_buffers",
          [](const jit::Module& mod, bool recurse) { return named_tensors(mod.named_buffers(recurse)); },
          py::arg("recurse") = true)
      .def("is_training", &jit::Module::is_training)
      .def("train", &jit::Module::train, py::arg("on") = true)
      .def("define_method",
           [](jit::Module& mod, const std::string& n, std::shared_ptr<Graph> g) { mod.define_method(n, std::move(g)); })
      .def("has_method", &jit::Module::has_method)
      .def("method_names", &jit::Module::method_names)
      .def("method_graph", [](const jit::Module& mod, const std::string& n) { return mod.method(n).graph; })
      .def(
          "run_method",
          [](const jit::Module& mod, const std::string& n, const py::sequence& args) {
            std::vector<IValue> in = to_inputs(args);
            IValue out;
            {
              py::gil_scoped_release nogil;  // Note [module thread safety]
              out = mod.run_method(n, std::move(in));
            }
            return ivalue_to_python(out);
          },
          "Runs method n with the inputs args (self not counted) in the interpreter, the GIL released.")
      .def("same", [](const jit::Module& a, const jit::Module& b) { return a.object() == b.object(); })
      .def(
          "save",
          [](const jit::Module& mod, const std::string& path, const jit::ExtraFiles& extra) {
            py::gil_scoped_release nogil;
            jit::save(mod, path, extra);
          },
          py::arg("path"), py::arg("extra_files") = jit::ExtraFiles{}, "Writes the module to path atomically.");

  m.def("_jit_load", [](const std::string& path) {
    jit::ExtraFiles extra;
    std::optional<jit::Module> mod;
    {
      py::gil_scoped_release nogil;
      mod.emplace(jit::load(path, &extra));
    }
    py::dict files;
    for (const auto& [k, v] : extra) files[py::str(k)] = py::bytes(v);
    return py::make_tuple(py::cast(*mod), files);
  }, "Loads a saved module: (module, {extra file name: bytes}).");

  m.def("_jit_function_module", [](const Graph& g) { return jit::function_module(g); }, py::arg("graph"),
        "A traced function's graph as a saveable module with forward (Module.h function_module()).");
  m.def("_jit_freeze", [](const jit::Module& mod, std::vector<std::string> methods, std::vector<std::string> attrs,
                          bool optimize) {
    jit::FreezeOptions options;
    options.preserved_methods = std::move(methods);
    options.preserved_attrs = std::move(attrs);
    options.optimize = optimize;
    return jit::freeze(mod, options);
  }, py::arg("module"), py::arg("preserved_methods"), py::arg("preserved_attrs"), py::arg("optimize"),
     "A frozen copy of module (ember/jit/passes/Passes.h freeze()).");
  m.def("_jit_optimize_for_inference", [](const jit::Module& mod) { return jit::optimize_for_inference(mod); },
        "freeze + optimize_frozen_graph (Passes.h).");

  py::class_<jit::Function>(m, "_JitFunction", "A graph without module, compiled once (Interpreter.h).")
      .def(py::init<std::string, std::shared_ptr<Graph>>())
      .def("run", [](const jit::Function& f, const py::sequence& args) {
        std::vector<IValue> in = to_inputs(args);
        IValue out;
        {
          py::gil_scoped_release nogil;
          out = f(std::move(in));
        }
        return ivalue_to_python(out);
      });
}

}  // namespace ember::python
