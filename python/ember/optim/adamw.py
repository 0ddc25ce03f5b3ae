"""AdamW: Adam with decoupled weight decay (PyTorch 1.13's torch.optim.AdamW)."""
from .adam import _AdamBase, _check_adam_options
from .optimizer import _reject_unsupported

__all__ = ["AdamW"]


class AdamW(_AdamBase):
    r"""Adam with decoupled weight decay (Loshchilov & Hutter): the parameter shrinks by lr * weight_decay
    of itself each step instead of the decay entering the gradient's running averages.

    With g the gradient (negated when maximize) and t the step count, each step does

        p = p * (1 - lr * weight_decay)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        v_max = max(v_max, v)                                      (amsgrad; v_max replaces v below)
        p = p - lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)

    in PyTorch 1.13's order of operations (Note [Adam's order of operations] in adam.py).

    Args:
        params (iterable): tensors to optimize or dicts defining parameter groups.
        lr (float): learning rate. Default: 1e-3.
        betas (tuple of 2 floats): decay rates of the two running averages. Default: (0.9, 0.999).
        eps (float): added to the denominator. Default: 1e-8.
        weight_decay (float): decoupled weight decay coefficient. Default: 1e-2.
        amsgrad (bool): use the maximum of all second moments so far (AMSGrad). Default: False.
        maximize (bool): maximize the objective instead of minimizing it. Default: False.
        foreach, capturable: accepted for compatibility; see Note [optimizer options Ember lacks].

    State: ``step`` (float32 0-dim tensor), ``exp_avg``, ``exp_avg_sq`` and with amsgrad ``max_exp_avg_sq``.

    Raises:
        ValueError: lr, eps or weight_decay negative; a beta outside [0, 1).
        RuntimeError: capturable=True.
    """

    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False):
        _check_adam_options(lr, betas, eps, weight_decay)
        _reject_unsupported(capturable=capturable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        foreach=foreach, maximize=maximize, capturable=capturable)
        super().__init__(params, defaults)
