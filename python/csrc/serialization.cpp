// ember._C._save / _load: Python objects <-> IValue trees for ember/serialize (Note [ember format]); the
// Python wrappers with PyTorch's signatures are in ember/serialization.py.
#include "serialization.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "dtype.h"
#include "ember/serialize/EmberFormat.h"
#include "ember/serialize/FileFormat.h"
#include "ember/serialize/Gguf.h"
#include "ember/serialize/Safetensors.h"
#include "ember/serialize/TorchCheckpoint.h"
#include "ember/serialize/ZipReader.h"
#include "tensor.h"

namespace py = pybind11;

namespace ember::python {
namespace {

// One step from the root of the saved object to a value, formatted only for an error: obj['a'][2].
struct PyCrumb {
  const PyCrumb* parent = nullptr;
  PyObject* key = nullptr;  // a dict key (borrowed), or
  Py_ssize_t index = -1;    // a list or tuple index
};

std::string where(const PyCrumb* c) {
  if (!c) return "obj";
  std::string s = where(c->parent);
  if (c->key) return s + "[" + py::repr(c->key).cast<std::string>() + "]";
  return s + "[" + std::to_string(c->index) + "]";
}

std::string type_name(PyObject* o) { return Py_TYPE(o)->tp_name; }

PyObject* ordered_dict_type() {
  static PyObject* t = py::object(py::module_::import("collections").attr("OrderedDict")).release().ptr();
  return t;
}

// The Python objects the conversions need, passed by ember/serialization.py as one tuple
// (Parameter, Size, rebuild_namedtuple): ember.nn.Parameter, ember.Size, and the function that turns a loaded
// namedtuple back into its class's instance when it safely can (Note [tuple classes]).
struct PyClasses {
  PyObject* parameter;
  PyObject* size;
  PyObject* rebuild_namedtuple;
  explicit PyClasses(py::handle t) {
    py::tuple c = py::reinterpret_borrow<py::tuple>(t);
    if (c.size() != 3) throw py::type_error("ember._C: expected (Parameter, Size, rebuild_namedtuple)");
    parameter = c[0].ptr();
    size = c[1].ptr();
    rebuild_namedtuple = c[2].ptr();
  }
};

// The class of a tuple subclass that save keeps (Note [tuple classes]): ember.Size, or a namedtuple (a tuple
// subclass whose _fields names every item). Other tuple subclasses raise TypeError.
serialize::TupleClass tuple_class(PyObject* o, const PyClasses& classes, const PyCrumb* at) {
  serialize::TupleClass c;
  PyObject* type = reinterpret_cast<PyObject*>(Py_TYPE(o));
  if (type == classes.size) {
    c.size = true;
    return c;
  }
  py::handle t(type);
  py::object fields = py::getattr(t, "_fields", py::none());
  bool ok = PyTuple_Check(fields.ptr()) && PyTuple_GET_SIZE(fields.ptr()) == PyTuple_GET_SIZE(o);
  for (size_t i = 0; ok && i < py::len(fields); ++i) {
    if (!PyUnicode_Check(PyTuple_GET_ITEM(fields.ptr(), i))) ok = false;
    else c.fields.push_back(py::str(PyTuple_GET_ITEM(fields.ptr(), i)).cast<std::string>());
  }
  py::object module = py::getattr(t, "__module__", py::none()), qualname = py::getattr(t, "__qualname__", py::none());
  if (!ok || !PyUnicode_Check(module.ptr()) || !PyUnicode_Check(qualname.ptr()))
    throw py::type_error("ember.save: cannot save an object of type '" + type_name(o) + "' (at " + where(at) +
                         "): of the tuple subclasses only ember.Size and namedtuples are saved");
  c.module = module.cast<std::string>();
  c.qualname = qualname.cast<std::string>();
  return c;
}

// Python object -> IValue, recording OrderedDicts, their _metadata, Parameters, Sizes and namedtuples in attrs.
class ToIValue {
 public:
  ToIValue(const PyClasses& classes, serialize::Attributes& attrs)
      : parameter_cls_(classes.parameter), classes_(classes), attrs_(attrs) {}

