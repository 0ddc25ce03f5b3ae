#include "arg_parser.h"

#include <unordered_map>

#include "dtype.h"
#include "ember/autograd/autograd.h"
#include "generator.h"
#include "jit.h"
#include "python_op_table.h"
#include "tensor.h"

namespace ember::python {

namespace {

using K = SchemaType::Kind;

ArgSpec spec_of(const SchemaArgument& a) {
  ArgSpec s;
  // PyTorch's Python API calls a Tensor `self` `input`, wherever it stands (where(condition, input, other)); a
  // Scalar `self` keeps its name (pow(self=2, exponent=t)).
  bool tensor_self = a.name == "self" && (a.type.kind == K::Tensor ||
                                          (a.type.kind == K::Optional && a.type.elem->kind == K::Tensor));
  s.name = tensor_self ? "input" : a.name;
  s.name_obj = PyUnicode_InternFromString(s.name.c_str());
  const SchemaType* t = &a.type;
  if (t->kind == K::Optional) {
    s.optional = true;
    t = t->elem.get();
  }
  switch (t->kind) {
    case K::Tensor: s.kind = ArgKind::Tensor; break;
    case K::Int: s.kind = ArgKind::Int; break;
    case K::Float: s.kind = ArgKind::Float; break;
    case K::Bool: s.kind = ArgKind::Bool; break;
    case K::Str: s.kind = ArgKind::Str; break;
    case K::Scalar: s.kind = ArgKind::Scalar; break;
    case K::ScalarType: s.kind = ArgKind::ScalarType; break;
    case K::Device: s.kind = ArgKind::Device; break;
    case K::Generator: s.kind = ArgKind::Generator; break;
    case K::Layout: s.kind = ArgKind::Layout; break;
    case K::MemoryFormat: s.kind = ArgKind::MemoryFormat; break;
    case K::List:
      if (t->elem->kind == K::Int) s.kind = ArgKind::IntList;
      else if (t->elem->kind == K::Tensor) s.kind = ArgKind::TensorList;
      else if (t->elem->kind == K::Bool) s.kind = ArgKind::BoolList;
      else if (t->elem->kind == K::Optional && t->elem->elem->kind == K::Tensor) s.kind = ArgKind::OptTensorList;
      else s.kind = ArgKind::Any;
      s.fixed_size = t->fixed_size;
      break;
    default: s.kind = ArgKind::Any; break;
  }
  s.kwarg_only = a.kwarg_only;
  if (a.default_value) {
    s.has_default = true;
    s.default_value = *a.default_value;
  }
  s.is_out = a.kwarg_only && a.alias && a.alias->is_write && a.name == "out";
  if (s.is_out) s.has_default = true;  // out=None
  return s;
}

const char* kind_name(const ArgSpec& s) {
  switch (s.kind) {
    case ArgKind::Tensor: return "Tensor";
    case ArgKind::TensorList: return "tuple of Tensors";
    case ArgKind::OptTensorList: return "tuple of Tensors";
    case ArgKind::Int: return "int";
    case ArgKind::IntList: return "tuple of ints";
    case ArgKind::BoolList: return "tuple of bools";
    case ArgKind::Float: return "float";
    case ArgKind::Bool: return "bool";
    case ArgKind::Scalar: return "Number";
    case ArgKind::ScalarType: return "dtype";
    case ArgKind::Device: return "Device";
    case ArgKind::Str: return "str";
    case ArgKind::MemoryFormat: return "memory_format";
    case ArgKind::Generator: return "Generator";
    case ArgKind::Layout: return "layout";
    case ArgKind::Any: return "object";
  }
  return "object";
}

// ---- conversions: each returns false on a type mismatch

// Note [tensors as numbers]
// As PyTorch's parser, an int, float or Number parameter takes a tensor only when it is 0-dim and does not require
// grad: a one-element tensor of another rank (clamp_min(x, t) with t of shape (1, 1, 1)) would silently lose its
// shape from the result's broadcast, and a tensor that requires grad would lose its gradient.
bool is_number_tensor(const Tensor& t) { return t.dim() == 0 && !autograd::requires_grad(t); }

bool is_int_like(PyObject* o) {
  if (PyBool_Check(o)) return false;
  if (PyLong_Check(o)) return true;
  if (is_tensor(o)) return is_number_tensor(unwrap(o)) && is_integral(unwrap(o).dtype(), false);
  return !PyFloat_Check(o) && Py_TYPE(o)->tp_as_number && Py_TYPE(o)->tp_as_number->nb_index &&
         !PyUnicode_Check(o);
}

int64_t as_int(PyObject* o) {
  if (is_tensor(o)) return unwrap(o).item().to_long();
  int overflow = 0;
  long long v = PyLong_Check(o) ? PyLong_AsLongLongAndOverflow(o, &overflow) : -1;
  if (!PyLong_Check(o)) {
    PyObject* idx = PyNumber_Index(o);
    if (!idx) throw python_error_already_set();
    v = PyLong_AsLongLongAndOverflow(idx, &overflow);
    Py_DECREF(idx);
  }
  if (overflow) EMBER_FAIL_KIND(ErrorKind::Runtime, "Overflow when unpacking long");
  if (v == -1 && PyErr_Occurred()) throw python_error_already_set();
  return v;
}

// A Python number (or numpy scalar, or 0-dim tensor for Scalar arguments) as a Scalar. A NumPy array, even
// 0-d, is no number (its __index__ would fail with a message about scalar indices).
bool as_scalar(PyObject* o, Scalar* out, bool allow_tensor) {
  if (PyBool_Check(o)) {
    *out = Scalar(o == Py_True);
    return true;
  }
  if (PyLong_Check(o)) {
    *out = Scalar(as_int(o));
    return true;
  }
  if (PyFloat_Check(o)) {
    *out = Scalar(PyFloat_AS_DOUBLE(o));
    return true;
  }
  if (PyComplex_Check(o)) {
    *out = Scalar(std::complex<double>(PyComplex_RealAsDouble(o), PyComplex_ImagAsDouble(o)));
    return true;
  }
  if (is_tensor(o)) {
    if (!allow_tensor || !is_number_tensor(unwrap(o))) return false;  // Note [tensors as numbers]
    *out = unwrap(o).item();
    return true;
  }
  PyNumberMethods* nm = Py_TYPE(o)->tp_as_number;
  if (!nm || PyUnicode_Check(o) || is_numpy_array(o)) return false;
  // numpy.bool_ is no integer to PyTorch's parser either: it reads it as a float (x + np.bool_(True) is
  // x + 1.0); its __index__ is deprecated.
  if (nm->nb_index && std::strcmp(Py_TYPE(o)->tp_name, "numpy.bool_") != 0) {  // numpy integers
    *out = Scalar(as_int(o));
    return true;
  }
  if (std::strncmp(Py_TYPE(o)->tp_name, "numpy.complex", 13) == 0) {  // numpy complex scalars
    Py_complex c = PyComplex_AsCComplex(o);
    if (c.real == -1.0 && PyErr_Occurred()) throw python_error_already_set();
    *out = Scalar(std::complex<double>(c.real, c.imag));
    return true;
  }
  if (nm->nb_float) {  // numpy floats
    double d = PyFloat_AsDouble(o);
    if (d == -1.0 && PyErr_Occurred()) throw python_error_already_set();
    *out = Scalar(d);
    return true;
  }
  return false;
}

// An element of a tuple of ints: int-like and, as PyTorch's parser, within int64 (a larger Python int is a
// TypeError naming its position, see int_list_mismatch).
bool is_int_list_element(PyObject* o) {
  if (!is_int_like(o)) return false;
  if (!PyLong_Check(o)) return true;
  int overflow = 0;
  PyLong_AsLongLongAndOverflow(o, &overflow);
  return overflow == 0;
}

// For a tuple or list (or one int) given for an int[] parameter: why it is no tuple of ints, as PyTorch words it ("but
// found element of type float at pos 2"); empty when the sequence is not the problem.
std::string int_list_mismatch(PyObject* o) {
  if (is_int_like(o) && !is_int_list_element(o))  // empty(2**63): the one element overflows
    return fmt::format("tuple of ints, but found element of type {} at pos 1", py_type_name(o));
  if (!PyTuple_Check(o) && !PyList_Check(o)) return "";
  Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  PyObject** items = PySequence_Fast_ITEMS(o);
  for (Py_ssize_t i = 0; i < n; ++i)
    if (!is_int_list_element(items[i]))
      return fmt::format("tuple of ints, but found element of type {} at pos {}", py_type_name(items[i]), i + 1);
  return "";
}

bool convert_int_list(PyObject* o, const ArgSpec& s, IValue* out) {
  std::vector<int64_t> v;
  if (PyTuple_Check(o) || PyList_Check(o)) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    PyObject** items = PySequence_Fast_ITEMS(o);
    v.reserve(static_cast<size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) {
      if (!is_int_list_element(items[i])) return false;
      v.push_back(as_int(items[i]));
    }
  } else if (is_int_list_element(o)) {
    v.assign(s.fixed_size > 0 ? static_cast<size_t>(s.fixed_size) : 1u, as_int(o));
  } else {
    return false;
  }
  *out = IValue(std::move(v));
  return true;
}

bool convert(PyObject* o, const ArgSpec& s, IValue* out, bool numbers_ok) {
  if (o == Py_None) {
    if (!s.optional && s.kind != ArgKind::Layout && s.kind != ArgKind::Any) return false;
    *out = IValue();
    return true;
  }
  switch (s.kind) {
    case ArgKind::Tensor: {
      if (is_tensor(o)) {
        *out = IValue(unwrap(o));
        return true;
      }
      Scalar sc;
      if (!numbers_ok || !as_scalar(o, &sc, false)) return false;
      *out = IValue(wrapped_scalar_tensor(sc));
      return true;
    }
    case ArgKind::Int:
      if (!is_int_like(o)) return false;
      *out = IValue(as_int(o));
      return true;
    case ArgKind::Float: {
      if (PyFloat_Check(o)) {
        *out = IValue(PyFloat_AS_DOUBLE(o));
        return true;
      }
      Scalar sc;
      if (PyBool_Check(o) || !as_scalar(o, &sc, true) || sc.is_complex()) return false;
      *out = IValue(sc.to_double());
      return true;
    }
    case ArgKind::Bool:
      if (!PyBool_Check(o)) {
        if (is_tensor(o) && unwrap(o).numel() == 1 && unwrap(o).dtype() == kBool) {
          *out = IValue(unwrap(o).item().to_bool());
          return true;
        }
        return false;
      }
      *out = IValue(o == Py_True);
      return true;
    case ArgKind::Scalar: {
      Scalar sc;
      if (!as_scalar(o, &sc, true)) return false;
      *out = IValue(sc);
      return true;
    }
    case ArgKind::IntList:
      return convert_int_list(o, s, out);
    case ArgKind::ScalarType: {
      DType d;
      if (!as_dtype(o, &d)) return false;
      *out = IValue(d);
      return true;
    }
    case ArgKind::Device: {
      Device d;
      if (!as_device(o, &d)) return false;
      *out = IValue(d);
      return true;
    }
    case ArgKind::Str: {
      if (!PyUnicode_Check(o)) return false;
      Py_ssize_t n = 0;
      const char* c = PyUnicode_AsUTF8AndSize(o, &n);
      if (!c) throw python_error_already_set();
      *out = IValue(std::string(c, static_cast<size_t>(n)));
      return true;
    }
    case ArgKind::MemoryFormat: {
      MemoryFormat f;
      if (!as_memory_format(o, &f)) return false;
      *out = IValue(f);
      return true;
    }
    case ArgKind::TensorList: {
      if (!PyTuple_Check(o) && !PyList_Check(o)) return false;
      Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
      PyObject** items = PySequence_Fast_ITEMS(o);
      std::vector<Tensor> v;
      v.reserve(static_cast<size_t>(n));
      for (Py_ssize_t i = 0; i < n; ++i) {
        if (!is_tensor(items[i])) return false;
        v.push_back(unwrap(items[i]));
      }
      *out = IValue(std::move(v));
      return true;
    }
    case ArgKind::OptTensorList: {
      if (!PyTuple_Check(o) && !PyList_Check(o)) return false;
      Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
      PyObject** items = PySequence_Fast_ITEMS(o);
      std::vector<IValue> v;
      for (Py_ssize_t i = 0; i < n; ++i) {
        if (items[i] == Py_None) v.emplace_back();
        else if (is_tensor(items[i])) v.emplace_back(unwrap(items[i]));
        else return false;
      }
      *out = IValue::list(std::move(v));
      return true;
    }
    case ArgKind::BoolList: {  // a list or tuple of bools, of the fixed size when the schema has one
      if (!PyTuple_Check(o) && !PyList_Check(o)) return false;
      Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
      if (s.fixed_size >= 0 && n != s.fixed_size) return false;
      PyObject** items = PySequence_Fast_ITEMS(o);
      std::vector<IValue> v;
      v.reserve(static_cast<size_t>(n));
      for (Py_ssize_t i = 0; i < n; ++i) {
        if (!PyBool_Check(items[i])) return false;
        v.emplace_back(items[i] == Py_True);
      }
      *out = IValue::list(std::move(v));
      return true;
    }
    case ArgKind::Generator:
      if (!is_generator(o)) return false;
      *out = IValue(unwrap_generator(o));
      return true;
    case ArgKind::Layout:
    case ArgKind::Any:
      return false;
  }
  return false;
}

}  // namespace

