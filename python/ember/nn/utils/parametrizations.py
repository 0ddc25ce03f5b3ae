"""Ready-made parametrizations (PyTorch 1.13's torch.nn.utils.parametrizations): ``orthogonal`` keeps a matrix
(or batch of matrices) orthogonal, ``spectral_norm`` divides a weight by its largest singular value. Both
register through ``parametrize.register_parametrization``, so the state-dict keys are
``parametrizations.<name>.original`` plus the parametrization's own buffers (``...<name>.0.base``, ``._u``,
``._v``)."""
from enum import Enum, auto

from ... import _C, linalg
from ..._dtype_info import finfo
from ...autograd import no_grad
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm"]


def _normalize(x, eps):
    """x / max(||x||_2, eps) for a vector (F.normalize with dim=0)."""
    return x / x.norm(2).clamp(min=eps)


def _householder_product(a, tau):
    """The first k columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T with v_i = (0, .., 0, 1, a[i+1:, i])
    (LAPACK's orgqr, torch.linalg.householder_product), for a: (..., n, k), tau: (..., k); written with
    differentiable ops."""
    fns = _C._functions
    n, k = a.shape[-2], a.shape[-1]
    rows = fns["arange"](n).unsqueeze(-1)
    q = fns["eye"](n, k, dtype=a.dtype).expand(*a.shape[:-2], n, k)
    for i in reversed(range(k)):
        col = a[..., :, i:i + 1]
        v = fns["where"](rows > i, col, (rows == i).to(a.dtype))
        q = q - tau[..., i:i + 1].unsqueeze(-1) * v * (v * q).sum(-2, keepdim=True)
    return q


def _is_orthogonal(q):
    n, k = q.shape[-2], q.shape[-1]
    eye = _C._functions["eye"](k, dtype=q.dtype)
    return bool((q.mT @ q).allclose(eye, atol=10.0 * n * finfo(q.dtype).eps))


def _make_orthogonal(a):
    """The Q of a = QR with diag(R) >= 0, for a tall matrix a."""
    x, tau = _C._functions["geqrf"](a)
    q = _householder_product(x, tau)
    return q * x.diagonal(dim1=-2, dim2=-1).sign().unsqueeze(-2)


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    """Maps an unconstrained matrix to an orthogonal one: exp(A) or the Cayley transform of the skew-symmetric
    A made from its lower triangle, or a product of Householder reflectors stored below its diagonal. With the
    trivialization, the result is multiplied by the buffer ``base`` (set by right_inverse)."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, x):
        fns = _C._functions
        n, k = x.shape[-2], x.shape[-1]
        transposed = n < k
        if transposed:
            x = x.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            x = x.tril()
            if n != k:
                x = fns["cat"]([x, x.new_zeros(n, n - k).expand(*x.shape[:-2], -1, -1)], dim=-1)
            a = x - x.mH
            if self.orthogonal_map is _OrthMaps.matrix_exp:
                q = fns["matrix_exp"](a)
            else:
                eye = fns["eye"](n, dtype=a.dtype)
                q = linalg.solve(eye - 0.5 * a, eye + 0.5 * a)
            if n != k:
                q = q[..., :k]
        else:
            a = x.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (a * a).sum(dim=-2))
            q = _householder_product(a, tau)
            q = q * x.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            q = self.base @ q
        if transposed:
            q = q.mT
        return q

    def right_inverse(self, q):
        """An original whose forward is q (q must be orthogonal, or is orthogonalized by QR first)."""
        with no_grad():
            if q.shape != self.shape:
                raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                                 f"Got a tensor of shape {q.shape}.")
            q_init = q
            n, k = q.shape[-2], q.shape[-1]
            transpose = n < k
            if transpose:
                q = q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                    raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                              "parametrizations when use_trivialization=False.")
                a, tau = _C._functions["geqrf"](q)
                diag = a.diagonal(dim1=-2, dim2=-1)
                diag.copy_(diag.sign() * (1 - 2 * (tau == 0.0).to(a.dtype)))  # a reflector of tau 0 flips
                return a.mT if transpose else a
            if n == k:
                q = q.clone() if _is_orthogonal(q) else _make_orthogonal(q)
            else:
                extra = _C._functions["randn"](*(tuple(q.shape[:-2]) + (n, n - k)), dtype=q.dtype)
                q = _make_orthogonal(_C._functions["cat"]([q, extra], dim=-1))
            self.base = q
            neg_eye = _C._functions["zeros_like"](q_init)
            neg_eye.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_eye


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    r"""Keeps ``module.<name>`` (a matrix or batch of matrices, (..., m, n)) orthogonal: orthonormal columns when
    m >= n, orthonormal rows otherwise.

    Args:
        module (Module): holds the tensor.
        name (str): the parameter or buffer. Default: 'weight'.
        orthogonal_map (str): "matrix_exp", "cayley" or "householder"; default "matrix_exp" for square matrices,
            "householder" otherwise.
        use_trivialization (bool): keep an extra ``base`` matrix (``parametrizations.<name>.0.base``) that the
            map is applied relative to (the dynamic trivialization). Default: True.

    Returns:
        The module. Its initial value is the tensor itself when orthogonal, its QR-orthogonalized form otherwise.

    Raises:
        ValueError: no such tensor; fewer than 2 dims; an unknown orthogonal_map.
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, _C._TensorBase):
        raise ValueError("Module '{}' has no parameter or buffer with name '{}'".format(module, name))
    if weight.dim() < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.dim()} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.shape[-2] == weight.shape[-1] else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


class _SpectralNorm(Module):
    """weight / sigma, sigma the largest singular value of weight as a matrix (dim's size rows), estimated by
    power iteration with the buffers ``_u`` and ``_v`` (15 steps at construction, n_power_iterations per
    forward in training mode); a vector is just normalized."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.dim()
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got n_power_iterations={}"
                             .format(n_power_iterations))
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            mat = self._reshape_weight_to_matrix(weight)
            h, w = mat.shape
            u = mat.new_empty(h).normal_(0, 1)
            v = mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", _normalize(u, self.eps))
            self.register_buffer("_v", _normalize(v, self.eps))
            self._power_method(mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, mat, n_power_iterations):
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(_normalize(mat.mv(self._v), self.eps))
                self._v.copy_(_normalize(mat.t().mv(self._u), self.eps))

    def forward(self, weight):
        if weight.dim() == 1:
            return _normalize(weight, self.eps)
        mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        return weight / u.dot(mat.mv(v))

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    r"""Makes ``module.<name>`` its value divided by its spectral norm (a vector: by its 2-norm), as a
    parametrization (the newer form of ``ember.nn.utils.spectral_norm``).

    Args:
        module (Module): holds the tensor.
        name (str): the parameter or buffer. Default: 'weight'.
        n_power_iterations (int): power-iteration steps per access in training mode. Default: 1.
        eps (float): the least norm a vector is divided by. Default: 1e-12.
        dim (int or None): the output dim; None means 0 (1 for ConvTranspose layers).

    Returns:
        The module.

    Raises:
        ValueError: no such tensor; n_power_iterations below 1. IndexError: dim out of range.
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, _C._TensorBase):
        raise ValueError("Module '{}' has no parameter or buffer with name '{}'".format(module, name))
    if dim is None:
        from .. import modules

        transposed = tuple(getattr(modules, n) for n in ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d")
                           if hasattr(modules, n))
        dim = 1 if transposed and isinstance(module, transposed) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
