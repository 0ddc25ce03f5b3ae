"""Top-level functions PyTorch writes in Python over its ops, against PyTorch 1.13: the window functions' keywords,
histogramdd, gradient, svd_lowrank / pca_lowrank / lobpcg (randomized and iterative, compared through their
results), and the interop-thread and flush-denormal settings."""
import math

import numpy as np
import pytest
import torch

import ember
from conftest import assert_raises_like, from_array, to_numpy, to_torch


def arr(shape, dtype="float32", seed=0):
    return from_array(np.random.default_rng(seed).standard_normal(shape).astype(dtype), dtype)


# ---------------------------------------------------------------------------------------------- windows

@pytest.mark.parametrize("name", ["bartlett_window", "blackman_window", "hamming_window", "hann_window",
                                  "kaiser_window"])
def test_windows_keywords(name):
    for kwargs in ({}, {"periodic": False}, {"dtype": "float64"}, {"requires_grad": True}):
        ek = {k: getattr(ember, v) if k == "dtype" else v for k, v in kwargs.items()}
        tk = {k: getattr(torch, v) if k == "dtype" else v for k, v in kwargs.items()}
        e, t = getattr(ember, name)(12, **ek), getattr(torch, name)(12, **tk)
        assert e.requires_grad == t.requires_grad and str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        np.testing.assert_allclose(to_numpy(e.detach()), t.detach().numpy(), rtol=2e-6, atol=1e-7)


# ---------------------------------------------------------------------------------------------- histogramdd

