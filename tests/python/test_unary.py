"""Unary elementwise ops against PyTorch: every dtype, edge shapes, non-contiguous inputs, special values,
method / in-place / out= variants and their dtype rules."""
import functools

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import ember
from conftest import (ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, NARROW_DTYPES, TOLERANCES, assert_raises_like, assert_same,
                      check, edtype, make_tensor, special_tensor, tdtype, to_torch, torch_reference)

# name -> (ember function, torch function). Most share the name; gelu and silu are torch.nn.functional's.
UNARY_OPS = {name: (getattr(ember, name), getattr(torch, name)) for name in [
    "abs", "neg", "sign", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal",
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "sigmoid", "relu", "erf", "erfc",
    "floor", "ceil", "round", "trunc", "frac", "square", "logical_not", "bitwise_not", "isnan", "isinf",
    "isfinite", "nan_to_num"]}
UNARY_OPS["gelu"] = (ember._C._nn.gelu, F.gelu)
UNARY_OPS["gelu_tanh"] = (functools.partial(ember._C._nn.gelu, approximate="tanh"),
                          functools.partial(F.gelu, approximate="tanh"))
UNARY_OPS["silu"] = (ember._C._nn.silu, F.silu)
UNARY_OPS["nan_to_num_args"] = (functools.partial(ember.nan_to_num, nan=1.5, posinf=100.0, neginf=-7.0),
                                functools.partial(torch.nan_to_num, nan=1.5, posinf=100.0, neginf=-7.0))

# Inputs: (id, shape, layout)
SAMPLES = [
    ("0dim", (), "contiguous"),
    ("empty", (0,), "contiguous"),
    ("zero_size", (2, 0, 3), "contiguous"),
    ("vector", (7,), "contiguous"),
    ("matrix", (3, 4), "contiguous"),
    ("size1_dims", (3, 1, 2), "contiguous"),
    ("transposed", (4, 3), "transposed"),
    ("strided", (3, 5), "strided"),
    ("long", (1100,), "contiguous"),  # longer than a vector register, with a remainder
]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("op", sorted(UNARY_OPS))
def test_unary_matches_reference(op, dtype):
    efn, tfn = UNARY_OPS[op]
    for sample, shape, layout in SAMPLES:
        x = make_tensor(shape, dtype, layout=layout)
        try:
            check(efn, tfn, x, native_narrow=op.startswith("nan_to_num"))
        except AssertionError as e:
            raise AssertionError(f"{op}({sample} {dtype}): {e}") from None


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("op", sorted(UNARY_OPS))
def test_unary_special_values(op, dtype):
    efn, tfn = UNARY_OPS[op]
    # nan_to_num's default replacements are the dtype's extremes: PyTorch computes it natively in half.
    check(efn, tfn, special_tensor(dtype), native_narrow=op.startswith("nan_to_num"))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", ["log", "log2", "log10", "sqrt", "rsqrt", "log1p", "asin", "acos", "reciprocal"])
def test_unary_domain_edges(op, dtype):
    # NaN outside the domain, infinities at its edges.
    x = ember.tensor([-2.0, -1.0, -0.0, 0.0, 1e-30, 1.0, 2.0, float("inf")], dtype=edtype(dtype))
    check(getattr(ember, op), getattr(torch, op), x)


# Ops that exist as Tensor methods (x.exp()) and in place (x.exp_()) in PyTorch.
METHOD_OPS = sorted(n for n in UNARY_OPS if hasattr(torch.Tensor, n))
INPLACE_OPS = sorted(n for n in UNARY_OPS if hasattr(torch.Tensor, n + "_"))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("op", METHOD_OPS)
def test_unary_method(op, dtype):
    x = make_tensor((2, 3), dtype, layout="transposed")
    check(lambda t: getattr(t, op)(), lambda t: getattr(t, op)(), x)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("op", INPLACE_OPS)
