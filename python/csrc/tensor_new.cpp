#include "tensor_new.h"

#include "jit.h"

#include "ember/autograd/autograd.h"

#include <cstring>

#include "arg_parser.h"
#include "dtype.h"
#include "jit.h"
#include "tensor.h"

namespace ember::python {

namespace {

// Note [tensor() data]
// As PyTorch's internal_new_from_data: the sizes come from the first element at each depth of nested
// sequences (lists, tuples and any other Python sequence but str and bytes; a tensor or NumPy array at the top
// is the whole data); the dtype is promote_types over the leaves (bool, int64 and the default dtype for
// Python numbers; their own dtype for one-element tensors and NumPy scalars), the default dtype with no
// leaves. The exception types are PyTorch's: a sequence of the wrong length is a ValueError, a number where
// a sequence belongs (or the other way round) a TypeError, a str inside the data a ValueError ("too many
// dimensions", PyTorch recurses into its characters), another object a RuntimeError.

struct PyRef {
  PyObject* o;
  ~PyRef() { Py_XDECREF(o); }
};

bool is_text(PyObject* o) { return PyUnicode_Check(o) || PyBytes_Check(o); }
bool is_sequence(PyObject* o) {
  if (PyList_Check(o) || PyTuple_Check(o)) return true;
  return !is_tensor(o) && !is_text(o) && PySequence_Check(o);
}
Py_ssize_t seq_len(PyObject* o) {
  if (PyList_Check(o) || PyTuple_Check(o)) return PySequence_Fast_GET_SIZE(o);
  Py_ssize_t n = PySequence_Length(o);
  if (n < 0) throw python_error_already_set();
  return n;
}
// Item i of a sequence, as a new reference.
PyObject* seq_item(PyObject* o, Py_ssize_t i) {
  if (PyList_Check(o) || PyTuple_Check(o)) {
    PyObject* r = PySequence_Fast_GET_ITEM(o, i);
    Py_INCREF(r);
    return r;
  }
  PyObject* r = PySequence_GetItem(o, i);
  if (!r) throw python_error_already_set();
  return r;
}

bool is_numpy_bool(PyObject* o) { return std::strcmp(Py_TYPE(o)->tp_name, "numpy.bool_") == 0; }

std::optional<DType> dtype_of_typestr(std::string_view ts) {
  if (ts == "|b1") return kBool;
  if (ts == "|u1") return kUInt8;
  if (ts == "|i1") return kInt8;
  if (ts == "<i2") return kInt16;
  if (ts == "<i4") return kInt32;
  if (ts == "<i8") return kInt64;
  if (ts == "<f2") return kFloat16;
  if (ts == "<f4") return kFloat32;
  if (ts == "<f8") return kFloat64;
  if (ts == "<c8") return kComplexFloat;
  if (ts == "<c16") return kComplexDouble;
  return std::nullopt;
}

// The dtype of a leaf value (NumPy scalars first, as PyTorch: a NumPy float64 is also a Python float).
DType leaf_dtype(PyObject* o) {
  if (PyFloat_CheckExact(o)) return default_dtype();
  if (PyComplex_CheckExact(o)) return default_complex_dtype();
  if (PyBool_Check(o)) return kBool;
  if (PyLong_CheckExact(o)) return kInt64;
  if (is_tensor(o)) {
    const Tensor& t = unwrap(o);
    EMBER_CHECK_VALUE(t.numel() == 1, "only one element tensors can be converted to Python scalars");
    return t.dtype();
  }
  EMBER_CHECK_VALUE(!PyUnicode_Check(o), "too many dimensions '{}'", py_type_name(o));
  EMBER_CHECK_TYPE(!PyBytes_Check(o), "new(): invalid data type '{}'", py_type_name(o));
  if (PyFloat_Check(o) && !PyObject_HasAttrString(o, "__array_interface__")) return default_dtype();
  if (PyLong_Check(o) && !PyObject_HasAttrString(o, "__array_interface__")) return kInt64;
  if (PyComplex_Check(o) && !PyObject_HasAttrString(o, "__array_interface__")) return default_complex_dtype();
  if (PyObject_HasAttrString(o, "__array_interface__")) {  // NumPy scalars
    PyRef ai{PyObject_GetAttrString(o, "__array_interface__")};
    PyObject* ts = ai.o && PyDict_Check(ai.o) ? PyDict_GetItemString(ai.o, "typestr") : nullptr;
    const char* c = ts ? PyUnicode_AsUTF8(ts) : nullptr;
    if (!c) PyErr_Clear();
    std::optional<DType> d = c ? dtype_of_typestr(c) : std::nullopt;
    EMBER_CHECK_TYPE(d.has_value(), "can't convert np.ndarray of type {}", c ? c : "?");
    return *d;
  }
  EMBER_FAIL("Could not infer dtype of {}", py_type_name(o));
}

// Sizes from the first element at each depth.
void infer_shape(PyObject* o, DimVector& shape) {
  PyRef hold{nullptr};
  while (is_sequence(o)) {
    Py_ssize_t n = seq_len(o);
    shape.push_back(n);
    if (n == 0) return;
    PyObject* next = seq_item(o, 0);
    Py_XDECREF(hold.o);
    hold.o = next;
    o = next;
  }
}

// Checks the nesting against shape and promotes the leaves' dtypes into `dtype`.
void scan(PyObject* o, const DimVector& shape, size_t depth, std::optional<DType>& dtype) {
  if (depth == shape.size()) {
    EMBER_CHECK_TYPE(!is_sequence(o), "'{}' object cannot be interpreted as a number", py_type_name(o));
    DType d = leaf_dtype(o);
    dtype = dtype ? promote_types(*dtype, d) : d;
    return;
  }
  EMBER_CHECK_TYPE(is_sequence(o), "not a sequence (expected a sequence of length {} at dim {}, got {})",
                   shape[depth], depth, py_type_name(o));
  Py_ssize_t n = seq_len(o);
  EMBER_CHECK_VALUE(n == shape[depth], "expected sequence of length {} at dim {} (got {})", shape[depth], depth, n);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyRef item{seq_item(o, i)};
    scan(item.o, shape, depth + 1, dtype);
  }
}

template <class T>
void fill(PyObject* o, size_t depth, size_t ndim, T*& out) {
  if (depth == ndim) {
    if (is_tensor(o)) {
      *out++ = unwrap(o).item().to<T>();
    } else if constexpr (std::is_same_v<T, double>) {
      double d = PyFloat_AsDouble(o);
      if (d == -1.0 && PyErr_Occurred()) throw python_error_already_set();
      *out++ = d;
    } else if constexpr (std::is_same_v<T, std::complex<double>>) {
      Py_complex c = PyComplex_AsCComplex(o);  // floats and ints too (and NumPy scalars)
      if (c.real == -1.0 && PyErr_Occurred()) throw python_error_already_set();
      *out++ = std::complex<double>(c.real, c.imag);
    } else if (std::is_same_v<T, bool> || PyBool_Check(o) || is_numpy_bool(o)) {
      const int truth = PyObject_IsTrue(o);  // -1: its __bool__ raised; pass that error on
      if (truth < 0) throw python_error_already_set();
      *out++ = static_cast<T>(truth);
    } else {
      PyObject* idx = PyNumber_Index(o);
      if (!idx) throw python_error_already_set();
      int overflow = 0;
      long long v = PyLong_AsLongLongAndOverflow(idx, &overflow);
      Py_DECREF(idx);
      EMBER_CHECK(!overflow, "Overflow when unpacking long");
      *out++ = static_cast<T>(v);
    }
    return;
  }
  Py_ssize_t n = seq_len(o);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyRef item{seq_item(o, i)};
    fill(item.o, depth + 1, ndim, out);
  }
}

