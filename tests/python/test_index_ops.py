"""Indexing ops against PyTorch 1.13: index_select, gather, scatter (src, value, add, reduce), index_add, index
and index_put (accumulate, duplicates), masked_fill, masked_select, nonzero (as_tuple), argwhere and where(cond).
Every dtype, int64 and int32 indices where PyTorch takes them, empty indices, zero-size dims, 0-dim tensors,
non-contiguous inputs, broadcasting, the in-place and out= variants and the errors PyTorch raises."""
import numpy as np
import pytest
import torch

import ember
from conftest import (ALL_DTYPES, assert_raises_like, assert_same, check, edtype, from_array, make_tensor,
                      tdtype, to_torch)

LAYOUTS = ["contiguous", "transposed", "strided"]


def index_tensor(values, dtype="int64", shape=None):
    a = np.array(values, dtype=dtype)
    return from_array(a.reshape(shape) if shape is not None else a, dtype)


def random_index(shape, high, seed=0, dtype="int64"):
    rng = np.random.default_rng(seed)
    return from_array(rng.integers(0, high, size=shape).astype(dtype), dtype)


def both(name, method=False, inplace=False):
    """(ember fn, torch fn) for an op called as a function, a method, or an in-place method on a clone."""
    if inplace:
        return (lambda x, *a, **k: getattr(x.clone(), name)(*a, **k),
                lambda x, *a, **k: getattr(x.clone(), name)(*a, **k))
    if method:
        return (lambda x, *a, **k: getattr(x, name)(*a, **k), lambda x, *a, **k: getattr(x, name)(*a, **k))
    return getattr(ember, name), getattr(torch, name)


# ---------------------------------------------------------------------------------------------- index_select
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_select(dtype, layout, dim):
    x = make_tensor((4, 5), dtype, layout=layout)
    for index in (index_tensor([3, 0, 3, 1]), index_tensor([2], "int32"), index_tensor([], "int64"),
                  index_tensor(1)):
        check(*both("index_select"), x, dim, index, native_narrow=True)
        check(*both("index_select", method=True), x, dim, index, native_narrow=True)


@pytest.mark.parametrize("shape, dim, index", [
    ((), 0, [0]), ((), 0, 0), ((0, 3), 1, [2, 0]), ((3, 0), 0, [1, 1]), ((2, 3, 4), 1, [2, 2, 0, 1]),
])
def test_index_select_shapes(shape, dim, index):
    check(ember.index_select, torch.index_select, make_tensor(shape, "float32"), dim, index_tensor(index))


@pytest.mark.parametrize("args", [
    (0, [4]), (0, [-1]), (2, [0]), (0, [[0]]), (0, [0.0]), (0, [1], "int16"),
], ids=["out_of_range", "negative", "bad_dim", "2d_index", "float_index", "int16_index"])
def test_index_select_errors(args):
    x = make_tensor((4, 5), "float32")
    dim, values, *dt = args
    index = from_array(np.array(values, dtype=dt[0] if dt else np.array(values).dtype), dt[0] if dt else
                       str(np.array(values).dtype))
    check(ember.index_select, torch.index_select, x, dim, index)


@pytest.mark.parametrize("shape", [(4,), (3, 4), (2, 3, 4), (2, 3, 4, 5), (0, 4)], ids=str)
@pytest.mark.parametrize("values", [[9], [-1], [0, 9]], ids=str)
def test_index_select_out_of_range_error_types(shape, values):
    # PyTorch 1.13 raises RuntimeError for dim 1 of a tensor of 2+ dims, IndexError for every other dim
    x = make_tensor(shape, "float32")
    for dim in range(len(shape)):
        check(ember.index_select, torch.index_select, x, dim, from_array(np.array(values), "int64"))


def test_index_select_out():
    x = make_tensor((4, 5), "float64")
    index = index_tensor([1, 3])
    out = ember.empty(0, dtype=ember.float64)
    r = ember.index_select(x, 1, index, out=out)
    assert r is out
    assert_same(out, torch.index_select(to_torch(x), 1, to_torch(index)))
    with pytest.raises(RuntimeError):
        ember.index_select(x, 1, index, out=ember.empty(0, dtype=ember.float32))