def test_unary_inplace(op, dtype):
    # The result must fit self's dtype (int.exp_() raises); the very object is returned and is modified,
    # also through a non-contiguous view.
    for layout in ["contiguous", "transposed"]:
        x = make_tensor((3, 4), dtype, layout=layout)
        before = x._version
        r = check(lambda t: getattr(t, op + "_")(), lambda t: getattr(t, op + "_")(), x)
        if r is not None:
            assert r is x
            assert x._version > before


@pytest.mark.parametrize("op", ["abs_", "neg_", "exp_", "relu_", "nan_to_num_"])
def test_unary_inplace_function_form(op):
    x = make_tensor((5,), "float32")
    expected = getattr(torch, op)(to_torch(x))
    r = getattr(ember, op)(x)
    assert r is x
    assert_same(x, expected)


@pytest.mark.parametrize("op", ["gelu", "silu"])
def test_unary_inplace_activation(op):
    # torch.nn.functional.gelu has no inplace=; torch._C._nn.gelu_ and silu(inplace=True) do it.
    x = make_tensor((4, 3), "float32", layout="transposed")
    expected = getattr(F, op)(to_torch(x))
    r = getattr(ember._C._nn, op + "_")(x)
    assert r is x
    assert_same(x, expected)


# out=: (input dtype, out dtype). The out tensor starts with the wrong shape and is resized.
OUT_CASES = [("float32", "float32"), ("float32", "float64"), ("int64", "float32"), ("int32", "int64"),
             ("float64", "float16"), ("float32", "int32"), ("int32", "bool"), ("bool", "bool"), ("uint8", "int8"),
             ("float32", "bool")]


@pytest.mark.parametrize("dtypes", OUT_CASES, ids=lambda d: f"{d[0]}->{d[1]}")
@pytest.mark.parametrize("op", sorted(n for n in UNARY_OPS if n not in {"gelu", "gelu_tanh", "silu", "isnan", "isinf",
                                                                         "isfinite"}))
def test_unary_out(op, dtypes):
    # gelu and silu: test_gelu_out; the predicates have no out= (test_predicates_have_no_out)
    efn, tfn = UNARY_OPS[op]
    src, dst = dtypes
    x = make_tensor((2, 3), src, layout="transposed")
    out = make_tensor((5,), dst)
    t_out = to_torch(out)
    try:
        expected = tfn(to_torch(x), out=t_out)
    except Exception as exc:  # noqa: BLE001
        with pytest.raises(type(exc)):
            efn(x, out=out)
        return
    r = efn(x, out=out)
    assert r is out
    # computed in the input's dtype, then converted: the input dtype's tolerance
    rtol, atol = TOLERANCES.get(src, TOLERANCES.get(dst, (None, None)))
    assert_same(out, t_out, rtol=rtol, atol=atol)
    assert_same(r, expected, rtol=rtol, atol=atol)


@pytest.mark.parametrize("op", ["isnan", "isinf", "isfinite"])
def test_predicates_have_no_out(op):
    x = make_tensor((3,), "float32")
    assert_raises_like(lambda: getattr(ember, op)(x, out=ember.empty(3, dtype=ember.bool)),
                       lambda: getattr(torch, op)(to_torch(x), out=torch.empty(3, dtype=torch.bool)))


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_gelu_out(approximate, dtype):
    x = make_tensor((4,), dtype)
    out = ember.empty(0, dtype=edtype(dtype))
    r = ember._C._nn.gelu(x, approximate=approximate, out=out)
    assert r is out
    assert_same(out, torch_reference(lambda t: F.gelu(t, approximate=approximate), [x]))


def test_gelu_rejects_unknown_approximation():
    x = make_tensor((3,), "float32")
    assert_raises_like(lambda: ember._C._nn.gelu(x, approximate="fast"),
                       lambda: F.gelu(to_torch(x), approximate="fast"))