bool convert_schema_value(PyObject* o, const SchemaArgument& a, IValue* out) {
  return convert(o, spec_of(a), out, false);
}

bool is_numpy_array(PyObject* o) {
  // No ndarray exists before NumPy is imported; the type is looked up in sys.modules (never importing NumPy)
  // and kept once found.
  static PyObject* ndarray = nullptr;
  if (!ndarray) {
    PyObject* name = PyUnicode_FromString("numpy");
    PyObject* np = name ? PyImport_GetModule(name) : nullptr;
    Py_XDECREF(name);
    if (np) {
      ndarray = PyObject_GetAttrString(np, "ndarray");
      Py_DECREF(np);
    }
    if (PyErr_Occurred()) PyErr_Clear();
    if (!ndarray) return false;
  }
  return PyObject_TypeCheck(o, reinterpret_cast<PyTypeObject*>(ndarray));
}

std::string py_type_name(PyObject* o) {
  if (is_tensor(o)) return "Tensor";
  return Py_TYPE(o)->tp_name;
}

// Note [named returns]
// An op whose schema names all of its several results, such as max.dim's "(Tensor values, Tensor indices)",
// returns a named tuple in Python, as PyTorch's torch.return_types.max: a PyStructSequence type per op name
// (shared by its overloads), so `ember.max(x, 1).values` and `v, i = ember.max(x, 1)` both work. Unnamed
// results (var_mean's) stay a plain tuple, as in PyTorch.
PyTypeObject* named_return_type(const FunctionSchema& fs) {
  if (fs.returns.size() < 2) return nullptr;
  for (const SchemaArgument& r : fs.returns)
    if (r.name.empty()) return nullptr;
  static std::unordered_map<std::string, PyTypeObject*> types;  // built under the GIL, never freed
  const std::string op(fs.base_name());
  std::string key = op;
  for (const SchemaArgument& r : fs.returns) key += "," + r.name;
  auto it = types.find(key);
  if (it != types.end()) return it->second;
  // PyStructSequence keeps pointers to the names and the doc: they live as long as the process.
  auto* names = new std::string("ember.return_types." + op);
  auto* fields = new PyStructSequence_Field[fs.returns.size() + 1]();
  for (size_t i = 0; i < fs.returns.size(); ++i) fields[i].name = (new std::string(fs.returns[i].name))->c_str();
  auto* desc = new PyStructSequence_Desc{names->c_str(), "The named results of an op.", fields,
                                         static_cast<int>(fs.returns.size())};
  PyTypeObject* type = PyStructSequence_NewType(desc);
  if (!type) throw python_error_already_set();
  types.emplace(std::move(key), type);
  return type;
}