  IValue convert(PyObject* o, const PyCrumb* at, int depth) {
    if (depth > serialize::kMaxDepth)
      throw py::value_error("ember.save: " + where(at) + " is nested more than " +
                            std::to_string(serialize::kMaxDepth) + " containers deep");
    if (o == Py_None) return IValue();
    if (PyBool_Check(o)) return IValue(o == Py_True);
    if (PyLong_CheckExact(o)) {
      int overflow = 0;
      long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
      if (overflow) throw py::value_error("ember.save: the int at " + where(at) + " does not fit in 64 bits");
      if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
      return IValue(static_cast<int64_t>(v));
    }
    if (PyFloat_CheckExact(o)) return IValue(PyFloat_AS_DOUBLE(o));
    if (PyUnicode_CheckExact(o)) {
      Py_ssize_t n = 0;
      const char* s = PyUnicode_AsUTF8AndSize(o, &n);
      if (!s) throw py::error_already_set();
      return IValue(std::string(s, static_cast<size_t>(n)));
    }
    if (is_tensor(o)) return tensor(o, at);
    DType dtype;
    if (as_dtype(o, &dtype)) return IValue(dtype);
    const bool is_ordered = Py_TYPE(o) == reinterpret_cast<PyTypeObject*>(ordered_dict_type());
    if (PyDict_CheckExact(o) || is_ordered) return dict(o, is_ordered, at, depth);
    if (PyList_CheckExact(o) || PyTuple_Check(o)) {
      std::optional<serialize::TupleClass> cls;
      if (PyTuple_Check(o) && !PyTuple_CheckExact(o)) cls = tuple_class(o, classes_, at);
      Guard g(this, o, at);
      py::object seq = py::reinterpret_steal<py::object>(PySequence_Fast(o, "expected a sequence"));
      std::vector<IValue> items;
      const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.ptr());
      items.reserve(static_cast<size_t>(n));
      for (Py_ssize_t i = 0; i < n; ++i) {
        PyCrumb c{at, nullptr, i};
        items.push_back(convert(PySequence_Fast_GET_ITEM(seq.ptr(), i), &c, depth + 1));
      }
      if (!PyTuple_Check(o)) return IValue::list(std::move(items));
      IValue t = IValue::tuple(std::move(items));
      if (cls) attrs_.tuple_classes.emplace(t.payload_ptr(), std::move(*cls));
      return t;
    }
    throw py::type_error("ember.save: cannot save an object of type '" + type_name(o) + "' (at " + where(at) +
                         "); supported are tensors, None, bool, int, float, str, dtypes, ember.Size, and lists, "
                         "tuples, namedtuples, dicts and OrderedDicts of them");
  }

 private:
  // Marks a container as being converted, so that a container holding itself raises instead of recursing.
  struct Guard {
    Guard(ToIValue* self, PyObject* o, const PyCrumb* at) : self_(self), o_(o) {
      if (!self->active_.insert(o).second)
        throw py::value_error("ember.save: " + where(at) + " contains itself; reference cycles cannot be saved");
    }
    ~Guard() { self_->active_.erase(o_); }
    ToIValue* self_;
    PyObject* o_;
  };

  IValue tensor(PyObject* o, const PyCrumb* at) {
    const bool parameter = PyObject_TypeCheck(o, reinterpret_cast<PyTypeObject*>(parameter_cls_));
    // Other subclasses would come back as plain tensors: refuse them rather than change their type.
    if (!parameter && Py_TYPE(o) != tensor_class() && Py_TYPE(o) != &TensorBaseType)
      throw py::type_error("ember.save: cannot save an object of type '" + type_name(o) + "' (at " + where(at) +
                           "): only ember.Tensor and ember.nn.Parameter tensors are saved");
    const Tensor& t = unwrap(o);
    if (parameter) attrs_.parameters.insert(t.impl());
    return IValue(t);
  }

