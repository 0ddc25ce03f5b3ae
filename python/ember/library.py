"""Ops defined in Python: ``ember.library.custom_op`` (PyTorch 2.x's ``torch.library.custom_op``) and the
``Library`` / ``define`` / ``impl`` of PyTorch 1.13's ``torch.library``.

A custom op is an op of the dispatcher like any other: ``ember.ops.<ns>.<name>`` calls it with its schema's
argument checking, autograd sees it as one node (with the backward given to ``register_autograd``), and a trace
records it as one node ``ns::name``.

Note [python ops in saved graphs]
A trace records a Python op as a call by name, like any op. Its kernel is a Python function, so a C++ program
(no Python) cannot run it: the op is not defined there, and loading such a model names the op and says it was
defined in Python. Ops that must run from C++ are written in C++ (``ember.utils.cpp_extension``).
"""
import inspect
import typing

from . import _C
from ._ops import ops
from ._tensor import Tensor

__all__ = ["custom_op", "CustomOpDef", "Library", "define", "impl"]


def _where(fn):
    try:
        return "python:{}:{}".format(inspect.getsourcefile(fn), inspect.getsourcelines(fn)[1])
    except (OSError, TypeError):
        return "python:{}".format(getattr(fn, "__qualname__", repr(fn)))


def _split_name(qualname):
    if not isinstance(qualname, str) or qualname.count("::") != 1:
        raise ValueError("expected a qualified op name 'namespace::name', got {!r}".format(qualname))
    ns, name = qualname.split("::")
    if not ns.isidentifier() or not name.isidentifier():
        raise ValueError("expected a qualified op name 'namespace::name' of identifiers, got {!r}".format(qualname))
    if ns in ("aten", "prim", "ember"):
        raise ValueError("custom_op: the namespace {!r} is reserved for Ember's own ops".format(ns))
    return ns, name


# Python annotation -> schema type (PyTorch 2.x's infer_schema supports these).
_SCALAR_TYPES = {Tensor: "Tensor", int: "int", float: "float", bool: "bool", str: "str"}


def _schema_type(ann, where):
    if ann in _SCALAR_TYPES:
        return _SCALAR_TYPES[ann]
    origin, args = typing.get_origin(ann), typing.get_args(ann)
    if origin is typing.Union and len(args) == 2 and type(None) in args:
        inner = args[0] if args[1] is type(None) else args[1]
        return _schema_type(inner, where) + "?"
    if origin in (list, typing.List, tuple, typing.Sequence) or (origin is not None and origin.__name__ == "Sequence"):
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            raise ValueError("{}: unsupported annotation {!r} (use list[T] or Sequence[T])".format(where, ann))
        elem = args[0] if args else None
        if elem in (Tensor, int, float, bool):
            return _SCALAR_TYPES[elem] + "[]"
    raise ValueError("{}: unsupported type annotation {!r}; supported: Tensor, int, float, bool, str, "
                     "Optional[...] of those, and list/Sequence of Tensor, int, float, bool".format(where, ann))


def _default_text(value, where):
    if value is None or isinstance(value, (bool, int, float)):
        return "None" if value is None else ("True" if value is True else "False" if value is False else repr(value))
    if isinstance(value, str):
        return '"{}"'.format(value)
    raise ValueError("{}: unsupported default value {!r} (None, bool, int, float or str)".format(where, value))


def _infer_schema(fn, name, mutates_args):
    """The schema text of fn's annotated signature: "name(Tensor x, float alpha=1.0) -> Tensor"."""
    where = "custom_op {}".format(name)
    sig = inspect.signature(fn)
    hints = typing.get_type_hints(fn)
    params, seen_kw, alias = [], False, iter("abcdefghijklmnopqrstuvwxyz")
    names = [p.name for p in sig.parameters.values()]
    for m in mutates_args:
        if m not in names:
            raise ValueError("{}: mutates_args names {!r}, which is not an argument".format(where, m))
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise ValueError("{}: *args and **kwargs are not supported".format(where))
        if p.name not in hints:
            raise ValueError("{}: argument {!r} needs a type annotation".format(where, p.name))
        t = _schema_type(hints[p.name], where)
        if p.name in mutates_args:
            if not t.startswith("Tensor"):
                raise ValueError("{}: mutated argument {!r} must be a Tensor".format(where, p.name))
            t = t.replace("Tensor", "Tensor({}!)".format(next(alias)), 1)
        text = "{} {}".format(t, p.name)
        if p.default is not p.empty:
            text += "=" + _default_text(p.default, where)
        if p.kind == p.KEYWORD_ONLY and not seen_kw:
            params.append("*")
            seen_kw = True
        params.append(text)
    if "return" not in hints:
        raise ValueError("{}: the return type needs an annotation".format(where))
    ret = hints["return"]
    if ret is None or ret is type(None):
        rets = "()"
    elif typing.get_origin(ret) is tuple:
        rets = "(" + ", ".join(_schema_type(a, where) for a in typing.get_args(ret)) + ")"
    else:
        rets = _schema_type(ret, where)
    return "{}({}) -> {}".format(name, ", ".join(params), rets)


