"""The functions of ember written in Python (PyTorch's torch/functional.py): thin layers over ops of the
database (``_C._functions``) that take PyTorch's Python-level arguments (``as_tuple=``, ``p='fro'``, numbers
for tensors). ``ember/__init__.py`` exports every name of ``__all__`` as ``ember.<name>``."""
import builtins

from . import _C
from ._C import from_numpy, tensor
from ._tensor import Tensor

__all__ = ["allclose", "as_tensor", "is_floating_point", "is_nonzero", "is_tensor", "isclose", "nonzero", "norm",
           "numel", "split"]


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|input - other| <= atol + rtol * |other|`` (PyTorch's torch.isclose): equal values
    (infinities of the same sign included) are close; NaN is close to NaN only with equal_nan. Integer inputs
    and bool inputs are compared in the default floating dtype. The op ``isclose`` of the database (shared with
    the C++ API); unlike PyTorch, other may also be a Python number (made a tensor of input's dtype).

    Shape: the broadcast shape of input and other; the result is bool.

    Raises:
        RuntimeError: input and other of different dtypes; a negative rtol or atol; shapes that do not broadcast.
    """
    if not isinstance(other, Tensor):
        other = tensor(other, dtype=input.dtype)
    return _C._functions["isclose"](input, other, rtol, atol, equal_nan)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element of ``isclose(input, other, rtol, atol, equal_nan)`` is True (a Python bool), as
    torch.allclose. Raises as isclose."""
    if not isinstance(other, Tensor):
        other = tensor(other, dtype=input.dtype)
    return _C._functions["allclose"](input, other, rtol, atol, equal_nan)


def nonzero(input, *, out=None, as_tuple=False):
    """Indices of the nonzero elements of input (NaN counts as nonzero), in row-major order.

    Returns an int64 tensor of shape (n, input.dim()), or with ``as_tuple=True`` a tuple of input.dim() 1-D
    tensors of length n, one per dim (one for a 0-dim input), as ``numpy.nonzero``; ``out=`` only without
    ``as_tuple``. Raises RuntimeError for an ``out`` that is not int64.
    """
    if as_tuple:
        if out is not None:
            raise RuntimeError("nonzero: out= is not supported with as_tuple=True")
        return _C._functions["nonzero_numpy"](input)
    if out is None:
        return _C._functions["nonzero"](input)
    return _C._functions["nonzero"](input, out=out)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    r"""Matrix or vector norm of input (PyTorch 1.13's torch.norm, a Python function there too).

    Args:
        input (Tensor): a floating tensor.
        p (number, 'fro' or 'nuc'): a number is the vector p-norm over dim (``ember.linalg.vector_norm``'s
            ord: 0 counts nonzeros, inf/-inf take the largest/smallest ``|x|``; None means 2). 'fro' is the
            Frobenius norm, the 2-norm over at most two dims. Default: 'fro'.
        dim (int or tuple of ints, optional): the dims to reduce. Default: all of them.
        keepdim (bool): keep the reduced dims with size 1.
        out (Tensor, optional): the result tensor.
        dtype (ember.dtype, optional): a floating dtype input is converted to first (not with 'fro').

    Shape:
        input.shape without dim (size-1 dims there when keepdim).

    Raises:
        ValueError: dtype given with p='fro'.
        RuntimeError: input or dtype not floating; 'fro' over more than two dims; p another string.
        NotImplementedError: p='nuc' (the nuclear norm needs the SVD, which comes with LAPACK).
        IndexError: dim out of range.
    """
    dims = None if dim is None else [dim] if isinstance(dim, builtins.int) else list(dim)
    fns = _C._functions
    if isinstance(p, str):
        if p == "fro":
            if dtype is not None:
                raise ValueError("dtype argument is not supported in frobenius norm")
            if dims is not None and len(dims) > 2:
                raise RuntimeError("norm: 'fro' reduces at most 2 dimensions, but got {} dimensions instead "
                                   "(dim={})".format(len(dims), dim))
            p = 2
        elif p == "nuc":
            raise NotImplementedError("norm: the nuclear norm (p='nuc') needs the SVD, which Ember does not have "
                                      "yet")
        else:
            raise RuntimeError("only valid string values are 'fro' and 'nuc', found {}".format(p))
    if dims is None:
        dims = list(builtins.range(input.dim()))
    if dtype is not None:
        if not dtype.is_floating_point:
            raise RuntimeError("norm(): the desired output dtype should be either floating point or complex. "
                               "Got {} instead.".format(str(dtype).rsplit(".", 1)[-1]))
        if not input.dtype.is_floating_point:
            raise RuntimeError("norm(): input dtype should be either floating point or complex. Got {} "
                               "instead.".format(str(input.dtype).rsplit(".", 1)[-1]))
        input = input.to(dtype)
    if out is None:
        return fns["norm"](input, p, dims, keepdim)
    # the norm op has no out= overload: its computation (see Note [norm of nothing]) into out
    ord = 2 if p is None or input.numel() == 0 else p
    return _C._linalg.linalg_vector_norm(input, ord, dims, keepdim, out=out)


def is_tensor(obj):
    """True when obj is an ember.Tensor."""
    return isinstance(obj, Tensor)


def as_tensor(data, dtype=None, device=None):
    """data as a tensor, sharing memory when it can (PyTorch's torch.as_tensor).

    A Tensor is returned as it is when dtype (and device) already match, else converted with ``to``; a NumPy
    array shares its memory (``from_numpy``) unless a dtype conversion is asked for; anything else (numbers,
    nested sequences) is copied as ``ember.tensor(data, dtype=dtype)`` does.

    Raises:
        TypeError: data of a type a tensor cannot be made from (as ``ember.tensor``).
    """
    import numpy as np

    if isinstance(data, Tensor):
        return data if dtype is None or data.dtype == dtype else data.to(dtype)
    if isinstance(data, np.ndarray):
        t = from_numpy(data)
        return t if dtype is None or t.dtype == dtype else t.to(dtype)
    return tensor(data, dtype=dtype, device=device)


def is_nonzero(input):
    """True when the one-element tensor input is not zero (``bool(input)``).

    Raises:
        RuntimeError: input has no values or more than one value.
        TypeError: input is no tensor (bool() of None or a list would answer anyway).
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"is_nonzero(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return builtins.bool(input)


def numel(input):
    """Number of elements of input."""
    return input.numel()


def is_floating_point(input):
    """True when input's dtype is a floating type."""
    return input.dtype.is_floating_point


def split(tensor, split_size_or_sections, dim=0):
    """Splits tensor into views along dim (PyTorch's torch.split, a Python function there too).

    Args:
        tensor (Tensor): the tensor to split (at least 1-D).
        split_size_or_sections (int or list of ints): the size of every piece (the last may be smaller), or
            the sizes of the pieces, which must sum to ``tensor.size(dim)``.
        dim (int): the dim to split. Default: 0.

    Returns:
        tuple of Tensors: views of tensor.

    Raises:
        RuntimeError: a 0-dim tensor; a negative size, 0 for a non-empty dim, or sizes that do not sum to the
            size of dim. IndexError: dim out of range.
    """
    return _C._functions["split"](tensor, split_size_or_sections, dim)
