"""ember.finfo / ember.iinfo: the numerical limits of floating and integer dtypes (PyTorch's torch.finfo and
torch.iinfo). float16/float32/float64 come from NumPy's finfo (IEEE 754 binary16/32/64); bfloat16 (8 exponent
bits like float32, 7 explicit mantissa bits) is written out: eps = 2**-7, max = (2 - 2**-7) * 2**127,
tiny = 2**-126, resolution = 10**-floor(-log10(eps)) = 0.01 as PyTorch defines it."""
import math

from . import _C

# NumPy is imported on the first finfo() call, not with `import ember` (it would double the import time).
_NUMPY_FLOAT = {_C.float16: "float16", _C.float32: "float32", _C.float64: "float64"}
_INT_BITS = {_C.uint8: 8, _C.int8: 8, _C.int16: 16, _C.int32: 32, _C.int64: 64}


def _dtype_name(dtype):
    return str(dtype).split(".")[-1]


def _check_dtype(api, dtype):
    if not isinstance(dtype, _C.dtype):
        raise TypeError(f"{api}(): argument 'type' (position 1) must be ember.dtype, not {type(dtype).__name__}")


_DEFAULT = object()


class finfo:
    """Limits of a floating dtype: ``bits``, ``eps`` (smallest x with 1 + x != 1), ``max``, ``min`` (= -max),
    ``tiny`` and ``smallest_normal`` (smallest positive normal number), ``resolution`` (10**-precision) and
    ``dtype`` (its name). ``finfo()`` describes the default dtype. Raises TypeError for a non-floating dtype."""

    __module__ = "ember"

    def __init__(self, type=_DEFAULT):  # noqa: A002  (PyTorch's parameter name)
        # finfo() is the default dtype's; finfo(None) is a TypeError, as PyTorch's.
        dtype = _C.get_default_dtype() if type is _DEFAULT else type
        _check_dtype("finfo", dtype)
        if dtype in (_C.complex64, _C.complex128):  # the limits of the parts' dtype, as PyTorch's
            dtype = _C.float32 if dtype == _C.complex64 else _C.float64
        if dtype == _C.bfloat16:
            self.bits, self.eps = 16, 2.0**-7
            self.max, self.tiny = (2.0 - 2.0**-7) * 2.0**127, 2.0**-126
        elif dtype in _NUMPY_FLOAT:
            import numpy as np

            info = np.finfo(_NUMPY_FLOAT[dtype])
            self.bits, self.eps = info.bits, float(info.eps)
            self.max, self.tiny = float(info.max), float(info.tiny)
        else:
            raise TypeError("ember.finfo() requires a floating point input type. Use ember.iinfo to handle "
                            f"'{_dtype_name(dtype)}'")
        self.min = -self.max
        self.smallest_normal = self.tiny
        self.resolution = 10.0 ** -math.floor(-math.log10(self.eps))
        self.dtype = _dtype_name(dtype)

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    __hash__ = None  # as torch.finfo: comparable, not hashable

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype: ``bits``, ``min``, ``max`` and ``dtype`` (its name). Raises TypeError for
    bool and for floating dtypes."""

    __module__ = "ember"

    def __init__(self, type):  # noqa: A002
        _check_dtype("iinfo", type)
        if type == _C.bool:
            raise TypeError("ember.bool is not supported by ember.iinfo")
        if type not in _INT_BITS:
            raise TypeError("ember.iinfo() requires an integer input type. Use ember.finfo to handle "
                            f"'{_dtype_name(type)}'")
        self.bits = _INT_BITS[type]
        signed = type != _C.uint8
        self.min = -(1 << (self.bits - 1)) if signed else 0
        self.max = (1 << (self.bits - 1)) - 1 if signed else (1 << self.bits) - 1
        self.dtype = _dtype_name(type)

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    __hash__ = None

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
