"""ember.Tensor: the Python class of tensors. Its C base (_C._TensorBase) holds the data and the op methods;
this class adds what is naturally Python: printing, NumPy interop, iteration and pickling."""
from . import _C
from ._dtype_info import _dtype_name
from ._tensor_str import _str


class Tensor(_C._TensorBase):
    """A multi-dimensional array of one dtype on one device (PyTorch's torch.Tensor).

    Made by factories (``ember.zeros``, ``ember.tensor``, ...) or ``ember.Tensor(*sizes)`` /
    ``ember.Tensor(sequence)`` (legacy constructor, default float dtype).
    """

    __module__ = "ember"
    # NumPy defers to our reflected operators: np.float32(2) * t is a tensor, not an array (as PyTorch's).
    __array_priority__ = 1000

    def __repr__(self):
        return _str(self)

    def __format__(self, spec):
        # As PyTorch: a 0-dim tensor formats as its number (f"{t}" is "2.5"), others as their repr.
        if self.dim() == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __iter__(self):
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        if _C._jit_is_tracing():  # as PyTorch's tracer: the loop count is frozen into the trace
            import warnings
            from .jit import TracerWarning
            warnings.warn("Iterating over a tensor might cause the trace to be incorrect. Passing a tensor of "
                          "different shape won't change the number of iterations executed (and might lead to "
                          "errors or silently give incorrect results).", TracerWarning, stacklevel=2)
        return iter(self.unbind(0))  # as PyTorch's (and no traced size turned into a Python int)

    def __contains__(self, element):
        return bool((self == element).any()) if hasattr(self, "any") else any(
            x == element for x in self.reshape(-1).tolist())

    def __hash__(self):
        return id(self)

    def __array__(self, dtype=None):
        import numpy as np

        a = self.numpy()
        return a if dtype is None else a.astype(dtype, copy=False)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        # NumPy's result of an operator between a tensor and an ndarray, back as a tensor (see Note [NumPy arrays
        # as operands] in python/csrc/tensor.cpp). As PyTorch 1.13's, a bool result becomes uint8.
        from . import from_numpy

        if array.dtype == bool:
            array = array.astype("uint8")
        return from_numpy(array)

    @property
    def __array_interface__(self):
        return self._array_interface()

    def numpy(self):
        """A NumPy array sharing this tensor's memory (bfloat16 has no NumPy type: TypeError)."""
        import numpy as np

        return np.asarray(self)

    @property
    def T(self):
        """The tensor with its dimensions reversed."""
        return self.permute(*reversed(range(self.dim())))

    @property
    def mT(self):
        """The transpose of the last two dimensions."""
        if self.dim() < 2:
            raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.")
        return self.transpose(-2, -1)

    def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        """ember.isclose(self, other, ...)."""
        from . import isclose

        return isclose(self, other, rtol, atol, equal_nan)

    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        """ember.allclose(self, other, ...)."""
        from . import allclose

        return allclose(self, other, rtol, atol, equal_nan)

    def nonzero(self, *, as_tuple=False):
        """Indices of the nonzero elements (see ember.nonzero); as_tuple gives one 1-D tensor per dim."""
        if as_tuple:
            return self.nonzero_numpy()
        return _C._TensorBase.nonzero(self)

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        """See ember.norm (a Python function, as PyTorch's torch.norm)."""
        from . import norm
        return norm(self, p, dim, keepdim, dtype=dtype)

    def type(self, dtype=None):
        """The type name ('ember.FloatTensor') or, given a dtype, a converted tensor."""
        if dtype is None:
            names = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
                     "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                     "bool": "Bool"}
            return f"ember.{names[repr(self.dtype)[6:]]}Tensor"
        return self.to(dtype)

    def where(self, condition, other):
        """self where condition is True, else other (ember.where(condition, self, other))."""
        return _C._functions["where"](condition, self, other)

    def type_as(self, other):
        """self converted to other's dtype."""
        return self.to(other.dtype)

    def float(self):
        return self.to(_C.float32)

    def double(self):
        return self.to(_C.float64)

    def half(self):
        return self.to(_C.float16)

    def bfloat16(self):
        return self.to(_C.bfloat16)

    def long(self):
        return self.to(_C.int64)

    def int(self):
        return self.to(_C.int32)

    def short(self):
        return self.to(_C.int16)

    def char(self):
        return self.to(_C.int8)

    def byte(self):
        return self.to(_C.uint8)

    def bool(self):
        return self.to(_C.bool)

    def cpu(self):
        return self

    def __reduce_ex__(self, protocol):
        # The values (a NumPy copy) and requires_grad; a non-leaf pickles as a leaf, as PyTorch's does.
        import numpy as np

        if self.dtype == _C.bfloat16:
            values = self.detach().to(_C.float32).numpy().copy()
        else:
            values = np.array(self.detach().numpy(), copy=True)
        return (_rebuild, (values, _dtype_name(self.dtype), self.requires_grad))

    def __deepcopy__(self, memo):
        # As PyTorch: leaves only; the copy keeps requires_grad and a deep copy of grad.
        if id(self) in memo:
            return memo[id(self)]
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                               "protocol at the moment")
        from .autograd import no_grad

        with no_grad():
            r = self.clone()
        r.requires_grad_(self.requires_grad)
        memo[id(self)] = r
        if self.grad is not None:
            import copy

            r.grad = copy.deepcopy(self.grad, memo)
        return r

    # ---- new_*: factories taking dtype (and device) from self unless given
    def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
        """A copy of data as a tensor of self's dtype (or dtype)."""
        return _C.tensor(data, dtype=self.dtype if dtype is None else dtype, requires_grad=requires_grad)

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
        """An uninitialised tensor of the given size and self's dtype (or dtype)."""
        return self._new_factory("empty", size, dtype, requires_grad)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
        """Zeros of the given size and self's dtype (or dtype)."""
        return self._new_factory("zeros", size, dtype, requires_grad)

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
        """Ones of the given size and self's dtype (or dtype)."""
        return self._new_factory("ones", size, dtype, requires_grad)

    def new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
        """fill_value in every element of a tensor of the given size and self's dtype (or dtype)."""
        return _C._functions["full"](size, fill_value, dtype=self.dtype if dtype is None else dtype,
                                     requires_grad=requires_grad)

    def _new_factory(self, name, size, dtype, requires_grad):
        if len(size) == 1 and not isinstance(size[0], int):
            size = size[0]  # new_zeros((2, 3)) as well as new_zeros(2, 3)
        return _C._functions[name](size, dtype=self.dtype if dtype is None else dtype, requires_grad=requires_grad)


