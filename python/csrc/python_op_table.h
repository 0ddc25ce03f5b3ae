#pragma once
// Python-only facts about the ops of the database (generated: python/csrc/generated/PythonOpTable.cpp from the
// database's `variants`, `python`, `python_module` and `python_numbers` fields; tools/gen_ops.py).
#include <string_view>

namespace ember::python {

/// Where Python binds one op and which arguments take Python numbers.
struct PythonOpInfo {
  const char* name;            // the schema's full name, "aten::add.Tensor"
  bool method;                 // a Tensor method
  bool function;               // a function of ember (or of ember._C._<module>)
  const char* python_numbers;  // Tensor arguments that take Python numbers: "all", "other" or ""
  const char* python_module;   // "" for ember, else ember._C._<module> ("nn" as torch._C._nn, "linalg")
};

/// The entry of the op with that full name, or nullptr for ops Python does not bind (hidden ones, custom ops).
const PythonOpInfo* python_op_info(std::string_view full_name);

}  // namespace ember::python
