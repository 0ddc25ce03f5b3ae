#!/usr/bin/env python3
"""Generates Ember's C++ op API, registrations, autograd kernels and tables from the op database:
ember/ops/ops.yaml and ember/ops/ops_<family>.yaml (ember/ops/README.md: how to add an op; --fields: what an
entry may hold). The modules of tools/opgen/ write, by what they generate:
  cpp_api           ember/core/generated/TensorMethods.inc   Tensor's method declarations (inside class Tensor)
                    ember/ops/generated/Functions.inc        the functional API's declarations (ember::add, ...)
                    ember/ops/generated/Functions.cpp        their definitions and the Tensor methods'
  registrations     ember/ops/generated/CompositeKernels.h   kernels written in the ops layer
                    ember/ops/generated/RegisterOps.cpp      m.def() of every schema, plus composite kernels
                    ember/kernels/cpu/generated/CPUKernels.h, RegisterCPU.cpp   the CPU kernels
  autograd          ember/autograd/generated/Functions.cpp   backward nodes and Autograd-key kernels (`grad:`)
                    ember/autograd/generated/ADInplaceOrView.cpp   version counter bumps and view bases
                    ember/autograd/generated/NonDifferentiable.h   `differentiable: false`
  fusion            ember/ops/generated/FusedOps.h           opcodes of fused elementwise programs (`fused:`)
  python_table      python/csrc/generated/PythonOpTable.cpp  where Python binds each op, which args take numbers
                    tests/python/generated/op_table.py       every Python-visible op, for the generic tests
  readme            the field table of ember/ops/README.md
The output is committed; `gen_ops.py --check` fails when it is stale (run in `make test`). An entry with an
unknown or misspelled field, a value of the wrong kind or a missing required field stops the generator with
the file and line.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from opgen.autograd import gen_autograd, gen_inplace_or_view, gen_non_differentiable  # noqa: E402
from opgen.cpp_api import gen_cpp_api  # noqa: E402
from opgen.fusion import gen_fused_ops  # noqa: E402
from opgen.model import FIELDS, ROOT, load, load_entries  # noqa: E402
from opgen.python_table import gen_python_op_table, gen_test_op_table  # noqa: E402
from opgen.readme import gen_readme  # noqa: E402
from opgen.registrations import gen_registrations  # noqa: E402


def generate():
    entries = load_entries()
    ops = load(entries)
    files = {}
    for gen in (gen_cpp_api, gen_registrations, gen_autograd, gen_inplace_or_view, gen_non_differentiable,
                gen_fused_ops, gen_python_op_table):
        files.update(gen(ops))
    files.update(gen_test_op_table(entries, ops))
    files.update(gen_readme())
    return files


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if a generated file is stale")
    ap.add_argument("--fields", action="store_true", help="print the fields an entry may have and exit")
    args = ap.parse_args()
    if args.fields:
        for name, (kind, doc) in FIELDS.items():
            print(f"{name} ({kind}): {doc}")
        return 0
    files = generate()
    stale = []
    for rel, text in files.items():
        path = os.path.join(ROOT, rel)
        old = open(path).read() if os.path.exists(path) else None
        if old == text:
            continue
        if args.check:
            stale.append(rel)
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            tmp = path + ".tmp"
            with open(tmp, "w") as f:
                f.write(text)
            os.replace(tmp, path)
            print(f"gen_ops: wrote {rel}")
    if stale:
        print("gen_ops: stale generated files (run tools/gen_ops.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
