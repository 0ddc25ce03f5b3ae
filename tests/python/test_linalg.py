"""ember.linalg and the legacy linear-algebra names against PyTorch 1.13 and float64 NumPy/SciPy.

test_ops_generic.py runs every op on its samples (op_samples.py, "LAPACK"); this file checks what a sample table
cannot: the decompositions' defining properties (reconstruction, orthonormality, triangularity) where LAPACK's
choice of signs makes element-wise comparison meaningless, accuracy on ill-conditioned inputs against float64
NumPy, LinAlgError and its messages, gradients of sign-invariant functions against PyTorch's, and results that
do not depend on the thread count.
"""
import numpy as np
import pytest
import scipy.linalg

import ember
import torch

RNG = np.random.default_rng(19)


def E(a):
    return ember.from_numpy(np.ascontiguousarray(a))


def N(t):
    return t.detach().numpy() if isinstance(t, ember.Tensor) else t.detach().cpu().numpy()


def rand(*shape, dtype=np.float64):
    return RNG.uniform(-1.0, 1.0, shape).astype(dtype)


def tol(dtype):
    return dict(rtol=1e-4, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-10)


SHAPES = [(4, 3), (3, 5), (4, 4), (2, 5, 3), (2, 3, 3, 4), (1, 1)]


# ------------------------------------------------------------------------------------------------ decompositions

@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("full", [False, True])
def test_svd_properties(shape, dtype, full):
    a = rand(*shape, dtype=dtype)
    U, S, Vh = ember.linalg.svd(E(a), full_matrices=full)
    U, S, Vh = N(U), N(S), N(Vh)
    k = min(shape[-2:])
    assert U.shape == shape[:-2] + ((shape[-2], shape[-2] if full else k))
    assert Vh.shape == shape[:-2] + ((shape[-1] if full else k, shape[-1]))
    # The reference: PyTorch's float64 singular values (NumPy 1.24's svd of a 1x1 matrix here returns 1).
    ref = torch.linalg.svdvals(torch.from_numpy(a.astype(np.float64))).numpy()
    np.testing.assert_allclose(S, ref, **tol(dtype))
    np.testing.assert_allclose((U[..., :k] * S[..., None, :]) @ Vh[..., :k, :], a, **tol(dtype))
    eye = np.eye(U.shape[-1])
    np.testing.assert_allclose(np.swapaxes(U, -1, -2) @ U, np.broadcast_to(eye, U.shape[:-2] + eye.shape),
                               **tol(dtype))
    assert np.all(np.diff(S, axis=-1) <= 0), "singular values descend"
    # Singular vectors match PyTorch's up to sign (distinct singular values).
    tU, _, tVh = torch.linalg.svd(torch.from_numpy(a), full_matrices=full)
    np.testing.assert_allclose(np.abs(U[..., :k]), np.abs(N(tU)[..., :k]), **tol(dtype))
    np.testing.assert_allclose(np.abs(Vh[..., :k, :]), np.abs(N(tVh)[..., :k, :]), **tol(dtype))


def test_legacy_svd_returns_v():
    a = rand(4, 3)
    U, S, V = ember.svd(E(a))
    np.testing.assert_allclose((N(U) * N(S)) @ N(V).T, a, rtol=1e-10, atol=1e-12)
    U0, S0, V0 = ember.svd(E(a), compute_uv=False)
    tU0, tS0, tV0 = torch.svd(torch.from_numpy(a), compute_uv=False)
    assert U0.shape == tuple(tU0.shape) and V0.shape == tuple(tV0.shape) and not N(U0).any()
    U1, _, V1 = E(a).svd(some=False)
    assert U1.shape == (4, 4) and V1.shape == (3, 3)


