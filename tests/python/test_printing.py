"""repr() and str() of tensors equal PyTorch's text, with 'torch.' replaced by 'ember.' (a deliberate, documented
difference: dtypes print as ember.int32). Covers every dtype, integer-valued floats, scientific notation,
NaN/inf, summarised tensors (> threshold elements), empty and 0-dim tensors, non-contiguous views and
set_printoptions."""
import numpy as np
import pytest
import torch

import ember
from conftest import ALL_DTYPES, assert_raises_like, from_array, make_tensor, to_torch, torch_like


def expected_repr(t):
    # Deliberate difference: Ember names its own module in the text (ember.float64, ember.Size).
    return repr(t).replace("torch.", "ember.")


def assert_repr_same(x, tx=None):
    tx = to_torch(x) if tx is None else tx
    assert repr(x) == expected_repr(tx)
    assert str(x) == str(tx).replace("torch.", "ember.")


def _tensor(values, dtype):
    return from_array(np.array(values, dtype=np.float64 if dtype in ("bfloat16",) else dtype), dtype)


VALUES = [
    ("ints", [1, -2, 30, 400]),
    ("int_matrix", [[1, 2, 3], [-40, 50, 600]]),
    ("bools", [True, False, True]),
    ("floats", [1.5, -2.25, 0.125]),
    ("int_valued_floats", [1.0, -2.0, 300.0]),
    ("int_valued_large", [1.0, 1e8]),
    ("large_floats", [1e10, 2.5]),
    ("small_floats", [1e-5, 2.0]),
    ("tiny_range", [1e-10, 1e-12]),
    ("mixed_magnitudes", [0.001, 1000.0, 12345.678]),
    ("nan_inf", [float("nan"), float("inf"), -float("inf"), 1.5]),
    ("only_nan", [float("nan")]),
    ("inf_and_ints", [float("inf"), 2.0, -3.0]),
    ("zeros", [0.0, -0.0, 0.0]),
    ("negative_zero_only", [-0.0]),
    ("precision_edge", [0.12345678, 123.456789]),
    ("sci_large", [1.23456e20, -4.5e-3]),
    ("ratio_1000", [0.5, 600.0]),
    ("nested_3d", [[[1.5, 2.0], [3.0, 4.0]], [[-1.0, 0.5], [10.0, 11.0]]]),
    ("uint8_like", [0, 255, 7]),
    ("big_int64", [2 ** 40, -2 ** 35, 7]),
]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("case", VALUES, ids=[c[0] for c in VALUES])
def test_repr_matches_reference(case, dtype):
    values = case[1]
    with np.errstate(all="ignore"):
        a = np.array(values, dtype=np.float64)
    if dtype == "bool":
        a = a != 0
    elif dtype in ("uint8", "int8", "int16", "int32", "int64"):
        info = np.iinfo(dtype)  # NaN and inf do not exist there: 0 instead; the rest clipped to the range
        a = np.clip(np.where(np.isfinite(a), a, 0), max(info.min, -2 ** 53), min(info.max, 2 ** 53))
        a = a.round().astype(dtype)
    x = from_array(a, dtype)
    assert_repr_same(x)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (2, 0), (0, 3, 2), (1,), (3, 1), (2, 3, 4), (1, 1, 1)], ids=str)
def test_repr_shapes(shape, dtype):
    x = make_tensor(shape, dtype)
    assert_repr_same(x)


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "float16", "bfloat16", "float64"])
@pytest.mark.parametrize("shape", [(1001,), (1100,), (40, 30), (5, 300), (12, 10, 11), (2000, 1)], ids=str)
def test_repr_summarised(shape, dtype):
    # More than print threshold (1000) elements: edgeitems (3) of each dim, "..." between.
    x = make_tensor(shape, dtype)
    assert_repr_same(x)


def test_repr_non_contiguous():
    x = make_tensor((4, 5), "float32")
    tx = torch_like(x)
    for f in [lambda t: t.t(), lambda t: t[:, ::2], lambda t: t[1], lambda t: t.expand(2, 4, 5), lambda t: t[0, 0]]:
        assert_repr_same(f(x), f(tx))


def test_repr_linewidth_wrapping():
    # Rows longer than linewidth (80) wrap like PyTorch's.
    for dtype in ["float32", "int64", "float64"]:
        x = make_tensor((3, 30), dtype, low=-1000, high=1000)
        assert_repr_same(x)
    x = from_array(np.linspace(-1e6, 1e6, 50), "float64")
    assert_repr_same(x)