  IValue dict(PyObject* o, bool ordered, const PyCrumb* at, int depth) {
    Guard g(this, o, at);
    std::vector<std::pair<IValue, IValue>> items;
    // An OrderedDict's order can differ from the underlying dict's (move_to_end), so go through items().
    py::object pairs = py::reinterpret_borrow<py::object>(o).attr("items")();
    for (py::handle kv : pairs) {
      PyObject* k = PyTuple_GET_ITEM(kv.ptr(), 0);
      PyObject* v = PyTuple_GET_ITEM(kv.ptr(), 1);
      if (!PyUnicode_CheckExact(k) && !PyLong_CheckExact(k))
        throw py::type_error("ember.save: dict keys must be str or int, but " + where(at) + " has a key of type '" +
                             type_name(k) + "'");
      PyCrumb c{at, k, -1};
      IValue key = convert(k, at, depth + 1);
      items.emplace_back(std::move(key), convert(v, &c, depth + 1));
    }
    IValue d = IValue::dict(std::move(items));
    if (ordered) {
      attrs_.ordered_dicts.insert(d.payload_ptr());
      // A state dict's per-module versions (Module.state_dict sets it; load_state_dict reads it).
      py::object meta = py::getattr(o, "_metadata", py::none());
      if (!meta.is_none()) {
        PyCrumb c{at, nullptr, -1};
        attrs_.dict_metadata.emplace(d.payload_ptr(), convert(meta.ptr(), &c, depth + 1));
      }
    }
    return d;
  }

  PyObject* parameter_cls_;
  const PyClasses& classes_;
  serialize::Attributes& attrs_;
  std::unordered_set<PyObject*> active_;
};

// IValue -> Python object. A TensorImpl listed several times becomes one Python object.
class FromIValue {
 public:
  FromIValue(const PyClasses& classes, const serialize::Attributes& attrs)
      : parameter_cls_(classes.parameter), classes_(classes), attrs_(attrs) {}

  py::object convert(const IValue& v) {
    switch (v.tag()) {
      case IValue::Tag::None: return py::none();
      case IValue::Tag::Bool: return py::bool_(v.to_bool());
      case IValue::Tag::Int: return py::int_(v.to_int());
      case IValue::Tag::Double: return py::float_(v.to_double());
      case IValue::Tag::String: return py::str(v.to_string());
      case IValue::Tag::DType: return py::reinterpret_steal<py::object>(new_ref_dtype(v.to_dtype()));
      case IValue::Tag::Tensor: return tensor(v.to_tensor());
      case IValue::Tag::List:
      case IValue::Tag::Tuple: {
        const auto& items = v.to_list();
        py::list out(items.size());
        for (size_t i = 0; i < items.size(); ++i) out[i] = convert(items[i]);
        if (!v.is_tuple()) return out;
        auto it = attrs_.tuple_classes.find(v.payload_ptr());
        if (it == attrs_.tuple_classes.end()) return py::tuple(out);
        const serialize::TupleClass& c = it->second;
        if (c.size) return py::reinterpret_borrow<py::object>(classes_.size)(py::tuple(out));
        return py::reinterpret_borrow<py::object>(classes_.rebuild_namedtuple)(c.module, c.qualname,
                                                                               py::tuple(py::cast(c.fields)),
                                                                               py::tuple(out));
      }
      case IValue::Tag::Dict: {
        const bool ordered = attrs_.ordered_dicts.count(v.payload_ptr()) > 0;
        py::object d = ordered ? py::reinterpret_borrow<py::object>(ordered_dict_type())() : py::dict();
        for (const auto& [k, x] : v.to_dict()) d[convert(k)] = convert(x);
        auto it = attrs_.dict_metadata.find(v.payload_ptr());
        if (ordered && it != attrs_.dict_metadata.end()) d.attr("_metadata") = convert(it->second);
        return d;
      }
      default: break;
    }
    throw py::type_error("ember.load: unexpected value of kind " + std::string(v.tag_name()));
  }

