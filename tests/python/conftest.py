"""Shared helpers of Ember's Python test suite: every test compares Ember with PyTorch 1.13 (the oracle).

- make_tensor(shape, dtype, ...)  deterministic data (seeded NumPy) for a shape and dtype, as an ember.Tensor,
                                  optionally non-contiguous (transposed, or sliced with a step).
- to_torch / to_ember             converters through NumPy (bfloat16 through float32, which holds it exactly).
- assert_same(actual, expected)   values, dtype name and shape; tolerances by dtype.
- check(efn, tfn, *args)          runs the PyTorch reference first, then Ember: the same result, or the same
                                  exception type when PyTorch raises.
- ALL_DTYPES and its subsets      dtype names, so test ids read "add-int32".

float16/bfloat16: PyTorch 1.13 lacks many half kernels on the CPU, so the reference computes in float32 and
rounds a floating result to the dtype PyTorch's own promotion gives (found on the "meta" device, which runs
the shape/dtype rules of an op without a kernel).
"""
import functools
import math
import os
import sys
import zlib

import numpy as np
import pytest

# The package in python/ (with the extension built into it), also when run without PYTHONPATH=python: with
# `python -m pytest` from the repository root, the C++ source folder ember/ would otherwise shadow it.
# EMBER_PYTHON_DIR names another folder holding the package: tools/sanitize.sh's, a sanitized build's extension
# beside links to these sources.
sys.path.insert(0, os.environ.get("EMBER_PYTHON_DIR")
                or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "python")))
import ember  # noqa: E402
import torch  # noqa: E402

ALL_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
INT_DTYPES = ["uint8", "int8", "int16", "int32", "int64"]
FLOAT_DTYPES = ["float16", "bfloat16", "float32", "float64"]
NARROW_DTYPES = ["float16", "bfloat16"]
NUMERIC_DTYPES = INT_DTYPES + FLOAT_DTYPES
INTEGRAL_AND_BOOL = ["bool"] + INT_DTYPES

# (rtol, atol) by dtype name; integral and bool results compare exactly.
TOLERANCES = {
    "float64": (1e-10, 1e-12),
    "float32": (1e-5, 1e-6),
    "float16": (1e-3, 1e-5),
    "bfloat16": (1.6e-2, 1e-5),
    "complex64": (1e-5, 1e-6),  # each part as float32's
    "complex128": (1e-10, 1e-12),
}
COMPLEX_DTYPES = ["complex64", "complex128"]

# Floating values that exercise the edges of an elementwise op.
SPECIAL_FLOATS = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, 2.5, -2.5,
                  3.0, 1e-8, -7.25, 1e30, 100.0]


def edtype(name):
    """The ember dtype called name ('float32')."""
    return getattr(ember, name)


def tdtype(name):
    """The torch dtype called name."""
    return getattr(torch, name)


def dtype_name(dtype):
    """'float32' for ember.float32 or torch.float32."""
    return str(dtype).rsplit(".", 1)[-1]


def _rng(*key):
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def make_array(shape, dtype, *, low=None, high=None, seed=0, nonzero=False):
    """Deterministic NumPy data of a shape for an ember dtype name (bfloat16 gives float32 values that are
    exactly representable in bfloat16). Integers fall in [low, high) (default -9..9, 0..9 unsigned); floats
    are uniform in [low, high) (default -4..4) with two decimals. nonzero: zeros become ones (divisors)."""
    a = np.asarray(_make_array(tuple(shape), dtype, low, high, seed))
    if nonzero:
        a = np.where(a == 0, np.ones_like(a), a)
    return a


def _make_array(shape, dtype, low, high, seed):
    rng = _rng(shape, dtype, low, high, seed)
    if dtype in COMPLEX_DTYPES:  # each part as a float's
        part = "float32" if dtype == "complex64" else "float64"
        re = _make_array(shape, part, low, high, seed)
        im = _make_array(shape, part, low, high, seed + 7919)
        return (re + 1j * im).astype(dtype)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in INT_DTYPES:
        lo = (0 if dtype == "uint8" else -9) if low is None else low
        hi = 10 if high is None else high
        return rng.integers(lo, hi, size=shape).astype(dtype)
    lo = -4.0 if low is None else low
    hi = 4.0 if high is None else high
    a = np.round(rng.uniform(lo, hi, size=shape), 2)
    if dtype == "bfloat16":
        return _round_to_bfloat16(a.astype(np.float32))
    return a.astype(dtype)


def _round_to_bfloat16(a):
    a = np.asarray(a, dtype=np.float32)
    return torch.from_numpy(a.copy()).to(torch.bfloat16).float().numpy().reshape(a.shape)


