#include "indexing.h"

#include "arg_parser.h"
#include "tensor.h"
#include "jit.h"
#include "tensor_new.h"

namespace ember::python {

// Note [python indexing]
// x[index] and x[index] = v follow PyTorch 1.13 (python_variable_indexing.cpp and ATen's TensorIndexing.h)
// step by step, so result shapes, views versus copies and errors match it:
//  1. One int, slice, None or Ellipsis is basic indexing: a view (select, slice, unsqueeze, alias).
//  2. Otherwise the index becomes a tuple. A list is itself one index, unless it holds a tensor, a sequence,
//     a slice, None or Ellipsis and has fewer than 32 items: then it is read as a tuple (x[[[0, 1], [1, 0]]]
//     is x[[0, 1], [1, 0]]), NumPy's old heuristic that PyTorch 1.13 keeps.
//  3. The tuple is applied left to right: ints select (a 0-dim integer tensor too), slices slice, None
//     unsqueezes, Ellipsis skips the dims no item names; tensors, lists (as int64 tensors, or bool/uint8 ones
//     when they hold bools) and bools are recorded as advanced indices at the current dim. A Python bool or a
//     0-dim bool tensor adds a dim of size 1 that is indexed by [0] (True) or [] (False). A mask counts for
//     its number of dims when checking "too many indices" but, as in PyTorch, advances the position by one.
//  4. With no advanced index the result is the view; else aten::index (Note [advanced indexing] in
//     ember/kernels/cpu/index.cpp) makes a copy, and assignment is index_put_ on the view.
// Assignment converts a Python number to a 0-dim tensor of x's dtype first (overflow raises, as PyTorch),
// drops the leading size-1 dims of the value and broadcasts it to the target.

namespace {

using Indices = std::vector<std::optional<Tensor>>;

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

Tensor apply_slice(const Tensor& t, int64_t dim, PyObject* slice) {
  PySliceObject* s = reinterpret_cast<PySliceObject*>(slice);
  std::optional<int64_t> step = slice_bound(s->step);
  EMBER_CHECK_VALUE(step.value_or(1) != 0, "slice step cannot be zero");
  EMBER_CHECK_VALUE(step.value_or(1) > 0, "step must be greater than zero");
  std::optional<int64_t> start = slice_bound(s->start), stop = slice_bound(s->stop);
  EMBER_CHECK_INDEX(t.dim() > 0, "too many indices for tensor of dimension 0");
  return t.slice(dim, start, stop, step.value_or(1));
}

// x.select(dim, index) with PyTorch's messages; real_dim is the position of the index in the tuple.
Tensor apply_select(const Tensor& t, int64_t dim, int64_t index, int64_t real_dim) {
  EMBER_CHECK_INDEX(!(index == 0 && dim == 0 && t.dim() == 0),
                    "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to "
                    "convert a 0-dim tensor to a number");
  EMBER_CHECK_INDEX(dim < t.dim(), "too many indices for tensor of dimension {}", t.dim());
  int64_t size = t.size(dim);
  EMBER_CHECK_INDEX(size >= -index && size > index, "index {} is out of bounds for dimension {} with size {}", index,
                    real_dim, size);
  return t.select(dim, index);
}

bool is_mask(DType d) { return d == kBool || d == kUInt8; }

// A Python bool as an index of a new size-1 dim: [0] keeps it, [] empties it.
Tensor bool_index(bool value) { return value ? ember::zeros({1}, kInt64) : ember::empty({0}, kInt64); }

// A list used as an index: an int64 tensor, or a bool/uint8 one (a mask) when its items are bools.
Tensor sequence_index(PyObject* seq) {
  return traced_constant([seq] {
    Tensor t = tensor_from_data(seq, std::nullopt);
    return is_mask(t.dtype()) ? t : t.to(kInt64);
  }, nullptr);
}

// PyTorch's treatSequenceAsTuple (step 2 of Note [python indexing]).
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

// The index as a tuple (a new reference).
PyObject* wrap_tuple(PyObject* index) {
  PyObject* r = treat_sequence_as_tuple(index) ? PySequence_Tuple(index) : PyTuple_Pack(1, index);
  if (!r) throw python_error_already_set();
  return r;
}

struct PyRef {
  PyObject* p;
  ~PyRef() { Py_XDECREF(p); }
};

// The dims the index names (everything but None, Ellipsis and Python bools; a mask names its own dims).
int64_t count_specified_dims(PyObject* tup) {
  int64_t count = 0;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(tup); ++i) {
    PyObject* obj = PyTuple_GET_ITEM(tup, i);
    if (is_tensor(obj)) {
      const Tensor& t = unwrap(obj);
      count += is_mask(t.dtype()) ? t.dim() : 1;
    } else if (obj != Py_None && obj != Py_Ellipsis && obj != Py_True && obj != Py_False) {
      ++count;
    }
  }
  return count;
}

[[noreturn]] void invalid_index(PyObject* obj) {
  EMBER_FAIL_KIND(ErrorKind::Index,
                  "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices "
                  "(got {})",
                  py_type_name(obj));
}

// Step 3 of Note [python indexing]: the view after the basic items, with the advanced ones in `indices`.
Tensor apply_slicing(const Tensor& self, PyObject* tup, Indices& indices) {
  const int64_t specified = count_specified_dims(tup);
  EMBER_CHECK_INDEX(specified <= self.dim(), "too many indices for tensor of dimension {}", self.dim());
  Tensor result = self;
  int64_t dim = 0;
  auto record = [&](Tensor t) {
    indices.resize(static_cast<size_t>(dim + 1));
    indices[static_cast<size_t>(dim)] = std::move(t);
    ++dim;
  };
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(tup); ++i) {
    PyObject* obj = PyTuple_GET_ITEM(tup, i);
    if (is_long(obj)) {
      result = apply_select(result, dim, unpack_long(obj), i);
    } else if (PySlice_Check(obj)) {
      result = apply_slice(result, dim++, obj);
    } else if (obj == Py_Ellipsis) {
      dim += self.dim() - specified;
    } else if (obj == Py_None) {
      result = result.unsqueeze(dim++);
    } else if (PyBool_Check(obj)) {
      result = result.unsqueeze(dim);
      record(bool_index(obj == Py_True));
    } else if (is_tensor(obj)) {
      const Tensor& t = unwrap(obj);
      if (t.dim() == 0 && is_integral(t.dtype(), true)) {
        if (!is_mask(t.dtype())) {
          result = apply_select(result, dim, t.item().to_long(), i);
        } else {
          result = result.unsqueeze(dim);
          record(bool_index(t.item().to_bool()));
        }
      } else {
        record(t);
      }
    } else if (PySequence_Check(obj)) {
      record(sequence_index(obj));
    } else {
      PyObject* idx = PyNumber_Index(obj);
      if (!idx) {
        PyErr_Clear();
        invalid_index(obj);
      }
      PyRef guard{idx};
      result = apply_select(result, dim, unpack_long(idx), i);
    }
  }
  return result;
}

