"""Shape and joining ops against PyTorch 1.13: cat, stack, split / split_with_sizes, chunk, unbind, repeat, flip,
tril / triu and padding (constant_pad_nd, the reflection / replication pads, circular, ember.nn.functional.pad).
Values, dtypes (cat promotes like result_type), shapes and the exception types PyTorch raises, on empty and
zero-size dims, 0-dim tensors, non-contiguous inputs, negative dims and every dtype; split, chunk and unbind
return views of their input."""
import itertools

import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as EF
from conftest import (ALL_DTYPES, assert_raises_like, assert_same, check, dtype_name, edtype, make_tensor,
                      tdtype, to_torch)

LAYOUTS = ["contiguous", "transposed", "strided"]


def _cat(dim, **kw):
    return (lambda *ts: ember.cat(list(ts), dim, **kw)), (lambda *ts: torch.cat(list(ts), dim, **kw))


# ---------------------------------------------------------------------------------------------------- cat
# (id, shapes of the inputs, dim)
CAT_SAMPLES = [
    ("rows", [(2, 3), (4, 3)], 0),
    ("cols", [(2, 3), (2, 1), (2, 0)], 1),
    ("neg_dim", [(2, 3), (2, 2)], -1),
    ("zero_rows", [(0, 3), (2, 3), (0, 3)], 0),
    ("all_empty", [(0, 3), (0, 3)], 0),
    ("3d_middle", [(2, 3, 4), (2, 5, 4)], 1),
    ("3d_last", [(2, 3, 4), (2, 3, 1)], 2),
    ("one", [(3, 2)], 0),
    ("1d", [(3,), (2,)], 0),
    ("legacy_empty_1d", [(3,), (0,), (2,)], 0),
    ("legacy_empty_skipped", [(2, 3), (0,), (2, 3)], 1),
    ("legacy_empty_first", [(0,), (2, 3)], -1),
    ("only_legacy_empty", [(0,), (0,)], 0),
    ("only_legacy_empty_any_dim", [(0,), (0,)], 5),
]


@pytest.mark.parametrize("shapes, dim", [s[1:] for s in CAT_SAMPLES], ids=[s[0] for s in CAT_SAMPLES])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_cat_matches_reference(shapes, dim, dtype):
    ts = [make_tensor(s, dtype, seed=i) for i, s in enumerate(shapes)]
    check(*_cat(dim), *ts)


@pytest.mark.parametrize("layout", ["transposed", "strided"])
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_cat_non_contiguous(layout, dim):
    a = make_tensor((2, 3, 4), "float32", layout=layout)
    b = make_tensor((2, 3, 4), "float32", seed=1)
    c = make_tensor((2, 3, 4), "float32", layout=layout, seed=2)
    check(*_cat(dim), a, b, c)


@pytest.mark.parametrize("da, db", list(itertools.product(ALL_DTYPES, repeat=2)))
def test_cat_promotes_like_result_type(da, db):
    a, b = make_tensor((2, 3), da), make_tensor((1, 3), db, seed=1)
    r = check(*_cat(0), a, b)
    assert dtype_name(r.dtype) == dtype_name(torch.result_type(to_torch(a), to_torch(b)))


@pytest.mark.parametrize("dtype", ["float64", "int8", "bool"])
def test_cat_legacy_empty_takes_part_in_promotion(dtype):
    # PyTorch skips a (0,) tensor for the shape but not for the dtype.
    check(*_cat(1), make_tensor((2, 3), "int32"), ember.empty(0, dtype=edtype(dtype)))


def test_cat_python_api():
    a, b = make_tensor((2, 3), "float32"), make_tensor((2, 1), "float32", seed=1)
    ta, tb = to_torch(a), to_torch(b)
    assert_same(ember.cat((a, b), 1), torch.cat((ta, tb), 1))
    assert_same(ember.cat(tensors=[a, b], dim=-1), torch.cat(tensors=[ta, tb], dim=-1))
    assert_same(ember.cat([a, a]), torch.cat([ta, ta]))


def test_concat_is_cat():
    # torch.concat: an alias of cat, with the same errors and out=
    a, b = make_tensor((2, 3), "float32"), make_tensor((2, 1), "int64", seed=1)
    check(lambda x, y: ember.concat([x, y], 1), lambda x, y: torch.concat([x, y], 1), a, b)
    check(lambda x, y: ember.concat((x, y), dim=-1), lambda x, y: torch.concat((x, y), dim=-1), a, b)
    check(lambda x: ember.concat([x, x]), lambda x: torch.concat([x, x]), make_tensor((0, 3), "bool"))
    check(lambda x, y: ember.concat([x, y]), lambda x, y: torch.concat([x, y]), a, b)    # sizes differ: raises
    assert_raises_like(lambda: ember.concat([]), lambda: torch.concat([]))
    out = ember.empty(0)
    assert ember.concat([a, a], out=out) is out
    assert_same(out, torch.concat([to_torch(a), to_torch(a)]))


