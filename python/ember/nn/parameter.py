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


class UninitializedTensorMixin:
    r"""What UninitializedParameter and UninitializedBuffer share: a tensor whose shape is not known yet.

    It holds an empty tensor of its eventual dtype and device. ``shape`` raises RuntimeError, and the Tensor
    methods other than those that change dtype or device (``to``, ``float``, ``double``, ``cpu``, ...),
    ``size``, ``copy_``, ``is_floating_point`` and ``get_device`` raise ValueError, as PyTorch's; attributes
    (``dtype``, ``device``, ``requires_grad``, ``grad``, ``data``) stay readable. ``materialize(shape)`` turns
    it into a Parameter (or Tensor) of that shape.

    Unlike PyTorch (which intercepts calls through ``__torch_function__``), the ember functions called on one
    (``ember.add(p, 1)``) are not intercepted: they see the empty tensor it holds.
    """

    # The Tensor methods an uninitialized tensor still answers (PyTorch's _allowed_methods).
    _allowed_methods = frozenset([
        "__hash__", "size", "copy_", "is_floating_point", "half", "float", "double", "char", "short", "int",
        "long", "cuda", "cpu", "to", "get_device", "materialize", "share_memory_"])

    def __getattribute__(self, name):
        value = object.__getattribute__(self, name)
        if name.startswith("_") or name in UninitializedTensorMixin._allowed_methods:
            return value
        if callable(value) and callable(getattr(Tensor, name, None)):
            raise ValueError(
                "Attempted to use an uninitialized parameter in {}. This error happens when you are using a "
                "`LazyModule` or explicitly manipulating `ember.nn.parameter.{}` objects. When using LazyModules "
                "Call `forward` with a dummy batch to initialize the parameters before calling ember functions"
                .format(getattr(Tensor, name), type(self).__name__))
        return value

    def __len__(self):
        raise ValueError("Attempted to use an uninitialized parameter in {}. Call `forward` with a dummy batch to "
                         "initialize the parameters first".format(Tensor.__len__))

    def materialize(self, shape, device=None, dtype=None):
        r"""Gives this tensor the shape ``shape`` (uninitialized values), on ``device`` and of ``dtype`` (by
        default those it was made with), and makes it a Parameter (UninitializedParameter) or a Tensor
        (UninitializedBuffer), in place: the object keeps its identity."""
        if device is None:
            device = self.data.device
        if dtype is None:
            dtype = self.data.dtype
        self.data = _C._functions["empty"](shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
            "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
            "`forward` to initialize the parameters before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize "
                           "the parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return "<{}>".format(self.__class__.__name__)

    def __reduce_ex__(self, proto):
        # only the class and requires_grad: an uninitialized tensor has no values to save
        return (self.__class__, (self.requires_grad,))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self.data.device, self.data.dtype)
        memo[id(self)] = result
        return result


def is_lazy(param):
    """Whether param is an UninitializedParameter or UninitializedBuffer (a lazy module's, not materialized)."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    r"""A Parameter whose shape is not known yet (a lazy module's before its first forward).

    Args:
        requires_grad (bool): of the parameter it becomes. Default: True.
        device, dtype: those of the parameter it becomes (default: the default device and dtype).

    ``materialize(shape)`` turns it into a Parameter of that shape, in place.
    """

    __module__ = "ember.nn.parameter"
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        kwargs = {k: v for k, v in (("device", device), ("dtype", dtype)) if v is not None}
        return Tensor._make_subclass(cls, _C._functions["empty"](0, **kwargs), requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass



class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    r"""A buffer whose shape is not known yet (a lazy module's running statistics before its first forward).

    Args:
        requires_grad (bool): Default: False.
        device, dtype: those of the tensor it becomes.

    ``materialize(shape)`` turns it into an ember.Tensor of that shape, in place.
    """

    __module__ = "ember.nn.parameter"
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        kwargs = {k: v for k, v in (("device", device), ("dtype", dtype)) if v is not None}
        return Tensor._make_subclass(cls, _C._functions["empty"](0, **kwargs), requires_grad)

    def __init__(self, requires_grad=False, device=None, dtype=None):
        pass


__all__ = ["Parameter", "UninitializedParameter", "UninitializedBuffer", "UninitializedTensorMixin", "is_lazy"]
