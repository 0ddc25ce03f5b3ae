"""Reductions, scans and softmax against PyTorch 1.13: values, dtypes, shapes and error types over dims,
keepdim, dtype=, every dtype, non-contiguous inputs, empty and zero-size dims, 0-dim tensors and NaN/inf."""
import numpy as np
import pytest

import ember
import torch
from conftest import (ALL_DTYPES, FLOAT_DTYPES, NUMERIC_DTYPES, assert_raises_like, assert_same, check, make_tensor,
                      from_array, make_array, outputs_in_each_isa_build, to_torch)

SHAPES = [(), (0,), (5,), (2, 0, 3), (3, 4), (2, 3, 4)]
LAYOUTS = ["contiguous", "transposed", "strided"]


def dims_for(shape):
    """None, every single dim (positive and negative) and, for 3-D shapes, pairs of dims."""
    nd = len(shape)
    out = [None] + list(range(nd)) + ([-1] if nd else [0])
    if nd >= 3:
        out += [(0, 2), (1, -1)]
    return out


def check_native(*args, **kwargs):
    """check() with PyTorch computing in float16/bfloat16 itself (it has these reductions for the narrow types)."""
    return check(*args, native_narrow=True, **kwargs)


def _layout(shape, layout):
    """Non-contiguous layouts need at least one dim (and two to differ from contiguous when transposed)."""
    return layout if len(shape) >= 1 else "contiguous"


def _narrow_tol(dtype):
    return dict(rtol=2e-2, atol=2e-2) if dtype in ("float16", "bfloat16") else {}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("name", ["sum", "nansum", "mean"])
def test_sum_mean(name, dtype, shape, layout):
    x = make_tensor(shape, dtype, layout=_layout(shape, layout))
    for dim in dims_for(shape):
        for keepdim in (False, True):
            kw = {} if dim is None and not keepdim else dict(dim=dim if dim is not None else None, keepdim=keepdim)
            if name == "nansum" and dtype in ("bool",):
                continue  # PyTorch 1.13: nansum of bool is not implemented; Ember sums it like sum
            check_native(lambda t, **k: getattr(ember, name)(t, **k), lambda t, **k: getattr(torch, name)(t, **k), x,
                  **kw, **_narrow_tol(dtype))


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64", "bool"])
def test_sum_dtype_argument(dtype):
    x = make_tensor((3, 4), dtype)
    for out_dtype in ("float64", "int64", "float32"):
        check(lambda t: t.sum(dtype=getattr(ember, out_dtype)), lambda t: t.sum(dtype=getattr(torch, out_dtype)), x)
        check(lambda t: t.sum(1, dtype=getattr(ember, out_dtype)), lambda t: t.sum(1, dtype=getattr(torch, out_dtype)),
              x)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", NUMERIC_DTYPES + ["bool"])
