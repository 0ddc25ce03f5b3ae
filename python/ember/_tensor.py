"""ember.Tensor: the Python class of tensors. Its C base (_C._TensorBase) holds the data, the op methods and
the autograd attributes (requires_grad, grad, grad_fn, data, backward, register_hook, ...; see
python/csrc/tensor_autograd.cpp); this class adds what is naturally Python: printing, NumPy interop, iteration
and pickling."""
import math

from . import _C
from ._dtype_info import _dtype_name
from ._size import Size
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

    def __dlpack__(self, stream=None):
        """A DLPack capsule sharing this tensor's memory (the DLPack protocol; ember.to_dlpack)."""
        from ._dlpack import to_dlpack

        return to_dlpack(self)

    def __dlpack_device__(self):
        """(DLPack device type, id): (1, 0), the CPU."""
        return (1, 0)

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

    def lu(self, pivot=True, get_infos=False):
        """See ember.lu (a Python function, as PyTorch's torch.lu)."""
        from . import lu
        return lu(self, pivot, get_infos)

    def stft(self, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
             normalized=False, onesided=None, return_complex=None):
        """See ember.stft (a Python function, as PyTorch's torch.stft)."""
        from .functional import stft
        return stft(self, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided,
                    return_complex)

    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
        """See ember.unique (a Python function, as PyTorch's torch.unique)."""
        from .functional import unique
        return unique(self, sorted, return_inverse, return_counts, dim)

    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        """See ember.unique_consecutive."""
        from .functional import unique_consecutive
        return unique_consecutive(self, return_inverse=return_inverse, return_counts=return_counts, dim=dim)

    def histogram(self, bins=100, *, range=None, weight=None, density=False):
        """See ember.histogram (bins: a number of bins or a tensor of edges)."""
        from .functional import histogram
        return histogram(self, bins, range=range, weight=weight, density=density)

    def type(self, dtype=None):
        """The type name ('ember.FloatTensor') or, given a dtype, a legacy type (ember.DoubleTensor) or its name
        ('torch.IntTensor'), a converted tensor (self when it already has that dtype). Raises ValueError for an
        unknown type name."""
        if dtype is None:
            names = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
                     "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                     "bool": "Bool"}
            return f"ember.{names[repr(self.dtype)[6:]]}Tensor"
        from ._legacy_types import legacy_type

        legacy = legacy_type(dtype)
        if legacy is not None:
            return self.to(legacy)
        if isinstance(dtype, str):
            raise ValueError(f"invalid type: '{dtype}'")
        return self.to(dtype)

    def where(self, condition, other):
        """self where condition is True, else other (ember.where(condition, self, other))."""
        return _C._functions["where"](condition, self, other)

    def polygamma(self, n):
        """ember.polygamma(n, self): the n-th derivative of digamma (PyTorch's method puts self first)."""
        return _C._functions["polygamma"](n, self)

    def polygamma_(self, n):
        """polygamma(n, self) written into self. Errors: a self whose dtype cannot hold the floating result."""
        return _C._functions["polygamma"](n, self, out=self)

    def prelu(self, weight):
        """ember.prelu(self, weight): self where > 0, else weight * self (weight: 1 or self.size(1) slopes)."""
        from ._attention import prelu
        return prelu(self, weight)

    def type_as(self, other):
        """self converted to other's dtype."""
        return self.to(other.dtype)

    def float(self):
        return self.to(_C.float32)

    def double(self):
        return self.to(_C.float64)

    def half(self):
        return self.to(_C.float16)

    def cfloat(self):
        return self.to(_C.complex64)

    def cdouble(self):
        return self.to(_C.complex128)

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

    # ---- attributes of the device, layout and storage (Ember's tensors are dense, on the CPU, unpinned)
    @property
    def is_cpu(self):
        """True: every Ember tensor lives in CPU memory."""
        return True

    @property
    def layout(self):
        """``ember.strided``: Ember's tensors are dense with strides (no sparse layouts)."""
        from ._layout import strided

        return strided

    is_mkldnn = is_nested = is_ort = property(lambda self: False, doc="False: Ember has no such tensors.")

    @property
    def volatile(self):
        """False, as PyTorch's deprecated attribute (use ``ember.no_grad()``)."""
        import warnings

        warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
        return False

    def get_device(self):
        """-1, PyTorch's answer for a CPU tensor (a CUDA tensor would give its ordinal)."""
        return -1

    def is_pinned(self):
        """False: Ember allocates no page-locked memory (it has no accelerator to transfer to)."""
        return False

    def pin_memory(self):
        """Raises NotImplementedError as PyTorch does without an accelerator: pinned memory only speeds transfers to
        one, and Ember has none."""
        raise NotImplementedError("pin_memory: pinned memory needs an accelerator, and this build of Ember supports "
                                  "only cpu")

    def is_distributed(self):
        """False, as PyTorch's for every dense tensor (Ember has no distributed tensors)."""
        return False

    def is_shared(self):
        """Whether the tensor's memory is shared between processes: True after ``share_memory_()`` (for the tensor
        and the views made of it since), for tensors received through ``ember.multiprocessing`` and for their
        views; False for ordinary, private memory."""
        from ._shared_memory import segment_of

        return segment_of(self) is not None

    def share_memory_(self):
        """Moves the tensor's values into shared memory, which child processes (``ember.multiprocessing``) map
        too: what one process writes there, the others see. A no-op when the tensor is already shared. Returns
        self.

        The memory is a file in /dev/shm whose name is removed at once (nothing is left behind, even when the
        process is killed); self keeps its dtype, sizes, strides and storage offset and is re-pointed at the new
        memory, so the object a module holds as a parameter is the one that becomes shared. Unlike PyTorch, which
        moves the storage in place, views of self made BEFORE the call keep the old, private memory; views made
        after it share. A leaf that requires grad is fine (its grad, allocated later, stays private).

        Raises:
            OSError: the shared memory cannot be allocated (/dev/shm full).
        """
        from ._shared_memory import share_

        return share_(self)

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        """Raises AssertionError, as PyTorch built without CUDA: Ember runs on the CPU only."""
        raise AssertionError("Ember not compiled with CUDA enabled")

    def to_dense(self, dtype=None):
        """self (a dense tensor is its own dense form), converted to dtype when given."""
        return self if dtype is None else self.to(dtype)

    # ---- predicates
    def is_complex(self):
        """Whether the dtype is a complex type."""
        return self.dtype.is_complex

    def is_conj(self):
        """Always False: Ember's conjugates are copies, never lazy (PyTorch's conj() of a complex tensor sets a
        conjugate bit that makes it True)."""
        return False

    def is_neg(self):
        """Always False: Ember has no lazy negation."""
        return False

    # ---- complex parts: views of the real dtype (see ember.view_as_real)
    @property
    def real(self):
        """The real parts of a complex tensor as a view of its real dtype; a real tensor itself."""
        return _C._functions["real"](self)

    @real.setter
    def real(self, value):
        _C._functions["real"](self).copy_(value)

    @property
    def imag(self):
        """The imaginary parts of a complex tensor as a view of its real dtype. Raises RuntimeError for real
        dtypes, as PyTorch."""
        return _C._functions["imag"](self)

    @imag.setter
    def imag(self, value):
        _C._functions["imag"](self).copy_(value)

    def __complex__(self):
        return complex(self.item())

    def is_signed(self):
        """Whether the dtype is signed (every dtype but uint8 and bool)."""
        return self.dtype.is_signed

    def is_nonzero(self):
        """The truth of a one-element tensor (see ember.is_nonzero). Raises RuntimeError for other sizes."""
        from .functional import is_nonzero

        return is_nonzero(self)

    def is_same_size(self, other):
        """Whether self and other have the same sizes."""
        return self.shape == other.shape

    # ---- conjugate transposes: for real dtypes the plain transposes
    @property
    def H(self):
        """The conjugate transpose of a matrix (2-D tensor). Raises RuntimeError for other ranks, as PyTorch."""
        if self.dim() != 2:
            raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.dim()}-D tensor."
                               + (" For batches of matrices, consider using tensor.mH" if self.dim() > 2 else ""))
        return self.mH

    @property
    def mH(self):
        """The conjugate transpose of the last two dimensions (mT for real dtypes). Raises RuntimeError below 2-D."""
        if self.dim() < 2:
            raise RuntimeError("tensor.mH is only supported on matrices or batches of matrices. Got "
                               f"{self.dim()}-D tensor.")
        return self.mT.conj() if self.is_complex() else self.mT

    def adjoint(self):
        """The conjugate transpose of the last two dimensions, as ``mH``."""
        return self.mH

    # ---- Python callables over the elements (CPU only in PyTorch too)
    def apply_(self, callable):
        """Replaces every element x by callable(x), in place, and returns self (slow: one Python call each).
        Raises TypeError when callable returns something that is not a real number, as PyTorch."""
        return self._write_elements([callable(v) for v in self.reshape(-1).tolist()])

    def _write_elements(self, values):
        for v in values:
            if not isinstance(v, (int, float)):  # bool is an int
                raise TypeError(f"must be real number, not {type(v).__name__}")
        self.copy_(_C.tensor(values, dtype=self.dtype).view(self.shape))
        return self

    def map_(self, tensor, callable):
        """self[i] = callable(self[i], tensor[i]) in place, tensor broadcast to self's shape; returns self."""
        other = tensor.expand(self.shape).reshape(-1).tolist()
        return self._write_elements([callable(a, b) for a, b in zip(self.reshape(-1).tolist(), other)])

    def map2_(self, x, y, callable):
        """self[i] = callable(self[i], x[i], y[i]) in place, x and y broadcast to self's shape; returns self."""
        xs = x.expand(self.shape).reshape(-1).tolist()
        ys = y.expand(self.shape).reshape(-1).tolist()
        return self._write_elements([callable(a, b, c) for a, b, c in zip(self.reshape(-1).tolist(), xs, ys)])

    def sum_to_size(self, *size):
        """self summed to ``size``, the reverse of ``expand``: over the leading dims self has beyond size and over
        the dims where size is 1 (keeping them). Raises RuntimeError when size is not expandable to self's shape."""
        if len(size) == 1 and isinstance(size[0], (tuple, list)):
            size = tuple(size[0])
        if not all(isinstance(s, int) for s in size):
            raise TypeError(f"sum_to_size(): argument 'size' (position 1) must be tuple of ints, not "
                            f"{type(size[0] if len(size) == 1 else size).__name__}")
        size = tuple(size)
        lead = self.dim() - len(size)
        ok = lead >= 0 and all(s == 1 or s == d for s, d in zip(size, self.shape[lead:]))
        if not ok:
            raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(self.shape)}}}.")
        r = self.sum(tuple(range(lead))) if lead else self
        dims = tuple(i for i, (s, d) in enumerate(zip(size, r.shape)) if s == 1 and d != 1)
        return r.sum(dims, keepdim=True) if dims else r

    # ---- legacy constructor
    def new(self, *args):
        """PyTorch's legacy ``x.new(...)``: no arguments, an empty tensor; sizes (ints or a Size), an uninitialised
        tensor; a sequence, a copy of it; a tensor of self's dtype, that tensor itself (an alias, as PyTorch); all of
        self's dtype. Raises TypeError for a tensor of another dtype, as PyTorch."""
        if not args:
            return _C._functions["empty"]((0,), dtype=self.dtype)
        if len(args) == 1 and isinstance(args[0], _C._TensorBase):
            if args[0].dtype != self.dtype:
                raise TypeError(f"new(): expected a tensor of dtype {self.dtype}, got {args[0].dtype}")
            return args[0].detach()
        if all(isinstance(a, int) for a in args) or (len(args) == 1 and isinstance(args[0], Size)):
            size = args[0] if isinstance(args[0], Size) else args
            return _C._functions["empty"](tuple(size), dtype=self.dtype)
        if len(args) == 1:
            return _C.tensor(args[0], dtype=self.dtype)
        raise TypeError(f"new(): invalid arguments {args!r}")

    def new_empty_strided(self, size, stride, dtype=None, device=None, requires_grad=False):
        """An uninitialised tensor with the given size and stride, of self's dtype (or dtype)."""
        return _C._functions["empty_strided"](size, stride, dtype=self.dtype if dtype is None else dtype,
                                              requires_grad=requires_grad)

    # ---- deprecated out-of-place resizes (PyTorch's Python Tensor.resize / resize_as)
    def resize(self, *sizes):
        """Deprecated (warns): self reshaped to sizes, which must hold as many elements; a view of self when it is
        contiguous, else of a contiguous copy. Differentiable. Raises RuntimeError for another element count."""
        import warnings

        warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
        return self._autograd_resize(sizes[0] if len(sizes) == 1 and not isinstance(sizes[0], int) else sizes)

    def resize_as(self, tensor):
        """Deprecated (warns): ``self.resize(tensor.size())`` without a second warning."""
        import warnings

        warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
        return self._autograd_resize(tensor.size())

    def _autograd_resize(self, sizes):
        sizes = tuple(int(s) for s in sizes)
        numel = math.prod(sizes)
        if numel != self.numel():
            raise RuntimeError(f"requested resize to {'x'.join(map(str, sizes))} ({numel} elements in total), but the "
                               f"given tensor has a size of {'x'.join(map(str, self.size()))} ({self.numel()} "
                               "elements). autograd's resize can only change the shape of a given tensor, while "
                               "preserving the number of elements. ")
        return self.contiguous().view(sizes)

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
