"""Matrix products against PyTorch 1.13: matmul in every dimension case (dot, mv, 1-D·2-D, mm, folded ≥3-D with
1-D/2-D, batched with broadcasting), mm, bmm, mv, dot, outer/ger, addmm, baddbmm, linear, their out= and in-place
forms, the `@` operator; every dtype, empty and zero-size dims, non-contiguous, transposed and broadcast
(stride-0) operands, NaN/inf, and the errors PyTorch raises (type and message). Float products run with the
providers in each setting (the `blas` fixture: oneDNN and OpenBLAS on; oneDNN off; both off, the reference
kernel) and all must match PyTorch; bool and (where PyTorch 1.13
lacks them) float16 products are Ember extensions compared with NumPy / a float32 computation."""
import contextlib
import re

import numpy as np
import pytest
import torch

import ember
from conftest import (INT_DTYPES, NUMERIC_DTYPES, assert_raises_like, assert_same, check, dtype_name, edtype,
                      from_array, make_array, make_tensor, tdtype, to_numpy, to_torch)

# Sums of k products of values in [-4, 4): float32 keeps about 7 digits of the largest partial sum, so absolute
# tolerances scale with it rather than with the (possibly cancelling) result.
TOL = {
    "float32": dict(rtol=1e-5, atol=2e-4),
    "float64": dict(rtol=1e-10, atol=1e-10),
    "float16": dict(rtol=2e-3, atol=2e-2),
    "bfloat16": dict(rtol=1.6e-2, atol=1e-1),
}


def tol(dtype):
    return TOL.get(dtype, {})


PROVIDER_SETTINGS = {"onednn": (True, True), "blas": (False, True), "reference": (False, False)}


@contextlib.contextmanager
def providers(setting):
    """oneDNN and OpenBLAS switched as PROVIDER_SETTINGS[setting] says, restored afterwards."""
    onednn, blas = PROVIDER_SETTINGS[setting]
    with ember.backends.onednn.flags(enabled=onednn), ember.backends.blas.flags(enabled=blas):
        yield


@pytest.fixture(params=list(PROVIDER_SETTINGS))
def blas(request):
    """Runs the test with oneDNN and OpenBLAS on (oneDNN serves float32 products, Note [onednn gemm]), then
    with OpenBLAS alone, then with neither (the reference kernel)."""
    with providers(request.param):
        yield request.param


def check_error(efn, tfn):
    """PyTorch's tfn() raises; Ember's efn() raises the same exception type with a message containing
    PyTorch's (Ember may start it with the op name and add a hint after it)."""
    error = assert_raises_like(efn, tfn)
    with pytest.raises(Exception) as tinfo:
        tfn()
    want = re.sub(r"^\w+ ?: ", "", str(tinfo.value).splitlines()[0])  # "dot : expected ..." -> "expected ..."
    assert want in str(error), f"Ember's message {str(error)!r} lacks PyTorch's {want!r}"
    return error


def check_out(efn, tfn, args, out_shape=(0,), dtype=None, **kw):
    """The out= form: a fresh out tensor of out_shape (resized by the op) for each framework; the op returns
    it, holding PyTorch's values, and its version counter moves."""
    dtype = dtype or dtype_name(next(a for a in args if isinstance(a, ember.Tensor)).dtype)
    eout = ember.empty(out_shape, dtype=edtype(dtype))
    tout = torch.empty(out_shape, dtype=tdtype(dtype))
    version = eout._version
    expected = tfn(*[to_torch(a) for a in args], out=tout)
    actual = efn(*args, out=eout)
    assert actual is eout
    assert_same(eout, tout, **kw)
    assert_same(actual, expected, **kw)
    if eout.numel():
        assert eout._version > version


# ---------------------------------------------------------------------------------------------- matmul cases
# (shape of self, shape of other): every dimension case of matmul (Note [matmul cases] in ember/ops/linalg.cpp).
MATMUL_SHAPES = {
    "dot": ((5,), (5,)),
    "mv": ((3, 5), (5,)),
    "vec_mat": ((5,), (5, 4)),
    "mm": ((3, 5), (5, 4)),
    "3d_vec (fold)": ((2, 3, 5), (5,)),
    "vec_3d (fold)": ((5,), (2, 5, 4)),
    "3d_mat (fold)": ((2, 3, 5), (5, 4)),
    "mat_3d (fold, transposed)": ((3, 5), (2, 5, 4)),
    "4d_mat (fold)": ((2, 2, 3, 5), (5, 4)),
    "vec_4d (fold)": ((5,), (2, 2, 5, 4)),
    "bmm": ((2, 3, 5), (2, 5, 4)),
    "batch broadcast 1": ((1, 3, 5), (4, 5, 2)),
    "batch broadcast 2": ((2, 1, 3, 5), (4, 5, 2)),
    "batch broadcast 3": ((2, 1, 3, 5), (1, 3, 5, 2)),
    "4d_4d": ((2, 2, 3, 5), (2, 2, 5, 4)),
    "5d_vec": ((2, 1, 2, 3, 5), (5,)),
    # empty and zero-size dims
    "dot k=0": ((0,), (0,)),
    "mv m=0": ((0, 5), (5,)),
    "mv k=0": ((3, 0), (0,)),
    "mm m=0": ((0, 5), (5, 4)),
    "mm k=0": ((3, 0), (0, 4)),
    "mm n=0": ((3, 5), (5, 0)),
    "vec_mat k=0": ((0,), (0, 4)),
    "bmm batch=0": ((0, 3, 5), (0, 5, 4)),
    "bmm k=0": ((2, 3, 0), (2, 0, 4)),
    "fold rows=0": ((2, 0, 5), (5, 4)),
    "broadcast batch=0": ((0, 1, 3, 5), (4, 5, 2)),
    "batch 1 vs 0": ((1, 3, 5), (0, 5, 2)),
}
MATMUL_ERRORS = {
    "0-dim left": ((), (3,)),
    "0-dim right": ((3,), ()),
    "both 0-dim": ((), ()),
    "dot sizes": ((2,), (3,)),
    "mv sizes": ((2, 3), (2,)),
    "vec_mat sizes": ((2,), (3, 2)),
    "mm sizes": ((2, 3), (2, 3)),
    "fold 3d_vec sizes": ((4, 2, 3), (2,)),
    "fold vec_3d sizes": ((2,), (4, 3, 2)),
    "fold 3d_mat sizes": ((4, 2, 3), (2, 3)),
    "fold mat_3d sizes": ((2, 3), (4, 2, 3)),
    "bmm sizes": ((4, 2, 3), (4, 2, 3)),
    "batches do not broadcast": ((2, 2, 3), (3, 3, 2)),
    "4d batches do not broadcast": ((2, 3, 2, 3), (4, 3, 2)),
}


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("case", list(MATMUL_SHAPES))
def test_matmul_matches_reference(case, dtype, layout, blas):
    shape_a, shape_b = MATMUL_SHAPES[case]
    a = make_tensor(shape_a, dtype, layout=layout)
    b = make_tensor(shape_b, dtype, layout=layout, seed=1)
    expected = torch.matmul(to_torch(a), to_torch(b))
    assert_same(ember.matmul(a, b), expected, **tol(dtype))
    assert_same(a.matmul(b), expected, **tol(dtype))
    assert_same(a @ b, expected, **tol(dtype))
    check_out(ember.matmul, torch.matmul, (a, b), **tol(dtype))


