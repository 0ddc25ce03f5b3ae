// ember.jit's native part (jit.h): the tracer's state for Python, graphs, their readable code, and the
// Python executor.
//
// Note [python graph executor]
// Until the JIT runtime (ember/jit/runtime, a lowered instruction list) is in, a traced module runs its graph
// with this walker: an environment of IValues, one step per node in order: prim::Constant reads its value,
// prim::GetAttr reads the attribute of the Python module object (so parameters are read live, and replacing
// or updating them is seen), the list/tuple/dict primitives build or unpack containers, and an op node calls
// its operator with the dispatcher's boxed call (the schema matched once per node, Note [schema matching]).
// It is a correct reference, not a fast one; the runtime's interpreter replaces it.
#include "jit.h"

#include <pybind11/stl.h>

#include <unordered_map>
#include <unordered_set>

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

py::object wrap_tensor(const Tensor& t) {
  if (!t.defined()) return py::none();
  return py::reinterpret_steal<py::object>(wrap(t));
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

// ---- the executor (Note [python graph executor])

// A value of the environment: an IValue, or a Python module object (values of class type).
struct Slot {
  IValue iv;
  py::object obj;
};

IValue tensor_list_or_list(const Value* out, std::vector<IValue> elems) {
  const auto* lt = out->type()->cast<jit::ListType>();
  if (lt && lt->elem()->kind() == TypeKind::Tensor) {
    std::vector<Tensor> ts;
    for (IValue& e : elems) ts.push_back(e.to_tensor());
    return IValue(std::move(ts));
  }
  return IValue::list(std::move(elems));
}

// Adapts a constant to the argument it feeds: dtypes are int constants in graphs (as TorchScript's).
IValue fit_argument(IValue v, const SchemaType& t) {
  const SchemaType* base = t.kind == SchemaType::Kind::Optional && t.elem ? t.elem.get() : &t;
  if (base->kind == SchemaType::Kind::ScalarType && v.is_int()) return IValue(static_cast<DType>(v.to_int()));
  return v;
}

std::vector<IValue> elements(const IValue& v) {
  if (v.is_tensor_list()) {
    std::vector<IValue> r;
    for (const Tensor& t : v.to_tensor_list()) r.emplace_back(t);
    return r;
  }
  return v.to_list();
}

py::object to_python(const IValue& v) {
  switch (v.tag()) {
    case IValue::Tag::None: return py::none();
    case IValue::Tag::Bool: return py::bool_(v.to_bool());
    case IValue::Tag::Int: return py::int_(v.to_int());
    case IValue::Tag::Double: return py::float_(v.to_double());
    case IValue::Tag::String: return py::str(v.to_string());
    case IValue::Tag::Tensor: return wrap_tensor(v.to_tensor());
    case IValue::Tag::IntList: return py::cast(std::vector<int64_t>(v.to_int_list().begin(), v.to_int_list().end()));
    case IValue::Tag::TensorList:
    case IValue::Tag::List: {
      py::list l;
      for (const IValue& e : elements(v)) l.append(to_python(e));
      return l;
    }
    case IValue::Tag::Tuple: {
      py::list l;
      for (const IValue& e : v.to_tuple()) l.append(to_python(e));
      return py::tuple(l);
    }
    case IValue::Tag::Dict: {
      py::dict d;
      for (const auto& [k, e] : v.to_dict()) d[to_python(k)] = to_python(e);
      return d;
    }
    default: throw py::type_error("jit: cannot return a " + std::string(v.tag_name()) + " to Python");
  }
}

py::object run_graph(const Graph& g, py::handle self, const std::vector<py::handle>& args) {
  std::unordered_map<const Value*, Slot> env;
  auto in = g.block()->inputs();
  size_t first = 0;
  if (!in.empty() && in[0]->type()->kind() == TypeKind::Class) {
    env[in[0]].obj = py::reinterpret_borrow<py::object>(self);
    first = 1;
  }
  if (args.size() != in.size() - first)
    throw py::type_error("forward() expected " + std::to_string(in.size() - first) + " tensor inputs, got " +
                         std::to_string(args.size()));
  for (size_t i = first; i < in.size(); ++i) env[in[i]].iv = IValue(as_tensor(args[i - first], "forward"));
  Stack stack;
  for (const Node* n : g.nodes()) {
    const jit::Symbol k = n->kind();
    auto get = [&](size_t i) -> const IValue& { return env.at(n->input(i)).iv; };
    if (k == jit::prim::Constant) {
      env[n->output()].iv = *jit::constant_value(n->output());
    } else if (k == jit::prim::GetAttr) {
      py::object attr = env.at(n->input(0)).obj.attr(n->s("name").c_str());
      Slot& s = env[n->output()];
      if (is_tensor(attr.ptr())) s.iv = IValue(unwrap(attr.ptr()));
      else s.obj = attr;
    } else if (k == jit::prim::ListConstruct || k == jit::prim::TupleConstruct) {
      std::vector<IValue> elems;
      for (size_t i = 0; i < n->num_inputs(); ++i) elems.push_back(get(i));
      env[n->output()].iv = k == jit::prim::TupleConstruct ? IValue::tuple(std::move(elems))
                                                           : tensor_list_or_list(n->output(), std::move(elems));
    } else if (k == jit::prim::ListUnpack || k == jit::prim::TupleUnpack) {
      std::vector<IValue> elems = k == jit::prim::TupleUnpack ? get(0).to_tuple() : elements(get(0));
      if (elems.size() != n->num_outputs())
        throw py::value_error("jit: expected a list of " + std::to_string(n->num_outputs()) + " elements, got " +
                              std::to_string(elems.size()) + " (the trace specialized on its length)");
      for (size_t i = 0; i < elems.size(); ++i) env[n->output(i)].iv = elems[i];
    } else if (k == jit::prim::DictConstruct) {
      std::vector<std::pair<IValue, IValue>> items;
      for (size_t i = 0; i + 1 < n->num_inputs(); i += 2) items.emplace_back(get(i), get(i + 1));
      env[n->output()].iv = IValue::dict(std::move(items));
    } else if (n->is_op()) {
      const FunctionSchema& schema = n->schema();
      stack.clear();
      for (size_t i = 0; i < n->num_inputs(); ++i) stack.push_back(fit_argument(get(i), schema.arguments[i].type));
      n->op().call_boxed(&stack);
      for (size_t i = 0; i < n->num_outputs(); ++i) env[n->output(i)].iv = std::move(stack[i]);
    } else {
      throw py::value_error("jit: the Python executor cannot run " + std::string(k.qual_string()));
    }
  }
  auto outs = g.block()->outputs();
  if (outs.size() == 1) return to_python(env.at(outs[0]).iv);
  py::list l;
  for (const Value* v : outs) l.append(to_python(env.at(v).iv));
  return py::tuple(l);
}

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
      }, "The lines of the nodes that give other results on each run (random ops, dropout in training).")
      .def("_run", [](const Graph& g, py::handle self, std::vector<py::handle> args) { return run_graph(g, self, args); },
           "Runs the graph with the Python executor (Note [python graph executor]).");

  py::class_<PyTracingState>(m, "_TracingState", "The state of one trace (Note [tracing]).")
      .def(py::init([] {
        PyTracingState s;
        s.state->set_warning_handler(&py_warn);
        return s;
      }))
      .def("add_input", [](PyTracingState& s, py::handle t, const std::string& name) {
        s.state->add_input(as_tensor(t, "jit.trace input"), name);
      })
      .def("add_self", [](PyTracingState& s, const std::string& cls) { s.state->add_self(jit::ClassType::create(cls)); })
      .def("register_submodule", [](PyTracingState& s, const std::string& path, const std::string& cls) {
        s.state->register_submodule(path, jit::ClassType::create(cls));
      })
      .def("register_attribute", [](PyTracingState& s, py::handle t, const std::string& path) {
        s.state->register_attribute(as_tensor(t, "register_attribute"), path);
      })
      .def("register_output", [](PyTracingState& s, py::handle o) {
        s.state->graph().register_output(output_value(*s.state, o));
      }, "Makes o (a tensor, or a tuple, list or dict of them) the graph's output.")
      .def("finish", [](PyTracingState& s) { s.state->finish(); },
           "Removes unused nodes and verifies the graph (TracingState::finish).")
      .def_property_readonly("graph", [](PyTracingState& s) { return s.state->graph_ptr(); });

  py::class_<PyTracingScope>(m, "_TracingScope", "Tracing on for this thread until close() (Note [tracing]).")
      .def(py::init([](PyTracingState& s) { return PyTracingScope{std::make_unique<tr::TracingGuard>(s.state)}; }))
      .def("close", [](PyTracingScope& s) { s.guard.reset(); });
  m.def("_jit_is_tracing", &tr::is_tracing, "Whether this thread is tracing.");
}

}  // namespace ember::python