Signature make_signature(const OperatorHandle& op) {
  Signature sig;
  sig.op = op;
  const FunctionSchema& fs = op.schema();
  sig.return_type = named_return_type(fs);
  for (size_t i = 0; i < fs.arguments.size(); ++i) {
    sig.args.push_back(spec_of(fs.arguments[i]));
    if (!fs.arguments[i].kwarg_only) ++sig.num_positional;
  }
  sig.self_offset = (!fs.arguments.empty() && fs.arguments[0].name == "self") ? 1 : 0;
  const PythonOpInfo* py = python_op_info(fs.full_name());
  const std::string_view numbers = py ? py->python_numbers : "";
  for (size_t i = 0; i < sig.args.size(); ++i)
    sig.args[i].numbers_ok = numbers == "all" || (numbers == "other" && i > 0);
  int first = sig.self_offset;
  sig.varargs_intlist = sig.num_positional == first + 1 && static_cast<int>(sig.args.size()) > first &&
                        sig.args[first].kind == ArgKind::IntList;
  if (fs.returns.size() == 1 && fs.returns[0].alias && fs.returns[0].alias->is_write) {
    for (size_t i = 0; i < fs.arguments.size(); ++i)
      if (fs.arguments[i].alias && fs.arguments[i].alias->set == fs.returns[0].alias->set)
        sig.returns_alias_of = static_cast<int>(i);
  }
  // Note [requires_grad of factories]
  // PyTorch's Python signatures of the tensor factories (zeros, ones, full, arange, rand, randn, empty, the
  // *_like ops, ...) add a keyword `requires_grad=False` that the op schema does not have: the binding makes
  // the result a leaf that requires grad. Ember recognises the factories by their kwarg-only `Device? device`
  // argument, which only they have.
  for (const auto& a : fs.arguments)
    if (a.kwarg_only && a.name == "device") sig.factory = true;
  std::string t = "(";
  bool kw = false;
  for (size_t i = 0; i < sig.args.size(); ++i) {
    const ArgSpec& a = sig.args[i];
    if (i) t += ", ";
    if (a.kwarg_only && !kw) {
      t += "*, ";
      kw = true;
    }
    t += std::string(kind_name(a)) + (a.optional && a.kind != ArgKind::Tensor ? "? " : " ") + a.name;
    if (a.is_out || (a.has_default && a.default_value.is_none())) t += "=None";
    else if (a.has_default) t += "=" + a.default_value.repr();
  }
  if (sig.factory) t += ", requires_grad=False";
  sig.text = t + ")";
  return sig;
}

