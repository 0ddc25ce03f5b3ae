"""The objects ember.jit.trace returns: TracedModule (a Module running a graph) and TracedFunction.

Note [traced module layout]
A traced module mirrors the traced module tree: one TracedModule per submodule, holding the same Parameter
and buffer objects as the original (as PyTorch's traced modules share their tensors), the same training flag
and the original class name (``original_name``). The root holds the graph of ``forward``, flat: the calls
of submodules are inlined by the tracer and their parameters read through ``prim::GetAttr`` chains from
``%self`` (``self.fc.weight``). Submodules therefore have no graph of their own: calling one raises.

Note [flattened inputs]
The graph's inputs are the tensors of the example inputs, flattened in order (tuples and lists element by
element, dicts by their keys' order); a call flattens its arguments the same way and checks that their
structure (container kinds, lengths, dict keys) is the example's. Outputs keep their structure in the graph
(prim::TupleConstruct, ListConstruct, DictConstruct).

Until the JIT runtime lands, forward runs the graph with the Python executor (``_C._Graph._run``, Note [python
graph executor] in python/csrc/jit.cpp).
"""
from ..nn.modules.module import Module
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


class _GraphMethod:
    """A traced graph with the input structure it was traced with."""

    def __init__(self, graph, spec, name):
        self.graph = graph
        self.spec = spec
        self.name = name

    def run(self, owner, args):
        tensors, _, spec = flatten(tuple(args), "input")
        if spec != self.spec:
            raise RuntimeError("{}(): the arguments' structure {} differs from the traced example's {} (a trace is "
                            "specialized on the structure of its inputs)".format(self.name, spec, self.spec))
        return self.graph._run(owner, tensors)


class TracedModule(Module):
    """A traced module (Note [traced module layout]): ``forward`` runs the graph; ``graph`` and ``code`` show
    it; parameters, buffers, ``state_dict``, ``train``/``eval`` and submodules work as on any Module."""

    def __init__(self, original, method=None):
        super().__init__()
        object.__setattr__(self, "original_name", type(original).__name__)
        object.__setattr__(self, "_method", method)
        self.training = original.training
        for k, p in original._parameters.items():
            self._parameters[k] = p
        for k, b in original._buffers.items():
            self._buffers[k] = b
        self._non_persistent_buffers_set.update(original._non_persistent_buffers_set)
        for k, m in original._modules.items():
            self._modules[k] = None if m is None else _traced_child(m)

    def forward(self, *args):
        if self._method is None:
            raise RuntimeError("this submodule ({}) was traced as part of its parent and has no graph of its own; "
                               "trace it separately to call it".format(self.original_name))
        return self._method.run(self, args)

    @property
    def graph(self):
        """The graph of forward (``str(m.graph)`` prints its IR text)."""
        if self._method is None:
            raise RuntimeError("this submodule ({}) has no graph of its own".format(self.original_name))
        return self._method.graph

    @property
    def inlined_graph(self):
        """The same as graph: the tracer already inlines submodule calls."""
        return self.graph

    @property
    def code(self):
        """forward as readable Python-like source."""
        return self.graph.code("forward")

    def _get_name(self):
        return self.original_name

    def extra_repr(self):
        return "original_name=" + self.original_name


class _TracedContainer(TracedModule):
    """A traced Sequential or ModuleList: its children are also reachable by index, len() and iteration."""

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


def _traced_child(m):
    from ..nn import ModuleList, Sequential
    return (_TracedContainer if isinstance(m, (Sequential, ModuleList)) else TracedModule)(m)


ScriptModule = TracedModule


class TracedFunction:
    """A traced function: calling it runs the graph; ``graph`` and ``code`` show it."""

    def __init__(self, fn, method):
        self._method = method
        self.__name__ = getattr(fn, "__name__", "forward")
        self.__doc__ = getattr(fn, "__doc__", None)

    def __call__(self, *args):
        return self._method.run(None, args)

    @property
    def graph(self):
        return self._method.graph

    @property
    def inlined_graph(self):
        return self._method.graph

    @property
    def code(self):
        return self._method.graph.code(self.__name__)

    def __repr__(self):
        return "<ember.jit.TracedFunction {}>".format(self.__name__)


ScriptFunction = TracedFunction