def test_prod(dtype, shape):
    x = make_tensor(shape, dtype, low=-2, high=3) if dtype not in FLOAT_DTYPES else make_tensor(shape, dtype, low=-1.5,
                                                                                                 high=1.5)
    check(ember.prod, torch.prod, x, **_narrow_tol(dtype))
    for dim in range(len(shape)):
        check(lambda t: t.prod(dim, keepdim=True), lambda t: t.prod(dim, keepdim=True), x, **_narrow_tol(dtype))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_max_min_values_and_indices(dtype, shape, layout):
    x = make_tensor(shape, dtype, layout=_layout(shape, layout), low=-3, high=3)  # small range: many ties
    for name in ("max", "min"):
        check_native(lambda t: getattr(t, name)(), lambda t: getattr(t, name)(), x)
        for dim in range(-len(shape) if shape else -1, len(shape) if shape else 1):
            for keepdim in (False, True):
                check_native(lambda t: tuple(getattr(t, name)(dim, keepdim)),
                             lambda t: tuple(getattr(t, name)(dim, keepdim)), x)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_amax_amin_argmax_argmin(dtype, shape):
    x = make_tensor(shape, dtype, low=-3, high=3)
    for dims in [(), (0,)] + ([(0, -1)] if len(shape) >= 2 else []):
        if len(shape) == 0 and dims:
            dims = (0,)
        for name in ("amax", "amin"):
            check_native(lambda t: getattr(ember, name)(t, dims, True), lambda t: getattr(torch, name)(t, dims, True),
                         x)
    for name in ("argmax", "argmin"):
        check_native(lambda t: getattr(t, name)(), lambda t: getattr(t, name)(), x)
        check_native(lambda t: getattr(t, name)(keepdim=True), lambda t: getattr(t, name)(keepdim=True), x)
        for dim in range(len(shape)):
            check_native(lambda t: getattr(t, name)(dim), lambda t: getattr(t, name)(dim), x)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_nan_propagates_and_wins_argmax(dtype):
    x = ember.tensor([[1.0, float("nan"), 3.0], [float("inf"), -1.0, float("nan")]]).to(getattr(ember, dtype))
    for fn in (lambda t: t.max(), lambda t: tuple(t.max(1)), lambda t: tuple(t.min(0)), lambda t: t.argmax(1),
               lambda t: t.argmin(), lambda t: t.amax(1), lambda t: t.amin(0), lambda t: t.sum(1),
               lambda t: t.nansum(1)):
        check_native(fn, fn, x, **_narrow_tol(dtype))
    check(lambda t: t.logsumexp(1), lambda t: t.logsumexp(1), x, **_narrow_tol(dtype))  # float32 reference


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4), (1, 1), (0, 3)], ids=str)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_var_std(dtype, shape, layout):
    x = make_tensor(shape, dtype, layout=_layout(shape, layout))
    tol = _narrow_tol(dtype) or dict(rtol=1e-5, atol=1e-5)
    for name in ("var", "std"):
        check_native(lambda t: getattr(t, name)(), lambda t: getattr(t, name)(), x, **tol)
        check_native(lambda t: getattr(t, name)(unbiased=False), lambda t: getattr(t, name)(unbiased=False), x, **tol)
        for dim in range(len(shape)):
            for correction in (0, 1, 2):
                check_native(lambda t: getattr(ember, name)(t, dim, correction=correction, keepdim=True),
                      lambda t: getattr(torch, name)(t, dim, correction=correction, keepdim=True), x, **tol)
        for name2 in ("var_mean", "std_mean"):
            check_native(lambda t: getattr(ember, name2)(t, 0), lambda t: getattr(torch, name2)(t, 0), x, **tol)


@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_var_mean_of_integers_raise(dtype):
    x = make_tensor((3,), dtype)
    for name in ("var", "std", "mean"):
        check(lambda t: getattr(t, name)(), lambda t: getattr(t, name)(), x)


@pytest.mark.parametrize("ord", [2, 1, 0, 3, 0.5, float("inf"), -float("inf")])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_vector_norm(ord, dtype):
    x = make_tensor((3, 4, 2), dtype)
    tol = _narrow_tol(dtype) or dict(rtol=1e-5, atol=1e-5)
    check_native(lambda t: ember.linalg.vector_norm(t, ord), lambda t: torch.linalg.vector_norm(t, ord), x, **tol)
    check_native(lambda t: ember.linalg.vector_norm(t, ord, (0, 2), True),
          lambda t: torch.linalg.vector_norm(t, ord, (0, 2), True), x, **tol)
    check_native(lambda t: t.norm(ord, dim=1), lambda t: t.norm(ord, dim=1), x, **tol)
    check_native(lambda t: t.norm(), lambda t: t.norm(), x, **tol)


def test_norm_errors():
    check(lambda t: ember.linalg.vector_norm(t, float("inf")), lambda t: torch.linalg.vector_norm(t, float("inf")),
          ember.zeros(0))
    check(lambda t: ember.linalg.vector_norm(t), lambda t: torch.linalg.vector_norm(t), ember.arange(3))
    assert_same(ember.linalg.vector_norm(ember.zeros(0)), torch.linalg.vector_norm(torch.zeros(0)))