# ---------------------------------------------------------------------------------------------- gather
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gather(dtype, layout, dim):
    x = make_tensor((4, 5), dtype, layout=layout)
    size = 4 if dim == 0 else 5
    for shape in [(4, 5), (2, 3), (6, 5) if dim == 0 else (4, 7), (0, 5)]:
        index = random_index(shape, size, seed=len(shape) + shape[0])
        check(*both("gather"), x, dim, index, native_narrow=True)
        check(*both("gather", method=True), x, dim, index, native_narrow=True)


def test_gather_non_contiguous_index_and_sparse_grad():
    x = make_tensor((3, 4), "float32")
    index = random_index((4, 3), 3).t()
    check(ember.gather, torch.gather, x, 0, index)
    check(ember.gather, torch.gather, x, 0, index, sparse_grad=True)


@pytest.mark.parametrize("shape, dim, index", [
    ((), 0, 0), ((), 0, [0]), ((5,), 0, 2), ((5,), 0, [[1]]), ((0,), 0, []), ((3,), 0, np.zeros((1, 0))),
])
def test_gather_shapes(shape, dim, index):
    idx = from_array(np.array(index, dtype="int64"), "int64")
    check(ember.gather, torch.gather, make_tensor(shape, "float32"), dim, idx)


@pytest.mark.parametrize("dim, index, dtype", [
    (1, [[4]], "int64"), (1, [[-1]], "int64"), (0, [[0] * 5], "int64"), (0, [0], "int64"), (2, [[0]], "int64"),
    (1, [[0]], "int32"),
], ids=["out_of_range", "negative", "too_large", "fewer_dims", "bad_dim", "int32"])
def test_gather_errors(dim, index, dtype):
    check(ember.gather, torch.gather, make_tensor((3, 4), "float32"), dim, index_tensor(index, dtype))


@pytest.mark.parametrize("case", [
    ("gather", (3, 0), lambda m, x, i: x.gather(1, i), [[0]], "index 0 is out of bounds for dimension 1 with size 0"),
    ("gather", (3, 0), lambda m, x, i: x.gather(1, i), [[-1]], "index -1 is out of bounds for dimension 1"),
    ("gather", (0, 3), lambda m, x, i: m.gather(x, 0, i), [[2, 0]], "index 2 is out of bounds for dimension 0"),
    ("scatter", (3, 0), lambda m, x, i: x.scatter(1, i, 1.0), [[0]], "out of bounds"),
    ("scatter_add", (3, 0), lambda m, x, i: x.scatter_add(1, i, m.ones(1, 1)), [[0]], "out of bounds"),
    ("scatter_reduce", (3, 0), lambda m, x, i: x.scatter(1, i, m.ones(1, 1), reduce="add"), [[0]], "out of bounds"),
    ("index_select", (3, 0), lambda m, x, i: x.index_select(1, i.reshape(-1)), [0], "index_select()"),
    ("index_add", (3, 0), lambda m, x, i: x.index_add(1, i.reshape(-1), m.ones(3, 1)), [0], "out of range"),
    ("index", (3, 0), lambda m, x, i: x[:, i.reshape(-1)], [0], "out of bounds"),
], ids=lambda c: c[0])
def test_index_into_zero_size_dim_is_out_of_range(case):
    # Any index into a dim of size 0 is out of range: PyTorch's exception type and an index error (gather leaked
    # an internal error about the storage of a strided view).
    _, shape, fn, values, text = case
    x, i = ember.zeros(*shape), index_tensor(values)
    e = assert_raises_like(lambda: fn(ember, x, i), lambda: fn(torch, to_torch(x), to_torch(i)))
    assert text in str(e) and "storage" not in str(e)


def test_gather_out():
    x = make_tensor((3, 4), "int32")
    index = random_index((3, 2), 4)
    out = ember.zeros(7, dtype=ember.int32)
    assert ember.gather(x, 1, index, out=out) is out
    assert_same(out, torch.gather(to_torch(x), 1, to_torch(index)))


