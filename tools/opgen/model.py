"""The op database as the generator sees it: the fields an entry may have (FIELDS, the one place they are
documented), a loader that remembers where each entry is and rejects what it does not know, and Op, one schema
of an entry (an entry expands to its functional, in-place and out= variants)."""
import difflib
import os

import yaml

from .cpp_types import cpp_arg_type, cpp_default, cpp_ret_type
from .schema import Schema

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The shape/dtype rules of ember/ops/meta.cpp (Note [shape rules]).
SHAPE_RULES = {
    "unary": "self's sizes and dtype",
    "unary_float": "self's sizes; integral and bool dtypes become the default floating dtype",
    "unary_bool": "self's sizes; bool",
    "square": "self's sizes; bool becomes int64 (square is pow(x, 2))",
    "binary": "the broadcast of every tensor argument; result_type of every tensor and number argument",
    "binary_float": "binary, then integral and bool become the default floating dtype",
    "compare": "the broadcast of the tensor arguments; bool",
    "where": "binary over self and other, broadcast with condition too",
    "view": "the view op itself (views are computed from geometry only)",
    "factory": "`size` (or self's sizes for *_like) and the dtype argument (or the op's default)",
}

# Tags (PyTorch's torch.Tag in spirit): what kind of computation an op is, for passes and the generic tests.
TAGS = {
    "pointwise": "each result element depends only on the inputs' elements at the same (broadcast) index",
    "reduction": "reduces over dimensions (dim/keepdim arguments, or all of them)",
    "random": "draws numbers from a generator (bit for bit PyTorch's CPU generator)",
    "factory": "makes a new tensor from sizes and options, not from a tensor's values",
    "view": "returns a view of an input (shares its storage)",
}

# Named dtype sets for `dtypes:`.
DTYPE_SETS = {
    "floating": ["float16", "bfloat16", "float32", "float64"],
    "float32_float64": ["float32", "float64"],
    "integral": ["uint8", "int8", "int16", "int32", "int64"],
}
DTYPE_NAMES = {"bool"} | {d for ds in DTYPE_SETS.values() for d in ds}

# Where Python finds a function outside `ember` (PyTorch's torch._C._nn, torch._C._linalg, ...).
PYTHON_MODULES = ("nn", "linalg", "special", "fft")