@pytest.mark.parametrize("case", list(MATMUL_SHAPES))
def test_matmul_strides_as_pytorch(case):
    """The result's strides too: PyTorch transposes back the folded 2-D @ >=3-D product (a contiguous copy)."""
    shape_a, shape_b = MATMUL_SHAPES[case]
    a, b = make_tensor(shape_a, "float32"), make_tensor(shape_b, "float32", seed=1)
    r, t = ember.matmul(a, b), torch.matmul(to_torch(a), to_torch(b))
    if r.numel() > 1:
        assert r.stride() == t.stride()


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES)
@pytest.mark.parametrize("case", ["dot", "mv", "vec_mat", "mm", "3d_mat (fold)", "mat_3d (fold, transposed)",
                                  "batch broadcast 2", "5d_vec"])
def test_matmul_every_dtype(case, dtype, blas):
    """Integers accumulate exactly; float16 and bfloat16 accumulate in float32 (PyTorch 1.13 has no float16
    products on the CPU: the reference is its float32 product rounded to float16)."""
    shape_a, shape_b = MATMUL_SHAPES[case]
    a, b = make_tensor(shape_a, dtype), make_tensor(shape_b, dtype, seed=1)
    check(ember.matmul, torch.matmul, a, b, **tol(dtype))


@pytest.mark.parametrize("case", ["dot", "mv", "vec_mat", "mm", "3d_mat (fold)", "mat_3d (fold, transposed)",
                                  "batch broadcast 2", "mm k=0", "dot k=0"])
def test_matmul_bool(case):
    """Beyond PyTorch 1.13 (which raises for bool): NumPy's bool matmul, "any a_ik and b_kj"."""
    shape_a, shape_b = MATMUL_SHAPES[case]
    a, b = make_array(shape_a, "bool"), make_array(shape_b, "bool", seed=1)
    r = ember.matmul(from_array(a, "bool"), from_array(b, "bool"))
    assert r.dtype == ember.bool
    np.testing.assert_array_equal(to_numpy(r), np.matmul(a, b))


@pytest.mark.parametrize("case", list(MATMUL_ERRORS))
def test_matmul_errors(case):
    shape_a, shape_b = MATMUL_ERRORS[case]
    a, b = make_tensor(shape_a, "float32"), make_tensor(shape_b, "float32")
    e = check_error(lambda: ember.matmul(a, b), lambda: torch.matmul(to_torch(a), to_torch(b)))
    assert str(e).startswith("matmul: ")
    check_error(lambda: a @ b, lambda: to_torch(a) @ to_torch(b))


@pytest.mark.parametrize("shapes", [((2, 3), (3, 4)), ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)),
                                    ((2, 2, 3), (3, 2)), ((3,), (2, 3, 2)), ((2, 2, 3), (2, 3, 2))],
                         ids=str)
def test_matmul_dtype_mismatch(shapes):
    """No type promotion: the operands must have one dtype (PyTorch's "expected scalar type" errors)."""
    a, b = make_tensor(shapes[0], "float32"), make_tensor(shapes[1], "float64")
    check_error(lambda: ember.matmul(a, b), lambda: torch.matmul(to_torch(a), to_torch(b)))
    check_error(lambda: ember.matmul(b, a.to(ember.int64)), lambda: torch.matmul(to_torch(b), to_torch(a).long()))


def test_matmul_out_errors_and_strides():
    a, b = make_tensor((2, 3), "float32"), make_tensor((3, 2), "float32")
    check_error(lambda: ember.matmul(a, b, out=ember.empty(2, 2, dtype=ember.float64)),
                lambda: torch.matmul(to_torch(a), to_torch(b), out=torch.empty(2, 2, dtype=torch.float64)))
    v = make_tensor((3,), "float32")
    check_error(lambda: ember.matmul(v, v, out=ember.empty(0, dtype=ember.float64)),
                lambda: torch.matmul(to_torch(v), to_torch(v), out=torch.empty(0, dtype=torch.float64)))
    # A non-contiguous out= of the right shape keeps its strides (the result is written through them).
    base = ember.zeros(2, 4)
    out = base[:, ::2]
    r = ember.matmul(a, b, out=out)
    assert r is out and out.stride() == (4, 2)
    assert_same(base[:, ::2], torch.matmul(to_torch(a), to_torch(b)), **tol("float32"))
    assert base[:, 1::2].abs().sum().item() == 0


