// _C._TensorBase: properties, small methods and the operator protocols; the autograd attributes and methods
// are in tensor_autograd.cpp. Op methods (x.add, x.view, ...) are added from the op database at import
// (op_binding.cpp); indexing is in indexing.cpp.
#include "tensor.h"

#include <structmember.h>

#include <vector>

#include "arg_parser.h"
#include "dtype.h"
#include "indexing.h"
#include "jit.h"
#include "op_binding.h"
#include "tensor_autograd.h"
#include "tensor_new.h"

namespace ember::python {

namespace {
PyTypeObject* g_tensor_class = nullptr;
PyObject* g_size_class = nullptr;  // ember.Size

PyObject* tensor_new(PyTypeObject* type, PyObject*, PyObject*);

void tensor_dealloc(PyObject* self) {
  PyTensor* p = reinterpret_cast<PyTensor*>(self);
  if (p->t.defined() && p->t.impl()->pyobj() == self) p->t.impl()->set_pyobj(nullptr);
  p->t.~Tensor();
  // For instances of Python subclasses (ember.Tensor), CPython's subtype_dealloc calls this and then drops
  // the reference to the heap type itself.
  Py_TYPE(self)->tp_free(self);
}

// An ember.Size holding tup's items (a new reference; tup is released). Built with tuple's own constructor: the
// items are ints (or traced sizes) already, so ember.Size.__new__'s checks of user input are skipped on this path,
// which every x.shape takes.
PyObject* size_from_tuple(PyObject* tup) {
  if (!g_size_class) return tup;
  PyObject* args = PyTuple_Pack(1, tup);
  Py_DECREF(tup);
  if (!args) return nullptr;
  PyObject* r = PyTuple_Type.tp_new(reinterpret_cast<PyTypeObject*>(g_size_class), args, nullptr);
  Py_DECREF(args);
  return r;
}

PyObject* make_size(IntArrayRef sizes) {
  PyObject* tup = PyTuple_New(static_cast<Py_ssize_t>(sizes.size()));
  if (!tup) return nullptr;
  for (size_t i = 0; i < sizes.size(); ++i) PyTuple_SET_ITEM(tup, i, PyLong_FromLongLong(sizes[i]));
  return size_from_tuple(tup);
}

// While tracing, an ember.Size of traced 0-dim int64 tensors (Note [traced sizes] in
// ember/jit/frontend/Tracer.h), as PyTorch's tracer gives.
PyObject* make_traced_size(const Tensor& t) {
  PyObject* tup = PyTuple_New(t.dim());
  if (!tup) return nullptr;
  for (int64_t i = 0; i < t.dim(); ++i) PyTuple_SET_ITEM(tup, i, wrap(traced_size(t, i)));
  return size_from_tuple(tup);
}

// ---- properties
PyObject* get_shape(PyObject* self, void*) {
  EMBER_PY_TRY
  if (tracing_now()) return make_traced_size(unwrap(self));
  return make_size(unwrap(self).sizes());
  EMBER_PY_CATCH(nullptr)
}
PyObject* get_dtype(PyObject* self, void*) { return new_ref_dtype(unwrap(self).dtype()); }
PyObject* get_ndim(PyObject* self, void*) { return PyLong_FromLongLong(unwrap(self).dim()); }
PyObject* get_device(PyObject* self, void*) {
  EMBER_PY_TRY
  return make_device(unwrap(self).device());
  EMBER_PY_CATCH(nullptr)
}
PyObject* get_false(PyObject*, void*) { Py_RETURN_FALSE; }
PyObject* get_version(PyObject* self, void*) {
  EMBER_PY_TRY
  // Note [inference tensors]: PyTorch's inference tensors have no version counter to show.
  EMBER_CHECK(!unwrap(self).is_inference(), "Inference tensors do not track version counter.");
  return PyLong_FromUnsignedLong(unwrap(self)._version());
  EMBER_PY_CATCH(nullptr)
}
PyObject* get_itemsize(PyObject* self, void*) { return PyLong_FromLongLong(unwrap(self).element_size()); }
PyObject* get_nbytes(PyObject* self, void*) { return PyLong_FromLongLong(unwrap(self).nbytes()); }
PyObject* get_is_wrapped(PyObject* self, void*) { return PyBool_FromLong(unwrap(self).impl()->is_wrapped_number()); }

PyGetSetDef tensor_getset[] = {
    {"shape", get_shape, nullptr, "The sizes of the tensor, as an ember.Size.", nullptr},
    {"dtype", get_dtype, nullptr, "The element type.", nullptr},
    {"ndim", get_ndim, nullptr, "Number of dimensions.", nullptr},
    {"device", get_device, nullptr, "The device the tensor lives on.", nullptr},
    {"is_cuda", get_false, nullptr, "Always False: this build has only the CPU.", nullptr},
    {"is_sparse", get_false, nullptr, "Always False (no sparse layouts).", nullptr},
    {"is_quantized", get_false, nullptr, "Always False.", nullptr},
    {"is_meta", get_false, nullptr, "Always False.", nullptr},
    {"_version", get_version, nullptr, "The version counter (bumped by in-place ops).", nullptr},
    {"itemsize", get_itemsize, nullptr, "Bytes per element.", nullptr},
    {"nbytes", get_nbytes, nullptr, "Bytes of the elements (numel * itemsize).", nullptr},
    {"_is_wrapped_number", get_is_wrapped, nullptr, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

// ---- methods
PyObject* m_size(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_TRY
  const Tensor& t = unwrap(self);
  PyObject* dim = nullptr;
  parse_optional_dim("size", args, nargs, kwnames, &dim);
  if (tracing_now()) {
    if (!dim) return make_traced_size(t);
    return wrap(traced_size(t, to_int64(dim, "size", "dim")));
  }
  if (!dim) return make_size(t.sizes());
  return PyLong_FromLongLong(t.size(to_int64(dim, "size", "dim")));
  EMBER_PY_CATCH(nullptr)
}
PyObject* m_stride(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_TRY
  const Tensor& t = unwrap(self);
  PyObject* dim = nullptr;
  parse_optional_dim("stride", args, nargs, kwnames, &dim);
  if (!dim) {
    PyObject* tup = PyTuple_New(t.dim());
    for (int64_t i = 0; i < t.dim(); ++i) PyTuple_SET_ITEM(tup, i, PyLong_FromLongLong(t.strides()[i]));
    return tup;
  }
  return PyLong_FromLongLong(t.stride(to_int64(dim, "stride", "dim")));
  EMBER_PY_CATCH(nullptr)
}
PyObject* m_dim(PyObject* self, PyObject*) { return PyLong_FromLongLong(unwrap(self).dim()); }
PyObject* m_numel(PyObject* self, PyObject*) { return PyLong_FromLongLong(unwrap(self).numel()); }
PyObject* m_element_size(PyObject* self, PyObject*) { return PyLong_FromLongLong(unwrap(self).element_size()); }
PyObject* m_storage_offset(PyObject* self, PyObject*) { return PyLong_FromLongLong(unwrap(self).storage_offset()); }
PyObject* m_data_ptr(PyObject* self, PyObject*) {
  return PyLong_FromVoidPtr(unwrap(self).numel() ? unwrap(self).data_ptr() : nullptr);
}
// is_contiguous(*, memory_format=ember.contiguous_format), keyword-only as PyTorch's. preserve_format asks
// about the row-major layout, as PyTorch answers. Errors: TypeError for positional or other arguments.
PyObject* m_is_contiguous(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  if (nargs + nkw == 0) return PyBool_FromLong(unwrap(self).is_contiguous());
  if (nargs > 0) return PyErr_Format(PyExc_TypeError, "is_contiguous() takes 0 positional arguments but %zd %s given",
                                     nargs, nargs == 1 ? "was" : "were");
  MemoryFormat f;
  if (nkw != 1 || PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "memory_format") != 0 ||
      !as_memory_format(args[0], &f))
    return PyErr_Format(PyExc_TypeError,
                        "is_contiguous() takes one keyword argument memory_format, an ember.memory_format");
  return PyBool_FromLong(unwrap(self).is_contiguous(f == MemoryFormat::Preserve ? MemoryFormat::Contiguous : f));
}
PyObject* m_is_floating_point(PyObject* self, PyObject*) { return PyBool_FromLong(unwrap(self).is_floating_point()); }
PyObject* m_is_signed(PyObject* self, PyObject*) { return PyBool_FromLong(is_signed(unwrap(self).dtype())); }

PyObject* scalar_to_py(const Scalar& s) {
  switch (s.tag()) {
    case Scalar::Tag::Bool: return PyBool_FromLong(s.to_bool());
    case Scalar::Tag::Int: return PyLong_FromLongLong(s.to_long());
    case Scalar::Tag::Double: return PyFloat_FromDouble(s.to_double());
    case Scalar::Tag::Complex: return PyComplex_FromDoubles(s.to_double(), s.imag());
  }
  Py_RETURN_NONE;
}
PyObject* m_item(PyObject* self, PyObject*) {
  EMBER_PY_TRY
  EMBER_CHECK_VALUE(unwrap(self).numel() == 1, "only one element tensors can be converted to Python scalars");
  warn_tracer_conversion("number");
  return scalar_to_py(unwrap(self).item());
  EMBER_PY_CATCH(nullptr)
}

// Nested Python lists of the elements (Python bool/int/float per dtype).
PyObject* to_list(const Tensor& t) {
  if (t.dim() == 0) return scalar_to_py(t.item());
  PyObject* l = PyList_New(t.size(0));
  if (!l) return nullptr;  // MemoryError already set, e.g. a 2**40-long outer dim
  for (int64_t i = 0; i < t.size(0); ++i) {
    PyObject* e = to_list(t.select(0, i));
    if (!e) {
      Py_DECREF(l);
      return nullptr;
    }
    PyList_SET_ITEM(l, i, e);
  }
  return l;
}
PyObject* m_tolist(PyObject* self, PyObject*) {
  EMBER_PY_TRY
  warn_tracer_conversion("list");
  return to_list(unwrap(self));
  EMBER_PY_CATCH(nullptr)
}

PyObject* m_str(PyObject* self, PyObject* args) {
  EMBER_PY_TRY
  // _str(suffixes: list[str], prefix: str) -> str; see ember/_tensor_str.py
  PyObject* suffixes = nullptr;
  const char* prefix = "tensor(";
  if (!PyArg_ParseTuple(args, "|Os", &suffixes, &prefix)) return nullptr;
  std::vector<std::string> extra;
  if (suffixes && suffixes != Py_None) {
    PyObject* seq = PySequence_Fast(suffixes, "_str: suffixes must be a sequence of str");
    if (!seq) return nullptr;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); ++i) {
      const char* s = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, i));
      if (!s) {
        Py_DECREF(seq);
        return nullptr;
      }
      extra.emplace_back(s);
    }
    Py_DECREF(seq);
  }
  std::string s = format_tensor(unwrap(self), extra, prefix);
  return PyUnicode_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
  EMBER_PY_CATCH(nullptr)
}