# Every field an entry may have: (kind of value, documentation). The generator rejects any other key with the
# file and line; tools/gen_ops.py --fields prints this table and ember/ops/README.md carries it (checked).
FIELDS = {
    "schema": ("str", "PyTorch-grammar schema of the functional form (namespace aten). Required."),
    "doc": ("str", "One line for the API docs (C++ doc comment, Python docstring). Required."),
    "variants": ("variants", '"function", "method" or "function, method" (default "function").'),
    "inplace": ("bool", "true adds `<name>_` (self is Tensor(a!); a method unless inplace_variants says)."),
    "inplace_variants": ("variants", "the in-place variant's variants (default \"method\")."),
    "out": ("bool", "true adds `<name>.out` (or `.<overload>_out`) with a trailing `*, Tensor(a!) out`."),
    "cpu": ("str", "kernel name in ember/kernels/cpu (the in-place and out= kernels get suffixes `_`, `_out`)."),
    "composite": ("str", "kernel written with other ops, in ember/ops (CompositeImplicitAutograd: autograd and "
                         "the tracer see the ops it calls)."),
    "composite_explicit": ("str", "kernel in ember/ops that autograd must see as one op (views, factories: "
                                  "CompositeExplicitAutograd)."),
    "inplace_composite": ("str", "the in-place variant's kernel, written in ember/ops with other ops, when it "
                                 "is not the functional kernel's name with `_` (swapdims_)."),
    "out_composite": ("str", "the same for the out= variant."),
    "alias_of": ("str", "the op this entry is another name of, \"name\" or \"name.overload\" (PyTorch's aliases: "
                        "arccos of acos, clip of clamp): its argument and result types must be the target's. The "
                        "functional, in-place and out= kernels are generated as calls of the target's "
                        "(CompositeImplicitAutograd, as PyTorch's); the entry takes the target's shape rule, tags, "
                        "dtypes, python and python_numbers, and without `doc` one naming the target (Note [aliases])."),
    "scalar_of": ("str", "a C++-only overload taking a Scalar `other`, generated as a call of the named Tensor "
                         "overload (Note [promotion])."),
    "shape": ("shape", "the shape/dtype rule (ember/ops/meta.h, Note [shape rules]): " + ", ".join(SHAPE_RULES)
                       + ". Every entry has `shape` or `no_shape`."),
    "no_shape": ("str", "why the entry has no shape rule (e.g. data-dependent sizes; a composite whose inner "
                        "ops carry rules)."),
    "tags": ("tags", "what kind of computation the op is: " + ", ".join(TAGS) + "."),
    "dtypes": ("dtypes", "the dtypes the op supports, when fewer than PyTorch's: a list of names (float32, int64, "
                         "bool, ...) or one of " + ", ".join(DTYPE_SETS) + ". Absent: the generic tests take every "
                         "dtype and expect Ember to accept and refuse what PyTorch 1.13 does."),
    "python": ("bool", "false hides the op from Python (the Tensor overload serves Python numbers)."),
    "python_module": ("python_module", "where Python finds the function when not in `ember`: "
                                       + ", ".join(PYTHON_MODULES) + " (ember._C._nn as torch._C._nn, reached "
                                       "through ember.nn.functional; _linalg through ember.linalg). Rule: an "
                                       "op sits where PyTorch 1.13 has it (tests/python/test_api_surface.py)."),
    "python_numbers": ("python_numbers", 'which Tensor arguments accept Python numbers when called as a '
                                         'function: "all" (add, sub, mul, ...), "other" (every one but self, '
                                         'where PyTorch has a Scalar overload); absent: none. Python operators '
                                         '(a + 2) accept numbers on either side for every op.'),
    "grad": ("grad", "the derivative: for each differentiable Tensor argument a C++ expression with Ember ops "
                     "giving its gradient from `grad`, the arguments by name, `result` and `<arg>_sizes` "
                     "(see ember/ops/README.md, \"Derivatives\")."),
    "grad_node": ("str", "the backward node's name when PyTorch's numbering (NameBackwardN) differs from the "
                         "default (the op's base name, numbered in database order)."),
    "not_differentiable": ("arg_list", "Tensor arguments without a derivative that PyTorch refuses to see "
                                       "requiring grad (a loss's class weights). An op without `grad` may list "
                                       "all its Tensor arguments: its Autograd kernel then only refuses inputs "
                                       "that require grad."),
    "output_differentiability": ("bool_list", "for an op with several results and a `grad`: which results get a "
                                              "grad_fn (PyTorch's field of that name; the others never require "
                                              "grad, as native_batch_norm's saved statistics)."),
    "differentiable": ("false", "false: the op's floating results never require grad, as PyTorch's (detach, "
                                "bernoulli, normal, ...); without it an op with no `grad` raises "
                                "NotImplementedError when an input requires grad (Note [ops without a "
                                "derivative], ember/autograd/Fallback.cpp)."),
    "fused": ("fused", "the op's opcodes in fused elementwise programs (Note [fused elementwise programs], "
                       "ember/ops/FusedProgram.h): {opcode: N} or a list of them, each with optional `name` "
                       "(the opcode's name; default the op's) and `when` (argument name: the constant value it "
                       "must have, e.g. {alpha: 1}). Opcodes are a file format: never renumbered."),
}


# Note [aliases]
# PyTorch keeps its other names of an op (arccos, clip, multiply, moveaxis, concat, ...) as ops of their own, each
# with a CompositeImplicitAutograd kernel calling the target, so graphs and schemas show the name the user wrote
# while autograd and kernels are the target's. An entry with `alias_of` is such an op: the generator writes its
# kernels (RegisterOps.cpp, beside the scalar_of bodies) and copies what describes the computation from the target
# (resolve_aliases); an alias therefore cannot carry a kernel, derivative or shape rule of its own (ALIAS_OWN).
ALIAS_INHERITS = ("shape", "no_shape", "tags", "dtypes", "python", "python_numbers")
ALIAS_OWN = ("schema", "doc", "variants", "inplace", "inplace_variants", "out", "alias_of", "python",
             "python_module", "python_numbers")


class DatabaseError(SystemExit):
    pass


def fail(where, msg):
    raise DatabaseError(f"gen_ops: {where}: {msg}")


class Entry(dict):
    """A mapping of the YAML file that remembers its file and line."""
    path, line = "", 0
    key_lines = {}  # field -> its line
    target = None  # an alias's target entry (resolve_aliases)

    def where_of(self, key):
        return f"{shown(self.path)}:{self.key_lines.get(key, self.line)}"

    @property
    def where(self):
        return f"{shown(self.path)}:{self.line}"


def shown(path):
    """A path as errors show it: relative to the repository when inside it."""
    rel = os.path.relpath(path, ROOT)
    return path if rel.startswith("..") else rel