 private:
  py::object tensor(const Tensor& t) {
    auto it = memo_.find(t.impl());
    if (it != memo_.end()) return it->second;
    const bool requires_grad = attrs_.requires_grad.count(t.impl()) > 0;
    py::object o;
    if (attrs_.parameters.count(t.impl())) {
      o = py::reinterpret_borrow<py::object>(parameter_cls_)(py::reinterpret_steal<py::object>(wrap(t)),
                                                             requires_grad);
    } else {
      if (requires_grad) autograd::set_requires_grad(t, true);
      o = py::reinterpret_steal<py::object>(wrap(t));
    }
    memo_.emplace(t.impl(), o);
    return o;
  }

  PyObject* parameter_cls_;
  const PyClasses& classes_;
  const serialize::Attributes& attrs_;
  std::unordered_map<const TensorImpl*, py::object> memo_;
};


// The Python objects PickleValue -> Python needs, passed by ember/serialization.py as one tuple
// (Parameter, Size, PickledObject, device).
struct TorchClasses {
  py::object parameter, size, pickled_object, device;
  explicit TorchClasses(py::handle t) {
    py::tuple c = py::reinterpret_borrow<py::tuple>(t);
    if (c.size() != 4) throw py::type_error("ember._C: expected (Parameter, Size, PickledObject, device)");
    parameter = c[0];
    size = c[1];
    pickled_object = c[2];
    device = c[3];
  }
};

// An unpickled value (ember/serialize/Pickle.h) -> Python objects, each shared node once (Note [pickle values]):
// what Python's pickle would have built, with Ember's tensors, dtypes and devices, and placeholders as
// PickledObject(class_name, args, state, items, dictitems).
class FromPickle {
 public:
  explicit FromPickle(const TorchClasses& c) : c_(c) {}

  py::object convert(const serialize::PickleValue& v) {
    using K = serialize::PickleValue::Kind;
    switch (v.kind()) {
      case K::None: return py::none();
      case K::Bool: return py::bool_(v.to_bool());
      case K::Int: return py::int_(v.to_int());
      case K::Float: return py::float_(v.to_double());
      case K::Complex: return py::reinterpret_steal<py::object>(PyComplex_FromDoubles(v.to_double(), v.imag()));
      case K::DType: return py::reinterpret_steal<py::object>(new_ref_dtype(v.to_dtype()));
      default: break;
    }
    auto it = memo_.find(v.node());
    if (it != memo_.end()) return it->second;
    py::object r = convert_node(v);
    memo_.emplace(v.node(), r);
    return r;
  }

