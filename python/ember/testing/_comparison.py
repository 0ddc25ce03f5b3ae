"""assert_close: PyTorch 1.13's torch.testing.assert_close for Ember tensors, numbers and containers of them.

Inputs are matched up recursively (sequences item by item, mappings key by key) into pairs of leaves; each pair
is None/None, bool/bool, number/number or tensor-like/tensor-like (tensors, or two objects ``as_tensor`` takes,
such as NumPy arrays). Every pair is compared and the first failure is raised with PyTorch's message, naming the
item (``The failure occurred for item [1]['w']``) when the inputs were containers.
"""
import cmath
import collections.abc
import math
import sys

from .. import _C
from .._tensor import Tensor

__all__ = ["assert_close"]

# Default (rtol, atol) by dtype, PyTorch's table; other dtypes (integers, bool) compare exactly.
_TOLERANCES = {
    _C.float16: (1e-3, 1e-5),
    _C.bfloat16: (1.6e-2, 1e-5),
    _C.float32: (1.3e-6, 1e-5),
    _C.float64: (1e-7, 1e-7),
}
# The dtype a Python number stands for when its default tolerance is looked up.
_NUMBER_DTYPES = {int: _C.int64, float: _C.float64, complex: None}


class _Failure(Exception):
    """A failed comparison: the exception type to raise, its message and the item path it occurred at."""

    def __init__(self, kind, message, path=()):
        super().__init__(message)
        self.kind, self.message, self.path = kind, message, path

    def to_error(self, msg=None):
        if isinstance(msg, str):
            return self.kind(msg)
        text = self.message
        if self.path:
            text += "\n\nThe failure occurred for item " + "".join(f"[{p!r}]" for p in self.path)
        return self.kind(msg(text) if callable(msg) else text)


class _Unsupported(Exception):
    """The inputs are not of the kind a comparer handles (the next one is tried)."""


def _tolerances(dtypes, rtol, atol, path):
    """(rtol, atol): the given pair, or the loosest defaults of dtypes when both are omitted."""
    if (rtol is None) != (atol is None):
        raise _Failure(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                                   f"{'rtol' if rtol is None else 'atol'}.", path)
    if rtol is not None:
        return rtol, atol
    defaults = [_TOLERANCES.get(d, (1e-7, 1e-7) if d is None else (0.0, 0.0)) for d in dtypes]
    return max(r for r, _ in defaults), max(a for _, a in defaults)


def _mismatch_message(what, rtol, atol, abs_diff, rel_diff, abs_at=None, rel_at=None, extra=None):
    """PyTorch's mismatch report: header, optional element count, greatest absolute and relative difference."""
    exact = rtol == 0 and atol == 0
    lines = [f"{what} are not {'equal' if exact else 'close'}!", ""]
    if extra:
        lines.append(extra)
    for kind, diff, at, tol in (("absolute", abs_diff, abs_at, atol), ("relative", rel_diff, rel_at, rtol)):
        line = f"{kind.title()} difference: {diff}" if at is None else \
            f"Greatest {kind} difference: {diff} at index {at}"
        lines.append(line if exact else line + f" (up to {tol} allowed)")
    return "\n".join(lines).strip()