// numpy interop without NumPy's C API: the array interface (version 3) describing this tensor's memory.
PyObject* m_array_interface(PyObject* self, PyObject*) {
  EMBER_PY_TRY
  const Tensor& t = unwrap(self);
  // NumPy's arrays have at most NPY_MAXDIMS (32) dimensions, and NumPy 1.24 overruns a stack buffer on an array
  // interface with more instead of refusing it: check before handing anything over, as PyTorch does.
  constexpr int64_t kNumPyMaxDims = 32;
  EMBER_CHECK_VALUE(t.dim() <= kNumPyMaxDims, "number of dimensions must be within [0, {}], got {}", kNumPyMaxDims,
                    t.dim());
  // As PyTorch: an array would let a tensor that requires grad be changed behind autograd's back.
  EMBER_CHECK(!autograd::requires_grad(t),
              "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.");
  const char* typestr = nullptr;
  switch (t.dtype()) {
    case kBool: typestr = "|b1"; break;
    case kUInt8: typestr = "|u1"; break;
    case kInt8: typestr = "|i1"; break;
    case kInt16: typestr = "<i2"; break;
    case kInt32: typestr = "<i4"; break;
    case kInt64: typestr = "<i8"; break;
    case kFloat16: typestr = "<f2"; break;
    case kFloat32: typestr = "<f4"; break;
    case kFloat64: typestr = "<f8"; break;
    case kComplexFloat: typestr = "<c8"; break;
    case kComplexDouble: typestr = "<c16"; break;
    case kBFloat16:
      EMBER_FAIL_KIND(ErrorKind::Type, "Got unsupported ScalarType BFloat16");
  }
  PyObject* shape = PyTuple_New(t.dim());
  PyObject* strides = PyTuple_New(t.dim());
  for (int64_t i = 0; i < t.dim(); ++i) {
    PyTuple_SET_ITEM(shape, i, PyLong_FromLongLong(t.sizes()[i]));
    PyTuple_SET_ITEM(strides, i, PyLong_FromLongLong(t.strides()[i] * t.element_size()));
  }
  // A zero-size array still needs a valid, non-null address.
  void* data = t.numel() ? t.data_ptr() : reinterpret_cast<void*>(static_cast<uintptr_t>(t.element_size()));
  PyObject* dataspec = Py_BuildValue("(NO)", PyLong_FromVoidPtr(data), Py_False);
  return Py_BuildValue("{s:N,s:s,s:N,s:N,s:i}", "shape", shape, "typestr", typestr, "data", dataspec, "strides",
                       strides, "version", 3);
  EMBER_PY_CATCH(nullptr)
}

