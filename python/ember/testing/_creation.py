"""make_tensor: random test inputs of a shape and dtype (PyTorch 1.13's torch.testing.make_tensor)."""
import collections.abc
import math

from .. import _C
from .._dtype_info import finfo, iinfo

__all__ = ["make_tensor"]

_INTEGRAL = (_C.uint8, _C.int8, _C.int16, _C.int32, _C.int64)
_FLOATING = (_C.float16, _C.bfloat16, _C.float32, _C.float64)


def _range(low, high, lowest, highest, default_low, default_high, integral):
    """[low, high) from the given bounds or the defaults, clamped to the dtype's finite range."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if low != low or high != high:
        raise ValueError("make_tensor: one of low or high was NaN!")
    if low > high:
        raise ValueError("make_tensor: low must be weakly less than high!")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    return (math.floor(low), math.ceil(high)) if integral else (low, high)


def make_tensor(*shape, dtype, device=None, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False):
    r"""A tensor of the given shape and dtype with values drawn uniformly from [low, high).

    Args:
        shape: sizes as integers or one sequence.
        dtype (ember.dtype): bool, an integer or a floating dtype.
        device: where the tensor lives (the CPU).
        low, high (number): the range, clamped to the dtype's finite values; defaults: bool [0, 2), uint8
            [0, 10), signed integers [-9, 10), floating [-9, 9). Integer bounds round outward.
        requires_grad (bool): a floating tensor that requires grad.
        noncontiguous (bool): a non-contiguous tensor (every other element of a buffer twice as long in the last
            dim) when it has more than one element.
        exclude_zero (bool): zeros become 1 (bool, integers) or the dtype's smallest normal value (floating).

    Raises:
        ValueError: requires_grad with a non-floating dtype; low > high; a NaN bound.
        TypeError: a dtype make_tensor does not support.
    """
    fns = _C._functions
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if requires_grad and dtype not in _FLOATING:
        raise ValueError("make_tensor: requires_grad must be False for integral dtype")
    if dtype is _C.bool:
        result = fns["randint"](0, 2, shape, dtype=dtype, device=device)
    elif dtype in _INTEGRAL:
        info = iinfo(dtype)
        low, high = _range(low, high, info.min, info.max, 0 if dtype is _C.uint8 else -9, 10, True)
        result = fns["randint"](low, high, shape, dtype=dtype, device=device)
    elif dtype in _FLOATING:
        info = finfo(dtype)
        low, high = _range(low, high, info.min, info.max, -9, 9, False)
        u = fns["rand"](shape, dtype=dtype, device=device)
        result = high * u + low * (1 - u)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor(). To request "
                        "support, file an issue at: https://github.com/pytorch/pytorch/issues")
    if noncontiguous and result.numel() > 1:
        result = fns["repeat_interleave"](result, 2, dim=-1)[..., ::2]
    if exclude_zero:
        replacement = 1 if dtype not in _FLOATING else finfo(dtype).tiny
        result.masked_fill_(result == 0, replacement)  # in place: a non-contiguous result stays so
    if dtype in _FLOATING:
        result.requires_grad_(requires_grad)
    return result
