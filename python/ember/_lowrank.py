"""Randomized low-rank factorizations and the LOBPCG eigensolver of PyTorch's top-level namespace
(torch.svd_lowrank, torch.pca_lowrank, torch.lobpcg), which PyTorch also writes in Python on its linear algebra.
These follow the published algorithms: Halko, Martinsson and Tropp, "Finding structure with randomness" (SIAM
Review, 2011) for the first two, Knyazev, "Toward the optimal preconditioned eigensolver: locally optimal block
preconditioned conjugate gradient method" (SIAM J. Sci. Comput., 2001) for lobpcg."""
import math

__all__ = ["lobpcg", "pca_lowrank", "svd_lowrank"]


def _float_dtype(A):
    from . import get_default_dtype

    return A.dtype if A.dtype.is_floating_point else get_default_dtype()


def _mT(x):
    return x.transpose(-2, -1)


def _qr_basis(Y):
    from . import linalg

    return linalg.qr(Y).Q


def _range_basis(A, q, niter, M):
    """An orthonormal (m, q) basis approximating the range of A - M: randomized subspace iteration (Algorithm
    4.4 of Halko et al.) from a Gaussian (n, q) test matrix drawn with ember.randn, with niter power steps, each
    re-orthonormalized by QR."""
    from . import randn

    n = A.shape[-1]
    omega = randn(n, q, dtype=_float_dtype(A))

    def apply(X):
        return A.matmul(X) if M is None else A.matmul(X) - M.matmul(X)

    def apply_t(X):
        return _mT(A).matmul(X) if M is None else _mT(A).matmul(X) - _mT(M).matmul(X)

    Q = _qr_basis(apply(omega))
    for _ in range(niter):
        Q = _qr_basis(apply_t(Q))
        Q = _qr_basis(apply(Q))
    return Q


def svd_lowrank(A, q=6, niter=2, M=None):
    """An approximate truncated SVD ``(U, S, V)`` of A (or of A - M when M is given), a matrix or a batch of
    matrices (..., m, n): ``A ≈ U diag(S) V^T`` with U (..., m, q), S (..., q), V (..., n, q), by the randomized
    range finder of Halko et al. (Algorithm 4.4 with niter subspace iterations, then Algorithm 5.1). The sketch
    is taken of the row space (A^T's range) unless A has at most q columns and no more columns than rows, so the
    small factor that is decomposed exactly has q columns. q (default 6) must not exceed min(m, n). The test
    matrix comes from ember.randn (the default generator).

    Raises:
        AssertionError: q larger than min(m, n) (as PyTorch).
    """
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.shape)
    from . import linalg

    if m < n or n > q:
        # Sketch A^T: Q spans (approximately) A's row space, B = (A - M) Q is (m, q).
        Q = _range_basis(_mT(A), q, niter, None if M is None else _mT(M))
        B = A.matmul(Q) if M is None else A.matmul(Q) - M.matmul(Q)
        assert B.shape[-1] <= B.shape[-2], (f"svd_lowrank: q={q} exceeds min(m, n) = {min(m, n)}", B.shape)
        U, S, Vh = linalg.svd(B, full_matrices=False)
        return U, S, Q.matmul(_mT(Vh))
    Q = _range_basis(A, q, niter, M)
    Bt = _mT(A).matmul(Q) if M is None else _mT(A).matmul(Q) - _mT(M).matmul(Q)  # (n, q): B^T
    assert Bt.shape[-1] <= Bt.shape[-2], (f"svd_lowrank: q={q} exceeds min(m, n) = {min(m, n)}", Bt.shape)
    V, S, Uh = linalg.svd(Bt, full_matrices=False)
    return Q.matmul(_mT(Uh)), S, V


def pca_lowrank(A, q=None, center=True, niter=2):
    """Principal component analysis of the rows of A (..., m, n): ``svd_lowrank`` of A with its column means
    subtracted (center=True) or of A itself, with q components (default min(6, m, n)) and niter subspace
    iterations. Returns ``(U, S, V)``; the principal directions are V's columns.

    Raises:
        ValueError: q negative or above min(m, n); niter negative.
    """
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return svd_lowrank(A, q, niter=niter)
    return svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter=niter)


class _LOBPCGState:
    """What ``tracker`` receives after each iteration: the iterate X (n columns), the Ritz values E, the
    residuals R, and ivars (``istep``, ``converged_count``) and fvars (``tol``)."""

    def __init__(self, tol):
        self.ivars = {"istep": 0, "converged_count": 0}
        self.fvars = {"tol": tol}
        self.X = self.E = self.R = None