@pytest.mark.parametrize("shape", [(3, 4), (2, 0), (0, 3), (5,)], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "float16"])
def test_logsumexp(dtype, shape):
    x = make_tensor(shape, dtype)
    for dim in range(len(shape)):
        check(lambda t: t.logsumexp(dim), lambda t: t.logsumexp(dim), x, **_narrow_tol(dtype))
        check(lambda t: ember.logsumexp(t, (dim,), True), lambda t: torch.logsumexp(t, (dim,), True), x,
              **_narrow_tol(dtype))
    big = ember.tensor([1000.0, 1000.0, -float("inf")])
    check(lambda t: t.logsumexp(0), lambda t: t.logsumexp(0), big)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_all_any_count_nonzero(dtype, shape):
    x = make_tensor(shape, dtype, low=0, high=2)
    for name in ("all", "any"):
        check_native(lambda t: getattr(t, name)(), lambda t: getattr(t, name)(), x)
        for dim in range(len(shape)):
            check_native(lambda t: getattr(t, name)(dim, True), lambda t: getattr(t, name)(dim, True), x)
    check_native(ember.count_nonzero, torch.count_nonzero, x)
    for dim in range(len(shape)):
        check_native(lambda t: ember.count_nonzero(t, dim), lambda t: torch.count_nonzero(t, dim), x)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 4), (2, 0, 3)], ids=str)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_cumsum_cumprod(dtype, shape, layout):
    x = make_tensor(shape, dtype, layout=_layout(shape, layout), low=-2, high=3) if dtype not in FLOAT_DTYPES else \
        make_tensor(shape, dtype, layout=_layout(shape, layout), low=-1.5, high=1.5)
    for dim in (range(len(shape)) if shape else [0, -1]):
        for name in ("cumsum", "cumprod"):
            check(lambda t: getattr(t, name)(dim), lambda t: getattr(t, name)(dim), x, **_narrow_tol(dtype))
            check(lambda t: getattr(t, name)(dim, dtype=ember.float64),
                  lambda t: getattr(t, name)(dim, dtype=torch.float64), x)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4), (2, 3, 5), (2, 0, 3)], ids=str)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES + ["int64"])
def test_softmax_log_softmax(dtype, shape, layout):
    x = make_tensor(shape, dtype, layout=_layout(shape, layout))
    for dim in (range(len(shape)) if shape else [0]):
        for name in ("softmax", "log_softmax"):
            check(lambda t: getattr(t, name)(dim), lambda t: getattr(t, name)(dim), x, **_narrow_tol(dtype))
            if dtype != "int64":
                check(lambda t: getattr(t, name)(dim, dtype=ember.float64),
                      lambda t: getattr(t, name)(dim, dtype=torch.float64), x)


def test_softmax_extremes():
    x = ember.tensor([[1000.0, 0.0, -1000.0], [-float("inf"), 0.0, 1.0], [-float("inf")] * 3])
    for name in ("softmax", "log_softmax"):
        check(lambda t: getattr(t, name)(1), lambda t: getattr(t, name)(1), x)


def test_errors():
    cases = [
        (lambda m: m.zeros(0).max(), "max of empty"),
        (lambda m: m.zeros(0, 3).max(0), "max over an empty dim"),
        (lambda m: m.zeros(0).argmax(), "argmax of empty"),
        (lambda m: m.zeros(0, 2).amax(0), "amax over an empty dim"),
        (lambda m: m.ones(3).sum((0, 0)), "repeated dim"),
        (lambda m: m.ones(3).sum(1), "dim out of range"),
        (lambda m: m.arange(3).mean(), "mean of integers"),
    ]
    for fn, what in cases:
        with pytest.raises(Exception) as t:
            fn(torch)
        with pytest.raises(Exception) as e:
            fn(ember)
        assert type(e.value) is type(t.value), what