@pytest.mark.parametrize("n", [1, 3, 8])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_properties(n, uplo):
    a = rand(2, n, n)
    sym = a + np.swapaxes(a, -1, -2)
    # Only the UPLO triangle is read: garbage in the other one must not matter.
    tri = np.tril(sym) if uplo == "L" else np.triu(sym)
    w, V = ember.linalg.eigh(E(tri + (np.triu(a, 1) * 7 if uplo == "L" else np.tril(a, -1) * 7)), UPLO=uplo)
    w, V = N(w), N(V)
    np.testing.assert_allclose(w, np.linalg.eigvalsh(sym), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose((V * w[..., None, :]) @ np.swapaxes(V, -1, -2), sym, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(N(ember.linalg.eigvalsh(E(sym))), w, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr_properties(shape, mode):
    a = rand(*shape)
    Q, R = ember.linalg.qr(E(a), mode=mode)
    tQ, tR = torch.linalg.qr(torch.from_numpy(a), mode=mode)
    assert Q.shape == tuple(tQ.shape) and R.shape == tuple(tR.shape)
    R = N(R)
    assert np.allclose(R, np.triu(R))
    np.testing.assert_allclose(np.abs(R), np.abs(N(tR)), rtol=1e-10, atol=1e-10)
    if mode != "r":
        Q = N(Q)
        np.testing.assert_allclose(Q @ R, a, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(np.swapaxes(Q, -1, -2) @ Q, np.broadcast_to(np.eye(Q.shape[-1]),
                                                                               Q.shape[:-2] + (Q.shape[-1],) * 2),
                                   atol=1e-12)


def test_geqrf_householder_ormqr_round_trip():
    a = rand(5, 3)
    h, tau = ember.geqrf(E(a))
    th, ttau = torch.geqrf(torch.from_numpy(a))
    np.testing.assert_allclose(N(h), N(th), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(N(tau), N(ttau), rtol=1e-10, atol=1e-12)
    Q = N(ember.linalg.householder_product(h, tau))
    np.testing.assert_allclose(Q @ np.triu(N(h))[:3], a, rtol=1e-10, atol=1e-12)
    c = rand(5, 2)
    np.testing.assert_allclose(N(ember.ormqr(h, tau, E(c), True, True)),
                               N(torch.ormqr(th, ttau, torch.from_numpy(c), True, True)), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(N(ember.orgqr(h, tau)), Q, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape", SHAPES)
def test_lu_matches_pytorch_and_reconstructs(shape):
    a = rand(*shape)
    LU, piv = ember.linalg.lu_factor(E(a))
    tLU, tpiv = torch.linalg.lu_factor(torch.from_numpy(a))
    np.testing.assert_allclose(N(LU), N(tLU), rtol=1e-10, atol=1e-12)
    assert np.array_equal(N(piv), N(tpiv)) and piv.dtype == ember.int32
    P, L, U = ember.linalg.lu(E(a))
    np.testing.assert_allclose(N(P) @ N(L) @ N(U), a, rtol=1e-10, atol=1e-12)
    tP, tL, tU = torch.lu_unpack(tLU, tpiv)
    for x, y in zip(ember.lu_unpack(LU, piv), (tP, tL, tU)):
        np.testing.assert_allclose(N(x), N(y), rtol=1e-10, atol=1e-12)
    # torch.lu (a Python function) and its get_infos
    LU2, piv2, info = ember.lu(E(a), get_infos=True)
    assert np.array_equal(N(piv2), N(tpiv)) and not N(info).any()


def test_lu_solve_all_forms():
    a, b = rand(2, 4, 4) + 4 * np.eye(4), rand(2, 4, 3)
    LU, piv = ember.linalg.lu_factor(E(a))
    np.testing.assert_allclose(N(ember.linalg.lu_solve(LU, piv, E(b))), np.linalg.solve(a, b), rtol=1e-10)
    np.testing.assert_allclose(N(ember.linalg.lu_solve(LU, piv, E(b), adjoint=True)),
                               np.linalg.solve(np.swapaxes(a, -1, -2), b), rtol=1e-10)
    bt = np.swapaxes(b, -1, -2)
    np.testing.assert_allclose(N(ember.linalg.lu_solve(LU, piv, E(bt), left=False)),
                               bt @ np.linalg.inv(a), rtol=1e-10)
    np.testing.assert_allclose(N(ember.lu_solve(E(b), LU, piv)), np.linalg.solve(a, b), rtol=1e-10)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_and_solves(upper):
    a = rand(3, 4, 4)
    spd = a @ np.swapaxes(a, -1, -2) + 4 * np.eye(4)
    L = ember.linalg.cholesky(E(spd), upper=upper)
    ref = np.linalg.cholesky(spd)
    np.testing.assert_allclose(N(L), np.swapaxes(ref, -1, -2) if upper else ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(N(ember.cholesky(E(spd), upper)), N(L), rtol=1e-12, atol=1e-12)
    b = rand(3, 4, 2)
    np.testing.assert_allclose(N(ember.cholesky_solve(E(b), L, upper)), np.linalg.solve(spd, b), rtol=1e-10)
    np.testing.assert_allclose(N(ember.cholesky_inverse(L[0], upper)), np.linalg.inv(spd[0]), rtol=1e-10)


def test_ldl_factor_and_solve():
    a = rand(4, 4)
    sym = a + a.T
    LD, piv = ember.linalg.ldl_factor(E(sym))
    tLD, tpiv = torch.linalg.ldl_factor(torch.from_numpy(sym))
    np.testing.assert_allclose(N(LD), N(tLD), rtol=1e-10, atol=1e-12)
    assert np.array_equal(N(piv), N(tpiv))
    b = rand(4, 2)
    np.testing.assert_allclose(N(ember.linalg.ldl_solve(LD, piv, E(b))), np.linalg.solve(sym, b), rtol=1e-9)


# ------------------------------------------------------------------------------------------------ accuracy

@pytest.mark.parametrize("n", [6, 10])
def test_ill_conditioned_hilbert(n):
    """A Hilbert matrix (cond ~ 1e8 for n=6, 1e13 for n=10): the residual stays at rounding level, and the
    solution agrees with float64 NumPy (the same LAPACK algorithm) to what the condition number allows."""
    h = scipy.linalg.hilbert(n)
    b = np.ones((n, 1))
    x = N(ember.linalg.solve(E(h), E(b)))
    assert np.linalg.norm(h @ x - b) <= 1e-8 * np.linalg.norm(b) * n
    np.testing.assert_allclose(x, np.linalg.solve(h, b), rtol=np.linalg.cond(h) * 1e-14)
    np.testing.assert_allclose(N(ember.linalg.svdvals(E(h))), scipy.linalg.svdvals(h), rtol=1e-6, atol=1e-15)
    np.testing.assert_allclose(N(ember.linalg.cond(E(h))), np.linalg.cond(h), rtol=1e-3)
    assert int(ember.linalg.matrix_rank(E(h))) == np.linalg.matrix_rank(h)


def test_matrix_exp_against_scipy():
    for scale in (0.1, 3.0, 40.0):
        a = rand(5, 5) * scale
        np.testing.assert_allclose(N(ember.linalg.matrix_exp(E(a))), scipy.linalg.expm(a), rtol=1e-9)
    a = rand(3, 4, 4)
    np.testing.assert_allclose(N(ember.matrix_exp(E(a))), N(torch.matrix_exp(torch.from_numpy(a))), rtol=1e-10)


def test_det_of_singular_and_slogdet_signs():
    s = np.array([[1.0, 2, 3], [2, 4, 6], [1, 0, 1]])
    assert float(ember.linalg.det(E(s))) == 0.0
    sign, logabs = ember.linalg.slogdet(E(s))
    assert float(sign) == 0.0 and float(logabs) == -np.inf
    neg = np.array([[0.0, 1.0], [1.0, 0.0]])
    assert np.isnan(float(ember.logdet(E(neg))))
    sign, logabs = ember.slogdet(E(neg))
    assert float(sign) == -1.0 and float(logabs) == 0.0
    a = rand(4, 3, 3)
    np.testing.assert_allclose(N(ember.det(E(a))), np.linalg.det(a), rtol=1e-10)


def test_pinv_and_rank_of_rank_deficient():
    a = rand(5, 2) @ rand(2, 4)
    np.testing.assert_allclose(N(ember.linalg.pinv(E(a))), np.linalg.pinv(a), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(N(ember.pinverse(E(a))), np.linalg.pinv(a, rcond=1e-15), rtol=1e-6, atol=1e-8)
    assert int(ember.linalg.matrix_rank(E(a))) == 2
    sym = a.T @ a
    assert int(ember.linalg.matrix_rank(E(sym), hermitian=True)) == 2
    np.testing.assert_allclose(N(ember.linalg.pinv(E(sym), hermitian=True)), np.linalg.pinv(sym, hermitian=True),
                               rtol=1e-6, atol=1e-8)


def test_norms():
    a = rand(3, 4)
    for o in ("fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):
        np.testing.assert_allclose(float(ember.linalg.matrix_norm(E(a), o)), np.linalg.norm(a, o), rtol=1e-12)
        np.testing.assert_allclose(float(ember.linalg.norm(E(a), o)), np.linalg.norm(a, o), rtol=1e-12)
    np.testing.assert_allclose(float(ember.norm(E(a), "nuc")), np.linalg.norm(a, "nuc"), rtol=1e-12)
    np.testing.assert_allclose(float(ember.nuclear_norm(E(a))), np.linalg.norm(a, "nuc"), rtol=1e-12)
    np.testing.assert_allclose(float(ember.frobenius_norm(E(a))), np.linalg.norm(a), rtol=1e-12)


# ------------------------------------------------------------------------------------------------ errors

SINGULAR = np.array([[1.0, 2, 3], [2, 4, 6], [1, 0, 1]])


def _same_error(efn, tfn):
    with pytest.raises(Exception) as te:
        tfn()
    with pytest.raises(Exception) as ee:
        efn()
    return ee.value, te.value


@pytest.mark.parametrize("name", ["inv", "solve", "cholesky", "inv_batched", "cholesky_batched"])
def test_linalg_error_messages(name):
    batched = name.endswith("_batched")
    op = name.replace("_batched", "")
    a = np.stack([np.eye(3), SINGULAR]) if batched else SINGULAR
    if op == "cholesky":
        a = np.stack([np.eye(3), -np.eye(3)]) if batched else -np.eye(3)
    args = (lambda m, x: (x, m.ones(x.shape[:-1], dtype=x.dtype))) if op == "solve" else (lambda m, x: (x,))
    e, t = _same_error(lambda: getattr(ember.linalg, op)(*args(ember, E(a))),
                       lambda: getattr(torch.linalg, op)(*args(torch, torch.from_numpy(a))))
    assert isinstance(e, ember.linalg.LinAlgError) and isinstance(e, RuntimeError)
    assert isinstance(t, torch.linalg.LinAlgError)
    assert str(e) == str(t).split("\n")[0]


def test_linalg_error_is_a_runtime_error_class():
    assert issubclass(ember.linalg.LinAlgError, RuntimeError)
    with pytest.raises(RuntimeError):
        ember.inverse(E(SINGULAR))


@pytest.mark.parametrize("fn", [
    lambda m, t: m.linalg.inv(t(np.ones((2, 3)))),
    lambda m, t: m.linalg.det(t(np.ones(3))),
    lambda m, t: m.linalg.svd(t(np.ones((3, 3), dtype=np.int64))),
    lambda m, t: m.linalg.solve(t(np.eye(3)), t(np.ones(2))),
    lambda m, t: m.linalg.solve(t(np.eye(3)), t(np.ones(3, dtype=np.float32))),
    lambda m, t: m.linalg.eigh(t(np.eye(3)), UPLO="X"),
    lambda m, t: m.linalg.qr(t(np.eye(3)), mode="foo"),
    lambda m, t: m.linalg.lu_factor(t(np.eye(3)), pivot=False),
    lambda m, t: m.linalg.lu_factor(t(np.zeros((3, 3)))),
    lambda m, t: m.linalg.matrix_norm(t(np.eye(3)), 3),
])
def test_errors_match_pytorch(fn):
    e, t = _same_error(lambda: fn(ember, E), lambda: fn(torch, torch.from_numpy))
    assert type(e).__name__ in (type(t).__name__, "_LinAlgError") and isinstance(e, type(t).__mro__[1]) or \
        type(e) is type(t)
    assert str(e).split(":")[0] == str(t).split(":")[0]


# ------------------------------------------------------------------------------------------------ gradients

def _grads(fn, a):
    ea = E(a).requires_grad_(True)
    ta = torch.from_numpy(a).requires_grad_(True)
    fn(ember, ea).backward()
    fn(torch, ta).backward()
    return N(ea.grad), N(ta.grad)


@pytest.mark.parametrize("fn", [
    lambda m, a: m.linalg.svdvals(a).sum(),
    lambda m, a: (m.linalg.svd(a, full_matrices=False)[0].abs() * 1.5).sum() + m.linalg.svd(a)[2].abs().sum(),
    lambda m, a: m.linalg.eigh(a + a.mT)[1].abs().sum() + m.linalg.eigvalsh(a + a.mT).pow(2).sum(),
    lambda m, a: m.linalg.qr(a)[0].abs().sum() + m.linalg.qr(a)[1].abs().sum(),
    lambda m, a: m.linalg.det(a) + m.logdet(a @ a.mT),
    lambda m, a: m.linalg.inv(a).sum() + m.linalg.solve(a, a.sum(-1)).sum(),
    lambda m, a: m.linalg.cholesky(a @ a.mT + m.eye(4, dtype=a.dtype)).sum(),
    lambda m, a: m.linalg.lu(a)[1].sum() + m.linalg.lu(a)[2].pow(2).sum(),
    lambda m, a: m.linalg.matrix_exp(a).sum(),
    lambda m, a: m.linalg.pinv(a).sum(),
], ids=["svdvals", "svd", "eigh", "qr", "det", "inv-solve", "cholesky", "lu", "matrix_exp", "pinv"])
def test_gradients_match_pytorch(fn):
    a = rand(4, 4) + np.eye(4)
    g, tg = _grads(fn, a)
    np.testing.assert_allclose(g, tg, rtol=1e-8, atol=1e-10)


def test_det_gradient_at_singular_matrix():
    """At a matrix of rank n - 1 the gradient of det is the cofactor matrix, which is not zero. PyTorch 1.13
    returns zeros here (its LU path gives up on the singular matrix), so the reference is the cofactor matrix
    computed directly; gradcheck in test_ops_generic.py checks the same numerically."""
    a = SINGULAR.copy()
    g, _ = _grads(lambda m, a: m.linalg.det(a), a)
    cof = np.array([[(-1) ** (i + j) * np.linalg.det(np.delete(np.delete(a, i, 0), j, 1)) for j in range(3)]
                    for i in range(3)])
    np.testing.assert_allclose(g, cof, rtol=1e-8, atol=1e-10)


# ------------------------------------------------------------------------------------------------ threads, layout

def test_results_do_not_depend_on_threads():
    a = rand(64, 6, 6)
    spd = a @ np.swapaxes(a, -1, -2) + 6 * np.eye(6)
    prev = ember.get_num_threads()
    try:
        outs = []
        for n in (1, 2):
            ember.set_num_threads(n)
            outs.append([N(ember.linalg.svdvals(E(a))), N(ember.linalg.solve(E(a), E(a[..., :1]))),
                         N(ember.linalg.cholesky(E(spd))), N(ember.linalg.eigvalsh(E(spd)))])
    finally:
        ember.set_num_threads(prev)
    # Each matrix is one LAPACK call on one thread, but OpenBLAS's kernels inside it may differ in the last bit
    # with its own thread count.
    for x, y in zip(*outs):
        np.testing.assert_allclose(x, y, rtol=1e-13, atol=1e-13)


def test_non_contiguous_and_column_major_results():
    a = rand(4, 4) + 4 * np.eye(4)
    at = E(a.T.copy()).mT  # a transposed view holding a
    np.testing.assert_allclose(N(ember.linalg.inv(at)), np.linalg.inv(a), rtol=1e-12)
    strided = E(np.repeat(a, 2, axis=1))[:, ::2]
    np.testing.assert_allclose(N(ember.linalg.det(strided)), np.linalg.det(a), rtol=1e-12)
    # Results are column-major, as PyTorch's
    assert ember.linalg.inv(E(a)).stride() == torch.linalg.inv(torch.from_numpy(a)).stride()
