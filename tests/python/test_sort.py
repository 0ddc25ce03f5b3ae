"""sort, argsort and topk against PyTorch 1.13: values and int64 indices on every dtype, ascending and descending,
stable and not, NaN (sorted as the largest value) and infinities, ties, empty and zero-size dims, 0-dim tensors,
non-contiguous inputs, negative dims, and the errors PyTorch raises.

Ties: the non-stable sort and topk call the same C++ library algorithms with the same comparators as PyTorch's
CPU kernels (Note [sorting] in ember/kernels/cpu/sort.cpp), so even the order of ties they leave unspecified
is PyTorch's; the tests compare indices exactly."""
import numpy as np
import pytest
import torch

import ember
from conftest import (ALL_DTYPES, assert_raises_like, assert_same, check, dtype_name, edtype, from_array,
                      make_tensor, special_tensor, tdtype, to_torch)

# (shape, dim)
SAMPLES = [
    ((7,), 0),
    ((7,), -1),
    ((3, 5), 0),
    ((3, 5), 1),
    ((3, 5), -2),
    ((2, 3, 4), 1),
    ((2, 3, 4), -1),
    ((), 0),
    ((), -1),
    ((0,), 0),
    ((0, 3), 0),
    ((0, 3), 1),
    ((3, 0), 0),
    ((4, 1), 1),
]


def _ids(samples):
    return [f"{s}-dim{d}" for s, d in samples]


def _sorts(**kw):
    return (lambda t: ember.sort(t, **kw)), (lambda t: torch.sort(t, **kw))


# ---------------------------------------------------------------------------------------------------- sort
@pytest.mark.parametrize("shape, dim", SAMPLES, ids=_ids(SAMPLES))
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_matches_reference(shape, dim, dtype, descending):
    x = make_tensor(shape, dtype)
    check(*_sorts(dim=dim, descending=descending), x, native_narrow=True)
    check(*_sorts(stable=True, dim=dim, descending=descending), x, native_narrow=True)
    check(lambda t: t.sort(dim, descending), lambda t: t.sort(dim, descending), x, native_narrow=True)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("stable", [False, True])
def test_sort_special_values(dtype, descending, stable):
    # NaN is the largest value (first when descending); -0.0 and 0.0 are ties.
    x = special_tensor(dtype)
    check(*_sorts(stable=stable, descending=descending), x, native_narrow=True)


@pytest.mark.parametrize("n", [5, 16, 17, 100, 1000])
@pytest.mark.parametrize("dtype", ["int64", "float32", "float16", "bool", "uint8"])
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("stable", [False, True])
def test_sort_ties(n, dtype, descending, stable):
    # Many equal values: stable keeps the input order; the non-stable order is std::sort's, as PyTorch's.
    x = make_tensor((2, n), "int64", low=0, high=3).to(edtype(dtype))
    check(*_sorts(stable=stable, dim=1, descending=descending), x, native_narrow=True)


@pytest.mark.parametrize("descending", [False, True])
def test_sort_stable_keeps_input_order_of_ties(descending):
    vals = np.array([2, 1, 2, float("nan"), 1, float("nan"), 2, 1] * 8, dtype=np.float32)
    values, indices = ember.sort(from_array(vals, "float32"), stable=True, descending=descending)
    idx = indices.tolist()
    v = values.tolist()
    for i in range(1, len(idx)):
        same = v[i] == v[i - 1] or (v[i] != v[i] and v[i - 1] != v[i - 1])
        if same:
            assert idx[i] > idx[i - 1]


@pytest.mark.parametrize("layout", ["transposed", "strided"])
@pytest.mark.parametrize("dim", [0, 1, 2])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_non_contiguous(layout, dim, descending):
    x = make_tensor((4, 5, 6), "float32", layout=layout, low=-2, high=2)
    check(*_sorts(dim=dim, descending=descending), x)
    check(*_sorts(stable=True, dim=dim, descending=descending), x)


def test_sort_of_expanded():
    x = make_tensor((1, 6), "int32").expand(3, 6)
    check(*_sorts(dim=1), x)
    check(*_sorts(dim=0, stable=True), x)


def test_sort_large_is_parallel_safe():
    x = make_tensor((64, 2000), "float64")
    check(*_sorts(dim=1), x)
    check(*_sorts(dim=0, descending=True), x)


@pytest.mark.parametrize("call", [
    lambda m, t: m.sort(t, 2),
    lambda m, t: m.sort(t, -3),
    lambda m, t: m.sort(t, stable=None),
    lambda m, t: m.sort(t.sum(), 1),
    lambda m, t: m.argsort(t, 2),
    lambda m, t: m.argsort(t, stable=True, dim=-3),
], ids=["dim_high", "dim_low", "stable_none", "0dim_dim1", "argsort_dim", "argsort_stable_dim"])
def test_sort_errors(call):
    x = make_tensor((3, 4), "float32")
    assert_raises_like(lambda: call(ember, x), lambda: call(torch, to_torch(x)))


def test_sort_error_names_the_op():
    with pytest.raises(IndexError, match=r"^sort: Dimension out of range"):
        ember.sort(ember.zeros(2, 3), 2)