PyMethodDef tensor_methods[] = {
    {"size", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(m_size)), METH_FASTCALL | METH_KEYWORDS,
     "size(dim=None) -> ember.Size or int"},
    {"stride", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(m_stride)), METH_FASTCALL | METH_KEYWORDS,
     "stride(dim=None) -> tuple or int: strides in elements"},
    {"dim", m_dim, METH_NOARGS, "Number of dimensions."},
    {"ndimension", m_dim, METH_NOARGS, "Number of dimensions."},
    {"numel", m_numel, METH_NOARGS, "Number of elements."},
    {"nelement", m_numel, METH_NOARGS, "Number of elements."},
    {"element_size", m_element_size, METH_NOARGS, "Bytes per element."},
    {"storage_offset", m_storage_offset, METH_NOARGS, "Offset of element 0 in the storage, in elements."},
    {"data_ptr", m_data_ptr, METH_NOARGS, "Address of element 0."},
    {"is_contiguous", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(m_is_contiguous)),
     METH_FASTCALL | METH_KEYWORDS, "Whether the elements are laid out in row-major order without gaps."},
    {"is_floating_point", m_is_floating_point, METH_NOARGS, "Whether the dtype is a floating type."},
    {"is_signed", m_is_signed, METH_NOARGS, "Whether the dtype is signed."},
    {"item", m_item, METH_NOARGS, "The value of a one-element tensor as a Python number."},
    {"tolist", m_tolist, METH_NOARGS, "The elements as nested Python lists."},
    {"_str", m_str, METH_VARARGS, nullptr},
    {"_array_interface", m_array_interface, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

// ---- number protocol: each slot calls the op of the database (see op_binding.h)
// Each slot finds its op object once (the first call) and keeps it.
//
// Note [NumPy arrays as operands]
// A NumPy array is no Tensor argument (is_numpy_array): as PyTorch, `t + array` is computed by NumPy. Our slot
// returns NotImplemented, NumPy's reflected operator runs the ufunc on np.asarray(t) and the array, and
// Tensor.__array_wrap__ (Tensor has the higher __array_priority__) makes the result a tensor: NumPy's dtype
// promotion applies (ones(3) + np.ones(3) is float64). For `array + t` NumPy defers to us
// (__array_priority__), and we run NumPy's operator on the array and np.asarray(t), wrapped likewise, so both
// orders agree (PyTorch 1.13 raises TypeError for that order).
PyObject* binary_slot(PyObject* op, PyObject* a, PyObject* b, binaryfunc numpy_op) {
  if (!is_tensor(a) && !is_tensor(b)) Py_RETURN_NOTIMPLEMENTED;
  if (is_numpy_array(b)) Py_RETURN_NOTIMPLEMENTED;
  if (is_numpy_array(a)) {
    if (!numpy_op) Py_RETURN_NOTIMPLEMENTED;
    PyObject* tb = PyObject_CallMethod(b, "__array__", nullptr);
    if (!tb) return nullptr;
    PyObject* r = numpy_op(a, tb);
    Py_DECREF(tb);
    if (!r || r == Py_NotImplemented || !is_numpy_array(r)) return r;
    PyObject* w = PyObject_CallMethod(b, "__array_wrap__", "O", r);
    Py_DECREF(r);
    return w;
  }
  PyObject* args[2] = {a, b};
  return call_op_or_notimplemented(op, args, 2);
}
#define EMBER_BINARY_SLOT(fn, name, numpy_op)       \
  PyObject* fn(PyObject* a, PyObject* b) {          \
    static PyObject* const op = find_op(name);      \
    return binary_slot(op, a, b, numpy_op);         \
  }
EMBER_BINARY_SLOT(nb_add, "add", PyNumber_Add)
EMBER_BINARY_SLOT(nb_sub, "sub", PyNumber_Subtract)
EMBER_BINARY_SLOT(nb_mul, "mul", PyNumber_Multiply)
// `number / t` is PyTorch's Tensor.__rdiv__: t.reciprocal() * number (not a true division: the two round
// differently in float32, and an integral t gives a float reciprocal first).
PyObject* nb_truediv(PyObject* a, PyObject* b) {
  static PyObject* const div = find_op("div");
  if (is_tensor(a) || !is_tensor(b) || is_numpy_array(a) || !PyNumber_Check(a))
    return binary_slot(div, a, b, PyNumber_TrueDivide);
  static PyObject* const reciprocal = find_op("reciprocal");
  static PyObject* const mul = find_op("mul");
  PyObject* r = call_op_or_notimplemented(reciprocal, &b, 1);
  if (!r || r == Py_NotImplemented) return r;
  PyObject* args[2] = {r, a};
  PyObject* out = call_op_or_notimplemented(mul, args, 2);
  Py_DECREF(r);
  return out;
}
EMBER_BINARY_SLOT(nb_floordiv, "floor_divide", PyNumber_FloorDivide)
EMBER_BINARY_SLOT(nb_rem, "remainder", PyNumber_Remainder)
EMBER_BINARY_SLOT(nb_and, "bitwise_and", PyNumber_And)
EMBER_BINARY_SLOT(nb_or, "bitwise_or", PyNumber_Or)
EMBER_BINARY_SLOT(nb_xor, "bitwise_xor", PyNumber_Xor)
EMBER_BINARY_SLOT(nb_lshift, "bitwise_left_shift", PyNumber_Lshift)
EMBER_BINARY_SLOT(nb_rshift, "bitwise_right_shift", PyNumber_Rshift)
// In place: `array += t` is NumPy's own (it never defers in place); `t += array` falls back to `t = t + array`.
EMBER_BINARY_SLOT(nb_iadd, "add_", nullptr)
EMBER_BINARY_SLOT(nb_isub, "sub_", nullptr)
EMBER_BINARY_SLOT(nb_imul, "mul_", nullptr)
EMBER_BINARY_SLOT(nb_itruediv, "div_", nullptr)
EMBER_BINARY_SLOT(nb_ifloordiv, "floor_divide_", nullptr)
EMBER_BINARY_SLOT(nb_irem, "remainder_", nullptr)
EMBER_BINARY_SLOT(nb_iand, "bitwise_and_", nullptr)
EMBER_BINARY_SLOT(nb_ior, "bitwise_or_", nullptr)
EMBER_BINARY_SLOT(nb_ixor, "bitwise_xor_", nullptr)
EMBER_BINARY_SLOT(nb_ilshift, "bitwise_left_shift_", nullptr)
EMBER_BINARY_SLOT(nb_irshift, "bitwise_right_shift_", nullptr)
#undef EMBER_BINARY_SLOT
PyObject* nb_pow(PyObject* a, PyObject* b, PyObject* mod) {
  static PyObject* const op = find_op("pow");
  if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return binary_slot(op, a, b, [](PyObject* x, PyObject* y) { return PyNumber_Power(x, y, Py_None); });
}
PyObject* nb_ipow(PyObject* a, PyObject* b, PyObject* mod) {
  static PyObject* const op = find_op("pow_");
  if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return binary_slot(op, a, b, nullptr);
}
// `a @ b`: matmul of two tensors. As PyTorch, a number (or anything else) on either side is Python's
// "unsupported operand type(s) for @" TypeError, so both must be tensors. `a @= b` is the same call and
// rebinds a to the new tensor: PyTorch 1.13 has no in-place matmul (the result may even change shape). The
// reflected form, Tensor.__rmatmul__, is the slot wrapper CPython derives from this slot.
PyObject* nb_matmul(PyObject* a, PyObject* b) {
  static PyObject* const op = find_op("matmul");
  if (!is_tensor(a) || !is_tensor(b)) Py_RETURN_NOTIMPLEMENTED;
  PyObject* args[2] = {a, b};
  return call_op_or_notimplemented(op, args, 2);
}
PyObject* unary_slot(PyObject* op, PyObject* a) {
  PyObject* args[1] = {a};
  return call_op_or_notimplemented(op, args, 1);
}
#define EMBER_UNARY_SLOT(fn, name)          \
  PyObject* fn(PyObject* a) {               \
    static PyObject* const op = find_op(name); \
    return unary_slot(op, a);               \
  }
EMBER_UNARY_SLOT(nb_neg, "neg")
EMBER_UNARY_SLOT(nb_abs, "abs")
// ~x is for integers and bools only, checked here as PyTorch's Tensor.__invert__ does (TypeError; the op
// itself raises RuntimeError).
PyObject* nb_invert(PyObject* a) {
  static PyObject* const op = find_op("bitwise_not");
  EMBER_PY_TRY
  EMBER_CHECK_TYPE(!unwrap(a).is_floating_point(),
                   "~ (operator.invert) is only implemented on integer and Boolean-type tensors");
  return unary_slot(op, a);
  EMBER_PY_CATCH(nullptr)
}
#undef EMBER_UNARY_SLOT
// +x is x itself (torch.positive), refused for bool as PyTorch does.
PyObject* nb_pos(PyObject* a) {
  EMBER_PY_TRY
  EMBER_CHECK(unwrap(a).dtype() != kBool,
              "The `+` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` "
              "or `logical_not()` operator instead.");
  Py_INCREF(a);
  return a;
  EMBER_PY_CATCH(nullptr)
}

// Conversions to Python numbers need exactly one element.
int nb_bool(PyObject* self) {
  EMBER_PY_TRY
  const Tensor& t = unwrap(self);
  EMBER_CHECK(t.numel() == 1, "Boolean value of Tensor with {} is ambiguous",
              t.numel() == 0 ? "no values" : "more than one value");
  warn_tracer_conversion("boolean");
  return t.item().to_bool() ? 1 : 0;
  EMBER_PY_CATCH(-1)
}
PyObject* nb_int(PyObject* self) {
  EMBER_PY_TRY
  const Tensor& t = unwrap(self);
  EMBER_CHECK_VALUE(t.numel() == 1, "only one element tensors can be converted to Python scalars");
  warn_tracer_conversion("integer");
  Scalar s = t.item();
  // A complex value converts when its imaginary part is 0 (PyTorch's check through c10::overflows).
  EMBER_CHECK(!s.is_complex() || s.imag() == 0, "value cannot be converted to type int64_t without overflow");
  if (s.is_floating_point() || s.is_complex()) {
    PyObject* f = PyFloat_FromDouble(s.to_double());
    PyObject* r = PyNumber_Long(f);
    Py_DECREF(f);
    return r;
  }
  return PyLong_FromLongLong(s.to_long());
  EMBER_PY_CATCH(nullptr)
}
PyObject* nb_float(PyObject* self) {
  EMBER_PY_TRY
  const Tensor& t = unwrap(self);
  EMBER_CHECK_VALUE(t.numel() == 1, "only one element tensors can be converted to Python scalars");
  warn_tracer_conversion("float");
  Scalar s = t.item();
  EMBER_CHECK(!s.is_complex() || s.imag() == 0, "value cannot be converted to type double without overflow");
  return PyFloat_FromDouble(s.to_double());
  EMBER_PY_CATCH(nullptr)
}
PyObject* nb_index(PyObject* self) {
  EMBER_PY_TRY
  const Tensor& t = unwrap(self);
  EMBER_CHECK_TYPE(t.numel() == 1 && is_integral(t.dtype(), true),
                   "only integer tensors of a single element can be converted to an index");
  warn_tracer_conversion("index");
  return PyLong_FromLongLong(t.item().to_long());
  EMBER_PY_CATCH(nullptr)
}

PyNumberMethods tensor_as_number = [] {
  PyNumberMethods n{};
  n.nb_add = nb_add;
  n.nb_subtract = nb_sub;
  n.nb_multiply = nb_mul;
  n.nb_remainder = nb_rem;
  n.nb_power = nb_pow;
  n.nb_negative = nb_neg;
  n.nb_positive = nb_pos;
  n.nb_absolute = nb_abs;
  n.nb_bool = nb_bool;
  n.nb_invert = nb_invert;
  n.nb_lshift = nb_lshift;
  n.nb_rshift = nb_rshift;
  n.nb_and = nb_and;
  n.nb_xor = nb_xor;
  n.nb_or = nb_or;
  n.nb_int = nb_int;
  n.nb_float = nb_float;
  n.nb_inplace_add = nb_iadd;
  n.nb_inplace_subtract = nb_isub;
  n.nb_inplace_multiply = nb_imul;
  n.nb_inplace_remainder = nb_irem;
  n.nb_inplace_power = nb_ipow;
  n.nb_inplace_lshift = nb_ilshift;
  n.nb_inplace_rshift = nb_irshift;
  n.nb_inplace_and = nb_iand;
  n.nb_inplace_xor = nb_ixor;
  n.nb_inplace_or = nb_ior;
  n.nb_floor_divide = nb_floordiv;
  n.nb_true_divide = nb_truediv;
  n.nb_inplace_floor_divide = nb_ifloordiv;
  n.nb_inplace_true_divide = nb_itruediv;
  n.nb_index = nb_index;
  n.nb_matrix_multiply = nb_matmul;
  n.nb_inplace_matrix_multiply = nb_matmul;
  return n;
}();

PyObject* richcompare(PyObject* a, PyObject* b, int op) {
  // Py_LT, Py_LE, Py_EQ, Py_NE, Py_GT, Py_GE
  static PyObject* const ops[] = {find_op("lt"), find_op("le"), find_op("eq"), find_op("ne"), find_op("gt"),
                                  find_op("ge")};
  if (!is_tensor(a) && !is_tensor(b)) Py_RETURN_NOTIMPLEMENTED;
  PyObject* args[2] = {a, b};
  return call_op_or_notimplemented(ops[op], args, 2);
}

Py_ssize_t sq_length(PyObject* self) {
  const Tensor& t = unwrap(self);
  if (t.dim() == 0) {
    PyErr_SetString(PyExc_TypeError, "len() of a 0-d tensor");
    return -1;
  }
  try {
    warn_if_tracing("Using len to get tensor shape might cause the trace to be incorrect. Recommended usage would "
                    "be tensor.shape[0]. Passing a tensor of different shape might lead to errors or silently give "
                    "incorrect results.");
  } catch (const python_error_already_set&) {
    return -1;
  }
  return static_cast<Py_ssize_t>(t.size(0));
}

PyMappingMethods tensor_as_mapping = {sq_length, tensor_getitem, tensor_setitem};

PyObject* tensor_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  EMBER_PY_TRY
  return wrap_as(type, legacy_tensor_new(args, kwargs));
  EMBER_PY_CATCH(nullptr)
}

}  // namespace

