"""The opcodes of fused elementwise programs (Note [fused elementwise programs], ember/ops/FusedProgram.h) from
the database's `fused:` fields: the FusedOpcode enum and the table the fusion pass matches graph nodes with
(ember/ops/generated/FusedOps.h)."""
from .cpp_types import HEADER, cstr
from .model import fail

# Not ops: the loads of a program's inputs and constants.
LOADS = [("input", 0), ("constant", 1)]


def enum_name(name):
    return "".join(p.capitalize() for p in name.split("_"))


def fused_patterns(ops):
    """[(opcode, opcode name, arity, op base name, number of arguments, [(arg index, value)])] in opcode order."""
    rows, seen = [], {n: o for n, o in LOADS}
    for o in ops:
        if o.kind != "functional" or "fused" not in o.entry:
            continue
        spec = o.entry["fused"]
        args = o.schema.args
        index = {a.name: i for i, a in enumerate(args)}
        for it in (spec if isinstance(spec, list) else [spec]):
            when = it.get("when") or {}
            name = it.get("name", o.schema.name.split("::")[-1])
            if name in seen or it["opcode"] in seen.values():
                fail(o.entry.where, f"fused opcode {it['opcode']} ({name}) given twice")
            seen[name] = it["opcode"]
            operands = [a for a in args if a.name not in when]
            if any(not (a.type in ("Tensor", "Scalar")) for a in operands) or \
                    [a.name for a in args[:len(operands)]] != [a.name for a in operands]:
                fail(o.entry.where, "fused: the operands must be the leading Tensor/Scalar arguments and every "
                                    "other argument must have a `when` value")
            rows.append((it["opcode"], name, len(operands), o.schema.name.split("::")[-1], len(args),
                         sorted((index[k], v) for k, v in when.items())))
    rows.sort()
    return rows


def cpp_condition(index, v):
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        raise SystemExit(f"gen_ops: fused: a `when` value must be a number or a string, not {v!r}")
    if isinstance(v, str):
        return f"{{{index}, {cstr(v)}, 0.0}}"
    return f"{{{index}, nullptr, {float(v)!r}}}"


def gen_fused_ops(ops):
    rows = fused_patterns(ops)
    unary = [r for r in rows if r[2] == 1]
    binary = [r for r in rows if r[2] == 2]
    if len(unary) + len(binary) != len(rows):
        raise SystemExit("gen_ops: fused: only unary and binary ops can be fused")
    enum = [f"  {enum_name(n)} = {c},\n" for n, c in LOADS]
    enum += ["  // unary\n"] + [f"  {enum_name(r[1])} = {r[0]},\n" for r in unary]
    enum += ["  // binary\n"] + [f"  {enum_name(r[1])} = {r[0]},\n" for r in binary]
    table = [f"    {{FusedOpcode::{enum_name(n)}, {cstr(n)}, 0, nullptr, 0, {{}}}},\n" for n, _ in LOADS]
    for code, name, arity, op, nargs, when in rows:
        conds = ", ".join(cpp_condition(i, v) for i, v in when)
        table.append(f"    {{FusedOpcode::{enum_name(name)}, {cstr(name)}, {arity}, {cstr(op)}, {nargs}, "
                     f"{{{conds}}}}},\n")
    text = [HEADER,
            "#pragma once\n// The opcodes of fused elementwise programs and the graph nodes each one stands for, from "
            "the op\n"
            "// database's `fused:` fields. See Note [fused elementwise programs] (ember/ops/FusedProgram.h).\n"
            "#include <cstdint>\n\nnamespace ember {\n\n"
            "/// Opcodes are a file format (saved models carry them): never renumbered, only appended.\n"
            "enum class FusedOpcode : int64_t {\n", "".join(enum), "};\n\n"
            "/// A constant argument value a node must have to be fused (add's alpha=1, gelu's approximate).\n"
            "struct FusedCondition {\n  int index = -1;              // the argument's position in the schema\n"
            "  const char* string = nullptr;  // a string value, or nullptr for a number\n"
            "  double number = 0;\n};\n\n"
            "/// One opcode: its name, its operands (the op's first `arity` arguments), and the op it computes:\n"
            "/// aten::<op> with `num_args` inputs whose other arguments are the constants of `when`.\n"
            "struct FusedOpPattern {\n  FusedOpcode opcode;\n  const char* name;\n  int arity;\n"
            "  const char* op;  // base name, or nullptr for the loads\n  int num_args;\n"
            "  FusedCondition when[2];\n};\n\n"
            "inline constexpr FusedOpPattern kFusedOpPatterns[] = {\n", "".join(table), "};\n\n}  // namespace ember\n"]
    return {"ember/ops/generated/FusedOps.h": "".join(text)}
