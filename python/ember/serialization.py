"""ember.save and ember.load: Ember's archive format (a zip file with a JSON manifest and the raw tensor bytes,
written and read by the C++ library, ``ember/serialize``, so C++ programs share the files).

What can be saved: tensors (``ember.Tensor`` and ``ember.nn.Parameter``), None, bool, int (64-bit), float,
str, dtypes, and lists, tuples, dicts and ``collections.OrderedDict`` of them, nested (dict keys str or int).
That covers ``Module.state_dict()`` and ``Optimizer.state_dict()``. Unlike ``torch.save`` nothing is pickled:
loading a file never runs code from it, and other Python objects are refused with a TypeError.

Semantics shared with torch.save/torch.load: tensors that share a storage (a tensor and its views, the same
tensor listed twice) load sharing one storage with the same sizes, strides and offsets, and the same tensor
object listed twice loads as one object; ``requires_grad`` is kept (gradients are not saved); Parameters load
as Parameters; an OrderedDict state dict loads as an OrderedDict with its ``_metadata``. A container listed
twice (the same list object at two places) loads as two equal copies, and reference cycles raise ValueError.
"""
import errno
import os

from . import _C

__all__ = ["save", "load"]


def _parameter_class():
    from .nn.parameter import Parameter  # late: ember.nn imports ember
    return Parameter


def save(obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True):
    r"""Saves obj to the file f in Ember's archive format (PyTorch's ``torch.save``).

    Writing to a path is atomic: the archive goes to a temporary file in the same directory that replaces
    ``f`` only when it is complete; on any error it is removed and an existing ``f`` is left as it was.

    Args:
        obj: tensors, None, bool, int, float, str, dtypes, and lists, tuples, dicts and OrderedDicts of them.
        f (str, os.PathLike or file-like): a path, or an object with ``write(b)`` (e.g. ``io.BytesIO`` or an
            open binary file), which receives the archive in pieces as read-only memoryviews (one per tensor
            storage, straight from the tensor's memory, plus small headers), valid during the call only. A
            file-like object is written directly, not atomically.
        pickle_module, pickle_protocol, _use_new_zipfile_serialization: accepted for compatibility with
            torch.save and ignored (nothing is pickled).

    Raises:
        TypeError: an object of another type, or a dict key that is not str or int (the message names the type
            and where it is, e.g. ``obj['a'][2]``).
        ValueError: an int beyond 64 bits, a reference cycle, nesting deeper than 1000 containers.
        RuntimeError: the file cannot be written.
    """
    if isinstance(f, (str, bytes, os.PathLike)):
        path = os.fsdecode(os.fspath(f))
        _C._save(obj, path, _parameter_class())
    elif hasattr(f, "write"):
        _C._save_to(obj, f.write, _parameter_class())
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
        return _C._load(path, path, _parameter_class())
    if hasattr(f, "read"):
        data = f.read()
        if not isinstance(data, bytes):
            raise TypeError("ember.load: the file-like object must be opened in binary mode")
        return _C._load(data, getattr(f, "name", "<file-like object>"), _parameter_class())
    raise TypeError(f"ember.load: f must be a path or a readable file-like object, got {type(f).__name__}")


def _check_map_location(map_location):
    if map_location is None or callable(map_location):
        # A callable (storage, location) -> storage only ever sees CPU storages here; it is not called.
        return
    targets = map_location.values() if isinstance(map_location, dict) else [map_location]
    for target in targets:
        if str(target) not in ("cpu", "cpu:0"):
            raise RuntimeError(f"ember.load: map_location {map_location!r}: Ember has only the CPU device")