class CustomOpDef:
    """A Python-defined op (made by ``custom_op``): call it like its function; it is also
    ``ember.ops.<ns>.<name>``."""

    def __init__(self, namespace, name, schema, fn):
        self._namespace, self._name, self._schema, self._init_fn = namespace, name, schema, fn
        self._qualname = "{}::{}".format(namespace, name)
        self._backward = self._setup_context = None
        self.__name__ = name
        self.__doc__ = fn.__doc__

    def __repr__(self):
        return "<CustomOpDef({})>".format(self._qualname)

    @property
    def _opoverload(self):
        return getattr(getattr(ops, self._namespace), self._name)

    def __call__(self, *args, **kwargs):
        return self._opoverload(*args, **kwargs)

    def register_autograd(self, backward, /, *, setup_context=None):
        """Gives the op a backward: ``setup_context(ctx, inputs, output)`` saves what backward needs (for example
        ``ctx.save_for_backward(x)``), and ``backward(ctx, *grads)`` returns one gradient per input (None for
        non-tensor inputs and inputs that need none), as ``torch.library.register_autograd``.

        Raises:
            RuntimeError: called twice for the same op.
        """
        if self._backward is not None:
            raise RuntimeError("register_autograd: {} already has a backward".format(self._qualname))
        self._backward, self._setup_context = backward, setup_context
        from .autograd.function import Function

        op = self

        class _Autograd(Function):
            @staticmethod
            def forward(ctx, *args):
                out = op._init_fn(*args)  # grad mode is off inside forward
                if op._setup_context is not None:
                    op._setup_context(ctx, args, out)
                return out

            @staticmethod
            def backward(ctx, *grads):
                r = op._backward(ctx, *grads)
                return tuple(r) if isinstance(r, (tuple, list)) else (r,)

        _Autograd.__name__ = _Autograd.__qualname__ = "{}_{}".format(self._namespace, self._name)
        _C._impl_python(self._qualname, "Autograd", lambda *args: _Autograd.apply(*args), _where(backward))


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None):
    """Defines an op ``name`` ("namespace::opname") whose kernel is the Python function fn, as PyTorch 2.x's
    ``torch.library.custom_op``; use as a decorator::

        @ember.library.custom_op("mylib::scaled_tanh", mutates_args=())
        def scaled_tanh(x: Tensor, scale: float = 1.0) -> Tensor:
            return ember.tanh(x) * scale

    Args:
        name (str): the qualified name.
        fn: the function (annotated: Tensor, int, float, bool, str, Optional and list of those); given, or
            decorated.
        mutates_args (tuple of str or "unknown"): the arguments fn writes in place (marked ``Tensor(a!)``).
        device_types: accepted for compatibility; Ember runs on the CPU.
        schema (str): the schema instead of inferring one, e.g. "(Tensor x, float s) -> Tensor".

    Returns: a CustomOpDef (or a decorator making one).

    Raises:
        ValueError: a malformed name, unsupported annotations, mutates_args naming a non-tensor.
        RuntimeError: an op of that name is already defined (naming where).
    """
    if mutates_args == "unknown":
        mutates_args = ()
    if isinstance(mutates_args, str):
        raise ValueError("custom_op: mutates_args must be a tuple of argument names or 'unknown'")
    ns, opname = _split_name(name)

    def make(f):
        text = opname + schema if schema is not None else _infer_schema(f, opname, tuple(mutates_args))
        where = _where(f)
        _C._define_op("{}::{}".format(ns, text), where)
        _C._impl_python(name, "CPU", f, where)
        return CustomOpDef(ns, opname, text, f)

    return make if fn is None else make(fn)


class Library:
    """PyTorch 1.13's ``torch.library.Library(ns, kind)``: kind "DEF" (define ops of namespace ns),
    "IMPL" (add kernels to ops defined elsewhere) or "FRAGMENT"."""

    def __init__(self, ns, kind):
        if kind not in ("DEF", "IMPL", "FRAGMENT"):
            raise ValueError("Unsupported kind: {}".format(kind))
        if not isinstance(ns, str) or not ns.isidentifier():
            raise ValueError("Library: namespace must be an identifier, got {!r}".format(ns))
        self.ns, self.kind = ns, kind

    def __repr__(self):
        return "Library(kind={}, ns={})".format(self.kind, self.ns)

    def define(self, schema):
        """Declares an op from its schema (unqualified names are in this library's namespace); returns its name.
        Raises RuntimeError for a malformed schema or a duplicate."""
        if self.kind == "IMPL":
            raise RuntimeError("Library.define is not allowed in an IMPL library ({})".format(self.ns))
        qualified = schema if "::" in schema.split("(")[0] else "{}::{}".format(self.ns, schema)
        _C._define_op(qualified, "python:Library({})".format(self.ns))
        return qualified.split("(")[0].split("::")[1]

    def impl(self, op_name, fn, dispatch_key="CPU"):
        """Registers the Python function fn as the kernel of op_name ("name" or "name.overload", in this
        namespace, or qualified) at dispatch_key ("CPU", "Autograd", "CompositeImplicitAutograd", ...)."""
        qualified = op_name if "::" in op_name else "{}::{}".format(self.ns, op_name)
        _C._impl_python(qualified, dispatch_key, fn, _where(fn))


def define(qualname, schema=None, *, lib=None):
    """Declares an op, torch.library style: ``define("ns::name(Tensor x) -> Tensor")``."""
    text = qualname if schema is None else qualname + schema
    ns = text.split("::")[0]
    return (lib or Library(ns, "FRAGMENT")).define(text)


def impl(qualname, dispatch_key="CPU", fn=None):
    """Registers fn as the kernel of ``ns::name`` at dispatch_key (a decorator when fn is not given)."""
    ns = qualname.split("::")[0]

    def register(f):
        Library(ns, "FRAGMENT").impl(qualname, f, dispatch_key)
        return f

    return register if fn is None else register(fn)
