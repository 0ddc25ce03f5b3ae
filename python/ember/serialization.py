"""ember.save and ember.load: Ember's file format (a zip file with a JSON manifest and the raw tensor bytes,
written and read by the C++ library, ``ember/serialize``, so C++ programs share the files).

What can be saved: tensors (``ember.Tensor`` and ``ember.nn.Parameter``), None, bool, int (64-bit), float,
str, dtypes, ``ember.Size``, and lists, tuples, namedtuples, dicts and ``collections.OrderedDict`` of them,
nested (dict keys str or int). That covers ``Module.state_dict()`` and ``Optimizer.state_dict()``, and such
files are read without any unpickling. Other objects are pickled (Note [whole objects]).

Note [whole objects]
``torch.save(model, path)`` of a whole ``nn.Module`` (or a checkpoint dict holding one, a set, a custom class)
is common in PyTorch programs. ``ember.save`` writes what Ember's archive cannot hold as ``torch.save`` does:
Python's pickle (protocol 2) in torch.save's zip format, tensors as ``ember._utils`` rebuilds of the raw storage
bytes (ember/_unsafe_pickle.py), atomically to a path. Only what pickle itself cannot write (a lambda, a local
class) raises TypeError, with Ember's and pickle's messages. ``ember.load``'s default reads such a file safely
when it holds modules, plain data and tensors (Note [module unpickling] in ember/_module_pickle.py: already
imported ``ember.nn.Module`` subclasses, no call of anything but the tensor rebuilds and plain constructors);
other classes need ``weights_only=False``. PyTorch 1.13's ``torch.load`` cannot read an Ember module's file (it
names Ember's classes); the state dict is the format to exchange with PyTorch.

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

__all__ = ["save", "load", "PickledObject", "checkpoint_tensors"]


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


def save(obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True, *, format=None):
    r"""Saves obj to the file f (PyTorch's ``torch.save``), in Ember's file format or, with ``format="torch"``,
    in torch.save's zip format.

    ``format="torch"`` writes what PyTorch 1.13's ``torch.load(f)`` reads (and ``torch.load(f,
    weights_only=True)`` too when the object holds no floats: that unpickler of 1.13 refuses them): tensors
    (views sharing a storage stay shared), Parameters, state dicts (OrderedDicts with their ``_metadata``),
    ember.Size, dtypes and nested containers. Ember's own format stays the default because it is read without
    any unpickling also by older Ember builds and keeps namedtuples; ``ember.load`` reads both (and torch.save's
    files) by content, so the choice matters only for files meant for PyTorch.

    Writing to a path is atomic: the archive goes to a temporary file in the same directory that replaces
    ``f`` only when it is complete; on any error it is removed and an existing ``f`` is left as it was.

    An object that Ember's format does not hold (a whole ``nn.Module``, a checkpoint dict holding one, a set, a
    custom class) is pickled into torch.save's zip format as ``torch.save`` does, whatever ``format`` says (Note
    [whole objects]); ``ember.load`` reads it back, by default when it holds modules and plain data only.

    Args:
        obj: tensors, None, bool, int, float, str, dtypes, ember.Size, and lists, tuples, namedtuples, dicts
            and OrderedDicts of them in Ember's format; any other picklable object with Python's pickle.
        f (str, os.PathLike or file-like): a path, or an object with ``write(b)`` (e.g. ``io.BytesIO`` or an
            open binary file), which receives the archive (written whole to a temporary file in TMPDIR first,
            then read back) as read-only memoryviews of at most 4 MiB each, valid during the call only. A
            file-like object is written directly, not atomically. When ``write`` returns a count smaller than
            it was given, the rest is written again, as Python's buffered streams do with a raw stream; a
            return of None counts as everything written (Note [short writes] in python/csrc/serialization.cpp).
        pickle_module, pickle_protocol, _use_new_zipfile_serialization: accepted for compatibility with
            torch.save and ignored.
        format (str, optional): ``"ember"`` (the default) or ``"torch"``, for objects that either holds. An
            object that is not made of tensors, numbers, strings and containers (a whole ``nn.Module``, a custom
            class, NumPy arrays) is written with Python's pickle in torch.save's format with either.

    Raises:
        TypeError: an object that neither Ember's format nor Python's pickle can write (the message names the
            type, where it is, e.g. ``obj['a'][2]``, and pickle's error); a tensor subclass other than
            Parameter; an ember.Size holding a non-int.
        ValueError: an int beyond 64 bits, a reference cycle, nesting deeper than 1000 containers.
        RuntimeError: the file cannot be written.
        OSError: ``f.write`` wrote nothing, or returned a negative count or one larger than it was given (the
            message names f; what f received so far is an incomplete archive). TypeError when it returned
            something other than an int or None.
    """
    if format not in (None, "ember", "torch"):
        raise ValueError(f"ember.save: format must be 'ember' or 'torch', got {format!r}")
    if isinstance(f, (str, bytes, os.PathLike)):
        f = os.fsdecode(os.fspath(f))
    elif not hasattr(f, "write"):
        raise TypeError(f"ember.save: f must be a path or a writable file-like object, got {type(f).__name__}")
    try:
        if format == "torch":
            _C._save_torch(obj, f, _classes())
        elif isinstance(f, str):
            _C._save(obj, f, _classes())
        else:
            _C._save_to(obj, f, _classes())
    except TypeError as e:
        if not _pickled_instead(e):
            raise
        # An object that is not tensors, numbers, strings and containers of them (a whole nn.Module, a custom
        # class, a set): Python's pickle in torch.save's zip format, as torch.save (Note [whole objects]).
        _save_pickled(obj, f, e)


def _pickled_instead(error):
    """Whether save's TypeError is about a type that Ember's formats do not hold (so that the object is pickled
    instead), rather than a bad value of a type they hold (a forged Size) or a tensor subclass, whose class the
    rebuild would lose."""
    msg = str(error)
    return ("has a key of type" in msg or
            ("cannot save an object of type" in msg and "only ember.Tensor and ember.nn.Parameter" not in msg))


def _save_pickled(obj, f, ember_error):
    """Writes obj with Python's pickle into torch.save's zip format (ember/_unsafe_pickle.py); what pickle cannot
    write (a lambda, a local class, an open file) raises TypeError with Ember's and pickle's messages."""
    import pickle
    from . import _unsafe_pickle
    try:
        data = _unsafe_pickle.dumps(obj)
    except (pickle.PicklingError, TypeError, AttributeError) as e:
        raise TypeError(f"{ember_error}; Python's pickle cannot write it either: {type(e).__name__}: {e}") from e
    if not isinstance(f, str):
        f.write(data)
        return
    # Atomic as Ember's own writer: a temporary file beside f replaces f only once complete.
    import tempfile
    fd, tmp = tempfile.mkstemp(prefix=".ember-save-", dir=os.path.dirname(os.path.abspath(f)))
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, f)
    except BaseException:
        os.unlink(tmp)
        raise


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    r"""Loads an object saved by :func:`save` or by PyTorch's ``torch.save`` (PyTorch's ``torch.load``).

    The format is recognised by content: Ember's archive, torch.save's zip format (PyTorch 1.6 and later) and
    its legacy format (``_use_new_zipfile_serialization=False`` and files before 1.6).

    **Loading is safe by default**: torch.save's pickles are read by Ember's own pickle reader
    (ember/serialize/Pickle.h), which runs nothing from the file and accepts only tensors, Parameters,
    storages, dtypes, devices, torch.Size, OrderedDict (state dicts with their ``_metadata``), numbers, strings,
    bytes, containers (list, tuple, dict, set, slice, complex) and NumPy arrays and scalars of numeric dtypes
    (read without NumPy's code). A file that it refuses is read again by a restricted unpickler (Note [module
    unpickling] in ember/_module_pickle.py) that also allows whole modules: subclasses of ``ember.nn.Module``
    whose module is already imported (``__main__.Net`` when the running program defines ``Net``; nothing is
    imported), PyTorch's ``torch.nn`` classes as Ember's same-named ones (so ``torch.save(model)`` files load as
    the Ember model), plain data (range, frozenset, bytearray, ...) and Ember's functions as referenced values
    (``F.relu`` kept on a module), calling nothing but the tensor rebuilds and plain constructors. Any other
    class or function (``os.system``, an optimizer object, a custom class, a module class whose module is not
    imported) raises ``pickle.UnpicklingError`` naming it; :func:`ember.utils.checkpoint_tensors` lists the
    tensors of such a file without running anything, and ``weights_only=False`` loads it with Python's pickle,
    which can run arbitrary code: only for files from a trusted source.

    Tensors come back on the CPU; tensors that were saved sharing a storage share one again.

    Args:
        f (str, os.PathLike or file-like): a path, or an object with ``read()`` (e.g. ``io.BytesIO``), read
            from its current position to the end.
        map_location: accepted for compatibility: None, ``'cpu'``, ``ember.device('cpu')``, a dict mapping
            location names to ``'cpu'``, or a callable (not called: every storage is already a CPU storage).
            Other devices raise RuntimeError (Ember has only the CPU). Storages saved on another device
            (``'cuda:0'``) load on the CPU.
        weights_only (bool, optional): None (the default): the safe reader, then the restricted unpickler for
            whole modules. True: the safe reader only (tensors and containers; a pickled module is refused, as
            PyTorch's ``weights_only=True`` does). False: torch.save files are read with Python's pickle module
            (with a warning), so any pickled object loads.
        pickle_module, mmap, pickle_load_args: accepted for compatibility and ignored.

    Raises:
        FileNotFoundError: no file at the path.
        IsADirectoryError: the path is a directory.
        pickle.UnpicklingError: a torch.save file that holds a class or function outside the allow-list (the
            message names it and says why: not allowed, its module not imported, not in Ember).
        RuntimeError: the file is not one Ember reads or is corrupt (the message names the file and the
            problem: not a zip archive, missing entry, truncated pickle, unknown format version or dtype, a
            tensor that does not fit its storage, ...).
    """
    _check_map_location(map_location)
    source, name = _source(f)
    fmt = _format_of(source, name)
    if fmt in ("torch_zip", "torch_legacy"):
        if weights_only is False:
            return _unsafe_load(source, name)
        if weights_only is None:
            return _load_torch_or_module(source, name)
        return _load_torch(source, name)
    value = _C._load(source, name, _classes())
    return _jit_or_value(value, source)


def _source(f):
    """(path str or bytes, name for messages) of load's argument."""
    if isinstance(f, (str, bytes, os.PathLike)):
        path = os.fsdecode(os.fspath(f))
        if not os.path.exists(path):
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        if os.path.isdir(path):
            raise IsADirectoryError(errno.EISDIR, "Is a directory", path)
        return path, path
    if hasattr(f, "read"):
        data = f.read()
        if not isinstance(data, bytes):
            raise TypeError("ember.load: the file-like object must be opened in binary mode")
        return data, getattr(f, "name", "<file-like object>")
    raise TypeError(f"ember.load: f must be a path or a readable file-like object, got {type(f).__name__}")


def _format_of(source, name):
    """'ember', 'torch_zip', 'torch_legacy', 'safetensors', 'gguf' or 'unknown', by content."""
    if isinstance(source, bytes):
        head = source[:16]
    else:
        with open(source, "rb") as fh:
            head = fh.read(16)
    fmt = _C._file_format(head)
    if fmt == "zip":
        fmt = _C._zip_format(source, name)
    return fmt


class PickledObject:
    """An inert stand-in for an object of a class that Ember's pickle reader does not construct (Note [safe
    unpickling] in ember/serialize/Pickle.h): nothing of the class runs. ``class_name`` is its
    ``module.qualname``; ``args`` what its constructor would have been given, ``state`` what
    ``__setstate__`` would have been given, ``items`` / ``dictitems`` what was appended or set on it (list and
    dict subclasses). ``is_class`` is True for a reference to the class itself rather than an instance."""

    __slots__ = ("class_name", "args", "state", "items", "dictitems", "is_class")

    def __init__(self, class_name, args=(), state=None, items=(), dictitems=None, is_class=False):
        self.class_name = class_name
        self.args = args
        self.state = state
        self.items = list(items)
        self.dictitems = dict(dictitems or {})
        self.is_class = is_class

    def __repr__(self):
        return f"PickledObject({self.class_name})"


def _torch_classes():
    from . import device
    from ._size import Size
    from .nn.parameter import Parameter
    return (Parameter, Size, PickledObject, device)


_UNSAFE_HINT = (
    "Weights only load failed. This file can still be loaded, to do so you have two options, do those steps "
    "only if you trust the source of the checkpoint. (1) Re-running `ember.load` with `weights_only` set to "
    "`False` will likely succeed, but it can result in arbitrary code execution. Do it only if you got the "
    "file from a trusted source. (2) `ember.utils.checkpoint_tensors(f)` returns every tensor of the file "
    "under its attribute path without running anything.\nPlease file an issue with the following so that "
    "we can make `weights_only=True` compatible with your use case: ")


def _load_torch(source, name, placeholders=False):
    import pickle
    try:
        return _C._load_torch(source, name, _torch_classes(), placeholders)
    except RuntimeError as e:
        if "is not allowed" in str(e):
            raise pickle.UnpicklingError(_UNSAFE_HINT + "WeightsUnpickler error: " + str(e)) from None
        raise


def _load_torch_or_module(source, name):
    """weights_only=None: the safe reader, and for a file that it refuses (a pickled module) the restricted
    unpickler of Note [module unpickling] (ember/_module_pickle.py)."""
    import pickle
    try:
        return _load_torch(source, name)
    except pickle.UnpicklingError:
        pass
    from . import _module_pickle
    try:
        return _module_pickle.load(source, name)
    except pickle.UnpicklingError as e:
        raise pickle.UnpicklingError(_UNSAFE_HINT + "WeightsUnpickler error: " + str(e)) from None


def _unsafe_load(source, name):
    """weights_only=False: Python's pickle over torch.save's formats (ember/_unsafe_pickle.py)."""
    warnings.warn(
        "You are using `ember.load` with `weights_only=False`, which uses the default pickle module implicitly. "
        "It is possible to construct malicious pickle data which will execute arbitrary code during unpickling "
        "(See https://github.com/pytorch/pytorch/blob/main/SECURITY.md#untrusted-models for more details). "
        "Only load files from a trusted source this way.", FutureWarning, stacklevel=3)
    from . import _unsafe_pickle
    return _unsafe_pickle.load(source, name)


def checkpoint_tensors(f):
    r"""Every tensor of a torch.save file under its attribute path, without running anything from it.

    The migration path for checkpoints that hold pickled Python objects (a whole ``nn.Module``, a training
    state object), which :func:`load` refuses by default: their classes are read as inert placeholders and
    only the tensors are returned. Paths join dict keys, list indices and attribute names with dots; an
    ``nn.Module``'s ``_parameters``, ``_buffers`` and ``_modules`` add no step, so a pickled module gives the
    keys of its ``state_dict()`` (``model.0.weight``, ...). A tensor reachable twice is listed once; NumPy arrays
    are listed as tensors.

    Args:
        f (str, os.PathLike or file-like): a torch.save file (zip or legacy format).

    Returns:
        collections.OrderedDict: path -> tensor, in the order met.

    Raises:
        RuntimeError: not a torch.save file, or a corrupt one (naming the file and the problem).
    """
    import collections
    source, name = _source(f)
    return collections.OrderedDict(_C._checkpoint_tensors(source, name))


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