// While tracing: the tensors given for int, int[] and (integer tensors) Scalar arguments (traced sizes and
// arithmetic on them) are
// declared to the tracer, so that the op's node reads them instead of constants (Note [traced sizes] in
// ember/jit/frontend/Tracer.h).
void note_traced_ints(const Signature& sig, PyObject* const* given, size_t n) {
  const FunctionSchema& fs = sig.op.schema();
  for (size_t i = 0; i < n; ++i) {
    PyObject* o = given[i];
    if (!o) continue;
    if (sig.args[i].kind == ArgKind::Int && is_tensor(o)) {
      note_traced_int(fs, i, -1, unwrap(o));
    } else if (sig.args[i].kind == ArgKind::Scalar && is_tensor(o) && is_integral(unwrap(o).dtype(), false)) {
      note_traced_int(fs, i, -1, unwrap(o));  // arange(x.size(0)); a float tensor's value stays a constant
    } else if (sig.args[i].kind == ArgKind::IntList && (PyTuple_Check(o) || PyList_Check(o))) {
      Py_ssize_t len = PySequence_Fast_GET_SIZE(o);
      PyObject** items = PySequence_Fast_ITEMS(o);
      for (Py_ssize_t k = 0; k < len; ++k)
        if (is_tensor(items[k])) note_traced_int(fs, i, k, unwrap(items[k]));
    }
  }
}