def loader_for(path):
    class Loader(yaml.SafeLoader):
        pass

    def mapping(loader, node):
        seen = set()
        for k, _ in node.value:
            key = loader.construct_object(k)
            if key in seen:
                fail(f"{shown(path)}:{k.start_mark.line + 1}", f"field '{key}' given twice")
            seen.add(key)
        e = Entry(loader.construct_mapping(node, deep=True))
        e.path, e.line = path, node.start_mark.line + 1
        e.key_lines = {loader.construct_object(k): k.start_mark.line + 1 for k, _ in node.value}
        return e

    Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    return Loader


def check_value(e, key, kind, schema):
    v = e[key]
    where = f"{e.where_of(key)}: {schema.full()}"
    args = {a.name: a for a in schema.args}

    def need(ok, what):
        if not ok:
            fail(where, f"field '{key}' must be {what}, not {v!r}")

    if kind == "str":
        need(isinstance(v, str) and v.strip(), "a non-empty string")
    elif kind == "bool":
        need(isinstance(v, bool), "true or false")
    elif kind == "false":
        need(v is False, "false (omit it for differentiable ops)")
    elif kind == "variants":
        need(isinstance(v, str) and {p.strip() for p in v.split(",")} <= {"function", "method"},
             '"function", "method" or "function, method"')
    elif kind == "shape":
        need(v in SHAPE_RULES, "one of " + ", ".join(SHAPE_RULES))
    elif kind == "tags":
        need(isinstance(v, list) and all(t in TAGS for t in v), "a list of " + ", ".join(TAGS))
    elif kind == "bool_list":
        need(isinstance(v, list) and len(v) == len(schema.rets) and all(isinstance(x, bool) for x in v),
             f"a list of {len(schema.rets)} true/false, one per result")
    elif kind == "dtypes":
        named_set = isinstance(v, str) and v in DTYPE_SETS
        need(named_set or (isinstance(v, list) and v and all(d in DTYPE_NAMES for d in v)),
             "a list of dtype names or one of " + ", ".join(DTYPE_SETS))
    elif kind == "python_module":
        need(v in PYTHON_MODULES, "one of " + ", ".join(PYTHON_MODULES))
    elif kind == "python_numbers":
        need(v in ("all", "other"), '"all" or "other"')
    elif kind == "arg_list":
        need(isinstance(v, list), "a list of argument names")
        for n in v:
            if n not in args or not args[n].type.startswith("Tensor"):
                fail(where, f"'{key}' names {n!r}, which is not a Tensor argument of the schema")
    elif kind == "grad":
        need(isinstance(v, dict) and v and all(isinstance(f, str) for f in v.values()),
             "a mapping of argument names to C++ formulas")
    elif kind == "fused":
        items = v if isinstance(v, list) else [v]
        for it in items:
            need(isinstance(it, dict) and isinstance(it.get("opcode"), int) and
                 set(it) <= {"opcode", "name", "when"}, "{opcode: N[, name: ..., when: {arg: value}]} or a list")
            for n in (it.get("when") or {}):
                if n not in args:
                    fail(where, f"'fused' has a condition on {n!r}, which is not an argument of the schema")


def validate(e):
    """Checks one entry's keys and values; errors name the file and line."""
    if "schema" not in e:
        fail(e.where, "an entry without 'schema'")
    schema = Schema(e["schema"])
    for key in e:
        if key not in FIELDS:
            close = difflib.get_close_matches(key, FIELDS, n=1)
            fail(f"{e.where_of(key)}: {schema.full()}", f"unknown field '{key}'"
                 + (f" (did you mean '{close[0]}'?)" if close else "") + "; fields: tools/gen_ops.py --fields")
        check_value(e, key, FIELDS[key][0], schema)
    where = f"{e.where}: {schema.full()}"
    if "alias_of" in e:
        for key in e:
            if key not in ALIAS_OWN:
                fail(f"{e.where_of(key)}: {schema.full()}", f"field '{key}' on an alias: an alias takes its kernel, "
                     f"derivative and shape rule from its target (Note [aliases]); fields of an alias: "
                     + ", ".join(ALIAS_OWN))
    elif "doc" not in e:
        fail(where, "no 'doc'")
    impls = [k for k in ("cpu", "composite", "composite_explicit", "scalar_of", "alias_of") if k in e]
    if len(impls) != 1:
        fail(where, "needs exactly one of cpu, composite, composite_explicit, scalar_of, alias_of (has "
             + (", ".join(impls) or "none") + ")")
    if "alias_of" not in e and ("shape" in e) == ("no_shape" in e):
        fail(where, "needs either 'shape' (a rule) or 'no_shape' (why it has none)")
    if "inplace_composite" in e and not e.get("inplace"):
        fail(where, "'inplace_composite' without 'inplace: true'")
    if "out_composite" in e and not e.get("out"):
        fail(where, "'out_composite' without 'out: true'")
    if "inplace_variants" in e and not e.get("inplace"):
        fail(where, "'inplace_variants' without 'inplace: true'")
    if "differentiable" in e:
        if "grad" in e or "not_differentiable" in e:
            fail(where, "'differentiable: false' with a derivative ('grad' or 'not_differentiable')")
        if "composite" in e:
            fail(where, "'differentiable: false' on a composite op: the ops it calls decide its gradient")
    if "output_differentiability" in e and "grad" not in e:
        fail(where, "'output_differentiability' without 'grad'")
    if "grad_node" in e and "grad" not in e:
        fail(where, "'grad_node' without 'grad'")
    if "python_numbers" in e and e.get("python") is False:
        fail(where, "'python_numbers' on an op hidden from Python")