Tensor from_numpy_impl(PyObject* arr);

}  // namespace

// Nested sequences of numbers (or a number) as a new tensor; see Note [tensor() data]. dtype: inferred unless
// given; values that do not fit an integral dtype raise.
Tensor tensor_from_data(PyObject* data, std::optional<DType> dtype) {
  if (is_tensor(data)) {
    // A new leaf, as PyTorch's torch.tensor(t) (which warns to use t.clone().detach()): no history of t's.
    Tensor t = unwrap(data).detach().clone(MemoryFormat::Contiguous);
    return dtype ? t.to(*dtype) : t;
  }
  EMBER_CHECK_TYPE(!is_text(data), "new(): invalid data type '{}'", py_type_name(data));
  if (!PyList_Check(data) && !PyTuple_Check(data) && PyObject_HasAttrString(data, "__array_interface__")) {
    Tensor t = from_numpy_impl(data).clone(MemoryFormat::Contiguous);
    return dtype ? t.to(*dtype) : t;
  }
  DimVector shape;
  infer_shape(data, shape);
  std::optional<DType> leaves;
  scan(data, shape, 0, leaves);
  DType inferred = leaves.value_or(default_dtype());
  // A complex target stages every leaf as complex128; complex leaves with a real target are PyTorch's TypeError.
  EMBER_CHECK_TYPE(!is_complex(inferred) || !dtype || is_complex(*dtype), "must be real number, not complex");
  DType staging = inferred == kBool                                       ? kBool
                  : is_complex(inferred) || (dtype && is_complex(*dtype)) ? kComplexDouble
                  : is_floating_point(inferred)                           ? kFloat64
                                                                          : kInt64;
  Tensor t = ember::empty(shape, staging);
  if (staging == kBool) {
    bool* p = t.data_ptr<bool>();
    fill(data, 0, shape.size(), p);
  } else if (staging == kInt64) {
    int64_t* p = t.data_ptr<int64_t>();
    fill(data, 0, shape.size(), p);
  } else if (staging == kComplexDouble) {
    auto* p = static_cast<std::complex<double>*>(t.data_ptr());
    fill(data, 0, shape.size(), p);
  } else {
    double* p = t.data_ptr<double>();
    fill(data, 0, shape.size(), p);
  }
  DType target = dtype.value_or(inferred);
  if (is_integral(target, false) && staging != kBool) {
    // Each value must fit an integral dtype, as PyTorch checks (floating targets take inf silently).
    for (int64_t i = 0; i < t.numel(); ++i) {
      Scalar v = staging == kInt64    ? Scalar(t.data_ptr<int64_t>()[i])
                 : staging == kFloat64 ? Scalar(t.data_ptr<double>()[i])
                                       : Scalar(static_cast<const std::complex<double>*>(t.data_ptr())[i]);
      EMBER_CHECK(!overflows(v, target), "value cannot be converted to type {} without overflow", target);
    }
  }
  return target == staging ? t : t.to(target);
}