bool parse_call(const Signature& sig, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, Stack& stack,
                std::string* why, bool from_operator, PyObject** requires_grad) {
  const size_t base = stack.size();
  const size_t n = sig.args.size();
  stack.resize(base + n);
  // Which arguments were given; positional first.
  PyObject* given_stack[16];
  std::vector<PyObject*> given_heap;
  PyObject** given = n <= 16 ? given_stack : (given_heap.resize(n), given_heap.data());
  for (size_t i = 0; i < n; ++i) given[i] = nullptr;

  Py_ssize_t npos = nargs;
  PyObject* varargs_tuple = nullptr;
  if (sig.varargs_intlist && nargs > sig.self_offset + 1) {
    // x.view(2, 3): pack the trailing positional ints into a tuple for the int[] parameter.
    varargs_tuple = PyTuple_New(nargs - sig.self_offset);
    for (Py_ssize_t i = sig.self_offset; i < nargs; ++i) {
      Py_INCREF(args[i]);
      PyTuple_SET_ITEM(varargs_tuple, i - sig.self_offset, args[i]);
    }
    npos = sig.self_offset + 1;
  }
  struct TupleGuard {
    PyObject* t;
    ~TupleGuard() { Py_XDECREF(t); }
  } guard{varargs_tuple};

  // A mismatch is normal while overloads are tried in turn (add(a, b, out=c) first meets add.Tensor), so the
  // message is only formatted when the caller asks for it (why != nullptr: when no overload matched).
  auto fail = [&](auto&& message) {
    stack.resize(base);
    if (why) *why = message();
    return false;
  };
  if (npos > sig.num_positional)
    return fail(
        [&] { return fmt::format("takes {} positional arguments but {} were given", sig.num_positional, npos); });
  for (Py_ssize_t i = 0; i < npos; ++i) given[i] = args[i];
  if (varargs_tuple) given[sig.self_offset] = varargs_tuple;

  if (kwnames) {
    Py_ssize_t nk = PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < nk; ++k) {
      PyObject* key = PyTuple_GET_ITEM(kwnames, k);
      size_t j = 0;
      for (; j < n; ++j) {
        if (sig.args[j].name_obj == key) break;  // interned: pointer comparison is the fast case
      }
      if (j == n) {
        for (j = 0; j < n; ++j)
          if (PyUnicode_Compare(sig.args[j].name_obj, key) == 0) break;
      }
      if (j == n && sig.factory && PyUnicode_CompareWithASCIIString(key, "requires_grad") == 0) {
        if (requires_grad) *requires_grad = args[nargs + k];
        continue;
      }
      if (j == n)
        return fail([&] { return fmt::format("got an unexpected keyword argument '{}'", PyUnicode_AsUTF8(key)); });
      if (given[j]) return fail([&] { return fmt::format("got multiple values for argument '{}'", sig.args[j].name); });
      given[j] = args[nargs + k];
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const ArgSpec& a = sig.args[i];
    IValue& slot = stack[base + i];
    if (!given[i] || (a.is_out && given[i] == Py_None)) {
      if (a.is_out) return fail([] { return std::string("needs out="); });  // the functional overload serves out=None
      if (!a.has_default) return fail([&] { return fmt::format("missing required argument '{}'", a.name); });
      slot = a.default_value;
      continue;
    }
    // Note [a single int for int[]]
    // As PyTorch's parser: one int stands for a list only where the schema fixes the list's size (int[2]
    // kernel_size=3 is [3, 3]) or where the int[] is the only positional parameter (x.view(3), x.permute(0): the
    // varargs form). as_strided(x, size, 1) or flip(x, 0) is a TypeError, not a list of one element.
    const bool lone_int = a.kind == ArgKind::IntList && a.fixed_size <= 0 && !from_operator &&
                          !(sig.varargs_intlist && i == static_cast<size_t>(sig.self_offset)) &&
                          !PyTuple_Check(given[i]) && !PyList_Check(given[i]) && given[i] != Py_None;
    // An out= tensor is written: a Python number would make a temporary tensor that nobody sees.
    if (lone_int || !convert(given[i], a, &slot, (from_operator || a.numbers_ok) && !a.is_out)) {
      return fail([&] {
        if (a.kind == ArgKind::IntList) {
          std::string why_not = int_list_mismatch(given[i]);
          if (!why_not.empty()) return fmt::format("argument '{}' must be {}", a.name, why_not);
        }
        return fmt::format("argument '{}'{} must be {}, not {}", a.name,
                           i < static_cast<size_t>(sig.num_positional) ? fmt::format(" (position {})", i + 1) : "",
                           kind_name(a), py_type_name(given[i]));
      });
    }
  }
  if (tracing_now()) note_traced_ints(sig, given, n);
  return true;
}

