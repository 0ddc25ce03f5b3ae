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
    complex64,
    complex128,
    channels_last,
    channels_last_3d,
    contiguous_format,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    legacy_contiguous_format,
    preserve_format,
    uint8,
)
from ._C import Generator, default_generator  # noqa: F401  (re-exported)
from ._size import Size
from ._tensor import Tensor
from ._tensor_str import set_printoptions
from ._dtype_info import finfo, iinfo

__version__ = "0.1.0"

# PyTorch's dtype aliases.
half = float16
float = float32  # noqa: A001  (as torch.float)
double = float64
short = int16
int = int32  # noqa: A001
long = int64
cfloat = complex64
cdouble = complex128

_C._set_tensor_class(Tensor)
_C._set_size_class(Size)

# Every op of the database that is a function becomes ember.<name>, except those PyTorch keeps private
# (torch/__init__.py's PRIVATE_OPS: unique_dim is reached through ember.unique(dim=...)).
_PRIVATE_OPS = ("unique_dim",)
globals().update({k: v for k, v in _C._functions.items() if k not in _PRIVATE_OPS})

from . import autograd  # noqa: E402  (ember.autograd.grad, ...)
from .autograd import no_grad, enable_grad, set_grad_enabled, inference_mode  # noqa: E402,F401
from ._C import is_grad_enabled, is_inference_mode_enabled  # noqa: E402,F401
from ._C import is_anomaly_enabled, is_anomaly_check_nan_enabled  # noqa: E402,F401
from ._C import _set_anomaly_enabled as set_anomaly_enabled  # noqa: E402,F401  (as torch.set_anomaly_enabled)
from . import utils  # noqa: E402,F401  (ember.utils.hooks)
from . import backends  # noqa: E402  (ember.backends.blas.enabled, ...)
from . import linalg  # noqa: E402  (ember.linalg.vector_norm, as torch.linalg)
from . import special  # noqa: E402  (ember.special.erfcx, ..., as torch.special)
from . import fft  # noqa: E402  (ember.fft.rfft, ..., as torch.fft)
from . import nn  # noqa: E402  (ember.nn, as torch.nn after `import torch`)
from . import optim  # noqa: E402  (ember.optim, as torch.optim)
from . import random  # noqa: E402  (after the ops: ember.random is the module, as torch.random)
from .serialization import load, save  # noqa: E402  (ember.save / ember.load)
from .random import fork_rng, get_rng_state, initial_seed, manual_seed, seed, set_rng_state  # noqa: E402,F401
from . import jit  # noqa: E402  (ember.jit.trace, as torch.jit)
from ._ops import ops  # noqa: E402  (ember.ops.<ns>.<op>, ember.ops.load_library, as torch.ops)
from . import library  # noqa: E402  (ember.library.custom_op, as torch.library)
from . import cuda  # noqa: E402  (ember.cuda.is_available() is False: PyTorch programs take their CPU path)
from . import testing  # noqa: E402  (ember.testing.assert_close, make_tensor)
from . import profiler  # noqa: E402  (ember.profiler.profile, as torch.profiler)


def __getattr__(name):
    # ember.datasets (Ember's own; PyTorch keeps its datasets in torchvision) is imported on first use, as
    # ember.utils.data is: `import ember; ember.datasets.FashionMNIST()` works without paying for it at import.
    # ember.multiprocessing likewise (importing it registers the reducers that send tensors by shared memory), and
    # ember.distributed (torch.distributed).
    if name in ("datasets", "multiprocessing", "distributed"):
        import importlib

        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# PyTorch's math constants (torch.pi, torch.e, torch.inf, torch.nan).
import math as _math  # noqa: E402

pi, e, inf, nan = _math.pi, _math.e, _math.inf, _math.nan

# The functions written in Python (as torch/functional.py); they replace the ops of the same name above.
from . import functional  # noqa: E402
from .functional import *  # noqa: E402,F401,F403
from ._creation import *  # noqa: E402,F401,F403  (asarray, frombuffer, from_file)
from ._settings import *  # noqa: E402,F401,F403  (deterministic algorithms, typename, is_complex, ...)
from ._lowrank import *  # noqa: E402,F401,F403  (svd_lowrank, pca_lowrank, lobpcg)
from ._attention import *  # noqa: E402,F401,F403  (prelu, rrelu, alpha/feature dropout)
from ._losses import *  # noqa: E402,F401,F403  (kl_div, ctc_loss, embedding_bag, cosine_similarity, ...)
from ._norm import *  # noqa: E402,F401,F403  (instance_norm, grid_sampler*, affine_grid_generator)
from ._rnn import *  # noqa: E402,F401,F403  (lstm, gru, rnn_tanh, rnn_relu and their cells)
from ._layout import layout, strided  # noqa: E402,F401
from ._legacy_types import *  # noqa: E402,F401,F403  (FloatTensor, LongTensor, ...: constructors, isinstance)
from ._dlpack import *  # noqa: E402,F401,F403  (from_dlpack, to_dlpack)
from .jit._annotations import fork, wait  # noqa: E402,F401  (torch.fork / torch.wait: torch.jit's)


__all__ = ["Tensor", "Size", "tensor", "from_numpy", "as_tensor", "is_tensor", "is_nonzero", "finfo", "iinfo",
           "set_printoptions", "Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "fork_rng", "layout", "strided"] + _creation.__all__ + _settings.__all__ + \
    _legacy_types.__all__ + \
    _attention.__all__ + \
    _dlpack.__all__ + ["fork", "wait"] + \
    _losses.__all__ + \
    _norm.__all__ + \
    _rnn.__all__ + \
    sorted(k for k in _C._functions if k not in _PRIVATE_OPS)