def test_large_sums_are_accurate_and_deterministic():
    rng = np.random.default_rng(0)
    a = rng.random((1000, 1000), dtype=np.float32)
    e, t = ember.from_numpy(a), torch.from_numpy(a)
    for fn in (lambda x: x.sum(), lambda x: x.sum(0), lambda x: x.sum(1), lambda x: x.mean(), lambda x: x.var(0)):
        assert_same(fn(e), fn(t), rtol=1e-5, atol=1e-5)
    ember.set_num_threads(2)
    r1 = e.sum().item()
    assert all(e.sum().item() == r1 for _ in range(5))


def test_out_variants():
    x = make_tensor((3, 4), "float32")
    out = ember.empty(0)
    r = ember.sum(x, 1, out=out)
    assert r is out
    assert_same(out, torch.sum(to_torch(x), 1))
    idx = ember.empty(0, dtype=ember.int64)
    assert ember.argmax(x, 0, out=idx) is idx
    assert_same(idx, torch.argmax(to_torch(x), 0))


# torch.norm / Tensor.norm: PyTorch's Python function (p='fro' by default, dim=None, keepdim, out, dtype).
NORM_CALLS = {
    "default": lambda L, t: L.norm(t),
    "method_default": lambda L, t: t.norm(),
    "fro_str": lambda L, t: L.norm(t, "fro"),
    "fro_dim_pair": lambda L, t: L.norm(t, "fro", dim=(0, 1), keepdim=True),
    "fro_dim_int": lambda L, t: t.norm(p="fro", dim=1),
    "dim_without_p": lambda L, t: L.norm(t, dim=1, keepdim=True),
    "p_none": lambda L, t: L.norm(t, None, 0),
    "p0": lambda L, t: L.norm(t, 0),
    "p1_dim": lambda L, t: t.norm(1, 1),
    "p3_dtype": lambda L, t: t.norm(p=3, dim=-1, dtype=L.float64),
    "inf": lambda L, t: L.norm(t, float("inf")),
    "neg_inf_dim": lambda L, t: L.norm(t, -float("inf"), dim=0),
    "keepdim_all": lambda L, t: L.norm(t, 2, keepdim=True),
}


@pytest.mark.parametrize("call", sorted(NORM_CALLS))
@pytest.mark.parametrize("shape, layout", [((3, 4), "contiguous"), ((3, 4), "transposed"), ((2, 3, 4), "strided"),
                                           ((0, 3), "contiguous"), ((2, 0), "contiguous")], ids=str)
def test_norm_python_function(call, shape, layout):
    fn = NORM_CALLS[call]
    x = make_tensor(shape, "float32", layout=layout)
    check(lambda t: fn(ember, t), lambda t: fn(torch, t), x, rtol=1e-5, atol=1e-6)


def test_norm_python_function_edges():
    nan = make_tensor((3, 4), "float64").clone()
    nan[1, 2] = float("nan")
    for p in ["fro", 1, float("inf")]:
        check(lambda t: ember.norm(t, p, 1), lambda t: torch.norm(t, p, 1), nan)
    check(lambda t: ember.norm(t), lambda t: torch.norm(t), ember.tensor(-3.0))
    check(lambda t: ember.norm(t, 2, dim=[]), lambda t: torch.norm(t, 2, dim=[]), ember.tensor(-3.0))
    # float64 input with dtype=float32 converts down, as PyTorch's
    check(lambda t: ember.norm(t, 3, dtype=ember.float32), lambda t: torch.norm(t, 3, dtype=torch.float32),
          make_tensor((4,), "float64"), rtol=1e-6)
    out = ember.empty(0)
    r = ember.norm(make_tensor((3, 4), "float32"), 2, 1, out=out)
    assert r is out
    assert_same(out, torch.norm(to_torch(make_tensor((3, 4), "float32")), 2, 1))


