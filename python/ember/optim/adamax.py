"""Adamax (PyTorch 1.13's torch.optim.Adamax)."""
from .. import _C
from .adam import _check_adam_options
from .optimizer import Optimizer, _step_without_grad, _zeros_like

__all__ = ["Adamax"]


class Adamax(Optimizer):
    r"""Adamax: Adam with the infinity norm in place of the second moment (Kingma & Ba, "Adam: A Method for
    Stochastic Optimization", section 7.1; the update as PyTorch 1.13 documents it).

    With g the gradient (negated when maximize) and t the step count, each step does

        g = g + weight_decay * p                                   (if weight_decay != 0)
        m = beta1 * m + (1 - beta1) * g
        u = max(beta2 * u, |g| + eps)
        p = p - lr / (1 - beta1^t) * m / u

    as PyTorch 1.13's single-tensor update, operation by operation.

    Args:
        params (iterable): tensors to optimize or dicts defining parameter groups.
        lr (float): learning rate. Default: 2e-3.
        betas (tuple of 2 floats): decay rates of the running average and of the infinity norm.
            Default: (0.9, 0.999).
        eps (float): added to |g|. Default: 1e-8.
        weight_decay (float): L2 penalty. Default: 0.
        foreach (bool): accepted for compatibility; see Note [optimizer options Ember lacks].
        maximize (bool): maximize the objective instead of minimizing it. Default: False.

    State: ``step`` (float32 0-dim tensor), ``exp_avg`` (m) and ``exp_inf`` (u).

    Raises:
        ValueError: lr, eps or weight_decay negative; a beta outside [0, 1).
    """

    _group_defaults = dict(foreach=None, maximize=False)

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False):
        _check_adam_options(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize)
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
        cat, amax = _C._functions["cat"], _C._functions["amax"]
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
            for p in self._params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _C.tensor(0.0, dtype=_C.float32)
                    state["exp_avg"] = _zeros_like(p)
                    state["exp_inf"] = _zeros_like(p)
                exp_avg, exp_inf, step_t = state["exp_avg"], state["exp_inf"], state["step"]
                grad = p.grad.neg() if group["maximize"] else p.grad
                step_t.add_(1)
                step = step_t.item()
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                norm_buf = cat([exp_inf.mul_(beta2).unsqueeze(0), grad.abs().add_(eps).unsqueeze_(0)], 0)
                amax(norm_buf, 0, keepdim=False, out=exp_inf)
                clr = lr / (1 - beta1 ** step)
                p.addcdiv_(exp_avg, exp_inf, value=-clr)
        return loss