class Op:
    """One schema of the database (an entry expands to its functional, in-place and out= variants)."""

    def __init__(self, schema, entry, kind):
        self.schema = Schema(schema)
        self.entry, self.kind = entry, kind  # kind: functional, inplace, out
        base = self.schema.name.split("::")[-1]
        self.cpp_name = base + ("_out" if kind == "out" else "")
        v = entry.get("variants", "function")
        if kind == "inplace":
            v = entry.get("inplace_variants", "method")
        if kind == "out":
            v = "function"
        self.function = "function" in v
        self.method = "method" in v and bool(self.schema.args) and self.schema.args[0].name == "self"
        self.python = entry.get("python", True)
        suffix = {"functional": "", "inplace": "_", "out": "_out"}[kind]
        self.cpu = entry["cpu"] + suffix if "cpu" in entry else None
        self.composite = entry["composite"] + suffix if "composite" in entry else None
        self.composite_explicit = entry["composite_explicit"] + suffix if "composite_explicit" in entry else None
        self.scalar_of = entry.get("scalar_of")
        self.alias_of = None
        if "alias_of" in entry:  # generated body: the target's variant called (Note [aliases])
            fs = Schema(entry["schema"])
            fbase = fs.name.split("::")[-1]
            self.composite = (f"{fbase}_{fs.overload}" if fs.overload else fbase) + suffix
            t = Schema(entry.target["schema"])
            self.alias_of = t.name.split("::")[-1] + {"functional": "", "inplace": "_", "out": "_out"}[kind]
        if self.scalar_of:  # generated body: the Tensor overload with the number wrapped (Note [promotion])
            self.composite = f"{base}_{self.schema.overload}"
        if kind != "functional" and f"{kind}_composite" in entry:
            self.cpu = None
            self.composite = entry[f"{kind}_composite"]
        self.doc = entry.get("doc", "")
        # An in-place view op (t_, squeeze_, as_strided_): the in-place variant of a view op changes self's
        # sizes, strides and offset, not its values (Note [in-place view ops]).
        fs = Schema(entry["schema"])
        self.inplace_view = (kind == "inplace" and bool(fs.rets) and fs.rets[0].alias is not None
                             and not fs.rets[0].alias.endswith("!"))
        if self.inplace_view and self.composite_explicit and f"{kind}_composite" not in entry:
            # Its kernel is generated: the view op's geometry assigned to self (gen()).
            self.view_of = entry["composite_explicit"]
        else:
            self.view_of = None

    def cpp_params(self, with_defaults, skip_self=False, out_first=False):
        args = list(self.schema.args)
        if out_first:
            outs = [a for a in args if a.mutable and a.kwarg_only]
            args = outs + [a for a in args if not (a.mutable and a.kwarg_only)]
        if skip_self:
            args = args[1:]
        last_required = max([i for i, a in enumerate(args) if a.default is None], default=-1)
        ps = []
        for i, a in enumerate(args):
            p = f"{cpp_arg_type(a.type)} {a.name}"
            if with_defaults and a.default is not None and i > last_required:
                p += " = " + cpp_default(a)
            ps.append(p)
        return ", ".join(ps)

    def kernel_signature(self, name):
        return f"{cpp_ret_type(self.schema.rets)} {name}({self.cpp_params(False)})"

    def fn_ptr_type(self):
        args = ", ".join(cpp_arg_type(a.type) for a in self.schema.args)
        return f"{cpp_ret_type(self.schema.rets)} (*)({args})"

    def call_types(self):
        return ", ".join([cpp_ret_type(self.schema.rets)] + [cpp_arg_type(a.type) for a in self.schema.args])


