"""The objects ember.jit returns: ScriptModule (traced: TracedModule; loaded: RecursiveScriptModule) and
ScriptFunction (traced functions: TracedFunction).

Note [traced module layout]
A traced module mirrors the traced module tree: one TracedModule per submodule, holding the same Parameter
and buffer objects as the original (as PyTorch's traced modules share their tensors), the same training flag
and the original class name (``original_name``). Each is a Python Module over a runtime module (``_c``, a
``_C._JitModule``, Note [python script modules] in python/csrc/jit_module.cpp) whose attribute table holds the
same tensors. The root holds the graph of ``forward`` as a method of the runtime module, flat: the calls of
submodules are inlined by the tracer and their parameters read through ``prim::GetAttr`` chains from
``%self`` (``self.fc.weight``). Submodules therefore have no graph of their own: calling one raises.

Note [flattened inputs]
The graph's inputs are the tensors of the example inputs, flattened in order (tuples and lists element by element,
dicts by their keys' order); a call flattens its arguments the same way and checks that their structure (container
kinds, lengths, dict keys) is the example's. A dict argument is matched by key: one with the example's keys in
another order is the same input (as in TorchScript, whose graphs look dict entries up by key). Outputs keep their
structure in the graph (prim::TupleConstruct, ListConstruct, DictConstruct). A saved module keeps the structure of
each method's inputs in the extra file ``.ember/input_spec/<method>`` (Note [saved modules from python] in
_serialization.py), so a loaded module takes the same arguments as the traced one.
"""
import copy

from .. import _C
from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from .._tensor import Tensor


def flatten(obj, name, what="an input"):
    """(tensors, names, spec) of a (possibly nested) tuple/list/dict of tensors (Note [flattened inputs])."""
    tensors, names = [], []

    def walk(o, n):
        if isinstance(o, Tensor):
            tensors.append(o)
            names.append(n)
            return "T"
        if isinstance(o, (tuple, list)):
            return (type(o).__name__, tuple(walk(e, "{}_{}".format(n, i)) for i, e in enumerate(o)))
        if isinstance(o, dict):
            keys = list(o.keys())
            return ("dict", tuple(keys), tuple(walk(o[k], "{}_{}".format(n, _ident(k))) for k in keys))
        raise RuntimeError(
            "Type '{}' cannot be traced. Only Tensors and (possibly nested) Lists, Dicts, and Tuples of Tensors "
            "can be traced ({} of the traced function)".format(type(o).__name__, what))

    spec = walk(obj, name)
    return tensors, names, spec


def _ident(k):
    s = "".join(c if c.isalnum() or c == "_" else "_" for c in str(k))
    return s or "_"


def _spec_str(spec):
    """A spec as the argument list a user reads: (Tensor, (Tensor, Tensor), Dict[...])."""
    if spec == "T":
        return "Tensor"
    if spec[0] == "dict":
        return "Dict[" + ", ".join("{!r}: {}".format(k, _spec_str(s)) for k, s in zip(spec[1], spec[2])) + "]"
    inner = ", ".join(_spec_str(s) for s in spec[1])
    return ("Tuple[" + inner + "]") if spec[0] == "tuple" else ("List[" + inner + "]")


def _bind(name, names, args, kwargs, declaration):
    """The positional arguments of a call, keyword arguments placed by name, as TorchScript binds them."""
    n = len(names)
    if len(args) > n:
        raise RuntimeError("{}() expected at most {} argument(s) but received {} argument(s). Declaration: {}"
                           .format(name, n, len(args), declaration))
    bound = list(args)
    kwargs = dict(kwargs)
    for i in range(len(args), n):
        if names[i] not in kwargs:
            raise RuntimeError("{}() is missing value for argument '{}'. Declaration: {}".format(
                name, names[i], declaration))
        bound.append(kwargs.pop(names[i]))
    if kwargs:
        k = next(iter(kwargs))
        raise RuntimeError("{}() got an unexpected keyword argument '{}'{}. Declaration: {}".format(
            name, k, " (it is given by position)" if k in names else "", declaration))
    return bound


