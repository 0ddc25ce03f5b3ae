#include "op_binding.h"

#include <map>
#include <memory>
#include <unordered_map>

#include "arg_parser.h"
#include "python_op_table.h"
#include "ember/autograd/autograd.h"
#include "dtype.h"
#include "ember/ops/meta.h"
#include "profiler.h"
#include "tensor.h"

namespace ember::python {

namespace {

struct PyOp {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  std::string* name;
  std::vector<Signature>* overloads;
};

// One reusable stack per nesting level of calls on this thread: an op may call back into Python (custom
// ops) and from there into other ops, each of which needs its own stack while the outer one is in use.
struct StackLease {
  static thread_local std::vector<std::unique_ptr<Stack>> pool;
  static thread_local size_t depth;
  Stack* stack;
  StackLease() {
    if (depth == pool.size()) {
      pool.push_back(std::make_unique<Stack>());
      pool.back()->reserve(32);
    }
    stack = pool[depth++].get();
    stack->clear();
  }
  ~StackLease() {
    stack->clear();
    --depth;
  }
};
thread_local std::vector<std::unique_ptr<Stack>> StackLease::pool;
thread_local size_t StackLease::depth = 0;

// requires_grad= of a factory call (Note [requires_grad of factories]): a bool; True makes the result a leaf
// that requires grad (floating dtypes only, PyTorch's RuntimeError otherwise).
void set_factory_requires_grad(Stack& stack, PyObject* requires_grad) {
  if (!PyBool_Check(requires_grad)) {
    PyErr_Format(PyExc_TypeError, "argument 'requires_grad' must be bool, not %s", py_type_name(requires_grad).c_str());
    throw python_error_already_set();
  }
  if (requires_grad == Py_True) autograd::set_requires_grad(stack.back().to_tensor(), true);
}

// Tries each overload; returns the result, or nullptr when none accepted the arguments (mismatch_reasons
// then says why). Errors raised by the op itself propagate as C++ exceptions.
PyObject* dispatch_call(PyOp* op, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                        bool from_operator = false) {
  StackLease lease;
  Stack& stack = *lease.stack;
  for (const Signature& sig : *op->overloads) {
    PyObject* requires_grad = nullptr;
    if (!parse_call(sig, args, nargs, kwnames, stack, nullptr, from_operator, &requires_grad)) continue;
    if (profiler::enabled()) [[unlikely]] {  // Note [op profiler]
      profiler::Range range(sig.op.schema().name);
      sig.op.call_boxed(&stack);
    } else {
      sig.op.call_boxed(&stack);
    }
    if (requires_grad) set_factory_requires_grad(stack, requires_grad);
    return result_to_python(sig, stack, args, nargs, kwnames);
  }
  return nullptr;
}

// Why each overload rejected the arguments (for the TypeError; off the hot path, so the messages are only
// formatted here).
std::vector<std::string> mismatch_reasons(PyOp* op, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  StackLease lease;
  std::vector<std::string> why;
  for (const Signature& sig : *op->overloads) {
    std::string reason;
    if (!parse_call(sig, args, nargs, kwnames, *lease.stack, &reason)) why.push_back(std::move(reason));
    lease.stack->clear();
  }
  return why;
}

PyObject* op_vectorcall(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  PyOp* op = reinterpret_cast<PyOp*>(self);
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  EMBER_PY_TRY
  if (PyObject* r = dispatch_call(op, args, nargs, kwnames)) return r;
  std::vector<std::string> why = mismatch_reasons(op, args, nargs, kwnames);
  // Nothing matched: TypeError in PyTorch's style.
  std::string got = "(";
  for (Py_ssize_t i = 0; i < nargs; ++i) got += (i ? ", " : "") + py_type_name(args[i]);
  if (kwnames) {
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(kwnames); ++k)
      got += fmt::format("{}{}={}", nargs + k ? ", " : "", PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k)),
                         py_type_name(args[nargs + k]));
  }
  got += ")";
  std::string msg;
  if (op->overloads->size() == 1) {
    msg = fmt::format("{}(): {}; expected {}{}", *op->name, why.empty() ? "invalid arguments" : why[0], *op->name,
                      (*op->overloads)[0].text);
  } else {
    msg = fmt::format("{}() received an invalid combination of arguments - got {}, but expected one of:", *op->name,
                      got);
    for (size_t i = 0; i < op->overloads->size(); ++i)
      msg += fmt::format("\n * {}\n      ({})", (*op->overloads)[i].text, i < why.size() ? why[i] : "");
  }
  PyErr_SetString(PyExc_TypeError, msg.c_str());
  return nullptr;
  EMBER_PY_CATCH(nullptr)
}

