"""ember.Tensor: the Python class of tensors. Its C base (_C._TensorBase) holds the data, the op methods and
the autograd attributes (requires_grad, grad, grad_fn, data, backward, register_hook, ...; see
python/csrc/tensor_autograd.cpp); this class adds what is naturally Python: printing, NumPy interop, iteration
and pickling."""
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
