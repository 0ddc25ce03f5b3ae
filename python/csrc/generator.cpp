// ember._C.Generator on the CPython API: construction, manual_seed, seed, initial_seed, get_state, set_state and
// the device attribute, with PyTorch's argument rules and errors (torch/csrc/Generator.cpp).
#include "generator.h"

#include "dtype.h"
#include "tensor.h"

namespace ember::python {

namespace {

PyObject* wrap_generator(PyTypeObject* type, Generator g) {
  PyObject* o = type->tp_alloc(type, 0);
  if (!o) return nullptr;
  new (&reinterpret_cast<PyGenerator*>(o)->gen) Generator(std::move(g));
  return o;
}

PyObject* generator_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  EMBER_PY_TRY
  PyObject* device = nullptr;
  static const char* kw[] = {"device", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:Generator", const_cast<char**>(kw), &device)) return nullptr;
  if (device && device != Py_None) {
    Device d;
    EMBER_CHECK_TYPE(as_device(device, &d), "Generator(): argument 'device' must be torch.device or str, not {}",
                     Py_TYPE(device)->tp_name);
    EMBER_CHECK(d.is_cpu(), "Device type {} is not supported for torch.Generator() api.", d.is_cpu() ? "CPU" : "CUDA");
  }
  return wrap_generator(type, make_generator());
  EMBER_PY_CATCH(nullptr)
}

void generator_dealloc(PyObject* self) {
  reinterpret_cast<PyGenerator*>(self)->gen.~Generator();
  Py_TYPE(self)->tp_free(self);
}

GeneratorImpl& impl(PyObject* self) { return *reinterpret_cast<PyGenerator*>(self)->gen; }

// A Python int as a 64-bit seed: [0, 2^64) as is, [-2^63, 0) as its two's complement (PyTorch's rule).
uint64_t seed_of(PyObject* o) {
  EMBER_CHECK((PyLong_Check(o) || (Py_TYPE(o)->tp_as_number && Py_TYPE(o)->tp_as_number->nb_index &&
                                   !PyFloat_Check(o) && !is_tensor(o))) &&
                  !PyBool_Check(o),
              "manual_seed expected a long, but got {}", is_tensor(o) ? "Tensor" : Py_TYPE(o)->tp_name);
  PyObject* i = PyNumber_Index(o);
  if (!i) throw python_error_already_set();
  unsigned long long u = PyLong_AsUnsignedLongLong(i);
  if (u == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    long long s = PyLong_AsLongLong(i);
    Py_DECREF(i);
    if (s == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      EMBER_FAIL("Overflow when unpacking long");
    }
    return static_cast<uint64_t>(s);
  }
  Py_DECREF(i);
  return u;
}

PyObject* generator_manual_seed(PyObject* self, PyObject* seed) {
  EMBER_PY_TRY
  impl(self).manual_seed(seed_of(seed));
  Py_INCREF(self);
  return self;
  EMBER_PY_CATCH(nullptr)
}

PyObject* generator_seed(PyObject* self, PyObject*) {
  EMBER_PY_TRY
  return PyLong_FromUnsignedLongLong(impl(self).seed());
  EMBER_PY_CATCH(nullptr)
}

PyObject* generator_initial_seed(PyObject* self, PyObject*) {
  EMBER_PY_TRY
  return PyLong_FromUnsignedLongLong(impl(self).initial_seed());
  EMBER_PY_CATCH(nullptr)
}

PyObject* generator_get_state(PyObject* self, PyObject*) {
  EMBER_PY_TRY
  std::vector<uint8_t> state = impl(self).get_state();
  return wrap(tensor_from_buffer(state.data(), {static_cast<int64_t>(state.size())}, kUInt8));
  EMBER_PY_CATCH(nullptr)
}

PyObject* generator_set_state(PyObject* self, PyObject* state) {
  EMBER_PY_TRY
  EMBER_CHECK_TYPE(is_tensor(state), "expected a torch.ByteTensor, but got {}", Py_TYPE(state)->tp_name);
  const Tensor& t = unwrap(state);
  EMBER_CHECK_TYPE(t.dtype() == kUInt8, "RNG state must be a torch.ByteTensor");
  Tensor c = t.contiguous();
  impl(self).set_state(static_cast<const uint8_t*>(c.data_ptr()), static_cast<size_t>(c.numel()));
  Py_INCREF(self);
  return self;
  EMBER_PY_CATCH(nullptr)
}

PyObject* generator_device(PyObject*, void*) { return make_device(kCPU); }

PyObject* generator_repr(PyObject* self) {
  return PyUnicode_FromFormat("<ember.Generator object at %p>", static_cast<void*>(self));
}

PyMethodDef generator_methods[] = {
    {"manual_seed", generator_manual_seed, METH_O,
     "manual_seed(seed) -> Generator\n\nSeeds the generator (an int in [-2**63, 2**64); negative seeds are taken "
     "modulo 2**64) and returns it. Raises RuntimeError for other types or out-of-range ints."},
    {"seed", generator_seed, METH_NOARGS,
     "seed() -> int\n\nReseeds the generator with a non-deterministic 64-bit seed and returns it."},
    {"initial_seed", generator_initial_seed, METH_NOARGS, "initial_seed() -> int\n\nThe seed last set."},
    {"get_state", generator_get_state, METH_NOARGS,
     "get_state() -> Tensor\n\nThe generator's state as a uint8 tensor of 5056 bytes (PyTorch's layout)."},
    {"set_state", generator_set_state, METH_O,
     "set_state(new_state) -> Generator\n\nRestores a state from get_state() (or PyTorch's). Raises TypeError "
     "for a non-uint8 state, RuntimeError for a malformed one."},
    {nullptr, nullptr, 0, nullptr}};

PyGetSetDef generator_getset[] = {{"device", generator_device, nullptr, "The generator's device (cpu).", nullptr},
                                  {nullptr, nullptr, nullptr, nullptr, nullptr}};

}  // namespace

PyTypeObject GeneratorType = [] {
  PyTypeObject t = new_type_object();
  t.tp_name = "ember.Generator";
  t.tp_basicsize = sizeof(PyGenerator);
  t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  t.tp_new = generator_new;
  t.tp_dealloc = generator_dealloc;
  t.tp_repr = generator_repr;
  t.tp_methods = generator_methods;
  t.tp_getset = generator_getset;
  t.tp_doc =
      "Generator(device='cpu')\n\nA source of random numbers, PyTorch's CPU generator: the same seed gives PyTorch's "
      "numbers. A new generator starts with seed 67280421310721. Pass it as `generator=` to random ops.";
  return t;
}();

void init_generator(PyObject* m) {
  if (PyType_Ready(&GeneratorType) < 0) throw python_error_already_set();
  Py_INCREF(&GeneratorType);
  PyModule_AddObject(m, "Generator", reinterpret_cast<PyObject*>(&GeneratorType));
  PyObject* def = wrap_generator(&GeneratorType, default_generator());
  if (!def) throw python_error_already_set();
  PyModule_AddObject(m, "default_generator", def);
}

}  // namespace ember::python