PyObject* op_call(PyObject* self, PyObject* args, PyObject* kwargs) { return PyVectorcall_Call(self, args, kwargs); }

// As a class attribute the op binds like a method (x.add(y) passes x first); CPython's method-call
// optimization skips this binding when the type has Py_TPFLAGS_METHOD_DESCRIPTOR.
PyObject* op_descr_get(PyObject* self, PyObject* obj, PyObject*) {
  if (!obj || obj == Py_None) {
    Py_INCREF(self);
    return self;
  }
  return PyMethod_New(self, obj);
}

PyObject* op_repr(PyObject* self) {
  return PyUnicode_FromFormat("<ember op %s>", reinterpret_cast<PyOp*>(self)->name->c_str());
}

PyObject* op_get_doc(PyObject* self, void*) {
  PyOp* op = reinterpret_cast<PyOp*>(self);
  std::string doc;
  for (const Signature& s : *op->overloads) doc += *op->name + s.text + "\n";
  const std::string& d = op->overloads->front().op.info().doc;
  if (!d.empty()) doc += "\n" + d + "\n";
  return PyUnicode_FromString(doc.c_str());
}
PyObject* op_get_name(PyObject* self, void*) {
  return PyUnicode_FromString(reinterpret_cast<PyOp*>(self)->name->c_str());
}
PyObject* op_get_schemas(PyObject* self, void*) {
  PyOp* op = reinterpret_cast<PyOp*>(self);
  PyObject* l = PyList_New(0);
  for (const Signature& s : *op->overloads) {
    PyObject* str = PyUnicode_FromString(s.op.schema().str().c_str());
    PyList_Append(l, str);
    Py_DECREF(str);
  }
  return l;
}
PyGetSetDef op_getset[] = {{"__doc__", op_get_doc, nullptr, nullptr, nullptr},
                           {"__name__", op_get_name, nullptr, nullptr, nullptr},
                           {"_schemas", op_get_schemas, nullptr, "The schemas of the overloads.", nullptr},
                           {nullptr, nullptr, nullptr, nullptr, nullptr}};

// Ops of the database live as long as the process; ember.ops.<ns>.<op> objects may be dropped.
void op_dealloc(PyObject* self) {
  PyOp* op = reinterpret_cast<PyOp*>(self);
  delete op->name;
  delete op->overloads;
  PyObject_Free(self);
}

PyTypeObject OpType = [] {
  PyTypeObject t = new_type_object();
  t.tp_name = "ember._C._Op";
  t.tp_basicsize = sizeof(PyOp);
  t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR;
  t.tp_vectorcall_offset = offsetof(PyOp, vectorcall);
  t.tp_call = op_call;
  t.tp_dealloc = op_dealloc;
  t.tp_descr_get = op_descr_get;
  t.tp_repr = op_repr;
  t.tp_getset = op_getset;
  return t;
}();