 private:
  py::object convert_node(const serialize::PickleValue& v) {
    using K = serialize::PickleValue::Kind;
    const serialize::PickleNode& n = *v.node();
    auto seq = [&](const std::vector<serialize::PickleValue>& items) {
      py::list out(items.size());
      for (size_t i = 0; i < items.size(); ++i) out[i] = convert(items[i]);
      return out;
    };
    switch (v.kind()) {
      case K::BigInt:
        return py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(&PyLong_Type))
            .attr("from_bytes")(py::bytes(n.text), "little", py::arg("signed") = true);
      case K::String: {
        PyObject* s = PyUnicode_DecodeUTF8(n.text.data(), static_cast<Py_ssize_t>(n.text.size()), "surrogatepass");
        if (!s) throw py::error_already_set();
        return py::reinterpret_steal<py::object>(s);
      }
      case K::Bytes: return py::bytes(n.text);
      case K::Tuple: {
        py::tuple t(seq(n.items));
        return n.flag ? c_.size(t) : py::object(t);
      }
      case K::List: return seq(n.items);
      case K::Set: {
        py::list items = seq(n.items);
        return n.flag ? py::object(py::reinterpret_steal<py::object>(PyFrozenSet_New(items.ptr())))
                      : py::object(py::reinterpret_steal<py::object>(PySet_New(items.ptr())));
      }
      case K::Slice: {
        py::list a = seq(n.items);
        return py::reinterpret_steal<py::object>(PySlice_New(a[0].ptr(), a[1].ptr(), a[2].ptr()));
      }
      case K::Dict: {
        py::object d = n.flag ? py::reinterpret_borrow<py::object>(ordered_dict_type())() : py::dict();
        for (const auto& [k, x] : n.entries) d[convert(k)] = convert(x);
        if (!n.state.empty() && n.state[0].is(K::Dict) && n.flag)
          for (const auto& [k, x] : n.state[0].node()->entries) py::setattr(d, convert(k), convert(x));
        return d;
      }
      case K::Device: return c_.device(n.text);
      case K::Tensor: {
        py::object t = py::reinterpret_steal<py::object>(wrap(n.tensor));
        if (n.flag) return c_.parameter(t, n.requires_grad);
        if (n.requires_grad) autograd::set_requires_grad(n.tensor, true);
        return t;
      }
      case K::Object:
        if (n.code == serialize::kNumpyArray)  // Note [numpy in pickles]: a copy of the file's bytes, as NumPy's
          return py::reinterpret_steal<py::object>(wrap(n.tensor)).attr("numpy")();
        [[fallthrough]];
      case K::Global: {
        py::object state = n.state.empty() ? py::none() : convert(n.state[0]);
        py::dict dictitems;
        for (const auto& [k, x] : n.entries) dictitems[convert(k)] = convert(x);
        return c_.pickled_object(n.text, py::tuple(seq(n.items)), state, seq(n.list_items), dictitems,
                                 v.is(K::Global));
      }
      case K::Storage:
        throw py::type_error("ember.load: the file holds a bare storage, which Ember does not load on its own");
      default: break;
    }
    throw py::type_error("ember.load: unexpected unpickled value " + v.type_name());
  }

  const TorchClasses& c_;
  std::unordered_map<const serialize::PickleNode*, py::object> memo_;
};

// The bytes of a bytes object or the path of a str, read as a torch.save file.
serialize::PickleValue read_torch(py::handle source, const std::string& name, bool placeholders) {
  serialize::CheckpointOptions o;
  o.placeholders = placeholders;
  if (PyBytes_Check(source.ptr())) {
    std::string_view data(PyBytes_AS_STRING(source.ptr()), static_cast<size_t>(PyBytes_GET_SIZE(source.ptr())));
    py::gil_scoped_release nogil;
    return serialize::read_torch_bytes(data, name, o);
  }
  std::string path = source.cast<std::string>();
  py::gil_scoped_release nogil;
  return serialize::read_torch_file(path, o);
}

std::string_view format_name(serialize::FileFormat f) {
  switch (f) {
    case serialize::FileFormat::Zip: return "zip";
    case serialize::FileFormat::EmberArchive: return "ember";
    case serialize::FileFormat::TorchZip: return "torch_zip";
    case serialize::FileFormat::TorchLegacy: return "torch_legacy";
    case serialize::FileFormat::Safetensors: return "safetensors";
    case serialize::FileFormat::Gguf: return "gguf";
    case serialize::FileFormat::Unknown: break;
  }
  return "unknown";
}

