"""max_pool2d's path for windows wholly inside the input (Note [max pooling inside the input] in
ember/kernels/cpu/pool.cpp, and its 2x2 case, Note [2x2 max pooling]) against PyTorch 1.13: values and indices,
with NaN, ties and -inf in the windows, several kernel/stride shapes (overlapping, strided, wider than a 64-column
block), float32 and float64, and the general path's cases next to them (padding, dilation, ceil_mode windows past
the edge)."""
import numpy as np
import pytest
import torch

import ember
from conftest import assert_same


def pool_both(x, **kw):
    e = ember.nn.functional.max_pool2d(ember.from_numpy(x), return_indices=True, **kw)
    t = torch.nn.functional.max_pool2d(torch.from_numpy(x), return_indices=True, **kw)
    return e, t


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape, kw", [
    ((1, 32, 28, 28), dict(kernel_size=2)),
    ((2, 3, 14, 14), dict(kernel_size=2)),  # the 2x2 path (Note [2x2 max pooling]): 7 outputs, a partial group
    ((2, 3, 27, 27), dict(kernel_size=2)),  # odd sizes: the last input row and column belong to no window
    ((1, 2, 4, 2), dict(kernel_size=2)),  # one output per row
    ((1, 1, 6, 22), dict(kernel_size=2, stride=2)),  # 11 outputs: two whole groups of four and a partial one
    ((2, 3, 9, 11), dict(kernel_size=3, stride=1)),
    ((1, 2, 7, 150), dict(kernel_size=(2, 3), stride=(1, 2))),  # 74 output columns: two blocks
    ((3, 5, 5), dict(kernel_size=2, stride=2)),
    ((1, 1, 6, 6), dict(kernel_size=2, ceil_mode=True)),  # ceil_mode but every window inside
    ((1, 2, 7, 7), dict(kernel_size=2, ceil_mode=True)),  # general path: last window past the edge
    ((1, 2, 8, 8), dict(kernel_size=3, stride=2, padding=1)),  # general path
    ((1, 2, 9, 9), dict(kernel_size=2, dilation=2)),  # general path
])
def test_values_and_indices(shape, kw, dtype):
    rng = np.random.default_rng(0)
    x = rng.integers(-3, 4, size=shape).astype(dtype)  # small integers: many ties within a window
    flat = x.reshape(-1)
    flat[rng.choice(flat.size, size=max(1, flat.size // 20), replace=False)] = np.nan
    flat[rng.choice(flat.size, size=max(1, flat.size // 20), replace=False)] = -np.inf
    (ev, ei), (tv, ti) = pool_both(x, **kw)
    assert_same(ev, tv)
    assert_same(ei, ti)


def test_all_nan_and_all_minus_inf_windows():
    x = np.full((1, 1, 4, 4), -np.inf, dtype=np.float32)
    x[0, 0, :2, :2] = np.nan
    x[0, 0, 2, 3] = np.nan
    (ev, ei), (tv, ti) = pool_both(x, kernel_size=2)
    assert_same(ev, tv)
    assert_same(ei, ti)


def test_non_contiguous_input():
    x = np.random.default_rng(1).standard_normal((2, 4, 10, 12)).astype(np.float32)
    e = ember.from_numpy(x).transpose(2, 3)
    t = torch.from_numpy(x).transpose(2, 3)
    ev, ei = ember.nn.functional.max_pool2d(e, 2, return_indices=True)
    tv, ti = torch.nn.functional.max_pool2d(t, 2, return_indices=True)
    assert_same(ev, tv)
    assert_same(ei, ti)