@pytest.mark.parametrize("case", ["fro_dtype", "three_dims_fro", "bad_string", "int_dtype", "int_input", "dim_range"])
def test_norm_python_function_errors(case):
    x3 = make_tensor((2, 3, 4), "float32")
    calls = {
        "fro_dtype": lambda L, t: L.norm(t, "fro", dtype=L.float64),                  # ValueError
        "three_dims_fro": lambda L, t: L.norm(t, "fro", dim=(0, 1, 2)),               # RuntimeError
        "bad_string": lambda L, t: L.norm(t, "abc"),                                  # RuntimeError
        "int_dtype": lambda L, t: L.norm(t, 3, dtype=L.int64),                        # RuntimeError
        "int_input": lambda L, t: L.norm(t.long()),                                   # RuntimeError
        "dim_range": lambda L, t: L.norm(t, "fro", dim=5),                            # IndexError
    }
    check(lambda t: calls[case](ember, t), lambda t: calls[case](torch, t), x3)


@pytest.mark.parametrize("shape, dim, keepdim", [((2, 3), None, False), ((3, 2), None, True),
                                               ((2, 3, 4), (1, 2), False), ((4, 2, 3), (0, 2), True)], ids=str)
def test_norm_nuclear(shape, dim, keepdim):
    # p='nuc': the sum of the singular values (LAPACK's SVD), over the last two dims or the two given
    x = from_array(make_array(shape, "float64", seed=3), "float64")
    check(lambda t: ember.norm(t, "nuc", dim, keepdim), lambda t: torch.norm(t, "nuc", dim, keepdim), x)
    with pytest.raises(RuntimeError):
        ember.norm(ember.ones(3), "nuc")  # a vector has no nuclear norm (PyTorch raises too)
    with pytest.raises(RuntimeError):
        torch.norm(torch.ones(3), "nuc")


@pytest.mark.parametrize("ord", [-1, -0.5, -float("inf"), float("inf"), 0, 1, 2])
@pytest.mark.parametrize("shape, dim", [((0,), None), ((0, 3), None), ((0, 3), 0), ((0, 3), 1), ((2, 0), 1)],
                         ids=str)
def test_vector_norm_of_empty_reductions(ord, shape, dim):
    # negative and infinite orders have no identity: PyTorch raises when a result element reduces nothing
    check(lambda t: ember.linalg.vector_norm(t, ord, dim), lambda t: torch.linalg.vector_norm(t, ord, dim),
          ember.zeros(shape))


def test_vector_norm_keywords_and_out():
    x = make_tensor((3, 4), "float32")
    check(lambda t: ember.linalg.vector_norm(input=t, ord=1, dim=0, keepdim=True),
          lambda t: torch.linalg.vector_norm(input=t, ord=1, dim=0, keepdim=True), x)
    out = ember.empty(0, dtype=ember.float64)
    r = ember.linalg.vector_norm(x, 2, 1, dtype=ember.float64, out=out)
    assert r is out
    assert_same(out, torch.linalg.vector_norm(to_torch(x), 2, 1, dtype=torch.float64))


# ---- Note [vectorized sums]: contiguous rows fold in 32 double lanes, columns in wide blocks.
@pytest.mark.parametrize("shape", [(7, 1), (5, 15), (4, 16), (3, 17), (9, 100), (2, 1027), (300, 259), (1, 0),
                                   (0, 5)], ids=str)