@pytest.mark.parametrize("options", [
    dict(precision=2),
    dict(precision=8),
    dict(precision=0),
    dict(threshold=5),
    dict(threshold=5, edgeitems=1),
    dict(edgeitems=1, threshold=10),
    dict(linewidth=40),
    dict(linewidth=200),
    dict(sci_mode=True),
    dict(sci_mode=False),
    dict(profile="short"),
    dict(profile="full"),
    dict(precision=3, sci_mode=True, linewidth=60),
], ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_set_printoptions(options):
    # (the autouse fixture of conftest.py restores the defaults afterwards)
    ember.set_printoptions(**options)
    torch.set_printoptions(**options)
    for x in [make_tensor((3, 4), "float32"), make_tensor((6,), "int64"),
              from_array(np.array([1e-8, 1.0, 3e5]), "float64"), make_tensor((50,), "float64"),
              from_array(np.array([1.0, 2.0]), "float32"), make_tensor((), "float32"), make_tensor((20, 20), "int32"),
              from_array(np.array([float("nan"), 0.333333]), "float32")]:
        assert_repr_same(x)


def test_set_printoptions_threshold_inf():
    ember.set_printoptions(threshold=float("inf"))
    torch.set_printoptions(threshold=float("inf"))
    assert_repr_same(make_tensor((1005,), "int32"))


def test_repr_of_default_dtype_changes():
    # The dtype suffix is printed when the dtype is not the default one (float32, or what set_default_dtype set;
    # int64 and bool are never printed).
    ember.set_default_dtype(ember.float64)
    torch.set_default_dtype(torch.float64)
    for dtype in ["float32", "float64", "int64", "bool", "int32"]:
        assert_repr_same(make_tensor((3,), dtype))


def test_repr_of_size_dtype_device():
    assert repr(ember.Size([2, 3])) == expected_repr(torch.Size([2, 3]))
    assert repr(ember.Size([])) == expected_repr(torch.Size([]))
    assert str(ember.Size([4])) == str(torch.Size([4])).replace("torch.", "ember.")
    for name in ALL_DTYPES:
        assert repr(getattr(ember, name)) == expected_repr(getattr(torch, name))
        assert str(getattr(ember, name)) == str(getattr(torch, name)).replace("torch.", "ember.")
    assert repr(ember.device("cpu")) == repr(torch.device("cpu"))
    assert str(ember.device("cpu")) == str(torch.device("cpu"))


def test_format_of_0dim_and_str_formatting():
    x = ember.tensor(2.5)
    tx = torch.tensor(2.5)
    assert f"{x:.3f}" == f"{tx:.3f}"
    assert f"{x}" == f"{tx}".replace("torch.", "ember.")
    assert format(ember.tensor(7), "d") == format(torch.tensor(7), "d")


def test_sci_mode_needs_a_nonzero_finite_value():
    # PyTorch applies sci_mode only when some value is finite and nonzero: zeros, NaN and inf alone print as
    # "0.", "nan", "inf" even with sci_mode=True.
    ember.set_printoptions(sci_mode=True)
    torch.set_printoptions(sci_mode=True)
    for values in [[0.0, -0.0], [float("inf"), 0.0], [float("nan")], [1.5, 0.0]]:
        for dtype in ["float16", "float32", "float64"]:
            assert_repr_same(from_array(np.array(values), dtype))


@pytest.mark.parametrize("make", [
    lambda m, n: m.zeros(1).expand(n),
    lambda m, n: m.arange(5.0).reshape(5, 1).expand(5, n),
    lambda m, n: m.arange(4, dtype=m.int32).reshape(2, 2, 1).expand(2, 2, n),
    lambda m, n: m.ones(1, dtype=m.bool).expand(7, n),
], ids=["1d", "2d", "3d_int32", "2d_bool"])
@pytest.mark.parametrize("n", [2 ** 40, 2 ** 58], ids=["2**40", "2**58"])
def test_repr_summarised_reads_only_the_edges(make, n):
    # Summarised printing reads only edgeitems of each dim, as PyTorch's get_summarized_data: huge expanded
    # tensors print at once (formatting every element took minutes or ran out of memory). PyTorch 1.13 itself
    # copies some of these whole, so its text comes from a smaller tensor with the same edges.
    for edgeitems in [3, 1, 5]:  # (edgeitems=0 makes PyTorch 1.13 print the whole row: self[-0:])
        ember.set_printoptions(edgeitems=edgeitems)
        torch.set_printoptions(edgeitems=edgeitems)
        assert repr(make(ember, n)) == expected_repr(make(torch, 2 ** 10))
        assert str(make(ember, n)) == str(make(torch, 2 ** 10)).replace("torch.", "ember.")


def test_repr_summarised_format_ignores_hidden_values():
    # Only the shown values choose the format: a hidden 1e10 in the middle does not switch to scientific notation.
    a = np.zeros(2001)
    a[1000] = 1e10
    a[:3] = [1.5, 2.25, 3.0]
    assert_repr_same(from_array(a, "float64"))


@pytest.mark.parametrize("make", [lambda m: m.zeros(2 ** 40, 0), lambda m: m.zeros(1).expand(2 ** 40)],
                         ids=["2**40x0", "expand_2**40"])
def test_tolist_too_big_raises_memory_error(make):
    # The outer list cannot be allocated: MemoryError, as PyTorch (was a segfault).
    assert_raises_like(lambda: make(ember).tolist(), lambda: make(torch).tolist())