def _scalar_message(actual, expected, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = math.inf if expected == 0 else abs_diff / abs(expected)
    return _mismatch_message("Scalars", rtol, atol, abs_diff, rel_diff)


def _compare_none(actual, expected, path, **_):
    if actual is not None and expected is not None:
        raise _Unsupported()
    if actual is not expected:
        raise _Failure(AssertionError, f"None mismatch: {actual} is not {expected}", path)


def _numpy_kinds(*names):
    """NumPy's scalar types called names, or () when NumPy is not loaded (then no input can be a NumPy value;
    `import ember` does not load NumPy)."""
    np = sys.modules.get("numpy")
    return tuple(getattr(np, n) for n in names) if np is not None else ()


def _compare_bools(actual, expected, path, **_):
    kinds = (bool,) + _numpy_kinds("bool_")
    if not (isinstance(actual, kinds) and isinstance(expected, kinds)):
        raise _Unsupported()
    if bool(actual) is not bool(expected):
        raise _Failure(AssertionError, f"Booleans mismatch: {bool(actual)} is not {bool(expected)}", path)


def _compare_numbers(actual, expected, path, rtol=None, atol=None, equal_nan=False, check_dtype=True, **_):
    number = _numpy_kinds("number")
    kinds = (int, float, complex) + number
    if not (isinstance(actual, kinds) and isinstance(expected, kinds)) or isinstance(actual, bool) or \
            isinstance(expected, bool):
        raise _Unsupported()
    actual, expected = [x.item() if number and isinstance(x, number) else x for x in (actual, expected)]
    rtol, atol = _tolerances([_NUMBER_DTYPES[type(x)] for x in (actual, expected)], rtol, atol, path)
    if check_dtype and type(actual) is not type(expected):
        raise _Failure(AssertionError, f"The (d)types do not match: {type(actual)} != {type(expected)}.", path)
    if actual == expected or (equal_nan and cmath.isnan(actual) and cmath.isnan(expected)):
        return
    diff = abs(actual - expected)
    if cmath.isfinite(diff) and diff <= atol + rtol * abs(expected):
        return
    raise _Failure(AssertionError, _scalar_message(actual, expected, rtol, atol), path)


def _as_tensor(x):
    if isinstance(x, Tensor):
        return x
    try:
        return _C._functions["as_tensor"](x) if "as_tensor" in _C._functions else _C.tensor(x)
    except Exception:
        raise _Unsupported() from None


def _unravel(flat, shape):
    index = []
    for size in reversed(shape):
        flat, rest = divmod(flat, size)
        index.append(rest)
    return tuple(reversed(index))


def _compare_tensors(actual, expected, path, rtol=None, atol=None, equal_nan=False, check_device=True,
                     check_dtype=True, check_layout=True, check_stride=False, allow_subclasses=True, **_):
    if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
        raise _Unsupported()
    if not allow_subclasses and type(actual) is not type(expected):
        raise _Unsupported()
    actual, expected = _as_tensor(actual), _as_tensor(expected)
    rtol, atol = _tolerances([actual.dtype, expected.dtype], rtol, atol, path)

    def mismatch(attribute, a, e):
        raise _Failure(AssertionError, f"The values for attribute '{attribute}' do not match: {a} != {e}.", path)

    if actual.shape != expected.shape:
        mismatch("shape", actual.shape, expected.shape)
    if check_stride and actual.stride() != expected.stride():
        mismatch("stride()", actual.stride(), expected.stride())
    if check_device and actual.device != expected.device:
        mismatch("device", actual.device, expected.device)
    if check_dtype and actual.dtype != expected.dtype:
        mismatch("dtype", actual.dtype, expected.dtype)
    # Values are compared in the widest dtype of their kind (a common dtype first when check_dtype is off).
    wide = _C.float64 if _C.promote_types(actual.dtype, expected.dtype).is_floating_point else _C.int64
    a, e = actual.detach().to(wide), expected.detach().to(wide)
    close = a.isclose(e, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if bool(close.all()):
        return
    if a.dim() == 0:
        raise _Failure(AssertionError, _scalar_message(a.item(), e.item(), rtol, atol), path)
    wrong = close.logical_not().reshape(-1)
    count, total = int(wrong.sum().item()), wrong.numel()
    abs_diff = (a.reshape(-1) - e.reshape(-1)).abs()
    abs_diff = abs_diff.masked_fill(wrong.logical_not(), 0)
    rel_diff = (abs_diff / e.reshape(-1).abs()).masked_fill(wrong.logical_not(), 0)
    max_abs, abs_at = abs_diff.max(0)
    max_rel, rel_at = rel_diff.max(0)
    message = _mismatch_message("Tensor-likes", rtol, atol, max_abs.item(), max_rel.item(),
                                _unravel(int(abs_at), a.shape), _unravel(int(rel_at), a.shape),
                                f"Mismatched elements: {count} / {total} ({count / total:.1%})")
    raise _Failure(AssertionError, message, path)


_COMPARERS = (_compare_none, _compare_bools, _compare_numbers, _compare_tensors)


def _leaf_pairs(actual, expected, path):
    """The (actual, expected, path) leaves of two nested containers. Raises _Failure when lengths or keys differ."""
    seq = collections.abc.Sequence
    if isinstance(actual, seq) and isinstance(expected, seq) and not isinstance(actual, str) and \
            not isinstance(expected, str):
        if len(actual) != len(expected):
            raise _Failure(AssertionError,
                           f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", path)
        for i in range(len(actual)):
            yield from _leaf_pairs(actual[i], expected[i], path + (i,))
    elif isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        keys, expected_keys = set(actual.keys()), set(expected.keys())
        if keys != expected_keys:
            raise _Failure(AssertionError, "The keys of the mappings do not match:\n"
                                           f"Missing keys in the actual mapping: {sorted(expected_keys - keys)}\n"
                                           f"Additional keys in the actual mapping: {sorted(keys - expected_keys)}",
                           path)
        try:
            keys = sorted(keys)
        except TypeError:
            pass
        for k in keys:
            yield from _leaf_pairs(actual[k], expected[k], path + (k,))
    else:
        yield actual, expected, path


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    r"""Asserts that actual and expected are close: ``|actual - expected| <= atol + rtol * |expected|`` elementwise
    (and NaNs equal when equal_nan), after checking shape, device, dtype and (check_stride) strides.

    Args:
        actual, expected: tensors, NumPy arrays, Python or NumPy numbers, bools, None, or sequences and mappings
            of these (compared item by item).
        rtol, atol (float): the tolerances, both or neither; omitted, they are the loosest defaults of the two
            dtypes: float16 (1e-3, 1e-5), bfloat16 (1.6e-2, 1e-5), float32 (1.3e-6, 1e-5), float64 (1e-7, 1e-7),
            exact otherwise.
        equal_nan (bool): NaN equals NaN.
        check_device, check_dtype, check_stride (bool): whether those attributes must match; with check_dtype
            off, values are compared in the promoted dtype. check_layout is accepted (Ember has strided tensors
            only).
        msg (str or callable): replaces the generated message, or (callable) is called with it.

    Raises:
        AssertionError: a mismatch; its message names the mismatched element count, the greatest absolute and
            relative differences and their indices, as PyTorch's.
        ValueError: only one of rtol and atol given.
        TypeError: inputs of kinds that cannot be compared (a tensor with a number, say).
    """
    __tracebackhide__ = True
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                   check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
                   check_stride=check_stride)
    failures = []
    try:
        pairs = list(_leaf_pairs(actual, expected, ()))
    except _Failure as f:
        raise f.to_error() from None
    for a, e, path in pairs:
        for compare in _COMPARERS:
            try:
                compare(a, e, path, **options)
                break
            except _Unsupported:
                continue
            except _Failure as f:
                if f.kind is not AssertionError:
                    raise f.to_error() from None
                failures.append(f)
                break
        else:
            raise _Failure(TypeError, f"No comparison pair was able to handle inputs of type {type(a)} and "
                                      f"{type(e)}.", path).to_error() from None
    if failures:
        raise failures[0].to_error(msg) from None