# ---------------------------------------------------------------------------------------------- scatter
def scatter_index(shape, size, dim, seed=0):
    """A random int64 index of `shape` with values in [0, size) (duplicates along dim likely)."""
    return random_index(shape, size, seed=seed)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1])
def test_scatter_src_and_add(dtype, layout, dim):
    x = make_tensor((4, 5), dtype, layout=layout)
    src = make_tensor((4, 6), dtype, seed=1)
    for ishape in [(4, 5), (2, 3), (1, 1), (0, 2)]:
        index = scatter_index(ishape, x.shape[dim], dim, seed=ishape[0])
        for name in ["scatter", "scatter_add"]:
            check(*both(name), x, dim, index, src, native_narrow=True)
            check(*both(name + "_", inplace=True), x, dim, index, src, native_narrow=True)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_scatter_value(dtype):
    x = make_tensor((3, 4), dtype)
    index = scatter_index((2, 4), 3, 0)
    value = True if dtype == "bool" else 7 if dtype != "float32" else -1.5
    check(*both("scatter"), x, 0, index, value, native_narrow=True)
    check(*both("scatter_", inplace=True), x, 0, index, value, native_narrow=True)
    check(*both("scatter", method=True), x, 1, index, value, native_narrow=True)


@pytest.mark.parametrize("dtype", ["int64", "float32", "float64", "int16"])
@pytest.mark.parametrize("reduce", ["add", "multiply"])
def test_scatter_reduce(dtype, reduce):
    x = make_tensor((3, 4), dtype)
    src = make_tensor((3, 4), dtype, seed=2, low=-3, high=3)
    index = scatter_index((3, 4), 3, 0)
    check(*both("scatter"), x, 0, index, src, reduce=reduce)
    check(*both("scatter_", inplace=True), x, 0, index, src, reduce=reduce)
    check(*both("scatter"), x, 1, scatter_index((2, 2), 4, 1), 3, reduce=reduce)


def test_scatter_duplicates_last_write_wins():
    x = ember.zeros(3)
    index = index_tensor([0, 0, 0, 2, 2])
    src = ember.tensor([1.0, 2.0, 3.0, 4.0, 5.0])
    assert_same(x.scatter(0, index, src), torch.zeros(3).scatter(0, to_torch(index), to_torch(src)))
    assert ember.scatter(x, 0, index, src).tolist() == [3.0, 0.0, 5.0]
    assert ember.scatter_add(x, 0, index, src).tolist() == [6.0, 0.0, 9.0]


@pytest.mark.parametrize("shape, index, src", [
    ((), 0, ()), ((), [0], (1,)), ((3,), np.zeros((0,), "int64"), (2,)), ((3,), 2, ()),
])
def test_scatter_shapes(shape, index, src):
    x, s = make_tensor(shape, "float32"), make_tensor(src, "float32", seed=3)
    idx = from_array(np.array(index, dtype="int64"), "int64")
    check(ember.scatter, torch.scatter, x, 0, idx, s)
    check(ember.scatter_add, torch.scatter_add, x, 0, idx, s)


@pytest.mark.parametrize("case", ["out_of_range", "negative", "dtype", "index_dtype", "dims", "too_large",
                                  "bad_reduce", "bad_dim", "value_overflow"])
def test_scatter_errors(case):
    x = make_tensor((3, 4), "float32")
    idx = index_tensor([[0], [3], [1]])
    src = make_tensor((3, 1), "float32")
    args = {
        "out_of_range": (1, index_tensor([[4]]), src),
        "negative": (1, index_tensor([[-1]]), src),
        "dtype": (1, idx, make_tensor((3, 1), "float64")),
        "index_dtype": (1, index_tensor([[0]], "int32"), src),
        "dims": (1, index_tensor([0]), src),
        "too_large": (1, index_tensor([[0, 1]]), make_tensor((1, 1), "float32")),
        "bad_dim": (2, idx, src),
    }
    if case == "bad_reduce":
        check(ember.scatter, torch.scatter, x, 1, idx, src, reduce="max")
    elif case == "value_overflow":
        check(ember.scatter, torch.scatter, make_tensor((3,), "uint8"), 0, index_tensor([0]), 1000)
    else:
        check(ember.scatter, torch.scatter, x, *args[case])
        check(ember.scatter_add, torch.scatter_add, x, *args[case])


