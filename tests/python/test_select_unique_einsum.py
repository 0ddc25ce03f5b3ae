"""What the generic per-op test (test_ops_generic.py) does not reach for the selection, unique and einsum ops of
issue 19: which of equal values kthvalue, median, nanmedian and mode pick, on many random slices with heavy ties
(Note [selection], ember/kernels/cpu/sort.cpp); the order of unique(sorted=False), PyTorch's hash-set order
(Note [unique]); searchsorted on random data with sorters; and einsum over a table of equations against
PyTorch 1.13 (Note [einsum], ember/ops/statistics.cpp)."""
import numpy as np
import pytest
import torch

import ember
from conftest import assert_same, check, from_array, make_array, to_torch


def _pair(shape, dtype, low, high, seed):
    e = from_array(make_array(shape, dtype, low=low, high=high, seed=seed), dtype)
    return e, to_torch(e)


@pytest.mark.parametrize("dtype", ["int64", "int32", "float32", "float64"])
@pytest.mark.parametrize("n", [2, 7, 33, 200])
def test_tie_indices_match_pytorch(dtype, n):
    # few distinct values: many ties in every slice
    e, t = _pair((5, n), dtype, 0, 4, seed=n)
    for k in (1, (n + 1) // 2, n):
        assert_same(ember.kthvalue(e, k, 1), torch.kthvalue(t, k, 1))
    assert_same(ember.median(e, 1), torch.median(t, 1))
    assert_same(ember.nanmedian(e, 0), torch.nanmedian(t, 0))
    assert_same(ember.mode(e, 1), torch.mode(t, 1))
    assert_same(ember.mode(e, 0), torch.mode(t, 0))


def test_nan_ties_match_pytorch():
    a = make_array((6, 40), "float32", low=0, high=3, seed=11)
    a[np.random.default_rng(5).random(a.shape) < 0.3] = np.nan
    e, t = from_array(a, "float32"), torch.from_numpy(a.copy())
    assert_same(ember.median(e, 1), torch.median(t, 1))
    assert_same(ember.nanmedian(e, 1), torch.nanmedian(t, 1))
    assert_same(ember.kthvalue(e, 17, 1), torch.kthvalue(t, 17, 1))
    assert_same(ember.cummax(e, 1), torch.cummax(t, 1))
    assert_same(ember.cummin(e, 0), torch.cummin(t, 0))


@pytest.mark.parametrize("dtype", ["int64", "int8", "float32", "float64", "bfloat16"])
def test_unique_unsorted_order_matches_pytorch(dtype):
    e, t = _pair((300,), dtype, -50, 50, seed=3)
    assert_same(ember.unique(e, sorted=False, return_inverse=True, return_counts=True),
                torch.unique(t, sorted=False, return_inverse=True, return_counts=True))


def test_searchsorted_random_with_sorter():
    rng = np.random.default_rng(7)
    seq = rng.normal(size=(4, 50)).astype(np.float32)
    order = np.argsort(seq, axis=1, kind="stable")
    vals = rng.normal(size=(4, 30)).astype(np.float32)
    vals[:, :5] = seq[:, :5]  # exact hits: left and right differ
    for side in ("left", "right"):
        check(lambda s, v, o: ember.searchsorted(s, v, side=side, sorter=o),
              lambda s, v, o: torch.searchsorted(s, v, side=side, sorter=o),
              from_array(seq, "float32"), from_array(vals, "float32"), from_array(order, "int64"))


EQUATIONS = [
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("ij,kj->ik", [(3, 4), (5, 4)]),
    ("ijk,ikl->jl", [(2, 3, 4), (2, 4, 5)]), ("i,j,k->ijk", [(2,), (3,), (4,)]), ("ii->", [(4, 4)]),
    ("iij->j", [(3, 3, 2)]), ("ij,ij,ij->i", [(3, 4), (3, 4), (3, 4)]), ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)]),
    ("a...,...a->...", [(3, 2, 4), (2, 4, 3)]), ("ijkl,ljk->il", [(2, 3, 4, 5), (5, 3, 4)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]), ("ij,jk,kl,lm->im", [(2, 3), (3, 4), (4, 5), (5, 2)]),
    ("i,i", [(5,), (5,)]), ("ij", [(3, 4)]), ("ji", [(3, 4)]), ("ab,cd->abcd", [(2, 1), (1, 3)]),
]


@pytest.mark.parametrize("equation, shapes", EQUATIONS, ids=[e for e, _ in EQUATIONS])
def test_einsum_equations(equation, shapes):
    ops = [from_array(make_array(s, "float64", seed=i), "float64") for i, s in enumerate(shapes)]
    check(lambda *xs: ember.einsum(equation, *xs), lambda *xs: torch.einsum(equation, *xs), *ops)
    # the gradient of every operand
    eops = [o.detach().requires_grad_() for o in ops]
    tops = [torch.from_numpy(make_array(s, "float64", seed=i)).requires_grad_() for i, s in enumerate(shapes)]
    ember.einsum(equation, *eops).sum().backward()
    torch.einsum(equation, *tops).sum().backward()
    for e, t in zip(eops, tops):
        assert_same(e.grad, t.grad)
