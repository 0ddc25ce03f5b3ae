"""ember.ops: every op of the dispatcher by qualified name, as torch.ops.

``ember.ops.<ns>.<op>`` is the op ``ns::op`` with all its overloads (``ember.ops.aten.add``, or a custom op
``ember.ops.myops.fused_act`` once the library that defines it is loaded with ``ember.ops.load_library``).
Calls go through the same argument parser as ``ember.add``: positional and keyword arguments, defaults from
the schema, and a TypeError naming the argument and the schema when no overload accepts them.

Note [op namespaces]
Namespaces and ops are looked up on first attribute access and cached on the namespace object; a library
loaded later may add ops, and overloads of an op already looked up, so load_library() drops the cache.
"""
import os
import types

from . import _C


class _OpNamespace(types.ModuleType):
    """The ops of one namespace: ``ember.ops.myops.fused_act``.

    Raises AttributeError for a name that no loaded library defines.
    """

    def __init__(self, name):
        super().__init__("ember.ops." + name)
        self.name = name

    def __getattr__(self, op_name):
        if op_name.startswith("__"):
            raise AttributeError(op_name)  # copy/pickle/inspect probes are not ops
        op = _C._qualified_op(self.name + "::" + op_name)
        if op is None:
            raise AttributeError(
                "'_OpNamespace' '{}' object has no attribute '{}' (no op {}::{} is defined; an op of a custom "
                "library needs ember.ops.load_library(path) first)".format(self.name, op_name, self.name, op_name))
        setattr(self, op_name, op)
        return op


class _Ops(types.ModuleType):
    """``ember.ops``: op namespaces as attributes, and ``load_library``."""

    def __init__(self):
        super().__init__("ember.ops")
        self.loaded_libraries = set()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        ns = _OpNamespace(name)
        setattr(self, name, ns)
        return ns

    def load_library(self, path):
        """Loads a shared library of ops (built with EMBER_LIBRARY, for example by
        ``ember.utils.cpp_extension``) into this process; its ops become ``ember.ops.<ns>.<op>``.

        Args:
            path (str or os.PathLike): the shared object. Loading the same file again does nothing.

        Raises:
            OSError: the file is missing or is not a loadable shared object (an undefined symbol is named).
            RuntimeError: the library's registrations failed (a malformed schema, an op defined twice).
        """
        path = os.fspath(path)
        _C._load_library(path)
        self.loaded_libraries.add(path)
        # Note [op namespaces]: forget the ops looked up so far, so new ops and overloads are seen.
        for ns in list(vars(self).values()):
            if isinstance(ns, _OpNamespace):
                for name, value in list(vars(ns).items()):
                    if isinstance(value, _C._Op):
                        delattr(ns, name)


ops = _Ops()
