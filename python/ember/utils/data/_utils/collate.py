"""Collation: merging the samples of a batch into batched tensors (``default_collate``), and converting one
sample's NumPy data to tensors when automatic batching is off (``default_convert``), as PyTorch 1.13's
``torch.utils.data`` does, including its dtypes (Python floats become float64, Python ints int64).
"""
import collections.abc
import re

import ember

try:
    import numpy as _np
except ImportError:  # NumPy is optional: without it, no NumPy type can reach the collate functions
    _np = None

__all__ = ["collate", "default_collate", "default_collate_fn_map", "default_convert"]

# NumPy dtype strings of bytes, unicode and object arrays: such arrays have no tensor equivalent.
_NP_NON_NUMERIC = re.compile(r"[SaUO]")
_STRING_TYPES = (str, bytes)

_ERR_FORMAT = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def _is_numpy_value(obj):
    """True for NumPy arrays and NumPy scalars other than its string scalars."""
    cls = type(obj)
    return cls.__module__ == "numpy" and cls.__name__ not in ("str_", "string_", "bytes_")


def _as_tensor(data):
    """A tensor of NumPy data: an array shares its memory (``ember.from_numpy``); a NumPy scalar or a list of
    them is copied with its NumPy dtype. Raises TypeError for a dtype Ember has no tensor type for."""
    if _np is not None and isinstance(data, _np.ndarray):
        return ember.from_numpy(data)
    return ember.tensor(data)


def _is_namedtuple(obj):
    return isinstance(obj, tuple) and hasattr(obj, "_fields")


def _rebuild(container, items):
    """items in a container of container's type, or in a plain list/dict when that type cannot be built from
    one iterable (e.g. a custom Sequence whose constructor takes other arguments)."""
    try:
        return type(container)(items)
    except TypeError:
        return items


def default_convert(data):
    """Converts NumPy data in one sample to tensors; used as the DataLoader's collate_fn when automatic
    batching is off (``batch_size=None`` and no batch_sampler).

    Tensors are returned as they are; a NumPy array becomes a tensor sharing its memory and a NumPy scalar a
    0-dim tensor (arrays of strings or objects stay arrays); mappings, namedtuples and sequences are converted
    element-wise, keeping their type where it can be rebuilt (a plain tuple becomes a list, as in PyTorch);
    strings and anything else are returned unchanged.
    """
    if isinstance(data, ember.Tensor):
        return data
    if _is_numpy_value(data):
        if isinstance(data, _np.ndarray) and _NP_NON_NUMERIC.search(data.dtype.str):
            return data
        return _as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild(data, {key: default_convert(data[key]) for key in data})
    if _is_namedtuple(data):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, _STRING_TYPES):
        return _rebuild(data, [default_convert(d) for d in data])
    return data


def collate(batch, *, collate_fn_map=None):
    """Collates a batch (a list of samples of one structure) by the type of its first sample.

    A type found in collate_fn_map (exactly, else the first key it is an instance of) is handed to that
    function, called as ``fn(batch, collate_fn_map=collate_fn_map)``. Otherwise containers recurse: a mapping
    gives a mapping of collated values per key, a namedtuple a namedtuple of collated fields, and any other
    sequence a list (tuples) or a sequence of its own type of collated positions ("transposed" batch).

    Raises:
        RuntimeError: sequences of different lengths in the batch.
        TypeError: an element of a type neither in the map nor a container.
    """
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        fn = collate_fn_map.get(elem_type)
        if fn is None:
            fn = next((f for t, f in collate_fn_map.items() if isinstance(elem, t)), None)
        if fn is not None:
            return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild(elem, {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map)
                               for key in elem})
    if _is_namedtuple(elem):
        return elem_type(*(collate(field, collate_fn_map=collate_fn_map) for field in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(sample) != size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        # zip's tuples are passed on as they are: a column of strings stays a tuple, as in PyTorch
        columns = [collate(column, collate_fn_map=collate_fn_map) for column in zip(*batch)]
        return columns if isinstance(elem, tuple) else _rebuild(elem, columns)
    raise TypeError(_ERR_FORMAT.format(elem_type))


def _collate_tensors(batch, *, collate_fn_map=None):
    # A plain stack also in workers: the batch reaches the main process by pickling (no shared memory).
    return ember.stack(batch, 0)


def _collate_numpy_arrays(batch, *, collate_fn_map=None):
    if _NP_NON_NUMERIC.search(batch[0].dtype.str):
        raise TypeError(_ERR_FORMAT.format(batch[0].dtype))
    return collate([_as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def _collate_numpy_scalars(batch, *, collate_fn_map=None):
    return _as_tensor(batch)


def _collate_floats(batch, *, collate_fn_map=None):
    return ember.tensor(batch, dtype=ember.float64)


def _collate_ints(batch, *, collate_fn_map=None):
    return ember.tensor(batch)


def _collate_strings(batch, *, collate_fn_map=None):
    return batch


# The element types default_collate handles and how; update it in place to extend default_collate.
default_collate_fn_map = {ember.Tensor: _collate_tensors}
if _np is not None:
    default_collate_fn_map[_np.ndarray] = _collate_numpy_arrays
    default_collate_fn_map[(_np.bool_, _np.number, _np.object_)] = _collate_numpy_scalars
default_collate_fn_map[float] = _collate_floats
default_collate_fn_map[int] = _collate_ints
default_collate_fn_map[_STRING_TYPES] = _collate_strings


def default_collate(batch):
    """Merges a list of samples into a batch; the DataLoader's collate_fn under automatic batching.

    By the type of the samples' elements:

    - Tensor of shape S -> Tensor of shape (len(batch), *S) (``ember.stack``; shapes must agree).
    - NumPy array -> stacked tensor of its dtype; NumPy scalars -> 1-D tensor of their dtype.
    - float -> float64 tensor; int -> int64 tensor (bool -> bool tensor).
    - str / bytes -> the list unchanged.
    - Mapping -> same mapping type with each value collated; namedtuple -> same namedtuple type with each
      field collated; tuple -> list of collated positions; other sequences -> same type (or list) of
      collated positions.

    Raises:
        RuntimeError: tensors of different shapes, or sequences of different lengths.
        TypeError: an element of another type, or a NumPy array of strings/objects.
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
