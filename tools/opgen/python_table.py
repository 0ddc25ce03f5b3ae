"""What Python needs to know of the database and the dispatcher does not: where each op is bound (a function
of ember or of ember._C._<module>, a Tensor method) and which arguments take Python numbers
(python/csrc/generated/PythonOpTable.cpp); and the table of every Python-visible op that drives the generic
per-op tests (tests/python/generated/op_table.py)."""
import pprint

from .cpp_types import HEADER, cstr
from .model import DTYPE_SETS


def gen_python_op_table(ops):
    rows = []
    for o in ops:
        bound = o.python and (o.function or o.method)
        if not bound:
            continue
        rows.append(f"    {{{cstr(o.schema.full())}, {str(o.method).lower()}, {str(o.function).lower()}, "
                    f"{cstr(o.entry.get('python_numbers', ''))}, {cstr(o.entry.get('python_module', ''))}}},\n")
    text = [HEADER,
            "// Where Python binds each op of the database (python/csrc/op_binding.cpp) and which of its arguments\n"
            "// take Python numbers (arg_parser.cpp): the database's `variants`, `python`, `python_module` and\n"
            "// `python_numbers`, kept out of the dispatcher (ember/dispatch knows nothing of Python).\n"
            '#include "../python_op_table.h"\n\n#include <string>\n#include <unordered_map>\n\n'
            "namespace ember::python {\n\nnamespace {\n\nconst PythonOpInfo kPythonOps[] = {\n", "".join(rows),
            "};\n\n}  // namespace\n\n"
            "const PythonOpInfo* python_op_info(std::string_view full_name) {\n"
            "  static const auto* const index = [] {\n"
            "    auto* m = new std::unordered_map<std::string_view, const PythonOpInfo*>();\n"
            "    for (const PythonOpInfo& info : kPythonOps) m->emplace(info.name, &info);\n"
            "    return m;\n  }();\n"
            "  auto it = index->find(full_name);\n"
            "  return it == index->end() ? nullptr : it->second;\n}\n\n}  // namespace ember::python\n"]
    return {"python/csrc/generated/PythonOpTable.cpp": "".join(text)}


def dtypes_of(e):
    """The entry's dtype names, or "all" (every dtype: PyTorch decides which it accepts)."""
    d = e.get("dtypes", "all")
    return DTYPE_SETS[d] if isinstance(d, str) and d in DTYPE_SETS else d


def gen_test_op_table(entries, ops):
    """One dict per Python-visible entry: names of its variants, the Python module, its differentiable
    arguments (and those whose derivative raises, as PyTorch's not_implemented), tags, shape rule and schema, for
    tests/python/test_ops_generic.py. An alias has its target's
    derivative, and names the target (alias_of: the test takes the target's samples)."""
    by_entry = {}
    for o in ops:
        by_entry.setdefault(id(o.entry), []).append(o)
    table = []
    for e in entries:
        vs = by_entry[id(e)]
        f = vs[0]
        if not any(o.python and (o.function or o.method) for o in vs):
            continue
        inplace = next((o for o in vs if o.kind == "inplace"), None)
        out = next((o for o in vs if o.kind == "out"), None)
        d = e.target if e.target is not None else e  # an alias differentiates as its target (Note [aliases])
        diff, not_implemented = [], []
        for key, formula in (d.get("grad") or {}).items():
            # a derivative PyTorch leaves unimplemented raises in backward (grad_not_implemented): not gradchecked
            names = [n.strip() for n in key.split(",")]
            if isinstance(formula, str) and formula.strip().startswith("grad_not_implemented("):
                not_implemented += names
            else:
                diff += names
        table.append({
            "name": f.schema.name.split("::")[-1],
            "overload": f.schema.overload,
            "schema": f.schema.text,
            "function": f.function and f.python,
            "method": f.method and f.python,
            "inplace": bool(inplace and inplace.python and inplace.method),
            "out": bool(out and out.python),
            "python_module": e.get("python_module", ""),
            "differentiable": diff,
            "not_differentiable": list(d.get("not_differentiable", [])),
            "grad_not_implemented": not_implemented,
            "never_differentiable": d.get("differentiable", True) is False,
            "composite": "composite" in e or "alias_of" in e,
            "alias_of": e.get("alias_of", ""),
            "dtypes": dtypes_of(e),
            "tags": list(e.get("tags", [])),
            "shape": e.get("shape", ""),
        })
    text = ("# " + HEADER[3:] + '"""Every Python-visible entry of the op database, for '
                                'tests/python/test_ops_generic.py."""\n\n'
            "OPS = " + pprint.pformat(table, width=118, sort_dicts=False) + "\n")
    return {"tests/python/generated/op_table.py": text}
