#include "indexing.h"

#include <cstring>

#include "arg_parser.h"
#include "tensor.h"
#include "jit.h"
#include "tensor_new.h"
#include "ember/ops/TensorIndexing.h"

namespace ember::python {

// Note [python indexing]
// x[index] and x[index] = v follow PyTorch 1.13 (python_variable_indexing.cpp). The rules themselves live in
// the ops layer (Note [tensor indexing] in ember/ops/TensorIndexing.cpp), shared with C++'s x.index({...});
// this file only turns the Python index into the list of TensorIndex items it takes:
//  - A tuple is a list of items. A list is itself one item, unless it holds a tensor, a sequence, a slice,
//    None or Ellipsis and has fewer than 32 items: then it is read as a tuple (x[[[0, 1], [1, 0]]] is
//    x[[0, 1], [1, 0]]), NumPy's old heuristic that PyTorch 1.13 keeps. Anything else is a single item.
//  - ints and objects with __index__ are integers, slices Slices (step read first, as Python's
//    PySlice_Unpack), None and Ellipsis themselves, bools booleans, tensors tensors, and a list an int64
//    tensor (or a bool/uint8 mask when it holds bools) that names one dim (TensorIndex::from_sequence).
// Assignment converts a Python number to a 0-dim tensor of x's dtype first (overflow raises, as PyTorch).

namespace {

using indexing::TensorIndex;
using Items = std::vector<TensorIndex>;

// A Python int (not a bool): PyTorch's THPUtils_checkLong.
bool is_long(PyObject* o) { return PyLong_Check(o) && !PyBool_Check(o); }

int64_t unpack_long(PyObject* o) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (overflow) EMBER_FAIL_KIND(ErrorKind::Runtime, "Overflow when unpacking long");
  if (v == -1 && PyErr_Occurred()) throw python_error_already_set();
  return v;
}

std::optional<int64_t> slice_bound(PyObject* o) {
  if (o == Py_None) return std::nullopt;
  Py_ssize_t v = PyNumber_AsSsize_t(o, nullptr);  // __index__; clamps huge values to Py_ssize_t's range
  if (v == -1 && PyErr_Occurred()) {
    PyErr_Clear();
    EMBER_FAIL_KIND(ErrorKind::Type, "slice indices must be integers or None or have an __index__ method");
  }
  return static_cast<int64_t>(v);
}

indexing::Slice to_slice(PyObject* slice) {
  PySliceObject* s = reinterpret_cast<PySliceObject*>(slice);
  std::optional<int64_t> step = slice_bound(s->step);
  if (step) indexing::Slice::check_step(*step);
  std::optional<int64_t> start = slice_bound(s->start), stop = slice_bound(s->stop);
  return indexing::Slice(start, stop, step);
}

bool is_mask(DType d) { return d == kBool || d == kUInt8; }

// A list used as an index: an int64 tensor, or a bool/uint8 one (a mask) when its items are bools.
Tensor sequence_index(PyObject* seq) {
  return traced_constant([seq] {
    Tensor t = tensor_from_data(seq, std::nullopt);
    return is_mask(t.dtype()) ? t : t.to(kInt64);
  }, nullptr);
}

// PyTorch's treatSequenceAsTuple (the first rule of Note [python indexing]).
bool treat_sequence_as_tuple(PyObject* index) {
  if (PyTuple_Check(index)) return true;
  if (is_tensor(index) || !PySequence_Check(index)) return false;
  Py_ssize_t n = PySequence_Size(index);
  if (n < 0) {
    PyErr_Clear();
    return false;
  }
  if (n >= 32) return false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* obj = PySequence_GetItem(index, i);
    if (!obj) {
      PyErr_Clear();
      return false;
    }
    bool tuple_like = is_tensor(obj) || PySequence_Check(obj) || PySlice_Check(obj) || obj == Py_Ellipsis ||
                      obj == Py_None;
    Py_DECREF(obj);
    if (tuple_like) return true;
  }
  return false;
}

struct PyRef {
  PyObject* p;
  ~PyRef() { Py_XDECREF(p); }
};

[[noreturn]] void invalid_index(PyObject* obj) {
  EMBER_FAIL_KIND(ErrorKind::Index,
                  "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices "
                  "(got {})",
                  py_type_name(obj));
}