def expand(entry):
    s = Schema(entry["schema"])
    ops = [Op(entry["schema"], entry, "functional")]
    ret_alias = "Tensor(a!)"
    if entry.get("inplace"):
        args = ", ".join(arg_text(a, first=(i == 0)) for i, a in enumerate(s.args))
        ov = "." + s.overload if s.overload else ""
        ops.append(Op(f"{s.name}_{ov}({args}) -> {ret_alias}", entry, "inplace"))
    if entry.get("out"):
        parts = [arg_text(a) for a in s.args if not a.kwarg_only]
        kws = [arg_text(a) for a in s.args if a.kwarg_only] + ["Tensor(a!) out"]
        ov = s.overload + "_out" if s.overload else "out"
        ops.append(Op(f"{s.name}.{ov}({', '.join(parts + ['*'] + kws)}) -> {ret_alias}", entry, "out"))
    return ops


def arg_text(a, first=False):
    t = a.type
    if first:
        t = "Tensor(a!)" + t[len("Tensor"):]
    elif a.alias:
        t = f"Tensor({a.alias})" + t[len("Tensor"):]
    return f"{t} {a.name}" + (f"={a.default}" if a.default is not None else "")


def database_files(d=None):
    """ops.yaml, then the family files ops_<family>.yaml in name order (database order)."""
    d = d or os.path.join(ROOT, "ember/ops")
    rest = sorted(f for f in os.listdir(d) if f.startswith("ops_") and f.endswith(".yaml"))
    return [os.path.join(d, f) for f in ["ops.yaml"] + rest]


def load_entries(d=None):
    """Every entry of the database files (in folder d, default ember/ops), validated, in database order."""
    entries = []
    for path in database_files(d):
        with open(path) as f:
            data = yaml.load(f, Loader=loader_for(path)) or []
        if not isinstance(data, list):
            fail(shown(path), "the file must hold a list of entries")
        for e in data:
            if not isinstance(e, Entry):
                fail(shown(path), f"an entry that is not a mapping: {e!r}")
            validate(e)
        entries.extend(data)
    return resolve_aliases(entries)


def entry_key(e):
    """An entry's "name" or "name.overload" (how alias_of names its target)."""
    s = Schema(e["schema"])
    return s.name.split("::")[-1] + ("." + s.overload if s.overload else "")


def resolve_aliases(entries):
    """Gives every alias entry its target (e.target) and the fields it takes from it (Note [aliases]). Errors: an
    unknown target, an alias of an alias, argument or result types that differ, a variant the target lacks."""
    by_key = {entry_key(e): e for e in entries}
    for e in entries:
        if "alias_of" not in e:
            continue
        name = e["alias_of"]
        where = f"{e.where_of('alias_of')}: {Schema(e['schema']).full()}"
        t = by_key.get(name)
        if t is None:
            close = difflib.get_close_matches(name, by_key, n=1)
            fail(where, f"alias_of names '{name}', which is not an entry of the database"
                 + (f" (did you mean '{close[0]}'?)" if close else ""))
        if "alias_of" in t:
            fail(where, f"alias_of names '{name}', itself an alias (of '{t['alias_of']}'): name the op itself")
        a, b = Schema(e["schema"]), Schema(t["schema"])

        def shape_of(s):
            return ([(x.type, x.default, x.kwarg_only, x.mutable) for x in s.args], [r.type for r in s.rets])
        if shape_of(a) != shape_of(b):
            fail(where, f"the schema's argument or result types differ from its target's ({t['schema']}); an alias "
                 "takes the same arguments (their names may differ)")
        for v in ("inplace", "out"):
            if e.get(v) and not t.get(v):
                fail(where, f"'{v}: true' but the target '{name}' has no {v} variant")
        e.target = t
        for k in ALIAS_INHERITS:
            if k in t and k not in e:
                e[k] = t[k]
        if "doc" not in e:
            e["doc"] = f"Alias of {name}: {t['doc']}"
    return entries


def load(entries=None):
    """The database's ops (each entry expanded to its variants). Errors: a schema declared twice."""
    ops = []
    for e in entries if entries is not None else load_entries():
        ops.extend(expand(e))
    seen = {}
    for o in ops:
        if o.schema.full() in seen:
            fail(o.entry.where, f"{o.schema.full()} declared twice (also at {seen[o.schema.full()]})")
        seen[o.schema.full()] = o.entry.where
    return ops
