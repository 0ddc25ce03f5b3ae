"""Python indexing x[...] and x[...] = v against PyTorch 1.13 (Note [python indexing] in python/csrc/indexing.cpp):
ints, slices, None, Ellipsis, Python bools, bool masks at every position, integer tensors and (nested) lists,
mixed; result shapes (advanced-index dims in place when adjacent, first when separated), views for basic
indexing and copies for advanced indexing, errors, and assignment of tensors and numbers with broadcasting,
duplicate indices and every dtype."""
import numpy as np
import pytest
import torch

import ember
from conftest import ALL_DTYPES, assert_raises_like, assert_same, from_array, make_tensor, to_torch

E = Ellipsis


def idx(values, dtype="int64"):
    return from_array(np.array(values, dtype=dtype), dtype)


def to_torch_index(index):
    """The same index for PyTorch: ember tensors converted, tuples and lists element-wise."""
    if isinstance(index, ember.Tensor):
        return to_torch(index)
    if isinstance(index, tuple):
        return tuple(to_torch_index(i) for i in index)
    if isinstance(index, list):
        return [to_torch_index(i) for i in index]
    return index


def check_getitem(x, index):
    """x[index] as PyTorch's: the same values, dtype and shape, or the same exception type."""
    t = to_torch(x)
    ti = to_torch_index(index)
    try:
        expected = t[ti]
    except Exception as exc:  # noqa: BLE001
        with pytest.raises(Exception) as info:
            x[index]
        assert type(info.value) is type(exc), f"PyTorch raised {type(exc).__name__}({exc}), " \
                                              f"Ember raised {type(info.value).__name__}({info.value})"
        return None
    actual = x[index]
    assert_same(actual, expected, msg=f"x{list(x.shape)}[{index!r}]: ")
    return actual


def check_setitem(x, index, value):
    """x[index] = value as PyTorch's: the same resulting tensor, or the same exception type."""
    t = to_torch(x).clone()
    e = x.clone()
    tv = to_torch(value) if isinstance(value, ember.Tensor) else value
    try:
        t[to_torch_index(index)] = tv
    except Exception as exc:  # noqa: BLE001
        with pytest.raises(Exception) as info:
            e[index] = value
        assert type(info.value) is type(exc), f"PyTorch raised {type(exc).__name__}({exc}), " \
                                              f"Ember raised {type(info.value).__name__}({info.value})"
        return
    e[index] = value
    assert_same(e, t, msg=f"x{list(x.shape)}[{index!r}] = {value!r}: ")


X = make_tensor((3, 4, 5), "float32")
B0 = idx([True, False, True], "bool")
B1 = idx([False, True, True, False], "bool")
B2 = idx([True, False, True, True, False], "bool")
M01 = idx(np.arange(12).reshape(3, 4) % 3 == 0, "bool")
M12 = idx(np.arange(20).reshape(4, 5) % 2 == 0, "bool")
M012 = idx(np.arange(60).reshape(3, 4, 5) % 7 == 0, "bool")
I = idx([2, 0, 2])
J = idx([[1], [3]])

BASIC = [
    0, -1, 2, slice(None), slice(1, None), slice(None, None, 2), slice(-3, -1), slice(5, 1), slice(-100, 100, 3),
    None, E, (0, 1), (0, 1, 2), (-1, slice(1, 3), 4), (E, 0), (0, E), (E, None), (None, E, None),
    (slice(None), None, 1),
    (1, E, 2), (None, None, 0), (E, E), (0, E, None, 1), (slice(1, 2), slice(0, 0), slice(None)), (idx(-1),),
    (0, idx(2)),
]

ADVANCED = [
    I, [2, 0], [[0, 1], [1, 2]], [-1, -3], [], (I,), (I, I), (I, slice(None), idx([4, 0, 1])), (slice(None), I),
    (slice(None), slice(None), I), (I, J), (J, slice(1, 3)), (slice(None), J, idx([0, 4])), (E, I), (I, E),
    (None, I), (I, None), (I, None, idx([0])), (0, I), (I, 0), (0, slice(None), I), (I, 1, I),
    (None, I, slice(None), J), ([0, 1], [1, 2]), (idx(2), I), ([[0, 1]], slice(None), [[1], [2]]),
    ([0.0, 1.0],), (idx([[0, 1], [2, 2]]),), (idx(np.zeros((0,), "int64")), slice(None)),
    (slice(None), idx(np.zeros((2, 0), "int64"))),
]

MASKS = [
    B0, (B0,), (slice(None), B1), (E, B2), (B0, B1), (B0, slice(None), B2), (M01,), (slice(None), M12), (M012,),
    (M01, 1), (M01, None, slice(1, 4)), (B0, I), (None, M01), (0, M12), [True, False, True], ([True, False, True],),
    True, False, (True,), (E, True), (None, False), (0, True), (idx(True, "bool"),), (idx(False, "bool"), 1),
    (B0, [0, 1]), (idx(np.zeros((3, 4), bool), "bool"),), (idx([1, 0, 1], "uint8"),),
]