# ---------------------------------------------------------------------------------------------- mm, bmm, mv, dot
MM_SHAPES = [((3, 5), (5, 4)), ((1, 1), (1, 1)), ((0, 5), (5, 4)), ((3, 0), (0, 4)), ((3, 5), (5, 0)),
             ((1, 7), (7, 6)), ((6, 7), (7, 1)), ((70, 130), (130, 90))]


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
@pytest.mark.parametrize("dtype", NUMERIC_DTYPES)
@pytest.mark.parametrize("shapes", MM_SHAPES, ids=str)
def test_mm(shapes, dtype, layout, blas):
    if shapes[0][1] == 130 and dtype in ("float16", "bfloat16", "int8", "uint8"):
        pytest.skip("long sums of narrow types: covered by the small shapes")
    a = make_tensor(shapes[0], dtype, layout=layout)
    b = make_tensor(shapes[1], dtype, layout=layout, seed=1)
    check(ember.mm, torch.mm, a, b, **tol(dtype))
    check(lambda x, y: x.mm(y), lambda x, y: x.mm(y), a, b, **tol(dtype))
    if dtype not in ("float16", "bfloat16"):
        check_out(ember.mm, torch.mm, (a, b), **tol(dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_mm_broadcast_operands(dtype, blas):
    """Stride-0 operands (expanded rows or columns) are read correctly (BLAS packs them)."""
    row = make_tensor((1, 5), dtype).expand(3, 5)
    col = make_tensor((5, 1), dtype, seed=1).expand(5, 4)
    scalar = make_tensor((1, 1), dtype, seed=2).expand(5, 4)
    for a, b in [(row, col), (row, scalar), (make_tensor((3, 5), dtype), col)]:
        check(ember.mm, torch.mm, a, b, **tol(dtype))


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
@pytest.mark.parametrize("dtype", NUMERIC_DTYPES)
@pytest.mark.parametrize("shapes", [((4, 3, 5), (4, 5, 2)), ((0, 3, 5), (0, 5, 2)), ((2, 0, 5), (2, 5, 3)),
                                    ((2, 3, 0), (2, 0, 4)), ((1, 1, 1), (1, 1, 1)), ((3, 1, 6), (3, 6, 1)),
                                    ((64, 4, 4), (64, 4, 4)), ((3, 40, 70), (3, 70, 50))], ids=str)
def test_bmm(shapes, dtype, layout, blas):
    a = make_tensor(shapes[0], dtype, layout=layout)
    b = make_tensor(shapes[1], dtype, layout=layout, seed=1)
    check(ember.bmm, torch.bmm, a, b, **tol(dtype))
    if dtype not in ("float16", "bfloat16"):
        check_out(ember.bmm, torch.bmm, (a, b), **tol(dtype))


def test_bmm_expanded_batch(blas):
    """A batch broadcast with stride 0 (what matmul passes for a 3-D @ 3-D with a batch of 1)."""
    a = make_tensor((1, 3, 5), "float32").expand(4, 3, 5)
    b = make_tensor((4, 5, 2), "float32", seed=1)
    check(ember.bmm, torch.bmm, a, b, **tol("float32"))
    check(ember.bmm, torch.bmm, b.transpose(1, 2), a.transpose(1, 2), **tol("float32"))


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
@pytest.mark.parametrize("dtype", NUMERIC_DTYPES)
@pytest.mark.parametrize("shapes", [((3, 5), (5,)), ((0, 5), (5,)), ((3, 0), (0,)), ((1, 1), (1,)),
                                    ((90, 70), (70,))], ids=str)
def test_mv(shapes, dtype, layout, blas):
    a = make_tensor(shapes[0], dtype, layout=layout)
    v = make_tensor(shapes[1], dtype, layout=layout, seed=1)
    check(ember.mv, torch.mv, a, v, **tol(dtype))
    if dtype not in ("float16", "bfloat16"):
        check_out(ember.mv, torch.mv, (a, v), **tol(dtype))


@pytest.mark.parametrize("layout", ["contiguous", "strided"])
@pytest.mark.parametrize("dtype", NUMERIC_DTYPES)
@pytest.mark.parametrize("n", [0, 1, 7, 1000])
def test_dot(n, dtype, layout, blas):
    if n == 1000 and dtype in ("float16", "bfloat16", "int8", "uint8"):
        pytest.skip("long sums of narrow types: covered by the small sizes")
    a = make_tensor((n,), dtype, layout=layout)
    b = make_tensor((n,), dtype, layout=layout, seed=1)
    check(ember.dot, torch.dot, a, b, **tol(dtype))
    check(lambda x, y: x.dot(y), lambda x, y: x.dot(y), a, b, **tol(dtype))
    if dtype not in ("float16", "bfloat16"):
        check_out(ember.dot, torch.dot, (a, b), out_shape=(2, 2), **tol(dtype))
    ex = make_tensor((1,), dtype).expand(n)  # stride 0
    check(ember.dot, torch.dot, ex, b, **tol(dtype))


@pytest.mark.parametrize("op", ["mm", "mv", "dot", "bmm"])
def test_bool_products(op):
    """Beyond PyTorch 1.13: bool products are "any a and b" (NumPy's bool matmul)."""
    shapes = {"mm": ((3, 4), (4, 5)), "mv": ((3, 4), (4,)), "dot": ((4,), (4,)), "bmm": ((2, 3, 4), (2, 4, 5))}[op]
    a, b = make_array(shapes[0], "bool"), make_array(shapes[1], "bool", seed=1)
    r = getattr(ember, op)(from_array(a, "bool"), from_array(b, "bool"))
    assert r.dtype == ember.bool
    np.testing.assert_array_equal(to_numpy(r), np.matmul(a, b))
    z = from_array(np.zeros(shapes[0], dtype=bool), "bool")
    assert not getattr(ember, op)(z, from_array(b, "bool")).any().item()


def test_integer_products_wrap_as_pytorch():
    for dtype, v in [("int8", 100), ("uint8", 200), ("int16", 300), ("int32", 70000), ("int64", 2 ** 40)]:
        a = ember.full((2, 3), v, dtype=edtype(dtype))
        check(ember.mm, torch.mm, a, a.t())
        check(ember.dot, torch.dot, a[0], a[1])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_special_values(dtype, blas):
    """NaN and infinities propagate as in IEEE arithmetic (inf * 0 is NaN), as PyTorch's."""
    vals = [float("nan"), float("inf"), -float("inf"), 0.0, 1.0, -2.5]
    a = from_array(np.array([[x, 1.0] for x in vals]), dtype)             # (6, 2)
    b = from_array(np.array([[0.0, 1.0, float("inf")], [2.0, 0.0, 1.0]]), dtype)  # (2, 3)
    check(ember.mm, torch.mm, a, b)
    check(ember.mv, torch.mv, a, b[:, 0])
    check(ember.dot, torch.dot, a[:, 0], a[:, 1])


# ---------------------------------------------------------------------------------------------- outer, ger
@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("int64", "float32"), ("bool", "bool"),
                                    ("int8", "uint8"), ("float16", "float64"), ("bfloat16", "bfloat16")],
                         ids=str)
