// grad_fn objects (Tensor.grad_fn, next_functions): Python types made per node name on the CPython API.
//
// Note [grad_fn objects]
// As PyTorch's, `type(y.grad_fn).__name__` is the node's name ("AddBackward0"): each distinct Node::name()
// gets its own Python type, made on first use with PyType_FromSpec from one set of slots (name(),
// next_functions, metadata, requires_grad, register_hook, register_prehook, __call__; AccumulateGrad's type
// also has `variable`) and kept for the life of the process in a name -> type cache. As in PyTorch 1.13 the
// types derive from object alone (1.13 has no torch.autograd.graph.Node, and its node types are not
// _FunctionBase's subclasses), live in module builtins and cannot be instantiated from Python.
// An object holds its node (shared_ptr), so the graph lives as long as the object does; the node points back
// at the object (Node::pyobj, borrowed, cleared when the object dies), so while an object lives every access
// gives that same object. The metadata dict is kept by the node (Node::py_state), so it outlives the object,
// as PyTorch's. The hooks are C++ node hooks (ember/autograd) around the Python callables, checked as
// PyTorch's check_result does. A Python custom function's node is shown as its ctx object instead.
#include "python_node.h"

#include <pybind11/pybind11.h>

#include <unordered_map>

#include "python_common.h"
#include "tensor.h"

namespace py = pybind11;

