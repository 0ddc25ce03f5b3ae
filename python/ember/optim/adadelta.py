"""Adadelta (PyTorch 1.13's torch.optim.Adadelta)."""
from .optimizer import Optimizer, _check_option, _step_without_grad, _zeros_like

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    r"""Adadelta: steps scaled by the ratio of running RMS values of past updates and of gradients (Zeiler,
    "ADADELTA: An Adaptive Learning Rate Method", arXiv:1212.5701; the update as PyTorch 1.13 documents it).

    With g the gradient (negated when maximize), each step does

        g = g + weight_decay * p                                   (if weight_decay != 0)
        v = rho * v + (1 - rho) * g * g
        delta = sqrt(u + eps) / sqrt(v + eps) * g
        u = rho * u + (1 - rho) * delta * delta
        p = p - lr * delta

    as PyTorch 1.13's single-tensor update, operation by operation.

    Args:
        params (iterable): tensors to optimize or dicts defining parameter groups.
        lr (float): coefficient that scales delta before it is applied. Default: 1.0.
        rho (float): decay rate of the running averages. Default: 0.9.
        eps (float): added inside the square roots. Default: 1e-6.
        weight_decay (float): L2 penalty. Default: 0.
        foreach (bool): accepted for compatibility; see Note [optimizer options Ember lacks].
        maximize (bool): maximize the objective instead of minimizing it. Default: False.

    State: ``step`` (an int), ``square_avg`` (v) and ``acc_delta`` (u).

    Raises:
        ValueError: lr, eps or weight_decay negative; rho outside [0, 1].
    """

    _group_defaults = dict(foreach=None, maximize=False)

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, maximize=False):
        _check_option(0.0 <= lr, "Invalid learning rate: {}".format(lr))
        _check_option(0.0 <= rho <= 1.0, "Invalid rho value: {}".format(rho))
        _check_option(0.0 <= eps, "Invalid epsilon value: {}".format(eps))
        _check_option(0.0 <= weight_decay, "Invalid weight_decay value: {}".format(weight_decay))
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize, foreach=foreach)
        super().__init__(params, defaults)

    @_step_without_grad
    def step(self, closure=None):
        """Performs one update; closure (optional) re-evaluates the model with grad enabled and returns the
        loss, which step returns."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr, rho, eps, weight_decay = group["lr"], group["rho"], group["eps"], group["weight_decay"]
            for p in self._params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = 0
                    state["square_avg"] = _zeros_like(p)
                    state["acc_delta"] = _zeros_like(p)
                state["step"] += 1
                square_avg, acc_delta = state["square_avg"], state["acc_delta"]
                grad = p.grad.neg() if group["maximize"] else p.grad
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
                std = square_avg.add(eps).sqrt_()
                delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
                acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
                p.add_(delta, alpha=-lr)
        return loss
