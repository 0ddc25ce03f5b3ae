#!/usr/bin/python3
"""Random API calls compared with PyTorch 1.13 (issue 18): calls every public function of Ember's namespaces and
every Tensor method, by its PyTorch name, with generated arguments, and reports crashes, hangs and differences.

Usage (from the repository root, after `make`):

    PYTHONPATH=python /usr/bin/python3 tools/random_calls.py --calls 5000 --seed 1 --jobs 2 --report out.txt

How a call is made
------------------
Targets are the public callables of ``ember`` (and ``ember.nn.functional``, ``ember.linalg``, ``ember.nn.init``,
``ember.nn.utils``, ``ember.autograd``, ``ember.random``) and the methods of ``ember.Tensor``, each paired with the
object of the same name in ``torch`` (an Ember-only name is still called, for crashes only). Arguments follow
PyTorch's own signatures: the ATen schemas (``torch._C._jit_get_schemas_for_operator``) or, for functions written in
Python, ``inspect.signature`` with its annotations; a value is generated per argument type and name (a ``dim`` in
range, an ``index`` tensor of valid indices, a conv ``weight`` that fits the input, ...), so that most calls reach
real code. Then some arguments are replaced by hostile ones: wrong dtypes, negative and huge sizes, mismatched
shapes, empty and 0-dim tensors, non-contiguous views, NaN/inf, None, strings, (nested) lists, an ``out=`` that
aliases an input, unknown keywords.

Each call is rendered as a few lines of Python over a module ``m`` (tensor arguments are built by ``T(...).make(m)``
from a framework-neutral spec), and that text is what runs, once with ``m = ember`` and once with ``m = torch``: the
reproducer printed for a finding is exactly the code that ran. Calls are a pure function of (seed, index), so a run
is deterministic whatever --jobs is, and ``--replay SEED:INDEX`` prints and re-runs one call.

Batches run in worker subprocesses (memory limited by RLIMIT_DATA); each call is announced before it runs, so a
worker that dies by a signal or stops answering (--timeout) names the call that crashed or hung, which is then
re-run alone to confirm it. Classes reported:

    crash, hang                    in Ember: always a bug (the exit status is 1 when any is found)
    torch-crash, torch-hang        in PyTorch: informational
    torch-lacks-kernel             PyTorch has no CPU kernel for the dtype ("not implemented for 'Half'"), Ember does
    ember-accepts                  PyTorch raises, Ember returns something
    ember-rejects                  Ember raises, PyTorch returns
    value-mismatch                 both return, with different values, dtypes, shapes or mutated inputs
    exc-type                       both raise, with different exception types
    internal-error                 Ember raised SystemError (a C-API misuse: always a bug)
    ok, ok-both-raise, ember-only  agreement, or no PyTorch counterpart
"""
import argparse
import base64
import collections
import importlib
import inspect
import json
import math
import os
import pickle
import random
import re
import resource
import select
import shlex
import signal
import subprocess
import sys
import tempfile
import time
import types
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
nan, inf = float("nan"), float("inf")

# ------------------------------------------------------------------------------------------- argument specs
# Framework-neutral specs of arguments: each builds the same object in ember and in torch, and its repr is the
# Python expression that builds it (so a call renders as code).

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"]
_INT_RANGE = {"int64": (-2**63, 2**63 - 1), "int32": (-2**31, 2**31 - 1), "int16": (-2**15, 2**15 - 1),
              "int8": (-128, 127), "uint8": (0, 255)}


class T:
    """A tensor: shape, dtype, layout ('c' contiguous, 'T' permuted view, 'S' every other element of the last dim,
    'E' dim 0 expanded from size 1, 'O' a storage offset), fill ('normal', 'int' = small non-negative integers
    below `high`, 'pos', 'special' = NaN/inf/-0/extremes, 'zeros'), seed, and requires_grad."""

    def __init__(self, shape, dtype="float32", layout="c", fill="normal", seed=0, high=4, grad=False):
        self.shape, self.dtype, self.layout, self.fill = tuple(shape), dtype, layout, fill
        self.seed, self.high, self.grad = seed, high, grad

    def __repr__(self):
        extra = "".join(f", {k}={v!r}" for k, v, d in (("high", self.high, 4), ("grad", self.grad, False))
                        if v != d)
        return f"T({self.shape!r}, {self.dtype!r}, {self.layout!r}, {self.fill!r}, {self.seed}{extra})"

    def _storage_shape(self):
        s = list(self.shape)
        if self.layout == "T":
            s.reverse()
        elif self.layout == "S" and s:
            s[-1] = 2 * s[-1]
        elif self.layout == "E" and s:
            s[0] = 1
        return s

    def _values(self, shape):
        import numpy as np

        rng = np.random.default_rng(self.seed)
        n = int(np.prod(shape)) if shape else 1
        if self.fill == "int":
            v = rng.integers(0, max(self.high, 1), n).astype(np.float64)
        elif self.fill == "pos":
            v = rng.uniform(0.1, 3.0, n)
        elif self.fill == "zeros":
            v = np.zeros(n)
        elif self.fill == "special":
            pool = np.array([nan, inf, -inf, 0.0, -0.0, 1.0, -1.0, 1e38, -1e38, 1e-40, 2.5, -3.5, 65504.0, 1e300])
            v = pool[rng.integers(0, len(pool), n)]
        else:
            v = np.round(rng.uniform(-3, 3, n), 2)
        return v.reshape(shape)

    def make(self, m):
        import numpy as np

        shape = self._storage_shape()
        v = self._values(shape + [2] if self.layout == "O" else shape)
        if self.dtype in _INT_RANGE:
            lo, hi = _INT_RANGE[self.dtype]
            v = np.clip(np.nan_to_num(v, posinf=hi, neginf=lo), max(lo, -2**62), min(hi, 2**62))
            a = v.astype(self.dtype)
        elif self.dtype == "bool":
            a = v > 0
        else:
            a = v.astype("float32" if self.dtype == "bfloat16" else self.dtype)
        t = m.from_numpy(np.ascontiguousarray(a)).clone()  # owned by m (PyTorch cannot resize NumPy's memory)
        if self.dtype == "bfloat16":
            t = t.to(m.bfloat16)
        if self.layout == "T":
            t = t.permute(*reversed(range(t.dim())))
        elif self.layout == "S" and self.shape:
            t = t[..., ::2]
        elif self.layout == "E" and self.shape:
            t = t.expand(*self.shape)
        elif self.layout == "O":
            t = t.reshape(-1)[1:1 + int(np.prod(self.shape))].view(self.shape)
        if self.grad:
            t.requires_grad_(True)
        return t


class D:
    """A dtype by name (``D('float32').make(m)`` is ``m.float32``)."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"D({self.name!r})"

    def make(self, m):
        return getattr(m, self.name)


class G:
    """A seeded Generator."""

    def __init__(self, seed):
        self.seed = seed

    def __repr__(self):
        return f"G({self.seed})"

    def make(self, m):
        g = m.Generator()
        g.manual_seed(self.seed)
        return g


class MF:
    """A memory format by name (``m.contiguous_format``, ...)."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"MF({self.name!r})"

    def make(self, m):
        return getattr(m, self.name)


class Dev:
    """A device object (``m.device('cpu')``)."""

    def __repr__(self):
        return "Dev()"

    def make(self, m):
        return m.device("cpu")


