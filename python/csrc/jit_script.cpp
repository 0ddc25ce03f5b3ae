// ember.jit.script's native part: TorchScript source compiled in C++ (ember/jit/frontend/Compiler.h) into a
// compilation unit whose functions Python calls. python/ember/jit/_script.py gathers a function's source and
// the globals it names; here those globals become a Resolver (Note [python script globals]).
//
// Note [python script globals]
// A Python function names globals the C++ compiler cannot see. _script.py passes a table of them: modules of
// ops under another name (`import ember.nn.functional as Fn`: "Fn" -> module "torch.nn.functional"), other
// Python functions, already compiled into the same unit ("helper" -> function "helper", also under an alias),
// and constants (ints, floats, bools, strs: inlined as TorchScript does with module-level constants).
#include <pybind11/stl.h>

#include "ember/jit/frontend/Compiler.h"
#include "ember/jit/frontend/Emitter.h"
#include "ember/jit/frontend/Sugared.h"
#include "jit.h"
#include "python_ops.h"

namespace ember::python {

namespace py = pybind11;
using namespace ember::jit;

IValue python_to_ivalue(py::handle o);  // jit_module.cpp

namespace {

class PythonGlobals : public script::Resolver {
 public:
  PythonGlobals(const CompilationUnit& cu, std::map<std::string, std::string> modules,
                std::map<std::string, std::string> functions, std::map<std::string, IValue> constants)
      : cu_(cu), modules_(std::move(modules)), functions_(std::move(functions)), constants_(std::move(constants)) {}

  script::SugaredPtr resolve(const std::string& name, const script::SourceRange&, script::Emitter& e) override {
    if (auto it = modules_.find(name); it != modules_.end()) return std::make_shared<script::ModuleSugar>(it->second);
    if (auto it = functions_.find(name); it != functions_.end())
      if (const GraphFunction* f = cu_.find_function(it->second)) return std::make_shared<script::FunctionSugar>(f);
    if (auto it = constants_.find(name); it != constants_.end())
      return std::make_shared<script::ValueSugar>(e.constant(it->second));
    return nullptr;
  }

 private:
  const CompilationUnit& cu_;
  std::map<std::string, std::string> modules_;
  std::map<std::string, std::string> functions_;
  std::map<std::string, IValue> constants_;
};

}  // namespace

void init_jit_script(py::module_& m) {
  py::class_<GraphFunction, std::shared_ptr<GraphFunction>>(m, "_ScriptFunctionImpl",
                                                             "A compiled TorchScript function (Compiler.h).")
      .def_property_readonly("name", &GraphFunction::name)
      .def_property_readonly("graph", &GraphFunction::graph_ptr)
      .def_property_readonly("schema", &GraphFunction::schema_str)
      .def("__call__", [](const GraphFunction& f, py::args args, py::kwargs kwargs) {
        std::vector<IValue> in;
        for (py::handle a : args) in.push_back(python_to_ivalue(a));
        std::map<std::string, IValue> kw;
        for (auto [k, v] : kwargs) kw.emplace(py::cast<std::string>(k), python_to_ivalue(v));
        IValue r;
        {
          py::gil_scoped_release release;
          r = f(std::move(in), kw);
        }
        return ivalue_to_python(r);
      });
  py::class_<CompilationUnit, std::shared_ptr<CompilationUnit>>(m, "_CompilationUnit",
                                                               "Functions compiled from TorchScript source.")
      .def(py::init<>())
      .def(
          "define",
          [](CompilationUnit& cu, const std::string& source, const std::string& filename,
             std::map<std::string, std::string> modules, std::map<std::string, std::string> functions,
             py::dict constants) {
            std::map<std::string, IValue> consts;
            for (auto [k, v] : constants) consts.emplace(py::cast<std::string>(k), python_to_ivalue(v));
            auto resolver = std::make_shared<PythonGlobals>(cu, std::move(modules), std::move(functions),
                                                            std::move(consts));
            cu.define(source, resolver, filename);
          },
          py::arg("source"), py::arg("filename"), py::arg("modules"), py::arg("functions"), py::arg("constants"),
          "Compiles the defs of source (Note [python script globals]); RuntimeError with the source highlighted.")
      .def("find_function", &CompilationUnit::function_ptr, py::arg("name"), "The function named name, or None.");
}

}  // namespace ember::python