def _b_orthonormal(S, B, eps):
    """A basis of span(S) orthonormal in the B inner product (B None: the identity), from the eigenvalues of
    the Gram matrix S^T B S; directions whose Gram eigenvalue is below eps times the largest are dropped."""
    from . import linalg

    BS = S if B is None else B.matmul(S)
    G = _mT(S).matmul(BS)
    G = (G + _mT(G)) * 0.5
    d, V = linalg.eigh(G)
    keep = d > eps * d.abs().max()
    V, d = V[:, keep], d[keep]
    T = V / d.sqrt()
    return S.matmul(T)


def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None, method=None,
           tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None):
    """The k largest (largest=True, the default) or smallest eigenpairs of the symmetric generalized problem
    ``A x = λ B x`` (B symmetric positive definite, default the identity) by Knyazev's locally optimal block
    preconditioned conjugate gradient method: each step takes the Rayleigh-Ritz pairs of A in the B-orthonormal
    basis of [X, W, P] (the iterate, the preconditioned residuals ``iK R`` and the previous direction), keeping
    n (default k) of them. A is (m, m) with m >= 3 n; X (m, n) is the initial guess (default ember.randn).
    Iterates until every one of the k wanted residuals ``||A x - λ B x|| / (||A|| + |λ| ||B||)`` is at most tol
    (default sqrt of the dtype's eps) or niter steps (default 1000; -1: no limit). method ('basic' or 'ortho')
    and the ortho_* parameters of PyTorch's variants are accepted; Ember runs the one method. tracker, if
    given, is called after each step with the solver's state (X, E, R, ivars, fvars).

    Returns:
        (E, X): the k eigenvalues (descending for largest, else ascending) and their B-orthonormal eigenvectors
        (m, k).

    Raises:
        ValueError: m < 3 n; method other than 'basic' or 'ortho'; a batch of matrices.
    """
    from . import cat, finfo, linalg, randn

    if method not in (None, "basic", "ortho"):
        raise ValueError(f"lobpcg: method must be 'basic' or 'ortho', got {method!r}")
    if A.dim() != 2:
        raise ValueError(f"lobpcg: Ember supports a single (m, m) matrix A, got shape {tuple(A.shape)}")
    m = A.shape[-1]
    largest = True if largest is None else largest
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if X is None else X.shape[-1]) if n is None else n
    if m < 3 * n:
        raise ValueError(f"LPBPCG algorithm is not applicable when the number of A rows (={m}) is smaller than 3 x "
                         f"the number of requested eigenpairs (={n})")
    dtype = _float_dtype(A)
    eps = finfo(dtype).eps
    tol = math.sqrt(eps) if tol is None else tol
    niter = 1000 if niter is None else niter
    X = randn(m, n, dtype=dtype) if X is None else X.to(dtype)
    A = A.to(dtype)
    A_norm = float(A.norm())
    B_norm = 1.0 if B is None else float(B.norm())
    state = _LOBPCGState(tol)

    def rayleigh_ritz(S):
        Sb = _b_orthonormal(S, B, eps * 10)
        H = _mT(Sb).matmul(A.matmul(Sb))
        theta, Y = linalg.eigh((H + _mT(H)) * 0.5)
        order = theta.flip([0]) if largest else theta
        cols = Y.flip([1]) if largest else Y
        return order[:n], Sb.matmul(cols[:, :n])

    E, X = rayleigh_ritz(X)
    P = None
    istep = 0
    while niter < 0 or istep < niter:
        BX = X if B is None else B.matmul(X)
        R = A.matmul(X) - BX * E
        rerr = R.norm(dim=0) / (A_norm + E.abs() * B_norm)
        converged = int((rerr[:k] <= tol).sum())
        state.X, state.E, state.R = X, E, R
        state.ivars.update(istep=istep, converged_count=converged)
        if tracker is not None:
            tracker(state)
        if converged >= k:
            break
        W = R if iK is None else iK.matmul(R)
        blocks = [X, W] if P is None else [X, W, P]
        X_old = X
        E, X = rayleigh_ritz(cat(blocks, 1))
        # The new search direction: the part of the new iterate outside span(X_old) (B-orthogonal to it).
        BX_old = X_old if B is None else B.matmul(X_old)
        P = X - X_old.matmul(_mT(BX_old).matmul(X))
        istep += 1
    return E[:k], X[:, :k]
