"""Adagrad (PyTorch 1.13's torch.optim.Adagrad)."""
from .. import _C
from .optimizer import Optimizer, _check_option, _step_without_grad

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    r"""Adagrad: each coordinate's step is divided by the root of the sum of all its squared gradients so far
    (Duchi, Hazan & Singer, "Adaptive Subgradient Methods for Online Learning and Stochastic Optimization",
    JMLR 2011; the update as PyTorch 1.13 documents it).

    With g the gradient (negated when maximize) and t the step count, each step does

        g = g + weight_decay * p                                   (if weight_decay != 0)
        clr = lr / (1 + (t - 1) * lr_decay)
        sum = sum + g * g
        p = p - clr * g / (sqrt(sum) + eps)

    as PyTorch 1.13's single-tensor update, operation by operation.

    Args:
        params (iterable): tensors to optimize or dicts defining parameter groups.
        lr (float): learning rate. Default: 1e-2.
        lr_decay (float): learning rate decay. Default: 0.
        weight_decay (float): L2 penalty. Default: 0.
        initial_accumulator_value (float): the starting value of every ``sum`` (the constructor's value for
            every group, as in PyTorch). Default: 0.
        eps (float): added to the denominator. Default: 1e-10.
        foreach (bool): accepted for compatibility; see Note [optimizer options Ember lacks].
        maximize (bool): maximize the objective instead of minimizing it. Default: False.

    State (created at construction for every parameter, as PyTorch does; a parameter added later with
    add_param_group gets it at its first step): ``step`` (float32 0-dim tensor) and ``sum``.

    Raises:
        ValueError: lr, lr_decay, weight_decay, initial_accumulator_value or eps negative.
    """

    _group_defaults = dict(foreach=None, maximize=False)

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False):
        _check_option(0.0 <= lr, "Invalid learning rate: {}".format(lr))
        _check_option(0.0 <= lr_decay, "Invalid lr_decay value: {}".format(lr_decay))
        _check_option(0.0 <= weight_decay, "Invalid weight_decay value: {}".format(weight_decay))
        _check_option(0.0 <= initial_accumulator_value,
                      "Invalid initial_accumulator_value value: {}".format(initial_accumulator_value))
        _check_option(0.0 <= eps, "Invalid epsilon value: {}".format(eps))
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(self.state[p], p)

    def _init_state(self, state, p):
        # As PyTorch 1.13, every sum starts at the constructor's initial_accumulator_value (a group's own value
        # is recorded in the group but not used).
        state["step"] = _C.tensor(0.0, dtype=_C.float32)
        state["sum"] = _C._functions["full_like"](p, self.defaults["initial_accumulator_value"],
                                                  memory_format=_C.preserve_format)

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
            lr, lr_decay, eps, weight_decay = group["lr"], group["lr_decay"], group["eps"], group["weight_decay"]
            for p in self._params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    self._init_state(state, p)
                step_t, state_sum = state["step"], state["sum"]
                step_t.add_(1)
                step = step_t.item()
                grad = p.grad.neg() if group["maximize"] else p.grad
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                clr = lr / (1 + (step - 1) * lr_decay)
                state_sum.addcmul_(grad, grad, value=1)
                std = state_sum.sqrt().add_(eps)
                p.addcdiv_(grad, std, value=-clr)
        return loss