namespace ember::python {
namespace ag = ember::autograd;

namespace {

struct PyNode {
  PyObject_HEAD
  std::shared_ptr<ag::Node> node;
};

ag::Node& node_of(PyObject* self) { return *reinterpret_cast<PyNode*>(self)->node; }

py::tuple to_tuple(const ag::variable_list& v) {
  py::tuple t(v.size());
  for (size_t i = 0; i < v.size(); ++i) t[i] = py::reinterpret_steal<py::object>(wrap(v[i]));
  return t;
}

// A hook's result replaces `values` (PyTorch's check_result and check_single_result): a tuple of as many
// entries, each None (no gradient) or a tensor of the same sizes and dtype as the one it replaces.
void take_hook_result(ag::variable_list& values, PyObject* result, const std::string& name) {
  EMBER_CHECK_TYPE(PyTuple_Check(result), "expected tuple, but hook returned '{}'", Py_TYPE(result)->tp_name);
  const auto n = static_cast<size_t>(PyTuple_GET_SIZE(result));
  EMBER_CHECK(n == values.size(), "hook '{}' has returned an incorrect number of values (got {}, but expected {})",
              name, n, values.size());
  ag::variable_list out(n);
  for (size_t i = 0; i < n; ++i) {
    PyObject* r = PyTuple_GET_ITEM(result, i);
    if (r == Py_None) continue;
    EMBER_CHECK(values[i].defined(), "can't replace a None gradient with a non-None value");
    EMBER_CHECK_TYPE(is_tensor(r), "expected Variable, but hook returned '{}'", Py_TYPE(r)->tp_name);
    const Tensor& t = unwrap(r);
    EMBER_CHECK(t.dtype() == values[i].dtype(), "hook '{}' has changed the type of value (was {} got {})", name,
                values[i].dtype(), t.dtype());
    EMBER_CHECK(ag::same_sizes(t.sizes(), values[i].sizes()), "hook '{}' has changed the size of value", name);
    out[i] = t;
  }
  values = std::move(out);
}

// ---- methods and attributes shared by every node type
PyObject* node_name(PyObject* self, PyObject*) {
  EMBER_PY_TRY
  std::string n = node_of(self).name();
  return PyUnicode_FromStringAndSize(n.data(), static_cast<Py_ssize_t>(n.size()));
  EMBER_PY_CATCH(nullptr)
}

}  // namespace

PyObject* register_node_prehook(ag::Node& node, PyObject* fn) {
  EMBER_PY_TRY
  std::shared_ptr<PyObject> f = keep_py(fn);
  ag::RemovableHandle h = ag::register_prehook(node, [f, name = hook_name(fn)](ag::variable_list& grads) {
    py::gil_scoped_acquire gil;
    py::tuple arg = to_tuple(grads);
    py::object r = py::reinterpret_borrow<py::object>(f.get())(arg);
    if (!r.is_none()) take_hook_result(grads, r.ptr(), name);
  });
  return make_removable_handle(std::move(h));
  EMBER_PY_CATCH(nullptr)
}

PyObject* register_node_hook(ag::Node& node, PyObject* fn) {
  EMBER_PY_TRY
  std::shared_ptr<PyObject> f = keep_py(fn);
  ag::RemovableHandle h = ag::register_hook(
      node, [f, name = hook_name(fn)](ag::variable_list& grad_inputs, const ag::variable_list& grad_outputs) {
        py::gil_scoped_acquire gil;
        py::tuple gi = to_tuple(grad_inputs), go = to_tuple(grad_outputs);
        py::object r = py::reinterpret_borrow<py::object>(f.get())(gi, go);
        if (!r.is_none()) take_hook_result(grad_inputs, r.ptr(), name);
      });
  return make_removable_handle(std::move(h));
  EMBER_PY_CATCH(nullptr)
}

namespace {

PyObject* node_register_prehook(PyObject* self, PyObject* fn) { return register_node_prehook(node_of(self), fn); }

PyObject* node_register_hook(PyObject* self, PyObject* fn) { return register_node_hook(node_of(self), fn); }

PyObject* node_get_next_functions(PyObject* self, void*) {
  EMBER_PY_TRY
  const auto& edges = node_of(self).next_edges();
  PyObject* out = PyTuple_New(static_cast<Py_ssize_t>(edges.size()));
  if (!out) return nullptr;
  for (size_t i = 0; i < edges.size(); ++i) {
    PyObject* pair = Py_BuildValue("(NI)", wrap_node(edges[i].fn), static_cast<unsigned>(edges[i].input_nr));
    if (!pair) {
      Py_DECREF(out);
      return nullptr;
    }
    PyTuple_SET_ITEM(out, static_cast<Py_ssize_t>(i), pair);
  }
  return out;
  EMBER_PY_CATCH(nullptr)
}

PyObject* node_get_metadata(PyObject* self, void*) {
  EMBER_PY_TRY
  ag::Node& n = node_of(self);
  if (!n.py_state) {
    PyObject* d = PyDict_New();
    if (!d) return nullptr;
    n.py_state = keep_py(d);
    Py_DECREF(d);
  }
  PyObject* d = static_cast<PyObject*>(n.py_state.get());
  Py_INCREF(d);
  return d;
  EMBER_PY_CATCH(nullptr)
}

PyObject* node_get_requires_grad(PyObject*, void*) { Py_RETURN_TRUE; }  // as PyTorch's: a node always does

PyObject* node_get_variable(PyObject* self, void*) {
  return wrap(static_cast<ag::AccumulateGrad&>(node_of(self)).variable);
}

// node(*grads): the node's backward on the given gradients (one per output of the forward op; None for
// none), as PyTorch's Node.__call__; returns one gradient per next edge (None where none is computed).
PyObject* node_call(PyObject* self, PyObject* args, PyObject* kwargs) {
  EMBER_PY_TRY
  ag::Node& n = node_of(self);
  EMBER_CHECK_TYPE(!kwargs || PyDict_GET_SIZE(kwargs) == 0, "{}() takes no keyword arguments", n.name());
  const Py_ssize_t k = PyTuple_GET_SIZE(args);
  EMBER_CHECK_TYPE(k == static_cast<Py_ssize_t>(n.num_outputs), "expected {} arguments, got {} instead",
                   n.num_outputs, k);
  ag::variable_list in(static_cast<size_t>(k));
  bool any = false;
  for (Py_ssize_t i = 0; i < k; ++i) {
    PyObject* o = PyTuple_GET_ITEM(args, i);
    if (o == Py_None) continue;
    EMBER_CHECK_TYPE(is_tensor(o), "argument {} is not a Variable", i);
    in[static_cast<size_t>(i)] = unwrap(o);
    any = true;
  }
  // Without any gradient the engine does not run a node either: nothing flows on.
  ag::variable_list out = any ? n.apply(std::move(in)) : ag::variable_list(n.next_edges().size());
  return to_tuple(out).release().ptr();
  EMBER_PY_CATCH(nullptr)
}

void node_dealloc(PyObject* self) {
  auto* p = reinterpret_cast<PyNode*>(self);
  if (p->node && p->node->pyobj == self) p->node->pyobj = nullptr;
  p->node.~shared_ptr();  // may free the graph (and with it Python hooks and metadata)
  PyTypeObject* type = Py_TYPE(self);
  type->tp_free(self);
  Py_DECREF(type);  // heap types: each instance holds a reference to its type
}

PyMethodDef node_methods[] = {
    {"name", node_name, METH_NOARGS, "The node's name, e.g. 'AddBackward0'."},
    {"register_hook", node_register_hook, METH_O,
     "register_hook(fn) -> handle: fn(grad_inputs, grad_outputs) runs after the node; a returned tuple replaces "
     "grad_inputs."},
    {"register_prehook", node_register_prehook, METH_O,
     "register_prehook(fn) -> handle: fn(grad_outputs) runs before the node; a returned tuple replaces them."},
    {nullptr, nullptr, 0, nullptr}};

PyGetSetDef node_getset[] = {
    {"next_functions", node_get_next_functions, nullptr,
     "One (node or None, input_nr) pair per input of the forward op: where its gradient flows.", nullptr},
    {"metadata", node_get_metadata, nullptr, "A dict kept with the node, for the user's own use.", nullptr},
    {"requires_grad", node_get_requires_grad, nullptr, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};
// AccumulateGrad's: the same and `variable`.
PyGetSetDef accumulate_grad_getset[] = {
    {"next_functions", node_get_next_functions, nullptr, "Empty: a leaf's sink has no inputs.", nullptr},
    {"metadata", node_get_metadata, nullptr, "A dict kept with the node, for the user's own use.", nullptr},
    {"requires_grad", node_get_requires_grad, nullptr, nullptr, nullptr},
    {"variable", node_get_variable, nullptr, "The leaf tensor this node accumulates into.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

// The type of the nodes called like n (Note [grad_fn objects]).
PyTypeObject* node_type(const ag::Node& n) {
  // The type is made from the spec name "builtins.<name>", which sets its __module__, and then gets the bare
  // name as tp_name (shown in messages, as PyTorch's). PyType_FromSpec keeps pointers to the name in 3.11,
  // so it lives here: an unordered_map never moves its entries.
  struct Entry {
    std::string spec_name;
    PyTypeObject* type = nullptr;
  };
  static std::unordered_map<std::string, Entry> types;
  auto [it, inserted] = types.try_emplace(n.name());
  Entry& e = it->second;
  if (e.type) return e.type;
  e.spec_name = "builtins." + it->first;
  const bool accumulate = dynamic_cast<const ag::AccumulateGrad*>(&n) != nullptr;
  PyType_Slot slots[] = {
      {Py_tp_dealloc, reinterpret_cast<void*>(node_dealloc)},
      {Py_tp_call, reinterpret_cast<void*>(node_call)},
      {Py_tp_methods, node_methods},
      {Py_tp_getset, accumulate ? accumulate_grad_getset : node_getset},
      {Py_tp_doc, const_cast<char*>("A node of the autograd graph (Tensor.grad_fn).")},
      {0, nullptr}};
  PyType_Spec spec{e.spec_name.c_str(), static_cast<int>(sizeof(PyNode)), 0,
                   Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION, slots};
  PyObject* type = PyType_FromSpec(&spec);
  if (!type) {
    types.erase(it);
    throw python_error_already_set();
  }
  e.type = reinterpret_cast<PyTypeObject*>(type);
  e.type->tp_name = it->first.c_str();
  return e.type;
}

}  // namespace

std::string hook_name(PyObject* hook) {
  PyObject* name = PyObject_GetAttrString(hook, "__name__");
  if (!name) {
    PyErr_Clear();
    return "<unknown>";
  }
  const char* s = PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : nullptr;
  std::string r = s ? s : "<unknown>";
  if (!s) PyErr_Clear();
  Py_DECREF(name);
  return r;
}

PyObject* make_removable_handle(ag::RemovableHandle handle) {
  static PyObject* const cls = [] {
    PyObject* mod = PyImport_ImportModule("ember.utils.hooks");
    if (!mod) throw python_error_already_set();
    PyObject* c = PyObject_GetAttrString(mod, "RemovableHandle");
    Py_DECREF(mod);
    if (!c) throw python_error_already_set();
    return c;
  }();
  py::object h = py::cast(std::move(handle));  // _C._RemovableHandle, registered in autograd.cpp
  return PyObject_CallOneArg(cls, h.ptr());
}

PyObject* wrap_node(const std::shared_ptr<ag::Node>& node) {
  if (!node) Py_RETURN_NONE;
  if (auto* f = dynamic_cast<ag::FunctionNode*>(node.get()); f && f->payload) {
    PyObject* ctx = static_cast<PyObject*>(f->payload.get());
    Py_INCREF(ctx);
    return ctx;
  }
  if (PyObject* existing = static_cast<PyObject*>(node->pyobj)) {
    Py_INCREF(existing);
    return existing;
  }
  PyTypeObject* type = node_type(*node);
  PyObject* o = type->tp_alloc(type, 0);
  if (!o) return nullptr;
  new (&reinterpret_cast<PyNode*>(o)->node) std::shared_ptr<ag::Node>(node);
  node->pyobj = o;
  return o;
}

}  // namespace ember::python
