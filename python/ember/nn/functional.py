"""ember.nn.functional: the functional interface of ember.nn (PyTorch's torch.nn.functional).

The functions call ops of the op database that live in ``ember._C._nn`` (as PyTorch's live in
``torch._C._nn``), so the C++ API, the tracer and the JIT see the same ops.
"""
from .. import _C

__all__ = ["pad"]


def pad(input, pad, mode="constant", value=None):
    r"""Pads a tensor.

    ``pad`` lists (before, after) amounts starting from the LAST dimension: ``(left, right)`` pads dim -1,
    ``(left, right, top, bottom)`` also dim -2, and so on for ``len(pad) // 2`` dims. Negative amounts crop.

    Args:
        input (Tensor): the tensor to pad.
        pad (tuple of ints): the (before, after) pairs, last dim first; an even length of at most
            ``2 * input.dim()``.
        mode (str): ``'constant'`` (fill with ``value``), ``'reflect'`` (mirror about the edges, the edge
            element not repeated), ``'replicate'`` (repeat the edge elements) or ``'circular'`` (wrap around).
            Default: ``'constant'``.
        value (float, optional): the fill value of ``'constant'`` mode (0 when None), converted to the dtype
            of input. Other modes take no value.

    Shape:
        - constant: any input; the padded dims grow by before + after.
        - reflect, replicate: 1, 2 or 3 padded dims for inputs of 2-3, 3-4 or 4-5 dims ((C, W) or (N, C, W);
          (C, H, W) or (N, C, H, W); (C, D, H, W) or (N, C, D, H, W)).
        - circular: (N, C, W), (N, C, H, W) or (N, C, D, H, W) with 1, 2 or 3 padded dims.

    Returns:
        Tensor: a new tensor of the dtype of input.

    Raises:
        RuntimeError: an odd ``len(pad)`` or one above ``2 * input.dim()``; a value with a non-constant mode;
            a reflect pad not smaller than the size it pads; a circular pad larger than it; a result size
            below 1 where PyTorch forbids one.
        NotImplementedError: an unknown mode, or a rank that the mode does not support.
    """
    return _C._nn.pad(input, pad, mode, value)
