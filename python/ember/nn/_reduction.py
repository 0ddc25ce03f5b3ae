"""ember.nn._reduction: the reduction arguments of the losses, as PyTorch's torch.nn._reduction.

A loss reduces its element-wise values with ``reduction``: ``'none'`` (keep them), ``'mean'`` or ``'sum'``.
The ops of the database take it as an int (0 none, 1 mean, 2 sum: ATen's Reduction enum). The legacy
booleans ``size_average`` and ``reduce`` (PyTorch < 0.4) still work everywhere a loss accepts them: when
either is given it decides the reduction, with PyTorch's deprecation warning:

    reduce=False                       -> 'none'
    reduce=True (or None), size_average=False -> 'sum'
    reduce=True (or None), size_average=True (or None) -> 'mean'
"""
import warnings

__all__ = ["get_enum", "legacy_get_string", "legacy_get_enum"]


def get_enum(reduction):
    """The int of a reduction string: 0 'none', 1 'mean' (also the deprecated 'elementwise_mean', with a
    warning), 2 'sum'.

    Raises:
        ValueError: any other value.
    """
    if reduction == "none":
        return 0
    if reduction == "mean":
        return 1
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated, please use reduction='mean' instead.")
        return 1
    if reduction == "sum":
        return 2
    raise ValueError("{} is not a valid value for reduction".format(reduction))


def legacy_get_string(size_average, reduce, emit_warning=True):
    """The reduction string the legacy size_average / reduce booleans stand for (None counts as True):
    'none' when not reduce, else 'mean' when size_average, else 'sum'. Warns that the arguments are
    deprecated unless emit_warning is False."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if (size_average and reduce) else "sum" if reduce else "none"
    if emit_warning:
        warnings.warn("size_average and reduce args will be deprecated, please use reduction='{}' instead."
                      .format(ret))
    return ret


def legacy_get_enum(size_average, reduce, emit_warning=True):
    """get_enum(legacy_get_string(size_average, reduce, emit_warning))."""
    return get_enum(legacy_get_string(size_average, reduce, emit_warning))