PyObject* result_to_python(const Signature& sig, Stack& stack, PyObject* const* args, Py_ssize_t nargs,
                           PyObject* kwnames) {
  const FunctionSchema& fs = sig.op.schema();
  if (sig.returns_alias_of >= 0) {
    // In-place and out= ops return the very object that was passed.
    int i = sig.returns_alias_of;
    PyObject* obj = nullptr;
    if (i < nargs && !sig.args[i].kwarg_only) obj = args[i];
    else if (kwnames) {
      for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(kwnames); ++k)
        if (PyUnicode_Compare(PyTuple_GET_ITEM(kwnames, k), sig.args[i].name_obj) == 0) obj = args[nargs + k];
    }
    stack.clear();
    if (obj && is_tensor(obj)) {
      Py_INCREF(obj);
      return obj;
    }
    Py_RETURN_NONE;
  }
  auto one = [](IValue& v) -> PyObject* {
    switch (v.tag()) {
      case IValue::Tag::Tensor: return wrap(v.to_tensor());
      case IValue::Tag::None: Py_RETURN_NONE;
      case IValue::Tag::Bool: return PyBool_FromLong(v.to_bool());
      case IValue::Tag::Int: return PyLong_FromLongLong(v.to_int());
      case IValue::Tag::Double: return PyFloat_FromDouble(v.to_double());
      case IValue::Tag::TensorList: {
        TensorList l = v.to_tensor_list();
        PyObject* r = PyTuple_New(static_cast<Py_ssize_t>(l.size()));
        for (size_t i = 0; i < l.size(); ++i) PyTuple_SET_ITEM(r, i, wrap(l[i]));
        return r;
      }
      default:
        EMBER_FAIL("cannot convert a {} result to Python", v.tag_name());
    }
  };
  PyObject* r;
  if (fs.returns.size() == 1) {
    r = one(stack.back());
  } else {
    size_t k = fs.returns.size();
    r = sig.return_type ? PyStructSequence_New(sig.return_type) : PyTuple_New(static_cast<Py_ssize_t>(k));
    // (PyStructSequence_SET_ITEM is PyTuple_SET_ITEM: a struct sequence is a tuple.)
    for (size_t i = 0; i < k; ++i) PyTuple_SET_ITEM(r, i, one(stack[stack.size() - k + i]));
  }
  stack.clear();
  if (fs.returns.empty()) Py_RETURN_NONE;
  return r;
}

