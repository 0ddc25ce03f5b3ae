#include "python_ops.h"

#include <pybind11/stl.h>

#include "arg_parser.h"
#include "op_binding.h"
#include "ember/dispatch/Dispatcher.h"
#include "ember/dispatch/LoadLibrary.h"
#include "python_common.h"
#include "tensor.h"

namespace py = pybind11;

namespace ember::python {

py::object ivalue_to_python(const IValue& v) {
  switch (v.tag()) {
    case IValue::Tag::None: return py::none();
    case IValue::Tag::Bool: return py::bool_(v.to_bool());
    case IValue::Tag::Int: return py::int_(v.to_int());
    case IValue::Tag::Double: return py::float_(v.to_double());
    case IValue::Tag::String: return py::str(std::string(v.to_string()));
    case IValue::Tag::Tensor: {
      const Tensor& t = v.to_tensor();
      if (!t.defined()) return py::none();
      return py::reinterpret_steal<py::object>(wrap(t));
    }
    case IValue::Tag::IntList: {
      py::list l;
      for (int64_t i : v.to_int_list()) l.append(py::int_(i));
      return l;
    }
    case IValue::Tag::TensorList: {
      py::list l;
      for (const Tensor& t : v.to_tensor_list()) l.append(ivalue_to_python(IValue(t)));
      return l;
    }
    case IValue::Tag::List: {
      py::list l;
      for (const IValue& e : v.to_list()) l.append(ivalue_to_python(e));
      return l;
    }
    case IValue::Tag::Tuple: {
      py::list l;
      for (const IValue& e : v.to_tuple()) l.append(ivalue_to_python(e));
      return py::tuple(l);
    }
    case IValue::Tag::Dict: {
      py::dict d;
      for (const auto& [k, e] : v.to_dict()) d[ivalue_to_python(k)] = ivalue_to_python(e);
      return d;
    }
    default:
      throw py::type_error("cannot pass a value of kind " + std::string(v.tag_name()) + " to Python");
  }
}

namespace {

// The IValue for a value a Python kernel of op `op` returned as `ret`, converted as arguments are
// (convert_schema_value). Errors: TypeError naming the op and the schema's type.
IValue return_value(py::handle o, const SchemaArgument& ret, const std::string& op) {
  IValue v;
  if (!convert_schema_value(o.ptr(), ret, &v))
    throw py::type_error(op + ": the Python kernel returned " + std::string(Py_TYPE(o.ptr())->tp_name) +
                         " where the schema says " + ret.type.str());
  return v;
}

// The boxed kernel of a Python function: pops the op's arguments, calls fn(*args) with the GIL held, and
// pushes the results as the schema's returns describe (one value, or a tuple unpacked into several).
// A Python exception travels as py::error_already_set through the dispatcher and is restored, type and all,
// where the call entered from Python (set_python_error).
KernelFunction python_kernel(py::object fn) {
  auto holder = std::make_shared<py::object>(std::move(fn));
  return KernelFunction::from_boxed([holder](const OperatorHandle& op, Stack* stack) {
    py::gil_scoped_acquire gil;
    const FunctionSchema& s = op.schema();
    size_t n = s.arguments.size();
    py::tuple args(n);
    for (size_t i = 0; i < n; ++i) args[i] = ivalue_to_python((*stack)[stack->size() - n + i]);
    stack->resize(stack->size() - n);
    py::object r = (*holder)(*args);
    const std::string name = s.full_name();
    if (s.returns.empty()) {
      if (!r.is_none()) throw py::type_error(name + ": the Python kernel must return None (the schema returns ())");
    } else if (s.returns.size() == 1) {
      stack->push_back(return_value(r, s.returns[0], name));
    } else {
      if (!py::isinstance<py::tuple>(r) || py::len(r) != s.returns.size())
        throw py::type_error(name + ": the Python kernel must return a tuple of " + std::to_string(s.returns.size()) +
                             " values");
      for (size_t i = 0; i < s.returns.size(); ++i)
        stack->push_back(return_value(r[py::int_(i)], s.returns[i], name));
    }
    // Holding a Python function in the operator table: the functor (and so this object) lives as long as the
    // process; at interpreter shutdown the reference is leaked rather than released without the GIL.
  });
}

}  // namespace

void init_python_ops(py::module_& m) {
  m.def("_define_op", [](const std::string& schema, const std::string& where) {
        FunctionSchema parsed = parse_schema(schema, "");
        EMBER_CHECK(parsed.name.find("::") != std::string::npos && parsed.name.find("::") > 0,
                    "custom_op: expected a qualified name 'namespace::name', got '{}'", parsed.name);
        std::string ns = parsed.name.substr(0, parsed.name.find("::"));
        // The built-in ops' namespaces belong to the op database: a Python definition there could shadow or
        // collide with what saved graphs and the C++ API mean by aten::add.
        EMBER_CHECK_VALUE(ns != "aten" && ns != "prim" && ns != "ember",
                    "custom_op: the namespace '{}' is reserved for Ember's built-in ops; define '{}' in a namespace "
                    "of your own (e.g. 'mylib::{}')", ns, parsed.name, parsed.name.substr(ns.size() + 2));
        Dispatcher::singleton().def(schema, OpInfo{}, ns, where);
        set_op_source(parsed.name, OpSource{OpSource::Kind::Python, where});  // Note [op sources]
      }, py::arg("schema"), py::arg("where"),
      "Declares an op from a qualified schema; `where` names the definition in errors. Errors: a malformed schema, "
      "an op defined twice (naming both places).");
  m.def("_impl_python", [](const std::string& name, const std::string& key, py::function fn, const std::string& where) {
        DispatchKey k;
        EMBER_CHECK(parse_key(key, &k), "custom_op: unknown dispatch key '{}'", key);
        Dispatcher::singleton().impl(name, k, python_kernel(std::move(fn)), where);
      }, py::arg("name"), py::arg("key"), py::arg("fn"), py::arg("where"),
      "Registers a Python function as the kernel of op `name` ('ns::op.overload') at dispatch key `key`.");
  // The op table's other entry points: libraries of ops (ember.ops.load_library), op objects by qualified
  // name (ember.ops.<ns>.<op>), every schema.
  m.def("_load_library", [](const std::string& path) {
        try {
          ember::load_library(path);
        } catch (const ember::LibraryLoadError& e) {
          set_error_message(PyExc_OSError, e.what());  // as torch.ops.load_library (ctypes) raises
          throw py::error_already_set();
        }
      }, py::arg("path"), "Loads a shared library of ops (ember::load_library); OSError when the OS cannot load it.");
  m.def("_loaded_libraries", &ember::loaded_libraries, "The op libraries loaded so far, in order.");
  m.def(
      "_qualified_op",
      [](const std::string& name) { return py::reinterpret_steal<py::object>(make_qualified_op(name)); },
      py::arg("name"), "The op object of every overload of 'ns::op', or None when no such op is defined.");
  m.def("_op_schemas", [] {
    std::vector<std::string> r;
    for (const auto& h : Dispatcher::singleton().all_ops()) r.push_back(h.schema().str());
    return r;
  }, "The schema of every registered op.");
}

}  // namespace ember::python