def test_scatter_out_and_inplace_identity():
    x = make_tensor((3, 4), "float32")
    index, src = scatter_index((2, 4), 3, 0), make_tensor((2, 4), "float32", seed=5)
    out = ember.empty(0)
    assert ember.scatter(x, 0, index, src, out=out) is out
    assert_same(out, torch.scatter(to_torch(x), 0, to_torch(index), to_torch(src)))
    out = ember.empty(0)
    assert ember.scatter_add(x, 0, index, src, out=out) is out
    assert_same(out, torch.scatter_add(to_torch(x), 0, to_torch(index), to_torch(src)))
    y = x.clone()
    v = y._version
    assert y.scatter_(0, index, src) is y
    assert y._version > v


# ---------------------------------------------------------------------------------------------- index_add
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1])
def test_index_add(dtype, layout, dim):
    x = make_tensor((4, 5), dtype, layout=layout)
    index = index_tensor([1, 1, 3] if dim == 0 else [4, 0, 4])  # duplicates add up
    shape = (3, 5) if dim == 0 else (4, 3)
    source = make_tensor(shape, dtype, layout=layout, seed=4)
    check(*both("index_add"), x, dim, index, source, native_narrow=True)
    check(*both("index_add_", inplace=True), x, dim, index, source, native_narrow=True)
    if dtype != "bool":
        alpha = 2 if dtype in ("uint8", "int8", "int16", "int32", "int64") else 0.5
        check(*both("index_add"), x, dim, index.to(ember.int32), source, alpha=alpha, native_narrow=True)


@pytest.mark.parametrize("shape, dim, index, source", [
    ((), 0, [0], ()), ((), 0, 0, ()), ((3,), 0, [2, 2], (2,)), ((3, 4), 0, [], (0, 4)), ((3, 4), 0, [0], (1, 1)),
    ((3, 4), 1, 0, (3, 1)), ((2, 3, 4), 2, [3, 0], (2, 3, 2)), ((3, 4), 0, [1], (4,)),
])
def test_index_add_shapes(shape, dim, index, source):
    check(ember.index_add, torch.index_add, make_tensor(shape, "float32"), dim, index_tensor(index),
          make_tensor(source, "float32", seed=6))


@pytest.mark.parametrize("case", ["out_of_range", "negative", "dtype", "count", "2d_index", "index_dtype",
                                  "shape", "source_dim"])
def test_index_add_errors(case):
    x = make_tensor((3, 4), "float32")
    args = {
        "out_of_range": (0, index_tensor([3]), make_tensor((1, 4), "float32")),
        "negative": (0, index_tensor([-1]), make_tensor((1, 4), "float32")),
        "dtype": (0, index_tensor([0]), make_tensor((1, 4), "float64")),
        "count": (0, index_tensor([0]), make_tensor((2, 4), "float32")),
        "2d_index": (0, index_tensor([[0]]), make_tensor((1, 4), "float32")),
        "index_dtype": (0, index_tensor([0], "int16"), make_tensor((1, 4), "float32")),
        "shape": (0, index_tensor([0]), make_tensor((1, 3), "float32")),
        "source_dim": (1, index_tensor([0]), make_tensor((1,), "float32")),
    }[case]
    check(ember.index_add, torch.index_add, x, *args)


def test_index_add_out():
    x, index, source = make_tensor((3, 4), "int64"), index_tensor([2, 0]), make_tensor((2, 4), "int64", seed=1)
    out = ember.empty(0, dtype=ember.int64)
    assert ember.index_add(x, 0, index, source, alpha=3, out=out) is out
    assert_same(out, torch.index_add(to_torch(x), 0, to_torch(index), to_torch(source), alpha=3))


# ---------------------------------------------------------------------------------------------- index / index_put
def torch_index(x, indices):
    return torch.ops.aten.index(x, list(indices))