// _C._meta(op, *args, **kwargs) -> (sizes, dtype) or None: the op's shape rule applied to the arguments of the
// first overload that accepts them (Note [shape rules]); for tests and tools.
PyObject* meta_vectorcall(PyObject*, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  EMBER_PY_TRY
  EMBER_CHECK_TYPE(nargs >= 1 && PyObject_TypeCheck(args[0], &OpType), "_meta: expected an op as first argument");
  PyOp* op = reinterpret_cast<PyOp*>(args[0]);
  Stack stack;
  std::string why;
  for (const Signature& sig : *op->overloads) {
    if (!parse_call(sig, args + 1, nargs - 1, kwnames, stack, &why)) continue;
    std::optional<TensorMeta> m = infer_meta(sig.op, stack);
    if (!m) Py_RETURN_NONE;
    PyObject* sizes = PyTuple_New(static_cast<Py_ssize_t>(m->sizes.size()));
    for (size_t i = 0; i < m->sizes.size(); ++i) PyTuple_SET_ITEM(sizes, i, PyLong_FromLongLong(m->sizes[i]));
    return Py_BuildValue("(NN)", sizes, new_ref_dtype(m->dtype));
  }
  EMBER_FAIL_KIND(ErrorKind::Type, "_meta: no overload of {} accepts these arguments ({})", *op->name, why);
  EMBER_PY_CATCH(nullptr)
}

std::unordered_map<std::string, PyOp*>& functions_by_name() {
  static auto* m = new std::unordered_map<std::string, PyOp*>();
  return *m;
}

PyOp* new_op(const std::string& name) {
  PyOp* op = PyObject_New(PyOp, &OpType);
  op->vectorcall = op_vectorcall;
  op->name = new std::string(name);
  op->overloads = new std::vector<Signature>();
  return op;
}

// Note [overload order]
// As PyTorch's generated bindings (sort_overloads in gen_python_functions.py), an overload taking a Tensor is
// tried before one that takes a Scalar in the same place and is otherwise the same: a 0-dim tensor matches
// both, and must keep its dtype in promotion (clamp(int_tensor, min=float64_0dim) is float64) rather than
// become a wrapped number.
bool scalar_where_tensor(const Signature& a, const Signature& b) {
  if (a.args.size() != b.args.size()) return false;
  bool smaller = false;
  for (size_t i = 0; i < a.args.size(); ++i) {
    const ArgSpec& x = a.args[i];
    const ArgSpec& y = b.args[i];
    if (x.optional != y.optional) return false;
    if (x.kind == y.kind) continue;
    if (x.kind != ArgKind::Scalar || y.kind != ArgKind::Tensor) return false;
    smaller = true;
  }
  return smaller;
}

// A topological order of that partial order; otherwise the database's order is kept.
void sort_overloads(std::vector<Signature>& v) {
  for (bool moved = true; moved;) {
    moved = false;
    for (size_t i = 0; i < v.size() && !moved; ++i) {
      for (size_t j = i + 1; j < v.size() && !moved; ++j) {
        if (!scalar_where_tensor(v[i], v[j])) continue;
        std::rotate(v.begin() + static_cast<std::ptrdiff_t>(i), v.begin() + static_cast<std::ptrdiff_t>(j),
                    v.begin() + static_cast<std::ptrdiff_t>(j) + 1);
        moved = true;
      }
    }
  }
}

}  // namespace