def _rebuild(array, dtype_name=None, requires_grad=False):
    t = _C.from_numpy(array)
    if dtype_name is not None and t.dtype != getattr(_C, dtype_name):
        t = t.to(getattr(_C, dtype_name))  # bfloat16 travels as float32
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_bfloat16(array):  # pickles written before the dtype travelled with the values
    return _C.from_numpy(array).to(_C.bfloat16)


# ---- autograd (ember/autograd/autograd.h; the graph lives in C++)
def _tensor_requires_grad_get(self):
    return _C._requires_grad(self)


def _tensor_requires_grad_set(self, value):
    if not isinstance(value, bool):
        raise TypeError("requires_grad must be a bool")
    _C._set_requires_grad(self, value)


def _tensor_grad_set(self, value):
    if value is not None and not isinstance(value, _C._TensorBase):
        raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
    _C._set_grad(self, value)


Tensor.requires_grad = property(_tensor_requires_grad_get, _tensor_requires_grad_set,
                                doc="Whether autograd records operations on this tensor.")
Tensor.grad = property(lambda self: _C._grad(self), _tensor_grad_set,
                       doc="The gradient accumulated by backward() (None until one is computed).")
Tensor.grad_fn = property(lambda self: _C._grad_fn(self), doc="The node that produced this tensor (None for leaves).")
Tensor.is_leaf = property(lambda self: _C._is_leaf(self), doc="True when the tensor has no grad_fn.")
Tensor._base = property(lambda self: _C._view_base(self),
                        doc="The tensor this view was made from by a view op, or None (not a view).")