def make_tensor(shape, dtype, *, layout="contiguous", low=None, high=None, seed=0, nonzero=False):
    """A deterministic ember tensor of the given shape and dtype name (values as make_array's).

    layout: "contiguous"; "transposed" (the dims reversed: a permuted view of a contiguous tensor; for 2 dims
    or more); or "strided" (every other element of the last dim: a slice with step 2; for 1 dim or more)."""
    shape = tuple(shape)
    kw = dict(low=low, high=high, seed=seed, nonzero=nonzero)
    if layout == "transposed" and len(shape) >= 2:
        return from_array(make_array(shape[::-1], dtype, **kw), dtype).permute(*reversed(range(len(shape))))
    if layout == "strided" and shape:
        return from_array(make_array(shape[:-1] + (2 * shape[-1],), dtype, **kw), dtype)[..., ::2]
    return from_array(make_array(shape, dtype, **kw), dtype)


def from_array(a, dtype):
    """An ember tensor with its own copy of the values of the NumPy array a, of dtype name dtype."""
    with np.errstate(over="ignore"):  # values beyond float16's range become inf, as intended
        if dtype == "bfloat16":
            return ember.from_numpy(np.array(a, dtype=np.float32)).to(ember.bfloat16)
        return ember.from_numpy(np.array(a, dtype=dtype)).clone()  # own (resizable) storage


def special_tensor(dtype):
    """A 1-D tensor of the edge values of a dtype: SPECIAL_FLOATS for floating types, the extremes and small
    values for integers, both values for bool."""
    if dtype == "bool":
        return from_array(np.array([True, False, True]), "bool")
    if dtype in INT_DTYPES:
        info = np.iinfo(dtype)
        return from_array(np.array([info.min, info.max, 0, 1, -1 if info.min < 0 else 2, 7, info.min + 1,
                                    info.max - 1], dtype=dtype), dtype)
    with np.errstate(over="ignore"):
        return from_array(np.array(SPECIAL_FLOATS, dtype=np.float64), dtype)


def to_numpy(t):
    """A NumPy copy of an ember or torch tensor (bfloat16 as float32)."""
    if isinstance(t, torch.Tensor):
        t = t.detach().resolve_conj().resolve_neg()  # PyTorch's lazy conjugates have no NumPy view
        return (t.float() if t.dtype == torch.bfloat16 else t).numpy().copy()
    t = t.detach()  # numpy() of a tensor that requires grad raises, as PyTorch's
    return np.array((t.float() if t.dtype == ember.bfloat16 else t).numpy(), copy=True)


def to_torch(t, upcast=False):
    """The torch tensor with the values and dtype of ember tensor t (a copy with its own storage). upcast:
    float16 and bfloat16 become float32. Other values pass through unchanged; lists and tuples are converted
    element-wise."""
    if isinstance(t, (list, tuple)):
        return type(t)(to_torch(x, upcast) for x in t)
    if not isinstance(t, ember.Tensor):
        return t
    if t.dtype == ember.bfloat16:
        r = torch.tensor(t.float().numpy())
        return r if upcast else r.to(torch.bfloat16)
    r = torch.tensor(t.numpy())
    return r.float() if upcast and t.dtype == ember.float16 else r


def torch_like(x):
    """A torch copy of ember tensor x with x's strides (and offset 0, which make_tensor's layouts have)."""
    r = torch.empty_strided(tuple(x.shape), x.stride(), dtype=tdtype(dtype_name(x.dtype)))
    return r.copy_(to_torch(x))


def to_ember(t):
    """The ember tensor with the values and dtype of torch tensor t (a copy)."""
    return from_array(to_numpy(t), dtype_name(t.dtype))


def _to_meta(x):
    if isinstance(x, (list, tuple)):
        return type(x)(_to_meta(y) for y in x)
    if isinstance(x, ember.Tensor):
        return torch.empty(tuple(x.shape), dtype=tdtype(dtype_name(x.dtype)), device="meta")
    return x


