"""Printing of tensors, laid out as PyTorch's (the formatter itself is in C++, ember/ops/TensorPrint.cpp,
shared with Tensor::str())."""
from . import _C

_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=float("inf"), edgeitems=3, linewidth=80),
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """Sets the print options as PyTorch's ``torch.set_printoptions``.

    Args:
        precision: digits after the decimal point (default 4).
        threshold: number of elements above which the output is summarised (default 1000).
        edgeitems: items shown at the start and end of each dimension when summarising (default 3).
        linewidth: characters per line (default 80).
        profile: "default", "short" or "full" (resets the other options first).
        sci_mode: force scientific notation on (True) or off (False); None chooses automatically.
    """
    opts = _C._get_printoptions()
    if profile is not None:
        opts.update(_PROFILES[profile])
    for name, value in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                        ("linewidth", linewidth)):
        if value is not None:
            opts[name] = value
    threshold = opts["threshold"]
    threshold = 2**62 if threshold == float("inf") else int(threshold)
    _C._set_printoptions(int(opts["precision"]), threshold, int(opts["edgeitems"]), int(opts["linewidth"]), sci_mode)


def _str(tensor):
    """The repr of tensor as PyTorch's: values and dtype, then ``grad_fn=<Name>`` for a result of a recorded op
    or ``requires_grad=True`` for a leaf that requires grad. Formatting records nothing (no_grad), as in
    PyTorch."""
    from .autograd import no_grad

    suffixes = []
    grad_fn = tensor.grad_fn
    if grad_fn is not None:
        suffixes.append("grad_fn=<{}>".format(grad_fn.name()))
    elif tensor.requires_grad:
        suffixes.append("requires_grad=True")
    with no_grad():
        return tensor._str(suffixes)
