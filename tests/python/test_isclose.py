"""ember.isclose / allclose (and the Tensor methods) against torch 1.13: NaN and inf, equal_nan, integer and bool
dtypes, broadcasting, 0-dim and empty inputs, and the errors."""
import math

import pytest
import torch

import ember

NAN, INF = math.nan, math.inf


def both(values, dtype):
    return ember.tensor(values, dtype=getattr(ember, dtype)), torch.tensor(values, dtype=getattr(torch, dtype))


CASES = [
    ([1.0, NAN, INF, 2.0, -INF, 0.0, 1e-9], [1.0 + 1e-6, NAN, INF, INF, -INF, -0.0, -1e-9]),
    ([1.0, 2.0, 3.0], [1.1, 2.00001, 2.99999]),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("a, b", CASES)
@pytest.mark.parametrize("kw", [{}, {"equal_nan": True}, {"rtol": 0.0, "atol": 0.0}, {"rtol": 0.1, "atol": 0.0},
                                {"rtol": 0.0, "atol": 1e-3}])
def test_isclose_matches_torch(dtype, a, b, kw):
    ea, ta = both(a, dtype)
    eb, tb = both(b, dtype)
    got, want = ember.isclose(ea, eb, **kw), torch.isclose(ta, tb, **kw)
    assert got.dtype == ember.bool and got.tolist() == want.tolist()
    assert ea.isclose(eb, **kw).tolist() == want.tolist()
    assert ember.allclose(ea, eb, **kw) == torch.allclose(ta, tb, **kw)
    assert ea.allclose(ea) == torch.allclose(ta, ta)


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
def test_isclose_integer_and_bool(dtype):
    a, b = ([1, 0, 1], [1, 1, 0]) if dtype == "bool" else ([1, 2, 100], [1, 3, 101])
    ea, ta = both(a, dtype)
    eb, tb = both(b, dtype)
    for kw in ({}, {"atol": 1}, {"rtol": 0.01}):
        assert ember.isclose(ea, eb, **kw).tolist() == torch.isclose(ta, tb, **kw).tolist()


def test_isclose_shapes():
    a = ember.ones(2, 1)
    b = ember.ones(3)
    assert tuple(ember.isclose(a, b).shape) == (2, 3) and ember.allclose(a, b)
    assert ember.isclose(ember.tensor(1.0), ember.tensor(1.0)).dim() == 0
    assert tuple(ember.isclose(ember.zeros(0, 3), ember.zeros(0, 3)).shape) == (0, 3)
    assert ember.allclose(ember.zeros(0), ember.zeros(0))
    x = ember.arange(6.0).reshape(2, 3).t()
    assert ember.isclose(x, x.contiguous()).all()


def test_isclose_errors():
    with pytest.raises(RuntimeError, match="int64"):
        ember.isclose(ember.tensor([1]), ember.tensor([1.0]))
    with pytest.raises(RuntimeError, match="rtol must be greater than or equal to zero"):
        ember.isclose(ember.ones(1), ember.ones(1), rtol=-1)
    with pytest.raises(RuntimeError, match="atol must be greater than or equal to zero"):
        ember.isclose(ember.ones(1), ember.ones(1), atol=-1)
    with pytest.raises(RuntimeError):
        ember.allclose(ember.ones(2), ember.ones(3))
