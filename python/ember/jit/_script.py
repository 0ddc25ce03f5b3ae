"""ember.jit.script for functions: the function's source is compiled by Ember's TorchScript compiler in C++
(ember/jit/frontend/Compiler.h) into a graph that the C++ interpreter runs, as PyTorch's ``torch.jit.script``.

Note [scripting python functions]
``script(fn)`` reads fn's source (``inspect.getsource`` + ``textwrap.dedent``; decorators are ignored by the
compiler) and the globals it names (``fn.__code__.co_names``, Note [python script globals] in
python/csrc/jit_script.cpp): modules of ops (``torch``/``ember`` and their ``nn.functional``, ``math``) under any
name, other Python functions (scripted first, recursively, into the same compilation unit, so calls of them
are inlined) and constants. The result is a ScriptedFunction: calling it runs the graph; ``graph`` is the
IR, ``schema`` TorchScript's signature line (no ``code`` yet: printing TorchScript back from a graph with
blocks comes with scripted modules). Errors in the source
raise RuntimeError with the source line and a caret, as PyTorch's frontend does. Modules (``nn.Module``) are
not scripted yet.
"""
import inspect
import textwrap
import types

from .. import _C
from ._module import ScriptFunction

_OP_MODULES = {"torch": "torch", "ember": "torch", "torch.nn.functional": "torch.nn.functional",
               "ember.nn.functional": "torch.nn.functional", "math": "math", "torch.nn": "torch.nn",
               "ember.nn": "torch.nn", "torch.jit": "torch.jit", "ember.jit": "torch.jit"}


def _source(fn):
    try:
        src = inspect.getsource(fn)
    except (OSError, TypeError) as e:
        raise OSError("Can't get source for {!r}. TorchScript requires source access in order to carry out "
                      "compilation, make sure original .py files are available.".format(fn)) from e
    return textwrap.dedent(src)


def _names(code):
    """The global names a code object (and the code objects nested in it: comprehensions) reads."""
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _names(c)
    return names


class _Compiler:
    """Compiles Python functions into one compilation unit, callees before callers."""

    def __init__(self):
        self.cu = _C._CompilationUnit()
        self.done = {}  # function object -> its name in the unit
        self.active = set()

    def compile(self, fn):
        if fn in self.done:
            return self.done[fn]
        if fn in self.active:
            raise RuntimeError("ember.jit.script: recursive calls are not supported ({})".format(fn.__name__))
        self.active.add(fn)
        modules, functions, constants = {}, {}, {}
        fn_globals = dict(getattr(fn, "__globals__", {}))
        if fn.__closure__:
            fn_globals.update({n: c.cell_contents for n, c in zip(fn.__code__.co_freevars, fn.__closure__)})
        for name in _names(fn.__code__) | set(fn.__code__.co_freevars):
            if name not in fn_globals:
                continue
            value = fn_globals[name]
            if isinstance(value, types.ModuleType) and value.__name__ in _OP_MODULES:
                modules[name] = _OP_MODULES[value.__name__]
            elif isinstance(value, ScriptedFunction):
                functions[name] = self.compile(value._fn)
            elif isinstance(value, types.FunctionType):
                functions[name] = self.compile(value)
            elif isinstance(value, (bool, int, float, str)) and not isinstance(value, type):
                constants[name] = value
        # Blank lines before the source keep its line numbers those of the file (errors cite them).
        src = "\n" * (fn.__code__.co_firstlineno - 1) + _source(fn)
        filename = inspect.getsourcefile(fn) or "<unknown>"
        try:
            self.cu.define(src, filename, modules, functions, constants)
        finally:
            self.active.discard(fn)
        self.done[fn] = fn.__name__
        return fn.__name__


class ScriptedFunction(ScriptFunction):
    """A Python function compiled to TorchScript by ember.jit.script (PyTorch's ``torch.jit.ScriptFunction``)."""

    def __init__(self, fn, cu, impl):
        self._fn = fn
        self._cu = cu
        self._impl = impl
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        self.__doc__ = fn.__doc__

    def __call__(self, *args, **kwargs):
        return self._impl(*args, **kwargs)

    @property
    def name(self):
        return self._impl.name

    @property
    def graph(self):
        return self._impl.graph

    @property
    def inlined_graph(self):
        return self._impl.graph

    @property
    def schema(self):
        return self._impl.schema

    def __repr__(self):
        return "<ember.jit.ScriptFunction {}>".format(self.__name__)


def script(obj):
    """Compiles a Python function to TorchScript (Note [scripting python functions]); returns a
    ScriptedFunction. Objects already scripted or traced are returned as they are.

    Raises:
        RuntimeError: the source uses what TorchScript does not allow (the message shows the line and a caret).
        NotImplementedError: ``obj`` is an nn.Module or a class (scripted modules are not supported yet).
    """
    if isinstance(obj, ScriptFunction):
        return obj
    if isinstance(obj, types.FunctionType):
        c = _Compiler()
        name = c.compile(obj)
        return ScriptedFunction(obj, c.cu, c.cu.find_function(name))
    raise NotImplementedError("ember.jit.script: only plain Python functions can be scripted so far, not {!r}"
                              .format(type(obj).__name__))

