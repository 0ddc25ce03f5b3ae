// ember.jit's native part (jit.h): the tracer's state for Python, graphs and their readable code. Traced and
// loaded modules run on the runtime (jit_module.cpp, Note [python script modules]).
#include "jit.h"

#include <pybind11/stl.h>

#include <unordered_map>
#include <unordered_set>

#include "ember/jit/frontend/Parser.h"
#include "ember/jit/frontend/Tracer.h"
#include "tensor.h"

namespace py = pybind11;

namespace ember::python {

namespace tr = ember::jit::tracer;
using jit::Graph;
using jit::Node;
using jit::Type;
using jit::TypeKind;
using jit::TypePtr;
using jit::Value;

namespace {

PyObject* tracer_warning_class() {
  static PyObject* cls = [] {
    py::object c = py::module_::import("ember.jit").attr("TracerWarning");
    return c.release().ptr();
  }();
  return cls;
}

// Raises a TracerWarning pointing at the innermost Python frame (the line that called into C++).
void py_warn(const std::string& msg) {
  if (PyErr_WarnEx(tracer_warning_class(), msg.c_str(), 1) < 0) throw python_error_already_set();
}

const Tensor& as_tensor(py::handle h, const char* what) {
  if (!is_tensor(h.ptr()))
    throw py::type_error(std::string(what) + ": expected a Tensor, got " + Py_TYPE(h.ptr())->tp_name);
  return unwrap(h.ptr());
}

// ---- tracing

// The Value of a traced function's output: tensors, and tuples, lists and dicts of them (nested).
Value* output_value(tr::TracingState& s, py::handle o) {
  Graph& g = s.graph();
  if (is_tensor(o.ptr())) return s.value_of(unwrap(o.ptr()));
  if (py::isinstance<py::tuple>(o)) {
    std::vector<Value*> vs;
    for (py::handle e : o) vs.push_back(output_value(s, e));
    return g.insert_tuple(vs);
  }
  if (py::isinstance<py::list>(o)) {
    std::vector<Value*> vs;
    for (py::handle e : o) vs.push_back(output_value(s, e));
    TypePtr elem = vs.empty() ? Type::tensor_type() : vs[0]->type();
    for (Value* v : vs)
      if (!v->type()->equals(*elem)) elem = Type::any_type();
    if (elem->kind() == TypeKind::Tensor) elem = Type::tensor_type();  // refined element types vary
    return g.insert_list(elem, vs);
  }
  if (py::isinstance<py::dict>(o)) {
    std::vector<Value*> keys, vals;
    for (auto [k, v] : py::cast<py::dict>(o)) {
      if (!py::isinstance<py::str>(k))
        throw std::runtime_error("jit.trace: the keys of a dict output must be str, got " +
                             std::string(Py_TYPE(k.ptr())->tp_name));
      keys.push_back(g.insert_constant(IValue(py::cast<std::string>(k))));
      vals.push_back(output_value(s, v));
    }
    return g.insert_dict(Type::str_type(), Type::tensor_type(), keys, vals);
  }
  if (o.is_none())
    throw std::runtime_error("The traced function didn't return any values! Side-effects are not captured in "
                             "traces, so it would be a no-op.");
  throw std::runtime_error(std::string("Only tensors, lists, tuples of tensors, or dictionary of tensors can be "
                                       "output from traced functions, got ") + Py_TYPE(o.ptr())->tp_name);
}

struct PyTracingState {
  std::shared_ptr<tr::TracingState> state = std::make_shared<tr::TracingState>();
};

struct PyTracingScope {
  std::unique_ptr<tr::TracingGuard> guard;
};

// A copy of g whose tensor values are typed plain Tensor (check_trace compares graphs without shapes).
std::string erased_text(const Graph& g) {
  std::shared_ptr<Graph> c = g.copy();
  for (Value* v : c->all_values())
    if (v->type()->kind() == TypeKind::Tensor) v->set_type(Type::tensor_type());
  return jit::to_string(*c);
}

// Whether a node gives other results on each run: random sampling, and dropout when its `train` argument
// is a true constant (or not a constant) — check_trace names these (Note [trace checks] in ember/jit/_trace.py).
bool nondeterministic(const Node* n) {
  static const std::unordered_set<std::string_view> random = {
      "bernoulli", "bernoulli_", "rand", "randn", "randint", "rand_like", "randn_like", "randint_like", "normal",
      "normal_", "uniform_", "multinomial", "randperm", "exponential_", "geometric_", "log_normal_", "cauchy_",
      "random_"};
  static const std::unordered_set<std::string_view> dropouts = {
      "dropout", "dropout_", "feature_dropout", "feature_dropout_", "alpha_dropout", "alpha_dropout_",
      "feature_alpha_dropout", "feature_alpha_dropout_", "native_dropout"};
  if (!n->is_op()) return false;
  std::string_view name = n->kind().name();
  if (random.count(name)) return true;
  if (!dropouts.count(name) || n->num_inputs() < 3) return false;
  std::optional<IValue> train = jit::constant_value(n->input(2));
  return !train || !train->is_bool() || train->to_bool();
}

}  // namespace

std::string graph_code(const Graph& g, const std::string& name);  // jit_code.cpp

const char* const kTensorConstantWarning =
    "ember.tensor results are registered as constants in the trace. You can safely ignore this warning if you "
    "use this function to create tensors out of constant variables that would be the same every time you call "
    "this function. In any other case, this might cause the trace to be incorrect.";

Tensor traced_constant(const std::function<Tensor()>& make, const char* warning) {
  tr::TracingState* s = tr::current_state();
  if (!s) return make();
  Tensor t;
  {
    tr::TracingGuard pause(nullptr);
    t = make();
  }
  if (warning) py_warn(warning);
  s->add_constant(t);
  return t;
}

void warn_if_tracing(const char* message) {  // a literal: nothing is built when not tracing
  if (tr::is_tracing()) py_warn(message);
}

bool tracing_now() { return tr::is_tracing(); }

Tensor traced_size(const Tensor& x, int64_t dim) { return tr::current_state()->size_of(x, dim); }

void note_traced_int(const FunctionSchema& op, size_t arg, int64_t elem, const Tensor& t) {
  if (tr::TracingState* s = tr::current_state()) s->note_int_argument(op, arg, elem, t);
}

void warn_tracer_conversion(const char* what) {
  if (!tr::is_tracing()) return;
  py_warn(std::string("Converting a tensor to a Python ") + what +
          " might cause the trace to be incorrect. We can't record the data flow of Python values, so this value "
          "will be treated as a constant in the future. This means that the trace might not generalize to other "
          "inputs!");
}

void init_jit(py::module_& m) {
  py::class_<Graph, std::shared_ptr<Graph>>(m, "_Graph", "A JIT graph (ember/jit/ir); str() gives its text.")
      .def("__str__", [](const Graph& g) { return jit::to_string(g); })
      .def("__repr__", [](const Graph& g) { return jit::to_string(g); })
      .def("_erased_str", &erased_text, "The text with every tensor type printed as plain Tensor.")
      .def("verify", [](const Graph& g) { jit::verify(g); })
      .def("code", &graph_code, py::arg("name") = "forward", "Python-like source of the graph.")
      .def("input_names", [](const Graph& g) {
        std::vector<std::string> r;
        for (const Value* v : g.block()->inputs()) r.push_back(v->display_name());
        return r;
      })
      .def("nodes", [](const Graph& g) {
        std::vector<std::string> r;
        for (const Node* n : g.nodes()) r.emplace_back(n->kind().qual_string());
        return r;
      }, "The kinds of the top block's nodes, in order.")
      .def("_nondeterministic_nodes", [](const Graph& g) {
        std::vector<std::string> r;
        for (const Node* n : g.nodes())
          if (nondeterministic(n)) r.push_back(n->str());
        return r;
      }, "The lines of the nodes that give other results on each run (random ops, dropout in training).");

  py::class_<PyTracingState>(m, "_TracingState", "The state of one trace (Note [tracing]).")
      .def(py::init([] {
        PyTracingState s;
        s.state->set_warning_handler(&py_warn);
        return s;
      }))
      .def("add_input", [](PyTracingState& s, py::handle t,
                           const std::string& name) { s.state->add_input(as_tensor(t, "jit.trace input"), name); })
      .def("add_self",
           [](PyTracingState& s, const std::string& cls) { s.state->add_self(jit::ClassType::create(cls)); })
      .def("register_submodule",
           [](PyTracingState& s, const std::string& path, const std::string& cls) {
             s.state->register_submodule(path, jit::ClassType::create(cls));
           })
      .def("register_attribute",
           [](PyTracingState& s, py::handle t, const std::string& path) {
             s.state->register_attribute(as_tensor(t, "register_attribute"), path);
           })
      .def(
          "register_output",
          [](PyTracingState& s, py::handle o) { s.state->graph().register_output(output_value(*s.state, o)); },
          "Makes o (a tensor, or a tuple, list or dict of them) the graph's output.")
      .def(
          "finish", [](PyTracingState& s) { s.state->finish(); },
          "Removes unused nodes and verifies the graph (TracingState::finish).")
      .def_property_readonly("graph", [](PyTracingState& s) { return s.state->graph_ptr(); });

  py::class_<PyTracingScope>(m, "_TracingScope", "Tracing on for this thread until close() (Note [tracing]).")
      .def(py::init([](PyTracingState& s) { return PyTracingScope{std::make_unique<tr::TracingGuard>(s.state)}; }))
      .def("close", [](PyTracingScope& s) { s.guard.reset(); });
  m.def("_jit_is_tracing", &tr::is_tracing, "Whether this thread is tracing.");
  // For tests only (tests/python/test_script_parser.py), not public API: the canonical form of the tree of
  // TorchScript source (Note [TorchScript AST]), or RuntimeError with the highlighted place.
  m.def(
      "_jit_parse",
      [](const std::string& source, const std::string& filename) {
        return jit::script::to_sexpr(*jit::script::parse_script(source, filename));
      },
      py::arg("source"), py::arg("filename"),
      "The canonical printed tree of TorchScript source (Note [TorchScript AST]); for tests.");
  init_jit_module(m);
  init_jit_script(m);
}

}  // namespace ember::python
