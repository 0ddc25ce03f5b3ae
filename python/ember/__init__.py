"""Ember: a deep-learning framework with PyTorch's architecture, written in C++.

Run PyTorch-style programs with ``import ember as torch`` and attribute access (``torch.nn``,
``torch.float32``). Tensors, dtypes, factories and the ops of the op database are exported here; every op
function is generated from the same database as the C++ API (``ember._C._functions``).
"""
from . import _C
from ._C import (  # noqa: F401  (re-exported)
    can_cast,
    device,
    dtype,
    empty_cache,
    from_numpy,
    get_default_dtype,
    get_num_threads,
    memory_format,
    memory_stats,
    promote_types,
    reset_peak_memory_stats,
    result_type,
    set_caching_allocator_enabled,
    set_default_dtype,
    set_num_threads,
    tensor,
)
from ._C import (  # noqa: F401  dtypes and memory formats
    bfloat16,
    bool,
    contiguous_format,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    preserve_format,
    uint8,
)
from ._size import Size
from ._tensor import Tensor
from ._tensor_str import set_printoptions

__version__ = "0.1.0"

# PyTorch's dtype aliases.
half = float16
float = float32  # noqa: A001  (as torch.float)
double = float64
short = int16
int = int32  # noqa: A001
long = int64

_C._set_tensor_class(Tensor)
_C._set_size_class(Size)

# Every op of the database that is a function becomes ember.<name>.
globals().update(_C._functions)

from . import nn  # noqa: E402  (ember.nn.functional uses the ops above)


def is_tensor(obj):
    """True when obj is an ember.Tensor."""
    return isinstance(obj, Tensor)


def numel(input):
    """Number of elements of input."""
    return input.numel()


def is_floating_point(input):
    """True when input's dtype is a floating type."""
    return input.dtype.is_floating_point


__all__ = ["Tensor", "Size", "tensor", "from_numpy", "is_tensor", "set_printoptions"] + sorted(_C._functions)
