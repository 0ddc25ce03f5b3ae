"""The functions of ember written in Python (PyTorch's torch/functional.py): thin layers over ops of the
database (``_C._functions``) that take PyTorch's Python-level arguments (``as_tuple=``, ``p='fro'``, numbers
for tensors). ``ember/__init__.py`` exports every name of ``__all__`` as ``ember.<name>``."""
import builtins
import collections
import math
import warnings

from . import _C
from ._C import from_numpy, tensor
from ._size import Size
from ._tensor import Tensor

__all__ = ["allclose", "as_tensor", "atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shapes",
           "broadcast_tensors", "cartesian_prod", "cdist", "einsum", "gradient", "histogram", "histogramdd",
           "is_floating_point", "is_nonzero",
           "is_tensor", "isclose", "lu", "meshgrid", "nonzero", "norm", "numel", "split", "stft", "tensordot", "unique",
           "unique_consecutive", "detach_"]


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
            Frobenius norm, the 2-norm over at most two dims; 'nuc' the nuclear norm (the sum of the singular
            values) of a 2-D input or over two dims. Default: 'fro'.
        dim (int or tuple of ints, optional): the dims to reduce. Default: all of them.
        keepdim (bool): keep the reduced dims with size 1.
        out (Tensor, optional): the result tensor.
        dtype (ember.dtype, optional): a floating dtype input is converted to first (not with 'fro').

    Shape:
        input.shape without dim (size-1 dims there when keepdim).

    Raises:
        ValueError: dtype given with p='fro'.
        RuntimeError: input or dtype not floating; 'fro' over more than two dims; p another string.
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
            if dtype is not None:
                raise ValueError("dtype argument is not supported in nuclear norm")
            if dims is None:
                r = fns["nuclear_norm"](input, keepdim)
            else:
                r = fns["nuclear_norm"](input, dims, keepdim)
            return r if out is None else out.resize_(r.shape).copy_(r)
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


# ------------------------------------------------------------------------------ unique values and histograms