@pytest.mark.parametrize("sizes", [(3, 4), (0, 4), (3, 0), (1, 1)], ids=str)
def test_outer(sizes, dtypes):
    """outer is self[:, None] * vec2: it promotes types, unlike the other products."""
    a = make_tensor((sizes[0],), dtypes[0], layout="strided")
    b = make_tensor((sizes[1],), dtypes[1], seed=1)
    check(ember.outer, torch.outer, a, b)
    check(ember.ger, torch.ger, a, b)
    check(lambda x, y: x.outer(y), lambda x, y: x.outer(y), a, b)
    check_out(ember.outer, torch.outer, (a, b), dtype="float64")


def test_outer_errors():
    v, m = make_tensor((3,), "float32"), make_tensor((2, 2), "float32")
    for x, y in [(m, v), (v, m), (make_tensor((), "float32"), v)]:
        check_error(lambda: ember.outer(x, y), lambda: torch.outer(to_torch(x), to_torch(y)))
    # out= follows mul's casting rule (the message is mul's).
    assert_raises_like(lambda: ember.outer(v, v, out=ember.empty(0, dtype=ember.int64)),
                       lambda: torch.outer(to_torch(v), to_torch(v), out=torch.empty(0, dtype=torch.int64)))


# ---------------------------------------------------------------------------------------------- addmm, baddbmm
SCALARS = [(1, 1), (0.5, 2.0), (0, 1), (1, 0), (0, 0), (-1, 3)]


@pytest.mark.parametrize("beta, alpha", SCALARS, ids=str)
@pytest.mark.parametrize("self_shape", [(3, 4), (4,), (1, 4), (3, 1), ()], ids=str)
@pytest.mark.parametrize("dtype", NUMERIC_DTYPES)
def test_addmm(dtype, self_shape, beta, alpha, blas):
    if dtype in INT_DTYPES and isinstance(beta, float):
        beta, alpha = 2, 3
    s = make_tensor(self_shape, dtype, seed=2)
    m1, m2 = make_tensor((3, 5), dtype, layout="transposed"), make_tensor((5, 4), dtype, seed=1)
    check(ember.addmm, torch.addmm, s, m1, m2, beta=beta, alpha=alpha, **tol(dtype))
    check(lambda x, y, z: x.addmm(y, z, beta=beta, alpha=alpha),
          lambda x, y, z: x.addmm(y, z, beta=beta, alpha=alpha), s, m1, m2, **tol(dtype))
    if dtype not in ("float16", "bfloat16"):
        check_out(lambda *a, out: ember.addmm(*a, beta=beta, alpha=alpha, out=out),
                  lambda *a, out: torch.addmm(*a, beta=beta, alpha=alpha, out=out), (s, m1, m2), **tol(dtype))


@pytest.mark.parametrize("shapes", [((0, 4), (0, 5), (5, 4)), ((3, 4), (3, 0), (0, 4)), ((3, 0), (3, 5), (5, 0))],
                         ids=str)
@pytest.mark.parametrize("beta", [0, 1, 2.5])
def test_addmm_empty(shapes, beta, blas):
    """k = 0: the product is zero, so the result is beta * self (zeros when beta is 0)."""
    s, m1, m2 = (make_tensor(sh, "float32", seed=i) for i, sh in enumerate(shapes))
    check(ember.addmm, torch.addmm, s, m1, m2, beta=beta, **tol("float32"))


def test_addmm_zero_scalars_ignore_nan(blas):
    """beta = 0 ignores self and alpha = 0 ignores the product, NaN included (BLAS's rule, and PyTorch's)."""
    nan = from_array(np.full((3, 4), np.nan), "float32")
    m1, m2 = make_tensor((3, 5), "float32"), make_tensor((5, 4), "float32", seed=1)
    check(ember.addmm, torch.addmm, nan, m1, m2, beta=0)
    check(ember.addmm, torch.addmm, make_tensor((3, 4), "float32"), from_array(np.full((3, 5), np.nan), "float32"),
          m2, alpha=0)
    check(ember.addmm, torch.addmm, nan, m1, m2)  # beta = 1: NaN propagates


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "float16"])
def test_addmm_inplace(dtype, blas):
    s = make_tensor((4, 3), dtype, layout="transposed", seed=2)  # a non-contiguous self is written in place
    m1, m2 = make_tensor((4, 5), dtype), make_tensor((5, 3), dtype, seed=1)
    expected = torch.addmm(to_torch(s, upcast=True), to_torch(m1, upcast=True), to_torch(m2, upcast=True),
                           beta=2, alpha=3)
    version = s._version
    r = s.addmm_(m1, m2, beta=2, alpha=3)
    assert r is s and s._version > version and s.stride() == (1, 4)
    assert_same(s, expected.to(tdtype(dtype)), **tol(dtype))


def test_addmm_inplace_aliasing_inputs(blas):
    """self may be one of the factors: the product is computed before self is written."""
    a = make_tensor((3, 3), "float64")
    b = make_tensor((3, 3), "float64", seed=1)
    expected = torch.addmm(to_torch(a), to_torch(a), to_torch(b))
    assert_same(a.addmm_(a, b), expected)
    c = make_tensor((3, 3), "float64")
    expected = torch.mm(to_torch(c), to_torch(b))
    assert_same(ember.mm(c, b, out=c), expected)  # PyTorch 1.13 itself returns garbage here (it zeroes out first)