class Var:
    """A reference to the call's i-th tensor variable (aliasing: ``out=`` an input, ``a.copy_(a)``)."""

    def __init__(self, i):
        self.i = i

    def __repr__(self):
        return f"a{self.i}"


class Code:
    """Raw Python source for an argument (slices, Ellipsis, lambdas)."""

    def __init__(self, src):
        self.src = src

    def __repr__(self):
        return self.src


_MAKERS = (T, D, G, MF, Dev)


def _lit(x, names):
    """The source of argument x; tensor specs become variables a0, a1, ... (appended to names)."""
    if isinstance(x, T):
        names.append(x)
        return f"a{len(names) - 1}"
    if isinstance(x, _MAKERS):
        return f"{x!r}.make(m)"
    if isinstance(x, (Var, Code)):
        return repr(x)
    if isinstance(x, float):
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return repr(x)
    if isinstance(x, list):
        return "[" + ", ".join(_lit(v, names) for v in x) + "]"
    if isinstance(x, tuple):
        return "(" + "".join(_lit(v, names) + ", " for v in x) + ")"
    return repr(x)


class Call:
    """One generated call: target (namespace, name), self spec for methods, args, kwargs, and whether to run a
    backward through the result."""

    def __init__(self, ns, name, args, kwargs, self_spec=None, backward=False):
        self.ns, self.name, self.args, self.kwargs = ns, name, args, kwargs
        self.self_spec, self.backward = self_spec, backward

    def source(self):
        names = []
        if self.ns == "Tensor":
            if isinstance(self.self_spec, T):
                head = _lit(self.self_spec, names) + "." + self.name
            else:
                head = f"m.Tensor.{self.name}"
                self.args = [self.self_spec] + list(self.args)
        else:
            head = "m." + (self.ns + "." if self.ns else "") + self.name
        parts = [_lit(a, names) for a in self.args] + [f"{k}={_lit(v, names)}" for k, v in self.kwargs.items()]
        lines = [f"a{i} = {t!r}.make(m)" for i, t in enumerate(names)]
        lines.append(f"r = {head}({', '.join(parts)})")
        if self.backward:
            lines.append("backward_through(r)")
        return "; ".join(lines)


def backward_through(r):
    """Sum the first floating result that requires grad and run backward (exercises the derivative)."""
    for x in (r if isinstance(r, (tuple, list)) else [r]):
        if getattr(x, "requires_grad", False) and x.dtype.is_floating_point:
            x.float().sum().backward()
            return


# ------------------------------------------------------------------------------------------------ targets

NAMESPACES = ["", "nn.functional", "linalg", "nn.init", "nn.utils", "autograd", "random"]

# Never called: they write or read files, load code, change process-wide settings the other calls depend on,
# or wait for input. Each is tested by its own test file.
DENY = {
    "": {"save", "load", "set_default_dtype", "set_default_tensor_type", "set_num_threads", "set_num_interop_threads",
         "set_printoptions", "set_caching_allocator_enabled", "set_grad_enabled", "use_deterministic_algorithms",
         "set_anomaly_enabled", "set_flush_denormal", "from_file", "set_warn_always", "compile", "fork_rng",
         "empty_cache", "reset_peak_memory_stats", "memory_stats", "set_float32_matmul_precision",
         "set_deterministic_debug_mode"},
    "autograd": {"set_detect_anomaly", "set_grad_enabled", "detect_anomaly", "gradcheck", "gradgradcheck"},
    "random": {"fork_rng"},
    "Tensor": {"__init__", "__new__", "__init_subclass__", "__subclasshook__", "__getattribute__", "__setattr__",
               "__delattr__", "__class__", "_make_subclass", "_new_factory", "__reduce__", "share_memory_",
               "__setstate__", "register_hook", "_str"},
}
# The classes callable as functions (constructors); other classes (context managers, modules) are not targets.
CLASSES = {"": {"Tensor", "Size", "device", "finfo", "iinfo", "Generator"}}
# Results compared by shape and dtype only (uninitialised memory) or by type only (identities, addresses).
META_ONLY = {"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "resize_", "resize_as_",
             "set_", "Tensor"}
TYPE_ONLY = {"__hash__", "data_ptr", "__sizeof__", "__dir__", "__reduce_ex__", "storage", "_storage",
             "storage_offset_bytes", "untyped_storage", "__repr__", "__str__", "__format__", "seed", "initial_seed",
             "get_rng_state", "Generator", "__deepcopy__", "__array__"}


def _public(obj, ns):
    out = []
    for name in dir(obj):
        if name.startswith("_") and not (ns == "Tensor" and name.startswith("__")):
            continue
        if name in DENY.get(ns, ()):
            continue
        try:
            v = getattr(obj, name)
        except Exception:
            continue
        if isinstance(v, types.ModuleType) or not callable(v):
            continue
        if isinstance(v, type) and name not in CLASSES.get(ns, ()):
            continue
        out.append(name)
    return out


def _resolve(mod, ns):
    for part in filter(None, ns.split(".")):
        mod = getattr(mod, part)
    return mod


def targets():
    """[(ns, name, torch_object or None)] over every namespace and Tensor."""
    import ember
    import torch

    out = []
    for ns in NAMESPACES + ["Tensor"]:
        eobj = ember.Tensor if ns == "Tensor" else _resolve(ember, ns)
        tobj = torch.Tensor if ns == "Tensor" else _resolve(torch, ns)
        for name in _public(eobj, ns):
            out.append((ns, name, getattr(tobj, name, None)))
    return out


# ------------------------------------------------------------------------------------------------ signatures
# A signature is a list of Params; several per target (one per ATen overload).

class Param:
    def __init__(self, name, type_, kwarg_only=False, has_default=False, default=None):
        self.name, self.type, self.kwarg_only = name, type_ or "", kwarg_only
        self.has_default, self.default = has_default, default


_DUNDER = {"__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub", "__rsub__": "rsub",
           "__isub__": "sub_", "__mul__": "mul", "__rmul__": "mul", "__imul__": "mul_", "__truediv__": "div",
           "__rtruediv__": "div", "__itruediv__": "div_", "__floordiv__": "floor_divide",
           "__rfloordiv__": "floor_divide", "__ifloordiv__": "floor_divide_", "__mod__": "remainder",
           "__rmod__": "remainder", "__imod__": "remainder_", "__pow__": "pow", "__rpow__": "pow", "__ipow__": "pow_",
           "__matmul__": "matmul", "__rmatmul__": "matmul", "__imatmul__": "matmul", "__and__": "bitwise_and",
           "__rand__": "bitwise_and", "__or__": "bitwise_or", "__ror__": "bitwise_or", "__xor__": "bitwise_xor",
           "__rxor__": "bitwise_xor", "__eq__": "eq", "__ne__": "ne", "__lt__": "lt", "__le__": "le", "__gt__": "gt",
           "__ge__": "ge", "__neg__": "neg", "__abs__": "abs", "__invert__": "bitwise_not", "__pos__": "positive",
           "__rlshift__": "__lshift__", "__rrshift__": "__rshift__", "__contains__": "eq", "__bool__": "is_nonzero",
           "__float__": "item", "__int__": "item", "__index__": "item", "__len__": "numel", "__iter__": "numel"}