// dst = src as PyTorch's copy_to: equal shapes copy, a 0-dim src fills, else src without its leading size-1
// dims is broadcast to dst.
void copy_to(const Tensor& dst, const Tensor& src) {
  if (dst.sizes().equals(src.sizes())) {
    dst.copy_(src);
    return;
  }
  if (src.dim() == 0) {
    dst.fill_(src.item());
    return;
  }
  IntArrayRef s = src.sizes();
  size_t first = 0;
  while (first < s.size() && s[first] == 1) ++first;
  Tensor v = src.view(IntArrayRef(s.data() + first, s.size() - first));
  dst.copy_(v.expand(dst.sizes()));
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
  return ember::full(IntArrayRef(), s, self.dtype());
}

}  // namespace

PyObject* tensor_getitem(PyObject* self, PyObject* index) {
  EMBER_PY_TRY
  const Tensor& t = unwrap(self);
  // Step 1 of Note [python indexing]: the basic single items.
  if (index == Py_None) return wrap(t.unsqueeze(0));
  if (index == Py_Ellipsis) return wrap(ember::alias(t));
  if (is_long(index)) return wrap(apply_select(t, 0, unpack_long(index), 0));
  if (PySlice_Check(index)) return wrap(apply_slice(t, 0, index));
  PyRef tup{wrap_tuple(index)};
  Indices indices;
  Tensor sliced = apply_slicing(t, tup.p, indices);
  if (indices.empty()) return wrap(sliced.is_same(t) ? ember::alias(t) : sliced);
  return wrap(ember::index(sliced, indices));
  EMBER_PY_CATCH(nullptr)
}

int tensor_setitem(PyObject* self, PyObject* index, PyObject* py_value) {
  EMBER_PY_TRY
  EMBER_CHECK_TYPE(py_value, "Tensor does not support deleting items");
  const Tensor& t = unwrap(self);
  Tensor value = value_to_tensor(t, py_value);
  if (index == Py_False) return 0;  // an empty selection (PyTorch does not check the value's size)
  if (index == Py_Ellipsis) {
    copy_to(t, value);
    return 0;
  }
  if (index == Py_None || index == Py_True) {
    copy_to(t.unsqueeze(0), value);
    return 0;
  }
  if (is_long(index)) {
    copy_to(apply_select(t, 0, unpack_long(index), 0), value);
    return 0;
  }
  if (PySlice_Check(index)) {
    copy_to(apply_slice(t, 0, index), value);
    return 0;
  }
  PyRef tup{wrap_tuple(index)};
  Indices indices;
  Tensor sliced = apply_slicing(t, tup.p, indices);
  if (indices.empty()) {
    copy_to(sliced, value);
    return 0;
  }
  IntArrayRef s = value.sizes();
  size_t first = 0;
  while (first < s.size() && s[first] == 1) ++first;
  Tensor v = first == 0 ? value : value.view(IntArrayRef(s.data() + first, s.size() - first));
  ember::index_put_(sliced, indices, v, false);
  return 0;
  EMBER_PY_CATCH(-1)
}

}  // namespace ember::python
