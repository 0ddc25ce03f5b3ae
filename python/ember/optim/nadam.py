"""NAdam (PyTorch 1.13's torch.optim.NAdam)."""
from .. import _C
from .adam import _check_adam_options
from .optimizer import Optimizer, _check_option, _step_without_grad, _zeros_like

__all__ = ["NAdam"]


class NAdam(Optimizer):
    r"""NAdam: Adam with Nesterov momentum (Dozat, "Incorporating Nesterov Momentum into Adam", ICLR 2016
    workshop), with the momentum schedule mu_t = beta1 * (1 - 0.5 * 0.96^(t * momentum_decay)) as PyTorch 1.13
    documents it.

    With g the gradient and t the step count, each step does

        g = g + weight_decay * p                                   (if weight_decay != 0)
        mu_t = beta1 * (1 - 0.5 * 0.96^(t * momentum_decay));  mu_{t+1} likewise
        P_t = P_{t-1} * mu_t                                       (mu_product, a float32 0-dim tensor)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        d = sqrt(v / (1 - beta2^t)) + eps
        p = p - lr * (1 - mu_t) / (1 - P_t) * g / d - lr * mu_{t+1} / (1 - P_t * mu_t * mu_{t+1}) * m / d

    as PyTorch 1.13's single-tensor update, operation by operation (PyTorch 1.13's NAdam has no maximize).

    Args:
        params (iterable): tensors to optimize or dicts defining parameter groups.
        lr (float): learning rate. Default: 2e-3.
        betas (tuple of 2 floats): decay rates of the two running averages. Default: (0.9, 0.999).
        eps (float): added to the denominator. Default: 1e-8.
        weight_decay (float): L2 penalty. Default: 0.
        momentum_decay (float): the momentum schedule's decay. Default: 4e-3.
        foreach (bool): accepted for compatibility; see Note [optimizer options Ember lacks].

    State: ``step`` and ``mu_product`` (float32 0-dim tensors), ``exp_avg``, ``exp_avg_sq``.

    Raises:
        ValueError: lr, eps, weight_decay or momentum_decay negative; a beta outside [0, 1).
    """

    _group_defaults = dict(foreach=None)

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 foreach=None):
        _check_adam_options(lr, betas, eps, weight_decay)
        _check_option(0.0 <= momentum_decay, "Invalid momentum_decay value: {}".format(momentum_decay))
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        foreach=foreach)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for s in self.state.values():
            if "step" in s and not isinstance(s["step"], _C._TensorBase):
                s["step"] = _C.tensor(float(s["step"]))
            if "mu_product" in s and not isinstance(s["mu_product"], _C._TensorBase):
                s["mu_product"] = _C.tensor(s["mu_product"])

    def _state_has_param_shape(self, key):
        return key not in ("step", "mu_product")

    @_step_without_grad
    def step(self, closure=None):
        """Performs one update; closure (optional) re-evaluates the model with grad enabled and returns the
        loss, which step returns."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps, weight_decay, momentum_decay = (group["lr"], group["eps"], group["weight_decay"],
                                                     group["momentum_decay"])
            for p in self._params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _C.tensor(0.0, dtype=_C.float32)
                    state["mu_product"] = _C.tensor(1.0, dtype=_C.float32)
                    state["exp_avg"] = _zeros_like(p)
                    state["exp_avg_sq"] = _zeros_like(p)
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                step_t, mu_product = state["step"], state["mu_product"]
                grad = p.grad
                step_t.add_(1)
                step = step_t.item()
                bias_correction2 = 1 - beta2 ** step
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                mu = beta1 * (1. - 0.5 * (0.96 ** (step * momentum_decay)))
                mu_next = beta1 * (1. - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
                mu_product.mul_(mu)
                mu_product_next = mu_product.mul(mu).mul(mu_next)
                exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                denom = exp_avg_sq.div(bias_correction2).sqrt().add_(eps)
                p.addcdiv_(grad, denom, value=-lr * (1. - mu) / (1. - mu_product.item()))
                p.addcdiv_(exp_avg, denom, value=-lr * mu_next / (1. - mu_product_next.item()))
        return loss