namespace {

void release_array(void* ctx, void*) {
  PyGILState_STATE g = PyGILState_Ensure();
  Py_DECREF(static_cast<PyObject*>(ctx));
  PyGILState_Release(g);
}

// Shares the memory of an object with the NumPy array interface (version 3).
Tensor from_numpy_impl(PyObject* arr) {
  PyObject* ai = PyObject_GetAttrString(arr, "__array_interface__");
  if (!ai) throw python_error_already_set();
  struct Ref {
    PyObject* o;
    ~Ref() { Py_XDECREF(o); }
  } ai_ref{ai};
  PyObject* typestr = PyDict_GetItemString(ai, "typestr");
  PyObject* shape_o = PyDict_GetItemString(ai, "shape");
  PyObject* strides_o = PyDict_GetItemString(ai, "strides");
  PyObject* data_o = PyDict_GetItemString(ai, "data");
  EMBER_CHECK_TYPE(typestr && shape_o && data_o && PyTuple_Check(data_o), "from_numpy: expected np.ndarray (got {})",
                   py_type_name(arr));
  std::string ts = PyUnicode_AsUTF8(typestr);
  std::optional<DType> found = dtype_of_typestr(ts);
  if (!found)
    EMBER_FAIL_KIND(ErrorKind::Type,
                    "can't convert np.ndarray of type {}. The only supported types are: float64, float32, float16, "
                    "int64, int32, int16, int8, uint8, and bool.",
                    ts);
  DType dt = *found;
  int64_t es = element_size(dt);
  DimVector sizes, strides;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(shape_o); ++i)
    sizes.push_back(PyLong_AsLongLong(PyTuple_GET_ITEM(shape_o, i)));
  if (strides_o && strides_o != Py_None) {
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(strides_o); ++i) {
      int64_t s = PyLong_AsLongLong(PyTuple_GET_ITEM(strides_o, i));
      EMBER_CHECK_VALUE(s >= 0,
                        "At least one stride in the given numpy array is negative, and tensors with negative strides "
                        "are not currently supported. (You can probably work around this by making a copy of your "
                        "array with array.copy().) ");
      EMBER_CHECK_VALUE(s % es == 0, "given numpy array strides not a multiple of the element byte size. Copy the "
                                     "numpy array to reallocate the memory.");
      strides.push_back(s / es);
    }
  } else {
    strides = contiguous_strides(sizes);
  }
  void* data = PyLong_AsVoidPtr(PyTuple_GET_ITEM(data_o, 0));
  Py_INCREF(arr);
  try {
    return from_blob(data, sizes, strides, dt, &release_array, arr);
  } catch (...) {
    Py_DECREF(arr);
    throw;
  }
}