def torch_reference(tfn, args, kwargs=None, native_narrow=False):
    """tfn applied to torch copies of args (ember tensors converted).

    With a float16/bfloat16 operand it is computed in float32, as PyTorch's own half kernels do, where they
    exist: the operands are first converted to the dtype the op computes in (result_type: a float32 0-dim
    tensor or a Python float next to a float16 tensor is rounded to float16), then widened to float32, and
    a floating result is rounded to the dtype PyTorch gives for the real dtypes (found on the "meta" device).
    native_narrow: call PyTorch with the narrow dtypes themselves (for ops whose result depends on the
    dtype's range, such as nan_to_num, and which PyTorch implements for half)."""
    kwargs = kwargs or {}
    operands = [a for a in _flatten(args) if isinstance(a, (ember.Tensor, bool, int, float))]
    narrow = not native_narrow and any(isinstance(a, ember.Tensor) and dtype_name(a.dtype) in NARROW_DTYPES
                                       for a in _flatten(list(args) + list(kwargs.values())))
    if not narrow:
        return tfn(*[to_torch(a) for a in args], **{k: to_torch(v) for k, v in kwargs.items()})
    common = result_type(operands)
    convert = functools.partial(_to_torch_computed_in, common=common)
    r = tfn(*[convert(a) for a in args], **{k: convert(v) for k, v in kwargs.items()})
    if not isinstance(r, torch.Tensor) or not r.is_floating_point():
        return r
    try:
        want = tfn(*_to_meta(args), **{k: _to_meta(v) for k, v in kwargs.items()}).dtype
    except (NotImplementedError, RuntimeError):
        want = common
    return r.to(want) if want.is_floating_point else r


def _flatten(args):
    for a in args:
        if isinstance(a, (list, tuple)):
            yield from _flatten(a)
        else:
            yield a


def _to_torch_computed_in(x, common):
    """x as a float32 torch operand for an op computing in the narrow dtype common (rounded to it first)."""
    if isinstance(x, (list, tuple)):
        return type(x)(_to_torch_computed_in(y, common) for y in x)
    if isinstance(x, ember.Tensor):
        t = to_torch(x)
        if t.is_floating_point() and dtype_name(common) in NARROW_DTYPES:
            t = t.to(common)
        return t.float() if dtype_name(t.dtype) in NARROW_DTYPES else t
    if isinstance(x, float) and dtype_name(common) in NARROW_DTYPES:
        return torch.tensor(x, dtype=common).item()
    return x


def _category(dtype):
    return 0 if dtype == torch.bool else 2 if dtype.is_floating_point else 1


def result_type(operands):
    """PyTorch's result_type over tensors and Python numbers (ember tensors are taken for their dtypes):
    tensors with dims decide; 0-dim tensors, then numbers, count only from a higher category (bool < integer
    < floating); a Python float counts as the default dtype, an int as int64."""
    groups = [None, None, None]  # dims > 0, 0-dim tensors, numbers
    for x in operands:
        if isinstance(x, ember.Tensor):
            d, g = tdtype(dtype_name(x.dtype)), 0 if x.dim() else 1
        else:
            d, g = (torch.bool if isinstance(x, bool) else torch.int64 if isinstance(x, int)
                    else torch.get_default_dtype()), 2
        groups[g] = d if groups[g] is None else torch.promote_types(groups[g], d)

    def combine(higher, lower):
        if higher is None:
            return lower
        if lower is None:
            return higher
        return torch.promote_types(higher, lower) if _category(lower) > _category(higher) else higher

    return combine(groups[0], combine(groups[1], groups[2]))


def _values_equal(a, b, name, rtol, atol, msg):
    if a.shape != b.shape:
        raise AssertionError(f"{msg}shape {a.shape} != {b.shape}")
    if name in TOLERANCES:
        r, t = TOLERANCES[name]
        rtol = r if rtol is None else rtol
        atol = t if atol is None else atol
        if np.iscomplexobj(a) or np.iscomplexobj(b):  # each part compares as a float's
            a, b = np.asarray(a, dtype=np.complex128), np.asarray(b, dtype=np.complex128)
            _values_equal(a.real.copy(), b.real.copy(), "float64", rtol, atol, msg + "(real part) ")
            _values_equal(a.imag.copy(), b.imag.copy(), "float64", rtol, atol, msg + "(imaginary part) ")
            return
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        if not np.array_equal(a64, b64, equal_nan=True):  # the common case is exact: skip the slow report
            np.testing.assert_allclose(a64, b64, rtol=rtol, atol=atol, equal_nan=True, err_msg=msg)
    elif not np.array_equal(a, b):
        np.testing.assert_array_equal(a, b, err_msg=msg)


