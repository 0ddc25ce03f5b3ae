"""The names of ``torch.jit`` that annotate code for the TorchScript compiler, with their eager (Python) meaning.

Programs written for ``torch.jit.script`` use them in ordinary Python too: there they mark functions
(``ignore``, ``unused``, ``export``), state types (``annotate``, ``Attribute``, ``Final``), test types
(``isinstance``) or ask whether the code is being compiled (``is_scripting``), and run as plain Python. Ember keeps
each marker where PyTorch keeps it (``fn._torchscript_modifier``), so a compiler can read them.
"""
import collections
import typing
import warnings

from ..futures import Future

__all__ = ["Attribute", "Final", "annotate", "export", "fork", "ignore", "interface", "is_scripting", "isinstance",
           "script_if_tracing", "unused", "wait"]

Final = typing.Final


class _Modifier:
    """The markers of ``fn._torchscript_modifier`` (PyTorch's FunctionModifiers, same strings)."""
    UNUSED = "unused (ignored and replaced with raising of an exception)"
    IGNORE = "ignore (leave as a call to Python, cannot be torch.jit.save'd)"
    EXPORT = "export (compile this function even if nothing calls it)"
    DEFAULT = "default (compile if called from a exported function / forward)"
    COPY_TO_SCRIPT_WRAPPER = "if this method is not scripted, copy the python method onto the scripted model"


class Attribute(collections.namedtuple("Attribute", ["value", "type"])):
    """``Attribute(value, type)``: declares a module attribute's type for the compiler; in Python it is the
    pair itself (as PyTorch's eager ``torch.jit.Attribute``)."""
    __slots__ = ()


def is_scripting():
    """True inside code being compiled by ``ember.jit.script``; plain Python is never compiled: False."""
    return False


def annotate(the_type, the_value):
    """Gives ``the_value`` the type ``the_type`` for the compiler (``annotate(List[int], [])``); returns the
    value unchanged."""
    return the_value


def _mark(fn, modifier):
    fn._torchscript_modifier = modifier
    return fn


def export(fn):
    """Marks a method to be compiled even when ``forward`` does not call it; returns it."""
    return _mark(fn, _Modifier.EXPORT)


def unused(fn):
    """Marks a function or method (or a property) that the compiler replaces by raising an exception; returns it."""
    if isinstance(fn, property):
        prop = fn
        _mark(prop.fget, _Modifier.UNUSED)
        if prop.fset:
            _mark(prop.fset, _Modifier.UNUSED)
        return prop
    return _mark(fn, _Modifier.UNUSED)


def ignore(drop=False, **kwargs):
    """Marks a function the compiler leaves as a call to Python: ``@ignore`` or ``@ignore(drop=True)`` (the
    deprecated spelling of ``@unused``, with PyTorch's FutureWarning). Returns the function."""
    if callable(drop):
        return _mark(drop, _Modifier.IGNORE)
    if not isinstance(drop, bool):
        raise RuntimeError(f"Argument to @ember.jit.ignore must be a bool or a function but got {drop}")
    drop_on_export = kwargs.pop("drop_on_export", None)
    if drop_on_export:
        warnings.warn("ignore(drop_on_export=True) has been deprecated. TorchScript will now drop the function "
                      "call on compilation. Use ember.jit.unused now.", category=FutureWarning)
        drop = drop_on_export
    elif drop:
        warnings.warn("ignore(True) has been deprecated. TorchScript will now drop the function call on "
                      "compilation. Use ember.jit.unused now.", category=FutureWarning)

    def decorator(fn):
        return _mark(fn, _Modifier.UNUSED if drop else _Modifier.IGNORE)

    return decorator


def interface(obj):
    """Declares a class as an interface type for the compiler; returns the class."""
    if not isinstance(obj, type):
        raise RuntimeError("interface must be applied to a class")
    obj.__torch_script_interface__ = True
    return obj


def script_if_tracing(fn):
    """``fn`` compiled with ``script`` on its first call during tracing, so that its control flow survives the
    trace. Ember cannot script yet, so the trace records the ops ``fn`` runs for the example inputs (what
    tracing any Python function records); outside tracing ``fn`` runs as Python."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    wrapper.__original_fn = fn
    wrapper.__script_if_tracing_wrapper = True
    return wrapper


_builtin_isinstance = isinstance


def _check_type(obj, target):
    """isinstance for typing's generic types, checking the contents of containers."""
    origin = typing.get_origin(target)
    args = typing.get_args(target)
    if target is None or target is type(None):
        return obj is None
    if origin in (list, dict, tuple) and not args:
        name = getattr(target, "_name", None) or origin.__name__.capitalize()
        raise RuntimeError(f"Attempted to use {name} without a contained type. Please add a contained type, "
                           f"e.g. {name}[int]")
    if origin is None:
        if target in (list, dict, tuple, typing.List, typing.Dict, typing.Tuple, typing.Optional):
            name = getattr(target, "_name", None) or target.__name__.capitalize()
            raise RuntimeError(f"Attempted to use {name} without a contained type. Please add a contained type, "
                               f"e.g. {name}[int]")
        if target is float:
            return _builtin_isinstance(obj, float)
        return _builtin_isinstance(obj, target)
    if origin is typing.Union:
        return any(_check_type(obj, a) for a in args)
    if origin is list:
        if not _builtin_isinstance(obj, list):
            return False
        if not obj:
            _warn_lost_inner_type()
        return all(_check_type(x, args[0]) for x in obj)
    if origin is dict:
        if not _builtin_isinstance(obj, dict):
            return False
        if not obj:
            _warn_lost_inner_type()
        return all(_check_type(k, args[0]) and _check_type(v, args[1]) for k, v in obj.items())
    if origin is tuple:
        if not _builtin_isinstance(obj, tuple):
            return False
        return len(obj) == len(args) and all(_check_type(x, a) for x, a in zip(obj, args))
    return _builtin_isinstance(obj, origin)


def _warn_lost_inner_type():
    warnings.warn("The inner type of a container is lost when calling ember.jit.isinstance in eager mode. For "
                  "example, List[int] would become list and therefore falsely return True for List[float] or "
                  "List[str].")


def isinstance(obj, target_type):  # noqa: A001 - PyTorch's name
    """Whether ``obj`` is of ``target_type``, which may be a typing generic (``List[int]``, ``Dict[str, Tensor]``,
    ``Optional[int]``, ``Tuple[int, str]``, ``Union[...]``): the contents of containers are checked (an empty
    container matches any element type, with PyTorch's warning). RuntimeError for a bare ``List``/``Dict``/
    ``Tuple`` without element types."""
    return _check_type(obj, target_type)


def fork(func, *args, **kwargs):
    """Runs ``func(*args, **kwargs)`` and returns an ``ember.futures.Future`` of its result (``wait`` gives it).
    As PyTorch outside TorchScript, the call runs at once in this thread; its exception is raised here."""
    fut = Future()
    fut.set_result(func(*args, **kwargs))
    return fut


def wait(future):
    """The value of a future from ``fork`` (blocks until it is complete)."""
    return future.wait()