_BAD_TYPES = {"Dimname", "t", "complex", "Any", "Dict", "Future", "Storage", "Stream", "Tuple", "Union"}
def _aten_sigs(name, method):
    import torch

    sigs = []
    for s in torch._C._jit_get_schemas_for_operator("aten::" + name):
        if "dimname" in s.overload_name.lower() or s.overload_name == "names":
            continue
        params = []
        for a in s.arguments:
            ty = str(a.type)
            params.append(Param(a.name, ty, a.kwarg_only, a.has_default_value(),
                                a.default_value if a.has_default_value() else None))
        if any(set(re.findall(r"\w+", p.type)) & _BAD_TYPES for p in params):
            continue
        if not any("Tensor" in p.type or p.name in ("size", "dtype") for p in params):
            continue
        if method:
            if not params or params[0].name != "self" or "Tensor" not in params[0].type:
                continue
            params = [p for p in params[1:] if p.name != "out"]
        sigs.append(params)
    return sigs


def _py_sig(obj):
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    params = []
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            if p.kind == p.VAR_POSITIONAL:
                params.append(Param("*" + p.name, "", False, True, None))
            continue
        ann = "" if p.annotation is p.empty else str(p.annotation)
        ann = ann.replace("torch.", "").replace("typing.", "")
        if "Tensor" in ann and "Optional" not in ann and "List" not in ann and "Tuple" not in ann:
            ann = "Tensor"
        has = p.default is not p.empty
        params.append(Param(p.name, ann, p.kind == p.KEYWORD_ONLY, has, p.default if has else None))
    if params and params[0].name == "self":
        params = params[1:]
    return params


# Targets whose PyTorch form has neither a schema nor a Python signature.
_SPECIAL = {
    "can_cast": [[Param("from_", "ScalarType"), Param("to", "ScalarType")]],
    "promote_types": [[Param("type1", "ScalarType"), Param("type2", "ScalarType")]],
    "tensor": [[Param("data", "Data"), Param("dtype", "Optional[ScalarType]", True, True),
                Param("device", "Optional[Device]", True, True), Param("requires_grad", "bool", True, True)]],
    "as_tensor": [[Param("data", "Data"), Param("dtype", "Optional[ScalarType]", False, True)]],
    "from_numpy": [[Param("ndarray", "NDArray")]],
    "Tensor": [[Param("*args", "Data")], [Param("*sizes", "List[int]")]],
    "device": [[Param("type", "DevStr"), Param("index", "Optional[int]", False, True)]],
    "Generator": [[Param("device", "Optional[Device]", False, True)]],
    "Size": [[Param("sizes", "List[int]")]],
    "finfo": [[Param("type", "Optional[ScalarType]", False, True)]],
    "iinfo": [[Param("type", "ScalarType")]],
}


def signatures(ns, name, tobj, eobj):
    """Candidate signatures of a target, PyTorch's first."""
    method = ns == "Tensor"
    if ns in ("", "Tensor") and name in _SPECIAL and not (method and name != "Tensor"):
        return _SPECIAL[name]
    base = _DUNDER.get(name, name)
    sigs = []
    if tobj is not None and not isinstance(tobj, type):
        py = _py_sig(tobj)
        if py is not None and not (len(py) == 1 and py[0].name.startswith("*")):
            sigs.append(py)
    if not sigs:
        aten = base
        if ns == "nn.functional":
            aten = {"cross_entropy": "cross_entropy_loss", "nll_loss": "nll_loss_nd"}.get(name, name)
        if ns == "linalg":
            aten = "linalg_" + name
        sigs = _aten_sigs(aten, method)
        if not sigs and base.endswith("_") and not base.endswith("__"):
            sigs = _aten_sigs(base[:-1], method)
    if not sigs:
        py = _py_sig(eobj)
        if py is not None:
            sigs.append(py)
    return sigs


# ------------------------------------------------------------------------------------------------ generation

SHAPES = [(), (0,), (1,), (3,), (5,), (2, 3), (3, 3), (4, 1), (1, 4), (3, 0), (0, 3), (2, 3, 4), (2, 1, 3),
          (2, 3, 4, 5), (2, 3, 5, 5), (1, 2, 1, 3), (3, 4), (2, 2, 2)]
SHAPE_W = [4, 2, 2, 6, 3, 10, 6, 2, 2, 2, 1, 6, 2, 2, 3, 1, 6, 2]
HUGE = [2**31, 2**32 + 1, 2**40, 2**62, 2**63 - 1, -2**63, -1, -2, 10**10, -10**10]
HOSTILE = ["None", "str", "list", "nested", "hugeint", "neg", "nan", "inf", "bool", "float", "t0", "tempty",
           "tbool", "tint", "thalf", "tbig", "tmismatch", "ttransposed", "tuple", "dtype", "gen", "emptylist"]
REDUCTIONS = ["mean", "sum", "none"]
_STRINGS = {"reduction": REDUCTIONS + ["batchmean", "xx"], "rounding_mode": [None, "trunc", "floor", "xx"],
            "approximate": ["none", "tanh", "xx"], "mode": ["constant", "reflect", "replicate", "circular", "xx"],
            "padding_mode": ["zeros", "reflect", "xx"], "nonlinearity": ["relu", "tanh", "linear", "leaky_relu", "x"],
            "side": ["left", "right", "xx"], "interpolation": ["linear", "lower", "nearest", "xx"],
            "equation": ["ij,jk->ik", "ii->i", "i,i->", "bij,bjk->bik", "ij->ji", "x"],
            "ord": ["fro", "nuc", "xx"], "p": ["fro", "nuc"], "memory_format": [], "indexing": ["ij", "xy", "q"],
            "padding": ["same", "valid", "xx"], "dtype": [], "device": ["cpu", "cuda", "xx"],
            "norm_type": ["inf"], "UPLO": ["L", "U"], "driver": [None], "layout": []}


# Keywords Ember does not have yet (sparse layouts, pinned memory): passed rarely, so the other arguments are tested.
_RARE = {"layout", "pin_memory"}


