"""ember.save and ember.load: Ember's file format (a zip file with a JSON manifest and the raw tensor bytes,
written and read by the C++ library, ``ember/serialize``, so C++ programs share the files).

What can be saved: tensors (``ember.Tensor`` and ``ember.nn.Parameter``), None, bool, int (64-bit), float,
str, dtypes, ``ember.Size``, and lists, tuples, namedtuples, dicts and ``collections.OrderedDict`` of them,
nested (dict keys str or int). That covers ``Module.state_dict()`` and ``Optimizer.state_dict()``. Unlike
``torch.save`` nothing is pickled: loading a file never runs code from it, and other Python objects are
refused with a TypeError.

An ``ember.Size`` loads as an ``ember.Size`` (as torch.Size does with torch.load). A namedtuple loads as an
instance of its class only when that class is found without running code (Note [tuple classes] in
ember/serialize/EmberFormat.h): its module must already be imported, the class must be reachable from it by its
qualified name through plain attribute dictionaries, and its ``_fields`` must be the saved field names; the
instance is then built with ``tuple.__new__``, so no ``__new__`` or ``__init__`` of the class runs. Otherwise it
loads as a plain tuple with a UserWarning naming the class. (``torch.load`` imports the module and calls the
class, which runs code named by the file; with ``weights_only=True`` it refuses namedtuples.)

Semantics shared with torch.save/torch.load: tensors that share a storage (a tensor and its views, the same
tensor listed twice) load sharing one storage with the same sizes, strides and offsets, and the same tensor
object listed twice loads as one object; ``requires_grad`` is kept (gradients are not saved); Parameters load
as Parameters; an OrderedDict state dict loads as an OrderedDict with its ``_metadata``. A container listed
twice (the same list object at two places) loads as two equal copies, and reference cycles raise ValueError.
"""
import errno
import os
import sys
import warnings

from . import _C

__all__ = ["save", "load"]


def _classes():
    """(Parameter, Size, _rebuild_namedtuple): what ember._C._save/_save_to/_load need from Python."""
    from ._size import Size
    from .nn.parameter import Parameter  # late: ember.nn imports ember
    return (Parameter, Size, _rebuild_namedtuple)


def _static_attr(obj, name):
    """obj's attribute `name` found in the __dict__ of obj (a module) or of its class's MRO (a class), or None;
    no descriptor, property or __getattr__ runs."""
    if isinstance(obj, type):
        for klass in obj.__mro__:
            d = klass.__dict__
            if name in d:
                return d[name]
        return None
    d = getattr(obj, "__dict__", None)
    return d.get(name) if isinstance(d, dict) else None


def _rebuild_namedtuple(module, qualname, fields, items):
    """A loaded namedtuple: an instance of module.qualname when that class is already imported and has these
    fields, else a plain tuple with a warning (Note [tuple classes] in ember/serialize/EmberFormat.h)."""
    cls = sys.modules.get(module)
    for part in qualname.split("."):
        if cls is None or not part.isidentifier():
            cls = None
            break
        cls = _static_attr(cls, part)
    if isinstance(cls, type) and issubclass(cls, tuple) and _static_attr(cls, "_fields") == fields:
        return tuple.__new__(cls, items)
    why = ("its module is not imported (Ember's loader imports nothing)" if module not in sys.modules
           else "the class is not found there or has other fields")
    warnings.warn(f"ember.load: the namedtuple {module}.{qualname}{fields} loads as a plain tuple: {why}",
                  UserWarning, stacklevel=3)
    return tuple(items)