# ---------------------------------------------------------------------------------------------------- argsort
@pytest.mark.parametrize("shape, dim", SAMPLES, ids=_ids(SAMPLES))
@pytest.mark.parametrize("dtype", ["bool", "int8", "int64", "bfloat16", "float32"])
@pytest.mark.parametrize("descending", [False, True])
def test_argsort(shape, dim, dtype, descending):
    x = make_tensor(shape, dtype, low=0, high=4) if dtype != "bool" else make_tensor(shape, dtype)
    check(lambda t: ember.argsort(t, dim, descending), lambda t: torch.argsort(t, dim, descending), x,
          native_narrow=True)
    check(lambda t: t.argsort(dim=dim, descending=descending), lambda t: t.argsort(dim=dim, descending=descending),
          x, native_narrow=True)
    check(lambda t: ember.argsort(t, stable=True, dim=dim, descending=descending),
          lambda t: torch.argsort(t, stable=True, dim=dim, descending=descending), x, native_narrow=True)


def test_argsort_special_values():
    x = special_tensor("float64")
    check(lambda t: ember.argsort(t, stable=True), lambda t: torch.argsort(t, stable=True), x)
    check(lambda t: ember.argsort(t, descending=True), lambda t: torch.argsort(t, descending=True), x)


# ---------------------------------------------------------------------------------------------------- topk
def _torch_topk(t, *args, **kw):
    """torch.topk; for bool and float16, which PyTorch 1.13 lacks on the CPU, computed on uint8 / float32 (the
    same comparisons) with the values converted back."""
    if t.dtype in (torch.bool, torch.float16):
        v, i = torch.topk(t.to(torch.uint8 if t.dtype == torch.bool else torch.float32), *args, **kw)
        return v.to(t.dtype), i
    return torch.topk(t, *args, **kw)


def _check_topk(x, *args, **kw):
    expected = _torch_topk(to_torch(x), *args, **kw)
    assert_same(ember.topk(x, *args, **kw), expected)
    assert_same(x.topk(*args, **kw), expected)


TOPK_SAMPLES = [
    ((7,), 3, 0),
    ((7,), 7, -1),
    ((7,), 0, 0),
    ((7,), 1, 0),
    ((3, 5), 2, 0),
    ((3, 5), 4, 1),
    ((2, 3, 4), 2, 1),
    ((), 1, 0),
    ((), 0, -1),
    ((0, 3), 0, 0),
    ((0, 3), 2, 1),
    ((3, 0), 0, 1),
]


@pytest.mark.parametrize("shape, k, dim", TOPK_SAMPLES, ids=[f"{s}-k{k}-dim{d}" for s, k, d in TOPK_SAMPLES])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("largest", [True, False])
def test_topk_matches_reference(shape, k, dim, dtype, largest):
    _check_topk(make_tensor(shape, dtype), k, dim, largest)


@pytest.mark.parametrize("n, k", [(200, 3), (200, 4), (200, 10), (200, 199), (64, 1), (65, 1), (1000, 15), (17, 16)])
@pytest.mark.parametrize("dtype", ["int64", "float32", "bfloat16", "uint8", "bool"])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("sorted_", [True, False])
def test_topk_ties(n, k, dtype, largest, sorted_):
    # Few distinct values: the partial_sort (k * 64 <= n) and nth_element paths leave ties in PyTorch's order;
    # sorted=False keeps nth_element's order.
    x = make_tensor((3, n), "int64", low=0, high=4).to(edtype(dtype))
    _check_topk(x, k, 1, largest, sorted_)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("k", [1, 3, 5, 17])
def test_topk_special_values(dtype, largest, k):
    # NaN counts as the largest value.
    _check_topk(special_tensor(dtype), k, 0, largest)


@pytest.mark.parametrize("layout", ["transposed", "strided"])
@pytest.mark.parametrize("dim", [0, 1, 2])
def test_topk_non_contiguous(layout, dim):
    x = make_tensor((4, 5, 6), "float64", layout=layout)
    _check_topk(x, 3, dim)
    _check_topk(x, 2, dim, False, False)


def test_topk_keywords():
    x = make_tensor((4, 6), "float32")
    assert_same(ember.topk(x, k=2, dim=0, largest=False, sorted=True),
                torch.topk(to_torch(x), k=2, dim=0, largest=False, sorted=True))


@pytest.mark.parametrize("shape, k, dim", [((5,), 6, 0), ((5,), -1, 0), ((3, 4), 5, 1), ((3, 0), 1, 1),
                                           ((), 2, 0), ((3, 4), 1, 2), ((3, 4), 1, -3), ((), 1, 1)])
def test_topk_errors(shape, k, dim):
    x = make_tensor(shape, "float32")
    e = assert_raises_like(lambda: ember.topk(x, k, dim), lambda: torch.topk(to_torch(x), k, dim))
    assert str(e).startswith("topk")


def test_topk_k_out_of_range_message():
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        ember.topk(ember.zeros(3), 4)


def test_schemas_are_pytorchs():
    mine = set(ember._C._op_schemas())
    for name in ["sort", "sort.stable", "argsort", "argsort.stable", "topk"]:
        base, _, overload = name.partition(".")
        theirs = [str(s) for s in torch._C._jit_get_schemas_for_operator("aten::" + base)
                  if s.overload_name == overload]
        assert len(theirs) == 1 and theirs[0] in mine, name


def test_results_are_new_tensors():
    x = make_tensor((5,), "float32")
    v, i = ember.sort(x)
    assert v.data_ptr() != x.data_ptr()
    assert dtype_name(i.dtype) == "int64" and dtype_name(ember.topk(x, 2)[1].dtype) == "int64"
    assert tdtype("int64") == torch.sort(to_torch(x))[1].dtype