ERRORS = [
    3, -4, (0, 4), (0, 0, 5), (0, 0, 0, 0), (E, 0, 0, 0, 0), slice(None, None, -1),
    (slice(None), slice(None, None, -2)),
    slice(None, None, 0), idx([3]), idx([-4]), [0, 3], (I, idx([0, 1])), (B1,), (M12,), (B0, B0), 1.5, "a", (1.5,),
    idx([0], "int32"), idx([0.0], "float32"), idx([1], "int16"), (E, B0), {0: 1}, (slice("a", None),),
]


@pytest.mark.parametrize("index", BASIC, ids=repr)
def test_basic_indexing_is_a_view(index):
    r = check_getitem(X, index)
    if r is not None and r.numel():  # writing through the result shows in X: a view
        y = X.clone()
        y[index].fill_(123.0)
        t = to_torch(X).clone()
        t[to_torch_index(index)] = 123.0
        assert_same(y, t)


@pytest.mark.parametrize("index", ADVANCED, ids=repr)
def test_advanced_indexing(index):
    r = check_getitem(X, index)
    if r is not None and r.numel():  # a copy: writing to it leaves X alone
        y = X.clone()
        y[index].fill_(123.0)
        assert_same(y, to_torch(X))


@pytest.mark.filterwarnings("ignore:indexing with dtype torch.uint8")
@pytest.mark.parametrize("index", MASKS, ids=repr)
def test_bool_masks(index):
    check_getitem(X, index)


@pytest.mark.parametrize("index", ERRORS, ids=repr)
def test_errors(index):
    check_getitem(X, index)


@pytest.mark.parametrize("layout", ["transposed", "strided"])
@pytest.mark.parametrize("index", [I, (slice(None), I), (B0, slice(None), B2), (E, idx([[1, 0]])), (1, I, None),
                                   (M01,), (slice(1, 3), slice(None), 0)], ids=repr)
def test_non_contiguous_self(layout, index):
    x = make_tensor((3, 4, 5), "float64", layout=layout)
    check_getitem(x, index)
    check_setitem(x, index, 7.0)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("index", [1, (slice(None), I), (M01,), (I, J), (E, B2), (0, [0, 0, 3])], ids=repr)
def test_every_dtype(dtype, index):
    x = make_tensor((3, 4, 5), dtype)
    check_getitem(x, index)
    check_setitem(x, index, True if dtype == "bool" else 3)
    check_setitem(x, index, make_tensor((5,), dtype, seed=1))


@pytest.mark.parametrize("shape, index", [
    ((), None), ((), E), ((), ()), ((), True), ((), False), ((), 0), ((), (None, E)), ((), idx(True, "bool")),
    ((), [0]), ((0,), [0]), ((0,), []), ((0, 3), (slice(None), [0, 2])), ((0, 3), [0]), ((2, 0), (slice(None), [])),
    ((2, 0), (slice(None), [0])), ((0,), idx(np.zeros(0, bool), "bool")), ((3, 0), B0), ((1, 2, 3), (0, 0, 0)),
], ids=repr)
def test_zero_dim_and_empty(shape, index):
    x = make_tensor(shape, "int32")
    check_getitem(x, index)
    check_setitem(x, index, 5)


def test_int_tensor_index_keeps_view_and_lists_of_tensors():
    x = make_tensor((3, 4), "float32")
    v = x[idx(1)]  # a 0-dim integer tensor selects, as an int
    v.fill_(0.0)
    assert x[1].tolist() == [0.0] * 4
    check_getitem(x, [idx(0), idx(2)])  # a list holding tensors is a tuple
    check_getitem(x, (idx([0, 1]), [2, 3]))
    check_getitem(x, np.array([2, 0]))


def test_non_contiguous_and_broadcast_index_tensors():
    x = make_tensor((4, 5, 6), "int16")
    rows = idx([[0, 1, 3], [2, 2, 0]]).t()  # (3, 2), transposed
    cols = idx([[5], [0], [3]])              # (3, 1): broadcasts against rows
    every_other = idx([0, 9, 1, 9, 3])[::2]  # [0, 1, 3], strided
    for index in [rows, (rows, slice(None), cols), (slice(None), rows, cols), (every_other, None, every_other),
                  (x[:, 0, 0] > 0,), (slice(None), x[0, :, 0] > 0, every_other)]:
        check_getitem(x, index)
        check_setitem(x, index, 9)
        check_setitem(x, index, make_tensor((1,), "int16", seed=2))


def test_index_with_large_list_is_one_index():
    x = make_tensor((40,), "float32")
    index = list(range(39, -1, -1))  # >= 32 items: never read as a tuple
    check_getitem(x, index)
    check_getitem(make_tensor((40, 40), "float32"), [[0, 1]] * 33)