def _unique_results(output, inverse, counts, return_inverse, return_counts):
    if return_inverse and return_counts:
        return output, inverse, counts
    if return_inverse:
        return output, inverse
    if return_counts:
        return output, counts
    return output


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values of input (PyTorch's torch.unique, a Python function there too), in ascending order
    (the CPU result is sorted whatever ``sorted`` says; with ``sorted=False`` PyTorch 1.13 gives its hash order,
    which this reproduces); with dim, the distinct slices along dim in lexicographic order.

    Returns:
        Tensor, or a tuple (output, inverse, counts) keeping the parts asked for: inverse (int64, input's shape,
        or (input.size(dim),) with dim) gives each element's position in output, counts (int64) how often each
        output value occurs.

    Raises:
        RuntimeError: a float16 input; with dim, zero-size dims other than dim. IndexError: dim out of range.
    """
    if dim is not None:
        output, inverse, counts = _C._functions["unique_dim"](input, dim, sorted, return_inverse, return_counts)
    else:
        output, inverse, counts = _C._functions["_unique2"](input, sorted, return_inverse, return_counts)
    return _unique_results(output, inverse, counts, return_inverse, return_counts)


def _unique_consecutive_parts(input, return_inverse=False, return_counts=False, dim=None):
    return _C._functions["unique_consecutive"](input, return_inverse, return_counts, dim)


def unique_consecutive(*args, **kwargs):
    """Collapses each run of equal consecutive elements (slices along dim when given) into one (PyTorch's
    torch.unique_consecutive(input, return_inverse=False, return_counts=False, dim=None)). Returns the output,
    then inverse and counts when asked for.

    Which results come back follows PyTorch 1.13's dispatch exactly, quirk included: it reads return_inverse
    as a keyword or the *third* positional argument and return_counts as a keyword or the *second* one (so
    ``unique_consecutive(x, True)`` returns (output, counts) with empty counts, as PyTorch's does).
    """
    def flag(name, index):
        return kwargs[name] if name in kwargs else (args[index] if index < len(args) else False)

    output, inverse, counts = _unique_consecutive_parts(*args, **kwargs)
    return _unique_results(output, inverse, counts, flag("return_inverse", 2), flag("return_counts", 1))


def histogram(input, bins=100, *, range=None, weight=None, density=False):
    """Histogram of input's values (PyTorch's torch.histogram): bins is a 1-D tensor of increasing edges, or a
    number of equal-width bins spanning range (default the data's min and max, widened by 0.5 either side when
    they are equal) whose edges are ``linspace(min, max, bins + 1)`` in input's dtype. weight (input's shape)
    adds its values instead of 1; density divides by the total and the bin widths.

    Returns:
        named tuple (hist, bin_edges).

    Raises:
        RuntimeError: input not float32/float64; bins <= 0; a range of other than 2 values, min > max or not
        finite; weight or bins of another dtype or shape.
    """
    fns = _C._functions
    if not isinstance(bins, Tensor):
        if bins <= 0:
            raise RuntimeError(f"torch.histogramdd(): bins must be > 0, but got {bins} for dimension 0")
        if range is not None:
            if len(range) != 2:
                raise RuntimeError("torch.histogram: range should have 2 elements")
            lo, hi = float(range[0]), float(range[1])
        elif input.numel() > 0:
            lo, hi = (float(t) for t in fns["aminmax"](input))
        else:
            lo, hi = 0.0, 1.0  # as PyTorch for an empty input
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(f"torch.histogramdd: dimension 0's range [{lo}, {hi}] is not finite")
        if lo > hi:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {lo} max {hi} for "
                               "dimension 0")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        count = bins
        bins = fns["linspace"](lo, hi, bins + 1, dtype=input.dtype)
        nan = input.isnan() if input.dtype.is_floating_point else None
        if nan is not None and bool(nan.any()):
            # PyTorch 1.13 bins NaN by linear interpolation then a local search, which puts it into bin
            # min(1, bins - 1); the edges' binary search would put it last.
            keep = nan.logical_not()
            result = fns["histogram"](input[keep], bins, weight=None if weight is None else weight[keep])
            hist, edges = result
            hist[min(1, count - 1)] += nan.sum() if weight is None else weight[nan].sum()
            if density:
                hist = hist / hist.sum() / edges.diff()
            return type(result)((hist, edges))
    return fns["histogram"](input, bins, weight=weight, density=density)


_HistogramddResult = collections.namedtuple("histogramdd", ["hist", "bin_edges"])
_HistogramddResult.__module__ = "ember.return_types"


def _histogramdd_edges(points, bins, range, dtype):
    """The bin edges of histogramdd with bin counts: linspace over range (2 numbers per dimension) or each
    dimension's min and max (widened by 0.5 either side when equal; [0, 1] for no points)."""
    fns = _C._functions
    ndim = points.shape[-1]
    counts = [bins] * ndim if isinstance(bins, int) else [int(b) for b in bins]
    counts += [0] * (ndim - len(counts))  # as PyTorch, a missing count is a count of 0
    if range is not None and len(range) != 2 * ndim:
        raise RuntimeError(f"torch.histogramdd: for a {ndim}-dimensional histogram range should have {2 * ndim} "
                           f"elements, but got {len(range)}")
    edges = []
    for d, count in enumerate(counts):
        if count <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {count} for dimension {d}")
        if range is not None:
            lo, hi = float(range[2 * d]), float(range[2 * d + 1])
        elif points.shape[0] > 0:
            lo, hi = (float(t) for t in fns["aminmax"](points[:, d]))
        else:
            lo, hi = 0.0, 1.0
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(f"torch.histogramdd: dimension {d}'s range [{lo}, {hi}] is not finite")
        if lo > hi:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {lo} max {hi} for "
                               f"dimension {d}")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges.append(fns["linspace"](lo, hi, count + 1, dtype=dtype))
    return edges


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """The D-dimensional histogram of the points input (..., D) (PyTorch's torch.histogramdd): bins is a number
    of bins for every dimension, a list of D numbers, or a list of D 1-D tensors of increasing edges; with
    numbers the edges are ``linspace`` over range (``[min0, max0, min1, max1, ...]``) or over each dimension's
    data. A point counts in the bin whose edges hold it (edges[i] <= x < edges[i + 1], the last bin also its
    right edge); points outside are dropped. weight (input's shape without the last dimension) adds its values
    instead of 1; density divides by the total and the bins' volumes. A NaN coordinate is counted as PyTorch
    1.13 counts it: in the last bin with edge tensors, in bin min(1, bins - 1) with bin counts.

    Returns:
        named tuple (hist, bin_edges): hist of input's dtype with one dimension per coordinate, bin_edges a tuple
        of D tensors.

    Raises:
        RuntimeError: input with fewer than 2 dimensions or not float32/float64; a bin count <= 0; range of the
        wrong length, not finite or decreasing; weight of another dtype or shape; edge tensors of another dtype.
    """
    fns = _C._functions
    if input.dim() < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    if not input.dtype.is_floating_point or input.dtype.itemsize < 4:
        raise RuntimeError(f'"histogramdd" not implemented for \'{input.dtype}\'')
    ndim = input.shape[-1]
    points = input.reshape(-1, ndim)
    if weight is not None:
        if weight.dtype != input.dtype:
            raise RuntimeError("torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
                               f"should have the same dtype, but got input({input.dtype}), and weight({weight.dtype})")
        if tuple(weight.shape) != tuple(input.shape[:-1]):
            raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have the same shape as "
                               "the input tensor excluding its innermost dimension, but got input with shape "
                               f"{list(input.shape)} and weight with shape {list(weight.shape)}")
        weight = weight.reshape(-1)
    edge_tensors = isinstance(bins, (list, tuple)) and len(bins) > 0 and isinstance(bins[0], Tensor)
    if edge_tensors:
        if len(bins) != ndim:
            raise RuntimeError(f"torch.histogramdd: expected {ndim} sequences of bin edges for a {ndim}-dimensional "
                               f"histogram but got {len(bins)}")
        for d, e in enumerate(bins):
            if e.dim() != 1 or e.numel() < 1:
                raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension and at least 1 "
                                   f"element, but got {e.dim()} dimensions and {e.numel()} elements for dimension {d}")
            if e.dtype != input.dtype:
                raise RuntimeError("torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                                   f"but got input {input.dtype} and bins {e.dtype} for dimension {d}")
        edges = [e.contiguous() for e in bins]
    else:
        edges = _histogramdd_edges(points, bins, range, input.dtype)
    sizes = [builtins.max(e.numel() - 1, 0) for e in edges]
    keep = fns["ones"]([points.shape[0]], dtype=_C.bool)
    flat = fns["zeros"]([points.shape[0]], dtype=_C.int64)
    for d, e in enumerate(edges):
        x = points[:, d].contiguous()
        nbins = builtins.max(sizes[d], 1)
        idx = fns["searchsorted"](e, x, right=True).sub_(1).clamp_(0, nbins - 1)
        nan = x.isnan()
        if not edge_tensors:
            idx = fns["where"](nan, fns["full"]([], builtins.min(1, nbins - 1), dtype=_C.int64), idx)
        keep = keep & (((x >= e[0]) & (x <= e[-1])) | nan)
        flat = flat * nbins + idx
    hist = fns["zeros"]([math.prod(sizes)], dtype=input.dtype)
    if sizes and math.prod(sizes) > 0:
        values = fns["ones"]([int(keep.sum())], dtype=input.dtype) if weight is None else weight[keep]
        hist.index_put_((flat[keep],), values, True)
    hist = hist.reshape(sizes)
    if density:
        hist = hist / hist.sum()
        for d, e in enumerate(edges):
            shape = [1] * len(edges)
            shape[d] = -1
            hist = hist / e.diff().reshape(shape)
    return _HistogramddResult(hist, tuple(edges))


def _gradient_along(f, dim, h, edge_order):
    """The derivative of f along dim by central differences inside and one-sided ones of order edge_order at
    the ends, for a uniform step h (a number) or the coordinates h (a 1-D tensor of f.shape[dim] values)."""
    n = f.shape[dim]

    def part(start, length):
        return f.narrow(dim, start, length)

    if not isinstance(h, Tensor):
        inner = (part(2, n - 2) - part(0, n - 2)) / (2.0 * h)
        if edge_order == 1:
            first = (part(1, 1) - part(0, 1)) / h
            last = (part(n - 1, 1) - part(n - 2, 1)) / h
        else:
            first = (part(0, 1) * -1.5 + part(1, 1) * 2.0 - part(2, 1) * 0.5) / h
            last = (part(n - 3, 1) * 0.5 - part(n - 2, 1) * 2.0 + part(n - 1, 1) * 1.5) / h
        return _C._functions["cat"]([first, inner, last], dim)
    shape = [1] * f.dim()
    shape[dim] = -1

    def x(start, length):
        return h.narrow(0, start, length).reshape(shape)

    hl, hr = x(1, n - 2) - x(0, n - 2), x(2, n - 2) - x(1, n - 2)
    inner = (hl * hl * part(2, n - 2) - hr * hr * part(0, n - 2) + (hr * hr - hl * hl) * part(1, n - 2)) / \
        (hr * hl * hl + hr * hr * hl)
    if edge_order == 1:
        first = (part(1, 1) - part(0, 1)) / (x(1, 1) - x(0, 1))
        last = (part(n - 1, 1) - part(n - 2, 1)) / (x(n - 1, 1) - x(n - 2, 1))
    else:
        d1, d2 = x(1, 1) - x(0, 1), x(2, 1) - x(1, 1)
        first = (-(2 * d1 + d2) / (d1 * (d1 + d2)) * part(0, 1) + (d1 + d2) / (d1 * d2) * part(1, 1)
                 - d1 / (d2 * (d1 + d2)) * part(2, 1))
        d1, d2 = x(n - 2, 1) - x(n - 3, 1), x(n - 1, 1) - x(n - 2, 1)
        last = (d2 / (d1 * (d1 + d2)) * part(n - 3, 1) - (d1 + d2) / (d1 * d2) * part(n - 2, 1)
                + (2 * d2 + d1) / (d2 * (d1 + d2)) * part(n - 1, 1))
    return _C._functions["cat"]([first, inner, last], dim)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Estimates the derivative of input along each of dim (default every dimension) by second-order central
    differences inside and first- or second-order (edge_order) one-sided differences at the ends (PyTorch's
    torch.gradient). spacing is one step for every dimension, a list of steps (one per dimension), or a list of
    1-D tensors giving each dimension's coordinates (non-uniform grids). Integral input gives float results.

    Returns:
        a tuple with one tensor of input's shape per dimension of dim (empty for a 0-dim input).

    Raises:
        RuntimeError: edge_order other than 1 or 2; a dimension with at most edge_order elements; a repeated dim;
        spacing of the wrong length.
    """
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    nd = input.dim()
    dims = list(builtins.range(nd)) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    dims = [d + nd if d < 0 else d for d in dims]
    for i, d in enumerate(dims):
        if not 0 <= d < builtins.max(nd, 1):
            raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {d})")
        if d in dims[:i]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or a list of length "
                               f"{len(dims)} but got a list of length {len(spacing)}")
        steps = list(spacing)
    else:
        steps = [spacing] * len(dims)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    f = input if input.dtype.is_floating_point else input.to(_C.get_default_dtype())
    steps = [float(h) if isinstance(h, (int, float)) else h for h in steps]
    return tuple(_gradient_along(f, d, h, edge_order) for d, h in zip(dims, steps))


def detach_(input):
    """input detached from the graph in place (``input.detach_()``); returns input."""
    return input.detach_()


_CDIST_MODES = {"use_mm_for_euclid_dist_if_necessary": None, "use_mm_for_euclid_dist": 1,
                "donot_use_mm_for_euclid_dist": 2}


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """p-norm distances between the rows of x1 (B.., P, M) and x2 (B.., R, M): (B.., P, R) (PyTorch's
    torch.cdist, a Python function there too). compute_mode (for p = 2): 'use_mm_for_euclid_dist_if_necessary'
    (the matrix-product form when P or R exceeds 25), 'use_mm_for_euclid_dist' (always), or
    'donot_use_mm_for_euclid_dist' (never); the matrix-product form is faster and less exact.

    Raises:
        ValueError: another compute_mode. RuntimeError: fewer than 2 dims, different last dims, p < 0, a
        non-floating input or two dtypes.
    """
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    return _C._functions["cdist"](x1, x2, p, _CDIST_MODES[compute_mode])


# ---------------------------------------------------------------------------------------------------- einsum

def einsum(*args):
    """Einstein summation (PyTorch's torch.einsum): ``einsum("ij,jk->ik", a, b)`` (operands as arguments or one
    list) or the sublist form ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` (Ellipsis for ``...``). Letters missing
    from the output are summed; see the op ``einsum`` (Note [einsum]) for the rules.

    Raises:
        ValueError: no arguments, or a sublist label outside [0, 52). RuntimeError: an equation that does not
        match the operands (counts, ranks, sizes of one letter).
    """
    if len(args) < 1:
        raise ValueError("einsum(): must specify the equation string and at least one operand, or at least one "
                         "operand and its subscripts list")
    if isinstance(args[0], str):
        equation, operands = args[0], args[1:]
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = operands[0]
        return _C._functions["einsum"](equation, list(operands))

    def letters(sublist):
        out = ""
        for s in sublist:
            if s is Ellipsis:
                out += "..."
            elif 0 <= s < 26:
                out += chr(ord("A") + s)
            elif 26 <= s < 52:
                out += chr(ord("a") + s - 26)
            else:
                raise ValueError(f"einsum(): subscript in subscript list is not within the valid range [0, 52), "
                                 f"got {s}")
        return out

    operands, terms = list(args[0::2]), [letters(s) for s in args[1::2]]
    equation = ",".join(terms[:len(operands)])
    if len(args) % 2 == 1:
        operands = operands[:-1]
        equation = ",".join(terms) + "->" + letters(args[-1])
    return _C._functions["einsum"](equation, operands)


# ------------------------------------------------------------------------------- tensors given as varargs
# PyTorch's torch.functional takes these tensors as separate arguments (or one list); the ops take a Tensor[].

def _tensor_args(tensors):
    """tensors as the ops' list: the varargs, or the one list or tuple given instead."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return list(tensors[0])
    return list(tensors)


def broadcast_tensors(*tensors):
    """The tensors (separate arguments, as PyTorch's: a list raises TypeError) expanded (as views) to their common
    broadcast shape (PyTorch's torch.broadcast_tensors).

    Returns:
        tuple of Tensors, one per argument.

    Raises:
        RuntimeError: shapes that do not broadcast ("The size of tensor a (2) must match the size of tensor b (3)
            at non-singleton dimension 0").
    """
    return tuple(_C._functions["broadcast_tensors"](list(tensors)))


def broadcast_shapes(*shapes):
    """The shape tensors of the given shapes would broadcast to (PyTorch's torch.broadcast_shapes), computed
    from the sizes alone.

    Args:
        shapes: each an int (a 1-D shape) or a tuple or list of ints.

    Returns:
        ember.Size: the broadcast shape (sizes aligned from the last; 1 stretches to any size).

    Raises:
        RuntimeError: a negative size, sizes that do not broadcast, or a shape of another type.
    """
    result = []
    for shape in shapes:
        sizes = (shape,) if isinstance(shape, builtins.int) else shape
        if not isinstance(sizes, (tuple, list)):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {shape}")
        if len(sizes) > len(result):
            result = [1] * (len(sizes) - len(result)) + result
        for i in builtins.range(1, len(sizes) + 1):
            s = sizes[-i]
            if s < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension ({s}): ({s})")
            if s != 1 and s != result[-i]:
                if result[-i] != 1:
                    raise RuntimeError("Shape mismatch: objects cannot be broadcast to a single shape")
                result[-i] = s
    return Size(result)


def meshgrid(*tensors, indexing=None):
    """Coordinate grids of N 0-D or 1-D tensors of one dtype (PyTorch's torch.meshgrid).

    Args:
        tensors: the tensors (or one list of them); tensor i has n_i elements.
        indexing (str, optional): "ij" (grid shape (n_0, n_1, ...)) or "xy" (the first two dims swapped, as
            NumPy's default). Default: "ij", with PyTorch's warning that it will be required.

    Returns:
        tuple of Tensors: grid i holds tensor i's values along its dim i (views: expanded).

    Raises:
        RuntimeError: no tensors, a tensor of 2 or more dims, dtypes that differ, another indexing.
    """
    ts = _tensor_args(tensors)
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        return tuple(_C._functions["meshgrid"](ts))
    return tuple(_C._functions["meshgrid"](ts, indexing=indexing))


def _atleast(name, tensors):
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return _C._functions[name](tensors[0])
    return tuple(_C._functions[name](_tensor_args(tensors)))


def atleast_1d(*tensors):
    """Each tensor with at least 1 dim (a 0-dim one reshaped to (1)); one tensor gives a tensor, several (or a
    list) a tuple, as PyTorch's torch.atleast_1d."""
    return _atleast("atleast_1d", tensors)


def atleast_2d(*tensors):
    """Each tensor with at least 2 dims: () -> (1, 1), (n) -> (1, n); one tensor gives a tensor, several (or a
    list) a tuple, as PyTorch's torch.atleast_2d."""
    return _atleast("atleast_2d", tensors)


def atleast_3d(*tensors):
    """Each tensor with at least 3 dims: () -> (1, 1, 1), (n) -> (1, n, 1), (m, n) -> (m, n, 1); one tensor gives a
    tensor, several (or a list) a tuple, as PyTorch's torch.atleast_3d."""
    return _atleast("atleast_3d", tensors)


def block_diag(*tensors):
    """The tensors (0-D as (1, 1), 1-D (n) as (1, n)) as blocks on the diagonal of a matrix of zeros of their
    result dtype (PyTorch's torch.block_diag); no tensors give a (1, 0) tensor.

    Raises:
        RuntimeError: a tensor of 3 or more dims.
    """
    return _C._functions["block_diag"](list(tensors))


def cartesian_prod(*tensors):
    """Every combination of one element of each 1-D tensor, as the rows of an (n_0 * ... * n_k, k) tensor in
    itertools.product's order (PyTorch's torch.cartesian_prod); one tensor is returned as it is.

    Raises:
        RuntimeError: no tensors, a tensor that is not 1-D, dtypes that differ.
    """
    return _C._functions["cartesian_prod"](list(tensors))


def tensordot(a, b, dims=2, out=None):
    """Sum of products of a and b over pairs of dims (PyTorch's torch.tensordot).

    Args:
        a, b (Tensor): operands of one dtype.
        dims (int, tuple of two lists of ints, or Tensor): an int d contracts a's last d dims with b's first d;
            two lists pair a's dims with b's (an int in place of a list is one dim); a tensor of one element is
            an int, else the two lists.
        out (Tensor, optional): the result tensor.

    Shape:
        a's other dims, then b's.

    Raises:
        RuntimeError: d < 0, lists of different lengths, contracted sizes that differ (a size of 1 is summed),
            operands of different dtypes. IndexError: a dim out of range.
    """
    if isinstance(dims, Tensor):
        dims = dims.item() if dims.numel() == 1 else dims.tolist()
    if isinstance(dims, builtins.int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        dims_a, dims_b = list(builtins.range(-dims, 0)), list(builtins.range(dims))
    elif isinstance(dims, (list, tuple)) and len(dims) == 2:
        dims_a, dims_b = ([d] if isinstance(d, builtins.int) else list(d) for d in dims)
    else:
        raise RuntimeError("tensordot expects dims to be int or Tuple[List[int], List[int]] or List[List[int]] "
                           f"containing two lists, but got dims={dims}")
    if out is None:
        return _C._functions["tensordot"](a, b, dims_a, dims_b)
    return _C._functions["tensordot"](a, b, dims_a, dims_b, out=out)


def lu(A, pivot=True, get_infos=False, out=None):
    r"""LU factorisation with partial pivoting of A (PyTorch 1.13's torch.lu, a Python function there too).

    Args:
        A (Tensor): (*, m, n), float32 or float64.
        pivot (bool): must be True on the CPU (as PyTorch).
        get_infos (bool): also return the int32 info tensor (*): > 0 where U is exactly singular.
        out (tuple, optional): tensors for (LU, pivots) or (LU, pivots, infos).

    Returns:
        (LU, pivots) or (LU, pivots, infos): LU (*, m, n) holds L below the diagonal and U, pivots (*, min(m, n))
        are 1-based int32 row swaps (see ember.linalg.lu_factor_ex).

    Raises:
        RuntimeError: fewer than 2 dims, a non-floating dtype; without get_infos a singular U, as PyTorch.
    """
    LU, pivots, infos = _C._linalg.linalg_lu_factor_ex(A, pivot=pivot, check_errors=not get_infos)
    result = (LU, pivots, infos) if get_infos else (LU, pivots)
    if out is None:
        return result
    for o, r in zip(out, result):
        o.resize_(r.shape).copy_(r)
    return tuple(out)


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None):
    r"""Short-time Fourier transform, as PyTorch 1.13's torch.stft: the op ``stft.center`` (ember/ops/fft.cpp).

    Frames of ``n_fft`` samples, ``hop_length`` apart, are multiplied by ``window`` and transformed:
    ``X[omega, m] = sum_k window[k] input[m * hop_length + k] exp(-2 pi i omega k / n_fft)``.

    Args:
        input (Tensor): (L) or (B, L), floating or complex.
        n_fft (int): the frame (and transform) size.
        hop_length (int, optional): the distance between frames. Default: ``n_fft // 4``.
        win_length (int, optional): the window's size (<= n_fft; zero-padded to n_fft in the centre). Default:
            n_fft.
        window (Tensor, optional): (win_length), real or complex. Default: ones (a rectangular window).
        center (bool): pad ``n_fft // 2`` samples on both sides first, so frame m is centred at
            ``m * hop_length``. Default: True.
        pad_mode (str): the padding of ``center``: "reflect", "constant", "replicate" or "circular".
        normalized (bool): scale by ``1 / sqrt(n_fft)``. Default: False.
        onesided (bool, optional): keep the ``n_fft // 2 + 1`` non-negative frequencies. Default: True for real
            input and window.
        return_complex (bool, optional): a complex result, or (False) its view_as_real. Default: complex for a
            complex input or window; real inputs warn without it, as PyTorch 1.13.

    Shape:
        (B?, n_freq, n_frames) complex, or (B?, n_freq, n_frames, 2) real; n_frames = 1 + (L' - n_fft) //
        hop_length with L' the padded length.

    Raises:
        RuntimeError: an integral input, a rank other than 1 or 2, n_fft out of (0, L'], hop_length <= 0,
            win_length out of (0, n_fft], a window of the wrong shape, onesided with complex data.
    """
    if return_complex is None and not input.is_complex() and not (window is not None and window.is_complex()):
        warnings.warn("stft will soon require the return_complex parameter be given for real inputs, and will "
                      "further require that return_complex=True in a future PyTorch release.")
    return _C._functions["stft"](input, n_fft, hop_length, win_length, window, center, pad_mode, normalized,
                                 onesided, return_complex)