def _flatten_call(name, signature, args, kwargs):
    """The flat tensor inputs of a call of a method traced with signature (spec, argument names), checked
    (Note [flattened inputs]); errors are RuntimeErrors worded as TorchScript's."""
    spec, names = signature
    declaration = "{}({})".format(name, ", ".join("{} {}".format(_spec_str(s), n) for s, n in zip(spec[1], names)))
    bound = _bind(name, names, args, kwargs, declaration)
    for a, s, n in zip(bound, spec[1], names):
        if not _is_tensor_tree(a) or (s == "T") != isinstance(a, Tensor):
            raise RuntimeError("{}() Expected a value of type '{}' for argument '{}' but instead found type '{}'."
                               "\nDeclaration: {}".format(name, _spec_str(s), n, type(a).__name__, declaration))
    tensors, _, got = flatten(_in_spec_order(tuple(bound), spec), "input")
    if got != spec:
        raise RuntimeError("{}(): the arguments' structure ({}) differs from the traced example's ({}) (a trace "
                           "is specialized on the structure of its inputs). Declaration: {}".format(
                               name, ", ".join(_spec_str(s) for s in got[1]),
                               ", ".join(_spec_str(s) for s in spec[1]), declaration))
    return tensors


def _in_spec_order(o, spec):
    """o with each dict whose keys are the traced example's (in any order) rebuilt in the example's key order, so
    that a dict input is matched by key, as TorchScript looks its entries up (Note [flattened inputs]); anything
    else is left for the structure check to name."""
    if spec == "T" or not isinstance(spec, tuple):
        return o
    if spec[0] == "dict":
        if isinstance(o, dict) and len(o) == len(spec[1]) and all(k in o for k in spec[1]):
            return {k: _in_spec_order(o[k], s) for k, s in zip(spec[1], spec[2])}
        return o
    if isinstance(o, (tuple, list)) and len(o) == len(spec[1]):
        return type(o)(_in_spec_order(e, s) for e, s in zip(o, spec[1]))
    return o


def _is_tensor_tree(o):
    if isinstance(o, Tensor):
        return True
    if isinstance(o, (tuple, list)):
        return all(_is_tensor_tree(e) for e in o)
    if isinstance(o, dict):
        return all(_is_tensor_tree(e) for e in o.values())
    return False


def _short_name(class_name):
    """Net from __torch__.__main__.Net or __torch__.x.Net.___torch_mangle_3."""
    parts = [p for p in class_name.split(".") if not p.startswith("___torch_mangle")]
    return parts[-1] if parts else class_name


class ScriptModule(Module):
    """A module whose methods are graphs run by the C++ runtime (Note [traced module layout]): ``forward``
    runs the graph; ``graph`` and ``code`` show it; parameters, buffers, ``state_dict``, ``train``/``eval``
    and submodules work as on any Module; ``save(path)`` writes it as one file (``ember.jit.save``)."""

    def __init__(self, c, original_name, specs):
        super().__init__()
        object.__setattr__(self, "_c", c)
        object.__setattr__(self, "original_name", original_name)
        # method name -> (input structure, argument names) (Note [flattened inputs])
        object.__setattr__(self, "_specs", specs)

    # ---- running
    def forward(self, *args, **kwargs):
        return self._run("forward", args, kwargs)

    def _run(self, name, args, kwargs):
        if not self._c.has_method(name):
            raise RuntimeError("this submodule ({}) was traced as part of its parent and has no graph of its own; "
                               "trace it separately to call it".format(self.original_name))
        spec = self._specs.get(name)
        if spec is None:  # a module saved without input structure (by C++): its graph inputs, flat
            if kwargs:
                raise RuntimeError("{}() got keyword arguments {}".format(name, sorted(kwargs)))
            return self._c.run_method(name, args)
        return self._c.run_method(name, _flatten_call(name, spec, args, kwargs))

    def run_method(self, name, *args, **kwargs):
        """Runs the method `name` of the runtime module with args (as forward takes them)."""
        return self._run(name, args, kwargs)

    # ---- what it runs
    @property
    def graph(self):
        """The graph of forward (``str(m.graph)`` prints its IR text)."""
        if not self._c.has_method("forward"):
            raise RuntimeError("this submodule ({}) has no graph of its own".format(self.original_name))
        return self._c.method_graph("forward")

    @property
    def inlined_graph(self):
        """The same as graph: the tracer already inlines submodule calls."""
        return self.graph

    @property
    def code(self):
        """forward as readable Python-like source."""
        return self.graph.code("forward")

    def save(self, f, _extra_files=None):
        """Writes the module to f (a path or a binary file object) as one archive: ember.jit.save(self, f)."""
        from ._serialization import save
        save(self, f, _extra_files)

    # ---- keeping the runtime module's slots in step with the Python attributes
    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        d = self.__dict__
        if name in d.get("_parameters", ()) or name in d.get("_buffers", ()):
            self._sync_slot(name)

    def _sync_slot(self, name):
        value = self._parameters.get(name, self._buffers.get(name))
        if value is None:
            raise RuntimeError("{}: cannot set attribute '{}' of a script module to None (the graph reads it)"
                               .format(self.original_name, name))
        if self._c.has_attr(name):
            # The slot holds this very tensor, so a later `value.data = ...` (which changes the tensor in
            # place, Note [Tensor.data] in python/csrc/tensor_autograd.cpp) reaches the runtime module too.
            self._c.set_attr(name, value)

    def _apply(self, fn):
        super()._apply(fn)
        for table in (self._parameters, self._buffers):
            for name in list(table):
                if table[name] is not None:
                    self._sync_slot(name)
        return self

    def train(self, mode=True):
        super().train(mode)
        self._c.train(mode)
        return self

    def _get_name(self):
        return self.original_name

    def extra_repr(self):
        return "original_name=" + self.original_name

    def __deepcopy__(self, memo):
        """An independent copy (Note [copying script modules]): a RecursiveScriptModule over a copy of the
        runtime module, its tensors deep-copied (a tensor shared by two attributes stays shared)."""
        if id(self) in memo:
            return memo[id(self)]
        c = _copy_runtime(self._c, self, memo, {})
        new = _loaded(c, copy.deepcopy(self._specs, memo))
        memo[id(self)] = new
        return new

    def __copy__(self):
        raise RuntimeError("ember.jit: a shallow copy of a script module is not supported; use copy.deepcopy")

    def __reduce_ex__(self, protocol):
        raise RuntimeError("ember.jit.ScriptModule cannot be pickled; use ember.jit.save / ember.jit.load")


