"""RAdam (PyTorch 1.13's torch.optim.RAdam)."""
import math

from .. import _C
from .adam import _check_adam_options
from .optimizer import Optimizer, _step_without_grad, _zeros_like

__all__ = ["RAdam"]


class RAdam(Optimizer):
    r"""RAdam: Adam with the variance of its adaptive learning rate rectified (Liu et al., "On the Variance of
    the Adaptive Learning Rate and Beyond", ICLR 2020; the update as PyTorch 1.13 documents it). While the
    approximated simple moving average is too short (rho_t <= 5) it takes plain momentum steps.

    With g the gradient and t the step count, each step does

        g = g + weight_decay * p                                   (if weight_decay != 0)
        m = beta1 * m + (1 - beta1) * g;   m_hat = m / (1 - beta1^t)
        v = beta2 * v + (1 - beta2) * g * g
        rho_inf = 2 / (1 - beta2) - 1;   rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t)
        if rho_t > 5:
            r = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))
            p = p - m_hat * lr * (sqrt(1 - beta2^t) / (sqrt(v) + eps)) * r
        else:
            p = p - m_hat * lr

    as PyTorch 1.13's single-tensor update, operation by operation (PyTorch 1.13's RAdam has no maximize).

    Args:
        params (iterable): tensors to optimize or dicts defining parameter groups.
        lr (float): learning rate. Default: 1e-3.
        betas (tuple of 2 floats): decay rates of the two running averages. Default: (0.9, 0.999).
        eps (float): added to the denominator. Default: 1e-8.
        weight_decay (float): L2 penalty. Default: 0.
        foreach (bool): accepted for compatibility; see Note [optimizer options Ember lacks].

    State: ``step`` (float32 0-dim tensor), ``exp_avg``, ``exp_avg_sq``.

    Raises:
        ValueError: lr, eps or weight_decay negative; a beta outside [0, 1).
    """

    _group_defaults = dict(foreach=None)

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None):
        _check_adam_options(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for s in self.state.values():
            if "step" in s and not isinstance(s["step"], _C._TensorBase):
                s["step"] = _C.tensor(float(s["step"]))

    @_step_without_grad
    def step(self, closure=None):
        """Performs one update; closure (optional) re-evaluates the model with grad enabled and returns the
        loss, which step returns."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
            for p in self._params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _C.tensor(0.0, dtype=_C.float32)
                    state["exp_avg"] = _zeros_like(p)
                    state["exp_avg_sq"] = _zeros_like(p)
                exp_avg, exp_avg_sq, step_t = state["exp_avg"], state["exp_avg_sq"], state["step"]
                grad = p.grad
                step_t.add_(1)
                step = step_t.item()
                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                bias_corrected_exp_avg = exp_avg.div(bias_correction1)
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
                if rho_t > 5.:
                    rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
                    # number / tensor is PyTorch's Tensor.__rdiv__: the reciprocal times the number.
                    adaptive_lr = exp_avg_sq.sqrt().add_(eps).reciprocal().mul(math.sqrt(bias_correction2))
                    p.add_(bias_corrected_exp_avg.mul(lr).mul(adaptive_lr).mul(rect), alpha=-1.0)
                else:
                    p.add_(bias_corrected_exp_avg.mul(lr), alpha=-1.0)
        return loss