Tensor._is_view = lambda self: _C._view_base(self) is not None
Tensor.retains_grad = property(lambda self: _C._retains_grad(self),
                               doc="Whether a non-leaf tensor's .grad is filled by backward.")


def _requires_grad_(self, requires_grad=True):
    """Sets requires_grad in place and returns self. Raises RuntimeError on a non-leaf with False."""
    _C._set_requires_grad(self, requires_grad)
    return self


def _retain_grad(self):
    """Makes backward() fill .grad of this non-leaf tensor. Raises RuntimeError if it does not require grad."""
    _C._retain_grad(self)


def _detach_(self):
    """Detaches the tensor from the graph in place (it becomes a leaf that does not require grad)."""
    _C._detach_(self)
    return self


def _backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Computes the gradient of this tensor w.r.t. the graph leaves (see ember.autograd.backward)."""
    from . import autograd
    autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def _register_hook(self, hook):
    """Registers ``hook(grad) -> Tensor or None`` on this tensor's gradient; a returned tensor (same shape
    and dtype) replaces the gradient. On a leaf it runs once per backward before accumulation into .grad;
    on a non-leaf when its gradient is computed. Returns a handle with ``remove()``.

    Raises:
        RuntimeError: the tensor does not require grad; (during backward) the hook changed the shape or
            dtype of the gradient.
        TypeError: (during backward) the hook returned something that is neither a tensor nor None.
    """
    from .utils.hooks import RemovableHandle
    return RemovableHandle(_C._register_hook(self, hook))


def _is_inference(self):
    """Whether this tensor was created in inference mode (ember.inference_mode)."""
    return _C._is_inference(self)


Tensor.register_hook = _register_hook
Tensor.is_inference = _is_inference
Tensor.requires_grad_ = _requires_grad_
Tensor.retain_grad = _retain_grad
Tensor.detach_ = _detach_
Tensor.backward = _backward


# Note [slot holders]
# A traced or loaded script module's runtime module (C++) holds its parameters and buffers as tensors, not as
# these Python objects; assigning .data swaps the tensor inside the Python object, so a holder registered here
# (weakly, by ember.jit) is given the new tensor right away. Without it a script module would keep computing
# with the old data while its state_dict showed the new (PyTorch's set_data changes the tensor in place).
import weakref as _weakref  # noqa: E402

_slot_holders = {}  # id(tensor object) -> (weak reference to it, {holder key: callback(tensor)}); by identity


def _register_slot_holder(t, holder, callback):
    """Calls callback(t) whenever t.data is assigned (Note [slot holders]); one callback per holder key."""
    key = id(t)
    entry = _slot_holders.get(key)
    if entry is None or entry[0]() is not t:
        entry = _slot_holders[key] = (_weakref.ref(t, lambda _, key=key: _slot_holders.pop(key, None)), {})
    entry[1][holder] = callback


def _tensor_data_set(self, value):
    if not isinstance(value, _C._TensorBase):
        raise TypeError("data must be a Tensor, got {}".format(type(value).__name__))
    _C._set_data(self, value)
    entry = _slot_holders.get(id(self))
    if entry is not None and entry[0]() is self:
        for callback in list(entry[1].values()):
            callback(self)


# Note [Tensor.data]
# Reading .data gives detach(): an alias without autograd history. Unlike PyTorch's .data it shares the version
# counter, so an in-place change through it is seen by saved-tensor checks (PyTorch's would go unnoticed).
# Assigning .data (_C._set_data) swaps the tensor inside this Python object, keeping the object (so a
# Parameter converted by Module.double() stays the object optimizers hold) and its requires_grad.
Tensor.data = property(lambda self: self.detach(), _tensor_data_set,
                       doc="The tensor without autograd history (an alias of the same storage); assigning a tensor "
                           "makes this object use that tensor's data (dtype and shape included).")


def _make_subclass(cls, data, require_grad=False):
    """A new object of the Tensor subclass cls aliasing data's storage, with requires_grad set (as PyTorch's
    Tensor._make_subclass; ember.nn.Parameter's constructor)."""
    return _C._make_subclass(cls, data, require_grad)


Tensor._make_subclass = staticmethod(_make_subclass)
