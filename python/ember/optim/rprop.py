"""Rprop, resilient backpropagation (PyTorch 1.13's torch.optim.Rprop)."""
from .. import _C
from .optimizer import Optimizer, _check_option, _step_without_grad, _zeros_like

__all__ = ["Rprop"]


class Rprop(Optimizer):
    r"""Rprop: each coordinate moves by its own step size against the sign of its gradient; the step size
    grows by etaplus while the gradient keeps its sign and shrinks by etaminus when it flips (Riedmiller &
    Braun, "A Direct Adaptive Method for Faster Backpropagation Learning: The RPROP Algorithm", ICNN 1993;
    the variant PyTorch 1.13 documents, which skips the move after a sign change).

    With g the gradient (negated when maximize) and g_prev the previous step's (zeroed where it flipped):

        s = sign(g * g_prev);  f = etaplus where s > 0, etaminus where s < 0, 1 where s == 0
        step_size = clamp(step_size * f, step_size_min, step_size_max)
        g = 0 where f == etaminus
        p = p - sign(g) * step_size;  g_prev = g

    as PyTorch 1.13's single-tensor update, operation by operation.

    Args:
        params (iterable): tensors to optimize or dicts defining parameter groups.
        lr (float): the initial step size. Default: 1e-2.
        etas (tuple of 2 floats): (etaminus, etaplus), with 0 < etaminus < 1 < etaplus. Default: (0.5, 1.2).
        step_sizes (tuple of 2 floats): the minimum and maximum step size. Default: (1e-6, 50).
        foreach (bool): accepted for compatibility; see Note [optimizer options Ember lacks].
        maximize (bool): maximize the objective instead of minimizing it. Default: False.

    State: ``step`` (an int), ``prev`` and ``step_size``.

    Raises:
        ValueError: lr negative; etas not 0 < etaminus < 1 < etaplus.
    """

    _group_defaults = dict(foreach=None, maximize=False)

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), foreach=None, maximize=False):
        _check_option(0.0 <= lr, "Invalid learning rate: {}".format(lr))
        _check_option(0.0 < etas[0] < 1.0 < etas[1], "Invalid eta values: {}, {}".format(etas[0], etas[1]))
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    @_step_without_grad
    def step(self, closure=None):
        """Performs one update; closure (optional) re-evaluates the model with grad enabled and returns the
        loss, which step returns."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            for p in self._params_with_grad(group):
                grad = p.grad
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = 0
                    state["prev"] = _zeros_like(p)
                    state["step_size"] = _C._functions["full"](tuple(grad.shape), group["lr"], dtype=grad.dtype)
                state["step"] += 1
                prev, step_size = state["prev"], state["step_size"]
                if group["maximize"]:
                    grad = grad.neg()
                sign = grad.mul(prev).sign()
                # A NaN sign (NaN gradient) is none of the three and stays NaN, as in PyTorch.
                sign = sign.masked_fill(sign.gt(0), etaplus)
                sign = sign.masked_fill(sign.lt(0), etaminus)
                sign = sign.masked_fill(sign.eq(0), 1)
                step_size.mul_(sign).clamp_(step_size_min, step_size_max)
                grad = grad.masked_fill(sign.eq(etaminus), 0)  # no move where the gradient's sign flipped
                p.addcmul_(grad.sign(), step_size, value=-1)
                prev.copy_(grad)
        return loss