@pytest.mark.parametrize("beta, alpha", SCALARS, ids=str)
@pytest.mark.parametrize("self_shape", [(2, 3, 4), (4,), (1, 3, 4), (2, 1, 1), ()], ids=str)
@pytest.mark.parametrize("dtype", NUMERIC_DTYPES)
def test_baddbmm(dtype, self_shape, beta, alpha, blas):
    if dtype in INT_DTYPES and isinstance(beta, float):
        beta, alpha = 2, 3
    s = make_tensor(self_shape, dtype, seed=2)
    b1, b2 = make_tensor((2, 3, 5), dtype), make_tensor((2, 5, 4), dtype, seed=1, layout="transposed")
    reference = torch.baddbmm
    if beta == 0:
        # PyTorch 1.13's small-matrix baddbmm scales its uninitialized output by beta = 0 (NaN * 0 = NaN now and
        # then); with beta = 0 the documented result is alpha * bmm(batch1, batch2), which Ember gives.
        def reference(s, b1, b2, beta, alpha, out=None):  # noqa: F811
            r = torch.bmm(b1, b2) * alpha
            return r if out is None else out.resize_(r.shape).copy_(r)
    check(ember.baddbmm, reference, s, b1, b2, beta=beta, alpha=alpha, **tol(dtype))
    if dtype not in ("float16", "bfloat16"):
        check_out(lambda *a, out: ember.baddbmm(*a, beta=beta, alpha=alpha, out=out),
                  lambda *a, out: reference(*a, beta=beta, alpha=alpha, out=out), (s, b1, b2), **tol(dtype))


def test_baddbmm_alpha_zero(blas):
    """alpha = 0 returns beta * self without reading the batches (as BLAS, and PyTorch's addmm)."""
    s = make_tensor((2, 3, 4), "float32")
    b1 = from_array(np.full((2, 3, 5), np.nan), "float32")
    r = ember.baddbmm(s, b1, make_tensor((2, 5, 4), "float32"), beta=2, alpha=0)
    assert_same(r, 2 * to_torch(s))


def test_baddbmm_self_dtype():
    """As PyTorch 1.13: self is converted to the batches' dtype (only the batches must agree)."""
    s = make_tensor((2, 3, 4), "int64")
    b1, b2 = make_tensor((2, 3, 5), "float32"), make_tensor((2, 5, 4), "float32", seed=1)
    check(ember.baddbmm, torch.baddbmm, s, b1, b2, **tol("float32"))


def test_baddbmm_inplace(blas):
    s = make_tensor((2, 3, 4), "float64", seed=2)
    b1, b2 = make_tensor((2, 3, 5), "float64"), make_tensor((2, 5, 4), "float64", seed=1)
    expected = torch.baddbmm(to_torch(s), to_torch(b1), to_torch(b2), beta=0.5, alpha=-2)
    version = s._version
    assert s.baddbmm_(b1, b2, beta=0.5, alpha=-2) is s and s._version > version
    assert_same(s, expected)


ADDMM_ERRORS = {
    "addmm mat1 1-D": lambda m: m.addmm(m.ones(2, 2), m.ones(3), m.ones(3, 2)),
    "addmm mat2 1-D": lambda m: m.addmm(m.ones(2, 2), m.ones(2, 3), m.ones(3)),
    "addmm shapes": lambda m: m.addmm(m.ones(2, 2), m.ones(2, 3), m.ones(2, 3)),
    "addmm self dtype": lambda m: m.addmm(m.ones(2, 2, dtype=m.float64), m.ones(2, 3), m.ones(3, 2)),
    "addmm mat dtypes": lambda m: m.addmm(m.ones(2, 2), m.ones(2, 3, dtype=m.float64), m.ones(3, 2)),
    "addmm self dtype before shapes": lambda m: m.addmm(m.ones(2, 2, dtype=m.float64), m.ones(2, 3), m.ones(2, 3)),
    "addmm self does not broadcast": lambda m: m.addmm(m.ones(3), m.ones(2, 3), m.ones(3, 2)),
    "addmm self 3-D": lambda m: m.addmm(m.ones(1, 2, 2), m.ones(2, 3), m.ones(3, 2)),
    "addmm out dtype": lambda m: m.addmm(m.ones(2, 2), m.ones(2, 3), m.ones(3, 2), out=m.empty(0, dtype=m.float64)),
    "addmm_ self broadcast": lambda m: m.ones(2).addmm_(m.ones(2, 3), m.ones(3, 2)),
    "addmm_ self 1x2": lambda m: m.ones(1, 2).addmm_(m.ones(2, 3), m.ones(3, 2)),
    "addmm_ dtype": lambda m: m.ones(2, 2, dtype=m.float64).addmm_(m.ones(2, 3), m.ones(3, 2)),
    "addmm alpha overflow": lambda m: m.addmm(m.ones(1, 1, dtype=m.int8), m.ones(1, 1, dtype=m.int8),
                                              m.ones(1, 1, dtype=m.int8), alpha=300),
    "addmm beta overflow int32": lambda m: m.addmm(m.ones(1, 1, dtype=m.int32), m.ones(1, 1, dtype=m.int32),
                                                   m.ones(1, 1, dtype=m.int32), beta=2 ** 40),
    "addmm alpha overflow float": lambda m: m.addmm(m.ones(1, 1), m.ones(1, 1), m.ones(1, 1), alpha=1e300),
    "baddbmm batch1 2-D": lambda m: m.baddbmm(m.ones(2, 2, 2), m.ones(2, 3), m.ones(2, 3, 2)),
    "baddbmm batch2 2-D": lambda m: m.baddbmm(m.ones(2, 2, 2), m.ones(2, 2, 3), m.ones(3, 2)),
    "baddbmm batch sizes": lambda m: m.baddbmm(m.ones(2, 2, 2), m.ones(2, 2, 3), m.ones(3, 3, 2)),
    "baddbmm k": lambda m: m.baddbmm(m.ones(2, 2, 2), m.ones(2, 2, 3), m.ones(2, 2, 2)),
    "baddbmm batch dtypes": lambda m: m.baddbmm(m.ones(2, 2, 2), m.ones(2, 2, 3), m.ones(2, 3, 2, dtype=m.float64)),
    "baddbmm self shape": lambda m: m.baddbmm(m.ones(3, 2, 2), m.ones(2, 2, 3), m.ones(2, 3, 2)),
    "baddbmm self 4-D": lambda m: m.baddbmm(m.ones(1, 2, 2, 2), m.ones(2, 2, 3), m.ones(2, 3, 2)),
    "baddbmm out dtype": lambda m: m.baddbmm(m.ones(2, 2, 2), m.ones(2, 2, 3), m.ones(2, 3, 2),
                                             out=m.empty(0, dtype=m.float64)),
    "baddbmm_ self broadcast": lambda m: m.ones(1, 2, 2).baddbmm_(m.ones(2, 2, 3), m.ones(2, 3, 2)),
    "baddbmm_ dtype": lambda m: m.ones(2, 2, 2, dtype=m.float64).baddbmm_(m.ones(2, 2, 3), m.ones(2, 3, 2)),
}


