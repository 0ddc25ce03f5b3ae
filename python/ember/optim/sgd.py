"""Stochastic gradient descent with optional momentum (PyTorch 1.13's torch.optim.SGD)."""
from .optimizer import Optimizer, _check_option, _reject_unsupported, _step_without_grad, required

__all__ = ["SGD"]


class SGD(Optimizer):
    r"""Stochastic gradient descent, optionally with (Nesterov) momentum.

    With g the gradient (negated when maximize), each step does

        g = g + weight_decay * p                                  (if weight_decay != 0)
        b = g  (first step),  b = momentum * b + (1 - dampening) * g   (if momentum != 0)
        g = g + momentum * b  (nesterov)  or  g = b
        p = p - lr * g

    as PyTorch 1.13's single-tensor update, operation by operation (the results agree to the last bit).

    Args:
        params (iterable): tensors to optimize or dicts defining parameter groups.
        lr (float): learning rate (required).
        momentum (float): momentum factor. Default: 0.
        dampening (float): dampening of the momentum. Default: 0.
        weight_decay (float): L2 penalty. Default: 0.
        nesterov (bool): Nesterov momentum (needs momentum > 0 and dampening 0). Default: False.
        maximize (bool): maximize the objective instead of minimizing it. Default: False.
        foreach, differentiable: accepted for compatibility; see Note [optimizer options Ember lacks].

    State: ``momentum_buffer`` for each parameter that took a step (None while momentum is 0).

    Raises:
        ValueError: lr, momentum or weight_decay negative; nesterov without momentum or with dampening.
    """

    _group_defaults = dict(nesterov=False, maximize=False, foreach=None, differentiable=False)

    def __init__(self, params, lr=required, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False):
        _check_option(lr is required or lr >= 0.0, "Invalid learning rate: {}".format(lr))
        _check_option(momentum >= 0.0, "Invalid momentum value: {}".format(momentum))
        _check_option(weight_decay >= 0.0, "Invalid weight_decay value: {}".format(weight_decay))
        _check_option(not nesterov or (momentum > 0 and dampening == 0),
                      "Nesterov momentum requires a momentum and zero dampening")
        _reject_unsupported(differentiable=differentiable)
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    @_step_without_grad
    def step(self, closure=None):
        """Performs one update; closure (optional) re-evaluates the model with grad enabled and returns the
        loss, which step returns."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            momentum, dampening, nesterov = group["momentum"], group["dampening"], group["nesterov"]
            for p in self._params_with_grad(group):
                d_p = p.grad.neg() if group["maximize"] else p.grad
                if group["weight_decay"] != 0:
                    d_p = d_p.add(p, alpha=group["weight_decay"])
                state = self.state[p]
                buf = state.get("momentum_buffer")
                if momentum != 0:
                    if buf is None:
                        buf = d_p.clone().detach()
                    else:
                        buf.mul_(momentum).add_(d_p, alpha=1 - dampening)
                    d_p = d_p.add(buf, alpha=momentum) if nesterov else buf
                state["momentum_buffer"] = buf
                p.add_(d_p, alpha=-group["lr"])
        return loss