def torch_index_put(x, indices, values, accumulate=False):
    return torch.index_put(x, tuple(indices), values, accumulate)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_index_op(dtype, layout):
    x = make_tensor((3, 4, 5), dtype, layout=layout)
    i0, i2 = index_tensor([2, 0, -1, 2]), index_tensor([[4], [0]])
    for indices in ([i0], [None, index_tensor([3, -4])], [i0, None, index_tensor([1])], [None, None, i2],
                    [x[:, 0, 0] != x[0, 0, 0]] if dtype != "bool" else [index_tensor([True, False, True], "bool")]):
        check(ember.index, torch_index, x, indices, native_narrow=True)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put(dtype, accumulate):
    x = make_tensor((3, 4), dtype, layout="transposed")
    idx = [index_tensor([0, 2, 0]), index_tensor([1, 1, 1])]  # (0, 1) twice: summed, or the last write wins
    values = make_tensor((3,), dtype, seed=7)
    check(ember.index_put, torch_index_put, x, idx, values, accumulate, native_narrow=True)
    check(lambda *a: ember.index_put_(a[0].clone(), *a[1:]), lambda *a: torch_index_put(*a), x, idx, values,
          accumulate, native_narrow=True)
    row = make_tensor((4,), dtype, seed=8)  # broadcast over the rows
    check(lambda t, i, v, acc: t.index_put((i,), v, accumulate=acc),
          lambda t, i, v, acc: t.index_put((i,), v, accumulate=acc), x, index_tensor([2, 2, 0]), row, accumulate,
          native_narrow=True)
    mask = index_tensor([[True, False, True, False]] * 3, "bool")
    check(ember.index_put, torch_index_put, x, [mask], make_tensor((6,), dtype, seed=9), accumulate,
          native_narrow=True)
    check(ember.index_put, torch_index_put, x, [mask], make_tensor((), dtype, seed=10), accumulate,
          native_narrow=True)


def test_index_put_duplicates_last_write_wins():
    x = ember.zeros(4, dtype=ember.int64)
    index = index_tensor([1, 3, 1, 1, 3])
    values = index_tensor([10, 20, 30, 40, 50])
    assert ember.index_put(x, (index,), values).tolist() == [0, 40, 0, 50]
    assert ember.index_put(x, (index,), values, True).tolist() == [0, 80, 0, 70]
    assert_same(ember.index_put(x, (index,), values, accumulate=True),
                torch.index_put(torch.zeros(4, dtype=torch.int64), (to_torch(index),), to_torch(values), True))


@pytest.mark.parametrize("case", ["out_of_range", "too_many", "dtype", "shape", "index_dtype", "int32_index",
                                  "mask_shape", "broadcast", "overlap", "value_overflow_mask"])
def test_index_put_errors(case):
    x = make_tensor((3, 4), "float32")
    one = make_tensor((), "float32")
    args = {
        "out_of_range": ([index_tensor([5])], one),
        "too_many": ([index_tensor([0])] * 3, one),
        "dtype": ([index_tensor([0])], make_tensor((), "float64")),
        "shape": ([index_tensor([0, 1])], make_tensor((3, 4), "float32")),
        "index_dtype": ([index_tensor([0], "int16")], one),
        "int32_index": ([index_tensor([0], "int32")], one),
        "mask_shape": ([index_tensor([True, False], "bool")], one),
        "broadcast": ([index_tensor([0, 1]), index_tensor([0, 1, 2])], one),
    }
    if case == "overlap":
        y = make_tensor((3, 4), "int64")
        ty = to_torch(y)
        assert_raises_like(lambda: y.index_put_((index_tensor([0, 1]),), y[2]),
                           lambda: ty.index_put_((torch.tensor([0, 1]),), ty[2]))
    elif case == "value_overflow_mask":
        y = make_tensor((3,), "uint8")
        check(ember.index_put, torch_index_put, y, [index_tensor([True, False, True], "bool")],
              from_array(np.array(1e4), "float32"))
    else:
        check(ember.index_put, torch_index_put, x, *args[case])
        check(ember.index, torch_index, x, args[case][0])


