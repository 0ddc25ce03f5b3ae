"""ember.nn.parameter: Parameter, the Tensor subclass a Module registers as one of its parameters."""

from .. import _C
from .._tensor import Tensor


class Parameter(Tensor):
    r"""A Tensor that is a module parameter (PyTorch's torch.nn.Parameter).

    Assigning a Parameter as an attribute of a Module registers it in the module's parameters (and so in
    ``parameters()`` and ``state_dict()``). The Parameter aliases the storage of ``data``.

    Args:
        data (Tensor, optional): the values (an empty float tensor when None).
        requires_grad (bool): whether it requires grad. Default: True.
    """

    __module__ = "ember.nn.parameter"

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _C._functions["empty"](0)
        return Tensor._make_subclass(cls, data, requires_grad)

    def __init__(self, data=None, requires_grad=True):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.detach().clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol):
        # as a Tensor's pickle (its values), rebuilt as a Parameter with the same requires_grad
        fn, args = Tensor.__reduce_ex__(self.detach(), protocol)
        return (_rebuild_parameter, (fn, args, self.requires_grad))


def _rebuild_parameter(fn, args, requires_grad):
    return Parameter(fn(*args), requires_grad)


__all__ = ["Parameter"]
