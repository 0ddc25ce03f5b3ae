"""ember.linalg: PyTorch 1.13's torch.linalg over the ops of the database that PyTorch keeps in
torch._C._linalg (declared with ``python_module: linalg``, so they live in ``ember._C._linalg``).

Only the vector norm and the matmul alias exist so far (matrix norms, ``linalg.norm``, need the SVD); LAPACK-backed
linear algebra (solve, svd, eigh, ...) comes with a later issue.
"""
from . import _C

__all__ = ["cross", "matmul", "vander", "vector_norm"]

_linalg = _C._linalg


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


def vander(x, *, N=None):
    """Vandermonde matrices of increasing powers: (..., n) gives (..., n, N) with x ** j in column j (PyTorch's
    torch.linalg.vander; N defaults to n). Raises RuntimeError for a 0-dim x made 1-D, N <= 1, or a bool or
    float16 dtype."""
    return _linalg.linalg_vander(x, N=N)
