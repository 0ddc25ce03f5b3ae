"""Variable: PyTorch's deprecated wrapper, kept for old programs. ``Variable(t, requires_grad=False)`` is a detached
alias of the tensor t (sharing its data) with requires_grad set; every tensor is an instance of Variable."""
from .. import _C

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, _C._TensorBase)

    def __call__(cls, data=None, requires_grad=False, volatile=False):
        r"""A detached alias of data (an empty tensor when omitted) that requires grad when asked.

        Raises:
            TypeError: data is no tensor.
        """
        if data is None:
            return _C._functions["empty"]((0,)).requires_grad_(requires_grad)
        if not isinstance(data, _C._TensorBase):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(requires_grad)


class Variable(metaclass=_VariableMeta):
    """Deprecated: tensors are Variables (see the module doc)."""

    __module__ = "ember.autograd.variable"
