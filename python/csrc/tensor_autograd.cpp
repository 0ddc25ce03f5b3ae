// The autograd part of _C._TensorBase: requires_grad, grad, grad_fn, is_leaf, data, _base, retains_grad,
// output_nr and backward, retain_grad, requires_grad_, register_hook, detach_, is_inference, _is_view,
// _make_subclass, on the CPython API as the rest of the type. Each maps onto the C++ API of
// ember/autograd/autograd.h; the checks made here are the ones PyTorch 1.13 makes in its Python binding, with
// its exception types and messages.
#include "tensor_autograd.h"

#include <pybind11/pybind11.h>

#include <optional>
#include <string>

#include "arg_parser.h"
#include "python_node.h"
#include "tensor.h"

namespace py = pybind11;

namespace ember::python {
namespace ag = ember::autograd;

namespace {

// PyTorch's requires_grad_leaf_error.
std::string leaf_error(bool requires_grad) {
  std::string s = "you can only change requires_grad flags of leaf variables.";
  if (!requires_grad)
    s += " If you want to use a computed variable in a subgraph that doesn't require differentiation use "
         "var_no_grad = var.detach().";
  return s;
}

// ---- attributes
PyObject* get_requires_grad(PyObject* self, void*) { return PyBool_FromLong(ag::requires_grad(unwrap(self))); }

int set_requires_grad(PyObject* self, PyObject* value, void*) {
  EMBER_PY_TRY
  EMBER_CHECK(value && PyBool_Check(value), "requires_grad must be a bool");
  const Tensor& t = unwrap(self);
  const bool r = value == Py_True;
  EMBER_CHECK(ag::is_leaf(t), "{}", leaf_error(r));
  EMBER_CHECK(!r || is_floating_point(t.dtype()) || is_complex(t.dtype()),
              "only Tensors of floating point and complex dtype can require gradients");
  ag::set_requires_grad(t, r);
  return 0;
  EMBER_PY_CATCH(-1)
}

PyObject* get_grad(PyObject* self, void*) {
  EMBER_PY_TRY
  const Tensor& t = unwrap(self);
  Tensor g = ag::grad(t);
  if (!g.defined() && !ag::is_leaf(t) && !ag::retains_grad(t)) {
    // As PyTorch 1.13 (TensorBase::grad): backward never fills the .grad of a non-leaf by itself.
    if (PyErr_WarnEx(PyExc_UserWarning,
                     "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
                     "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
                     "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
                     "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
                     "github.com/pytorch/pytorch/pull/30531 for more informations.",
                     1) < 0)
      return nullptr;
  }
  return wrap(g);
  EMBER_PY_CATCH(nullptr)
}

int set_grad(PyObject* self, PyObject* value, void*) {
  EMBER_PY_TRY
  const Tensor& t = unwrap(self);
  if (!value || value == Py_None) {  // `del t.grad` too
    ag::set_grad(t, Tensor());
    return 0;
  }
  // PyTorch's message, without a space before the type's name.
  EMBER_CHECK_TYPE(is_tensor(value), "assigned grad expected to be a Tensor or None but got grad of type{}",
                   Py_TYPE(value)->tp_name);
  EMBER_CHECK(value != self, "can't assign Variable as its own grad");
  const Tensor& g = unwrap(value);
  EMBER_CHECK(g.dtype() == t.dtype(), "assigned grad has data of a different type");  // checked first, as PyTorch
  ag::set_grad(t, g);
  return 0;
  EMBER_PY_CATCH(-1)
}

PyObject* get_grad_fn(PyObject* self, void*) {
  EMBER_PY_TRY
  return wrap_node(ag::grad_fn(unwrap(self)));
  EMBER_PY_CATCH(nullptr)
}

PyObject* get_is_leaf(PyObject* self, void*) { return PyBool_FromLong(ag::is_leaf(unwrap(self))); }

// Note [Tensor.data]
// Reading .data gives, as PyTorch's variable_data(), an alias without autograd history and with a version counter
// of its own: in-place changes through it are not seen by autograd's saved-tensor checks (that is what programs use
// .data for: updating weights behind autograd's back), while detach() shares the version counter and so is seen.
// Assigning .data is PyTorch's set_data: the tensor itself takes the new data's storage, dtype and geometry
// (TensorImpl::set_data, Note [set_data]) and keeps its identity: the Python object, its requires_grad and
// every C++ handle to it, so a Parameter converted by Module.double() stays the object optimizers hold, and a
// script module's runtime module (which holds the same tensor) computes with the new data at once. A grad
// moves over when it still fits (same sizes and dtype), else it is dropped (Ember's grads always match their
// tensor); the gradient accumulator of a leaf whose dtype changed is dropped (as PyTorch's), so the next
// graph makes one for the new dtype.
PyObject* get_data(PyObject* self, void*) {
  EMBER_PY_TRY
  Tensor d = unwrap(self).detach();
  d.impl()->set_version_counter(make_intrusive<VersionCounter>());
  return wrap(std::move(d));
  EMBER_PY_CATCH(nullptr)
}

int set_data(PyObject* self, PyObject* value, void*) {
  EMBER_PY_TRY
  EMBER_CHECK(value, "Deleting tensor data is not allowed. Delete tensor instead!");
  EMBER_CHECK_TYPE(is_tensor(value), "Variable data has to be a tensor, but got {}", Py_TYPE(value)->tp_name);
  const Tensor& t = unwrap(self);
  const Tensor& src = unwrap(value);
  EMBER_CHECK_VALUE(ag::is_leaf(t), "data can only be assigned to a leaf tensor in Ember");
  if (src.impl() == t.impl()) return 0;
  Tensor g = ag::grad(t);
  if (g.defined() && !(g.dtype() == src.dtype() && ag::same_sizes(g.sizes(), src.sizes()))) ag::set_grad(t, Tensor());
  const DType old = t.dtype();
  t.impl()->set_data(*src.impl());
  if (ag::AutogradMeta* m = ag::get_meta(t); m && t.dtype() != old) m->grad_accumulator.reset();
  return 0;
  EMBER_PY_CATCH(-1)
}

PyObject* get_base(PyObject* self, void*) {
  EMBER_PY_TRY
  return wrap(unwrap(self)._base());
  EMBER_PY_CATCH(nullptr)
}

PyObject* get_retains_grad(PyObject* self, void*) { return PyBool_FromLong(ag::retains_grad(unwrap(self))); }

PyObject* get_output_nr(PyObject* self, void*) {
  const ag::AutogradMeta* m = ag::get_meta(unwrap(self));
  return PyLong_FromUnsignedLong(m && m->grad_fn ? m->output_nr : 0);
}

// ---- methods
PyObject* m_backward(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_TRY
  PyObject* a[4];
  parse_method_args("backward", {"gradient", "retain_graph", "create_graph", "inputs"}, args, nargs, kwnames, a);
  ag::variable_list grads;
  if (a[0] && a[0] != Py_None) {
    EMBER_CHECK_TYPE(is_tensor(a[0]), "backward(): argument 'gradient' must be a Tensor or None, not {}",
                     Py_TYPE(a[0])->tp_name);
    grads.push_back(unwrap(a[0]));
  }
  std::optional<bool> retain_graph;
  bool create_graph = false;
  if (a[1] && a[1] != Py_None) {
    const int r = PyObject_IsTrue(a[1]);
    if (r < 0) return nullptr;
    retain_graph = r != 0;
  }
  if (a[2]) {
    const int r = PyObject_IsTrue(a[2]);
    if (r < 0) return nullptr;
    create_graph = r != 0;
  }
  ag::variable_list inputs;
  if (a[3] && a[3] != Py_None) {
    if (is_tensor(a[3])) {
      inputs.push_back(unwrap(a[3]));
    } else {
      PyObject* seq = PySequence_Fast(a[3], "backward(): 'inputs' must be a Tensor or a sequence of Tensors");
      if (!seq) return nullptr;
      for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); ++i) {
        PyObject* o = PySequence_Fast_GET_ITEM(seq, i);
        if (!is_tensor(o)) {
          PyErr_Format(PyExc_RuntimeError, "all inputs have to be Tensors, but got %s", Py_TYPE(o)->tp_name);
          Py_DECREF(seq);
          return nullptr;
        }
        inputs.push_back(unwrap(o));
      }
      Py_DECREF(seq);
    }
    EMBER_CHECK(!inputs.empty(), "'inputs' argument to backward() cannot be empty.");
  }
  ag::backward({unwrap(self)}, grads, retain_graph, create_graph, inputs);
  Py_RETURN_NONE;
  EMBER_PY_CATCH(nullptr)
}