def test_index_put_inplace_returns_self_and_bumps_version():
    x = ember.zeros(3, 2)
    v = x._version
    assert x.index_put_((index_tensor([1]),), ember.ones(2)) is x
    assert x._version > v
    assert x.tolist() == [[0.0, 0.0], [1.0, 1.0], [0.0, 0.0]]
    assert ember.index_put_(x, (index_tensor([0]),), ember.ones(2), accumulate=True) is x


def test_index_out():
    x = make_tensor((3, 4), "float32")
    out = ember.empty(0)
    r = ember.index(x, [None, index_tensor([3, 1])], out=out)
    assert r is out
    assert_same(out, to_torch(x)[:, [3, 1]])


# ---------------------------------------------------------------------------------------------- masked_fill
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_masked_fill(dtype, layout):
    x = make_tensor((3, 4), dtype, layout=layout)
    value = True if dtype == "bool" else 5 if dtype != "float64" else -2.5
    for mshape in [(3, 4), (4,), (3, 1), ()]:
        mask = make_tensor(mshape, "bool", seed=len(mshape))
        check(*both("masked_fill"), x, mask, value, native_narrow=True)
        check(*both("masked_fill_", inplace=True), x, mask, value, native_narrow=True)
        check(*both("masked_fill"), x, mask, from_array(np.array(value), "float64"), native_narrow=True)
        check(*both("masked_fill_", inplace=True), x, mask, from_array(np.array(value), dtype), native_narrow=True)


def test_masked_fill_broadcasts_self_and_special_values():
    x = make_tensor((4,), "float32")
    mask = make_tensor((2, 3, 4), "bool")
    check(ember.masked_fill, torch.masked_fill, x, mask, float("nan"))
    check(ember.masked_fill, torch.masked_fill, x, mask, float("-inf"))
    check(ember.masked_fill, torch.masked_fill, make_tensor((0, 4), "int32"), make_tensor((4,), "bool"), 1)
    check(ember.masked_fill, torch.masked_fill, make_tensor((), "int32"), make_tensor((), "bool"), 1)


@pytest.mark.parametrize("case", ["inplace_broadcast", "value_dim", "overflow", "nan_to_int", "shape"])
def test_masked_fill_errors(case):
    x = make_tensor((3, 4), "int64")
    if case == "inplace_broadcast":
        check(lambda t, m: t.clone().masked_fill_(m, 1), lambda t, m: t.clone().masked_fill_(m, 1), x,
              make_tensor((2, 3, 4), "bool"))
    elif case == "value_dim":
        check(ember.masked_fill, torch.masked_fill, x, make_tensor((4,), "bool"), make_tensor((1,), "int64"))
    elif case == "overflow":
        check(ember.masked_fill, torch.masked_fill, make_tensor((3,), "uint8"), make_tensor((3,), "bool"), 300)
    elif case == "nan_to_int":
        check(ember.masked_fill, torch.masked_fill, x, make_tensor((4,), "bool"), float("nan"))
    else:
        check(ember.masked_fill, torch.masked_fill, x, make_tensor((5,), "bool"), 1)


def test_masked_fill_uint8_mask():
    x, m = make_tensor((3, 4), "float32"), make_tensor((4,), "uint8", low=0, high=2)
    expected = torch.masked_fill(to_torch(x), to_torch(m).bool(), 1.0)
    assert_same(ember.masked_fill(x, m, 1.0), expected)


# ---------------------------------------------------------------------------------------------- masked_select
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_masked_select(dtype, layout):
    x = make_tensor((3, 4), dtype, layout=layout)
    for mask in [make_tensor((3, 4), "bool", layout=layout), make_tensor((4,), "bool"),
                 make_tensor((2, 1, 1), "bool"), make_tensor((), "bool", seed=3), ember.zeros(3, 4, dtype=ember.bool)]:
        check(*both("masked_select"), x, mask, native_narrow=True)
        check(*both("masked_select", method=True), x, mask, native_narrow=True)