HISTDD_CASES = {
    "counts": lambda L, x: L.histogramdd(x, bins=[2, 3]),
    "one count": lambda L, x: L.histogramdd(x, bins=4),
    "range density": lambda L, x: L.histogramdd(x, bins=2, range=[-1.0, 1.0, -2.0, 2.0], density=True),
    "edges": lambda L, x: L.histogramdd(x, bins=[L.tensor([-1.0, 0.0, 0.5, 3.0], dtype=x.dtype),
                                                 L.tensor([-3.0, 0.0, 3.0], dtype=x.dtype)]),
    "weight": lambda L, x: L.histogramdd(x, bins=[3, 2], weight=L.arange(float(x.shape[0]), dtype=x.dtype)),
    "3d": lambda L, x: L.histogramdd(x.reshape(-1, 3)[:10], bins=[2, 2, 3]),
    "batched": lambda L, x: L.histogramdd(x.reshape(2, -1, 2), bins=3),
    "empty": lambda L, x: L.histogramdd(x[:0], bins=2),
    "equal values": lambda L, x: L.histogramdd(L.ones(3, 2), bins=2),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", sorted(HISTDD_CASES))
def test_histogramdd_as_torch(case, dtype):
    x = arr((24, 2), dtype, seed=3)
    e, t = HISTDD_CASES[case](ember, x), HISTDD_CASES[case](torch, to_torch(x))
    np.testing.assert_allclose(to_numpy(e.hist), t.hist.numpy(), rtol=1e-6, atol=1e-7)
    assert len(e.bin_edges) == len(t.bin_edges)
    for a, b in zip(e.bin_edges, t.bin_edges):
        np.testing.assert_allclose(to_numpy(a), b.numpy(), rtol=1e-6)


def test_histogramdd_nan_and_errors():
    x = [[0.5, math.nan], [0.2, 0.3]]
    for kw in ({"bins": [2, 3], "range": [0.0, 1.0, 0.0, 1.0]}, {"bins": [2, 1], "range": [0, 1, 0, 1]}):
        e, t = ember.histogramdd(ember.tensor(x), **kw), torch.histogramdd(torch.tensor(x), **kw)
        np.testing.assert_array_equal(to_numpy(e.hist), t.hist.numpy())
    cases = [lambda L: L.histogramdd(L.ones(3), bins=2), lambda L: L.histogramdd(L.ones(3, 2), bins=[0, 2]),
             lambda L: L.histogramdd(L.ones(3, 2), bins=2, range=[1.0, 2.0]),
             lambda L: L.histogramdd(L.ones(3, 2), bins=2, range=[2.0, 1.0, 0.0, 1.0]),
             lambda L: L.histogramdd(L.ones(3, 2, dtype=L.float64), bins=2, weight=L.ones(3)),
             lambda L: L.histogramdd(L.ones(3, 2), bins=2, weight=L.ones(2)),
             lambda L: L.histogramdd(L.ones(3, 1, dtype=L.int64), bins=2),
             lambda L: L.histogramdd(L.tensor([[math.nan, 1.0]]), bins=2)]
    for c in cases:
        assert_raises_like(lambda: c(ember), lambda: c(torch))


# ---------------------------------------------------------------------------------------------- low rank, lobpcg

def low_rank(m, n, r, dtype="float64", seed=0):
    g = np.random.default_rng(seed)
    return from_array((g.standard_normal((m, r)) @ g.standard_normal((r, n))).astype(dtype), dtype)


@pytest.mark.parametrize("shape", [(30, 20), (20, 30), (12, 5), (2, 25, 18)], ids=str)
def test_svd_lowrank_recovers_low_rank(shape):
    A = low_rank(shape[-2], shape[-1], 4) if len(shape) == 2 else ember.stack([low_rank(*shape[1:], 4, seed=i)
                                                                               for i in range(shape[0])])
    ember.manual_seed(0)
    U, S, V = ember.svd_lowrank(A, q=5)
    q = 5
    assert tuple(U.shape) == shape[:-1] + (q,) and tuple(S.shape) == shape[:-2] + (q,)
    assert tuple(V.shape) == shape[:-2] + (shape[-1], q)
    recon = U @ ember.diag_embed(S) @ V.transpose(-2, -1)
    assert float((recon - A).abs().max()) < 1e-8 * float(A.abs().max()) * 100
    torch.manual_seed(0)
    _, St, _ = torch.svd_lowrank(to_torch(A), q=5)
    np.testing.assert_allclose(to_numpy(S), St.numpy(), rtol=1e-7, atol=1e-9)


def test_svd_lowrank_with_M_and_pca():
    A = low_rank(40, 10, 3)
    M = ember.ones(1, 10, dtype=ember.float64) * 0.5
    ember.manual_seed(1)
    U, S, V = ember.svd_lowrank(A + M, q=4, M=M)
    assert float((U @ ember.diag(S) @ V.t() - A).abs().max()) < 1e-8
    X = low_rank(50, 8, 2, seed=2) + ember.arange(8.0, dtype=ember.float64)
    U, S, V = ember.pca_lowrank(X, q=3)
    Xc = X - X.mean(0, keepdim=True)
    assert float((U @ ember.diag(S) @ V.t() - Xc).abs().max()) < 1e-8
    Sv = ember.linalg.svdvals(Xc)[:3]
    np.testing.assert_allclose(to_numpy(S), to_numpy(Sv), rtol=1e-8, atol=1e-10)
    for c in (lambda L: L.pca_lowrank(L.ones(4, 3), q=5), lambda L: L.pca_lowrank(L.ones(4, 3), niter=-1)):
        assert_raises_like(lambda: c(ember), lambda: c(torch))


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("k", [1, 3])
def test_lobpcg_finds_extreme_eigenpairs(largest, k):
    g = np.random.default_rng(5)
    Q, _ = np.linalg.qr(g.standard_normal((40, 40)))
    evals = np.linspace(1.0, 20.0, 40)
    A = from_array(Q @ np.diag(evals) @ Q.T, "float64")
    ember.manual_seed(0)
    E, X = ember.lobpcg(A, k=k, largest=largest, tol=1e-9, niter=500)
    want = evals[::-1][:k] if largest else evals[:k]
    np.testing.assert_allclose(to_numpy(E), want, rtol=1e-6)
    resid = A @ X - X * E
    assert float(resid.abs().max()) < 1e-4
    assert tuple(X.shape) == (40, k)


def test_lobpcg_generalized_and_errors():
    g = np.random.default_rng(6)
    a = g.standard_normal((30, 30))
    A = from_array(a @ a.T + 30 * np.eye(30), "float64")
    b = g.standard_normal((30, 30))
    B = from_array(b @ b.T / 30 + np.eye(30), "float64")
    ember.manual_seed(0)
    E, X = ember.lobpcg(A, k=2, B=B, tol=1e-10, niter=1000)
    ref = torch.lobpcg(to_torch(A), k=2, B=to_torch(B), tol=1e-10, niter=1000)[0]
    np.testing.assert_allclose(to_numpy(E), ref.numpy(), rtol=1e-6)
    assert_raises_like(lambda: ember.lobpcg(ember.eye(5), k=2), lambda: torch.lobpcg(torch.eye(5), k=2))


# ---------------------------------------------------------------------------------------------- settings

def test_interop_threads_and_flush_denormal():
    assert ember.get_num_interop_threads() >= 1
    with pytest.raises(RuntimeError):
        ember.set_num_interop_threads(0)
    assert ember.set_flush_denormal(True) is True
    try:
        tiny = ember.tensor([1e-39]) * 1.0
        assert float(tiny) == 0.0
    finally:
        assert ember.set_flush_denormal(False) is True
    assert float(ember.tensor([1e-39]) * 1.0) > 0.0


# ---------------------------------------------------------------------------------------------- gradient

GRADIENT_CASES = {
    "default": lambda L, x: L.gradient(x),
    "spacing": lambda L, x: L.gradient(x, spacing=2.0),
    "spacings": lambda L, x: L.gradient(x, spacing=[0.5, 3.0]),
    "dim": lambda L, x: L.gradient(x, dim=1),
    "dims": lambda L, x: L.gradient(x, dim=[-1], spacing=[3.0]),
    "edge2": lambda L, x: L.gradient(x, edge_order=2),
    "coords": lambda L, x: L.gradient(x, spacing=(L.tensor([0.0, 1.0, 1.5, 3.5, 4.0], dtype=x.dtype),
                                                  L.tensor([0.0, 0.1, 0.5, 0.7, 2.0, 2.5], dtype=x.dtype))),
    "coords edge2": lambda L, x: L.gradient(x, spacing=(L.tensor([0.0, 1.0, 1.5, 3.5, 4.0], dtype=x.dtype),
                                                        L.tensor([0.0, 0.1, 0.5, 0.7, 2.0, 2.5], dtype=x.dtype)),
                                            edge_order=2),
    "int": lambda L, x: L.gradient((x * 10).long()),
    "0-d": lambda L, x: L.gradient(x[0, 0]),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", sorted(GRADIENT_CASES))
def test_gradient_as_torch(case, dtype):
    x = arr((5, 6), dtype, seed=4)
    e, t = GRADIENT_CASES[case](ember, x), GRADIENT_CASES[case](torch, to_torch(x))
    assert isinstance(e, tuple) and len(e) == len(t)
    for a, b in zip(e, t):
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        np.testing.assert_allclose(to_numpy(a), b.numpy(), rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-5)


def test_gradient_grad_and_errors():
    x = ember.tensor([1.0, 2.0, 4.0, 8.0], dtype=ember.float64, requires_grad=True)
    (g,) = ember.gradient(x, edge_order=2)
    g.sum().backward()
    xt = torch.tensor([1.0, 2.0, 4.0, 8.0], dtype=torch.float64, requires_grad=True)
    torch.gradient(xt, edge_order=2)[0].sum().backward()
    np.testing.assert_allclose(to_numpy(x.grad), xt.grad.numpy())
    cases = [lambda L: L.gradient(L.ones(1)), lambda L: L.gradient(L.ones(2), edge_order=2),
             lambda L: L.gradient(L.ones(3), edge_order=3), lambda L: L.gradient(L.ones(3, 3), spacing=[1.0, 2.0, 3.0]),
             lambda L: L.gradient(L.ones(3), dim=(0, 0))]
    for c in cases:
        assert_raises_like(lambda: c(ember), lambda: c(torch))