// One Python index item as a TensorIndex.
TensorIndex to_item(PyObject* obj) {
  if (is_long(obj)) return TensorIndex(unpack_long(obj));
  if (PySlice_Check(obj)) return TensorIndex(to_slice(obj));
  if (obj == Py_Ellipsis) return TensorIndex(indexing::Ellipsis);
  if (obj == Py_None) return TensorIndex(indexing::None);
  if (PyBool_Check(obj)) return TensorIndex(obj == Py_True);
  if (is_tensor(obj)) return TensorIndex(unwrap(obj));
  if (PySequence_Check(obj)) return TensorIndex::from_sequence(sequence_index(obj));
  PyObject* idx = PyNumber_Index(obj);
  if (!idx) {
    PyErr_Clear();
    invalid_index(obj);
  }
  PyRef guard{idx};
  return TensorIndex(unpack_long(idx));
}

// The Python index as a list of items (the first rule of Note [python indexing]).
Items to_items(PyObject* index) {
  Items items;
  if (!treat_sequence_as_tuple(index)) {
    items.push_back(to_item(index));
    return items;
  }
  PyRef tup{PySequence_Tuple(index)};
  if (!tup.p) throw python_error_already_set();
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(tup.p); ++i) items.push_back(to_item(PyTuple_GET_ITEM(tup.p, i)));
  return items;
}

// PyTorch's legacy tensor type names ("Float" for float32), for messages.
const char* legacy_type_name(DType d) {
  switch (d) {
    case kFloat32: return "Float";
    case kFloat64: return "Double";
    case kFloat16: return "Half";
    case kBFloat16: return "BFloat16";
    case kInt64: return "Long";
    case kInt32: return "Int";
    case kInt16: return "Short";
    case kInt8: return "Char";
    case kUInt8: return "Byte";
    case kBool: return "Bool";
    case kComplexFloat: return "ComplexFloat";
    case kComplexDouble: return "ComplexDouble";
  }
  return "";
}

// The value of x[index] = value as a tensor: a tensor itself, or a number as a 0-dim tensor of x's dtype.
Tensor value_to_tensor(const Tensor& self, PyObject* value) {
  if (is_tensor(value)) return unwrap(value);
  Scalar s;
  if (PyBool_Check(value)) {
    s = Scalar(static_cast<int64_t>(value == Py_True));
  } else if (PyLong_Check(value)) {
    s = Scalar(unpack_long(value));
  } else if (PyFloat_Check(value)) {
    s = Scalar(PyFloat_AS_DOUBLE(value));
  } else if (PyComplex_Check(value) || std::strncmp(Py_TYPE(value)->tp_name, "numpy.complex", 13) == 0) {
    Py_complex c = PyComplex_AsCComplex(value);
    if (c.real == -1.0 && PyErr_Occurred()) throw python_error_already_set();
    s = Scalar(std::complex<double>(c.real, c.imag));
  } else if (!PyUnicode_Check(value) && !PySequence_Check(value) && Py_TYPE(value)->tp_as_number &&
             (Py_TYPE(value)->tp_as_number->nb_index || Py_TYPE(value)->tp_as_number->nb_float)) {
    // NumPy scalars.
    if (Py_TYPE(value)->tp_as_number->nb_index) {
      PyObject* i = PyNumber_Index(value);
      if (!i) throw python_error_already_set();
      PyRef guard{i};
      s = Scalar(unpack_long(i));
    } else {
      double d = PyFloat_AsDouble(value);
      if (d == -1.0 && PyErr_Occurred()) throw python_error_already_set();
      s = Scalar(d);
    }
  } else {
    EMBER_FAIL_KIND(ErrorKind::Type, "can't assign a {} to a {}", Py_TYPE(value)->tp_name,
                    fmt::format("ember.{}Tensor", legacy_type_name(self.dtype())));
  }
  return indexing::value_to_tensor(self, s);
}

}  // namespace

PyObject* tensor_getitem(PyObject* self, PyObject* index) {
  EMBER_PY_TRY
  const Tensor& t = unwrap(self);
  Items items = to_items(index);
  return wrap(indexing::get_item(t, items));
  EMBER_PY_CATCH(nullptr)
}

int tensor_setitem(PyObject* self, PyObject* index, PyObject* py_value) {
  EMBER_PY_TRY
  EMBER_CHECK_TYPE(py_value, "Tensor does not support deleting items");
  const Tensor& t = unwrap(self);
  Tensor value = value_to_tensor(t, py_value);
  Items items = to_items(index);
  indexing::set_item(t, items, value);
  return 0;
  EMBER_PY_CATCH(-1)
}

}  // namespace ember::python