void init_ops(PyObject* m, PyObject* functions, PyObject* module_functions) {
  if (PyType_Ready(&OpType) < 0) throw python_error_already_set();
  Py_INCREF(&OpType);
  PyModule_AddObject(m, "_Op", reinterpret_cast<PyObject*>(&OpType));
  static PyMethodDef meta_def = {"_meta", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(meta_vectorcall)),
                                 METH_FASTCALL | METH_KEYWORDS,
                                 "_meta(op, *args, **kwargs) -> (sizes, dtype) or None: the op's shape rule."};
  PyModule_AddObject(m, "_meta", PyCFunction_New(&meta_def, nullptr));
  std::unordered_map<std::string, PyOp*> methods;
  std::vector<std::string> fn_order, method_order;
  std::map<std::string, std::unordered_map<std::string, PyOp*>> module_ops;
  std::map<std::string, std::vector<std::string>> module_order;
  for (const OperatorHandle& h : Dispatcher::singleton().all_ops()) {
    const FunctionSchema& s = h.schema();
    if (s.name.rfind("aten::", 0) != 0) continue;  // custom namespaces are reached as ember.ops.<ns>.<op>
    const PythonOpInfo* py = python_op_info(s.full_name());
    if (!py) continue;  // hidden from Python (`python: false` in the database)
    std::string name(s.base_name());
    if (py->function && *py->python_module) {
      // ember._C._nn.pad and the like: one dict of op objects per module.
      const std::string mod = py->python_module;
      auto& f = module_ops[mod][name];
      if (!f) {
        f = new_op(name);
        module_order[mod].push_back(name);
      }
      f->overloads->push_back(make_signature(h));
    } else if (py->function) {
      auto& f = functions_by_name()[name];
      if (!f) {
        f = new_op(name);
        fn_order.push_back(name);
      }
      f->overloads->push_back(make_signature(h));
    }
    if (py->method) {
      auto& f = methods[name];
      if (!f) {
        f = new_op(name);
        method_order.push_back(name);
      }
      f->overloads->push_back(make_signature(h));
    }
  }
  for (auto& [name, op] : functions_by_name()) sort_overloads(*op->overloads);  // Note [overload order]
  for (auto& [name, op] : methods) sort_overloads(*op->overloads);
  for (auto& [mod, ops] : module_ops)
    for (auto& [name, op] : ops) sort_overloads(*op->overloads);
  for (const std::string& n : fn_order)
    PyDict_SetItemString(functions, n.c_str(), reinterpret_cast<PyObject*>(functions_by_name()[n]));
  for (auto& [mod, names] : module_order) {
    PyObject* d = PyDict_New();
    for (const std::string& n : names)
      PyDict_SetItemString(d, n.c_str(), reinterpret_cast<PyObject*>(module_ops[mod][n]));
    PyDict_SetItemString(module_functions, mod.c_str(), d);
    Py_DECREF(d);
  }
  PyObject* dict = TensorBaseType.tp_dict;
  for (const std::string& n : method_order) {
    // Hand-written methods of _TensorBase (size, stride, ...) win over ops of the same name.
    if (PyDict_GetItemString(dict, n.c_str())) continue;
    PyDict_SetItemString(dict, n.c_str(), reinterpret_cast<PyObject*>(methods[n]));
  }
  PyType_Modified(&TensorBaseType);
}

PyObject* find_op(const char* name) {
  auto it = functions_by_name().find(name);
  if (it != functions_by_name().end()) return reinterpret_cast<PyObject*>(it->second);
  // In-place ops (add_) are methods only; find them on the type.
  PyObject* meth = PyDict_GetItemString(TensorBaseType.tp_dict, name);
  return meth && PyObject_TypeCheck(meth, &OpType) ? meth : nullptr;
}

PyObject* make_qualified_op(const std::string& qualified_name) {
  PyOp* op = nullptr;
  for (const OperatorHandle& h : Dispatcher::singleton().all_ops()) {
    if (h.schema().name != qualified_name) continue;
    if (!op) op = new_op(qualified_name);
    op->overloads->push_back(make_signature(h));
  }
  if (!op) Py_RETURN_NONE;
  sort_overloads(*op->overloads);  // Note [overload order]
  return reinterpret_cast<PyObject*>(op);
}

PyObject* call_op_or_notimplemented(PyObject* op, PyObject* const* args, Py_ssize_t nargs) {
  EMBER_PY_TRY
  if (!op) Py_RETURN_NOTIMPLEMENTED;
  if (PyObject* r = dispatch_call(reinterpret_cast<PyOp*>(op), args, nargs, nullptr, true)) return r;
  Py_RETURN_NOTIMPLEMENTED;
  EMBER_PY_CATCH(nullptr)
}

}  // namespace ember::python