// Note [short writes]
// A file-like object's write() may take fewer bytes than it was given and say so (a raw stream does, e.g.
// io.FileIO on a pipe or a socket's makefile in unbuffered mode). torch.save ignores the count and leaves a
// corrupt file; Ember does what Python's buffered streams do with their raw stream: the rest is written
// again until all is taken. A write() that returns None is taken to have written everything (most Python
// writers return nothing or the full length). A write() that takes nothing, or returns a negative count or
// one beyond what it was given, raises OSError naming the object (no progress could ever be made); a result
// that is not an int raises TypeError. Whatever the object received before the error stays there: a
// file-like object cannot be written atomically (a path can: Note [atomic save]).
void write_all(py::handle f, const py::object& write, const char* data, size_t n) {
  size_t done = 0;
  while (done < n) {
    const size_t left = n - done;
    // Each piece goes to write() as a read-only memoryview of Ember's memory, released after the call so
    // that a writer keeping it cannot read the memory later.
    py::object view = py::reinterpret_steal<py::object>(PyMemoryView_FromMemory(
        const_cast<char*>(data + done), static_cast<Py_ssize_t>(left), PyBUF_READ));
    if (!view) throw py::error_already_set();
    py::object r = write(view);
    view.attr("release")();
    if (r.is_none()) return;
    if (!PyLong_Check(r.ptr()) || PyBool_Check(r.ptr()))
      throw py::type_error("ember.save: " + py::repr(f).cast<std::string>() + ".write() returned a '" +
                           type_name(r.ptr()) + "', not the number of bytes written (an int or None)");
    const long long k = PyLong_AsLongLong(r.ptr());
    if (k == -1 && PyErr_Occurred()) PyErr_Clear();  // too large: reported below as out of range
    if (k <= 0 || static_cast<unsigned long long>(k) > left) {
      PyErr_SetString(PyExc_OSError,
                      ("ember.save: " + py::repr(f).cast<std::string>() + ".write() " +
                       (k == 0 ? "wrote 0 of " + std::to_string(left) + " bytes (a short write that makes no progress)"
                               : "returned " + py::repr(r).cast<std::string>() + " for " + std::to_string(left) +
                                     " bytes (should be between 0 and that)") +
                       "; the archive written to it is incomplete")
                          .c_str());
      throw py::error_already_set();
    }
    done += static_cast<size_t>(k);
  }
}

}  // namespace

