"""Binary elementwise ops against PyTorch: every dtype and every pair of dtypes (type promotion), broadcasting
(also of zero-size dims), 0-dim tensors and Python numbers (which promote only across categories), NaN and
infinities, non-contiguous inputs, method / in-place / out= variants and the errors PyTorch raises."""
import functools
import itertools

import pytest
import torch

import ember
from conftest import (ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, TOLERANCES, assert_raises_like, assert_same, check,
                      dtype_name, edtype, make_tensor, special_tensor, tdtype, to_torch)


def _both(name, **kwargs):
    return (functools.partial(getattr(ember, name), **kwargs), functools.partial(getattr(torch, name), **kwargs))


# name -> (ember function, torch function, constraint on the operands)
#   "divisor": no zeros (integer division by zero raises, tested separately); "exponent": integers in 0..4;
#   "shift": both operands (either may be the shift amount) in 0..4 (see test_shift_out_of_range).
BINARY_OPS = {
    "add": (*_both("add"), None),
    "add_alpha": (*_both("add", alpha=2), None),
    "sub": (*_both("sub"), None),
    "sub_alpha": (*_both("sub", alpha=3), None),
    "mul": (*_both("mul"), None),
    "div": (*_both("div"), None),
    "div_trunc": (*_both("div", rounding_mode="trunc"), "divisor"),
    "div_floor": (*_both("div", rounding_mode="floor"), "divisor"),
    "floor_divide": (*_both("floor_divide"), "divisor"),
    "remainder": (*_both("remainder"), "divisor"),
    "fmod": (*_both("fmod"), "divisor"),
    "pow": (*_both("pow"), "exponent"),
    "atan2": (*_both("atan2"), None),
    "maximum": (*_both("maximum"), None),
    "minimum": (*_both("minimum"), None),
    "fmax": (*_both("fmax"), None),
    "fmin": (*_both("fmin"), None),
    "eq": (*_both("eq"), None),
    "ne": (*_both("ne"), None),
    "lt": (*_both("lt"), None),
    "le": (*_both("le"), None),
    "gt": (*_both("gt"), None),
    "ge": (*_both("ge"), None),
    "logical_and": (*_both("logical_and"), None),
    "logical_or": (*_both("logical_or"), None),
    "logical_xor": (*_both("logical_xor"), None),
    "bitwise_and": (*_both("bitwise_and"), None),
    "bitwise_or": (*_both("bitwise_or"), None),
    "bitwise_xor": (*_both("bitwise_xor"), None),
    "bitwise_left_shift": (*_both("bitwise_left_shift"), "shift"),
    "bitwise_right_shift": (*_both("bitwise_right_shift"), "shift"),
}


def _rhs(constraint, shape, dtype, layout="contiguous", seed=1):
    if constraint == "divisor":
        return make_tensor(shape, dtype, layout=layout, seed=seed, nonzero=True)
    if constraint in ("exponent", "shift"):
        return make_tensor(shape, dtype, layout=layout, seed=seed, low=0, high=5)
    return make_tensor(shape, dtype, layout=layout, seed=seed)


def _lhs(constraint, shape, dtype, layout="contiguous"):
    return _rhs(constraint, shape, dtype, layout, seed=0) if constraint == "shift" else \
        make_tensor(shape, dtype, layout=layout)


# (id, shape of self, layout of self, shape of other, layout of other)
SAMPLES = [
    ("same", (2, 3), "contiguous", (2, 3), "contiguous"),
    ("row", (2, 3), "contiguous", (3,), "contiguous"),
    ("outer", (4, 1), "contiguous", (1, 3), "contiguous"),
    ("0dim_other", (4,), "contiguous", (), "contiguous"),
    ("0dim_self", (), "contiguous", (4,), "contiguous"),
    ("both_0dim", (), "contiguous", (), "contiguous"),
    ("empty", (0,), "contiguous", (0,), "contiguous"),
    ("zero_size_broadcast", (2, 0), "contiguous", (2, 1), "contiguous"),
    ("zero_with_one", (1, 0), "contiguous", (5, 1), "contiguous"),
    ("transposed", (3, 4), "transposed", (3, 4), "contiguous"),
    ("strided_and_transposed", (3, 5), "strided", (3, 5), "transposed"),
    ("long", (1030,), "contiguous", (1030,), "contiguous"),
]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("op", sorted(BINARY_OPS))
def test_binary_matches_reference(op, dtype):
    efn, tfn, constraint = BINARY_OPS[op]
    for sample, sa, la, sb, lb in SAMPLES:
        a = make_tensor(sa, dtype, layout=la)
        b = _rhs(constraint, sb, dtype, lb)
        try:
            check(efn, tfn, a, b)
        except AssertionError as e:
            raise AssertionError(f"{op}({sample} {dtype}): {e}") from None


