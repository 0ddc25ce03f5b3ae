#include "indexing.h"

#include "arg_parser.h"
#include "tensor.h"

namespace ember::python {

namespace {

bool is_int_index(PyObject* o) {
  if (PyBool_Check(o)) return false;
  if (PyLong_Check(o)) return true;
  if (is_tensor(o)) return unwrap(o).dim() == 0 && is_integral(unwrap(o).dtype(), false);
  return Py_TYPE(o)->tp_as_number && Py_TYPE(o)->tp_as_number->nb_index && !PyFloat_Check(o);
}

std::optional<int64_t> slice_bound(PyObject* o) {
  if (o == Py_None) return std::nullopt;
  EMBER_CHECK_TYPE(is_int_index(o), "slice indices must be integers or None or have an __index__ method");
  Py_ssize_t v = PyNumber_AsSsize_t(o, nullptr);  // clamps huge values to Py_ssize_t's range
  if (v == -1 && PyErr_Occurred()) throw python_error_already_set();
  return static_cast<int64_t>(v);
}

// Applies a basic index (int, slice, None, Ellipsis or a tuple of them) to t, returning a view.
Tensor apply_index(const Tensor& t, PyObject* index) {
  PyObject* tup = PyTuple_Check(index) ? index : nullptr;
  Py_ssize_t n = tup ? PyTuple_GET_SIZE(tup) : 1;
  auto item = [&](Py_ssize_t i) { return tup ? PyTuple_GET_ITEM(tup, i) : index; };
  int64_t consuming = 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* o = item(i);
    if (o != Py_Ellipsis && o != Py_None) ++consuming;
  }
  EMBER_CHECK_INDEX(consuming <= t.dim(), "too many indices for tensor of dimension {}", t.dim());
  Tensor r = t;
  int64_t dim = 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* o = item(i);
    if (o == Py_None) {
      r = r.unsqueeze(dim++);
    } else if (o == Py_Ellipsis) {
      // Every ellipsis skips the dims no other index takes, as PyTorch's applySlicing (which, unlike NumPy,
      // accepts several: x[..., 0, ...] is x[..., 0]).
      dim += t.dim() - consuming;
    } else if (PySlice_Check(o)) {
      PySliceObject* s = reinterpret_cast<PySliceObject*>(o);
      std::optional<int64_t> step = slice_bound(s->step);
      EMBER_CHECK_VALUE(step.value_or(1) > 0, "step must be greater than zero");
      r = r.slice(dim++, slice_bound(s->start), slice_bound(s->stop), step.value_or(1));
    } else if (is_int_index(o)) {
      int64_t idx = is_tensor(o) ? unwrap(o).item().to_long() : to_int64(o, "__getitem__", "index");
      int64_t size = r.size(dim);
      EMBER_CHECK_INDEX(idx >= -size && idx < size, "index {} is out of bounds for dimension {} with size {}", idx,
                        dim, size);
      r = r.select(dim, idx);
    } else if (is_tensor(o) && !is_integral(unwrap(o).dtype(), true)) {
      EMBER_FAIL_KIND(ErrorKind::Index, "tensors used as indices must be long, byte or bool tensors");
    } else if (PyUnicode_Check(o) || PyBytes_Check(o)) {
      // PyTorch takes a str as a sequence of indices and fails to make a tensor of it.
      EMBER_FAIL_KIND(ErrorKind::Type, "new(): invalid data type '{}'", py_type_name(o));
    } else if (is_tensor(o) || PyList_Check(o) || PyBool_Check(o)) {
      EMBER_FAIL_KIND(ErrorKind::NotImplemented,
                      "indexing with tensors, lists or bools (advanced indexing) is not supported yet");
    } else {
      EMBER_FAIL_KIND(ErrorKind::Index,
                      "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                      "indices (got {})",
                      py_type_name(o));
    }
  }
  return r;
}

}  // namespace

PyObject* tensor_getitem(PyObject* self, PyObject* index) {
  EMBER_PY_TRY
  return wrap(apply_index(unwrap(self), index));
  EMBER_PY_CATCH(nullptr)
}

int tensor_setitem(PyObject* self, PyObject* index, PyObject* value) {
  EMBER_PY_TRY
  if (!value) {
    PyErr_SetString(PyExc_TypeError, "Tensor does not support deleting items");
    return -1;
  }
  Tensor view = apply_index(unwrap(self), index);
  if (is_tensor(value)) {
    // Leading size-1 dims of the value are dropped first (PyTorch's copy_to: x[0] = t of shape (1, 4) fills a
    // row of 4); the rest broadcasts to the indexed view.
    const Tensor& v = unwrap(value);
    int64_t lead = 0;
    while (lead < v.dim() && v.sizes()[lead] == 1) ++lead;
    view.copy_(lead == 0 ? v : v.view(IntArrayRef(v.sizes().data() + lead, static_cast<size_t>(v.dim() - lead))));
  } else if (PyBool_Check(value)) {
    view.fill_(Scalar(value == Py_True));
  } else if (PyLong_Check(value)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
    EMBER_CHECK(!overflow, "Overflow when unpacking long");
    if (v == -1 && PyErr_Occurred()) return -1;
    view.fill_(Scalar(static_cast<int64_t>(v)));
  } else if (PyFloat_Check(value)) {
    view.fill_(Scalar(PyFloat_AS_DOUBLE(value)));
  } else {
    EMBER_FAIL_KIND(ErrorKind::Type, "can't assign a {} to a Tensor", py_type_name(value));
  }
  return 0;
  EMBER_PY_CATCH(-1)
}

}  // namespace ember::python