PyObject* py_tensor(PyObject*, PyObject* args, PyObject* kwargs) {
  EMBER_PY_TRY
  static const char* kw[] = {"data", "dtype", "device", "requires_grad", "pin_memory", nullptr};
  PyObject *data = nullptr, *dtype_o = Py_None, *device_o = Py_None, *rg = Py_False, *pin = Py_False;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$OOOO", const_cast<char**>(kw), &data, &dtype_o, &device_o, &rg,
                                   &pin))
    return nullptr;
  std::optional<DType> dtype;
  if (dtype_o != Py_None) {
    DType d;
    EMBER_CHECK_TYPE(as_dtype(dtype_o, &d), "tensor(): argument 'dtype' must be ember.dtype, not {}",
                     py_type_name(dtype_o));
    dtype = d;
  }
  if (device_o != Py_None) {
    Device d;
    EMBER_CHECK_TYPE(as_device(device_o, &d), "tensor(): argument 'device' must be Device, not {}",
                     py_type_name(device_o));
    EMBER_CHECK(d.is_cpu(), "tensor(): device '{}' is not available; this build supports only cpu", d.str());
  }
  // PyTorch's parser takes only a bool here (a tensor's truth would raise, or be read as a flag by mistake).
  EMBER_CHECK_TYPE(PyBool_Check(rg), "tensor(): argument 'requires_grad' must be bool, not {}", py_type_name(rg));
  EMBER_CHECK_TYPE(PyBool_Check(pin), "tensor(): argument 'pin_memory' must be bool, not {}", py_type_name(pin));
  Tensor t = traced_constant([&] { return tensor_from_data(data, dtype); }, kTensorConstantWarning);
  if (rg == Py_True) autograd::set_requires_grad(t, true);
  return wrap(std::move(t));
  EMBER_PY_CATCH(nullptr)
}

PyObject* py_from_numpy(PyObject*, PyObject* arr) {
  EMBER_PY_TRY
  // An ndarray only, as PyTorch's: NumPy scalars (np.float64(2.0)) have an array interface too.
  EMBER_CHECK_TYPE(is_numpy_array(arr) && PyObject_HasAttrString(arr, "__array_interface__"),
                   "expected np.ndarray (got {})", py_type_name(arr));
  return wrap(from_numpy_impl(arr));
  EMBER_PY_CATCH(nullptr)
}

PyMethodDef methods[] = {
    {"tensor", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_tensor)), METH_VARARGS | METH_KEYWORDS,
     "tensor(data, *, dtype=None, device=None, requires_grad=False) -> Tensor\n\nA new tensor holding a copy of "
     "data (nested lists/tuples of numbers, a number, a NumPy array or a tensor). The dtype is inferred (bool, "
     "int64, or the default floating dtype) unless given.\n\nRaises: ValueError for ragged nesting; TypeError for "
     "values that are not numbers."},
    {"from_numpy", py_from_numpy, METH_O,
     "from_numpy(ndarray) -> Tensor\n\nA tensor sharing the memory of a NumPy array (which stays alive while the "
     "tensor does).\n\nRaises: ValueError for negative strides; TypeError for unsupported dtypes."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

Tensor legacy_tensor_new(PyObject* args, PyObject* kwargs) {
  EMBER_CHECK_TYPE(!kwargs || PyDict_Size(kwargs) == 0, "Tensor(): keyword arguments are not supported");
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  if (n == 0) return ember::empty({0});
  PyObject* first = PyTuple_GET_ITEM(args, 0);
  if (n == 1 && !PyLong_Check(first))
    return traced_constant([first] { return tensor_from_data(first, default_dtype()); }, kTensorConstantWarning);
  DimVector sizes;
  for (Py_ssize_t i = 0; i < n; ++i) sizes.push_back(to_int64(PyTuple_GET_ITEM(args, i), "Tensor", "size"));
  return ember::empty(sizes);
}

void init_tensor_new(PyObject* m) { PyModule_AddFunctions(m, methods); }

}  // namespace ember::python