def assert_same(actual, expected, *, rtol=None, atol=None, msg=""):
    """actual (from Ember) equals expected (from PyTorch): for tensors the dtype name, the shape and the
    values (tolerances by dtype; NaN equals NaN); for numbers, lists and tuples the type and value."""
    if isinstance(expected, torch.Tensor):
        assert isinstance(actual, ember.Tensor), f"{msg}expected an ember.Tensor, got {type(actual).__name__}"
        assert dtype_name(actual.dtype) == dtype_name(expected.dtype), \
            f"{msg}dtype {actual.dtype} != {expected.dtype}"
        assert tuple(actual.shape) == tuple(expected.shape), f"{msg}shape {tuple(actual.shape)} != " \
                                                             f"{tuple(expected.shape)}"
        _values_equal(to_numpy(actual), to_numpy(expected), dtype_name(expected.dtype), rtol, atol, msg)
    elif isinstance(expected, (list, tuple)):
        assert type(actual) is type(expected) or (isinstance(actual, tuple) and isinstance(expected, tuple)), \
            f"{msg}type {type(actual).__name__} != {type(expected).__name__}"
        assert len(actual) == len(expected), f"{msg}length {len(actual)} != {len(expected)}"
        for x, y in zip(actual, expected):
            assert_same(x, y, rtol=rtol, atol=atol, msg=msg)
    elif isinstance(expected, torch.dtype):
        assert isinstance(actual, ember.dtype), f"{msg}expected an ember.dtype, got {type(actual).__name__}"
        assert dtype_name(actual) == dtype_name(expected), f"{msg}{actual} != {expected}"
    elif isinstance(expected, complex):
        assert type(actual) is complex, f"{msg}type {type(actual).__name__} != complex"
        assert_same(actual.real, expected.real, rtol=rtol, atol=atol, msg=msg)
        assert_same(actual.imag, expected.imag, rtol=rtol, atol=atol, msg=msg)
    elif isinstance(expected, float):
        assert type(actual) is float, f"{msg}type {type(actual).__name__} != float"
        assert (math.isnan(actual) and math.isnan(expected)) or actual == pytest.approx(
            expected, rel=rtol or 1e-12, abs=atol or 0.0), f"{msg}{actual} != {expected}"
    else:
        assert type(actual) is type(expected), f"{msg}type {type(actual).__name__} != {type(expected).__name__}"
        assert actual == expected, f"{msg}{actual!r} != {expected!r}"


def check(efn, tfn, *args, rtol=None, atol=None, native_narrow=False, **kwargs):
    """Runs tfn on torch copies of args (see torch_reference), then efn on args themselves. When PyTorch
    raises, Ember must raise the exception of the very same type; else the results must be the same.
    Returns Ember's result (None when it raised)."""
    try:
        expected = torch_reference(tfn, args, kwargs, native_narrow)
    except Exception as exc:  # noqa: BLE001  (any exception type: Ember must match it)
        with pytest.raises(Exception) as info:
            efn(*args, **kwargs)
        assert type(info.value) is type(exc), \
            f"PyTorch raised {type(exc).__name__}({exc}), Ember raised {type(info.value).__name__}({info.value})"
        return None
    actual = efn(*args, **kwargs)
    assert_same(actual, expected, rtol=rtol, atol=atol)
    return actual


def outputs_in_each_isa_build(code):
    """What `python -c code` prints in a fresh process under each instruction-set build (EMBER_CPU_CAPABILITY
    default, avx2, avx512; Note [instruction-set builds]), as a set: one element when every build agrees."""
    import subprocess
    outputs = set()
    for level in ("default", "avx2", "avx512"):
        env = dict(os.environ, EMBER_CPU_CAPABILITY=level,
                   PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(ember.__file__))))
        outputs.add(subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True,
                                   text=True).stdout.strip())
    return outputs


def assert_raises_like(efn, tfn):
    """PyTorch's tfn() raises; Ember's efn() must raise the same exception type."""
    with pytest.raises(Exception) as tinfo:
        tfn()
    with pytest.raises(Exception) as einfo:
        efn()
    assert type(einfo.value) is type(tinfo.value), \
        f"PyTorch raised {type(tinfo.value).__name__}({tinfo.value}), " \
        f"Ember raised {type(einfo.value).__name__}({einfo.value})"
    return einfo.value


def pytest_configure(config):
    # PyTorch warns that resizing a non-empty out= tensor is deprecated; the resize is what is tested.
    config.addinivalue_line("filterwarnings", "ignore:An output with one or more elements was resized")
    # Note [tests that fork]: tools/sanitize.sh runs its pytest subset with -m "not forks".
    config.addinivalue_line("markers", "forks: the test forks worker processes that run Python without exec "
                                       "(DataLoader workers); the sanitizer stages leave it out")


@pytest.fixture(autouse=True)
def _restore_global_state():
    """Tests that change the default dtype, the number of threads or print options leave them as they were."""
    dt, tdt, threads = ember.get_default_dtype(), torch.get_default_dtype(), ember.get_num_threads()
    yield
    ember.set_num_threads(threads)
    ember.set_default_dtype(dt)
    torch.set_default_dtype(tdt)
    ember.set_printoptions(profile="default", sci_mode=None)
    torch.set_printoptions(profile="default", sci_mode=None)