@pytest.mark.parametrize("case", list(ADDMM_ERRORS))
def test_addmm_baddbmm_errors(case):
    if case in ("addmm self 3-D", "baddbmm self 4-D"):
        # The message is expand's (ember/ops/views.cpp), which prints the sizes without PyTorch's brackets.
        assert_raises_like(lambda: ADDMM_ERRORS[case](ember), lambda: ADDMM_ERRORS[case](torch))
        return
    check_error(lambda: ADDMM_ERRORS[case](ember), lambda: ADDMM_ERRORS[case](torch))


# ---------------------------------------------------------------------------------------------- linear
def _torch_linear_out(x, w, b=None, *, out):
    return torch._C._nn.linear(x, w, b, out=out)


@pytest.mark.parametrize("bias_shape", [None, (4,), (), (1,)], ids=str)
@pytest.mark.parametrize("input_shape, layout", [((3,), "contiguous"), ((2, 3), "contiguous"),
                                                 ((2, 3), "transposed"), ((2, 5, 3), "contiguous"),
                                                 ((2, 5, 3), "transposed"), ((2, 2, 5, 3), "contiguous"),
                                                 ((0, 3), "contiguous"), ((2, 0, 3), "contiguous")], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bfloat16"])
def test_linear(dtype, input_shape, layout, bias_shape, blas):
    x = make_tensor(input_shape, dtype, layout=layout)
    w = make_tensor((4, 3), dtype, seed=1)
    args = (x, w) if bias_shape is None else (x, w, make_tensor(bias_shape, dtype, seed=2))
    check(ember._C._nn.linear, torch.nn.functional.linear, *args, **tol(dtype))
    if dtype != "bfloat16":
        check_out(ember._C._nn.linear, _torch_linear_out, args, **tol(dtype))


def test_linear_vector_weight(blas):
    x, w = make_tensor((2, 3), "float32"), make_tensor((3,), "float32", seed=1)
    check(ember._C._nn.linear, torch.nn.functional.linear, x, w, **tol("float32"))
    check(ember._C._nn.linear, torch.nn.functional.linear, w, w, **tol("float32"))
    check(ember._C._nn.linear, torch.nn.functional.linear, w, w, make_tensor((), "float32"), **tol("float32"))


LINEAR_ERRORS = {
    "shapes": lambda m, f: f(m.ones(2, 3), m.ones(4, 2)),
    "0-dim input": lambda m, f: f(m.tensor(1.0), m.ones(4, 2)),
    "3-D weight": lambda m, f: f(m.ones(2, 3), m.ones(1, 4, 3)),
    "weight dtype": lambda m, f: f(m.ones(2, 3), m.ones(4, 3, dtype=m.float64)),
    "bias dtype (2-D input: addmm)": lambda m, f: f(m.ones(2, 3), m.ones(4, 3), m.ones(4, dtype=m.float64)),
    "bias dtype (3-D input: addmm)": lambda m, f: f(m.ones(2, 2, 3), m.ones(4, 3), m.ones(4, dtype=m.int64)),
    "bias shape (2-D input)": lambda m, f: f(m.ones(2, 3), m.ones(4, 3), m.ones(3)),
    "bias shape (1-D input)": lambda m, f: f(m.ones(3), m.ones(4, 3), m.ones(3)),
    "bias widens the result": lambda m, f: f(m.ones(3), m.ones(4, 3), m.ones(2, 4)),
    "bias 2-D (3-D input)": lambda m, f: f(m.ones(2, 2, 3), m.ones(4, 3), m.ones(2, 4)),
    "vector weight with bias (2-D input)": lambda m, f: f(m.ones(2, 3), m.ones(3), m.ones(2)),
}


@pytest.mark.parametrize("case", list(LINEAR_ERRORS))
def test_linear_errors(case):
    check_error(lambda: LINEAR_ERRORS[case](ember, ember._C._nn.linear),
                lambda: LINEAR_ERRORS[case](torch, torch.nn.functional.linear))


def test_linear_bias_promotion_like_pytorch():
    """Where PyTorch adds the bias in place after matmul (1-D, 4-D, non-contiguous 3-D inputs), a bias of
    another dtype is accepted and the result keeps the input's dtype."""
    w, b = make_tensor((4, 3), "float32", seed=1), make_tensor((4,), "float64", seed=2)
    for x in [make_tensor((3,), "float32"), make_tensor((2, 2, 2, 3), "float32"),
              make_tensor((2, 5, 3), "float32", layout="transposed")]:
        check(ember._C._nn.linear, torch.nn.functional.linear, x, w, b, **tol("float32"))


# ---------------------------------------------------------------------------------------------- errors of the ops
OP_ERRORS = {
    "mm self 1-D": lambda m: m.mm(m.ones(3), m.ones(3, 2)),
    "mm mat2 1-D": lambda m: m.mm(m.ones(2, 3), m.ones(3)),
    "mm 0-dim": lambda m: m.mm(m.tensor(1.0), m.ones(3, 2)),
    "mm shapes": lambda m: m.mm(m.ones(2, 3), m.ones(2, 3)),
    "mm dtypes": lambda m: m.mm(m.ones(2, 3), m.ones(3, 2, dtype=m.float64)),
    "mm int dtypes": lambda m: m.mm(m.ones(2, 3, dtype=m.int64), m.ones(3, 2, dtype=m.int32)),
    "mm shapes before dtypes": lambda m: m.mm(m.ones(2, 3), m.ones(2, 3, dtype=m.float64)),
    "mm out dtype": lambda m: m.mm(m.ones(2, 3), m.ones(3, 2), out=m.empty(2, 2, dtype=m.float64)),
    "mm out int dtype": lambda m: m.mm(m.ones(2, 3), m.ones(3, 2), out=m.empty(2, 2, dtype=m.int64)),
    "bmm 2-D": lambda m: m.bmm(m.ones(2, 3), m.ones(3, 2)),
    "bmm batch2 2-D": lambda m: m.bmm(m.ones(1, 2, 3), m.ones(3, 2)),
    "bmm k": lambda m: m.bmm(m.ones(2, 2, 3), m.ones(2, 2, 3)),
    "bmm batch": lambda m: m.bmm(m.ones(2, 2, 3), m.ones(3, 3, 2)),
    "bmm dtypes": lambda m: m.bmm(m.ones(1, 2, 3), m.ones(1, 3, 2, dtype=m.float64)),
    "bmm out dtype": lambda m: m.bmm(m.ones(2, 2, 3), m.ones(2, 3, 2), out=m.empty(0, dtype=m.float64)),
    "mv sizes": lambda m: m.mv(m.ones(2, 3), m.ones(2)),
    "mv 1-D matrix": lambda m: m.mv(m.ones(3), m.ones(3)),
    "mv 3-D matrix": lambda m: m.mv(m.ones(1, 2, 3), m.ones(3)),
    "mv 2-D vector": lambda m: m.mv(m.ones(2, 3), m.ones(3, 1)),
    "mv 0-dim matrix": lambda m: m.mv(m.tensor(1.0), m.ones(3)),
    "mv 0-dim vector": lambda m: m.mv(m.ones(2, 3), m.tensor(1.0)),
    "mv dtypes": lambda m: m.mv(m.ones(2, 3), m.ones(3, dtype=m.float64)),
    "mv out dtype": lambda m: m.mv(m.ones(2, 3), m.ones(3), out=m.empty(2, dtype=m.float64)),
    "dot sizes": lambda m: m.dot(m.ones(2), m.ones(3)),
    "dot 2-D": lambda m: m.dot(m.ones(2, 1), m.ones(2)),
    "dot 2-D other": lambda m: m.dot(m.ones(2), m.ones(2, 1)),
    "dot 0-dim": lambda m: m.dot(m.tensor(1.0), m.tensor(1.0)),
    "dot dtypes": lambda m: m.dot(m.ones(2), m.ones(2, dtype=m.float64)),
    "dot dtypes before sizes": lambda m: m.dot(m.ones(2), m.ones(3, dtype=m.float64)),
    "dot int and float": lambda m: m.dot(m.ones(3, dtype=m.int64), m.ones(3)),
    "dot out dtype": lambda m: m.dot(m.ones(3), m.ones(3), out=m.empty(2, dtype=m.float64)),
}


@pytest.mark.parametrize("case", list(OP_ERRORS))
def test_op_errors(case):
    check_error(lambda: OP_ERRORS[case](ember), lambda: OP_ERRORS[case](torch))


def test_number_arguments_are_type_errors():
    """No Python numbers for the products' tensor arguments (the message is the generic binding's)."""
    for op in ("matmul", "mm", "dot", "mv", "bmm"):
        assert_raises_like(lambda: getattr(ember, op)(ember.ones(2), 2), lambda: getattr(torch, op)(torch.ones(2), 2))


def test_error_messages_name_the_op():
    with pytest.raises(RuntimeError, match=r"^mm: mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x3\); "
                                           r"mat1's last dim \(3\) must equal mat2's first dim \(2\)"):
        ember.mm(ember.ones(2, 3), ember.ones(2, 3))
    with pytest.raises(RuntimeError, match=r"^matmul: mat1 and mat2 shapes cannot be multiplied \(8x3 and 2x3\)"):
        ember.matmul(ember.ones(4, 2, 3), ember.ones(2, 3))
    with pytest.raises(RuntimeError, match=r"^linear: mat1 and mat2 shapes cannot be multiplied \(4x3 and 2x4\)"):
        ember._C._nn.linear(ember.ones(2, 2, 3), ember.ones(4, 2))
    with pytest.raises(RuntimeError, match=r"^addmm: mat1 and mat2 shapes cannot be multiplied"):
        ember._C._nn.linear(ember.ones(2, 3), ember.ones(4, 2), ember.ones(4))


# ---------------------------------------------------------------------------------------------- the @ operator
def test_matmul_operator():
    a, b = make_tensor((2, 3), "float32"), make_tensor((3, 4), "float32", seed=1)
    expected = to_torch(a) @ to_torch(b)
    assert_same(a @ b, expected, **tol("float32"))
    assert_same(b.__rmatmul__(a), expected, **tol("float32"))
    assert_same(ember.Tensor.__matmul__(a, b), expected, **tol("float32"))
    # `a @= b` rebinds a to a new tensor, as PyTorch 1.13 (there is no in-place matmul; the shape may change).
    c = a
    c @= b
    assert c is not a and tuple(c.shape) == (2, 4) and tuple(a.shape) == (2, 3)
    assert_same(c, expected, **tol("float32"))


@pytest.mark.parametrize("other", [2, 2.5, True, [[1.0, 2.0]], "x", None], ids=repr)
def test_matmul_operator_rejects_non_tensors(other):
    a = ember.ones(2, 2)
    check_error(lambda: a @ other, lambda: torch.ones(2, 2) @ other)
    check_error(lambda: other @ a, lambda: other @ torch.ones(2, 2))
    assert a.__rmatmul__(other) is NotImplemented
    assert torch.ones(2, 2).__rmatmul__(other) is NotImplemented


# ---------------------------------------------------------------------------------------------- providers
def test_blas_switch():
    assert ember.backends.blas.enabled is True
    assert ember.backends.blas.is_available()
    assert ember.backends.providers() == {"blas": True, "onednn": True}
    cfg = ember.backends.blas.config()
    assert "OpenBLAS" in cfg and "openblas-openmp" in cfg, cfg
    ember.backends.blas.enabled = False
    try:
        assert ember.backends.blas.enabled is False
        assert ember._C._get_provider_enabled("blas") is False
        assert ember.backends.providers() == {"blas": False, "onednn": True}
    finally:
        ember.backends.blas.enabled = True
    with ember.backends.blas.flags(enabled=False):
        assert not ember.backends.blas.enabled
    assert ember.backends.blas.enabled
    with pytest.raises(RuntimeError, match="no provider called 'nope'"):
        ember._C._set_provider_enabled("nope", True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shapes", [((64, 200), (200, 48)), ((1, 300), (300, 70)), ((70, 300), (300, 1)),
                                    ((4, 30, 20), (4, 20, 10)), ((3, 1, 100), (1, 100, 90))], ids=str)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
