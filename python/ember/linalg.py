"""ember.linalg: PyTorch 1.13's torch.linalg over the ops of the database that PyTorch keeps in
torch._C._linalg (declared with ``python_module: linalg``, so they live in ``ember._C._linalg``), as
torch/linalg/__init__.py does: ``ember.linalg.inv`` is ``ember._C._linalg.linalg_inv``, and so on.

The decompositions run on LAPACK (the routines OpenBLAS exports; ember/kernels/cpu/linalg.cpp) for float32 and
float64 inputs with any batch dims. ``eig``, ``eigvals`` and ``lstsq`` are missing: the first two return complex
tensors and Ember has no complex dtypes yet. Singular and non-positive-definite inputs raise
:class:`LinAlgError` (a RuntimeError) where PyTorch does.
"""
from . import _C
from ._tensor import Tensor  # noqa: F401  (torch.linalg.Tensor: the tensor type, as PyTorch's module re-exports)

_linalg = _C._linalg

#: Raised for a singular matrix (inv, solve) or one that is not positive-definite (cholesky), or when an
#: algorithm does not converge (svd, eigh); a subclass of RuntimeError, as torch.linalg.LinAlgError.
LinAlgError = _C._LinAlgError

_OPS = ["cholesky", "cholesky_ex", "cond", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh",
        "householder_product", "inv", "inv_ex", "ldl_factor", "ldl_factor_ex", "ldl_solve", "lu", "lu_factor",
        "lu_factor_ex", "lu_solve",
        "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet",
        "solve", "solve_ex", "solve_triangular", "svd", "svdvals", "tensorinv", "tensorsolve", "vander", "vecdot"]
for _name in _OPS:
    globals()[_name] = getattr(_linalg, "linalg_" + _name)
del _name

__all__ = ["LinAlgError", "cross", "matmul", "vector_norm"] + _OPS


def vector_norm(x=None, ord=2, dim=None, keepdim=False, *, dtype=None, out=None, input=None):
    r"""Vector norm of x over dim (every element when dim is None): ``(sum |x|^ord)^(1/ord)``.

    Args:
        x (Tensor): a floating tensor of any shape (0-dim and empty included); also accepted as ``input=``,
            as PyTorch's binding does.
        ord (int, float, inf or -inf): 0 counts the nonzero elements, inf and -inf take the largest and
            smallest ``|x|``; any other value the power sum above. Default: 2.
        dim (int or tuple of ints, optional): the dims to reduce. Default: all of them.
        keepdim (bool): keep the reduced dims with size 1. Default: False.
        dtype (ember.dtype, optional): x is converted to dtype first, and the result has it.
        out (Tensor, optional): the result tensor.

    Shape:
        x.shape without dim (with size-1 dims there when keepdim).

    Returns:
        Tensor: of x's dtype, or dtype.

    Raises:
        RuntimeError: x not floating; a negative ord over an empty reduction; inf/-inf over a zero-size dim;
            ord not a number (TypeError in PyTorch: a string such as 'fro' is rejected the same way).
        IndexError: dim out of range.
    """
    if input is not None:
        if x is not None:
            raise TypeError("vector_norm() got multiple values for argument 'input'")
        x = input
    if x is None:
        raise TypeError("vector_norm() missing 1 required positional argument: 'x'")
    if out is None:
        return _linalg.linalg_vector_norm(x, ord, dim, keepdim, dtype=dtype)
    return _linalg.linalg_vector_norm(x, ord, dim, keepdim, dtype=dtype, out=out)


def matmul(input, other, *, out=None):
    """Alias of ember.matmul (PyTorch's torch.linalg.matmul): the matrix product with PyTorch's broadcasting of
    batch dims and promotion of 1-D operands. Raises RuntimeError for shapes that cannot be multiplied."""
    if out is None:
        return _C._functions["matmul"](input, other)
    return _C._functions["matmul"](input, other, out=out)


def cross(input, other, *, dim=-1, out=None):
    """Cross product of the 3-vectors along dim (default the last) of input and other, broadcast (PyTorch's
    torch.linalg.cross; the op linalg_cross). Raises RuntimeError for operands of different ranks or dtypes, or a
    dim whose size is not 3; IndexError for dim out of range."""
    if out is None:
        return _linalg.linalg_cross(input, other, dim=dim)
    return _linalg.linalg_cross(input, other, dim=dim, out=out)