PyObject* m_retain_grad(PyObject* self, PyObject*) {
  EMBER_PY_TRY
  ag::retain_grad(unwrap(self));
  Py_RETURN_NONE;
  EMBER_PY_CATCH(nullptr)
}

PyObject* m_requires_grad_(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_TRY
  PyObject* a[1];
  EMBER_CHECK_TYPE(nargs <= 1, "requires_grad_() takes from 0 to 1 positional arguments but {} were given", nargs);
  parse_method_args("requires_grad_", {"requires_grad"}, args, nargs, kwnames, a);
  EMBER_CHECK_TYPE(!a[0] || PyBool_Check(a[0]), "requires_grad_(): argument 'requires_grad'{} must be bool, not {}",
                   nargs == 1 ? " (position 1)" : "", a[0] ? Py_TYPE(a[0])->tp_name : "");
  const bool r = !a[0] || a[0] == Py_True;
  const Tensor& t = unwrap(self);
  EMBER_CHECK(r || ag::is_leaf(t), "{}", leaf_error(r));
  EMBER_CHECK(!r || is_floating_point(t.dtype()) || is_complex(t.dtype()),
              "only Tensors of floating point dtype can require gradients");
  ag::set_requires_grad(t, r);
  Py_INCREF(self);
  return self;
  EMBER_PY_CATCH(nullptr)
}

