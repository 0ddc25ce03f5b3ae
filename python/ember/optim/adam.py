"""Adam (PyTorch 1.13's torch.optim.Adam) and the update it shares with AdamW (adamw.py)."""
import math

from .. import _C
from .optimizer import Optimizer, _check_option, _zeros_like, _reject_unsupported, _step_without_grad

__all__ = ["Adam"]


def _check_adam_options(lr, betas, eps, weight_decay):
    """The argument checks shared by Adam and AdamW (ValueError as PyTorch's)."""
    _check_option(0.0 <= lr, "Invalid learning rate: {}".format(lr))
    _check_option(0.0 <= eps, "Invalid epsilon value: {}".format(eps))
    _check_option(0.0 <= betas[0] < 1.0, "Invalid beta parameter at index 0: {}".format(betas[0]))
    _check_option(0.0 <= betas[1] < 1.0, "Invalid beta parameter at index 1: {}".format(betas[1]))
    _check_option(0.0 <= weight_decay, "Invalid weight_decay value: {}".format(weight_decay))


class _AdamBase(Optimizer):
    """Adam's step for Adam and AdamW, which differ only in how weight decay enters (``_decoupled``)."""

    _decoupled = False
    _group_defaults = dict(amsgrad=False, maximize=False, foreach=None, capturable=False)

    def __setstate__(self, state):
        super().__setstate__(state)
        # State from before PyTorch 1.12 holds the step count as a number; it is a tensor since.
        for s in self.state.values():
            if "step" in s and not isinstance(s["step"], _C._TensorBase):
                s["step"] = _C.tensor(float(s["step"]))

    @_step_without_grad
    def step(self, closure=None):
        """Performs one update; closure (optional) re-evaluates the model with grad enabled and returns the
        loss, which step returns."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            for p in self._params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    self._init_state(state, p, group["amsgrad"])
                self._update(p, p.grad, state, group)
        return loss

    @staticmethod
    def _init_state(state, p, amsgrad):
        # The step count is a float32 0-dim tensor (PyTorch >= 1.12), the moments are zeros like p.
        state["step"] = _C.tensor(0.0, dtype=_C.float32)
        state["exp_avg"] = _zeros_like(p)
        state["exp_avg_sq"] = _zeros_like(p)
        if amsgrad:
            state["max_exp_avg_sq"] = _zeros_like(p)

    def _update(self, param, grad, state, group):
        # Note [Adam's order of operations]
        # PyTorch 1.13's single-tensor Adam, step for step, so the parameters agree to the last bit: the
        # bias corrections are Python floats (beta ** step with the step read back from its float32 tensor),
        # the denominator is sqrt(v) / sqrt(1 - beta2^t) + eps and the parameter moves by
        # addcdiv(m, denom, value=-lr / (1 - beta1^t)). Adam adds weight_decay * p to the gradient; AdamW
        # (decoupled) scales p by 1 - lr * weight_decay before the moments are updated.
        beta1, beta2 = group["betas"]
        lr, weight_decay, eps = group["lr"], group["weight_decay"], group["eps"]
        if group["maximize"]:
            grad = grad.neg()
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        step_t = state["step"]
        step_t.add_(1)
        if self._decoupled:
            param.mul_(1 - lr * weight_decay)
        elif weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        step = step_t.item()
        bias_correction1 = 1 - beta1 ** step
        bias_correction2_sqrt = math.sqrt(1 - beta2 ** step)
        step_size = lr / bias_correction1
        second_moment = exp_avg_sq
        if group["amsgrad"]:
            second_moment = state["max_exp_avg_sq"]
            _C._functions["maximum"](second_moment, exp_avg_sq, out=second_moment)
        denom = (second_moment.sqrt() / bias_correction2_sqrt).add_(eps)
        param.addcdiv_(exp_avg, denom, value=-step_size)


class Adam(_AdamBase):
    r"""Adam: per-parameter steps scaled by running averages of the gradient and its square.

    With g the gradient (negated when maximize) and t the step count, each step does

        g = g + weight_decay * p                                   (if weight_decay != 0)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        v_max = max(v_max, v)                                      (amsgrad; v_max replaces v below)
        p = p - lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)

    in PyTorch 1.13's order of operations (Note [Adam's order of operations]).

    Args:
        params (iterable): tensors to optimize or dicts defining parameter groups.
        lr (float): learning rate. Default: 1e-3.
        betas (tuple of 2 floats): decay rates of the two running averages. Default: (0.9, 0.999).
        eps (float): added to the denominator. Default: 1e-8.
        weight_decay (float): L2 penalty added to the gradient. Default: 0.
        amsgrad (bool): use the maximum of all second moments so far (AMSGrad). Default: False.
        maximize (bool): maximize the objective instead of minimizing it. Default: False.
        foreach, capturable, differentiable, fused: accepted for compatibility; see Note [optimizer options
            Ember lacks].

    State: ``step`` (float32 0-dim tensor), ``exp_avg``, ``exp_avg_sq`` and with amsgrad ``max_exp_avg_sq``.

    Raises:
        ValueError: lr, eps or weight_decay negative; a beta outside [0, 1).
        RuntimeError: fused=True (needs CUDA) or capturable=True.
    """

    _group_defaults = dict(_AdamBase._group_defaults, differentiable=False, fused=False)

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=False):
        _check_adam_options(lr, betas, eps, weight_decay)
        _reject_unsupported(capturable=capturable, differentiable=differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        if fused:
            raise RuntimeError("FusedAdam requires all the params to be CUDA, floating point")

