"""Ops that change which memory a tensor uses, against PyTorch 1.13: view(dtype), resize_ and resize_as_ (growing
storages in place), set_ and is_set_to, detach_, and the deprecated Tensor.resize / resize_as. (Every op also
runs the generic test, test_ops_generic.py.)"""
import warnings

import numpy as np
import pytest
import torch

import ember
from conftest import assert_raises_like, from_array, to_numpy, to_torch


def arr(shape, dtype="float32", seed=0):
    return from_array(np.random.default_rng(seed).standard_normal(shape).astype(dtype), dtype)


# ---------------------------------------------------------------------------------------------- view(dtype)

def test_view_dtype_shares_memory():
    x = arr((2, 4))
    y = x.view(ember.int32)
    assert y._base is x and y.dtype == ember.int32
    y[0, 0] = 0
    assert float(x[0, 0]) == 0.0
    z = x.view(ember.float64)
    assert tuple(z.shape) == (2, 2)
    np.testing.assert_array_equal(to_numpy(z), to_torch(x).view(torch.float64).numpy())
    assert x.view(ember.float32).dtype == ember.float32


def test_view_dtype_requires_grad_results_are_not_differentiable():
    x = ember.ones(4, requires_grad=True)
    for dt, tdt in ((ember.int32, torch.int32), (ember.float16, torch.float16), (ember.float32, torch.float32)):
        e, t = x.view(dt), torch.ones(4, requires_grad=True).view(tdt)
        assert e.requires_grad == t.requires_grad, dt


# ---------------------------------------------------------------------------------------------- resize_ and set_

def test_resize_keeps_data_and_grows_in_place():
    x = ember.arange(6.0)
    v = x[:]  # a view sharing the storage
    x.resize_(3, 4)
    assert tuple(x.shape) == (3, 4) and x.is_contiguous()
    assert to_numpy(x).reshape(-1)[:6].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    x.fill_(7.0)
    assert to_numpy(v).tolist() == [7.0] * 6  # the view sees the grown storage
    x.resize_(2)
    assert to_numpy(x).tolist() == [7.0, 7.0]
    y = ember.arange(12.0).reshape(3, 4).t()
    y.resize_(4, 3)
    assert y.stride() == (1, 4)  # same sizes: unchanged strides, as PyTorch
    y.resize_(4, 3, memory_format=ember.contiguous_format)
    assert y.stride() == (3, 1)


def test_resize_errors_as_torch():
    cases = [lambda L: L.ones(3, requires_grad=True).resize_(2), lambda L: L.ones(3).resize_(-1),
             lambda L: L.ones(3).resize_(2, memory_format=L.preserve_format)]
    for c in cases:
        assert_raises_like(lambda: c(ember), lambda: c(torch))
    adopted = ember.from_numpy(np.zeros(3, np.float32))
    with pytest.raises(RuntimeError, match="not resizable"):
        adopted.resize_(100)


def test_resize_as_forms():
    x, t = ember.zeros(6), ember.zeros(2, 3)
    assert ember.resize_as_(x, t) is x and tuple(x.shape) == (2, 3)
    assert tuple(ember.zeros(1).resize_as_(ember.zeros(4, 4)).shape) == (4, 4)


def test_set_shares_storage():
    a, b = ember.zeros(2, 3), ember.arange(10.0)
    a.set_(b)
    assert a.is_set_to(b) and b.is_set_to(a)
    a[0] = 5.0
    assert float(b[0]) == 5.0
    c = ember.zeros(1)
    c.set_(b, 2, (2, 2), (1, 3))
    assert to_numpy(c).tolist() == [[2.0, 5.0], [3.0, 6.0]]
    assert not c.is_set_to(b)
    c.set_(b, 0, (4, 4))  # grows b's storage too
    c.fill_(1.0)
    assert to_numpy(b).tolist() == [1.0] * 10
    c.set_()
    assert tuple(c.shape) == (0,)
    assert_raises_like(lambda: ember.zeros(2).set_(ember.zeros(2, dtype=ember.float64)),
                       lambda: torch.zeros(2).set_(torch.zeros(2, dtype=torch.float64)))


def test_is_set_to_as_torch():
    for L in (ember, torch):
        x = L.zeros(2, 3)
        assert x.is_set_to(x) and not x.is_set_to(x.view(6)) and not x.is_set_to(L.zeros(2, 3))
        assert x[1:].is_set_to(x[1:]) and not x.is_set_to(x.t())


def test_deprecated_resize():
    x = ember.arange(6.0, requires_grad=True)
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        y = x.resize(2, 3)
    assert tuple(y.shape) == (2, 3)
    y.sum().backward()
    assert x.grad.tolist() == [1.0] * 6
    with pytest.warns(UserWarning, match="resize_as is deprecated"):
        assert tuple(ember.ones(6).resize_as(ember.ones(3, 2)).shape) == (3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_raises_like(lambda: ember.ones(3).resize(2), lambda: torch.ones(3).resize(2))


def test_detach_function():
    x = ember.ones(2, requires_grad=True) * 2
    assert ember.detach_(x) is x and not x.requires_grad and x.grad_fn is None
