"""The names that pickles of Ember's objects refer to (PyTorch's torch._utils): the tensor and parameter rebuild
functions and the storage classes that ember.save writes into torch.save's zip format when it pickles an object
that Ember's archive cannot hold (a whole nn.Module, a custom class). Ember's safe reader maps these names to the
same allow-listed rebuilds as torch._utils' (Note [safe unpickling] in ember/serialize/Pickle.h); Python's pickle
(ember.load(f, weights_only=False)) calls them."""
import collections


class _StorageClass(type):
    """The metaclass of the storage classes: each stands for a dtype while (un)pickling."""


def _storage_class(name, dtype_name):
    return _StorageClass(name, (), {"dtype_name": dtype_name, "__module__": __name__, "__qualname__": name})


STORAGE_CLASSES = {dtype_name: _storage_class(name, dtype_name) for name, dtype_name in [
    ("ByteStorage", "uint8"), ("CharStorage", "int8"), ("ShortStorage", "int16"), ("IntStorage", "int32"),
    ("LongStorage", "int64"), ("HalfStorage", "float16"), ("FloatStorage", "float32"),
    ("DoubleStorage", "float64"), ("BoolStorage", "bool"), ("BFloat16Storage", "bfloat16")]}
globals().update({cls.__name__: cls for cls in STORAGE_CLASSES.values()})


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None,
                       metadata=None):
    t = storage.flat.as_strided(tuple(size), tuple(stride), storage_offset)
    if requires_grad:
        t.requires_grad_(True)
    return t


_rebuild_tensor = _rebuild_tensor_v2


def _rebuild_parameter(data, requires_grad, backward_hooks, state=None):
    from .nn import Parameter
    return Parameter(data, requires_grad)


def _rebuild_from_type_v2(func, new_type, args, state):
    return func(*args)


def empty_hooks():
    return collections.OrderedDict()