@pytest.mark.parametrize("out_dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("out_shape", [(4, 3), (0,), (2, 2)])
def test_cat_out(out_dtype, out_shape):
    a, b = make_tensor((2, 3), "int32"), make_tensor((2, 3), "int16", seed=1)
    eout = ember.zeros(out_shape, dtype=edtype(out_dtype))
    tout = torch.zeros(out_shape, dtype=tdtype(out_dtype))
    try:
        expected = torch.cat([to_torch(a), to_torch(b)], out=tout)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            ember.cat([a, b], out=eout)
        return
    r = ember.cat([a, b], out=eout)
    assert r is eout
    assert_same(r, expected)


def test_cat_out_non_contiguous():
    a, b = make_tensor((3, 2), "float32"), make_tensor((3, 1), "float32", seed=1)
    base = ember.zeros(3, 3)
    out = base.t()
    v = out._version
    ember.cat([a.t(), b.t()], out=out)
    tbase = torch.zeros(3, 3)
    torch.cat([to_torch(a).t(), to_torch(b).t()], out=tbase.t())
    assert_same(base, tbase)
    assert out._version > v


def test_cat_out_can_not_cast():
    a = make_tensor((2, 3), "float32")
    assert_raises_like(lambda: ember.cat([a, a], out=ember.empty(0, dtype=ember.int64)),
                       lambda: torch.cat([to_torch(a)] * 2, out=torch.empty(0, dtype=torch.int64)))


def test_cat_out_overlapping_an_input_raises():
    a = make_tensor((2, 3), "float32")
    ta = to_torch(a)
    assert_raises_like(lambda: ember.cat([a, a], out=a), lambda: torch.cat([ta, ta], out=ta))


CAT_ERRORS = [
    ("empty_list", [], 0),
    ("zero_dim", [()], 0),
    ("zero_dim_second", [(2,), ()], 0),
    ("ranks_differ", [(2, 3), (3,)], 0),
    ("sizes_differ", [(2, 3), (3, 3)], 1),
    ("dim_too_large", [(2, 3), (2, 3)], 2),
    ("dim_too_small", [(2, 3), (2, 3)], -3),
    ("legacy_empty_does_not_save_rank_mismatch", [(2, 3), (0,), (3,)], 0),
    ("zero_size_is_not_legacy", [(2, 3), (0, 2)], 0),
]


@pytest.mark.parametrize("shapes, dim", [s[1:] for s in CAT_ERRORS], ids=[s[0] for s in CAT_ERRORS])
def test_cat_errors(shapes, dim):
    ts = [make_tensor(s, "float32", seed=i) for i, s in enumerate(shapes)]
    e = assert_raises_like(lambda: ember.cat(ts, dim), lambda: torch.cat([to_torch(t) for t in ts], dim))
    assert "cat" in str(e)


def test_cat_error_messages_name_the_op():
    with pytest.raises(RuntimeError, match=r"^cat: Sizes of tensors must match except in dimension 1\. Expected "
                                           r"size 2 but got size 3 for tensor number 1 in the list\."):
        ember.cat([ember.zeros(2, 3), ember.zeros(3, 3)], 1)
    with pytest.raises(RuntimeError, match="expected a non-empty list of Tensors"):
        ember.cat([])


# ---------------------------------------------------------------------------------------------------- stack
STACK_SAMPLES = [
    ("0dim", (), 0),
    ("1d_first", (3,), 0),
    ("1d_last", (3,), 1),
    ("1d_neg", (3,), -1),
    ("2d_middle", (2, 3), 1),
    ("2d_neg2", (2, 3), -2),
    ("zero_size", (0, 3), 1),
    ("legacy_empty", (0,), 0),
]


@pytest.mark.parametrize("shape, dim", [s[1:] for s in STACK_SAMPLES], ids=[s[0] for s in STACK_SAMPLES])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("count", [1, 3])
def test_stack_matches_reference(shape, dim, dtype, count):
    ts = [make_tensor(shape, dtype, seed=i) for i in range(count)]
    check(lambda *t: ember.stack(list(t), dim), lambda *t: torch.stack(list(t), dim), *ts)


@pytest.mark.parametrize("layout", ["transposed", "strided"])
def test_stack_non_contiguous_and_promotion(layout):
    a = make_tensor((3, 4), "int32", layout=layout)
    b = make_tensor((3, 4), "float32", seed=1)
    check(lambda x, y: ember.stack([x, y], 2), lambda x, y: torch.stack([x, y], 2), a, b)
    check(lambda x, y: ember.stack((x, y)), lambda x, y: torch.stack((x, y)), a, b)


def test_stack_out():
    a, b = make_tensor((2, 3), "float32"), make_tensor((2, 3), "float32", seed=1)
    out = ember.empty(0, dtype=ember.float64)
    r = ember.stack([a, b], 1, out=out)
    assert r is out
    assert_same(out, torch.stack([to_torch(a), to_torch(b)], 1, out=torch.empty(0, dtype=torch.float64)))


@pytest.mark.parametrize("shapes, dim", [([], 0), ([(2, 3), (3, 2)], 0), ([(2, 3), (2, 3)], 3),
                                         ([(2, 3), (2, 3)], -4), ([(0,), (0, 1)], 0), ([(2,), ()], 0)])
def test_stack_errors(shapes, dim):
    ts = [make_tensor(s, "float32", seed=i) for i, s in enumerate(shapes)]
    assert_raises_like(lambda: ember.stack(ts, dim), lambda: torch.stack([to_torch(t) for t in ts], dim))


# ------------------------------------------------------------------------------------------------ split, chunk, unbind
SPLIT_SAMPLES = [
    ("even", (6, 2), 2, 0),
    ("uneven", (5, 2), 2, 0),
    ("larger_than_dim", (5, 2), 7, 0),
    ("one_each", (5, 2), 1, 0),
    ("dim1", (3, 5), 2, 1),
    ("neg_dim", (3, 5), 3, -1),
    ("zero_size_dim", (0, 2), 2, 0),
    ("zero_split_of_zero_dim", (0, 2), 0, 0),
    ("zero_size_other_dim", (4, 0), 3, 0),
]


@pytest.mark.parametrize("shape, size, dim", [s[1:] for s in SPLIT_SAMPLES], ids=[s[0] for s in SPLIT_SAMPLES])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_split_int(shape, size, dim, layout):
    x = make_tensor(shape, "float32", layout=layout)
    check(lambda t: ember.split(t, size, dim), lambda t: torch.split(t, size, dim), x)
    check(lambda t: t.split(size, dim=dim), lambda t: t.split(size, dim=dim), x)


@pytest.mark.parametrize("sizes, dim", [([1, 4], 0), ((2, 0, 3), 0), ([5], 0), ([0, 5, 0], 0), ([2, 1], 1),
                                        ([3], -1)])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_split_list(sizes, dim, dtype):
    x = make_tensor((5, 3) if dim == 0 else (2, 3), dtype)
    kw = dict(native_narrow=True)
    check(lambda t: ember.split(t, sizes, dim), lambda t: torch.split(t, sizes, dim), x, **kw)
    check(lambda t: t.split(sizes, dim), lambda t: t.split(sizes, dim), x, **kw)
    check(lambda t: ember.split_with_sizes(t, sizes, dim), lambda t: torch.split_with_sizes(t, sizes, dim), x, **kw)
    check(lambda t: t.split_with_sizes(sizes, dim=dim), lambda t: t.split_with_sizes(sizes, dim=dim), x, **kw)


def test_split_python_keywords():
    # torch.split is a Python function whose second parameter is split_size_or_sections; Tensor.split's is
    # split_size.
    x = make_tensor((4, 3), "float32")
    tx = to_torch(x)
    assert_same(ember.split(x, split_size_or_sections=[1, 3], dim=0),
                torch.split(tx, split_size_or_sections=[1, 3], dim=0))
    assert_same(ember.split(tensor=x, split_size_or_sections=2), torch.split(tensor=tx, split_size_or_sections=2))
    assert_same(x.split(split_size=3, dim=0), tx.split(split_size=3, dim=0))


@pytest.mark.parametrize("call", [
    lambda m, t: m.split(t, -1),
    lambda m, t: m.split(t, 0),
    lambda m, t: m.split(t, 2, 2),
    lambda m, t: m.split(t, 2, -3),
    lambda m, t: m.split(t, [1, 3]),
    lambda m, t: m.split(t, [1, 5]),
    lambda m, t: m.split(t, [1, -1, 5]),
    lambda m, t: m.split_with_sizes(t, [6, -1]),
    lambda m, t: m.split(t.sum(), 1),
    lambda m, t: m.split(t.sum(), [1]),
    lambda m, t: m.split(t, 1.5),
], ids=["negative", "zero_of_nonempty", "dim_high", "dim_low", "sum_short", "sum_long", "negative_size",
        "negative_size_with_sizes", "0dim", "0dim_list", "float_size"])
def test_split_errors(call):
    x = make_tensor((5, 2), "float32")
    assert_raises_like(lambda: call(ember, x), lambda: call(torch, to_torch(x)))


@pytest.mark.parametrize("shape, chunks, dim", [((5, 2), 1, 0), ((5, 2), 2, 0), ((5, 2), 3, 0), ((5, 2), 4, 0),
                                                ((5, 2), 6, 0), ((6, 2), 3, 0), ((2, 7), 3, 1), ((2, 7), 3, -1),
                                                ((0, 3), 2, 0), ((0, 3), 1, 0), ((3, 0), 2, 0), ((0, 3), 2, 1),
                                                ((1,), 5, 0)])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_chunk(shape, chunks, dim, layout):
    x = make_tensor(shape, "int64", layout=layout)
    check(lambda t: ember.chunk(t, chunks, dim), lambda t: torch.chunk(t, chunks, dim), x)
    check(lambda t: t.chunk(chunks, dim=dim), lambda t: t.chunk(chunks, dim=dim), x)


@pytest.mark.parametrize("shape, chunks, dim", [((5, 2), 0, 0), ((5, 2), -1, 0), ((), 2, 0), ((5, 2), 2, 2)])
def test_chunk_errors(shape, chunks, dim):
    x = make_tensor(shape, "float32")
    assert_raises_like(lambda: ember.chunk(x, chunks, dim), lambda: torch.chunk(to_torch(x), chunks, dim))


@pytest.mark.parametrize("shape, dim", [((3, 2), 0), ((3, 2), 1), ((3, 2), -1), ((2, 3, 4), 1), ((0, 3), 0),
                                        ((0, 3), 1), ((4,), 0)])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "float16", "float64"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_unbind(shape, dim, dtype, layout):
    x = make_tensor(shape, dtype, layout=layout)
    check(lambda t: ember.unbind(t, dim), lambda t: torch.unbind(t, dim), x, native_narrow=True)
    check(lambda t: t.unbind(dim), lambda t: t.unbind(dim), x, native_narrow=True)


@pytest.mark.parametrize("shape, dim", [((), 0), ((), -1), ((3, 2), 2), ((3, 2), -3)])
def test_unbind_errors(shape, dim):
    x = make_tensor(shape, "float32")
    assert_raises_like(lambda: ember.unbind(x, dim), lambda: torch.unbind(to_torch(x), dim))


@pytest.mark.parametrize("make_pieces", [
    lambda x: ember.split(x, 2),
    lambda x: x.split(2, dim=1),
    lambda x: ember.split(x, [1, 3]),
    lambda x: x.split_with_sizes([3, 0, 1]),
    lambda x: ember.chunk(x, 3),
    lambda x: x.chunk(2, 1),
    lambda x: ember.unbind(x),
    lambda x: x.unbind(1),
], ids=["split", "split_dim1", "split_list", "split_with_sizes", "chunk", "chunk_dim1", "unbind", "unbind_dim1"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_split_chunk_unbind_return_views(make_pieces, layout):
    base = make_tensor((4, 4), "float32", layout=layout, low=0, high=1)
    pieces = make_pieces(base)
    assert isinstance(pieces, tuple)
    # Each piece starts inside the base's memory and has the base's strides.
    esize = base.element_size()
    for p in pieces:
        if p.numel():
            offset = (p.data_ptr() - base.data_ptr()) // esize
            assert 0 <= offset < base.numel()
            assert p.storage_offset() == base.storage_offset() + offset
    # Writes through the pieces land in base; the pieces cover base once.
    v = base._version
    for i, p in enumerate(pieces):
        if p.numel():
            p.fill_(10 + i)
    assert base._version > v
    assert int((base >= 10).sum().item()) == base.numel()
    for i, p in enumerate(pieces):
        if p.numel():
            assert bool((p == 10 + i).all())


# ---------------------------------------------------------------------------------------------------- repeat
REPEAT_SAMPLES = [
    ((2, 3), (2, 2)),
    ((2, 3), (1, 1)),
    ((2, 3), (2, 1, 3)),
    ((3,), (4,)),
    ((3,), (2, 2)),
    ((), (2, 3)),
    ((), ()),
    ((0, 2), (3, 1)),
    ((2, 3), (0, 1)),
    ((2, 3), (1, 0, 2)),
    ((2, 1, 3), (1, 4, 1)),
]


@pytest.mark.parametrize("shape, repeats", REPEAT_SAMPLES, ids=[f"{s}x{r}" for s, r in REPEAT_SAMPLES])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_repeat(shape, repeats, dtype):
    x = make_tensor(shape, dtype)
    check(lambda t: t.repeat(repeats), lambda t: t.repeat(repeats), x, native_narrow=True)
    if repeats:
        check(lambda t: t.repeat(*repeats), lambda t: t.repeat(*repeats), x, native_narrow=True)


@pytest.mark.parametrize("layout", ["transposed", "strided"])
def test_repeat_non_contiguous(layout):
    x = make_tensor((3, 4), "float32", layout=layout)
    check(lambda t: t.repeat(2, 1, 3), lambda t: t.repeat(2, 1, 3), x)


def test_repeat_is_a_copy():
    x = make_tensor((2, 3), "float32")
    r = x.repeat(1, 1)
    assert r.data_ptr() != x.data_ptr()
    r.fill_(5)
    assert not bool((x == 5).any())


@pytest.mark.parametrize("shape, repeats", [((2, 3), (2,)), ((2, 3), (-1, 1)), ((2, 3), ()), ((), (-2,))])
def test_repeat_errors(shape, repeats):
    x = make_tensor(shape, "float32")
    assert_raises_like(lambda: x.repeat(repeats), lambda: to_torch(x).repeat(repeats))


# ---------------------------------------------------------------------------------------------------- flip
FLIP_SAMPLES = [
    ((5,), [0]),
    ((5,), [-1]),
    ((5,), []),
    ((3, 4), [0]),
    ((3, 4), [1]),
    ((3, 4), [0, 1]),
    ((3, 4), [-1, 0]),
    ((2, 3, 4), [0, 2]),
    ((2, 3, 4), [1]),
    ((2, 3, 4), [2, 1, 0]),
    ((), [0]),
    ((), [-1]),
    ((), []),
    ((0, 3), [0, 1]),
    ((3, 0), [1]),
]


@pytest.mark.parametrize("shape, dims", FLIP_SAMPLES, ids=[f"{s}-{d}" for s, d in FLIP_SAMPLES])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_flip(shape, dims, dtype):
    x = make_tensor(shape, dtype)
    check(lambda t: ember.flip(t, dims), lambda t: torch.flip(t, dims), x, native_narrow=True)


@pytest.mark.parametrize("layout", ["transposed", "strided"])
@pytest.mark.parametrize("dims", [[0], [1], [2], [0, 2], [0, 1, 2]])
def test_flip_non_contiguous(layout, dims):
    x = make_tensor((3, 4, 5), "float64", layout=layout)
    check(lambda t: t.flip(dims), lambda t: t.flip(dims), x)
    check(lambda t: t.flip(*dims), lambda t: t.flip(*dims), x)


def test_flip_of_expanded_and_is_a_copy():
    x = make_tensor((1, 4), "int32").expand(3, 4)
    check(lambda t: t.flip([0, 1]), lambda t: t.flip([0, 1]), x)
    y = make_tensor((3, 4), "int32")
    f = y.flip([0])
    f.fill_(0)
    assert bool((y != 0).any())


@pytest.mark.parametrize("shape, dims", [((3, 4), [0, 0]), ((3, 4), [1, -1]), ((3, 4), [2]), ((3, 4), [-3]),
                                         ((), [1]), ((), [0, -1])])
def test_flip_errors(shape, dims):
    x = make_tensor(shape, "float32")
    assert_raises_like(lambda: ember.flip(x, dims), lambda: torch.flip(to_torch(x), dims))


# ---------------------------------------------------------------------------------------------------- tril, triu
TRI_SHAPES = [(3, 3), (3, 5), (5, 3), (2, 3, 4), (2, 1, 3, 3), (0, 3), (3, 0), (2, 0, 4), (1, 1), (0,)]
DIAGONALS = [0, 1, -1, 2, -2, 100, -100]


@pytest.mark.parametrize("op", ["tril", "triu"])
@pytest.mark.parametrize("shape", TRI_SHAPES, ids=str)
@pytest.mark.parametrize("diagonal", DIAGONALS)
def test_tril_triu(op, shape, diagonal):
    x = make_tensor(shape, "float32")
    check(lambda t: getattr(ember, op)(t, diagonal), lambda t: getattr(torch, op)(t, diagonal), x)
    check(lambda t: getattr(t, op)(diagonal=diagonal), lambda t: getattr(t, op)(diagonal=diagonal), x)


@pytest.mark.parametrize("op", ["tril", "triu"])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_tril_triu_dtypes(op, dtype):
    x = make_tensor((2, 4, 3), dtype)
    check(lambda t: getattr(ember, op)(t, -1), lambda t: getattr(torch, op)(t, -1), x, native_narrow=True)


@pytest.mark.parametrize("op", ["tril", "triu"])
@pytest.mark.parametrize("layout", ["transposed", "strided"])
def test_tril_triu_non_contiguous(op, layout):
    x = make_tensor((2, 4, 5), "float64", layout=layout)
    check(lambda t: getattr(t, op)(1), lambda t: getattr(t, op)(1), x)


@pytest.mark.parametrize("op", ["tril", "triu"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("diagonal", [0, 1, -2])
def test_tril_triu_in_place(op, layout, diagonal):
    x = make_tensor((2, 4, 5), "int16", layout=layout)
    tx = to_torch(x)
    v = x._version
    r = getattr(x, op + "_")(diagonal)
    assert r is x
    assert x._version > v
    assert_same(x, getattr(tx, op + "_")(diagonal))


def test_tril_in_place_writes_through_a_view():
    base = ember.ones(4, 4)
    getattr(base[1:, 1:], "tril_")()
    tbase = torch.ones(4, 4)
    tbase[1:, 1:].tril_()
    assert_same(base, tbase)


@pytest.mark.parametrize("op", ["tril", "triu"])
@pytest.mark.parametrize("out_shape", [(3, 4), (0,), (2, 2)])
def test_tril_triu_out(op, out_shape):
    x = make_tensor((3, 4), "float32")
    out = ember.full(out_shape, 7.0)
    r = getattr(ember, op)(x, 1, out=out)
    assert r is out
    assert_same(out, getattr(torch, op)(to_torch(x), 1, out=torch.full(out_shape, 7.0)))


@pytest.mark.parametrize("op", ["tril", "triu"])
def test_tril_triu_out_is_self(op):
    x = make_tensor((3, 4), "float32")
    tx = to_torch(x)
    getattr(ember, op)(x, out=x)
    getattr(torch, op)(tx, out=tx)
    assert_same(x, tx)


@pytest.mark.parametrize("op", ["tril", "triu"])
@pytest.mark.parametrize("out_dtype", ["float64", "int64", "float16"])
def test_tril_triu_out_of_another_dtype_raises(op, out_dtype):
    x = make_tensor((3, 3), "float32")
    assert_raises_like(lambda: getattr(ember, op)(x, out=ember.empty(0, dtype=edtype(out_dtype))),
                       lambda: getattr(torch, op)(to_torch(x), out=torch.empty(0, dtype=tdtype(out_dtype))))


@pytest.mark.parametrize("op", ["tril", "triu", "tril_", "triu_"])
@pytest.mark.parametrize("shape", [(3,), ()])
def test_tril_triu_errors(op, shape):
    x = make_tensor(shape, "float32")
    e = assert_raises_like(lambda: getattr(x, op)(), lambda: getattr(to_torch(x), op)())
    assert str(e).startswith(op)


# ---------------------------------------------------------------------------------------------------- padding
def _torch_pad(t, pad, mode="constant", value=None):
    """PyTorch's F.pad; reflect and replicate (which PyTorch 1.13 lacks for integers, bool and half) are
    computed in float64 and converted back, exactly for the values of make_tensor."""
    if mode in ("reflect", "replicate") and t.dtype not in (torch.float32, torch.float64):
        return TF.pad(t.double(), pad, mode).to(t.dtype)
    return TF.pad(t, pad, mode) if value is None else TF.pad(t, pad, mode, value)


CONSTANT_SAMPLES = [
    ((2, 3, 4), (1, 2)),
    ((2, 3, 4), (1, 2, 3, 0)),
    ((2, 3, 4), (1, 1, 1, 1, 1, 1)),
    ((2, 3, 4), (-1, -2)),
    ((2, 3, 4), (-1, 2, 0, -1)),
    ((2, 3, 4), (-2, -2)),
    ((2, 3, 4), (-4, 1)),
    ((2, 3, 4), (0, 0)),
    ((2, 3, 4), ()),
    ((5,), (2, 3)),
    ((), ()),
    ((0, 3), (1, 1, 2, 0)),
    ((2, 0), (1, 1)),
]


@pytest.mark.parametrize("shape, pad", CONSTANT_SAMPLES, ids=[f"{s}-{p}" for s, p in CONSTANT_SAMPLES])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_pad_constant(shape, pad, dtype):
    x = make_tensor(shape, dtype)
    check(lambda t: EF.pad(t, pad), lambda t: TF.pad(t, pad), x, native_narrow=True)
    check(lambda t: ember.constant_pad_nd(t, pad, 3), lambda t: torch.constant_pad_nd(t, pad, 3), x,
          native_narrow=True)


@pytest.mark.parametrize("dtype, value", [("float32", 2.5), ("int64", 2.5), ("int32", -7), ("bool", 2),
                                          ("uint8", 255), ("float16", 1e4), ("bfloat16", -3.0),
                                          ("float64", float("nan")), ("float32", float("-inf"))])
def test_pad_constant_value(dtype, value):
    x = make_tensor((2, 3), dtype)
    check(lambda t: EF.pad(t, (1, 2, 1, 0), value=value), lambda t: TF.pad(t, (1, 2, 1, 0), value=value), x,
          native_narrow=True)
    check(lambda t: EF.pad(t, (1, 1), "constant", value), lambda t: TF.pad(t, (1, 1), "constant", value), x,
          native_narrow=True)


@pytest.mark.parametrize("layout", ["transposed", "strided"])
@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_non_contiguous(layout, mode):
    x = make_tensor((2, 3, 4, 5), "float32", layout=layout)
    check(lambda t: EF.pad(t, (2, 1, 1, 2), mode), lambda t: TF.pad(t, (2, 1, 1, 2), mode), x)


# (input shape, pad) for the modes that take 1-3 padded dims of 2-5-dim inputs.
MODE_SAMPLES = [
    ((3, 5), (2, 1)),
    ((2, 3, 5), (2, 3)),
    ((2, 3, 5), (0, 4)),
    ((2, 3, 5), (-1, 2)),
    ((2, 3, 5), (-2, -1)),
    ((0, 3, 5), (1, 1)),
    ((3, 4, 5), (1, 2, 3, 0)),
    ((2, 3, 4, 5), (4, 1, 2, 3)),
    ((2, 3, 4, 5), (-1, 1, 1, -2)),
    ((0, 3, 4, 5), (1, 1, 1, 1)),
    ((3, 4, 5, 6), (1, 2, 3, 0, 1, 1)),
    ((2, 3, 4, 5, 6), (1, 2, 3, 2, 1, 3)),
    ((2, 1, 2, 3, 4), (-1, 1, 1, 1, 0, 1)),
    ((0, 2, 2, 3, 4), (1, 1, 1, 1, 1, 1)),
]


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape, pad", MODE_SAMPLES, ids=[f"{s}-{p}" for s, p in MODE_SAMPLES])
def test_pad_modes(mode, shape, pad):
    x = make_tensor(shape, "float32")
    check(lambda t: EF.pad(t, pad, mode), lambda t: TF.pad(t, pad, mode), x)
    check(lambda t: EF.pad(t, pad, mode=mode), lambda t: TF.pad(t, pad, mode=mode), x)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("shape, pad", [((2, 3, 5), (2, 3)), ((2, 3, 4, 5), (1, 2, 3, 1)),
                                        ((1, 2, 3, 4, 5), (1, 2, 2, 1, 1, 1))], ids=["1d", "2d", "3d"])
def test_pad_modes_every_dtype(mode, dtype, shape, pad):
    # A superset of PyTorch 1.13, which has reflect and replicate pads for floating types only (3-d reflect
    # also for half): these pads copy elements, and Ember's kernels copy any dtype.
    x = make_tensor(shape, dtype)
    expected = _torch_pad(to_torch(x), pad, mode)
    assert_same(EF.pad(x, pad, mode), expected)


@pytest.mark.parametrize("op, shape, pad", [
    ("reflection_pad1d", (3, 5), (2, 4)), ("reflection_pad1d", (2, 3, 5), (1, 0)),
    ("reflection_pad2d", (3, 4, 5), (1, 2, 3, 0)), ("reflection_pad2d", (2, 3, 4, 5), (4, 4, 3, 3)),
    ("reflection_pad3d", (3, 4, 5, 6), (1, 2, 3, 0, 2, 1)), ("reflection_pad3d", (1, 3, 4, 5, 6), (0, 1, 1, 0, 3, 3)),
    ("replication_pad1d", (3, 5), (7, 2)), ("replication_pad1d", (2, 3, 5), (-2, 3)),
    ("replication_pad2d", (3, 4, 5), (6, 2, 3, 0)), ("replication_pad2d", (2, 3, 4, 5), (1, 1, 5, 5)),
    ("replication_pad3d", (3, 4, 5, 6), (1, 2, 3, 0, 7, 1)), ("replication_pad3d", (1, 3, 4, 5, 6), (0, 1, 1, 0, 3, 3)),
    ("_pad_circular", (2, 3, 5), (2, 3)), ("_pad_circular", (2, 3, 4, 5), (1, 2, 3, 4)),
    ("_pad_circular", (1, 2, 3, 4, 5), (1, 0, 2, 2, 3, 1)),
])
def test_aten_pad_ops(op, shape, pad):
    x = make_tensor(shape, "float64")
    check(lambda t: getattr(ember._C._nn, op)(t, pad), lambda t: getattr(torch._C._nn, op)(t, pad), x)


# (id, input shape, pad, mode, value)
PAD_ERRORS = [
    ("odd_length", (2, 3, 4), (1, 2, 3), "constant", None),
    ("too_long", (2, 3), (1, 1, 1, 1, 1, 1), "constant", None),
    ("too_long_0dim", (), (1, 1), "constant", None),
    ("crop_past_start", (2, 3, 4), (-5, 0), "constant", None),
    ("crop_length_negative", (2, 3, 4), (-3, -2), "constant", None),
    ("crop_then_pad_to_zero", (2, 3), (-3, 0, 1, 1), "constant", None),
    ("unknown_mode", (2, 3, 4), (1, 1), "foo", None),
    ("value_with_reflect", (2, 3, 4), (1, 1), "reflect", 1.0),
    ("value_with_circular", (2, 3, 4), (1, 1), "circular", 2.0),
    ("reflect_1d_input", (4,), (1, 1), "reflect", None),
    ("reflect_3d_pad_of_3d_input", (2, 3, 4), (1, 1, 1, 1, 1, 1), "reflect", None),
    ("replicate_4d_with_1d_pad", (2, 3, 4, 5), (1, 1), "replicate", None),
    ("reflect_pad_equal_to_size", (2, 3, 4), (4, 1), "reflect", None),
    ("reflect_right_pad_too_large", (2, 3, 4), (0, 5), "reflect", None),
    ("reflect_2d_pad_too_large", (2, 3, 4), (1, 1, 3, 0), "reflect", None),
    ("reflect_3d_pad_too_large", (1, 2, 3, 4, 5), (1, 1, 1, 1, 3, 0), "reflect", None),
    ("reflect_zero_channels", (2, 0, 3), (1, 1), "reflect", None),
    ("reflect_zero_width", (2, 3, 0), (1, 1), "reflect", None),
    ("reflect_2d_zero_height", (2, 3, 0, 4), (1, 1, 1, 1), "reflect", None),
    ("reflect_3d_zero_channels", (2, 0, 2, 3, 4), (1, 1, 1, 1, 1, 1), "reflect", None),
    ("replicate_zero_width", (2, 3, 0), (1, 1), "replicate", None),
    ("replicate_2d_input_zero_rows", (0, 3), (1, 1), "replicate", None),
    ("replicate_too_small", (2, 3, 4), (-3, -2), "replicate", None),
    ("replicate_2d_too_small", (1, 2, 3, 4), (-3, -2, -2, -2), "replicate", None),
    ("replicate_3d_zero_depth", (1, 2, 0, 3, 4), (1, 1, 1, 1, 1, 1), "replicate", None),
    ("circular_wraps_twice", (2, 3, 4), (5, 1), "circular", None),
    ("circular_2d_input", (3, 4), (1, 1), "circular", None),
    ("circular_empty_result", (2, 3, 4), (-2, -3), "circular", None),
]


@pytest.mark.parametrize("shape, pad, mode, value", [e[1:] for e in PAD_ERRORS], ids=[e[0] for e in PAD_ERRORS])
def test_pad_errors(shape, pad, mode, value):
    x = make_tensor(shape, "float32")
    e = assert_raises_like(lambda: EF.pad(x, pad, mode, value), lambda: TF.pad(to_torch(x), pad, mode, value))
    assert str(e).split(":")[0] in ("pad", "constant_pad_nd", "narrow", "_pad_circular") or \
        str(e).startswith(("reflection_pad", "replication_pad", "start", "Dimension out of range")), str(e)


def test_pad_lives_in_nn_functional_only():
    # As PyTorch: torch.nn.functional.pad is torch._C._nn.pad; there is no torch.pad or torch.reflection_pad1d.
    assert not hasattr(ember, "pad") and not hasattr(torch, "pad")
    assert not hasattr(ember, "reflection_pad1d") and not hasattr(torch, "reflection_pad1d")
    assert hasattr(ember, "constant_pad_nd") and hasattr(torch, "constant_pad_nd")
    for name in ["pad", "reflection_pad1d", "reflection_pad2d", "reflection_pad3d", "replication_pad1d",
                 "replication_pad2d", "replication_pad3d", "_pad_circular"]:
        assert hasattr(ember._C._nn, name) and hasattr(torch._C._nn, name), name
    assert EF.pad.__doc__ and "Raises" in EF.pad.__doc__
    assert ember.nn.functional.pad is EF.pad  # `import ember` brings ember.nn, as `import torch` does


def test_pad_result_is_a_new_tensor():
    x = make_tensor((2, 3), "float32")
    for mode_pad in [("constant", (0, 0)), ("constant", (-1, 0)), ("reflect", (0, 0)), ("replicate", (0, 0))]:
        mode, pad = mode_pad
        r = EF.pad(x.unsqueeze(0), pad, mode)
        r.fill_(9)
        assert not bool((x == 9).any()), mode_pad


# ---------------------------------------------------------------------------------------------------- schemas
def test_schemas_are_pytorchs():
    mine = set(ember._C._op_schemas())
    for name in ["cat", "cat.out", "stack", "stack.out", "split.Tensor", "split.sizes", "split_with_sizes", "chunk",
                 "unbind.int", "repeat", "flip", "tril", "tril.out", "triu", "triu.out", "constant_pad_nd",
                 "reflection_pad1d", "reflection_pad2d", "reflection_pad3d", "replication_pad1d",
                 "replication_pad2d", "replication_pad3d", "_pad_circular", "pad"]:
        base, _, overload = name.partition(".")
        theirs = [str(s) for s in torch._C._jit_get_schemas_for_operator("aten::" + base)
                  if s.overload_name == overload]
        assert len(theirs) == 1, name
        want = theirs[0].replace("SymInt", "int")
        assert want in mine, f"{name}: {want} not among Ember's schemas"