PyTypeObject TensorBaseType = [] {
  PyTypeObject t = new_type_object();
  t.tp_name = "ember._C._TensorBase";
  t.tp_basicsize = sizeof(PyTensor);
  t.tp_dealloc = tensor_dealloc;
  t.tp_as_number = &tensor_as_number;
  t.tp_as_mapping = &tensor_as_mapping;
  t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  t.tp_doc = "The C part of ember.Tensor.";
  t.tp_richcompare = richcompare;
  t.tp_methods = tensor_methods;
  t.tp_getset = tensor_getset;
  t.tp_new = tensor_new;
  return t;
}();

PyTypeObject* tensor_class() { return g_tensor_class ? g_tensor_class : &TensorBaseType; }

void set_tensor_class(PyTypeObject* cls) {
  Py_XINCREF(cls);
  g_tensor_class = cls;
}

PyObject* wrap(Tensor t) {
  if (!t.defined()) Py_RETURN_NONE;
  if (PyObject* existing = static_cast<PyObject*>(t.impl()->pyobj())) {
    Py_INCREF(existing);
    return existing;
  }
  return wrap_as(tensor_class(), std::move(t));
}

PyObject* wrap_as(PyTypeObject* type, Tensor t) {
  PyObject* o = type->tp_alloc(type, 0);
  if (!o) return nullptr;
  PyTensor* p = reinterpret_cast<PyTensor*>(o);
  new (&p->t) Tensor(std::move(t));
  p->t.impl()->set_pyobj(o);
  return o;
}

