"""Process-wide settings and predicates of PyTorch's top-level namespace that are plain Python there too:
deterministic algorithms, warn-always, float32 matmul precision, the default tensor type, typename, and the
predicates is_complex / is_signed / is_same_size / is_inference / is_storage / is_distributed."""
import builtins

from . import _C

__all__ = ["adjoint", "are_deterministic_algorithms_enabled", "get_device", "is_complex", "is_conj", "is_neg",
           "is_deterministic_algorithms_warn_only_enabled", "is_distributed", "is_inference", "is_same_size",
           "is_signed", "is_storage", "is_vulkan_available", "is_warn_always_enabled", "get_float32_matmul_precision",
           "get_num_interop_threads", "set_flush_denormal", "set_num_interop_threads",
           "set_default_tensor_type", "set_float32_matmul_precision", "set_warn_always", "typename",
           "use_deterministic_algorithms"]

_deterministic = {"enabled": False, "warn_only": False}
_warn_always = [False]
_matmul_precision = ["highest"]
_interop_threads = [None]


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Asks for deterministic algorithms only (PyTorch's switch). Every CPU kernel of Ember is deterministic (its
    parallel reductions have a fixed order, Note [vectorized sums]), so no op raises or warns in this mode; the
    setting is kept for ``are_deterministic_algorithms_enabled``. Raises TypeError for a non-bool mode."""
    if not isinstance(mode, builtins.bool) or not isinstance(warn_only, builtins.bool):
        raise TypeError(f"use_deterministic_algorithms(): expected bool, but got {type(mode).__name__}")
    _deterministic.update(enabled=mode, warn_only=warn_only)


def are_deterministic_algorithms_enabled():
    """Whether ``use_deterministic_algorithms(True)`` is in effect."""
    return _deterministic["enabled"]


def is_deterministic_algorithms_warn_only_enabled():
    """Whether deterministic mode was asked for with ``warn_only=True``."""
    return _deterministic["warn_only"]


def set_warn_always(b):
    """Whether warnings that PyTorch gives once per process are given every time (kept for is_warn_always_enabled;
    Ember's Python warnings go through the ``warnings`` module, whose filters decide repetition)."""
    _warn_always[0] = builtins.bool(b)


def is_warn_always_enabled():
    """The value set by ``set_warn_always`` (False by default)."""
    return _warn_always[0]


def set_float32_matmul_precision(precision):
    """Sets the float32 matrix-product precision: 'highest', 'high' or 'medium' (PyTorch's switch for TF32 and
    bfloat16 passes on GPUs). Ember's CPU GEMMs always compute in float32 ('highest' in effect whatever is set).
    Another value warns and changes nothing, as PyTorch."""
    if precision not in ("highest", "high", "medium"):
        import warnings

        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      "set_float32_matmul_precision call has no effect.", stacklevel=2)
        return
    _matmul_precision[0] = precision


def get_float32_matmul_precision():
    """The value set by ``set_float32_matmul_precision`` ('highest' by default)."""
    return _matmul_precision[0]


_LEGACY_FLOAT_TYPES = {"FloatTensor": "float32", "DoubleTensor": "float64", "HalfTensor": "float16",
                       "BFloat16Tensor": "bfloat16"}


def set_default_tensor_type(t):
    """Sets the default floating dtype from a legacy tensor type name ('torch.DoubleTensor', 'ember.FloatTensor')
    or a class with such a name, as ``set_default_dtype``. Raises TypeError for a non-floating type."""
    name = t if isinstance(t, str) else getattr(t, "__name__", repr(t))
    short = name.rsplit(".", 1)[-1]
    if short not in _LEGACY_FLOAT_TYPES:
        raise TypeError(f"only floating-point types are supported as the default type (got {name})")
    _C.set_default_dtype(getattr(_C, _LEGACY_FLOAT_TYPES[short]))


def typename(obj):
    """The type name of obj: a tensor's legacy type ('ember.FloatTensor'), else the dotted module path and
    qualified name of a class or function ('ember.nn.modules.linear.Linear'), or of an instance's class; builtins
    without their module ('int')."""
    if isinstance(obj, _C._TensorBase):
        return obj.type()
    named = obj if hasattr(obj, "__qualname__") or hasattr(obj, "__name__") else type(obj)
    name = getattr(named, "__qualname__", None) or getattr(named, "__name__", type(obj).__name__)
    module = getattr(obj, "__module__", None)
    return name if module in (None, "builtins") else f"{module}.{name}"


def is_complex(input):
    """Whether input's dtype is complex."""
    return input.dtype.is_complex


def is_conj(input):
    """Always False: Ember's conjugates are copies, never lazy (see Tensor.is_conj)."""
    return False


def is_neg(input):
    """Always False: Ember has no lazy negation."""
    return False


def is_signed(input):
    """Whether input's dtype is signed (every dtype but uint8 and bool)."""
    return input.dtype.is_signed


def is_same_size(input, other):
    """Whether input and other have the same sizes."""
    return input.shape == other.shape


def is_inference(input):
    """Whether input was made in inference mode (``Tensor.is_inference``)."""
    return input.is_inference()


def is_storage(obj):
    """False: Ember exposes no storage objects (tensors are the only holders of memory)."""
    return False


def is_distributed(input):
    """False: no tensor of Ember is distributed."""
    return False


def adjoint(input):
    """The conjugate transpose of input's last two dimensions (``Tensor.adjoint``)."""
    return input.adjoint()


def get_device(input):
    """-1 for a CPU tensor (``Tensor.get_device``)."""
    return input.get_device()


def is_vulkan_available():
    """False: Ember has no Vulkan backend."""
    return False


def get_num_interop_threads():
    """The number of inter-op threads (PyTorch's pool for running independent ops at once, e.g. jit forks):
    the value given to ``set_num_interop_threads``, else ``get_num_threads()``. Ember runs ops one at a time on
    its intra-op pool, so the number is recorded, not used."""
    return _interop_threads[0] if _interop_threads[0] is not None else _C.get_num_threads()


def set_num_interop_threads(nthreads):
    """Sets the number of inter-op threads, once per process as in PyTorch (see get_num_interop_threads).

    Raises:
        RuntimeError: nthreads < 1; a second call (PyTorch aborts the process there).
    """
    if isinstance(nthreads, builtins.bool) or not isinstance(nthreads, builtins.int):
        raise TypeError(f"set_num_interop_threads(): argument 'num' must be int, not {type(nthreads).__name__}")
    if nthreads <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if _interop_threads[0] is not None:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started or "
                           "set_num_interop_threads called")
    _interop_threads[0] = nthreads


def set_flush_denormal(mode):
    """Turns flushing of denormal floats to zero on or off (the CPU's FTZ and DAZ modes) for the calling
    thread, as PyTorch; returns whether the CPU supports it (True on x86-64)."""
    if not isinstance(mode, builtins.bool):
        raise TypeError(f"set_flush_denormal(): argument 'mode' must be bool, not {type(mode).__name__}")
    return _C._set_flush_denormal(mode)
