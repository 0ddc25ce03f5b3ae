"""ASGD, averaged stochastic gradient descent (PyTorch 1.13's torch.optim.ASGD)."""
import math

from .. import _C
from .optimizer import Optimizer, _check_option, _step_without_grad, _zeros_like

__all__ = ["ASGD"]


class ASGD(Optimizer):
    r"""Averaged SGD (Polyak & Juditsky, "Acceleration of Stochastic Approximation by Averaging", SIAM J.
    Control Optim. 1992; the step-size schedule of Bottou, "Large-Scale Machine Learning with Stochastic
    Gradient Descent", as PyTorch 1.13 implements it): SGD with a decaying step size eta_t, plus a running
    average ``ax`` of the iterates that starts after t0 steps.

    With g the gradient (negated when maximize) and t the step count, each step does

        g = g + weight_decay * p                                   (if weight_decay != 0)
        p = p * (1 - lambd * eta)
        p = p - eta * g
        ax = ax + (p - ax) * mu                                    (ax = p while mu == 1)
        eta = lr / (1 + lambd * lr * t)^alpha
        mu = 1 / max(1, t - t0)

    as PyTorch 1.13's single-tensor update (eta and mu are float32 0-dim tensors, so they round as PyTorch's).

    Args:
        params (iterable): tensors to optimize or dicts defining parameter groups.
        lr (float): learning rate. Default: 1e-2.
        lambd (float): decay term. Default: 1e-4.
        alpha (float): power of the eta update. Default: 0.75.
        t0 (float): the step at which averaging starts. Default: 1e6.
        weight_decay (float): L2 penalty. Default: 0.
        foreach (bool): accepted for compatibility; see Note [optimizer options Ember lacks].
        maximize (bool): maximize the objective instead of minimizing it. Default: False.

    State: ``step``, ``eta``, ``mu`` (float32 0-dim tensors) and ``ax``.

    Raises:
        ValueError: lr or weight_decay negative.
    """

    _group_defaults = dict(foreach=None, maximize=False)

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False):
        _check_option(0.0 <= lr, "Invalid learning rate: {}".format(lr))
        _check_option(0.0 <= weight_decay, "Invalid weight_decay value: {}".format(weight_decay))
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for s in self.state.values():
            for key in ("step", "eta", "mu"):
                if key in s and not isinstance(s[key], _C._TensorBase):
                    s[key] = _C.tensor(float(s[key]))

    def _state_has_param_shape(self, key):
        return key not in ("step", "eta", "mu")

    @_step_without_grad
    def step(self, closure=None):
        """Performs one update; closure (optional) re-evaluates the model with grad enabled and returns the
        loss, which step returns."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
            weight_decay = group["weight_decay"]
            for p in self._params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _C.tensor(0.0, dtype=_C.float32)
                    state["eta"] = _C.tensor(float(lr), dtype=_C.float32)
                    state["mu"] = _C.tensor(1.0, dtype=_C.float32)
                    state["ax"] = _zeros_like(p)
                step_t, eta, mu, ax = state["step"], state["eta"], state["mu"], state["ax"]
                grad = p.grad.neg() if group["maximize"] else p.grad
                step_t.add_(1)
                step = step_t.item()
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                p.mul_(1 - lambd * eta.item())
                p.add_(grad, alpha=-eta.item())
                if mu.item() != 1:
                    ax.add_(p.sub(ax).mul(mu))
                else:
                    ax.copy_(p)
                # Each new value is rounded to float32, as PyTorch's copy from torch.tensor(python float).
                eta.fill_(lr / math.pow((1 + lambd * lr * step), alpha))
                mu.fill_(1 / max(1, step - t0))
        return loss