def test_masked_select_edges():
    check(ember.masked_select, torch.masked_select, make_tensor((), "float32"), from_array(np.array(True), "bool"))
    check(ember.masked_select, torch.masked_select, make_tensor((0, 3), "float32"), make_tensor((3,), "bool"))
    check(ember.masked_select, torch.masked_select, make_tensor((3,), "float32"), make_tensor((3,), "int32"))
    check(ember.masked_select, torch.masked_select, make_tensor((3,), "float32"), make_tensor((4,), "bool"))
    out = ember.empty(0)
    x, m = make_tensor((3, 4), "float32"), make_tensor((3, 4), "bool")
    assert ember.masked_select(x, m, out=out) is out
    assert_same(out, torch.masked_select(to_torch(x), to_torch(m)))


# ---------------------------------------------------------------------------------------------- nonzero / where
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("shape", [(3, 4), (5,), (), (2, 0, 3), (2, 3, 2)])
def test_nonzero(dtype, shape):
    x = make_tensor(shape, dtype, low=-1 if dtype != "uint8" else 0, high=2)
    check(ember.nonzero, torch.nonzero, x)
    check(lambda t: t.nonzero(), lambda t: t.nonzero(), x)
    check(lambda t: ember.nonzero(t, as_tuple=True), lambda t: torch.nonzero(t, as_tuple=True), x)
    check(lambda t: t.nonzero(as_tuple=True), lambda t: t.nonzero(as_tuple=True), x)
    check(ember.where, torch.where, x)
    check(ember.argwhere, torch.argwhere, x)


def test_nonzero_special_values_and_layouts():
    x = from_array(np.array([float("nan"), 0.0, -0.0, float("inf"), 1e-30]), "float32")
    check(ember.nonzero, torch.nonzero, x)
    y = make_tensor((3, 4), "int32", low=-1, high=2, layout="transposed")
    check(ember.nonzero, torch.nonzero, y)
    check(ember.nonzero, torch.nonzero, make_tensor((3, 4), "bool", layout="strided"))
    check(ember.where, torch.where, from_array(np.array(0.0), "float64"))


def test_nonzero_out():
    x = make_tensor((3, 4), "int64", low=0, high=2)
    out = ember.empty(0, dtype=ember.int64)
    assert ember.nonzero(x, out=out) is out
    assert_same(out, torch.nonzero(to_torch(x)))
    with pytest.raises(RuntimeError):
        ember.nonzero(x, out=ember.empty(0))


def test_where_three_arguments_still_works():
    c = make_tensor((3, 4), "bool")
    check(ember.where, torch.where, c, make_tensor((3, 4), "float32"), make_tensor((4,), "float32", seed=1))


# ---------------------------------------------------------------------------------------------- large inputs
def test_large_inputs_match_reference():
    """Big enough for the parallel loops (above the grain size) and long index lists."""
    x = make_tensor((300, 257), "float32")
    idx = random_index((5000,), 300, seed=11)
    check(ember.index_select, torch.index_select, x, 0, idx)
    check(ember.index, torch_index, x, [idx])
    g = random_index((300, 257), 300, seed=12)
    check(ember.gather, torch.gather, x, 0, g)
    check(ember.scatter_add, torch.scatter_add, ember.zeros(300, 257), 0, g, x, rtol=1e-4)
    check(ember.index_put, torch_index_put, ember.zeros(300, 257), [idx[:257]], x[:257], True, rtol=1e-4)
    check(ember.masked_select, torch.masked_select, x, x > 0)
    check(ember.nonzero, torch.nonzero, x > 1)


@pytest.mark.parametrize("shapes", [((3, 2), (1, 5)), ((3, 2, 4), (1, 2, 5)), ((3, 2), (1, 2, 2))], ids=str)
def test_index_add_source_not_broadcasting_names_op_and_shapes(shapes):
    # PyTorch's RuntimeError, with the op name and the shapes (was expand()'s message alone).
    self_shape, source_shape = shapes
    fn = lambda m: m.zeros(*self_shape).index_add_(0, m.tensor([0]), m.ones(*source_shape))  # noqa: E731
    e = assert_raises_like(lambda: fn(ember), lambda: fn(torch))
    assert str(e).startswith("index_add_(): ")
    assert f"self [{', '.join(map(str, self_shape))}]" in str(e)
    assert f"source [{', '.join(map(str, source_shape))}]" in str(e)