@pytest.mark.parametrize("setting", ["onednn", "blas"])
def test_providers_match_reference(shapes, dtype, layout, setting):
    a = make_tensor(shapes[0], dtype, layout=layout)
    b = make_tensor(shapes[1], dtype, seed=1)
    with providers(setting):
        on = ember.matmul(a, b)
    with providers("reference"):
        off = ember.matmul(a, b)
    assert_same(on, to_torch(off), **tol(dtype))


def test_onednn_switch():
    """oneDNN serves float32 products with m, n > 1 (Note [onednn gemm]); switched off, OpenBLAS does."""
    assert ember.backends.onednn.enabled is True
    assert ember.backends.onednn.is_available()
    cfg = ember.backends.onednn.config()
    assert cfg.startswith("oneDNN ") and "OpenMP" in cfg and "libdnnl" in cfg, cfg
    with ember.backends.onednn.flags(enabled=False):
        assert not ember.backends.onednn.enabled
        assert ember.backends.providers() == {"blas": True, "onednn": False}
    assert ember.backends.onednn.enabled
    # PyTorch's name for the same switch, and a non-bool value refused as torch.backends refuses it
    with ember.backends.mkldnn.flags(enabled=False):
        assert not ember.backends.onednn.enabled and not ember.backends.mkldnn.enabled
    assert ember.backends.mkldnn.is_available() == torch.backends.mkldnn.is_available()
    with pytest.raises(TypeError, match="expects a bool"):
        ember.backends.onednn.enabled = "False"
    assert ember.backends.onednn.enabled


