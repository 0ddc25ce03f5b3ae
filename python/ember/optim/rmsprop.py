"""RMSprop (PyTorch 1.13's torch.optim.RMSprop)."""
from .optimizer import Optimizer, _check_option, _reject_unsupported, _step_without_grad, _zeros_like

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    r"""RMSprop: steps divided by the root of a running average of the squared gradient.

    With g the gradient (negated when maximize), each step does

        g = g + weight_decay * p                                   (if weight_decay != 0)
        v = alpha * v + (1 - alpha) * g * g
        a = alpha * a + (1 - alpha) * g;  d = sqrt(v - a * a) + eps   (centered)
        d = sqrt(v) + eps                                          (not centered)
        b = momentum * b + g / d;  p = p - lr * b                  (momentum > 0)
        p = p - lr * g / d                                         (otherwise)

    as PyTorch 1.13's single-tensor update, operation by operation (the results agree to the last bit).

    Args:
        params (iterable): tensors to optimize or dicts defining parameter groups.
        lr (float): learning rate. Default: 1e-2.
        alpha (float): smoothing constant of the averages. Default: 0.99.
        eps (float): added to the denominator. Default: 1e-8.
        weight_decay (float): L2 penalty. Default: 0.
        momentum (float): momentum factor. Default: 0.
        centered (bool): normalize by the estimated variance of the gradient instead of its second moment.
            Default: False.
        maximize (bool): maximize the objective instead of minimizing it. Default: False.
        foreach, differentiable: accepted for compatibility; see Note [optimizer options Ember lacks].

    State: ``step`` (an int), ``square_avg``, with momentum > 0 ``momentum_buffer`` and when centered
    ``grad_avg``.

    Raises:
        ValueError: lr, eps, momentum, weight_decay or alpha negative.
    """

    _group_defaults = dict(momentum=0, centered=False, foreach=None, maximize=False, differentiable=False)

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 foreach=None, maximize=False, differentiable=False):
        _check_option(0.0 <= lr, "Invalid learning rate: {}".format(lr))
        _check_option(0.0 <= eps, "Invalid epsilon value: {}".format(eps))
        _check_option(0.0 <= momentum, "Invalid momentum value: {}".format(momentum))
        _check_option(0.0 <= weight_decay, "Invalid weight_decay value: {}".format(weight_decay))
        _check_option(0.0 <= alpha, "Invalid alpha value: {}".format(alpha))
        _reject_unsupported(differentiable=differentiable)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, foreach=foreach, maximize=maximize,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    @_step_without_grad
    def step(self, closure=None):
        """Performs one update; closure (optional) re-evaluates the model with grad enabled and returns the
        loss, which step returns."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            alpha, eps, lr, momentum = group["alpha"], group["eps"], group["lr"], group["momentum"]
            for p in self._params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = 0
                    state["square_avg"] = _zeros_like(p)
                    if momentum > 0:
                        state["momentum_buffer"] = _zeros_like(p)
                    if group["centered"]:
                        state["grad_avg"] = _zeros_like(p)
                state["step"] += 1
                grad = p.grad.neg() if group["maximize"] else p.grad
                if group["weight_decay"] != 0:
                    grad = grad.add(p, alpha=group["weight_decay"])
                square_avg = state["square_avg"]
                square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
                if group["centered"]:
                    grad_avg = state["grad_avg"]
                    grad_avg.mul_(alpha).add_(grad, alpha=1 - alpha)
                    avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
                else:
                    avg = square_avg.sqrt()
                avg.add_(eps)
                if momentum > 0:
                    buf = state["momentum_buffer"]
                    buf.mul_(momentum).addcdiv_(grad, avg)
                    p.add_(buf, alpha=-lr)
                else:
                    p.addcdiv_(grad, avg, value=-lr)
        return loss