// hook(grad) -> Tensor or None (Note [tensor hooks] in ember/autograd/Node.cpp). As PyTorch's, any object is
// taken; one that is not callable fails when backward calls it.
PyObject* m_register_hook(PyObject* self, PyObject* hook) {
  EMBER_PY_TRY
  std::shared_ptr<PyObject> f = keep_py(hook);
  ag::GradHook fn = [f](const Tensor& g) -> Tensor {
    py::gil_scoped_acquire gil;
    py::object r = py::reinterpret_borrow<py::object>(f.get())(py::reinterpret_steal<py::object>(wrap(g)));
    if (r.is_none()) return Tensor();
    EMBER_CHECK_TYPE(is_tensor(r.ptr()), "expected Variable, but hook returned '{}'", Py_TYPE(r.ptr())->tp_name);
    return unwrap(r.ptr());
  };
  return make_removable_handle(ag::register_hook(unwrap(self), std::move(fn), hook_name(hook)));
  EMBER_PY_CATCH(nullptr)
}

PyObject* m_detach_(PyObject* self, PyObject*) {
  EMBER_PY_TRY
  ag::detach_(unwrap(self));
  Py_INCREF(self);
  return self;
  EMBER_PY_CATCH(nullptr)
}

PyObject* m_is_inference(PyObject* self, PyObject*) { return PyBool_FromLong(unwrap(self).is_inference()); }
PyObject* m_is_view(PyObject* self, PyObject*) { return PyBool_FromLong(unwrap(self).impl()->view_base() != nullptr); }

// Tensor._make_subclass(cls, data, require_grad=False), as PyTorch's: a new object of the Tensor subclass cls
// (ember.nn.Parameter) around a detached alias of data (same storage and version counter, a TensorImpl of its
// own so that the object is its Python object), with requires_grad set.
PyObject* m_make_subclass(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_TRY
  PyObject* a[3];
  parse_method_args("_make_subclass", {"cls", "data", "require_grad"}, args, nargs, kwnames, a);
  EMBER_CHECK_TYPE(a[0] && a[1], "_make_subclass() missing required arguments 'cls' and 'data'");
  EMBER_CHECK(PyType_Check(a[0]) && PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(a[0]), &TensorBaseType),
              "Creating a Tensor subclass from a class that does not inherit from Tensor is not possible. Make sure "
              "your class inherits from Tensor.");
  EMBER_CHECK_TYPE(is_tensor(a[1]), "_make_subclass(): argument 'data' must be Tensor, not {}",
                   Py_TYPE(a[1])->tp_name);
  bool requires_grad = false;
  if (a[2]) {
    const int r = PyObject_IsTrue(a[2]);
    if (r < 0) return nullptr;
    requires_grad = r != 0;
  }
  Tensor t = unwrap(a[1]).detach();
  ag::set_requires_grad(t, requires_grad);
  return wrap_as(reinterpret_cast<PyTypeObject*>(a[0]), std::move(t));
  EMBER_PY_CATCH(nullptr)
}