@pytest.mark.parametrize("setting", ["onednn", "blas", "reference"])
def test_results_are_deterministic(setting):
    """The same call gives the same bits every time; the reference kernel's results do not depend on the thread
    count either (each output sums its products in order). oneDNN's and OpenBLAS's may (their kernels block
    differently on one thread), as PyTorch's on the same libraries."""
    a, b = make_tensor((67, 129), "float32"), make_tensor((129, 75), "float32", seed=1)
    old = ember.get_num_threads()
    results = []
    try:
        with providers(setting):
            for n in (1, 1, 2, 2):
                ember.set_num_threads(n)
                results.append((to_numpy(ember.mm(a, b)),
                                to_numpy(ember.bmm(a.expand(3, 67, 129), b.expand(3, 129, 75)))))
    finally:
        ember.set_num_threads(old)
    pairs = [(0, 1), (2, 3)] + ([(0, 2)] if setting == "reference" else [])
    for i, j in pairs:
        for x, y in zip(results[i], results[j]):
            np.testing.assert_array_equal(x, y)


def test_empty_operands_run_no_kernel():
    """Zero-size products never reach BLAS (which rejects a leading dim of 0) and give zeros."""
    for a, b in [((0, 0), (0, 0)), ((3, 0), (0, 0)), ((0, 3), (3, 0))]:
        check(ember.mm, torch.mm, ember.ones(*a), ember.ones(*b))


# ---------------------------------------------------------------------------------------------------- F.linear
@pytest.mark.parametrize("x_shape, w_shape, b_shape", [((3, 4), (5, 4), (5,)), ((2, 3, 4), (5, 4), None),
                                                       ((4,), (5, 4), (5,)), ((3, 4), (4,), None),
                                                       ((0, 4), (5, 4), (5,)), ((3, 0), (5, 0), ())], ids=str)
def test_functional_linear(x_shape, w_shape, b_shape):
    # ember.nn.functional.linear is ember._C._nn.linear, as torch.nn.functional.linear is torch._C._nn.linear
    import ember.nn.functional as F
    args = [make_tensor(x_shape, "float32"), make_tensor(w_shape, "float32", seed=1)]
    if b_shape is not None:
        args.append(make_tensor(b_shape, "float32", seed=2))
    check(F.linear, torch.nn.functional.linear, *args, **tol("float32"))
    check(lambda *a: F.linear(*a[:2], bias=a[2] if len(a) > 2 else None),
          lambda *a: torch.nn.functional.linear(*a[:2], bias=a[2] if len(a) > 2 else None), *args, **tol("float32"))
    w_t = make_tensor(w_shape[::-1], "float32", seed=1).t() if len(w_shape) == 2 else args[1]
    check(F.linear, torch.nn.functional.linear, args[0], w_t, **tol("float32"))


def test_functional_linear_errors():
    import ember.nn.functional as F
    for x, w in [((3, 4), (5, 3)), ((3, 4), (2, 5, 4)), ((), (5, 4))]:
        assert_raises_like(lambda: F.linear(ember.ones(*x), ember.ones(*w)),
                           lambda: torch.nn.functional.linear(torch.ones(*x), torch.ones(*w)))
    assert_raises_like(lambda: F.linear(ember.ones(3, 4), ember.ones(5, 4, dtype=ember.float64)),
                       lambda: torch.nn.functional.linear(torch.ones(3, 4), torch.ones(5, 4, dtype=torch.float64)))