namespace {
PyObject* set_tensor_class_py(PyObject*, PyObject* cls) {
  if (!PyType_Check(cls) || !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), &TensorBaseType)) {
    PyErr_SetString(PyExc_TypeError, "_set_tensor_class: expected a subclass of _TensorBase");
    return nullptr;
  }
  set_tensor_class(reinterpret_cast<PyTypeObject*>(cls));
  Py_RETURN_NONE;
}
PyObject* set_size_class_py(PyObject*, PyObject* cls) {
  if (!PyType_Check(cls) || !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), &PyTuple_Type)) {
    PyErr_SetString(PyExc_TypeError, "_set_size_class: expected a subclass of tuple");
    return nullptr;
  }
  Py_XINCREF(cls);
  g_size_class = cls;
  Py_RETURN_NONE;
}
PyMethodDef module_methods[] = {
    {"_set_tensor_class", set_tensor_class_py, METH_O, nullptr},
    {"_set_size_class", set_size_class_py, METH_O, nullptr},
    {nullptr, nullptr, 0, nullptr}};
}  // namespace

namespace {
// The null-terminated tables a and b as one (kept for the life of the type).
const char* def_name(const PyGetSetDef& d) { return d.name; }
const char* def_name(const PyMethodDef& d) { return d.ml_name; }
template <class Def>
Def* concat_tables(const Def* a, const Def* b) {
  static std::vector<Def> all;
  for (const Def* d : {a, b})
    for (; def_name(*d); ++d) all.push_back(*d);
  all.push_back(Def{});
  return all.data();
}
}  // namespace

void init_tensor(PyObject* m) {
  TensorBaseType.tp_getset = concat_tables(tensor_getset, tensor_autograd_getset);
  TensorBaseType.tp_methods = concat_tables(tensor_methods, tensor_autograd_methods);
  if (PyType_Ready(&TensorBaseType) < 0) throw python_error_already_set();
  Py_INCREF(&TensorBaseType);
  PyModule_AddObject(m, "_TensorBase", reinterpret_cast<PyObject*>(&TensorBaseType));
  PyModule_AddFunctions(m, module_methods);
}

}  // namespace ember::python
