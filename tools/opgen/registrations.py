"""Registrations: the schemas (ember/ops/generated/RegisterOps.cpp), the composite kernels' declarations and the
CPU kernels' declarations and registrations (ember/kernels/cpu/generated)."""
from .cpp_types import HEADER, cstr


def gen_registrations(ops):
    """m.def() of every schema with its OpInfo, the ops layer's composite kernels, and the CPU kernels' m.impl()."""
    files = {}
    comp = [HEADER, "#pragma once\n// Kernels written in the ops layer with other ops (composite) or as views.\n"
            '#include "ember/ops/Functions.h"\n\nnamespace ember::composite {\n\n'
            "/// Gives self the sizes, strides and storage offset of view (a view of self): the body of every "
            "in-place\n"
            "/// view op (Note [in-place view ops], ops_view.yaml; views.cpp). Returns self.\n"
            "Tensor assign_view_geometry(const Tensor& self, const Tensor& view);\n\n"]
    reg = [HEADER, '#include <limits>\n\n#include "ember/dispatch/Library.h"\n#include '
                   '"ember/ops/generated/CompositeKernels.h"\n\n',
           "namespace ember {\n\n/// Declares every op of the database (and registers the ops layer's own kernels).\n"
           "void register_aten_ops(Library& m) {\n"
           "  using K = DispatchKey;\n"]
    for o in ops:
        info = f"OpInfo{{{cstr(o.doc)}, {cstr('' if o.inplace_view else o.entry.get('shape', ''))}}}"
        reg.append(f"  m.def({cstr(o.schema.text)}, {info});\n")
    scalar_bodies, view_bodies, alias_bodies = [], [], []
    for o in ops:
        k = o.composite or o.composite_explicit
        if not k:
            continue
        if o.scalar_of:
            args = ", ".join(f"wrapped_scalar_tensor({a.name})" if a.type == "Scalar" and i == 1 else a.name
                             for i, a in enumerate(o.schema.args))
            scalar_bodies.append(f"{o.kernel_signature(k)} {{ return ember::{o.scalar_of}({args}); }}\n")
        elif o.alias_of:
            args = [a.name for a in o.schema.args]
            if o.kind == "out":  # the C++ API takes out first
                args = [a.name for a in o.schema.args if a.mutable and a.kwarg_only] + [
                    a.name for a in o.schema.args if not (a.mutable and a.kwarg_only)]
            alias_bodies.append(f"{o.kernel_signature(k)} {{ return ember::{o.alias_of}({', '.join(args)}); }}\n")
        elif o.view_of:
            args = ", ".join(a.name for a in o.schema.args)
            view_bodies.append(f"{o.kernel_signature(k)} "
                               f"{{ return assign_view_geometry(self, composite::{o.view_of}({args})); }}\n")
        else:
            comp.append(o.kernel_signature(k) + ";\n")
        key = "K::CompositeImplicitAutograd" if o.composite else "K::CompositeExplicitAutograd"
        reg.append(f"  m.impl({cstr(o.schema.full())}, {key}, static_cast<{o.fn_ptr_type()}>(&composite::{k}));\n")
    reg.append("}\n\n}  // namespace ember\n")
    reg.insert(2, "namespace ember::composite {\n// C++-only overloads taking a number: the Tensor overload with the "
                  "number wrapped.\n"
               + "".join(scalar_bodies)
               + "// In-place view ops: the view op's geometry given to self (Note [in-place view ops], "
                 "ops_view.yaml; views.cpp).\n"
               + "".join(view_bodies)
               + "// Aliases: the target op called with the same arguments (Note [aliases], tools/opgen/model.py).\n"
               + "".join(alias_bodies) + "}  // namespace ember::composite\n\n")
    comp.append("\n}  // namespace ember::composite\n")
    files["ember/ops/generated/CompositeKernels.h"] = "".join(comp)
    files["ember/ops/generated/RegisterOps.cpp"] = "".join(reg)

    cpu = [HEADER, "#pragma once\n// The CPU kernels named by the op database, defined by family in "
                   "ember/kernels/cpu/*.cpp.\n"
           '#include "ember/ops/Functions.h"\n\nnamespace ember::cpu {\n\n']
    rc = [HEADER, '#include "ember/dispatch/Library.h"\n#include "ember/kernels/cpu/generated/CPUKernels.h"\n\n'
          "namespace ember {\n\n/// Registers every CPU kernel of the op database.\nvoid "
          "register_cpu_kernels(Library& m) {\n"]
    for o in ops:
        if o.cpu:
            cpu.append(o.kernel_signature(o.cpu) + ";\n")
            rc.append(f"  m.impl({cstr(o.schema.full())}, DispatchKey::CPU, "
                      f"static_cast<{o.fn_ptr_type()}>(&cpu::{o.cpu}));\n")
    cpu.append("\n}  // namespace ember::cpu\n")
    rc.append("}\n\n}  // namespace ember\n")
    files["ember/kernels/cpu/generated/CPUKernels.h"] = "".join(cpu)
    files["ember/kernels/cpu/generated/RegisterCPU.cpp"] = "".join(rc)
    return files

