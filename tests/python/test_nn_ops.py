"""NN ops (ember/ops/ops_nn.yaml) and ember.nn.functional against PyTorch 1.13's torch.nn.functional: values,
dtypes, shapes and error types of activations, pooling, normalization, embedding and losses, on edge cases
(empty batches, non-contiguous inputs, float64, NaN/inf, ignore_index, weights, label smoothing, every
reduction) and the running-statistics updates of batch_norm."""
import functools
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as F
from conftest import (FLOAT_DTYPES, assert_raises_like, assert_same, check, from_array, make_array,
                      make_tensor, outputs_in_each_isa_build, special_tensor, to_ember, to_torch)

REDUCTIONS = ["none", "mean", "sum"]


def both(name, **kwargs):
    """(ember function, torch function) of torch.nn.functional's name, with kwargs bound."""
    return functools.partial(getattr(F, name), **kwargs), functools.partial(getattr(TF, name), **kwargs)


def check_f(name, *args, rtol=None, atol=None, **kwargs):
    """check() of F.name against TF.name on the same arguments."""
    efn, tfn = both(name)
    return check(efn, tfn, *args, rtol=rtol, atol=atol, **kwargs)


def targets(shape, n_classes, *, seed=0, ignore=None, ignore_every=3, dtype="int64"):
    """Class indices in [0, n_classes) of a shape; with `ignore`, every ignore_every-th one is that value."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, max(n_classes, 1), size=shape)
    if ignore is not None:
        flat = a.reshape(-1)
        flat[::ignore_every] = ignore
    return from_array(a.astype(dtype), dtype)


# ================================================================================================ activations
# id -> (ember function, torch function)
ACTIVATIONS = {
    "relu": both("relu"),
    "relu6": both("relu6"),
    "hardtanh": both("hardtanh"),
    "hardtanh_args": both("hardtanh", min_val=-0.5, max_val=2.0),
    "hardtanh_min_above_max": (lambda x: ember._C._nn.hardtanh(x, 2.0, -1.0),
                               lambda x: torch._C._nn.hardtanh(x, 2.0, -1.0)),
    "leaky_relu": both("leaky_relu"),
    "leaky_relu_0.2": both("leaky_relu", negative_slope=0.2),
    "elu": both("elu"),
    "elu_0.5": both("elu", alpha=0.5),
    "elu_scales": (lambda x: ember._C._nn.elu(x, 0.7, 1.5, 2.0), lambda x: torch._C._nn.elu(x, 0.7, 1.5, 2.0)),
    "selu": both("selu"),
    "celu": both("celu"),
    "celu_2": both("celu", alpha=2.0),
    "gelu": both("gelu"),
    "gelu_tanh": both("gelu", approximate="tanh"),
    "silu": both("silu"),
    "mish": both("mish"),
    "hardsigmoid": both("hardsigmoid"),
    "hardswish": both("hardswish"),
    "softplus": both("softplus"),
    "softplus_beta": both("softplus", beta=2, threshold=5),
    "logsigmoid": both("logsigmoid"),
    "threshold": (lambda x: F.threshold(x, 0.5, -2.0), lambda x: TF.threshold(x, 0.5, -2.0)),
    "softsign": both("softsign"),
    "tanhshrink": both("tanhshrink"),
    "glu": both("glu"),
    "glu_dim0": both("glu", dim=0),
}

# Written in Python with several ops, as PyTorch's torch.nn.functional does.
PYTHON_COMPOSITES = {"softsign", "tanhshrink"}

# (id, shape, layout); glu halves its dim, so every dim here is even where it matters.
ACTIVATION_SAMPLES = [
    ("matrix", (4, 6), "contiguous"),
    ("empty_batch", (0, 4), "contiguous"),
    ("3d", (2, 4, 6), "contiguous"),
    ("transposed", (6, 4), "transposed"),
    ("strided", (4, 6), "strided"),
    ("long", (2, 1100), "contiguous"),
]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + ["int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("op", sorted(ACTIVATIONS))
def test_activation_matches_reference(op, dtype):
    if op in PYTHON_COMPOSITES and dtype in ("float16", "bfloat16"):
        pytest.skip("two ops, each rounding to the narrow dtype: the float32 reference rounds once")
    efn, tfn = ACTIVATIONS[op]
    for sample, shape, layout in ACTIVATION_SAMPLES:
        x = make_tensor(shape, dtype, layout=layout, low=-6.0 if dtype in FLOAT_DTYPES else None,
                        high=6.0 if dtype in FLOAT_DTYPES else None)
        try:
            check(efn, tfn, x)
        except AssertionError as e:
            raise AssertionError(f"{op}({sample} {dtype}): {e}") from None


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", sorted(op for op in ACTIVATIONS if not op.startswith("glu")))
def test_activation_special_values(op, dtype):
    efn, tfn = ACTIVATIONS[op]
    with np.errstate(over="ignore"):
        check(efn, tfn, special_tensor(dtype))
        check(efn, tfn, from_array(np.array([-30.0, -20.5, -3.0, -2.99, 3.0, 2.99, 20.0, 21.0, 50.0]), dtype))


def test_activation_0dim():
    for op in sorted(set(ACTIVATIONS) - {"glu", "glu_dim0"}):
        efn, tfn = ACTIVATIONS[op]
        check(efn, tfn, from_array(np.array(-1.25), "float32"))


# (ember F name, args) with inplace=True; the function form returns the input itself, modified.
INPLACE = [("relu", ()), ("relu6", ()), ("hardtanh", (-0.5, 0.5)), ("leaky_relu", (0.3,)), ("elu", (0.5,)),
           ("selu", ()), ("celu", (1.5,)), ("silu", ()), ("mish", ()), ("hardsigmoid", ()), ("hardswish", ()),
           ("threshold", (0.1, 7.0))]


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("name, args", INPLACE, ids=[n for n, _ in INPLACE])
def test_activation_inplace(name, args, layout):
    x = make_tensor((3, 4), "float32", layout=layout)
    expected = getattr(TF, name)(to_torch(x), *args)
    before = x._version
    r = getattr(F, name)(x, *args, inplace=True)
    assert r is x
    assert x._version > before
    assert_same(x, expected)


@pytest.mark.parametrize("name", ["relu_", "hardtanh_", "leaky_relu_", "elu_", "selu_", "celu_", "threshold_"])
def test_activation_underscore_functions(name):
    args = (0.5, 3.0) if name == "threshold_" else ()
    x = make_tensor((5, 2), "float64")
    expected = getattr(TF, name)(to_torch(x), *args)
    assert getattr(F, name)(x, *args) is x
    assert_same(x, expected)


def test_activation_inplace_of_integers_raises():
    # elu_ has no integer kernel; hardtanh_ keeps integers (bounds truncated)
    assert_raises_like(lambda: F.elu(make_tensor((3,), "int64"), inplace=True),
                       lambda: TF.elu(torch.ones(3, dtype=torch.long), inplace=True))
    x = make_tensor((6,), "int64")
    expected = TF.hardtanh(to_torch(x), -2.7, 3.9, inplace=True)
    F.hardtanh(x, -2.7, 3.9, inplace=True)
    assert_same(x, expected)


@pytest.mark.parametrize("op, args", [("hardtanh", (-0.5, 0.5)), ("leaky_relu", (0.1,)), ("elu", (1.0, 1.0, 1.0)),
                                      ("softplus", (1, 20)), ("hardsigmoid", ()), ("hardswish", ()), ("mish", ()),
                                      ("log_sigmoid", ()), ("glu", (-1,)), ("threshold", (0.0, 1.0))])
def test_activation_out(op, args):
    x = make_tensor((3, 4), "float32")
    expected = getattr(torch._C._nn, op, getattr(torch, op, None))(to_torch(x), *args)
    out = ember.empty(0)
    r = getattr(ember._C._nn, op, getattr(ember, op, None))(x, *args, out=out)
    assert r is out
    assert_same(out, expected)
    # A float64 out=: PyTorch's unstructured activations raise ("Found dtype Double but expected Float"), the
    # structured ones (glu, threshold) write the result converted.
    tfn = getattr(torch._C._nn, op, getattr(torch, op, None))
    efn = getattr(ember._C._nn, op, getattr(ember, op, None))
    check(lambda t: efn(t, *args, out=ember.empty(0, dtype=ember.float64)),
          lambda t: tfn(t, *args, out=torch.empty(0, dtype=torch.float64)), x, rtol=1e-6)  # float32 results


def test_hardtanh_dtype_rules():
    # integers keep their dtype; bool and uint8 with a negative bound raise
    check_f("hardtanh", make_tensor((4, 3), "int32"), -2, 5)
    check_f("hardtanh", make_tensor((4, 3), "uint8"), 1, 5)
    check_f("hardtanh", make_tensor((4, 3), "uint8"))
    check_f("hardtanh", make_tensor((4, 3), "bool"))
    check_f("relu6", make_tensor((4, 3), "int64", low=-10, high=10))


def test_glu_errors():
    assert_raises_like(lambda: F.glu(make_tensor((), "float32")), lambda: TF.glu(torch.tensor(1.0)))
    assert_raises_like(lambda: F.glu(make_tensor((2, 3), "float32")), lambda: TF.glu(torch.ones(2, 3)))
    assert_raises_like(lambda: ember._C._nn.glu(make_tensor((), "float32")),
                       lambda: torch._C._nn.glu(torch.tensor(1.0)))
    assert_raises_like(lambda: F.glu(make_tensor((2, 4), "float32"), 2), lambda: TF.glu(torch.ones(2, 4), 2))
    check_f("glu", make_tensor((4, 0), "float32"), 0)


def test_celu_alpha_zero_raises():
    assert_raises_like(lambda: F.celu(make_tensor((3,), "float32"), 0.0), lambda: TF.celu(torch.ones(3), 0.0))


def test_softmax_and_log_softmax():
    x = make_tensor((3, 4, 5), "float32")
    for dim in [0, 1, -1]:
        check_f("softmax", x, dim)
        check_f("log_softmax", x, dim)
    assert_same(F.softmax(x, 1, dtype=ember.float64), TF.softmax(to_torch(x), 1, dtype=torch.float64))
    assert_same(F.log_softmax(x, -1, dtype=ember.float64), TF.log_softmax(to_torch(x), -1, dtype=torch.float64))
    # no dim: PyTorch's legacy choice (0 for 0-, 1- and 3-dim inputs, else 1), with a warning
    for shape in [(5,), (3, 4), (3, 4, 5), (2, 3, 4, 5)]:
        y = make_tensor(shape, "float64")
        with pytest.warns(UserWarning):
            r = F.softmax(y)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert_same(r, TF.softmax(to_torch(y)))
            assert_same(F.log_softmax(y), TF.log_softmax(to_torch(y)))


@pytest.mark.parametrize("shape, layout", [((3, 4, 5), "contiguous"), ((3, 4), "transposed"), ((0, 3), "contiguous"),
                                           ((), "contiguous")], ids=str)
def test_softmin(shape, layout):
    x = make_tensor(shape, "float32", layout=layout)
    for dim in range(-max(len(shape), 1), max(len(shape), 1)):
        check_f("softmin", x, dim)
        check(lambda t: F.softmin(t, dim, dtype=ember.float64), lambda t: TF.softmin(t, dim, dtype=torch.float64), x)
    check_f("softmin", special_tensor("float64"), 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_f("softmin", x)                        # legacy implicit dim
    check_f("softmin", make_tensor((3,), "bool"), 0)   # PyTorch raises: negation of a bool tensor
    check_f("softmin", x, 7)                           # IndexError


def test_sigmoid_tanh_warn_deprecated():
    x = make_tensor((3,), "float32")
    with pytest.warns(UserWarning):
        assert_same(F.sigmoid(x), torch.sigmoid(to_torch(x)))
    with pytest.warns(UserWarning):
        assert_same(F.tanh(x), torch.tanh(to_torch(x)))


# ================================================================================================ pooling
# (kernel_size, stride, padding, dilation, ceil_mode)
MAX_POOL_CASES = [
    (2, None, 0, 1, False),
    (3, None, 0, 1, False),
    (3, 2, 1, 1, False),
    (3, 2, 1, 1, True),
    ((2, 3), (1, 2), (1, 1), 1, False),
    ((2, 3), (2, 1), (1, 0), 1, True),
    (3, 1, 1, 2, False),
    (3, 2, 1, (2, 1), True),
    (2, 3, 0, 1, True),
    (4, 3, 2, 1, True),
    (1, 1, 0, 1, False),
]


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("case", MAX_POOL_CASES, ids=str)
def test_max_pool2d_matches_reference(case, dtype):
    k, s, p, d, ceil = case
    for shape, layout in [((2, 3, 7, 8), "contiguous"), ((3, 9, 6), "contiguous"), ((2, 2, 7, 9), "transposed"),
                          ((1, 2, 8, 7), "strided"), ((0, 3, 7, 8), "contiguous")]:
        x = make_tensor(shape, dtype, layout=layout)
        kw = dict(stride=s, padding=p, dilation=d, ceil_mode=ceil)
        check(lambda t: F.max_pool2d(t, k, **kw), lambda t: TF.max_pool2d(t, k, **kw), x, native_narrow=True)
        check(lambda t: F.max_pool2d(t, k, return_indices=True, **kw),
              lambda t: TF.max_pool2d(t, k, return_indices=True, **kw), x, native_narrow=True)


def test_max_pool2d_nan_inf_and_ties():
    a = np.array([[1.0, np.nan, 3.0, 3.0], [-np.inf, -np.inf, 2.0, 3.0], [np.inf, 0.0, np.nan, np.nan],
                  [5.0, 5.0, -np.inf, -np.inf]], dtype=np.float32)
    x = from_array(a[None, None], "float32")
    for k, s, p in [(2, 2, 0), (2, 1, 1), (3, 1, 1), (4, 1, 2)]:
        check(lambda t: F.max_pool2d(t, k, s, p, return_indices=True),
              lambda t: TF.max_pool2d(t, k, s, p, return_indices=True), x)
    # a window entirely of -inf keeps -inf
    y = from_array(np.full((1, 3, 3), -np.inf, dtype=np.float64), "float64")
    check(lambda t: F.max_pool2d(t, 2, 1, return_indices=True), lambda t: TF.max_pool2d(t, 2, 1, return_indices=True),
          y)


def test_max_pool2d_indices_are_int64_flat_positions():
    x = make_tensor((2, 3, 6, 5), "float32")
    values, indices = F.max_pool2d(x, 2, return_indices=True)
    assert indices.dtype == ember.int64
    flat = x.reshape(2, 3, 30).numpy()
    picked = np.take_along_axis(flat, indices.reshape(2, 3, -1).numpy(), axis=2)
    np.testing.assert_array_equal(picked, values.reshape(2, 3, -1).numpy())


# (kernel_size, stride, padding, dilation, ceil_mode, input shape)
POOL_ERRORS = [
    (2, None, 0, 1, False, (3, 5)),          # 2-D input
    (2, None, 0, 1, False, (1, 2, 3, 5, 5)),  # 5-D input
    (2, None, 2, 1, False, (1, 2, 5, 5)),     # padding above half the kernel
    (0, None, 0, 1, False, (1, 2, 5, 5)),     # kernel 0 (stride 0)
    (2, 0, 0, 1, False, (1, 2, 5, 5)),        # stride 0
    (2, -1, 0, 1, False, (1, 2, 5, 5)),       # negative stride
    (2, None, -1, 1, False, (1, 2, 5, 5)),    # negative padding
    (2, None, 0, 0, False, (1, 2, 5, 5)),     # dilation 0
    (6, None, 0, 1, False, (1, 2, 5, 5)),     # output size 0
    (3, 1, 0, 3, False, (1, 2, 5, 5)),        # dilated kernel larger than the input
    ((2, 2, 2), None, 0, 1, False, (1, 2, 5, 5)),
    (2, None, 0, 1, False, (2, 0, 5, 5)),     # zero channels
    (2, None, 0, 1, False, (2, 3, 0, 5)),     # zero height
    (2, None, 0, 1, False, (0, 5, 5)),        # 3-D with zero channels
]


@pytest.mark.parametrize("case", POOL_ERRORS, ids=str)
def test_pool_errors(case):
    k, s, p, d, ceil, shape = case
    x = make_tensor(shape, "float32")
    check(lambda t: F.max_pool2d(t, k, s, p, d, ceil), lambda t: TF.max_pool2d(t, k, s, p, d, ceil), x)
    if d == 1:
        check(lambda t: F.avg_pool2d(t, k, s, p, ceil), lambda t: TF.avg_pool2d(t, k, s, p, ceil), x)


def test_pool_dtype_errors():
    for dtype in ["int64", "int32", "uint8", "bool"]:
        x = make_tensor((1, 2, 4, 4), dtype)
        check(lambda t: F.max_pool2d(t, 2), lambda t: TF.max_pool2d(t, 2), x)
    for dtype in ["int32", "uint8", "bool"]:
        x = make_tensor((1, 2, 4, 4), dtype)
        check(lambda t: F.avg_pool2d(t, 2), lambda t: TF.avg_pool2d(t, 2), x)


# (kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
AVG_POOL_CASES = [
    (2, None, 0, False, True, None),
    (3, 2, 1, False, True, None),
    (3, 2, 1, False, False, None),
    (3, 2, 1, True, True, None),
    (3, 2, 1, True, False, None),
    ((2, 3), (2, 1), (1, 1), True, False, None),
    (2, 3, 0, True, True, None),
    (4, 3, 2, True, True, None),
    (3, 2, 1, False, True, 5),
    (2, 1, 1, True, False, -3),
]


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "int64"])
@pytest.mark.parametrize("case", AVG_POOL_CASES, ids=str)
def test_avg_pool2d_matches_reference(case, dtype):
    k, s, p, ceil, cip, div = case
    for shape, layout in [((2, 3, 7, 8), "contiguous"), ((3, 9, 6), "contiguous"), ((2, 2, 7, 9), "transposed"),
                          ((1, 2, 8, 7), "strided"), ((0, 3, 7, 8), "contiguous")]:
        x = make_tensor(shape, dtype, layout=layout, low=-50 if dtype == "int64" else None,
                        high=50 if dtype == "int64" else None)
        check(lambda t: F.avg_pool2d(t, k, s, p, ceil, cip, div), lambda t: TF.avg_pool2d(t, k, s, p, ceil, cip, div),
              x)


def test_avg_pool2d_divisor_zero_and_out():
    x = make_tensor((1, 2, 5, 5), "float32")
    assert_raises_like(lambda: F.avg_pool2d(x, 2, divisor_override=0),
                       lambda: TF.avg_pool2d(to_torch(x), 2, divisor_override=0))
    out = ember.empty(3)
    r = ember._C._nn.avg_pool2d(x, 3, 2, 1, out=out)
    assert r is out
    assert_same(out, torch._C._nn.avg_pool2d(to_torch(x), 3, 2, 1))


def test_avg_pool2d_nan_inf():
    a = np.array([[1.0, np.nan, 3.0], [np.inf, 0.0, 2.0], [-np.inf, 1.0, 1.0]])
    x = from_array(a[None], "float32")
    for k, s, p in [(2, 1, 0), (2, 1, 1), (3, 1, 1)]:
        check(lambda t: F.avg_pool2d(t, k, s, p), lambda t: TF.avg_pool2d(t, k, s, p), x)


ADAPTIVE_SIZES = [1, (1, 1), 2, (2, 3), (3, 2), 7, (5, 1), (1, 5), (None, 2), (3, None), (0, 2), 0, (4, 7)]


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("size", ADAPTIVE_SIZES, ids=str)
def test_adaptive_avg_pool2d_matches_reference(size, dtype):
    for shape, layout in [((2, 3, 7, 5), "contiguous"), ((3, 5, 7), "contiguous"), ((2, 3, 6, 9), "transposed"),
                          ((2, 2, 5, 6), "strided"), ((0, 3, 5, 5), "contiguous"), ((2, 0, 5, 5), "contiguous"),
                          ((1, 1, 1, 1), "contiguous")]:
        x = make_tensor(shape, dtype, layout=layout)
        check(lambda t: F.adaptive_avg_pool2d(t, size), lambda t: TF.adaptive_avg_pool2d(t, size), x)


def test_adaptive_avg_pool2d_errors():
    for shape, size in [((2, 3, 0, 5), 2), ((5, 5), 2), ((5,), 2), ((2, 3, 5, 5), -1), ((2, 3, 5, 5), (1, 2, 3)),
                        ((2, 3, 4, 4, 4), 2), ((5, 5), 1)]:
        x = make_tensor(shape, "float32")
        check(lambda t: F.adaptive_avg_pool2d(t, size), lambda t: TF.adaptive_avg_pool2d(t, size), x)
    check(lambda t: F.adaptive_avg_pool2d(t, 3), lambda t: TF.adaptive_avg_pool2d(t, 3),
          make_tensor((1, 2, 4, 4), "int64"))
    check(lambda t: F.adaptive_avg_pool2d(t, 1), lambda t: TF.adaptive_avg_pool2d(t, 1),
          make_tensor((1, 2, 4, 4), "int64"))
    # the output-size check names the op; with too few dims for (None, ...) Python raises ValueError
    assert_raises_like(lambda: F.adaptive_avg_pool2d(make_tensor((4,), "float32"), (None, 2)),
                       lambda: TF.adaptive_avg_pool2d(torch.ones(4), (None, 2)))


# ================================================================================================ normalization
# Normalized float32 outputs of inputs up to 4 in magnitude (times weights up to 4) carry PyTorch's float32
# accumulation error of about 1e-6 absolute; Ember accumulates in double.
NORM_ATOL = {"float32": 1e-5}

BN_SHAPES = [((8, 3), "contiguous"), ((4, 3, 5), "contiguous"), ((2, 3, 4, 5), "contiguous"),
             ((3, 4, 5), "transposed"), ((2, 3, 4, 6), "strided"), ((2, 3, 2, 2, 2), "contiguous"),
             # planes of 32 elements and more: the vectorized passes of Note [normalization loops] and their tails
             ((3, 4, 7, 9), "contiguous"), ((2, 3, 16, 16), "contiguous"), ((2, 3, 9, 8), "transposed")]


@pytest.mark.parametrize("affine", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("training", [False, True])
def test_batch_norm_matches_reference(training, dtype, affine):
    for shape, layout in BN_SHAPES:
        x = make_tensor(shape, dtype, layout=layout)
        C = x.shape[1]
        rm, rv = make_tensor((C,), dtype, seed=1), make_tensor((C,), dtype, low=0.5, high=2.0, seed=2)
        trm, trv = to_torch(rm), to_torch(rv)
        w = make_tensor((C,), dtype, seed=3) if affine else None
        b = make_tensor((C,), dtype, seed=4) if affine else None
        for momentum, eps in [(0.1, 1e-5), (0.3, 1e-3)]:
            expected = TF.batch_norm(to_torch(x), trm, trv, to_torch(w), to_torch(b), training, momentum, eps)
            actual = F.batch_norm(x, rm, rv, w, b, training, momentum, eps)
            assert_same(actual, expected, msg=f"{shape} {layout}: ", atol=NORM_ATOL.get(dtype))
            # running statistics: updated in place when training (the variance unbiased), else untouched
            assert_same(rm, trm, msg="running_mean: ")
            assert_same(rv, trv, msg="running_var: ")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(8, 4, 14, 14), (3, 2, 5, 13), (5, 3, 40)], ids=str)
def test_batch_norm_backward_matches_reference(shape, dtype):
    """The kernel backward (Note [batch_norm backward kernel]) over planes long enough for the vectorized sums."""
    x = make_tensor(shape, dtype)
    C = shape[1]
    w, b, g = make_tensor((C,), dtype, seed=3), make_tensor((C,), dtype, seed=4), make_tensor(shape, dtype, seed=5)
    ex, ew, eb = (t.detach().requires_grad_() for t in (x, w, b))
    tx, tw, tb = (to_torch(t).requires_grad_() for t in (x, w, b))
    F.batch_norm(ex, None, None, ew, eb, True).backward(g)
    TF.batch_norm(tx, None, None, tw, tb, True).backward(to_torch(g))
    tol = dict(atol=NORM_ATOL.get(dtype)) if dtype == "float32" else {}
    for e, t in ((ex, tx), (ew, tw), (eb, tb)):
        assert_same(e.grad, t.grad, **tol)


def test_normalization_identical_across_instruction_set_builds():
    """batch_norm's and layer_norm's passes add the same numbers in the same order in every build and round
    each product before adding it (Note [normalization loops]): bitwise equal results."""
    code = ("import numpy as np, ember, hashlib; import ember.nn.functional as F;"
            "r = np.random.default_rng(1); x = ember.from_numpy(r.standard_normal((6, 3, 11, 13)).astype(np.float32));"
            "w = ember.from_numpy(r.standard_normal(3).astype(np.float32)).requires_grad_();"
            "x.requires_grad_(); y = F.batch_norm(x, None, None, w, None, True);"
            "y.backward(ember.from_numpy(r.standard_normal((6, 3, 11, 13)).astype(np.float32)));"
            "z = F.layer_norm(x.detach(), (11, 13));"
            "print(hashlib.md5(b''.join(t.detach().numpy().tobytes() for t in (y, x.grad, w.grad, z))).hexdigest())")
    assert len(outputs_in_each_isa_build(code)) == 1


def test_batch_norm_running_stats_update_formula():
    x = make_tensor((6, 2, 3), "float64")
    rm, rv = ember.zeros(2, dtype=ember.float64), ember.ones(2, dtype=ember.float64)
    before = rm._version
    F.batch_norm(x, rm, rv, training=True, momentum=0.25)
    # Updated in place without a version bump, as PyTorch's kernel (the autograd graph saves the statistics).
    trm = torch.zeros(2, dtype=torch.float64)
    TF.batch_norm(to_torch(x), trm, torch.ones(2, dtype=torch.float64), training=True)
    assert rm._version - before == trm._version == 0
    xs = x.numpy().transpose(1, 0, 2).reshape(2, -1)
    np.testing.assert_allclose(rm.numpy(), 0.25 * xs.mean(1), rtol=1e-12)
    np.testing.assert_allclose(rv.numpy(), 0.75 + 0.25 * xs.var(1, ddof=1), rtol=1e-12)


def test_batch_norm_training_without_running_stats():
    x = make_tensor((5, 3, 4), "float32")
    check(lambda t: F.batch_norm(t, None, None, training=True), lambda t: TF.batch_norm(t, None, None, training=True),
          x)


def test_batch_norm_non_contiguous_running_stats():
    x = make_tensor((5, 3), "float32")
    rm = make_tensor((3,), "float32", layout="strided")
    rv = make_tensor((3,), "float32", layout="strided", low=0.5, high=1.5)
    trm, trv = to_torch(rm), to_torch(rv)
    assert_same(F.batch_norm(x, rm, rv, training=True), TF.batch_norm(to_torch(x), trm, trv, training=True))
    assert_same(rm, trm)
    assert_same(rv, trv)


def test_batch_norm_empty_batch():
    x = make_tensor((0, 3, 4), "float32")
    rm, rv = ember.zeros(3), ember.ones(3)
    w, b = ember.full((3,), 2.0), ember.full((3,), 1.0)
    r = F.batch_norm(x, rm, rv, w, b, training=True)
    assert_same(r, TF.batch_norm(torch.ones(0, 3, 4), torch.zeros(3), torch.ones(3), torch.full((3,), 2.0),
                                 torch.full((3,), 1.0), training=True))
    assert_same(rm, torch.zeros(3))
    assert_same(rv, torch.ones(3))


def test_batch_norm_bfloat16():
    x = make_tensor((4, 3, 2), "bfloat16")
    for params in ["float32", "bfloat16"]:
        rm, rv = make_tensor((3,), params, seed=1), make_tensor((3,), params, low=0.5, high=2.0, seed=2)
        check(lambda t, m, v: F.batch_norm(t, m, v), lambda t, m, v: TF.batch_norm(t, m, v), x, rm, rv)


def test_batch_norm_errors():
    x = make_tensor((4, 3), "float32")
    rm, rv = ember.zeros(3), ember.ones(3)
    cases = [
        ((make_tensor((1, 3), "float32"), rm, rv), dict(training=True)),  # one value per channel: ValueError
        ((make_tensor((1, 3, 1), "float32"), rm, rv), dict(training=True)),
        ((make_tensor((4,), "float32"), None, None), dict(training=True)),  # 1-D input: IndexError
        ((x, None, rv), {}),                                                 # eval without running_mean
        ((x, rm, None), {}),
        ((x, ember.zeros(2), rv), {}),
        ((x, rm, rv), dict(weight=ember.ones(4))),
        ((x, rm, rv), dict(bias=ember.ones(2))),
        ((x, ember.zeros(3, dtype=ember.float64), ember.ones(3, dtype=ember.float64)), {}),  # mixed dtypes
        ((x, rm, rv), dict(weight=ember.ones(3, dtype=ember.float64))),
        ((make_tensor((4, 3), "int64"), rm, rv), {}),
    ]
    for args, kwargs in cases:
        check(F.batch_norm, TF.batch_norm, *args, **kwargs)


@pytest.mark.parametrize("case", [
    ((2,), dict(running_mean=(2,), running_var=(2,)), "running_mean should contain 0 elements not 2"),
    ((2,), dict(running_mean=None, running_var=None, weight=(2,), training=True), "weight should contain 0"),
    ((), dict(running_mean=(2,), running_var=(2,)), "running_mean should contain 0 elements not 2"),
    ((2,), dict(running_mean=(0,), running_var=(0,)), "out of range"),
    ((2,), dict(running_mean=None, running_var=None, training=True), "out of range"),
], ids=str)
def test_batch_norm_below_2_dims_checks_in_pytorchs_order(case):
    # Below 2 dims PyTorch takes C as 0: the first given tensor with elements is named (RuntimeError); with none
    # the missing dim 1 is an IndexError.
    shape, kwargs, text = case

    def call(m, f):
        kw = {k: (m.ones(*v) if isinstance(v, tuple) else v) for k, v in kwargs.items()}
        return f.batch_norm(m.zeros(shape), kw.pop("running_mean"), kw.pop("running_var"), **kw)
    e = assert_raises_like(lambda: call(ember, F), lambda: call(torch, TF))
    assert text in str(e)
    if isinstance(e, RuntimeError):
        assert str(e).startswith("batch_norm: ")


def test_native_batch_norm_saved_statistics():
    x = make_tensor((4, 3, 5), "float32")
    rm, rv = ember.zeros(3), ember.ones(3)
    out, mean, invstd = ember.native_batch_norm(x, None, None, rm, rv, True, 0.1, 1e-5)
    tout, tmean, tinvstd = torch.native_batch_norm(to_torch(x), None, None, torch.zeros(3), torch.ones(3), True, 0.1,
                                                   1e-5)
    assert_same(out, tout)
    assert_same(mean, tmean)
    assert_same(invstd, tinvstd)
    _, emean, einv = ember.native_batch_norm(x, None, None, rm, rv, False, 0.1, 1e-5)
    assert tuple(emean.shape) == (0,) and tuple(einv.shape) == (0,)


# (input shape, normalized_shape, layout)
LN_CASES = [((4, 5), [5], "contiguous"), ((2, 3, 4), [3, 4], "contiguous"), ((2, 3, 4), [4], "transposed"),
            ((3, 6), [6], "strided"), ((0, 5), [5], "contiguous"), ((2, 0), [0], "contiguous"),
            ((7,), [7], "contiguous"),
            ((2, 3, 1), [1], "contiguous"), ((3, 2, 2, 3), [2, 2, 3], "contiguous")]


@pytest.mark.parametrize("affine", ["none", "weight", "both"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_layer_norm_matches_reference(dtype, affine):
    for shape, ns, layout in LN_CASES:
        x = make_tensor(shape, dtype, layout=layout)
        w = make_tensor(ns, dtype, seed=1) if affine != "none" else None
        b = make_tensor(ns, dtype, seed=2) if affine == "both" else None
        # One element per row: the true output is 0 (then the bias); PyTorch's float x * rstd - mean * rstd
        # leaves noise of |x| * rstd * 2^-24 (rstd = 1/sqrt(eps)) where Ember's (x - mean) * rstd is exact.
        atol = 2e-4 if ns == [1] else NORM_ATOL.get(dtype)
        for eps in [1e-5, 0.1]:
            check(lambda t, ww, bb: F.layer_norm(t, ns, ww, bb, eps),
                  lambda t, ww, bb: TF.layer_norm(t, ns, ww, bb, eps), x, w, b, atol=atol)


def test_layer_norm_constant_rows_and_special_values():
    x = from_array(np.array([[2.0, 2.0, 2.0], [1.0, np.nan, 3.0], [np.inf, 1.0, 2.0], [1e3, -1e3, 0.5]]), "float32")
    check(lambda t: F.layer_norm(t, [3]), lambda t: TF.layer_norm(t, [3]), x, atol=2e-4)  # see the noise above


def test_layer_norm_errors():
    x = make_tensor((2, 3), "float32")
    cases = [([2], None), ([], None), ([3], ember.ones(2)), ([2, 3, 4], None),
             ([3], ember.ones(3, dtype=ember.float64))]
    for ns, w in cases:
        check(lambda t, ww: F.layer_norm(t, ns, ww), lambda t, ww: TF.layer_norm(t, ns, ww), x, w)
    check(lambda t: F.layer_norm(t, [3]), lambda t: TF.layer_norm(t, [3]), make_tensor((2, 3), "int64"))


def test_native_layer_norm_statistics():
    x = make_tensor((2, 3, 4), "float32")
    for a, b in zip(ember.native_layer_norm(x, [3, 4], None, None, 1e-5),
                    torch.native_layer_norm(to_torch(x), [3, 4], None, None, 1e-5)):
        assert_same(a, b)


# (input shape, num_groups, layout)
GN_CASES = [((2, 6), 3, "contiguous"), ((2, 6, 5), 2, "contiguous"), ((3, 4, 3, 3), 4, "contiguous"),
            ((2, 4, 3, 3), 1, "transposed"), ((2, 6, 4), 3, "strided"), ((0, 6, 3), 3, "contiguous"),
            ((2, 6, 0), 3, "contiguous"), ((1, 4, 2, 2, 2), 2, "contiguous")]


@pytest.mark.parametrize("affine", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_group_norm_matches_reference(dtype, affine):
    for shape, g, layout in GN_CASES:
        x = make_tensor(shape, dtype, layout=layout)
        C = shape[1]
        w = make_tensor((C,), dtype, seed=1) if affine else None
        b = make_tensor((C,), dtype, seed=2) if affine else None
        check(lambda t, ww, bb: F.group_norm(t, g, ww, bb), lambda t, ww, bb: TF.group_norm(t, g, ww, bb), x, w, b,
              atol=NORM_ATOL.get(dtype))
        check(lambda t: F.group_norm(t, g, eps=0.5), lambda t: TF.group_norm(t, g, eps=0.5), x,
              atol=NORM_ATOL.get(dtype))


def test_group_norm_errors():
    cases = [((4,), 2, None), ((4, 4), 0, None), ((4, 6), 4, None), ((4, 6), 3, ember.ones(5)), ((4, 6), -3, None),
             ((1, 2, 1), 2, None), ((4, 6), 3, ember.ones(6, dtype=ember.float64))]
    for shape, g, w in cases:
        x = make_tensor(shape, "float32")
        check(lambda t, ww: F.group_norm(t, g, ww), lambda t, ww: TF.group_norm(t, g, ww), x, w)
    check(lambda t: F.group_norm(t, 2), lambda t: TF.group_norm(t, 2), make_tensor((2, 4), "int64"))


def test_native_group_norm_statistics():
    x = make_tensor((2, 6, 3), "float32")
    for a, b in zip(ember.native_group_norm(x, None, None, 2, 6, 3, 3, 1e-5),
                    torch.native_group_norm(to_torch(x), None, None, 2, 6, 3, 3, 1e-5)):
        assert_same(a, b)


# ================================================================================================ embedding
@pytest.mark.parametrize("idx_dtype", ["int64", "int32"])
@pytest.mark.parametrize("w_dtype", ["float32", "float64", "bfloat16", "int64"])
def test_embedding_matches_reference(w_dtype, idx_dtype):
    w = make_tensor((7, 3), w_dtype)
    for shape in [(), (5,), (2, 4), (0,), (2, 0, 3)]:
        idx = targets(shape, 7, seed=len(shape), dtype=idx_dtype)
        check(F.embedding, TF.embedding, idx, w)
        check(lambda i, ww: F.embedding(i, ww, padding_idx=-1), lambda i, ww: TF.embedding(i, ww, padding_idx=-1),
              idx, w)
    check(F.embedding, TF.embedding, targets((4,), 7), make_tensor((7, 3), w_dtype, layout="transposed"))


def test_embedding_errors():
    w = make_tensor((3, 2), "float32")
    for idx in [from_array(np.array([3]), "int64"), from_array(np.array([-1]), "int64"),
                from_array(np.array([1.0]), "float32"), from_array(np.array([1]), "uint8")]:
        check(F.embedding, TF.embedding, idx, w)
    check(F.embedding, TF.embedding, from_array(np.array([1]), "int64"), make_tensor((3,), "float32"))
    assert_raises_like(lambda: F.embedding(from_array(np.array([1]), "int64"), w, padding_idx=3),
                       lambda: TF.embedding(torch.tensor([1]), torch.ones(3, 2), padding_idx=3))
    check(F.embedding, TF.embedding, from_array(np.zeros(0), "int64"), make_tensor((0, 2), "float32"))


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, float("inf")])
def test_embedding_max_norm_renormalizes_weight_in_place(norm_type):
    w = from_array(np.arange(15.0).reshape(5, 3) / 3, "float32")
    tw = to_torch(w)
    idx = from_array(np.array([[1, 1, 3], [4, 0, 1]]), "int64")
    r = F.embedding(idx, w, max_norm=2.0, norm_type=norm_type)
    expected = TF.embedding(to_torch(idx), tw, max_norm=2.0, norm_type=norm_type)
    assert_same(r, expected)
    assert_same(w, tw)


def test_one_hot():
    for a, n in [([0, 2, 1], -1), ([[1, 3], [0, 0]], -1), ([1, 2], 5), (2, 4), ([], 3), ([[]], 2)]:
        x = from_array(np.array(a, dtype=np.int64), "int64")
        check(F.one_hot, TF.one_hot, x, n)
    for a, n in [([-1, 2], -1), ([1, 2], 2), ([1, 2], 0), ([1, 2], -2), ([], -1)]:
        x = from_array(np.array(a, dtype=np.int64), "int64")
        check(F.one_hot, TF.one_hot, x, n)
    check(F.one_hot, TF.one_hot, from_array(np.array([1]), "int32"))
    check(F.one_hot, TF.one_hot, make_tensor((3, 4), "int64", low=0, high=5, layout="transposed"))


# ================================================================================================ losses
def log_probs(shape, dtype="float32", seed=0):
    """log_softmax over dim 1 (dim 0 for a 1-D shape) of random logits: valid nll_loss inputs."""
    t = torch.from_numpy(make_array(shape, "float64", seed=seed)).log_softmax(0 if len(shape) == 1 else 1)
    return to_ember(t.to(getattr(torch, dtype)))


# (input shape, target shape): (C), (N, C), (N, C, d1), (N, C, d1, d2), (N, C, d1, d2, d3) and empty batches
CLASS_SHAPES = [((5,), ()), ((4, 5), (4,)), ((3, 5, 4), (3, 4)), ((2, 5, 3, 2), (2, 3, 2)),
                ((2, 4, 2, 2, 3), (2, 2, 2, 3)),
                ((0, 5), (0,)), ((0, 5, 3), (0, 3)), ((0, 5, 2, 2), (0, 2, 2)), ((2, 5, 0), (2, 0))]


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore", [None, 2, -100, "all"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss_matches_reference(reduction, ignore, weighted):
    for in_shape, t_shape in CLASS_SHAPES:
        C = in_shape[0] if len(in_shape) == 1 else in_shape[1]
        x = log_probs(in_shape)
        ignore_index = -100 if ignore in (None, "all") else ignore
        t = targets(t_shape, C, ignore=None if ignore is None else ignore_index,
                    ignore_every=1 if ignore == "all" else 3)
        w = make_tensor((C,), "float32", low=0.1, high=2.0) if weighted else None
        check(lambda a, b, ww: F.nll_loss(a, b, ww, ignore_index=ignore_index, reduction=reduction),
              lambda a, b, ww: TF.nll_loss(a, b, ww, ignore_index=ignore_index, reduction=reduction), x, t, w)


def test_nll_loss_dtypes_and_layouts():
    x = log_probs((6, 4), "float64")
    t = targets((6,), 4)
    check(F.nll_loss, TF.nll_loss, x, t)
    check(F.nll_loss, TF.nll_loss, x, targets((6,), 4, dtype="uint8"))
    check(F.nll_loss, TF.nll_loss, x.t().contiguous().t(), t)
    check(F.nll_loss, TF.nll_loss, log_probs((4, 6)).t(), t)  # a transposed (6, 4) input
    check(F.nll_loss, TF.nll_loss, log_probs((2, 4, 3, 3)).permute(0, 1, 3, 2), targets((2, 3, 3), 4))
    check(F.nll_loss, TF.nll_loss, make_tensor((6, 4), "bfloat16"), t)


def test_nll_loss_errors():
    x = log_probs((2, 5))
    cases = [
        (x, from_array(np.array([1, 5]), "int64"), None),     # target out of range: IndexError
        (x, from_array(np.array([1, -1]), "int64"), None),
        (log_probs((2, 3, 2, 2)), targets((2, 2, 2), 3) + 3, None),
        (log_probs((2, 3, 4)), targets((2, 4), 3) - 1, None),
        (x, from_array(np.array([1, 2], dtype=np.int32), "int32"), None),
        (x, from_array(np.array([1.0, 2.0]), "float32"), None),
        (make_tensor((2, 5), "int64"), targets((2,), 5), None),
        (x, targets((3,), 5), None),                            # batch mismatch: ValueError
        (make_tensor((), "float32"), targets((), 5), None),      # 0-dim input: ValueError
        (log_probs((5,)), targets((1,), 5), None),
        (x, targets((2, 1), 5), None),
        (x, targets((2,), 5), ember.ones(4)),
        (x, targets((2,), 5), ember.ones(1, 5)),
        (x, targets((2,), 5), ember.ones(5, dtype=ember.float64)),
        (log_probs((2, 3, 4)), targets((2, 5), 3), None),
        (log_probs((2, 3, 4, 4)), targets((2, 5, 4), 3), None),
        (log_probs((2, 3, 4, 4)), targets((2, 16), 3), None),
    ]
    for a, b, w in cases:
        check(lambda p, q, ww: F.nll_loss(p, q, ww), lambda p, q, ww: TF.nll_loss(p, q, ww), a, b, w)
    assert_raises_like(lambda: F.nll_loss(x, targets((2,), 5), reduction="avg"),
                       lambda: TF.nll_loss(to_torch(x), torch.tensor([1, 2]), reduction="avg"))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("in_shape, t_shape", [((0,), (0,)), ((3,), (3,)), ((0,), ())])
def test_nll_loss_of_a_1d_input_with_a_1d_target(in_shape, t_shape, reduction):
    # Found by tools/random_calls.py: input (0,) with target (0,) read target[0] of the empty target (SIGSEGV). As
    # PyTorch's, a 1-D input is one sample, an empty target none (mean: NaN), a (0,) input has no class for a target.
    x, t = log_probs(in_shape), targets(t_shape, max(in_shape[0], 1))
    check(lambda a, b: F.nll_loss(a, b, reduction=reduction), lambda a, b: TF.nll_loss(a, b, reduction=reduction),
          x, t)


def test_nll_loss_forward_total_weight():
    x = log_probs((4, 3))
    t = targets((4,), 3, ignore=-100)
    w = make_tensor((3,), "float32", low=0.5, high=2.0)
    for red in [0, 1, 2]:
        actual = ember.nll_loss_forward(x, t, w, red, -100)
        expected = torch.ops.aten.nll_loss_forward(to_torch(x), to_torch(t), to_torch(w), red, -100)
        assert_same(actual, tuple(expected))


@pytest.mark.parametrize("label_smoothing", [0.0, 0.1, 1.0])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore", [None, 1, "all"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_class_indices(reduction, ignore, weighted, label_smoothing):
    for in_shape, t_shape in CLASS_SHAPES:
        C = in_shape[0] if len(in_shape) == 1 else in_shape[1]
        x = make_tensor(in_shape, "float32")
        ignore_index = -100 if ignore in (None, "all") else ignore
        t = targets(t_shape, C, ignore=None if ignore is None else ignore_index,
                    ignore_every=1 if ignore == "all" else 3)
        w = make_tensor((C,), "float32", low=0.1, high=2.0) if weighted else None
        kw = dict(ignore_index=ignore_index, reduction=reduction, label_smoothing=label_smoothing)
        check(lambda a, b, ww: F.cross_entropy(a, b, ww, **kw), lambda a, b, ww: TF.cross_entropy(a, b, ww, **kw),
              x, t, w)


@pytest.mark.parametrize("label_smoothing", [0.0, 0.2])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_probabilities(reduction, weighted, label_smoothing):
    for shape in [(5,), (4, 5), (3, 5, 4), (2, 5, 3, 2), (0, 5), (0, 5, 2)]:
        C = shape[0] if len(shape) == 1 else shape[1]
        x = make_tensor(shape, "float32")
        p = to_ember(torch.from_numpy(make_array(shape, "float32", seed=5)).softmax(0 if len(shape) == 1 else 1))
        w = make_tensor((C,), "float32", low=0.1, high=2.0) if weighted else None
        kw = dict(reduction=reduction, label_smoothing=label_smoothing)
        check(lambda a, b, ww: F.cross_entropy(a, b, ww, **kw), lambda a, b, ww: TF.cross_entropy(a, b, ww, **kw),
              x, p, w)


def test_cross_entropy_dtypes_layouts_and_values():
    x = make_tensor((6, 4), "float64")
    t = targets((6,), 4)
    check(F.cross_entropy, TF.cross_entropy, x, t)
    check(F.cross_entropy, TF.cross_entropy, make_tensor((4, 6), "float32").t(), t)
    check(F.cross_entropy, TF.cross_entropy, make_tensor((6, 4), "float32", layout="strided"), t)
    # float32 logits with float64 probabilities give a float64 loss
    p = to_ember(torch.rand(6, 4, generator=torch.Generator().manual_seed(0), dtype=torch.float64))
    check(F.cross_entropy, TF.cross_entropy, make_tensor((6, 4), "float32"), p, rtol=1e-6)  # float32 log_softmax
    # large logits stay finite (log_softmax is stable); -inf logits of other classes are fine
    big = from_array(np.array([[1000.0, -1000.0, 0.0], [-np.inf, 0.0, 1.0]]), "float32")
    check(F.cross_entropy, TF.cross_entropy, big, from_array(np.array([0, 2]), "int64"))
    nan = from_array(np.array([[np.nan, 0.0, 1.0], [0.0, 1.0, 2.0]]), "float32")
    check(lambda a, b: F.cross_entropy(a, b, reduction="none"), lambda a, b: TF.cross_entropy(a, b, reduction="none"),
          nan, from_array(np.array([1, 2]), "int64"))
    # the legacy size_average / reduce arguments
    for sa, rd in [(False, None), (None, False), (True, True)]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            check(lambda a, b: F.cross_entropy(a, b, size_average=sa, reduce=rd),
                  lambda a, b: TF.cross_entropy(a, b, size_average=sa, reduce=rd), x, t)


def test_cross_entropy_errors():
    x = make_tensor((2, 5), "float32")
    cases = [
        (x, make_tensor((2, 5), "int64"), {}),                          # integer probabilities
        (x, make_tensor((2, 5), "float32"), dict(ignore_index=1)),      # ignore_index with probabilities
        (x, targets((2,), 5), dict(label_smoothing=1.5)),
        (x, make_tensor((2, 5), "float32"), dict(label_smoothing=1.5)),
        (make_tensor((), "float32"), targets((), 5), {}),
        (make_tensor((2, 5), "int64"), targets((2,), 5), {}),
        (x, from_array(np.array([1, 7]), "int64"), {}),
        (x, from_array(np.array([1, 7]), "int64"), dict(label_smoothing=0.1)),
        (x, targets((3,), 5), {}),
        (x, targets((2,), 5), dict(weight=ember.ones(3))),
        (x, make_tensor((2, 5), "float32"), dict(weight=ember.ones(3))),
        (x, targets((2,), 5), dict(reduction="avg")),
    ]
    for a, b, kw in cases:
        check(F.cross_entropy, TF.cross_entropy, a, b, **kw)


def test_cross_entropy_negative_label_smoothing_is_accepted():
    x = make_tensor((3, 4), "float32")
    check(lambda a, b: F.cross_entropy(a, b, label_smoothing=-0.3),
          lambda a, b: TF.cross_entropy(a, b, label_smoothing=-0.3), x, targets((3,), 4))


POINTWISE_LOSSES = {
    "mse_loss": {},
    "l1_loss": {},
    "smooth_l1_loss": {},
    "smooth_l1_loss_beta0.5": dict(beta=0.5),
    "smooth_l1_loss_beta0": dict(beta=0.0),
    "smooth_l1_loss_beta3": dict(beta=3.0),
    "huber_loss": {},
    "huber_loss_delta0.3": dict(delta=0.3),
    "huber_loss_delta4": dict(delta=4.0),
}


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("loss", sorted(POINTWISE_LOSSES))
def test_pointwise_losses(loss, dtype, reduction):
    name = loss.split("_beta")[0].split("_delta")[0]
    kw = dict(POINTWISE_LOSSES[loss], reduction=reduction)
    for shape, layout in [((3, 4), "contiguous"), ((), "contiguous"), ((0, 3), "contiguous"), ((4, 3), "transposed"),
                          ((2, 5), "strided"), ((2, 700), "contiguous")]:
        a = make_tensor(shape, dtype, layout=layout)
        b = make_tensor(shape, dtype, seed=1)
        check(lambda x, y: getattr(F, name)(x, y, **kw), lambda x, y: getattr(TF, name)(x, y, **kw), a, b)


@pytest.mark.parametrize("loss", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
def test_pointwise_losses_broadcast_promote_and_special_values(loss):
    a, b = make_tensor((3, 4), "float32"), make_tensor((4,), "float32", seed=1)
    with pytest.warns(UserWarning):
        r = getattr(F, loss)(a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(r, getattr(TF, loss)(to_torch(a), to_torch(b)))
        check(getattr(F, loss), getattr(TF, loss), a, make_tensor((5,), "float32"))        # does not broadcast
    check(getattr(F, loss), getattr(TF, loss), a, make_tensor((3, 4), "float64", seed=1))  # promotes
    check(getattr(F, loss), getattr(TF, loss), make_tensor((3, 4), "int64"), make_tensor((3, 4), "float32"))
    for red in REDUCTIONS:
        check(lambda x, y: getattr(F, loss)(x, y, reduction=red), lambda x, y: getattr(TF, loss)(x, y, reduction=red),
              make_tensor((3, 4), "int64"), make_tensor((3, 4), "int64", seed=1))
    s = special_tensor("float32")
    check(lambda x, y: getattr(F, loss)(x, y, reduction="none"), lambda x, y: getattr(TF, loss)(x, y, reduction="none"),
          s, from_array(to_torch(s).flip(0).numpy(), "float32"))


def test_pointwise_loss_errors():
    a, b = make_tensor((3,), "float32"), make_tensor((3,), "float32", seed=1)
    check(F.smooth_l1_loss, TF.smooth_l1_loss, a, b, beta=-1.0)
    check(F.huber_loss, TF.huber_loss, a, b, delta=0.0)
    check(F.mse_loss, TF.mse_loss, a, b, reduction="max")
    ai, bi = make_tensor((3,), "bool"), make_tensor((3,), "bool", seed=1)
    for loss in ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"]:
        check(getattr(F, loss), getattr(TF, loss), ai, bi)
    check(lambda x, y: F.smooth_l1_loss(x, y, beta=0.0), lambda x, y: TF.smooth_l1_loss(x, y, beta=0.0),
          make_tensor((3,), "int64"), make_tensor((3,), "int64", seed=1))


@pytest.mark.parametrize("weight", [None, "full", "row"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binary_cross_entropy(dtype, reduction, weight):
    for shape, layout in [((3, 4), "contiguous"), ((4, 3), "transposed"), ((2, 5), "strided"), ((0, 4), "contiguous")]:
        p = make_tensor(shape, dtype, low=0.0, high=1.0, layout=layout)
        y = make_tensor(shape, dtype, low=0.0, high=1.0, seed=1)
        w = None if weight is None else make_tensor(shape if weight == "full" else shape[-1:], dtype, low=0.0, high=2.0,
                                                    seed=2)
        check(lambda a, b, ww: F.binary_cross_entropy(a, b, ww, reduction=reduction),
              lambda a, b, ww: TF.binary_cross_entropy(a, b, ww, reduction=reduction), p, y, w)


def test_binary_cross_entropy_log_clamp_and_errors():
    # log(0) is clamped at -100
    p = from_array(np.array([0.0, 1.0, 0.0, 1.0, 1e-30, 0.5]), "float32")
    y = from_array(np.array([0.0, 1.0, 1.0, 0.0, 1.0, 0.5]), "float32")
    check(lambda a, b: F.binary_cross_entropy(a, b, reduction="none"),
          lambda a, b: TF.binary_cross_entropy(a, b, reduction="none"), p, y)
    check(F.binary_cross_entropy, TF.binary_cross_entropy, p, y)
    cases = [
        (from_array(np.array([np.nan]), "float32"), from_array(np.array([0.5]), "float32"), None),
        (from_array(np.array([1.5]), "float32"), from_array(np.array([0.5]), "float32"), None),
        (from_array(np.array([-0.1]), "float32"), from_array(np.array([0.5]), "float32"), None),
        (make_tensor((2, 3), "float32", low=0, high=1), make_tensor((3,), "float32", low=0, high=1), None),
        (make_tensor((2, 3), "float32", low=0, high=1), make_tensor((2, 3), "float64", low=0, high=1), None),
        (make_tensor((2, 3), "float32", low=0, high=1), make_tensor((2, 3), "float32", low=0, high=1), ember.ones(4)),
        (make_tensor((2, 3), "int64", low=0, high=1), make_tensor((2, 3), "int64", low=0, high=1), None),
    ]
    for a, b, w in cases:
        check(lambda x, t, ww: F.binary_cross_entropy(x, t, ww), lambda x, t, ww: TF.binary_cross_entropy(x, t, ww),
              a, b, w)
    # the op itself broadcasts target to input
    a, b = make_tensor((2, 3), "float32", low=0, high=1), make_tensor((3,), "float32", low=0, high=1, seed=1)
    assert_same(ember._C._nn.binary_cross_entropy(a, b, None, 0),
                torch._C._nn.binary_cross_entropy(to_torch(a), to_torch(b), None, 0))


@pytest.mark.parametrize("pos_weight", [None, "row", "full"])
@pytest.mark.parametrize("weight", [None, "row"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binary_cross_entropy_with_logits(dtype, reduction, weight, pos_weight):
    for shape, layout in [((3, 4), "contiguous"), ((4, 3), "transposed"), ((2, 5), "strided"), ((0, 4), "contiguous"),
                          ((2, 3, 4), "contiguous")]:
        x = make_tensor(shape, dtype, low=-8.0, high=8.0, layout=layout)
        y = make_tensor(shape, dtype, low=0.0, high=1.0, seed=1)
        w = None if weight is None else make_tensor(shape[-1:], dtype, low=0.0, high=2.0, seed=2)
        pw = None if pos_weight is None else make_tensor(shape[-1:] if pos_weight == "row" else shape, dtype, low=0.1,
                                                         high=3.0, seed=3)
        check(lambda a, b, ww, pp: F.binary_cross_entropy_with_logits(a, b, ww, reduction=reduction, pos_weight=pp),
              lambda a, b, ww, pp: TF.binary_cross_entropy_with_logits(a, b, ww, reduction=reduction, pos_weight=pp),
              x, y, w, pw)


def test_binary_cross_entropy_with_logits_is_stable_and_checks():
    x = from_array(np.array([-1000.0, -100.0, -20.0, 0.0, 20.0, 100.0, 1000.0, np.inf, -np.inf, np.nan]), "float32")
    y = from_array(np.array([0.0, 1.0, 0.5, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0]), "float32")
    pw = from_array(np.full(10, 2.5), "float32")
    for kw in [dict(reduction="none"), dict(reduction="none", pos_weight=pw)]:
        check(lambda a, b: F.binary_cross_entropy_with_logits(a, b, **kw),
              lambda a, b: TF.binary_cross_entropy_with_logits(a, b, **{k: to_torch(v) for k, v in kw.items()}), x, y)
    a = make_tensor((2, 3), "float32")
    cases = [(make_tensor((3,), "float32"), {}), (make_tensor((2, 3), "int64"), {}),
             (make_tensor((2, 3), "float32"), dict(pos_weight=ember.ones(4)))]
    for b, kw in cases:
        check(lambda p, q: F.binary_cross_entropy_with_logits(p, q, **kw),
              lambda p, q: TF.binary_cross_entropy_with_logits(p, q, **{k: to_torch(v) for k, v in kw.items()}), a, b)


# ================================================================================================ the op layer
def test_ops_are_reachable_with_aten_schemas():
    # the database holds PyTorch's schemas: each op's first schema names aten and its arguments
    for name in ["max_pool2d_with_indices", "avg_pool2d", "adaptive_avg_pool2d", "batch_norm", "native_batch_norm",
                 "layer_norm", "group_norm", "embedding", "one_hot", "nll_loss", "nll_loss2d", "nll_loss_nd",
                 "cross_entropy_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
                 "binary_cross_entropy_with_logits", "hardtanh", "leaky_relu", "elu", "selu", "celu", "softplus",
                 "hardsigmoid", "hardswish", "mish", "log_sigmoid", "glu", "threshold", "relu6"]:
        schemas = getattr(ember._C._nn, name, getattr(ember, name, None))._schemas
        assert schemas and schemas[0].startswith("aten::" + name), (name, schemas)


def test_loss_ops_take_int_reductions():
    a, b = make_tensor((3, 4), "float32"), make_tensor((3, 4), "float32", seed=1)
    for red in [0, 1, 2]:
        assert_same(ember._C._nn.mse_loss(a, b, red), torch._C._nn.mse_loss(to_torch(a), to_torch(b), red))
    # The default is the schema's reduction=Mean, as torch.ops.aten's. (PyTorch 1.13's torch._C._nn bindings
    # read that default as 0, none: torch._C._nn.mse_loss(a, b) is unreduced.)
    assert_same(ember._C._nn.mse_loss(a, b), torch.ops.aten.mse_loss(to_torch(a), to_torch(b)))
    x, t = make_tensor((3, 4), "float32"), targets((3,), 4)
    assert_same(ember._C._nn.cross_entropy_loss(x, t), torch.ops.aten.cross_entropy_loss(to_torch(x), to_torch(t)))
    assert_same(ember._C._nn.nll_loss(x.log_softmax(1), t),
                torch.ops.aten.nll_loss(to_torch(x).log_softmax(1), to_torch(t)))


@pytest.mark.parametrize("kwargs", [dict(dilation=2 ** 61), dict(stride=2 ** 62), dict(stride=2 ** 63 - 1),
                                    dict(kernel_size=2 ** 62), dict(dilation=2 ** 30), dict(padding=2 ** 40)],
                         ids=str)
@pytest.mark.parametrize("pool", ["max_pool2d", "avg_pool2d"])
def test_pool2d_huge_parameters_raise_runtime_error(pool, kwargs):
    # Checked arithmetic: a RuntimeError naming the op as PyTorch's (was a negative output size, or a result).
    if pool == "avg_pool2d" and "dilation" in kwargs:
        return
    kw = {**dict(kernel_size=3, stride=1, padding=1), **kwargs}
    e = assert_raises_like(lambda: getattr(F, pool)(ember.zeros(1, 1, 4, 4), **kw),
                           lambda: getattr(TF, pool)(torch.zeros(1, 1, 4, 4), **kw))
    assert str(e).startswith(pool + ": ")


@pytest.mark.parametrize("call, names", [
    (lambda m, f: f.embedding(m.tensor([1.0]), m.ones(3, 2)), ["float32", "int64, int32"]),
    (lambda m, f: f.embedding(m.tensor([1], dtype=m.int16), m.ones(3, 2)), ["int16"]),
    (lambda m, f: f.conv2d(m.ones(1, 1, 3, 3), m.ones(1, 1, 1, 1, dtype=m.float64)), ["float32", "float64"]),
    (lambda m, f: f.conv2d(m.ones(1, 1, 3, 3), m.ones(1, 1, 1, 1), m.ones(1, dtype=m.float64)),
     ["float32", "float64"]),
    (lambda m, f: m.ones(2, 3, dtype=m.int32).expand(3), ["int32"]),
], ids=["embedding_float", "embedding_int16", "conv_weight", "conv_bias", "expand"])
def test_dtype_errors_name_embers_dtypes(call, names):
    # Ember's messages name dtypes as Ember does (float32, int64), never as PyTorch's legacy "torch.FloatTensor";
    # the exception type is PyTorch's.
    e = assert_raises_like(lambda: call(ember, F), lambda: call(torch, TF))
    assert "torch." not in str(e) and "Tensor" not in str(e).split(":")[0]
    for name in names:
        assert name in str(e)