@pytest.mark.parametrize("dtype", INT_DTYPES + ["bool"])
@pytest.mark.parametrize("op", ["gelu", "silu", "frac"])
def test_float_only_ops_reject_integers(op, dtype):
    efn, tfn = UNARY_OPS[op]
    x = make_tensor((3,), dtype)
    assert_raises_like(lambda: efn(x), lambda: tfn(to_torch(x)))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_bitwise_not_rejects_floats(dtype):
    x = make_tensor((3,), dtype)
    assert_raises_like(lambda: ember.bitwise_not(x), lambda: torch.bitwise_not(to_torch(x, upcast=True)))


def test_neg_of_bool_raises():
    x = make_tensor((3,), "bool")
    assert_raises_like(lambda: ember.neg(x), lambda: torch.neg(to_torch(x)))
    assert_raises_like(lambda: -x, lambda: -to_torch(x))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_nan_to_num_defaults_are_dtype_extremes(dtype):
    x = ember.tensor([float("nan"), float("inf"), -float("inf"), 1.0], dtype=edtype(dtype))
    r = ember.nan_to_num(x)
    info = torch.finfo(tdtype(dtype))
    assert r.tolist() == [0.0, info.max, info.min, 1.0]


def test_round_halves_to_even():
    x = ember.tensor([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5])
    assert x.round().tolist() == [0.0, 2.0, 2.0, -0.0, -2.0, -2.0, 4.0]


def test_abs_and_neg_of_integer_minimum_wrap():
    for dtype in ["int8", "int16", "int32", "int64"]:
        x = special_tensor(dtype)
        check(ember.abs, torch.abs, x)
        check(ember.neg, torch.neg, x)


def test_unary_on_expanded_input():
    # A broadcast (stride-0) input: every output element is computed from the one input element.
    x = make_tensor((1, 3), "float32").expand(4, 3)
    check(ember.exp, torch.exp, x)
    check(ember.neg, torch.neg, x)


def test_unary_inplace_on_expanded_input_raises():
    # Writing in place through a stride-0 view would write the same memory twice.
    x = make_tensor((1, 3), "float32")
    assert_raises_like(lambda: x.expand(4, 3).neg_(), lambda: to_torch(x).expand(4, 3).neg_())


def test_unary_wrong_argument_type_is_typeerror():
    assert_raises_like(lambda: ember.exp([1.0, 2.0]), lambda: torch.exp([1.0, 2.0]))
    assert_raises_like(lambda: ember.exp(1.0), lambda: torch.exp(1.0))
    assert_raises_like(lambda: ember.exp(), lambda: torch.exp())
    assert_raises_like(lambda: ember.exp(ember.ones(2), 3), lambda: torch.exp(torch.ones(2), 3))


@pytest.mark.parametrize("dtype", NARROW_DTYPES)
def test_narrow_floats_compute_in_float32(dtype):
    # 1 + 1e-3 is not representable in bfloat16 but log1p(1e-3) is ~1e-3: the result keeps the precision
    # of float32 arithmetic, rounded once.
    x = ember.tensor([1e-3, 60000.0, -1e-4], dtype=edtype(dtype))
    check(ember.log1p, torch.log1p, x)
    check(ember.expm1, torch.expm1, x)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", ["sinh", "cosh"])
def test_sinh_cosh_near_overflow(op, dtype):
    # sinh and cosh stay finite a little beyond exp's overflow (to ~89.4 for float32, ~710.5 for float64).
    # Compared with NumPy: PyTorch 1.13's vectorized loop returns inf there (its scalar loop, used for short
    # tensors, agrees with NumPy and Ember), so long inputs would differ by design.
    lim = 89.6 if dtype == "float32" else 711.0
    a = np.linspace(-lim, lim, 4001).astype(dtype)
    r = getattr(ember, op)(ember.from_numpy(a))
    with np.errstate(over="ignore"):
        expected = getattr(np, op)(a)
    np.testing.assert_allclose(r.numpy(), expected, rtol=TOLERANCES[dtype][0], atol=0)
    check(getattr(ember, op), getattr(torch, op), ember.from_numpy(a[::997].copy()))  # scalar loop in PyTorch
