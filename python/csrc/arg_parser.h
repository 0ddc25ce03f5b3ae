#pragma once
// Note [python argument parsing]
// Every op reaches Python through one generic parser driven by its schema, not a binding per op. For each
// overload the schema is pre-digested once into a Signature (argument kinds, Python names, defaults); a call
// converts its positional and keyword arguments into IValues on a reused thread-local stack in one pass,
// trying the overloads in registration order, and returns the first that fits. Conventions follow PyTorch's
// Python API: Python numbers are accepted for Tensor arguments (as wrapped numbers, Note [promotion]), a
// schema's `self` is called `input` as a keyword, an int[] that is the only positional parameter also takes
// varargs (x.view(2, 3)), `out=None` means no out, and a mismatch raises TypeError listing the signatures.
#include <initializer_list>
#include <string>
#include <vector>

#include "python_common.h"

namespace ember::python {

enum class ArgKind : uint8_t {
  Tensor, TensorList, OptTensorList, Int, IntList, Float, Bool, Scalar, ScalarType, Device, Str, MemoryFormat,
  Generator, Layout, BoolList, Any
};

struct ArgSpec {
  std::string name;         // Python keyword name
  PyObject* name_obj = nullptr;  // interned, for fast keyword matching
  ArgKind kind = ArgKind::Any;
  bool optional = false;    // accepts None
  bool kwarg_only = false;
  int64_t fixed_size = -1;  // int[N], bool[N]
  bool has_default = false;
  IValue default_value;
  bool is_out = false;
  bool numbers_ok = false;  // a Tensor argument that takes Python numbers in function calls
};

struct Signature {
  OperatorHandle op;
  std::vector<ArgSpec> args;
  int num_positional = 0;
  bool varargs_intlist = false;  // the only positional parameter is an int[] (after self)
  int self_offset = 0;           // 1 when the first parameter is `self` (methods bind it positionally)
  int returns_alias_of = -1;     // the result is the Python object passed for this argument (in-place, out=)
  std::string text;              // "(Tensor input, Tensor other, *, Number alpha=1, Tensor out=None)"
  PyTypeObject* return_type = nullptr;  // Note [named returns]: ember.return_types.<op>, or null (a plain tuple)
  bool factory = false;          // takes `requires_grad=` (Note [requires_grad of factories])
};

Signature make_signature(const OperatorHandle& op);

/// Converts a call's arguments for sig onto stack (appended). Returns false on a mismatch of arity, names or
/// types, and then sets *why to the reason unless why is null (the message costs time: ask for it only when
/// reporting an error); raises (C++ exception) on errors that are not mismatches (an int that overflows).
/// `from_operator`: a Python operator (a + 2) calls the op, and every Tensor argument takes numbers.
/// `requires_grad`: for a factory signature, receives the `requires_grad=` keyword's value (null when absent);
/// when null the keyword is accepted and ignored.
bool parse_call(const Signature& sig, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, Stack& stack,
                std::string* why, bool from_operator = false, PyObject** requires_grad = nullptr);

/// Converts one Python value to an IValue of schema argument a's type with the parser's rules (Python numbers
/// are not taken for a Tensor); returns false on a type mismatch. Raises as parse_call (an int that overflows).
bool convert_schema_value(PyObject* o, const SchemaArgument& a, IValue* out);

/// Converts a call's result (on the stack) into a Python object.
PyObject* result_to_python(const Signature& sig, Stack& stack, PyObject* const* args, Py_ssize_t nargs,
                           PyObject* kwnames);

// Helpers for hand-written methods.
int64_t to_int64(PyObject* o, const char* fn, const char* arg);
void parse_optional_dim(const char* fn, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, PyObject** dim);
/// The arguments of a hand-written method taking the parameters `names` (positional or keyword): out[i] is
/// the object given for names[i], or null when absent. Errors: TypeError for too many arguments, an unknown
/// keyword or one given twice, as Python's.
void parse_method_args(const char* fn, std::initializer_list<const char*> names, PyObject* const* args,
                       Py_ssize_t nargs, PyObject* kwnames, PyObject** out);
/// The Python type name used in messages ("Tensor", "int", "str", ...).
std::string py_type_name(PyObject* o);

/// Whether o is a NumPy ndarray (of any rank, 0-d included; NumPy scalars such as np.float32(2) are not).
/// Arrays are not numbers to the parser: operators hand them to NumPy (see Note [NumPy arrays as operands]).
bool is_numpy_array(PyObject* o);

}  // namespace ember::python