@pytest.mark.parametrize("dim", [0, 1, None])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["sum", "mean"])
def test_vectorized_sum_sizes_match_reference(name, dtype, dim, shape):
    a = make_tensor(shape, dtype, low=-3, high=3)
    if name == "mean" and 0 in shape:
        return  # mean of an empty range is NaN on both sides; covered by the generic tests
    args = () if dim is None else (dim,)
    assert_same(getattr(ember, name)(a, *args), getattr(torch, name)(to_torch(a), *args), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("special", [float("nan"), float("inf"), -float("inf")], ids=str)
@pytest.mark.parametrize("pos", [0, 15, 16, 40])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_vectorized_sum_special_values(dtype, pos, special):
    a = make_tensor((6, 41), dtype)
    a[2, pos] = special
    t = to_torch(a)
    for dim in (0, 1, None):
        args = () if dim is None else (dim,)
        assert_same(ember.sum(a, *args), torch.sum(t, *args), rtol=1e-5, atol=1e-5)
    assert_same(ember.softmax(a, 1), torch.softmax(t, 1), rtol=1e-5, atol=1e-6)


def test_vectorized_sum_is_exact_for_cancellation():
    """Double accumulation: a float32 sum of large values that cancel keeps the small ones."""
    a = ember.tensor([[1e8, 1.0, -1e8, 1.0] * 9], dtype=ember.float32)
    assert ember.sum(a, 1).item() == 18.0
    assert ember.sum(a.t().contiguous(), 0).item() == 18.0


@pytest.mark.parametrize("threads", [1, 2])
def test_vectorized_sum_deterministic_for_thread_count(threads):
    ember.set_num_threads(threads)
    a = make_tensor((257, 1031), "float32")
    r1 = [ember.sum(a, 1), ember.sum(a, 0), ember.sum(a)]
    r2 = [ember.sum(a, 1), ember.sum(a, 0), ember.sum(a)]
    for x, y in zip(r1, r2):
        assert ember.equal(x, y)
    assert_same(r1[0], torch.sum(to_torch(a), 1), rtol=1e-5, atol=1e-4)  # torch sums in float


def test_vectorized_sum_identical_across_instruction_set_builds():
    """Every build adds the same numbers in the same order (Note [vectorized sums]): bitwise equal results."""
    code = ("import numpy as np, ember, hashlib;"
            "x = ember.from_numpy(np.random.default_rng(1).standard_normal((70, 1037)).astype(np.float32)).clone();"
            "print(hashlib.md5(b''.join(t.numpy().tobytes() for t in (x.sum(1), x.sum(0), x.sum()))).hexdigest())")
    assert len(outputs_in_each_isa_build(code)) == 1


# Found by tools/random_calls.py: these out= tensors of another dtype were silently cast into; PyTorch requires the
# result's own dtype (argmax/argmin: int64, amax/amin: the input's, cumsum/cumprod: the dtype= asked for), and an
# in-place cumsum_/cumprod_ cannot change self's dtype.
@pytest.mark.parametrize("call", [
    lambda m: m.argmax(m.ones(2, 3), out=m.zeros(1)),
    lambda m: m.argmin(m.ones(2, 3), 1, out=m.zeros(2, dtype=m.int32)),
    lambda m: m.amax(m.ones(2, 3), 1, out=m.zeros(2, dtype=m.float64)),
    lambda m: m.amin(m.ones(2, 3), 0, out=m.zeros(3, dtype=m.float16)),
    lambda m: m.cumsum(m.ones(3), 0, dtype=m.float64, out=m.zeros(3)),
    lambda m: m.cumprod(m.ones(3), 0, dtype=m.float32, out=m.zeros(3, dtype=m.int64)),
    lambda m: m.ones(3).cumsum_(0, dtype=m.float64),
    lambda m: m.ones(3, dtype=m.int32).cumprod_(0, dtype=m.int64),
], ids=["argmax", "argmin", "amax", "amin", "cumsum", "cumprod", "cumsum_", "cumprod_"])
def test_out_of_another_dtype_is_refused(call):
    e = assert_raises_like(lambda: call(ember), lambda: call(torch))
    assert "dtype" in str(e)


@pytest.mark.parametrize("call", [
    lambda m: m.argmax(m.arange(6.0).reshape(2, 3), 1, out=m.zeros(2, dtype=m.int64)),
    lambda m: m.amax(m.arange(6.0).reshape(2, 3), 1, out=m.zeros(2)),
    lambda m: m.cumsum(m.arange(3.0), 0, dtype=m.float64, out=m.zeros(3, dtype=m.float64)),
    lambda m: m.arange(3.0).cumprod_(0, dtype=m.float32),
], ids=["argmax", "amax", "cumsum", "cumprod_"])
def test_out_of_the_result_dtype_is_written(call):
    check(lambda: call(ember), lambda: call(torch))