@pytest.mark.parametrize("dtype_a", ALL_DTYPES)
@pytest.mark.parametrize("op", sorted(BINARY_OPS))
def test_binary_type_promotion(op, dtype_a):
    # Every pair of dtypes; a 0-dim tensor of another dtype promotes only across categories.
    efn, tfn, constraint = BINARY_OPS[op]
    for dtype_b in ALL_DTYPES:
        for shape_b in [(2, 3), ()]:
            a = _lhs(constraint, (2, 3), dtype_a)
            b = _rhs(constraint, shape_b, dtype_b)
            try:
                check(efn, tfn, a, b)
                check(efn, tfn, b, a)
            except AssertionError as e:
                raise AssertionError(f"{op}({dtype_a}, {dtype_b}{list(shape_b)}): {e}") from None


# Python numbers as the second operand: a "wrapped number" that takes part in promotion only across
# categories (int32 tensor + 2.5 is float32, uint8 tensor + 300 stays uint8).
NUMBERS = [2, -3, 2.5, -0.5, True, False, 300, 1e10]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("op", sorted(BINARY_OPS))
def test_binary_python_number(op, dtype):
    efn, tfn, constraint = BINARY_OPS[op]
    for number in NUMBERS:
        if constraint == "divisor" and number in (0, False):
            continue
        if constraint in ("exponent", "shift") and not isinstance(number, bool) and not 0 <= number <= 4:
            continue
        a = make_tensor((2, 3), dtype, layout="transposed")
        try:
            check(efn, tfn, a, number)
        except AssertionError as e:
            raise AssertionError(f"{op}({dtype}, {number!r}): {e}") from None


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("op", sorted(BINARY_OPS))
def test_binary_special_values(op, dtype):
    # NaN, infinities and signed zeros against each other (floats); extremes (integers, shifts aside).
    efn, tfn, constraint = BINARY_OPS[op]
    a = special_tensor(dtype)
    n = a.shape[0]
    if dtype in FLOAT_DTYPES or constraint is None:
        b = a
    elif constraint == "divisor":  # positive: PyTorch itself dies of SIGFPE on INT_MIN / -1 (see below)
        b = make_tensor((n,), dtype, low=1, high=10)
    else:
        b = _rhs(constraint, (n,), dtype)
    check(efn, tfn, a.reshape(n, 1), b.reshape(1, n))


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64"])
@pytest.mark.parametrize("op", ["div_trunc", "div_floor", "floor_divide", "remainder", "fmod"])
def test_integer_minimum_divided_by_minus_one(op, dtype):
    # PyTorch 1.13 dies of SIGFPE here (x86's idiv traps); Ember must not abort the process (DESIGN.md:
    # "Bad input never aborts the process"). The quotient wraps to the minimum, the remainder is 0, as
    # two's complement arithmetic (and NumPy) give.
    efn = BINARY_OPS[op][0]
    lo = torch.iinfo(tdtype(dtype)).min
    a = ember.tensor([lo, lo, 7], dtype=edtype(dtype))
    b = ember.tensor([-1, 1, -1], dtype=edtype(dtype))
    r = efn(a, b)
    assert r.dtype == edtype(dtype)
    if op in ("remainder", "fmod"):
        assert r.tolist() == [0, 0, 0]
    else:
        assert r.tolist() == [lo, lo, -7]


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_shift_out_of_range(dtype):
    # Deliberate difference: a shift by a negative amount or by the width of the type or more gives 0 (left)
    # or the sign fill (right), PyTorch 2's defined rule. PyTorch 1.13 returns whatever x86 gives for the
    # C++ undefined behaviour (the amount masked to 5 or 6 bits: 1 << 32 == 1 for int32).
    bits = torch.iinfo(tdtype(dtype)).bits
    a = ember.tensor([1, 5, 100] if dtype == "uint8" else [1, -8, 100], dtype=edtype(dtype))
    for amount in [bits, bits + 1, 64, 70] + ([] if dtype == "uint8" else [-1, -6]):
        s = ember.full((3,), amount, dtype=edtype(dtype)) if -128 <= amount < (256 if dtype == "uint8" else 128) \
            or dtype not in ("uint8", "int8") else None
        if s is None:
            continue
        assert ember.bitwise_left_shift(a, s).tolist() == [0, 0, 0]
        fill = [0, -1, 0] if dtype != "uint8" else [0, 0, 0]
        assert ember.bitwise_right_shift(a, s).tolist() == fill
    # In range, including width - 1, both agree.
    s = ember.tensor([bits - 1, 1, 3], dtype=edtype(dtype))
    check(ember.bitwise_left_shift, torch.bitwise_left_shift, a, s)
    check(ember.bitwise_right_shift, torch.bitwise_right_shift, a, s)
