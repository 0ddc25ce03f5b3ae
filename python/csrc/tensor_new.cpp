#include "tensor_new.h"

#include <cstring>

#include "arg_parser.h"
#include "dtype.h"
#include "tensor.h"

namespace ember::python {

namespace {

enum class Kind { Bool = 0, Int = 1, Float = 2 };

bool is_sequence(PyObject* o) { return PyList_Check(o) || PyTuple_Check(o); }

// Leaf values: Python bool/int/float, numpy scalars, or one-element tensors.
Kind leaf_kind(PyObject* o) {
  if (PyBool_Check(o)) return Kind::Bool;
  if (PyLong_Check(o)) return Kind::Int;
  if (PyFloat_Check(o)) return Kind::Float;
  if (is_tensor(o)) {
    const Tensor& t = unwrap(o);
    EMBER_CHECK_VALUE(t.numel() == 1, "only one element tensors can be converted to Python scalars");
    return t.dtype() == kBool ? Kind::Bool : is_floating_point(t.dtype()) ? Kind::Float : Kind::Int;
  }
  PyNumberMethods* nm = Py_TYPE(o)->tp_as_number;
  if (nm && nm->nb_index && !PyUnicode_Check(o)) return Kind::Int;
  if (nm && nm->nb_float && !PyUnicode_Check(o)) return Kind::Float;
  EMBER_FAIL_KIND(ErrorKind::Type, "Could not infer dtype of {}", py_type_name(o));
}

// Shape from the first element at each depth.
void infer_shape(PyObject* o, DimVector& shape) {
  while (is_sequence(o)) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    shape.push_back(n);
    if (n == 0) return;
    o = PySequence_Fast_GET_ITEM(o, 0);
  }
}

// Checks the nesting against shape and records the widest leaf kind.
void scan(PyObject* o, const DimVector& shape, size_t depth, Kind& kind, bool& any) {
  if (depth == shape.size()) {
    EMBER_CHECK_VALUE(!is_sequence(o), "too many dimensions '{}'", py_type_name(o));
    Kind k = leaf_kind(o);
    kind = any ? std::max(kind, k) : k;
    any = true;
    return;
  }
  EMBER_CHECK_VALUE(is_sequence(o), "expected sequence of length {} at dim {} (got {})", shape[depth], depth,
                    py_type_name(o));
  Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  EMBER_CHECK_VALUE(n == shape[depth], "expected sequence of length {} at dim {} (got {})", shape[depth], depth, n);
  for (Py_ssize_t i = 0; i < n; ++i) scan(PySequence_Fast_GET_ITEM(o, i), shape, depth + 1, kind, any);
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
    } else if constexpr (std::is_same_v<T, bool>) {
      *out++ = PyObject_IsTrue(o) == 1;
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
  Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  for (Py_ssize_t i = 0; i < n; ++i) fill(PySequence_Fast_GET_ITEM(o, i), depth + 1, ndim, out);
}

Tensor from_numpy_impl(PyObject* arr);

}  // namespace

Tensor tensor_from_data(PyObject* data, std::optional<DType> dtype) {
  if (is_tensor(data)) {
    Tensor t = unwrap(data).clone(MemoryFormat::Contiguous);
    return dtype ? t.to(*dtype) : t;
  }
  if (!is_sequence(data) && PyObject_HasAttrString(data, "__array_interface__")) {
    Tensor t = from_numpy_impl(data).clone(MemoryFormat::Contiguous);
    return dtype ? t.to(*dtype) : t;
  }
  DimVector shape;
  infer_shape(data, shape);
  Kind kind = Kind::Float;
  bool any = false;
  scan(data, shape, 0, kind, any);
  if (!any) kind = Kind::Float;  // empty: the default dtype
  DType inferred = kind == Kind::Bool ? kBool : kind == Kind::Int ? kInt64 : default_dtype();
  DType staging = kind == Kind::Bool ? kBool : kind == Kind::Int ? kInt64 : kFloat64;
  Tensor t = ember::empty(shape, staging);
  if (staging == kBool) {
    bool* p = t.data_ptr<bool>();
    fill(data, 0, shape.size(), p);
  } else if (staging == kInt64) {
    int64_t* p = t.data_ptr<int64_t>();
    fill(data, 0, shape.size(), p);
  } else {
    double* p = t.data_ptr<double>();
    fill(data, 0, shape.size(), p);
  }
  DType target = dtype.value_or(inferred);
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
  DType dt;
  if (ts == "|b1") dt = kBool;
  else if (ts == "|u1") dt = kUInt8;
  else if (ts == "|i1") dt = kInt8;
  else if (ts == "<i2") dt = kInt16;
  else if (ts == "<i4") dt = kInt32;
  else if (ts == "<i8") dt = kInt64;
  else if (ts == "<f2") dt = kFloat16;
  else if (ts == "<f4") dt = kFloat32;
  else if (ts == "<f8") dt = kFloat64;
  else
    EMBER_FAIL_KIND(ErrorKind::Type,
                    "can't convert np.ndarray of type {}. The only supported types are: float64, float32, float16, "
                    "int64, int32, int16, int8, uint8, and bool.",
                    ts);
  int64_t es = element_size(dt);
  DimVector sizes, strides;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(shape_o); ++i) sizes.push_back(PyLong_AsLongLong(PyTuple_GET_ITEM(shape_o, i)));
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
    EMBER_CHECK_TYPE(as_device(device_o, &d), "tensor(): argument 'device' must be Device, not {}", py_type_name(device_o));
    EMBER_CHECK(d.is_cpu(), "tensor(): device '{}' is not available; this build supports only cpu", d.str());
  }
  EMBER_CHECK(rg != Py_True, "tensor(): requires_grad=True needs autograd, which this build does not have yet");
  return wrap(tensor_from_data(data, dtype));
  EMBER_PY_CATCH(nullptr)
}

PyObject* py_from_numpy(PyObject*, PyObject* arr) {
  EMBER_PY_TRY
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
  if (n == 1 && !PyLong_Check(first)) return tensor_from_data(first, default_dtype());
  DimVector sizes;
  for (Py_ssize_t i = 0; i < n; ++i) sizes.push_back(to_int64(PyTuple_GET_ITEM(args, i), "Tensor", "size"));
  return ember::empty(sizes);
}

void init_tensor_new(PyObject* m) { PyModule_AddFunctions(m, methods); }

}  // namespace ember::python