def save(obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True):
    r"""Saves obj to the file f in Ember's file format (PyTorch's ``torch.save``).

    Writing to a path is atomic: the archive goes to a temporary file in the same directory that replaces
    ``f`` only when it is complete; on any error it is removed and an existing ``f`` is left as it was.

    Args:
        obj: tensors, None, bool, int, float, str, dtypes, ember.Size, and lists, tuples, namedtuples, dicts
            and OrderedDicts of them.
        f (str, os.PathLike or file-like): a path, or an object with ``write(b)`` (e.g. ``io.BytesIO`` or an
            open binary file), which receives the archive (written whole to a temporary file in TMPDIR first,
            then read back) as read-only memoryviews of at most 4 MiB each, valid during the call only. A
            file-like object is written directly, not atomically. When ``write`` returns a count smaller than
            it was given, the rest is written again, as Python's buffered streams do with a raw stream; a
            return of None counts as everything written (Note [short writes] in python/csrc/serialization.cpp).
        pickle_module, pickle_protocol, _use_new_zipfile_serialization: accepted for compatibility with
            torch.save and ignored (nothing is pickled).

    Raises:
        TypeError: an object of another type, or a dict key that is not str or int (the message names the type
            and where it is, e.g. ``obj['a'][2]``).
        ValueError: an int beyond 64 bits, a reference cycle, nesting deeper than 1000 containers.
        RuntimeError: the file cannot be written.
        OSError: ``f.write`` wrote nothing, or returned a negative count or one larger than it was given (the
            message names f; what f received so far is an incomplete archive). TypeError when it returned
            something other than an int or None.
    """
    if isinstance(f, (str, bytes, os.PathLike)):
        path = os.fsdecode(os.fspath(f))
        _C._save(obj, path, _classes())
    elif hasattr(f, "write"):
        _C._save_to(obj, f, _classes())
    else:
        raise TypeError(f"ember.save: f must be a path or a writable file-like object, got {type(f).__name__}")


def load(f, map_location=None, pickle_module=None, *, weights_only=False, **pickle_load_args):
    r"""Loads an object saved by :func:`save` (PyTorch's ``torch.load``).

    Tensors come back on the CPU; tensors that were saved sharing a storage share one again.

    Args:
        f (str, os.PathLike or file-like): a path, or an object with ``read()`` (e.g. ``io.BytesIO``), read
            from its current position to the end.
        map_location: accepted for compatibility: None, ``'cpu'``, ``ember.device('cpu')``, a dict mapping
            location names to ``'cpu'``, or a callable (not called: every storage is already a CPU storage).
            Other devices raise RuntimeError (Ember has only the CPU).
        pickle_module, weights_only, pickle_load_args: accepted for compatibility and ignored: loading never
            runs code from the file, which is what ``weights_only=True`` asks of torch.load.

    Raises:
        FileNotFoundError: no file at the path.
        IsADirectoryError: the path is a directory.
        RuntimeError: the file is not an Ember archive or is corrupt (the message names the file and the
            problem: not a zip archive, missing manifest or storage entry, bad JSON, unknown format version or
            dtype, a tensor that does not fit its storage, ...).
    """
    _check_map_location(map_location)
    if isinstance(f, (str, bytes, os.PathLike)):
        path = os.fsdecode(os.fspath(f))
        if not os.path.exists(path):
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        if os.path.isdir(path):
            raise IsADirectoryError(errno.EISDIR, "Is a directory", path)
        return _jit_or_value(_C._load(path, path, _classes()), path)
    if hasattr(f, "read"):
        data = f.read()
        if not isinstance(data, bytes):
            raise TypeError("ember.load: the file-like object must be opened in binary mode")
        return _jit_or_value(_C._load(data, getattr(f, "name", "<file-like object>"), _classes()), data)
    raise TypeError(f"ember.load: f must be a path or a readable file-like object, got {type(f).__name__}")


def _jit_or_value(value, source):
    """A file written by ember.jit.save is loaded as ember.jit.load would, with a warning, as torch.load does for
    TorchScript archives (its manifest is an ordinary archive, so ember.load would return the raw manifest)."""
    if isinstance(value, dict) and value.get("format") == "ember-jit-module":
        import io
        import warnings

        from . import jit

        warnings.warn("'ember.load' received a saved ember.jit module; dispatching to 'ember.jit.load' (call "
                      "'ember.jit.load' directly to silence this warning)", UserWarning, stacklevel=3)
        return jit.load(source if isinstance(source, str) else io.BytesIO(source))
    return value


def _check_map_location(map_location):
    if map_location is None or callable(map_location):
        # A callable (storage, location) -> storage only ever sees CPU storages here; it is not called.
        return
    targets = map_location.values() if isinstance(map_location, dict) else [map_location]
    for target in targets:
        if str(target) not in ("cpu", "cpu:0"):
            raise RuntimeError(f"ember.load: map_location {map_location!r}: Ember has only the CPU device")
