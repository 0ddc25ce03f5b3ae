"""Basic indexing against PyTorch: ints (also negative and 0-dim integer tensors), slices (step >= 1, bounds
clamped), None, Ellipsis and tuples of them; the views share memory with the base; __setitem__ with numbers
and tensors (broadcast and converted); and the errors (IndexError, ValueError, TypeError) PyTorch raises."""
import numpy as np
import pytest
import torch

import ember
from conftest import ALL_DTYPES, assert_raises_like, assert_same, check, make_tensor, to_torch, torch_like

INDICES = [
    0, 1, -1, -3,
    slice(None), slice(1, None), slice(None, 2), slice(1, 3), slice(None, None, 2), slice(1, None, 3),
    slice(-2, None), slice(None, -1), slice(-100, 100), slice(5, 1), slice(10, 20), slice(2, 2),
    slice(None, None, 10),
    None, Ellipsis,
    (0, 1), (-1, -1), (1, slice(None)), (slice(None), 2), (slice(None), slice(None), 0),
    (Ellipsis, 1), (1, Ellipsis), (0, Ellipsis, 0), (None, 0), (0, None, slice(1, 3)), (Ellipsis, None),
    (None, Ellipsis, None), (slice(None, None, 2), None, -1), (), (1, 2, 3), (slice(1, 2), slice(0, 4, 3), 1),
    (None, None), (Ellipsis,), (0, slice(None), None, -2),
    (Ellipsis, Ellipsis), (Ellipsis, 0, Ellipsis),  # PyTorch accepts several ellipses (NumPy does not)
]


def _id(index):
    return repr(index).replace(" ", "")


@pytest.mark.parametrize("index", INDICES, ids=_id)
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_getitem_matches_reference(index, layout):
    x = make_tensor((3, 4, 5), "float32", layout=layout)
    tx = torch_like(x)
    r = check(lambda a: a[index], lambda a: a[index], x)
    if r is not None:
        tr = tx[index]
        assert (r.stride(), r.storage_offset()) == (tr.stride(), tr.storage_offset())


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_getitem_every_dtype(dtype):
    x = make_tensor((3, 4), dtype)
    for index in [1, (1, 2), slice(None, None, 2), (Ellipsis, -1), None]:
        check(lambda a: a[index], lambda a: a[index], x)


def test_getitem_of_0dim():
    x = make_tensor((), "int64")
    for index in [None, Ellipsis, (), (None, None), (Ellipsis, None)]:
        check(lambda a: a[index], lambda a: a[index], x)
    for index in [0, slice(None), (0,)]:
        assert_raises_like(lambda: x[index], lambda: to_torch(x)[index])


def test_getitem_of_zero_size():
    x = make_tensor((2, 0, 3), "float32")
    for index in [0, (slice(None), slice(None), 1), (Ellipsis, slice(1, 2)), (1, slice(None))]:
        check(lambda a: a[index], lambda a: a[index], x)
    assert_raises_like(lambda: x[:, 0], lambda: to_torch(x)[:, 0])


def test_integer_tensors_and_numpy_integers_as_indices():
    x = make_tensor((4, 5), "float32")
    for index in [ember.tensor(2), (ember.tensor(-1), 1), np.int64(3), (np.int32(1), slice(np.int64(1), None))]:
        tindex = to_torch(index) if isinstance(index, ember.Tensor) else \
            tuple(to_torch(i) for i in index) if isinstance(index, tuple) else index
        assert_same(x[index], to_torch(x)[tindex])


def test_getitem_returns_views():
    x = make_tensor((3, 4), "float32")
    v = x[1:, ::2]
    v.fill_(7)
    tx = to_torch(x)
    tx[1:, ::2] = 7
    assert_same(x, tx)
    assert x[1]._version == x._version


GETITEM_ERRORS = [
    ("int_out_of_range", 3),
    ("negative_out_of_range", -4),
    ("second_dim_out_of_range", (0, 4)),
    ("too_many_indices", (0, 0, 0)),
    ("too_many_with_ellipsis", (0, Ellipsis, 0, 0)),
    ("ellipses_then_index", (Ellipsis, Ellipsis, 0)),
    ("negative_step", slice(None, None, -1)),
    ("zero_step", slice(None, None, 0)),
    ("float_index", 1.0),
    ("string_index", "a"),
    ("float_slice_bound", slice(0.5, 2)),
    ("float_tensor_index", "FLOAT_TENSOR"),
    ("huge_int", 2 ** 70),
]