void init_serialization(py::module_& m) {
  m.def(
      "_save",
      [](py::handle obj, const std::string& path, py::handle classes) {
        serialize::Attributes attrs;
        IValue v = ToIValue(PyClasses(classes), attrs).convert(obj.ptr(), nullptr, 0);
        py::gil_scoped_release nogil;
        serialize::save(v, path, &attrs);
      },
      py::arg("obj"), py::arg("path"), py::arg("classes"),
      "Writes obj in Ember's file format to path (atomically). classes: (Parameter, Size, rebuild_namedtuple).");
  m.def(
      "_save_to",
      [](py::handle obj, py::handle f, py::handle classes) {
        serialize::Attributes attrs;
        IValue v = ToIValue(PyClasses(classes), attrs).convert(obj.ptr(), nullptr, 0);
        py::object write = py::getattr(f, "write");
        serialize::save_to_stream(
            v, [&](const void* data, size_t n) { write_all(f, write, static_cast<const char*>(data), n); }, &attrs);
      },
      py::arg("obj"), py::arg("f"), py::arg("classes"),
      "Writes obj in Ember's file format through f.write(memoryview) calls (Note [short writes]).");
  m.def(
      "_file_format",
      [](py::bytes head) { return std::string(format_name(serialize::sniff_format(std::string(head)))); },
      py::arg("head"),
      "The format of a file from its first 16 bytes: 'zip', 'torch_legacy', 'safetensors', 'gguf' or 'unknown'.");
  m.def(
      "_zip_format",
      [](py::handle source, const std::string& name) {
        if (PyBytes_Check(source.ptr())) {
          std::string_view data(PyBytes_AS_STRING(source.ptr()), static_cast<size_t>(PyBytes_GET_SIZE(source.ptr())));
          return std::string(format_name(serialize::zip_format(serialize::ZipReader::open_bytes(data, name))));
        }
        const std::string path = source.cast<std::string>();
        return std::string(format_name(serialize::zip_format(serialize::ZipReader::open_file(path))));
      },
      py::arg("source"), py::arg("name"), "'ember', 'torch_zip' or 'unknown' for a zip archive (a path or bytes).");
  m.def(
      "_load_torch",
      [](py::handle source, const std::string& name, py::handle classes, bool placeholders) {
        serialize::PickleValue v = read_torch(source, name, placeholders);
        return FromPickle(TorchClasses(classes)).convert(v);
      },
      py::arg("source"), py::arg("name"), py::arg("classes"), py::arg("placeholders") = false,
      "Reads a torch.save file (zip or legacy) from a path (str) or bytes without running code from it "
      "(ember/serialize/Pickle.h). classes: (Parameter, Size, PickledObject, device). placeholders: classes "
      "outside the allow-list load as PickledObject instead of raising.");
  m.def(
      "_checkpoint_tensors",
      [](py::handle source, const std::string& name) {
        serialize::PickleValue v = read_torch(source, name, true);
        std::vector<std::pair<std::string, Tensor>> found;
        serialize::for_each_tensor(v, [&](const std::string& path, const Tensor& t) { found.emplace_back(path, t); });
        py::list out;
        for (auto& [path, t] : found) out.append(py::make_tuple(path, py::reinterpret_steal<py::object>(wrap(t))));
        return out;
      },
      py::arg("source"), py::arg("name"),
      "[(path, tensor)] of every tensor in a torch.save file, pickled objects read as inert placeholders.");
  m.def(
      "_save_torch",
      [](py::handle obj, py::handle f, py::handle classes) {
        serialize::Attributes attrs;
        IValue v = ToIValue(PyClasses(classes), attrs).convert(obj.ptr(), nullptr, 0);
        if (PyUnicode_Check(f.ptr())) {
          std::string path = f.cast<std::string>();
          py::gil_scoped_release nogil;
          serialize::save_torch(v, path, &attrs);
          return;
        }
        std::string bytes;
        {
          py::gil_scoped_release nogil;
          bytes = serialize::save_torch_to_bytes(v, &attrs);
        }
        py::object write = py::getattr(f, "write");
        write_all(f, write, bytes.data(), bytes.size());
      },
      py::arg("obj"), py::arg("f"), py::arg("classes"),
      "Writes obj in torch.save's zip format (PyTorch 1.13's torch.load reads it) to a path (str, atomically) or "
      "through f.write. classes: (Parameter, Size, rebuild_namedtuple).");
  py::class_<serialize::SafetensorsFile>(m, "_SafetensorsFile",
                                         "An opened safetensors file (ember/serialize/Safetensors.h).")
      .def("keys", &serialize::SafetensorsFile::keys, "The tensor names, sorted.")
      .def("metadata", &serialize::SafetensorsFile::metadata, "The header's __metadata__ (str -> str).")
      .def(
          "get_tensor",
          [](const serialize::SafetensorsFile& f, const std::string& name) {
            Tensor t;
            {
              py::gil_scoped_release nogil;
              t = f.get_tensor(name);
            }
            return py::reinterpret_steal<py::object>(wrap(t));
          },
          py::arg("name"), "The tensor of that name (memory-mapped when the file was opened from a path).");
  m.def(
      "_safetensors_open",
      [](py::handle source, const std::string& name) {
        if (PyBytes_Check(source.ptr())) {
          std::string_view data(PyBytes_AS_STRING(source.ptr()), static_cast<size_t>(PyBytes_GET_SIZE(source.ptr())));
          return serialize::SafetensorsFile::from_bytes(data, name);
        }
        std::string path = source.cast<std::string>();
        py::gil_scoped_release nogil;
        return serialize::SafetensorsFile::open(path);
      },
      py::arg("source"), py::arg("name"), "Opens a safetensors file from a path (mapped) or bytes (copied).");
  m.def(
      "_safetensors_save",
      [](const std::vector<std::pair<std::string, py::handle>>& items,
         const std::map<std::string, std::string>& metadata, py::handle path) -> py::object {
        std::vector<std::pair<std::string, Tensor>> tensors;
        for (const auto& [k, t] : items) {
          if (!is_tensor(t.ptr()))
            throw py::type_error("safetensors: the value of '" + k + "' is a " + type_name(t.ptr()) + ", not a tensor");
          tensors.emplace_back(k, unwrap(t.ptr()));
        }
        if (path.is_none()) {
          std::string bytes;
          {
            py::gil_scoped_release nogil;
            bytes = serialize::safetensors_bytes(tensors, metadata);
          }
          return py::bytes(bytes);
        }
        std::string p = path.cast<std::string>();
        py::gil_scoped_release nogil;
        serialize::save_safetensors(tensors, metadata, p);
        return py::none();
      },
      py::arg("tensors"), py::arg("metadata"), py::arg("path"),
      "Writes [(name, tensor)] and metadata as a safetensors file to path, or returns its bytes when path is None.");
  py::class_<serialize::GgufFile>(m, "_GgufFile", "An opened GGUF file (ember/serialize/Gguf.h).")
      .def_property_readonly("version", &serialize::GgufFile::version)
      .def("tensor_names", &serialize::GgufFile::tensor_names)
      .def("tensor_type", &serialize::GgufFile::tensor_type, py::arg("name"))
      .def("metadata",
           [](const serialize::GgufFile& g, py::handle classes) {
             const PyClasses cls(classes);
             const serialize::Attributes attrs;
             FromIValue conv(cls, attrs);
             py::dict out;
             for (const auto& [k, v] : g.metadata()) out[py::str(k)] = conv.convert(v);
             return out;
           })
      .def(
          "get_tensor",
          [](const serialize::GgufFile& g, const std::string& name) {
            Tensor t;
            {
              py::gil_scoped_release nogil;
              t = g.get_tensor(name);
            }
            return py::reinterpret_steal<py::object>(wrap(t));
          },
          py::arg("name"));
  m.def(
      "_gguf_open",
      [](py::handle source, const std::string& name) {
        if (PyBytes_Check(source.ptr())) {
          std::string_view data(PyBytes_AS_STRING(source.ptr()), static_cast<size_t>(PyBytes_GET_SIZE(source.ptr())));
          return serialize::GgufFile::from_bytes(data, name);
        }
        std::string path = source.cast<std::string>();
        py::gil_scoped_release nogil;
        return serialize::GgufFile::open(path);
      },
      py::arg("source"), py::arg("name"), "Opens a GGUF file from a path (mapped) or bytes.");
  m.def(
      "_storage_info",
      [](py::handle t) {
        if (!is_tensor(t.ptr())) throw py::type_error("_storage_info: expected a tensor");
        const Tensor& x = unwrap(t.ptr());
        const StorageImpl* s = x.impl()->storage().get();
        return py::make_tuple(reinterpret_cast<uintptr_t>(s), s->nbytes());
      },
      py::arg("tensor"), "(identity, nbytes) of a tensor's storage (for pickling tensors by storage).");
  m.def(
      "_storage_bytes",
      [](py::handle t) {
        if (!is_tensor(t.ptr())) throw py::type_error("_storage_bytes: expected a tensor");
        const Storage& s = unwrap(t.ptr()).impl()->storage();
        return py::bytes(static_cast<const char*>(s->data()), s->nbytes());
      },
      py::arg("tensor"), "The bytes of a tensor's whole storage.");
  m.def(
      "_load",
      [](py::handle source, std::string name, py::handle classes) -> py::object {
        serialize::Attributes attrs;
        IValue v;
        if (PyBytes_Check(source.ptr())) {
          std::string_view data(PyBytes_AS_STRING(source.ptr()), static_cast<size_t>(PyBytes_GET_SIZE(source.ptr())));
          py::gil_scoped_release nogil;  // the bytes object is kept alive by the caller
          v = serialize::load_from_bytes(data, &attrs, name);
        } else {
          std::string path = source.cast<std::string>();
          py::gil_scoped_release nogil;
          v = serialize::load(path, &attrs);
        }
        return FromIValue(PyClasses(classes), attrs).convert(v);
      },
      py::arg("source"), py::arg("name"), py::arg("classes"),
      "Reads a file in Ember's format from a path (str) or from bytes (name stands for it in errors). classes: "
      "(Parameter, Size, rebuild_namedtuple): tensors recorded as parameters come back as Parameter(tensor, "
      "requires_grad), Sizes as Size(items), namedtuples as rebuild_namedtuple(module, qualname, fields, items).");
}

}  // namespace ember::python
