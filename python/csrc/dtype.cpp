#include "dtype.h"

#include <array>

namespace ember::python {

namespace {

struct PyDType {
  PyObject_HEAD
  DType dtype;
};
struct PyDevice {
  PyObject_HEAD
  Device device;
};
struct PyMemoryFormat {
  PyObject_HEAD
  MemoryFormat format;
};

std::array<PyObject*, kNumDTypeIds> g_dtypes{};

PyObject* dtype_repr(PyObject* self) {
  std::string s = fmt::format("ember.{}", reinterpret_cast<PyDType*>(self)->dtype);
  return PyUnicode_FromString(s.c_str());
}
DType dt(PyObject* self) { return reinterpret_cast<PyDType*>(self)->dtype; }
PyObject* dtype_is_floating(PyObject* self, void*) { return PyBool_FromLong(is_floating_point(dt(self))); }
PyObject* dtype_is_signed(PyObject* self, void*) { return PyBool_FromLong(is_signed(dt(self))); }
PyObject* dtype_is_complex(PyObject* self, void*) { return PyBool_FromLong(is_complex(dt(self))); }
PyObject* dtype_itemsize(PyObject* self, void*) { return PyLong_FromLongLong(element_size(dt(self))); }
PyObject* dtype_id(PyObject* self, void*) { return PyLong_FromLong(static_cast<int>(dt(self))); }
PyObject* dtype_reduce(PyObject* self, PyObject*) {
  // Pickles as the module attribute of the same name.
  std::string s(dtype_name(dt(self)));
  return PyUnicode_FromString(s.c_str());
}
PyGetSetDef dtype_getset[] = {
    {"is_floating_point", dtype_is_floating, nullptr, "Whether this is a floating type.", nullptr},
    {"is_signed", dtype_is_signed, nullptr, "Whether values can be negative.", nullptr},
    {"is_complex", dtype_is_complex, nullptr, "Whether this is complex64 or complex128.", nullptr},
    {"itemsize", dtype_itemsize, nullptr, "Bytes per element.", nullptr},
    {"_id", dtype_id, nullptr, "The stable numeric id (PyTorch's ScalarType number).", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};
PyMethodDef dtype_methods[] = {
    {"__reduce__", dtype_reduce, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

PyTypeObject DTypeType = [] {
  PyTypeObject t = new_type_object();
  t.tp_name = "ember.dtype";
  t.tp_basicsize = sizeof(PyDType);
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  t.tp_repr = dtype_repr;
  t.tp_getset = dtype_getset;
  t.tp_methods = dtype_methods;
  t.tp_doc = "The element type of a tensor (ember.float32, ember.int64, ...).";
  return t;
}();

// ---- device
PyObject* device_repr(PyObject* self) {
  const Device& d = reinterpret_cast<PyDevice*>(self)->device;
  std::string type = d.is_cpu() ? "cpu" : "cuda";
  std::string s = d.index() >= 0 ? fmt::format("device(type='{}', index={})", type, d.index())
                               : fmt::format("device(type='{}')", type);
  return PyUnicode_FromString(s.c_str());
}
PyObject* device_str(PyObject* self) {
  return PyUnicode_FromString(reinterpret_cast<PyDevice*>(self)->device.str().c_str());
}
PyObject* device_type(PyObject* self, void*) {
  return PyUnicode_FromString(reinterpret_cast<PyDevice*>(self)->device.is_cpu() ? "cpu" : "cuda");
}
PyObject* device_index(PyObject* self, void*) {
  int i = reinterpret_cast<PyDevice*>(self)->device.index();
  if (i < 0) Py_RETURN_NONE;
  return PyLong_FromLong(i);
}
PyObject* device_richcompare(PyObject* a, PyObject* b, int op);
Py_hash_t device_hash(PyObject* self) {
  const Device& d = reinterpret_cast<PyDevice*>(self)->device;
  return static_cast<Py_hash_t>(static_cast<int>(d.type()) * 256 + d.index() + 2);
}
PyObject* device_new(PyTypeObject*, PyObject* args, PyObject* kwargs) {
  EMBER_PY_TRY
  PyObject* spec = nullptr;
  PyObject* index = Py_None;
  static const char* kw[] = {"type", "index", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O", const_cast<char**>(kw), &spec, &index)) return nullptr;
  Device d;
  if (!as_device(spec, &d)) {
    PyErr_SetString(PyExc_TypeError, "device(): expected a str or an ember.device");
    return nullptr;
  }
  if (index != Py_None) {
    long i = PyLong_AsLong(index);
    if (i == -1 && PyErr_Occurred()) return nullptr;
    EMBER_CHECK(d.index() < 0,
                "device(): type (string) must not include an index because index was passed explicitly: {}", d.str());
    EMBER_CHECK(i >= 0, "Device index must not be negative");
    d.set_index(static_cast<int8_t>(i));
  }
  return make_device(d);
  EMBER_PY_CATCH(nullptr)
}
PyGetSetDef device_getset[] = {{"type", device_type, nullptr, "cpu or cuda", nullptr},
                               {"index", device_index, nullptr, "the index, or None", nullptr},
                               {nullptr, nullptr, nullptr, nullptr, nullptr}};
PyTypeObject DeviceType = [] {
  PyTypeObject t = new_type_object();
  t.tp_name = "ember.device";
  t.tp_basicsize = sizeof(PyDevice);
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  t.tp_repr = device_repr;
  t.tp_str = device_str;
  t.tp_hash = device_hash;
  t.tp_richcompare = device_richcompare;
  t.tp_getset = device_getset;
  t.tp_new = device_new;
  t.tp_doc = "A device: ember.device('cpu').";
  return t;
}();
PyObject* device_richcompare(PyObject* a, PyObject* b, int op) {
  if ((op != Py_EQ && op != Py_NE) || !PyObject_TypeCheck(b, &DeviceType)) Py_RETURN_NOTIMPLEMENTED;
  bool eq = reinterpret_cast<PyDevice*>(a)->device == reinterpret_cast<PyDevice*>(b)->device;
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

// ---- memory format
PyObject* memory_format_repr(PyObject* self) {
  return PyUnicode_FromFormat("ember.%s", memory_format_name(reinterpret_cast<PyMemoryFormat*>(self)->format));
}
PyTypeObject MemoryFormatType = [] {
  PyTypeObject t = new_type_object();
  t.tp_name = "ember.memory_format";
  t.tp_basicsize = sizeof(PyMemoryFormat);
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  t.tp_repr = memory_format_repr;
  return t;
}();

}  // namespace

PyObject* new_ref_dtype(DType d) {
  PyObject* o = g_dtypes[static_cast<int>(d)];
  Py_XINCREF(o);
  return o;
}

bool as_dtype(PyObject* o, DType* out) {
  if (PyObject_TypeCheck(o, &DTypeType)) {
    *out = reinterpret_cast<PyDType*>(o)->dtype;
    return true;
  }
  // PyTorch accepts the Python types too: float -> float64, int -> int64, bool -> bool.
  if (o == reinterpret_cast<PyObject*>(&PyFloat_Type)) return *out = kFloat64, true;
  if (o == reinterpret_cast<PyObject*>(&PyComplex_Type)) return *out = kComplexDouble, true;
  if (o == reinterpret_cast<PyObject*>(&PyLong_Type)) return *out = kInt64, true;
  if (o == reinterpret_cast<PyObject*>(&PyBool_Type)) return *out = kBool, true;
  return false;
}

PyObject* make_device(Device d) {
  PyDevice* o = PyObject_New(PyDevice, &DeviceType);
  if (!o) return nullptr;
  o->device = d;
  return reinterpret_cast<PyObject*>(o);
}

bool as_device(PyObject* o, Device* out) {
  if (PyObject_TypeCheck(o, &DeviceType)) {
    *out = reinterpret_cast<PyDevice*>(o)->device;
    return true;
  }
  if (PyUnicode_Check(o)) {
    const char* s = PyUnicode_AsUTF8(o);
    if (!s) throw python_error_already_set();
    *out = Device(std::string_view(s));
    return true;
  }
  return false;
}

bool as_memory_format(PyObject* o, MemoryFormat* out) {
  if (!PyObject_TypeCheck(o, &MemoryFormatType)) return false;
  *out = reinterpret_cast<PyMemoryFormat*>(o)->format;
  return true;
}

void init_dtypes(PyObject* m) {
  for (PyTypeObject* t : {&DTypeType, &DeviceType, &MemoryFormatType})
    if (PyType_Ready(t) < 0) throw python_error_already_set();
  // dtype instances pickle by name (__reduce__); their __module__ tells pickle where that name is, so it does
  // not scan every imported module for it (as for torch.float32).
  PyObject* module_name = PyUnicode_FromString("ember");
  PyDict_SetItemString(DTypeType.tp_dict, "__module__", module_name);
  Py_DECREF(module_name);
  PyType_Modified(&DTypeType);
  Py_INCREF(&DTypeType);
  PyModule_AddObject(m, "dtype", reinterpret_cast<PyObject*>(&DTypeType));
  Py_INCREF(&DeviceType);
  PyModule_AddObject(m, "device", reinterpret_cast<PyObject*>(&DeviceType));
  Py_INCREF(&MemoryFormatType);
  PyModule_AddObject(m, "memory_format", reinterpret_cast<PyObject*>(&MemoryFormatType));
#define EMBER_ADD_DTYPE(T, name, id, py)                       \
  {                                                            \
    PyDType* o = PyObject_New(PyDType, &DTypeType);            \
    o->dtype = DType::name;                                    \
    g_dtypes[id] = reinterpret_cast<PyObject*>(o);             \
    Py_INCREF(o);                                              \
    PyModule_AddObject(m, #py, reinterpret_cast<PyObject*>(o)); \
  }
  EMBER_FORALL_DTYPES(EMBER_ADD_DTYPE)
#undef EMBER_ADD_DTYPE
  for (MemoryFormat f : {MemoryFormat::Contiguous, MemoryFormat::Preserve, MemoryFormat::ChannelsLast,
                         MemoryFormat::ChannelsLast3d}) {
    PyMemoryFormat* o = PyObject_New(PyMemoryFormat, &MemoryFormatType);
    o->format = f;
    if (f == MemoryFormat::Contiguous) {  // PyTorch's legacy_contiguous_format is the same object
      Py_INCREF(o);
      PyModule_AddObject(m, "legacy_contiguous_format", reinterpret_cast<PyObject*>(o));
    }
    PyModule_AddObject(m, memory_format_name(f), reinterpret_cast<PyObject*>(o));
  }
}

}  // namespace ember::python
