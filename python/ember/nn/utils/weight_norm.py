"""weight_norm / remove_weight_norm: a parameter w split into a direction v and a magnitude g, w = g * v / ||v||
(Salimans & Kingma 2016), as PyTorch 1.13's torch.nn.utils.weight_norm: a forward pre-hook recomputes w from
``<name>_g`` and ``<name>_v`` before every call."""
from ..._norm import norm_except_dim
from ..parameter import Parameter

__all__ = ["weight_norm", "remove_weight_norm"]


class WeightNorm:
    """The forward pre-hook of one weight-normalized parameter (its name and the dim kept apart)."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return v * (g / norm_except_dim(v, 2, self.dim))

    @staticmethod
    def apply(module, name, dim):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError("Cannot register two weight_norm hooks on the same parameter {}".format(name))
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    r"""Reparametrizes module's parameter name as ``g * v / ||v||``: the parameter is replaced by ``<name>_g``
    (the norms over every dim but dim, or the whole norm when dim is None) and ``<name>_v`` (its initial value),
    and the weight is recomputed from them before each forward (state-dict keys ``<name>_g``, ``<name>_v``).

    Args:
        module (Module): the module holding the parameter.
        name (str): the parameter's name. Default: 'weight'.
        dim (int or None): the dim whose slices get one magnitude each (0: one per output unit). Default: 0.

    Returns:
        The module.

    Raises:
        RuntimeError: the parameter is already weight-normalized.
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Undoes weight_norm: the weight becomes one parameter again (its current value). Returns the module.
    Raises ValueError when name is not weight-normalized in module."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError("weight_norm of '{}' not found in {}".format(name, module))
