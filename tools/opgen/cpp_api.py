"""The C++ API of the op database: ember::<op>(...) and Tensor::<op>(...)."""
from .cpp_types import HEADER, cpp_ret_type, cstr


def gen_cpp_api(ops):
    """The public functional API (ember::add, ...) and Tensor's methods: declarations and definitions, each a
    cached OperatorHandle and a typed call."""
    files = {}
    meth = [HEADER, "// Included inside class Tensor (ember/core/Tensor.h); defined in "
                    "ember/ops/generated/Functions.cpp.\n"]
    decl = [HEADER, "// Included by ember/ops/Functions.h inside namespace ember.\n"]
    defs = [HEADER, '#include <limits>\n\n#include "ember/ops/Functions.h"\n#include "ember/dispatch/Dispatcher.h"\n\n',
            "namespace ember {\n\nnamespace {\n"
            "OperatorHandle op(const char* name) { return Dispatcher::singleton().find_or_throw(name); }\n"
            "}  // namespace\n\n"]
    for o in ops:
        if not o.function and not o.method:
            continue
        ret = cpp_ret_type(o.schema.rets)
        out_first = o.kind == "out"
        call_args = ", ".join(a.name for a in o.schema.args)
        name = o.cpp_name
        doc = f"/// {o.doc}\n" if o.doc and o.kind == "functional" else ""
        decl.append(f"{doc}{ret} {name}({o.cpp_params(True, out_first=out_first)});\n")
        defs.append(f"{ret} {name}({o.cpp_params(False, out_first=out_first)}) {{\n"
                    f"  static const OperatorHandle h = op({cstr(o.schema.full())});\n"
                    f"  return h.call<{o.call_types()}>({call_args});\n}}\n")
        if o.method:
            meth.append(f"{ret} {name}({o.cpp_params(True, skip_self=True)}) const;\n")
            rest = ", ".join(["*this"] + [a.name for a in o.schema.args[1:]])
            defs.append(f"{ret} Tensor::{name}({o.cpp_params(False, skip_self=True)}) const {{ "
                        f"return ember::{name}({rest}); }}\n")
    defs.append("\n}  // namespace ember\n")
    files["ember/core/generated/TensorMethods.inc"] = "".join(meth)
    files["ember/ops/generated/Functions.inc"] = "".join(decl)
    files["ember/ops/generated/Functions.cpp"] = "".join(defs)

    return files