// Tensor.as_subclass(cls), as PyTorch's: an object of the Tensor subclass cls sharing self's data and staying in
// the autograd graph (an alias of self, whose gradient flows back to self; PyTorch's AliasBackward0).
PyObject* m_as_subclass(PyObject* self, PyObject* cls) {
  EMBER_PY_TRY
  EMBER_CHECK(PyType_Check(cls) && PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), &TensorBaseType),
              "Creating a Tensor subclass from a class that does not inherit from Tensor is not possible. Make sure "
              "your class inherits from Tensor (as_subclass got {}).",
              PyType_Check(cls) ? reinterpret_cast<PyTypeObject*>(cls)->tp_name : Py_TYPE(cls)->tp_name);
  return wrap_as(reinterpret_cast<PyTypeObject*>(cls), ember::alias(unwrap(self)));
  EMBER_PY_CATCH(nullptr)
}

template <class F>
PyCFunction fastcall(F f) {
  return reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(f));
}

}  // namespace

PyGetSetDef tensor_autograd_getset[] = {
    {"requires_grad", get_requires_grad, set_requires_grad, "Whether autograd records operations on this tensor.",
     nullptr},
    {"grad", get_grad, set_grad, "The gradient accumulated by backward() (None until one is computed).", nullptr},
    {"grad_fn", get_grad_fn, nullptr, "The node that produced this tensor (None for leaves).", nullptr},
    {"is_leaf", get_is_leaf, nullptr, "True when the tensor has no grad_fn.", nullptr},
    {"data", get_data, set_data,
     "The tensor without autograd history (an alias of the same storage); assigning a tensor makes this tensor "
     "use that tensor's data (dtype and shape included). See Note [Tensor.data].",
     nullptr},
    {"_base", get_base, nullptr, "The tensor this view was made from by a view op, or None (not a view).", nullptr},
    {"retains_grad", get_retains_grad, nullptr, "Whether a non-leaf tensor's .grad is filled by backward.", nullptr},
    {"output_nr", get_output_nr, nullptr, "Which output of its grad_fn this tensor is (0 for leaves).", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMethodDef tensor_autograd_methods[] = {
    {"backward", fastcall(m_backward), METH_FASTCALL | METH_KEYWORDS,
     "backward($self, /, gradient=None, retain_graph=None, create_graph=False, inputs=None)\n--\n\n"
     "Computes the gradient of this tensor w.r.t. the graph leaves and adds it into their .grad (only into "
     "`inputs` when given); see ember.autograd.backward.\n\n"
     "Raises:\n    RuntimeError: the tensor does not require grad; an implicit gradient for a non-scalar; a "
     "second backward through a freed graph; a saved tensor modified in place; empty inputs."},
    {"retain_grad", m_retain_grad, METH_NOARGS,
     "Makes backward() fill .grad of this non-leaf tensor. Raises RuntimeError if it does not require grad."},
    {"requires_grad_", fastcall(m_requires_grad_), METH_FASTCALL | METH_KEYWORDS,
     "requires_grad_($self, /, requires_grad=True)\n--\n\n"
     "Sets requires_grad in place and returns self. Raises RuntimeError on a non-leaf with False and on a "
     "non-floating tensor with True; TypeError for a non-bool."},
    {"register_hook", m_register_hook, METH_O,
     "register_hook($self, hook, /)\n--\n\n"
     "Registers ``hook(grad) -> Tensor or None`` on this tensor's gradient; a returned tensor (same shape and "
     "dtype) replaces the gradient. On a leaf it runs once per backward before accumulation into .grad; on a "
     "non-leaf when its gradient is computed. Returns a handle with ``remove()``.\n\n"
     "Raises:\n    RuntimeError: the tensor does not require grad; (during backward) the hook changed the shape "
     "or dtype of the gradient.\n    TypeError: (during backward) the hook returned something that is neither "
     "a tensor nor None."},
    {"detach_", m_detach_, METH_NOARGS,
     "Detaches the tensor from the graph in place (it becomes a leaf that does not require grad); returns self."},
    {"is_inference", m_is_inference, METH_NOARGS, "Whether this tensor was created in inference mode."},
    {"_is_view", m_is_view, METH_NOARGS, "Whether this tensor is a view made by a view op (has a _base)."},
    {"_make_subclass", fastcall(m_make_subclass), METH_FASTCALL | METH_KEYWORDS | METH_STATIC,
     "_make_subclass(cls, data, require_grad=False)\n--\n\n"
     "A new object of the Tensor subclass cls aliasing data's storage, with requires_grad set (ember.nn.Parameter's "
     "constructor)."},
    {"as_subclass", m_as_subclass, METH_O,
     "as_subclass(cls) -> Tensor\n--\n\nAn object of the Tensor subclass cls with self's data, attached to the "
     "autograd graph (an alias of self)."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace ember::python
