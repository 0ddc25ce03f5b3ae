"""The legacy tensor types of PyTorch's top level (``torch.FloatTensor``, ``torch.LongTensor``, ...): classes
whose call makes a tensor of their dtype (``FloatTensor(2, 3)`` uninitialized, ``LongTensor([1, 2])`` from
data) and against which ``isinstance`` tests a tensor's dtype, as in PyTorch. The tensors made are plain
ember.Tensor objects."""
import builtins

from . import _C
from ._size import Size
from ._tensor import Tensor

__all__ = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor", "CharTensor",
           "ShortTensor", "IntTensor", "LongTensor", "BoolTensor"]


class _LegacyTensorType(type):
    """The metaclass of the legacy types (PyTorch's torch.tensortype)."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype == cls.dtype

    def __call__(cls, *args, device=None):
        r"""A tensor of cls.dtype: no arguments, an empty one; sizes (ints or a Size), an uninitialized one; a
        sequence or array, a copy of its values; a tensor of this dtype, an alias of it.

        Raises:
            TypeError: a tensor of another dtype; data that is no sequence or number; sizes that are not ints.
            RuntimeError: a negative size.
        """
        if device is not None and _C.device(device).type != "cpu":
            raise RuntimeError(f"legacy constructor expects device type: cpu but device type: "
                               f"{_C.device(device).type} was passed")
        dtype = cls.dtype
        if not args:
            return _C._functions["empty"]((0,), dtype=dtype)
        first = args[0]
        if len(args) == 1 and isinstance(first, Tensor):
            if first.dtype != dtype:
                raise TypeError(f"expected {cls.__name__} (dtype {dtype}), got a tensor of dtype {first.dtype}")
            return first.detach()
        if len(args) == 1 and isinstance(first, Size):
            return _C._functions["empty"](tuple(first), dtype=dtype)
        if all(isinstance(a, builtins.int) and not isinstance(a, builtins.bool) for a in args):
            for a in args:
                if a < 0:
                    raise RuntimeError(f"Trying to create tensor with negative dimension {a}: {list(args)}")
            return _C._functions["empty"](tuple(args), dtype=dtype)
        if len(args) == 1:
            if isinstance(first, (str, bytes)):
                raise TypeError(f"new(): invalid data type '{type(first).__name__}'")
            return _C.tensor(first, dtype=dtype)
        bad = next(i for i, a in enumerate(args) if not isinstance(a, builtins.int))
        raise TypeError(f"new(): argument 'size' must be tuple of ints, but found element of type "
                        f"{type(args[bad]).__name__} at pos {bad + 1}")

    def __repr__(cls):
        return f"<class 'ember.{cls.__name__}'>"


def _make(name, dtype):
    return _LegacyTensorType(name, (), {"dtype": dtype, "is_sparse": False, "is_cuda": False, "__module__": "ember",
                                        "__doc__": f"Legacy constructor and isinstance check of {dtype} tensors."})


FloatTensor = _make("FloatTensor", _C.float32)
DoubleTensor = _make("DoubleTensor", _C.float64)
HalfTensor = _make("HalfTensor", _C.float16)
BFloat16Tensor = _make("BFloat16Tensor", _C.bfloat16)
ByteTensor = _make("ByteTensor", _C.uint8)
CharTensor = _make("CharTensor", _C.int8)
ShortTensor = _make("ShortTensor", _C.int16)
IntTensor = _make("IntTensor", _C.int32)
LongTensor = _make("LongTensor", _C.int64)
BoolTensor = _make("BoolTensor", _C.bool)

_BY_NAME = {n: globals()[n] for n in __all__}


def legacy_type(name_or_type):
    """The dtype of a legacy type, or of its name ('torch.FloatTensor', 'ember.IntTensor'); None when it is
    neither."""
    if isinstance(name_or_type, _LegacyTensorType):
        return name_or_type.dtype
    if isinstance(name_or_type, str):
        module, _, name = name_or_type.rpartition(".")
        cls = _BY_NAME.get(name) if module in ("torch", "ember") else None
        return None if cls is None else cls.dtype
    return None