# ---------------------------------------------------------------------------------------------- assignment
SET_INDICES = [
    0, -1, slice(1, 3), None, E, True, False, (0, 1), (E, 2), (None, 0), I, [0, 2], (I, I), (I, slice(None), 0),
    (slice(None), I), (I, J), (slice(None), J, idx([0, 4])), (B0,), (slice(None), B1), (M01,), (M012,),
    (M01, slice(1, 3)), (B0, B1), (0, M12), ([0, 0, 0], [1, 1, 1]),
]


@pytest.mark.parametrize("index", SET_INDICES, ids=repr)
@pytest.mark.parametrize("value", ["int", "float", "bool", "0dim", "row", "1x1row", "col", "full"])
def test_setitem(index, value):
    x = make_tensor((3, 4, 5), "float32")
    try:
        target_shape = tuple(to_torch(x)[to_torch_index(index)].shape)
    except IndexError:
        target_shape = (1,)
    values = {
        "int": 7, "float": -2.5, "bool": True, "0dim": make_tensor((), "float32", seed=3),
        "row": make_tensor(target_shape[-1:], "float32", seed=4),
        "1x1row": make_tensor((1, 1) + target_shape[-1:], "float32", seed=5),
        "col": make_tensor(target_shape[:1] + (1,) * max(len(target_shape) - 1, 0), "float32", seed=6),
        "full": make_tensor(target_shape, "float32", seed=7),
    }
    check_setitem(x, index, values[value])


@pytest.mark.parametrize("case", [
    "dtype_mismatch", "value_int_into_float", "float_into_int_number", "float_tensor_into_int_mask",
    "overflow", "overflow_mask", "shape_mismatch", "index_out_of_range", "bad_value_type", "list_value",
    "negative_step", "too_many", "nan_into_int", "uint8_wrap", "uint8_wrap_basic", "uint8_wrap_mask",
    "uint8_too_negative",
])
def test_setitem_errors_and_conversions(case):
    x = make_tensor((3, 4), "int64")
    xf = make_tensor((3, 4), "float32")
    cases = {
        "dtype_mismatch": (xf, [0, 1], make_tensor((4,), "float64")),
        "value_int_into_float": (xf, [0], make_tensor((4,), "int64")),
        "float_into_int_number": (x, [0, 2], 1.5),
        "float_tensor_into_int_mask": (x, x > 3, from_array(np.array(1.5), "float32")),
        "overflow": (make_tensor((3,), "uint8"), [0], 300),
        "overflow_mask": (make_tensor((3,), "uint8"), idx([True, False, True], "bool"), 1000),
        "shape_mismatch": (x, [0], make_tensor((2, 4), "int64")),
        "index_out_of_range": (x, ([0], 5), 1),
        "bad_value_type": (x, 0, "a"),
        "list_value": (x, 0, [1, 2, 3, 4]),
        "negative_step": (x, slice(None, None, -1), 1),
        "too_many": (x, (0, 0, 0), 1),
        "nan_into_int": (x, [0], float("nan")),
        "uint8_wrap": (make_tensor((3,), "uint8"), [0, 2], -1),  # integers from -255 wrap, as PyTorch
        "uint8_wrap_basic": (make_tensor((3,), "uint8"), 1, -255),
        "uint8_wrap_mask": (make_tensor((3,), "uint8"), idx([True, False, True], "bool"), -3),
        "uint8_too_negative": (make_tensor((3,), "uint8"), 1, -256),
    }
    check_setitem(*cases[case])


def test_setitem_duplicates_last_write_wins():
    x = ember.zeros(5)
    x[[1, 1, 1, 3]] = ember.tensor([1.0, 2.0, 3.0, 4.0])
    t = torch.zeros(5)
    t[[1, 1, 1, 3]] = torch.tensor([1.0, 2.0, 3.0, 4.0])
    assert_same(x, t)
    assert x.tolist() == [0.0, 3.0, 0.0, 4.0, 0.0]


def test_setitem_overlap_of_value_and_target():
    x = make_tensor((3, 4), "int64")
    t = to_torch(x)
    assert_raises_like(lambda: x.__setitem__([0, 1], x[2]), lambda: t.__setitem__([0, 1], t[2]))
    y, ty = x.clone(), to_torch(x).clone()
    y[0] = y[1]  # basic indexing: copy_ handles the overlap
    ty[0] = ty[1]
    assert_same(y, ty)


def test_setitem_bumps_version_and_keeps_identity():
    x = ember.zeros(3, 4)
    v = x._version
    ident = id(x)
    x[[0, 2]] = 1.0
    x[x > 0] = 2.0
    x[:, 1] = 3.0
    assert id(x) == ident and x._version > v
    t = torch.zeros(3, 4)
    t[[0, 2]] = 1.0
    t[t > 0] = 2.0
    t[:, 1] = 3.0
    assert_same(x, t)


def test_delete_raises_type_error():
    x = ember.zeros(3)
    with pytest.raises(TypeError):
        del x[0]