# Note [copying script modules]
# copy.deepcopy of a traced or loaded module builds a new runtime module tree: the same class names, a deep copy
# of each parameter and buffer (through the Python objects, so deepcopy's memo keeps shared tensors shared and
# a Parameter's requires_grad), the same plain attributes, training flags, and the same method graphs compiled
# for the new objects (graphs are immutable once defined, so sharing them is safe). The copy is a
# RecursiveScriptModule, as a loaded module is; its original_name is the original's.
def _copy_runtime(c, py_module, memo, copies):
    for old, new in copies.items():
        if old.same(c):
            return new
    new = _C._JitModule(c.class_name)
    copies[c] = new
    py_children = dict(py_module._modules) if py_module is not None else {}
    for name, kind, value in c.slots():
        if kind == "parameter" or kind == "buffer":
            live = None
            if py_module is not None:
                live = (py_module._parameters if kind == "parameter" else py_module._buffers).get(name)
            t = copy.deepcopy(live if live is not None else value, memo)
            (new.register_parameter if kind == "parameter" else new.register_buffer)(name, t)
        elif kind == "module":
            new.register_module(name, _copy_runtime(value, py_children.get(name), memo, copies))
        else:
            new.register_attribute(name, copy.deepcopy(value, memo))
    new.train(c.is_training())
    for name in c.method_names():
        new.define_method(name, c.method_graph(name))
    return new


class _ContainerMixin:
    """A Sequential or ModuleList: its children are also reachable by index, len() and iteration."""

    def __getitem__(self, idx):
        mods = list(self._modules.values())
        if not isinstance(idx, int):
            raise TypeError("indices of a traced {} must be integers".format(self.original_name))
        if not -len(mods) <= idx < len(mods):
            raise IndexError("index {} is out of range".format(idx))
        return mods[idx]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())


_CONTAINERS = ("Sequential", "ModuleList")