int64_t to_int64(PyObject* o, const char* fn, const char* arg) {
  EMBER_CHECK_TYPE(is_int_like(o), "{}(): argument '{}' must be int, not {}", fn, arg, py_type_name(o));
  return as_int(o);
}

void parse_optional_dim(const char* fn, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, PyObject** dim) {
  EMBER_CHECK_TYPE(nargs <= 1, "{}() takes at most 1 argument ({} given)", fn, nargs);
  *dim = nargs == 1 ? args[0] : nullptr;
  if (kwnames) {
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(kwnames); ++k) {
      const char* key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
      EMBER_CHECK_TYPE(std::string_view(key) == "dim" && !*dim, "{}() got an unexpected keyword argument '{}'", fn,
                       key);
      *dim = args[nargs + k];
    }
  }
  if (*dim == Py_None) *dim = nullptr;
}

void parse_method_args(const char* fn, std::initializer_list<const char*> names, PyObject* const* args,
                       Py_ssize_t nargs, PyObject* kwnames, PyObject** out) {
  const auto n = static_cast<Py_ssize_t>(names.size());
  EMBER_CHECK_TYPE(nargs <= n, "{}() takes at most {} argument{} ({} given)", fn, n, n == 1 ? "" : "s", nargs);
  for (Py_ssize_t i = 0; i < n; ++i) out[i] = i < nargs ? args[i] : nullptr;
  if (!kwnames) return;
  for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(kwnames); ++k) {
    const char* key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
    Py_ssize_t i = 0;
    for (const char* name : names) {
      if (std::string_view(key) == name) break;
      ++i;
    }
    EMBER_CHECK_TYPE(i < n, "{}() got an unexpected keyword argument '{}'", fn, key);
    EMBER_CHECK_TYPE(!out[i], "{}() got multiple values for argument '{}'", fn, key);
    out[i] = args[nargs + k];
  }
}

}  // namespace ember::python
