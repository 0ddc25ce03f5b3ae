"""Type promotion against PyTorch: promote_types, result_type and can_cast over every pair of dtypes, with
0-dim tensors and Python numbers (which promote only across categories), the dtype attributes, and the
default dtype's part in it."""
import itertools

import pytest
import torch

import ember
from conftest import ALL_DTYPES, assert_raises_like, dtype_name, edtype, make_tensor, tdtype

PAIRS = list(itertools.product(ALL_DTYPES, ALL_DTYPES))


@pytest.mark.parametrize("a, b", PAIRS)
def test_promote_types(a, b):
    assert dtype_name(ember.promote_types(edtype(a), edtype(b))) == dtype_name(
        torch.promote_types(tdtype(a), tdtype(b)))


@pytest.mark.parametrize("a, b", PAIRS)
def test_can_cast(a, b):
    assert ember.can_cast(edtype(a), edtype(b)) == torch.can_cast(tdtype(a), tdtype(b))


@pytest.mark.parametrize("a, b", PAIRS)
def test_result_type_of_tensors(a, b):
    # dims > 0 on both sides, a 0-dim tensor on either side, and both 0-dim.
    for sa, sb in [((2,), (2,)), ((2,), ()), ((), (2,)), ((), ())]:
        x, y = make_tensor(sa, a), make_tensor(sb, b)
        tx, ty = torch.empty(sa, dtype=tdtype(a)), torch.empty(sb, dtype=tdtype(b))
        assert dtype_name(ember.result_type(x, y)) == dtype_name(torch.result_type(tx, ty)), (sa, sb)


@pytest.mark.parametrize("a", ALL_DTYPES)
@pytest.mark.parametrize("number", [True, 2, -3, 2.5, 1e300, 2 ** 40], ids=repr)
def test_result_type_with_numbers(a, number):
    for shape in [(3,), ()]:
        x, tx = make_tensor(shape, a), torch.empty(shape, dtype=tdtype(a))
        assert dtype_name(ember.result_type(x, number)) == dtype_name(torch.result_type(tx, number))
        assert dtype_name(ember.result_type(number, x)) == dtype_name(torch.result_type(number, tx))


@pytest.mark.parametrize("default", ["float64", "float16", "bfloat16"])
def test_result_type_follows_default_dtype(default):
    ember.set_default_dtype(edtype(default))
    torch.set_default_dtype(tdtype(default))
    for a in ALL_DTYPES:
        x, tx = make_tensor((2,), a), torch.empty(2, dtype=tdtype(a))
        assert dtype_name(ember.result_type(x, 1.5)) == dtype_name(torch.result_type(tx, 1.5))


def test_result_type_errors():
    x = make_tensor((2,), "float32")
    assert_raises_like(lambda: ember.result_type(x, "a"), lambda: torch.result_type(torch.ones(2), "a"))
    assert_raises_like(lambda: ember.promote_types(ember.float32, 1), lambda: torch.promote_types(torch.float32, 1))
    assert_raises_like(lambda: ember.can_cast(ember.float32), lambda: torch.can_cast(torch.float32))


@pytest.mark.parametrize("name", ALL_DTYPES)
def test_dtype_attributes(name):
    e, t = edtype(name), tdtype(name)
    assert e.is_floating_point == t.is_floating_point
    assert e.is_signed == t.is_signed
    assert e.is_complex == t.is_complex
    assert e.itemsize == t.itemsize if hasattr(t, "itemsize") else True
    assert e == edtype(name) and e != (ember.float32 if name != "float32" else ember.int32)
    assert hash(e) == hash(edtype(name))
    assert ember.empty(1, dtype=e).element_size() == torch.empty(1, dtype=t).element_size()


def test_dtype_aliases():
    for alias, name in [("half", "float16"), ("float", "float32"), ("double", "float64"), ("short", "int16"),
                        ("int", "int32"), ("long", "int64")]:
        assert getattr(ember, alias) is edtype(name)
        assert dtype_name(getattr(torch, alias)) == name


def test_dtype_pickles_to_itself():
    import pickle

    for name in ALL_DTYPES:
        assert pickle.loads(pickle.dumps(edtype(name))) is edtype(name)