class TracedModule(ScriptModule):
    """A traced module (Note [traced module layout]). Built by ember.jit.trace from the original module, its
    runtime module's class names (as the graph names them) and the graph of forward."""

    def __init__(self, original, c, specs):
        super().__init__(c, type(original).__name__, specs)
        self.training = original.training
        for k, p in original._parameters.items():
            self._parameters[k] = p
        for k, b in original._buffers.items():
            self._buffers[k] = b
        self._non_persistent_buffers_set.update(original._non_persistent_buffers_set)
        children = {name: value for name, kind, value in c.slots() if kind == "module"}
        for k, m in original._modules.items():
            self._modules[k] = None if m is None else _traced(m, children[k], {})

    @staticmethod
    def _build(original, class_names, path="", memo=None):
        """The runtime module of original (class_names: module path -> class name as the graph names it), with
        its parameters, buffers (the same tensors) and submodules; a module shared under two names is one
        object, as in the Python tree."""
        memo = {} if memo is None else memo
        if id(original) in memo:
            return memo[id(original)]
        c = _C._JitModule(class_names[path])
        memo[id(original)] = c
        for k, p in original._parameters.items():
            if p is not None:
                c.register_parameter(k, p)
        for k, b in original._buffers.items():
            if b is not None:
                c.register_buffer(k, b)
        for k, m in original._modules.items():
            if m is not None:
                c.register_module(k, TracedModule._build(m, class_names, path + ("." if path else "") + k, memo))
        c.train(original.training)
        return c


def _traced(original, c, specs):
    from ..nn import ModuleList, Sequential
    cls = _TracedContainer if isinstance(original, (Sequential, ModuleList)) else TracedModule
    return cls(original, c, specs)


class _TracedContainer(_ContainerMixin, TracedModule):
    pass


class RecursiveScriptModule(ScriptModule):
    """A module loaded by ember.jit.load: its Python attributes are made from the runtime module's attribute
    table (parameters become Parameters sharing the loaded tensors), no Python class of the original needed."""

    def __init__(self, c, specs):
        super().__init__(c, _short_name(c.class_name), specs)
        self.training = c.is_training()
        for name, kind, value in c.slots():
            if kind == "parameter":
                p = Parameter(value, requires_grad=value.dtype.is_floating_point or value.dtype.is_complex)
                self._parameters[name] = p
                c.set_attr(name, p)  # the slot holds the Parameter itself (autograd reaches it)
            elif kind == "buffer":
                self._buffers[name] = value
            elif kind == "module":
                self._modules[name] = _loaded(value, {})
            else:
                object.__setattr__(self, name, value)


def _loaded(c, specs):
    cls = _LoadedContainer if _short_name(c.class_name) in _CONTAINERS else RecursiveScriptModule
    return cls(c, specs)


class _LoadedContainer(_ContainerMixin, RecursiveScriptModule):
    pass


class ScriptFunction:
    """What ember.jit.trace and ember.jit.script make of a function (PyTorch's ``torch.jit.ScriptFunction``):
    TracedFunction for a trace, ScriptedFunction (_script.py) for compiled source."""


class TracedFunction(ScriptFunction):
    """A traced function: calling it runs the graph in the C++ runtime; ``graph`` and ``code`` show it; ``save``
    writes it as a module with forward."""

    def __init__(self, fn, graph, signature):
        self.__name__ = getattr(fn, "__name__", "forward")
        if self.__name__ == "<lambda>":
            self.__name__ = "_lambda"
        self.__doc__ = getattr(fn, "__doc__", None)
        self._graph = graph
        self._spec = signature
        self._fn = _C._JitFunction(self.__name__, graph)

    def __call__(self, *args, **kwargs):
        return self._fn.run(_flatten_call(self.__name__, self._spec, args, kwargs))

    @property
    def graph(self):
        return self._graph

    @property
    def inlined_graph(self):
        return self._graph

    @property
    def code(self):
        return self._graph.code(self.__name__)

    def save(self, f, _extra_files=None):
        """Writes the function to f (a path or a binary file object) as ember.jit.save(self, f) does: as a module
        whose forward runs the function (as PyTorch's ScriptFunction.save), so ember.jit.load (or C++
        ``ember::jit::load``) gives a RecursiveScriptModule (original_name "PlaceholderModule") whose forward
        takes the function's arguments."""
        from ._serialization import save
        save(self, f, _extra_files)

    def _as_module(self):
        """The function as a runtime module with forward (Note [saved functions] in ember/jit/runtime/Module.cpp),
        taking the same arguments (its input structure is the function's)."""
        return _loaded(_C._jit_function_module(self._graph), {"forward": self._spec})

    def __repr__(self):
        return "<ember.jit.TracedFunction {}>".format(self.__name__)

