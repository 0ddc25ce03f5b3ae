"""clip_grad_norm_ and clip_grad_value_."""
import math
import warnings

from ... import _C
from ..._tensor import Tensor
from ...autograd import no_grad

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_"]


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    r"""Scales the gradients of parameters in place so that their total norm (the norm of the per-gradient
    norms) is at most max_norm; the scale is max_norm / (total_norm + 1e-6), capped at 1.

    Args:
        parameters (Tensor or iterable of Tensors): the tensors whose .grad is clipped (None grads skipped).
        max_norm (float): the largest total norm.
        norm_type (float or inf): the p of the p-norms. Default: 2.
        error_if_nonfinite (bool): raise when the total norm is nan or inf.
        foreach (bool or None): accepted for PyTorch 2's API; Ember's per-tensor loop is its only implementation.

    Returns:
        Tensor: the total norm before clipping (a 0-dim tensor; 0. when there is no gradient).

    Raises:
        RuntimeError: a non-finite total norm with error_if_nonfinite.
    """
    grads = _grads(parameters)
    max_norm = float(max_norm)
    norm_type = float(norm_type)
    fns = _C._functions
    if len(grads) == 0:
        return _C.tensor(0.0)
    with no_grad():
        if norm_type == math.inf:
            norms = [g.abs().max() for g in grads]
            total_norm = norms[0] if len(norms) == 1 else fns["stack"](norms).max()
        else:
            total_norm = fns["stack"]([g.norm(norm_type) for g in grads]).norm(norm_type)
        if error_if_nonfinite and bool(total_norm.isnan() | total_norm.isinf()):
            raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
                               "so it cannot be clipped. To disable this error and scale the gradients by the "
                               "non-finite norm anyway, set `error_if_nonfinite=False`")
        clip_coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(clip_coef.to(g.dtype))
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """The deprecated name of clip_grad_norm_ (warns, as PyTorch)."""
    warnings.warn("torch.nn.utils.clip_grad_norm is now deprecated in favor of torch.nn.utils.clip_grad_norm_.",
                  stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite)


def clip_grad_value_(parameters, clip_value, foreach=None):
    r"""Clamps the gradients of parameters in place to [-clip_value, clip_value] (foreach is accepted for PyTorch
    2's API)."""
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(min=-clip_value, max=clip_value)