@pytest.mark.parametrize("case", GETITEM_ERRORS, ids=[c[0] for c in GETITEM_ERRORS])
def test_getitem_errors(case):
    x = make_tensor((3, 4), "float32")
    index = case[1]
    if index == "FLOAT_TENSOR":
        assert_raises_like(lambda: x[ember.tensor(1.0)], lambda: to_torch(x)[torch.tensor(1.0)])
        return
    assert_raises_like(lambda: x[index], lambda: to_torch(x)[index])


# ---------------------------------------------------------------------------------------------- __setitem__
SET_INDICES = [0, -1, (1, 2), slice(1, 3), (slice(None), 1), (Ellipsis, slice(None, None, 2)), None, Ellipsis,
               (0, None), (slice(None), slice(1, None, 2))]


@pytest.mark.parametrize("index", SET_INDICES, ids=_id)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_setitem_number(index, dtype):
    # Numbers are converted to the tensor's dtype (3.7 into int truncates, True into float is 1).
    for value in [3, -1, 2.5, True, 0]:
        if dtype == "uint8" and value == -1:
            continue
        x = make_tensor((3, 4), dtype, layout="transposed")
        tx = torch_like(x)
        tx[index] = value
        x[index] = value
        assert_same(x, tx)


@pytest.mark.parametrize("index", SET_INDICES, ids=_id)
def test_setitem_tensor(index):
    # A tensor value is broadcast to the indexed shape (never the other way round) and converted to the
    # target's dtype.
    for value_shape, value_dtype in [((), "float64"), ((1,), "int32"), (None, "float32"), (None, "bool")]:
        x = make_tensor((3, 4), "float32")
        shape = tuple(x[index].shape) if value_shape is None else value_shape
        v = make_tensor(shape, value_dtype, seed=3)

        def setitem(a, b):
            a[index] = b
            return a

        check(setitem, setitem, x, v)


def test_setitem_converts_to_integer_dtype():
    for dtype in ["int32", "uint8", "bool", "float16"]:
        x = make_tensor((4,), dtype)
        tx = to_torch(x)
        x[1:3] = ember.tensor([2.7, -0.5]) if dtype != "uint8" else ember.tensor([2.7, 0.5])
        tx[1:3] = torch.tensor([2.7, -0.5]) if dtype != "uint8" else torch.tensor([2.7, 0.5])
        assert_same(x, tx)


def test_setitem_through_a_view_and_from_an_overlapping_source():
    x = make_tensor((4, 4), "float32")
    tx = to_torch(x)
    x.t()[0] = 5.0
    tx.t()[0] = 5.0
    assert_same(x, tx)
    x[1] = x[0]  # distinct rows of one storage
    tx[1] = tx[0]
    assert_same(x, tx)


SETITEM_ERRORS = [
    ("shape_mismatch", slice(0, 2), "TENSOR_3"),
    ("index_out_of_range", 5, 1.0),
    ("negative_step", slice(None, None, -1), 1.0),
    ("string_value", 0, "a"),
    ("none_value", 0, None),
    ("list_value", 0, [1.0, 2.0, 3.0, 4.0]),
    ("int_overflow", 0, 2 ** 70),
]


@pytest.mark.parametrize("case", SETITEM_ERRORS, ids=[c[0] for c in SETITEM_ERRORS])
def test_setitem_errors(case):
    _, index, value = case
    x = make_tensor((4, 4), "float32")
    tx = to_torch(x)
    ev, tv = (ember.ones(3), torch.ones(3)) if value == "TENSOR_3" else (value, value)

    def eset():
        x[index] = ev

    def tset():
        tx[index] = tv

    assert_raises_like(eset, tset)


def test_setitem_value_overflowing_the_dtype():
    x = make_tensor((3,), "int8")
    assert_raises_like(lambda: x.__setitem__(0, 300), lambda: to_torch(x).__setitem__(0, 300))
    y = make_tensor((3,), "float16")
    assert_raises_like(lambda: y.__setitem__(0, 1e6), lambda: to_torch(y).__setitem__(0, 1e6))


def test_delitem_is_typeerror():
    x = make_tensor((3,), "float32")

    def edel():
        del x[0]

    def tdel():
        tx = to_torch(x)
        del tx[0]

    assert_raises_like(edel, tdel)


def test_setitem_drops_leading_ones_of_the_value():
    for index, shape in [(0, (1, 4)), (0, (1, 1, 4)), ((1, 2), (1,)), ((1, 2), (1, 1)), (slice(0, 2), (1, 2, 4))]:
        x = make_tensor((3, 4), "float32")
        v = make_tensor(shape, "float32", seed=2)

        def setitem(a, b):
            a[index] = b
            return a

        check(setitem, setitem, x, v)