class Gen:
    """Generates one call from random.Random(f'{seed}:{index}')."""

    def __init__(self, rnd):
        self.r = rnd

    def seed(self):
        return self.r.randrange(1000)

    # -------------------------------------------------------------- tensors
    def dtype(self):
        r = self.r.random()
        if r < 0.55:
            return "float32"
        if r < 0.7:
            return "float64"
        return self.r.choice(DTYPES)

    def tensor(self, shape=None, dtype=None, fill=None, high=4):
        r = self.r
        shape = self.shape if shape is None else shape
        dtype = dtype or (self.base_dtype if r.random() < 0.8 else self.dtype())
        if fill is None:
            fill = r.choices(["normal", "int", "pos", "special", "zeros"], [6, 2, 2, 1.5, 0.5])[0]
        layout = "c"
        if shape and r.random() < 0.25:
            layout = r.choice("TSEO")
            if layout == "E" and shape[0] == 0:
                layout = "c"
        grad = dtype in ("float32", "float64") and r.random() < self.grad_p
        return T(shape, dtype, layout, fill, self.seed(), high, grad)

    def other_shape(self):
        r = self.r.random()
        s = self.shape
        if r < 0.6 or not s:
            return s
        if r < 0.8:
            return s[self.r.randrange(len(s) + 1):]
        if r < 0.9:
            return tuple(1 if self.r.random() < 0.5 else d for d in s)
        return self.r.choices(SHAPES, SHAPE_W)[0]

    def index_tensor(self, dim_size=None, shape=None):
        high = max(self.shape) if dim_size is None and self.shape else (dim_size or 1)
        return T(self.shape if shape is None else shape, "int64", "c", "int", self.seed(), max(high, 1))

    def hostile(self):
        h = self.r.choice(HOSTILE)
        r = self.r
        return {"None": None, "str": "abc", "list": [1, 2], "nested": [[1, 2], [3]], "hugeint": r.choice(HUGE),
                "neg": -r.randrange(1, 4), "nan": nan, "inf": r.choice([inf, -inf]), "bool": r.random() < 0.5,
                "float": 2.5, "t0": T((), self.dtype(), "c", "normal", self.seed()),
                "tempty": T(r.choice([(0,), (0, 3), (2, 0, 4)]), self.base_dtype, "c", "normal", self.seed()),
                "tbool": self.tensor(dtype="bool"), "tint": self.tensor(dtype="int64"),
                "thalf": self.tensor(dtype=r.choice(["float16", "bfloat16"])),
                "tbig": T((1,) * r.choice([7, 9]), "float32", "c", "normal", self.seed()),
                "tmismatch": self.tensor(shape=r.choices(SHAPES, SHAPE_W)[0]),
                "ttransposed": self.tensor(), "tuple": (1,), "dtype": D(r.choice(DTYPES)),
                "gen": G(self.seed()), "emptylist": []}[h]

    # -------------------------------------------------------------- scalars and lists
    def dim(self, ndim=None):
        nd = len(self.shape) if ndim is None else ndim
        r = self.r.random()
        if nd and r < 0.85:
            return self.r.randrange(-nd, nd)
        if r < 0.93:
            return 0
        return self.r.choice([nd, -nd - 1, 2**31, -2**63, 64])

    def dims(self):
        nd = len(self.shape)
        if nd == 0:
            return self.r.choice([[], [0], [-1]])
        k = self.r.randint(0, nd)
        out = self.r.sample(range(nd), k)
        if self.r.random() < 0.1:
            out.append(out[0] if out else nd)
        return out

    def size_list(self):
        r = self.r.random()
        if r < 0.75:
            return list(self.r.choices(SHAPES, SHAPE_W)[0])
        if r < 0.85:
            return [self.r.randrange(0, 4), -self.r.randrange(1, 3)]
        if r < 0.95:
            return [self.r.choice(HUGE), self.r.choice([1, 2, 2**33])]
        return [2] * self.r.choice([7, 33, 70])

    def number(self):
        return self.r.choice([0, 1, -1, 2, 3, 0.5, -2.5, 1e-3, True, False, nan, inf, 7, 2**40, 1e30])

    def kernel(self, n):
        return self.r.choice([2, 3, 1, [2] * n, [3, 2][:n] + [2] * max(0, n - 2), 0, -1, [2] * (n + 1)])

    # -------------------------------------------------------------- by parameter
    def value(self, p, target):
        """A plausible value for parameter p of target, by type and name."""
        name, ty, r = p.name.lstrip("*"), p.type, self.r
        opt = ty.startswith("Optional[") or ty.endswith("?")
        if opt and r.random() < 0.35:
            return None
        if opt:
            ty = ty[len("Optional["):-1] if ty.startswith("Optional[") else ty[:-1]
        ty = {"SymInt": "int", "List[SymInt]": "List[int]", "List[Optional[Tensor]]": "List[Tensor]"}.get(ty, ty)
        nd = max(len(self.shape) - 2, 1)
        if name in ("size", "shape", "sizes") and (ty in ("List[int]", "") or ty.startswith("List[int")):
            return self.size_list()
        if name in ("kernel_size", "stride", "padding", "dilation", "output_size", "output_padding"):
            if name == "padding" and r.random() < 0.2:
                return r.choice(["same", "valid"])
            v = self.kernel(nd)
            if name in ("padding", "output_padding") and isinstance(v, int):
                v = abs(v) % 2
            return v if ty != "int" or isinstance(v, int) else 2
        if name == "groups":
            return r.choice([1, 1, 1, 2, 3, 0, -1])
        if name == "pad":
            return r.choice([[1, 1], [0, 1, 2, 0], [1], [-1, 0], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [2**62, 0]])
        if name in ("dims", "perm") or (name == "dim" and ty.startswith("List")):
            if name in ("dims", "perm") and target in ("permute",):
                d = list(range(len(self.shape)))
                r.shuffle(d)
                return d
            return self.dims()
        if name in ("dim", "dim0", "dim1", "dim2", "axis", "start_dim", "end_dim", "source", "destination",
                    "axis0", "axis1") and ty in ("int", ""):
            return self.dim()
        if name in ("normalized_shape",):
            return list(self.shape[r.randrange(len(self.shape) + 1):]) if r.random() < 0.85 else [7]
        if name in ("num_groups",):
            return r.choice([1, self.shape[1] if len(self.shape) > 1 else 1, 2, 0, -1])
        if name in ("num_classes",):
            return r.choice([-1, 4, 5, 0, 2])
        if name in ("reduction", "mode", "rounding_mode", "approximate", "padding_mode", "nonlinearity", "side",
                    "interpolation", "equation", "indexing", "UPLO") and ty in ("str", ""):
            return r.choice(_STRINGS[name])
        if ty in ("ScalarType",) or name == "dtype":
            return D(self.dtype())
        if ty in ("Layout",) or name == "layout":
            return None
        if ty == "Device" or name == "device":
            return r.choice(["cpu", Dev(), None])
        if ty == "MemoryFormat" or name == "memory_format":
            return MF(r.choice(["contiguous_format", "preserve_format", "channels_last"]))
        if ty == "Generator" or name == "generator":
            return G(self.seed())
        if ty == "Tensor" or (ty == "" and name in ("input", "other", "tensor", "src", "weight", "bias", "target",
                                                      "index", "mask", "self", "x", "x1", "x2", "end", "grad",
                                                      "mat1", "mat2", "vec", "mat", "tensor1", "tensor2")):
            return self.tensor_param(name, target)
        if ty == "List[Tensor]" or name in ("tensors", "parameters", "inputs", "outputs", "grad_outputs"):
            n = r.choice([1, 2, 2, 3, 0])
            return [self.tensor(shape=self.shape if r.random() < 0.85 else self.other_shape()) for _ in range(n)]
        if ty == "bool":
            return r.random() < 0.5
        if ty == "float" or name in ("eps", "momentum", "negative_slope", "alpha", "beta", "lambd", "min_val",
                                     "max_val", "threshold", "value", "std", "mean", "gain", "a", "max_norm",
                                     "label_smoothing", "delta", "margin", "rtol", "atol"):
            if name in ("p",) or name in ("eps", "momentum", "label_smoothing"):
                return r.choice([0.0, 0.5, 1e-5, 0.1, 1.0, 1.5, -0.5, nan])
            return r.choice([0.5, 1.0, 2.0, -1.0, 0.0, 1e-5, 10.0, nan, inf, 3])
        if name == "p":
            return r.choice([0.0, 0.5, 1.0, 2, 1.5, -0.5, inf])
        if ty == "number" or ty == "Scalar":
            return self.number()
        if ty == "int" or name in ("k", "n", "m", "diagonal", "offset", "chunks", "sections", "split_size",
                                   "split_size_or_sections", "repeats", "steps", "start", "step", "low", "high",
                                   "num_samples", "ignore_index", "length", "out_int32", "unbiased", "correction"):
            if name in ("ignore_index",):
                return r.choice([-100, 0, 1, 5])
            return r.choice([0, 1, 2, 3, 1, 2, -1, 5, 2**40]) if r.random() < 0.95 else r.choice(HUGE)
        if ty.startswith("List[int") or ty == "List[bool]":
            if name in ("repeats", "split_sizes", "split_size", "sections", "indices", "output_size"):
                return [r.randrange(0, 4) for _ in range(r.randrange(1, 4))]
            return self.size_list() if r.random() < 0.5 else self.dims()
        if ty in ("List[float]",):
            return [r.choice([0.5, 1.0, -1.0]) for _ in range(r.randrange(1, 3))]
        if ty == "str":
            return r.choice(["abc", "", "mean", "sum", "none"])
        if ty == "Data":
            return self.data()
        if ty == "NDArray":
            return Code(r.choice(["__import__('numpy').arange(6.0).reshape(2, 3)", "__import__('numpy').zeros(0)",
                                  "__import__('numpy').ones((2, 3), 'int32')[:, ::2]", "[1, 2]",
                                  "__import__('numpy').array(['a'])", "__import__('numpy').float64(2.0)",
                                  "__import__('numpy').ones((3, 2), '>f4')", "__import__('numpy').ones(3, 'u2')"]))
        if ty == "DevStr":
            return r.choice(["cpu", "cpu:0", "cuda", "meta", "xx", "cpu:-1", "cpu:99999999999", ""])
        if name in ("fn", "hook", "callable", "func", "callback"):
            return Code("lambda *a: None")
        if name.startswith("*"):
            return [self.any_value() for _ in range(r.randrange(0, 3))]
        return self.any_value()

    def data(self):
        """Data for m.tensor: nested lists of numbers (ragged, mixed, huge, tensors inside)."""
        r = self.r
        k = r.random()
        if k < 0.2:
            return self.number()
        if k < 0.55:
            return [self.number() for _ in range(r.randrange(0, 5))]
        if k < 0.75:
            n = r.randrange(0, 4)
            return [[r.choice([1, 2.5, -3, True]) for _ in range(n)] for _ in range(r.randrange(1, 4))]
        if k < 0.85:
            return r.choice([[[1, 2], [3]], [[1], 2], [1, [2]], [[]], [[], []], [1, "a"], [None], [2**64], [-2**63],
                             [2**63], [[[[[[[[[[1]]]]]]]]]], [1e308, -1e308, nan], ((1, 2), (3, 4)), "ab"])
        if k < 0.95:
            return [self.tensor(shape=r.choice([(), (2,), (0,)])) for _ in range(r.randrange(0, 3))]
        return self.tensor()

    def any_value(self):
        r = self.r.random()
        if r < 0.5:
            return self.tensor()
        if r < 0.7:
            return self.number()
        if r < 0.85:
            return self.dim()
        return self.hostile()

    def tensor_param(self, name, target):
        r, s = self.r, self.shape
        conv = "conv" in target
        if name in ("index", "indices") and "embedding" not in target:
            shp = s if r.random() < 0.7 else (r.randrange(0, 4),)
            return self.index_tensor(shape=shp)
        if name == "mask":
            return T(self.other_shape(), "bool", "c", "normal", self.seed())
        if name == "weight" and conv and len(s) >= 3:
            cin = s[1]
            k = [r.choice([1, 2, 3])] * (len(s) - 2)
            return self.tensor(shape=(r.choice([1, 2, 4]), max(cin // r.choice([1, 1, 2]), 1), *k))
        if name == "weight" and target == "embedding":
            return self.tensor(shape=(6, 3))
        if name in ("input",) and target in ("embedding", "one_hot"):
            return self.index_tensor(shape=s, dim_size=6 if target == "embedding" else 4)
        if name == "weight" and target in ("linear",):
            return self.tensor(shape=(r.choice([1, 4]), s[-1] if s else 1))
        if name in ("weight", "bias", "running_mean", "running_var") and target in ("batch_norm", "group_norm",
                                                                                     "instance_norm", "layer_norm"):
            c = (s[1] if len(s) > 1 else 1) if target != "layer_norm" else (s[-1] if s else 1)
            return self.tensor(shape=(c,), fill="pos" if name == "running_var" else None)
        if name == "bias" and (conv or target == "linear"):
            return self.tensor(shape=(r.choice([1, 2, 4]),))
        if name == "target" and target in ("nll_loss", "cross_entropy", "multi_margin_loss"):
            shp = (s[0],) + tuple(s[2:]) if len(s) >= 2 else ()
            return self.index_tensor(shape=shp if r.random() < 0.8 else s, dim_size=s[1] if len(s) > 1 else 1)
        if name == "target" and "binary_cross_entropy" in target:
            return self.tensor(fill="zeros" if r.random() < 0.2 else "pos", shape=self.other_shape())
        if name in ("mat2", "vec", "tensor2") or (name == "other" and target in ("matmul", "mm", "bmm", "dot", "mv",
                                                                                 "__matmul__", "__rmatmul__", "inner",
                                                                                 "outer", "vdot", "ger", "kron")):
            if s and r.random() < 0.8:
                tail = (s[-1],) if name == "vec" or len(s) == 1 else s[:-2] + (s[-1], r.choice([1, 2, 3]))
                return self.tensor(shape=tail)
        if name in ("src", "source", "value", "values") and r.random() < 0.7:
            return self.tensor(shape=s)
        return self.tensor(shape=self.other_shape() if name not in ("input", "self") else s)

    # -------------------------------------------------------------- one call
    def call(self, ns, name, sigs):
        r = self.r
        self.base_dtype = self.dtype()
        self.shape = r.choices(SHAPES, SHAPE_W)[0]
        if "conv" in name or "pool" in name or "norm" in name:
            self.shape = r.choice([(2, 3, 5, 5), (1, 2, 6), (2, 4, 3, 3), (2, 3, 5, 5), (3, 4), self.shape])
        self.grad_p = 0.25 if r.random() < 0.3 else 0.0
        hostile_p = r.choice([0.0, 0.0, 0.05, 0.15])
        self_spec = None
        if ns == "Tensor":
            self_spec = self.tensor(shape=self.shape) if r.random() < 0.97 else self.hostile()
        args, kwargs = [], {}
        if name in ("__getitem__", "__setitem__", "__delitem__"):
            args = [self.index_expr()]
            if name == "__setitem__":
                args.append(self.r.choice([self.number(), self.tensor(shape=self.other_shape()), None, "x"]))
            return Call(ns, name, args, kwargs, self_spec, False)
        if sigs:
            sig = r.choice(sigs)
            for p in sig:
                is_out = p.name == "out"
                if p.has_default and not is_out and r.random() < (0.93 if p.name in _RARE else 0.6):
                    continue
                if is_out and r.random() < 0.75:
                    continue
                if is_out:
                    v = r.choice([Var(0), self.tensor(), T((0,), self.base_dtype, "c", "normal", self.seed()),
                                  T(self.shape, self.dtype(), "c", "normal", self.seed())])
                else:
                    v = self.value(p, name)
                if r.random() < hostile_p:
                    v = self.hostile()
                if p.name.startswith("*"):
                    if v is None or not isinstance(v, list):
                        v = [v]
                    if kwargs:
                        break
                    args.extend(v)
                elif p.kwarg_only or is_out or kwargs or (p.has_default and r.random() < 0.5):
                    kwargs[p.name] = v
                else:
                    args.append(v)
            if isinstance(kwargs.get("out"), Var) and not _has_tensor([self_spec] + args):  # no a0 to alias
                kwargs["out"] = self.tensor()
        else:
            for _ in range(r.choice([0, 1, 1, 2, 3])):
                args.append(self.any_value())
        if r.random() < 0.02:
            kwargs["bogus_kw"] = 1
        if r.random() < 0.02 and args:
            args.append(self.any_value())
        backward = self.grad_p > 0 and r.random() < 0.6
        return Call(ns, name, args, kwargs, self_spec, backward)

    def index_expr(self):
        r = self.r

        def one():
            k = r.random()
            if k < 0.3:
                return r.choice([0, 1, -1, 2, -3, 5, 2**40, -2**63])
            if k < 0.55:
                a, b, c = r.choice([None, 0, 1, -1, 3, 2**40]), r.choice([None, 2, -1, 0, 9]), r.choice(
                    [None, None, 1, 2, -1, 0])
                return Code(f"slice({a}, {b}, {c})")
            if k < 0.65:
                return Code(r.choice(["None", "...", "True", "False"]))
            if k < 0.8:
                return self.index_tensor(shape=(r.randrange(0, 4),))
            if k < 0.9:
                return T(self.shape if r.random() < 0.5 else (r.randrange(0, 4),), "bool", "c", "normal", self.seed())
            return r.choice([[0, 1], [[0], [1]], [True, False], [], "a", 1.5, [0, [1]]])

        n = r.choice([1, 1, 2, 3, 4])
        items = [one() for _ in range(n)]
        return items[0] if n == 1 and r.random() < 0.7 else tuple(items)


def _has_tensor(x):
    """Whether spec x (or a list/tuple of specs) holds a tensor, i.e. whether variable a0 exists once rendered."""
    return isinstance(x, T) or (isinstance(x, (list, tuple)) and any(_has_tensor(v) for v in x))


class Plan:
    """The targets with their signatures; call(seed, i) is a pure function of (seed, i)."""

    def __init__(self, only=None):
        import ember

        self.targets = []
        for ns, name, tobj in targets():
            if only and not any(o == name or o == f"{ns}.{name}".lstrip(".") for o in only):
                continue
            eobj = _resolve(ember.Tensor if ns == "Tensor" else ember, "" if ns == "Tensor" else ns)
            self.targets.append((ns, name, tobj is not None, signatures(ns, name, tobj, getattr(eobj, name))))

    def call(self, seed, i):
        rnd = random.Random(f"{seed}:{i}")
        ns, name, has_torch, sigs = self.targets[rnd.randrange(len(self.targets))]
        c = Gen(rnd).call(ns, name, sigs)
        mode = "meta" if name in META_ONLY else "type" if name in TYPE_ONLY else "value"
        return {"i": i, "target": (ns + "." if ns else "") + name, "code": c.source(),
                "torch": has_torch, "mode": mode}


# ------------------------------------------------------------------------------------------------ the worker

def _summary(x, m, mode, depth=0):
    """A comparable, framework-neutral form of a result."""
    import numpy as np

    if depth > 4:
        return ("deep",)
    if isinstance(x, m.Tensor):
        dt = str(x.dtype).split(".")[-1]
        s = ("tensor", dt, tuple(x.shape), bool(x.requires_grad))
        if mode != "value" or x.is_sparse:
            return s
        y = x.detach()
        if dt in ("bfloat16",):
            y = y.float()
        return s + (np.array(y.numpy(), copy=True),)
    if mode == "type":
        return ("type", type(x).__name__)
    if isinstance(x, (bool, int, float, str, type(None))):
        return x
    if isinstance(x, (m.dtype,)):
        return ("dtype", str(x).split(".")[-1])
    if isinstance(x, m.device):
        return ("device", str(x))
    if isinstance(x, m.Size):
        return ("size", tuple(x))
    if isinstance(x, (tuple, list)):
        return ("seq", tuple(_summary(v, m, mode, depth + 1) for v in x))
    if isinstance(x, (types.GeneratorType,)) or type(x).__name__ in ("list_iterator", "tuple_iterator", "iterator"):
        return ("seq", tuple(_summary(v, m, mode, depth + 1) for v in list(x)[:64]))
    if isinstance(x, dict):
        return ("dict", tuple(sorted((str(k), _summary(v, m, mode, depth + 1)) for k, v in x.items())))
    return ("type", type(x).__name__)


_TOL = {"float16": (1e-2, 1e-2), "bfloat16": (2e-2, 2e-2), "float32": (1e-4, 1e-5), "float64": (1e-7, 1e-9)}


def _diff(a, b, path="r"):
    """None when equal, else a short description of the first difference."""
    import numpy as np

    if isinstance(a, tuple) and a and a[0] == "tensor" and isinstance(b, tuple) and b and b[0] == "tensor":
        if a[1:4] != b[1:4]:
            return f"{path}: {a[1]}{list(a[2])} rg={a[3]} vs torch {b[1]}{list(b[2])} rg={b[3]}"
        if len(a) > 4 and len(b) > 4:
            x, y = a[4], b[4]
            if x.dtype.kind == "f" or y.dtype.kind == "f":
                rtol, atol = _TOL.get(a[1], (1e-4, 1e-5))
                x, y = x.astype(np.float64), y.astype(np.float64)
                with np.errstate(all="ignore"):
                    ok = np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True)
            else:
                ok = np.array_equal(x, y)
            if not ok:
                flat_x, flat_y = x.reshape(-1), y.reshape(-1)
                with np.errstate(all="ignore"):
                    bad = np.nonzero(~((flat_x == flat_y) | (np.isnan(flat_x.astype(np.float64))
                                                              & np.isnan(flat_y.astype(np.float64)))))[0]
                k = int(bad[0]) if len(bad) else 0
                return f"{path}: values differ at flat {k}: {flat_x[k]!r} vs torch {flat_y[k]!r}" if flat_x.size \
                    else f"{path}: values differ"
        return None
    if isinstance(a, tuple) and isinstance(b, tuple) and a and b and a[0] == b[0] == "seq":
        if len(a[1]) != len(b[1]):
            return f"{path}: {len(a[1])} items vs torch {len(b[1])}"
        for k, (u, v) in enumerate(zip(a[1], b[1])):
            d = _diff(u, v, f"{path}[{k}]")
            if d:
                return d
        return None
    if isinstance(a, float) and isinstance(b, float):
        if (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-7):
            return None
    if type(a) is not type(b) and not (isinstance(a, tuple) and isinstance(b, tuple)):
        return f"{path}: {type(a).__name__} {str(a)[:60]} vs torch {type(b).__name__} {str(b)[:60]}"
    if isinstance(a, tuple) and isinstance(b, tuple):
        if len(a) != len(b) or a[0] != b[0]:
            return f"{path}: {str(a)[:80]} vs torch {str(b)[:80]}"
        if a[0] == "dict":
            return None if [k for k, _ in a[1]] == [k for k, _ in b[1]] else f"{path}: dict keys differ"
    return None if a == b else f"{path}: {str(a)[:80]} vs torch {str(b)[:80]}"


def _run_one(code, m, mode, seed):
    """Run code with module m; returns ('ok', summary) or ('raise', type name, message)."""
    ns = {"m": m, "T": T, "D": D, "G": G, "MF": MF, "Dev": Dev, "nan": nan, "inf": inf,
          "backward_through": backward_through}
    m.manual_seed(seed)
    try:
        exec(code, ns)
        res = _summary(ns["r"], m, mode)
        inputs = tuple(_summary(ns[k], m, "value" if mode == "value" else "meta")
                       for k in sorted(k for k in ns if k[:1] == "a" and k[1:].isdigit()))
        grads = tuple(_summary(ns[k].grad, m, "value") for k in sorted(ns) if k[:1] == "a" and k[1:].isdigit()
                      and isinstance(ns[k], m.Tensor) and ns[k].grad is not None) if "backward_through" in code else ()
        out = ("ok", ("seq", (res, ("seq", inputs), ("seq", grads))))
    except RecursionError as e:
        out = ("raise", "RecursionError", str(e)[:300])
    except BaseException as e:  # noqa: BLE001  (every exception is a result to compare)
        if isinstance(e, KeyboardInterrupt):
            raise
        out = ("raise", type(e).__name__, str(e)[:300])
    finally:
        if not m.is_grad_enabled():
            m.set_grad_enabled(True)
        if m.get_default_dtype() != m.float32:
            m.set_default_dtype(m.float32)
    return out


_EXC_ALIASES = {"_LinAlgError": "RuntimeError", "LinAlgError": "RuntimeError", "OutOfMemoryError": "RuntimeError"}


def classify(e, t, has_torch):
    if e[0] == "raise" and e[1] == "SystemError":
        return "internal-error", e[2]
    if not has_torch:
        return "ember-only", None
    if e[0] == "ok" and t[0] == "ok":
        d = _diff(e[1], t[1])
        d = d and d.replace("r[0]", "r").replace("r[1][", "input a").replace("r[2][", "grad a")
        return ("value-mismatch", d) if d else ("ok", None)
    if e[0] == "raise" and t[0] == "raise":
        et, tt = _EXC_ALIASES.get(e[1], e[1]), _EXC_ALIASES.get(t[1], t[1])
        return ("ok-both-raise", None) if et == tt else ("exc-type", f"ember {e[1]}: {e[2][:150]} | torch {t[1]}: "
                                                                        f"{t[2][:150]}")
    if e[0] == "ok":
        if "not implemented for '" in t[2]:
            return "torch-lacks-kernel", f"torch {t[1]}: {t[2][:200]}"
        return "ember-accepts", f"torch {t[1]}: {t[2][:200]}"
    return "ember-rejects", f"ember {e[1]}: {e[2][:200]}"


def worker(framework, mem_mb):
    """Runs calls (JSON lines on stdin) with one framework: prints 'S i' before each call and then its result, a
    base64 pickle of ('ok', summary) or ('raise', type, message) and the milliseconds it took. Ember and PyTorch run
    in separate processes, so that a crash or a memory corruption is always charged to the right one."""
    if mem_mb:
        resource.setrlimit(resource.RLIMIT_DATA, (mem_mb << 20, mem_mb << 20))
    warnings.simplefilter("ignore")
    sys.setrecursionlimit(3000)
    m = importlib.import_module(framework)
    m.set_num_threads(1)
    out = sys.stdout
    out.write("READY\n")
    out.flush()
    for line in sys.stdin:
        c = json.loads(line)
        out.write(f"S {c['i']}\n")
        out.flush()
        t0 = time.perf_counter()
        res = _run_one(c["code"], m, c["mode"], c["i"] % 1000)
        ms = round((time.perf_counter() - t0) * 1000, 1)
        out.write(base64.b64encode(pickle.dumps((res, ms))).decode() + "\n")
        out.flush()


# ------------------------------------------------------------------------------------------------ the driver

class Worker:
    """One worker subprocess of one framework; call(c) returns (result, ms) or ('crash' | 'hang', detail)."""

    def __init__(self, framework, timeout, mem_mb):
        self.framework, self.timeout, self.mem_mb = framework, timeout, mem_mb
        self.p = None

    def _spawn(self):
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([os.path.join(ROOT, "python"), env.get("PYTHONPATH", "")])
        env.setdefault("OMP_NUM_THREADS", "1")
        self.err = tempfile.TemporaryFile()
        self.p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", self.framework,
                                   "--mem-mb", str(self.mem_mb)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=self.err, env=env, start_new_session=True, bufsize=0)
        self.buf = b""
        if self._readline(120) != "READY":
            raise RuntimeError(f"random_calls: a {self.framework} worker failed to start (is Ember built? run make)")

    def _readline(self, timeout):
        """The next line of the worker's stdout; "" at its end, None after timeout seconds."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.p.stdout], [], [], left)[0]:
                return None
            chunk = os.read(self.p.stdout.fileno(), 1 << 20)
            if not chunk:
                return ""
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return line.decode()

    def close(self):
        if self.p is not None:
            try:
                os.killpg(self.p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.p.wait()
            self._rc = self.p.returncode
            self.p = None

    def call(self, c):
        if self.p is None:
            self._spawn()
        try:
            self.p.stdin.write((json.dumps(c) + "\n").encode())
            self.p.stdin.flush()
        except BrokenPipeError:
            pass
        started = False
        while True:
            line = self._readline(self.timeout if started else 120)
            if line is None or line == "":
                kind = "hang" if line is None else "crash"
                self.close()
                self.err.seek(0)
                err = self.err.read().decode(errors="replace").strip()[-400:]
                rc = self._rc
                status = f"no answer in {self.timeout:g} s" if kind == "hang" else \
                    f"signal {-rc}" if rc < 0 else f"exit {rc}"
                return kind, status + (f"; stderr: {err}" if err else "")
            if line.startswith("S "):
                started = True
                continue
            return pickle.loads(base64.b64decode(line))


class Pool:
    """Runs calls in an Ember and a PyTorch worker subprocess; a crash or hang names the call that was running."""

    def __init__(self, timeout, mem_mb):
        self.timeout, self.mem_mb = timeout, mem_mb

    def run(self, calls):
        """Yields a result dict per call. A crash or hang of Ember carries the calls that ran before it in the same
        worker (history) and the worker's stderr."""
        ew, tw = Worker("ember", self.timeout, self.mem_mb), Worker("torch", self.timeout, self.mem_mb)
        history = []
        try:
            for c in calls:
                e = ew.call(c)
                if e[0] in ("crash", "hang"):
                    yield dict(c, cls=e[0], detail=e[1], history=history)
                    history = []
                    continue
                history.append(c)
                (e, ms), t, tms = e, None, None
                if c["torch"]:
                    t = tw.call(c)
                    if t[0] in ("crash", "hang"):
                        yield dict(c, cls="torch-" + t[0], detail=t[1], ms=ms)
                        continue
                    t, tms = t
                cls, detail = classify(e, t, c["torch"])
                yield dict(c, cls=cls, detail=detail, ember=e[0] if e[0] == "ok" else e[1],
                           torch=None if t is None else t[0] if t[0] == "ok" else t[1], ms=ms, torch_ms=tms)
        finally:
            ew.close()
            tw.close()

    def reproduces(self, calls):
        """Whether running calls in one fresh worker crashes or hangs Ember."""
        return any(r["cls"] in BUG_CLASSES for r in self.run(calls))

    def localize(self, history, c):
        """The earliest call of history whose effect makes c crash (by bisection on history's suffixes), or None
        when even the whole history does not reproduce the crash."""
        if not self.reproduces(history + [c]):
            return None
        lo, hi = 0, len(history)  # history[lo:] + [c] crashes; history[hi:] + [c] (c alone) does not
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self.reproduces(history[mid:] + [c]):
                lo = mid
            else:
                hi = mid
        return history[lo]


def _run_batches(batches, pool, jobs):
    """Runs batches on `jobs` threads, each feeding one worker subprocess at a time."""
    import queue
    import threading

    q, results = queue.Queue(), queue.Queue()
    for b in batches:
        q.put(b)

    def loop():
        while True:
            try:
                b = q.get_nowait()
            except queue.Empty:
                return
            try:
                for r in pool.run(b):
                    results.put(r)
            except Exception as e:  # noqa: BLE001  (a worker that cannot start: the main thread raises it)
                results.put(e)
                return

    threads = [threading.Thread(target=loop, daemon=True) for _ in range(jobs)]
    for t in threads:
        t.start()
    alive = True
    while alive or not results.empty():
        alive = any(t.is_alive() for t in threads)
        try:
            r = results.get(timeout=0.2)
        except queue.Empty:
            continue
        if isinstance(r, Exception):
            raise r
        yield r


def reproducer(code):
    """A shell command that runs code with Ember (replace `ember as m` by `torch as m` for PyTorch)."""
    src = "from random_calls import *; import ember as m; " + code
    quoted = f'"{src}"' if not any(c in src for c in '"$`\\!') else shlex.quote(src)
    return "PYTHONPATH=python:tools /usr/bin/python3 -c " + quoted


BUG_CLASSES = ("crash", "hang")
CALL_KEYS = ("i", "target", "code", "torch", "mode")
ORDER = ["crash", "hang", "internal-error", "ember-accepts", "ember-rejects", "value-mismatch", "exc-type",
         "torch-crash", "torch-hang", "torch-lacks-kernel", "ok", "ok-both-raise", "ember-only"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--calls", type=int, default=2000, help="number of calls (default 2000)")
    ap.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    ap.add_argument("--start", type=int, default=0, help="index of the first call (default 0)")
    ap.add_argument("--jobs", type=int, default=max(os.cpu_count() or 1, 1), help="worker processes at a time")
    ap.add_argument("--batch", type=int, default=500, help="calls per worker subprocess (default 500)")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds without an answer that make a hang")
    ap.add_argument("--mem-mb", type=int, default=4096, help="RLIMIT_DATA of a worker, MiB (default 4096)")
    ap.add_argument("--only", nargs="*", help="only these targets (name or ns.name)")
    ap.add_argument("--report", help="write the report (every finding with its reproducer) to this file")
    ap.add_argument("--examples", type=int, default=3, help="examples per class and target in the report")
    ap.add_argument("--replay", help="SEED:INDEX: print one call's code and run it in a worker")
    ap.add_argument("--progress", type=int, default=0, help="print a progress line every N calls")
    ap.add_argument("--list", action="store_true", help="print the targets and their signature counts")
    ap.add_argument("--worker", choices=("ember", "torch"), help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        return worker(a.worker, a.mem_mb)
    sys.path.insert(0, os.path.join(ROOT, "python"))
    warnings.simplefilter("ignore")
    plan = Plan(a.only)
    if a.list:
        for ns, name, has_torch, sigs in plan.targets:
            print(f"{(ns + '.' if ns else '') + name:40s} torch={'yes' if has_torch else 'no '} signatures={len(sigs)}")
        return 0
    pool = Pool(a.timeout, a.mem_mb)
    if a.replay:
        seed, i = map(int, a.replay.split(":"))
        c = plan.call(seed, i)
        print(c["target"], "\n" + c["code"])
        for r in pool.run([c]):
            print(r["cls"], r.get("detail") or "")
        return 1 if r["cls"] in BUG_CLASSES else 0
    t0 = time.time()
    calls = [plan.call(a.seed, i) for i in range(a.start, a.start + a.calls)]
    batches = [calls[k:k + a.batch] for k in range(0, len(calls), a.batch)]
    results = []
    for r in _run_batches(batches, pool, max(a.jobs, 1)):
        if r["cls"] in BUG_CLASSES:
            # Confirm alone, in a fresh worker; else find the earlier call of the same worker that causes it.
            history = r.pop("history", [])
            r["alone"] = pool.reproduces([{k: r[k] for k in CALL_KEYS}])
            msg = f"{r['cls'].upper()} ({r['detail']}) {r['target']}:\n  {reproducer(r['code'])}"
            if not r["alone"]:
                culprit = pool.localize([{k: h[k] for k in CALL_KEYS} for h in history], {k: r[k] for k in CALL_KEYS})
                r["culprit"] = culprit and culprit["code"]
                msg += "\n  not alone: " + ("earlier call " + f"{culprit['target']} [{a.seed}:{culprit['i']}]: "
                                              + reproducer(culprit["code"] + "; " + r["code"]) if culprit
                                              else "does not reproduce")
            print(msg, flush=True)
        r.pop("history", None)
        results.append(r)
        if a.progress and len(results) % a.progress == 0:
            print(f"  {len(results)} calls, {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
    elapsed = time.time() - t0
    results.sort(key=lambda r: r["i"])
    counts = collections.Counter(r["cls"] for r in results)
    by_target = collections.defaultdict(collections.Counter)
    for r in results:
        by_target[r["cls"]][r["target"]] += 1
    lines = [f"random_calls: {len(results)} calls, seed {a.seed}, start {a.start}, {len(plan.targets)} targets, "
             f"{elapsed:.1f} s, jobs {a.jobs}"]
    for cls in ORDER:
        if counts[cls]:
            lines.append(f"  {cls:18s} {counts[cls]:7d}  ({len(by_target[cls])} targets)")
    print("\n".join(lines))
    if a.report:
        with open(a.report, "w") as f:
            f.write("\n".join(lines) + "\n")
            for cls in ORDER:
                if cls in ("ok", "ok-both-raise", "ember-only") or not counts[cls]:
                    continue
                f.write(f"\n== {cls}: {counts[cls]} calls, {len(by_target[cls])} targets\n")
                shown = collections.Counter()
                for r in results:
                    if r["cls"] != cls or shown[r["target"]] >= a.examples:
                        continue
                    shown[r["target"]] += 1
                    f.write(f"- {r['target']} [{a.seed}:{r['i']}] {r.get('detail') or ''}\n    {r['code']}\n")
                    if r.get("culprit"):
                        f.write(f"    after: {r['culprit']}\n")
            f.write("\n== slowest calls (ms in Ember, in PyTorch)\n")
            for r in sorted(results, key=lambda r: -r.get("ms", 0))[:10]:
                f.write(f"- {r['target']} [{a.seed}:{r['i']}] {r.get('ms')} {r.get('torch_ms')}\n    {r['code']}\n")
        print(f"report: {a.report}")
    return 1 if any(counts[c] for c in BUG_CLASSES) else 0


if __name__ == "__main__":
    sys.exit(main())
