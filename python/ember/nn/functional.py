"""ember.nn.functional: PyTorch 1.13's torch.nn.functional over Ember's ops.

Each function has PyTorch's signature and defaults, does the same argument handling in Python (reduction
strings, ``inplace=``, ``return_indices=``, legacy ``size_average``/``reduce``, the ValueError checks PyTorch
makes before calling its op), then calls the op of the database (``ember/ops/ops_nn.yaml``) of the same name
as PyTorch's ``torch._C._nn`` function. Losses pass their reduction to the ops as an int: 0 none, 1 mean,
2 sum.
"""
import warnings

from .. import _C
from .._tensor import Tensor  # noqa: F401  (torch.nn.functional.Tensor, for annotations)

# The ops of the database by name: those PyTorch keeps in torch._C._nn (hardtanh, mse_loss, ...) live in
# ember._C._nn (python_module: nn), the others (relu, batch_norm, ...) are ember's top-level functions.
_ops = dict(_C._functions)
_ops.update((name, fn) for name, fn in vars(_C._nn).items() if not name.startswith("__"))

__all__ = [
    # activations
    "relu", "relu_", "relu6", "hardtanh", "hardtanh_", "leaky_relu", "leaky_relu_", "elu", "elu_", "selu",
    "selu_", "celu", "celu_", "gelu", "silu", "mish", "hardsigmoid", "hardswish", "hardshrink", "softplus",
    "logsigmoid", "glu", "threshold", "threshold_", "sigmoid", "tanh", "softsign", "tanhshrink", "softmax", "softmin",
    "log_softmax",
    # convolution
    "conv1d", "conv2d",
    # linear, padding, dropout
    "linear", "pad", "dropout",
    # pooling
    "max_pool2d", "max_pool2d_with_indices", "avg_pool2d", "adaptive_avg_pool2d",
    # normalization (the norms themselves are in _functional_norm)
    "normalize",
    # embedding
    "embedding", "one_hot",
    # losses
    "nll_loss", "cross_entropy", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
]


# ---------------------------------------------------------------------------------------------- convolution
# As PyTorch's F.conv1d/F.conv2d, the ops themselves (ember.conv1d, ember.conv2d: ember/ops/ops_conv.yaml):
# (input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1), padding also 'same' or 'valid'.
conv1d = _ops["conv1d"]
conv2d = _ops["conv2d"]

# The spatial functions (3-D and transposed convolutions, pooling, fold, shuffles, interpolate):
from ._functional_spatial import *  # noqa: E402,F401,F403
from ._functional_spatial import __all__ as _spatial_all  # noqa: E402
__all__ += _spatial_all

# Attention (multi-head, scaled dot-product) and the activations and dropouts written in Python:
from ._functional_attention import *  # noqa: E402,F401,F403
from ._functional_attention import __all__ as _attention_all  # noqa: E402
__all__ += _attention_all
# The losses and distances beyond issue 3's (KL, CTC, margin losses, embedding_bag, ...):
from ._functional_loss import *  # noqa: E402,F401,F403
from ._functional_loss import __all__ as _loss_all  # noqa: E402
__all__ += _loss_all
# The norms (batch, instance, layer, group, local response) and grid sampling:
from ._functional_norm import *  # noqa: E402,F401,F403
from ._functional_norm import __all__ as _norm_all  # noqa: E402
__all__ += _norm_all


# ---------------------------------------------------------------------------------------------- helpers
# 'none' / 'mean' / 'sum' as the op's int: PyTorch's _Reduction.get_enum (nn/_reduction.py).
from ._reduction import get_enum as _reduction_enum, legacy_get_string as _legacy_get_string  # noqa: E402


def _legacy_reduction(size_average, reduce, reduction):
    """The reduction string, from the legacy size_average/reduce arguments when either is given (with
    PyTorch's deprecation warning)."""
    if size_average is None and reduce is None:
        return reduction
    return _legacy_get_string(size_average, reduce)


def _broadcast_shape(a, b):
    """The broadcast of two shapes; RuntimeError as PyTorch's when they do not broadcast."""
    a, b = list(a), list(b)
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError("The size of tensor a ({}) must match the size of tensor b ({}) at non-singleton "
                               "dimension {}".format(x, y, i))
        out.append(y if x == 1 else x)
    return out


def _broadcast_pair(input, target):
    """input and target expanded to their common shape (PyTorch's torch.broadcast_tensors), with PyTorch's
    warning when their sizes differ."""
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn("Using a target size ({}) that is different to the input size ({}). This will likely lead to "
                      "incorrect results due to broadcasting. Please ensure they have the same size."
                      .format(target.size(), input.size()), stacklevel=3)
        shape = _broadcast_shape(input.shape, target.shape)
        return input.expand(shape), target.expand(shape)
    return input, target


# ---------------------------------------------------------------------------------------------- activations
def relu(input, inplace=False):
    """max(x, 0), element-wise. See ember.relu."""
    return _ops["relu_"](input) if inplace else _ops["relu"](input)


def relu_(input):
    """In-place relu."""
    return _ops["relu_"](input)


def relu6(input, inplace=False):
    """min(max(x, 0), 6), element-wise."""
    return _ops["relu6_"](input) if inplace else _ops["relu6"](input)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """min(max(x, min_val), max_val), element-wise (integer tensors keep their dtype)."""
    return _ops["hardtanh_"](input, min_val, max_val) if inplace else _ops["hardtanh"](input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place hardtanh."""
    return _ops["hardtanh_"](input, min_val, max_val)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x if x > 0 else negative_slope * x."""
    return _ops["leaky_relu_"](input, negative_slope) if inplace else _ops["leaky_relu"](input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    """In-place leaky_relu."""
    return _ops["leaky_relu_"](input, negative_slope)


def elu(input, alpha=1.0, inplace=False):
    """x if x > 0 else alpha * (exp(x) - 1) (Clevert et al., 2015)."""
    return _ops["elu_"](input, alpha) if inplace else _ops["elu"](input, alpha)


def elu_(input, alpha=1.0):
    """In-place elu."""
    return _ops["elu_"](input, alpha)


def selu(input, inplace=False):
    """scale * elu(x, alpha) with SELU's constants (Klambauer et al., 2017)."""
    return _ops["selu_"](input) if inplace else _ops["selu"](input)


def selu_(input):
    """In-place selu."""
    return _ops["selu_"](input)


def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    return _ops["celu_"](input, alpha) if inplace else _ops["celu"](input, alpha)


def celu_(input, alpha=1.0):
    """In-place celu."""
    return _ops["celu_"](input, alpha)


def gelu(input, approximate="none"):
    """x * Phi(x), or its tanh approximation with approximate='tanh'."""
    return _ops["gelu"](input, approximate=approximate)


def silu(input, inplace=False):
    """x * sigmoid(x)."""
    return _ops["silu_"](input) if inplace else _ops["silu"](input)


def mish(input, inplace=False):
    """x * tanh(softplus(x)) (Misra, 2019)."""
    return _ops["mish_"](input) if inplace else _ops["mish"](input)


def hardsigmoid(input, inplace=False):
    """min(max(x + 3, 0), 6) / 6."""
    return _ops["hardsigmoid_"](input) if inplace else _ops["hardsigmoid"](input)


def hardswish(input, inplace=False):
    """x * min(max(x + 3, 0), 6) / 6 (Howard et al., 2019)."""
    return _ops["hardswish_"](input) if inplace else _ops["hardswish"](input)


def hardshrink(input, lambd=0.5):
    """0 where -lambd <= x <= lambd, else x."""
    return _ops["hardshrink"](input, lambd)


def softplus(input, beta=1, threshold=20):
    """log(1 + exp(beta * x)) / beta, or x where beta * x > threshold."""
    return _ops["softplus"](input, beta, threshold)


def logsigmoid(input):
    """log(sigmoid(x)), computed stably."""
    return _ops["log_sigmoid"](input)


def glu(input, dim=-1):
    """a * sigmoid(b) for the halves a, b of input along dim. Raises RuntimeError for a 0-dim input or an odd
    size along dim."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return _ops["glu"](input, dim)


def threshold(input, threshold, value, inplace=False):
    """x where x > threshold, else value."""
    return _ops["threshold_"](input, threshold, value) if inplace else _ops["threshold"](input, threshold, value)


def threshold_(input, threshold, value):
    """In-place threshold."""
    return _ops["threshold_"](input, threshold, value)


def sigmoid(input):
    """1 / (1 + exp(-x)) (deprecated in PyTorch in favour of ember.sigmoid)."""
    warnings.warn("nn.functional.sigmoid is deprecated. Use torch.sigmoid instead.")
    return input.sigmoid()


def tanh(input):
    """tanh(x) (deprecated in PyTorch in favour of ember.tanh)."""
    warnings.warn("nn.functional.tanh is deprecated. Use torch.tanh instead.")
    return input.tanh()


def softsign(input):
    """x / (1 + |x|)."""
    return input / (input.abs() + 1)


def tanhshrink(input):
    """x - tanh(x)."""
    return input - input.tanh()


def _get_softmax_dim(name, ndim, stacklevel):
    warnings.warn("Implicit dimension choice for {} has been deprecated. Change the call to include dim=X as an "
                  "argument.".format(name), stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(x) / sum(exp(x)) along dim (computed stably); dtype converts the input first."""
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return input.softmax(dim) if dtype is None else input.softmax(dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x) along dim: exp(-x) / sum(exp(-x)), computed stably; dtype converts the input first."""
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    return (-input).softmax(dim) if dtype is None else (-input.to(dtype)).softmax(dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """log(softmax(x)) along dim (computed stably); dtype converts the input first."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return input.log_softmax(dim) if dtype is None else input.log_softmax(dim, dtype=dtype)


# ---------------------------------------------------------------------------------------------- pooling
def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """2-D max pooling of (N, C, H, W) or (C, H, W) input, with the flat indices (h * W + w) of the maxima.

    Returns:
        (values, indices): indices are int64.
    """
    if stride is None:
        stride = []
    return _ops["max_pool2d_with_indices"](input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """2-D max pooling of (N, C, H, W) or (C, H, W) input.

    Args:
        kernel_size, stride (default: kernel_size), padding (at most half the kernel; pads with -inf),
        dilation: an int or a pair (H, W).
        ceil_mode: round the output size up (a window must still start inside the input or left padding).
        return_indices: also return the int64 flat indices h * W + w of the maxima.
    Raises:
        RuntimeError: a kernel, stride or dilation below 1, padding above half the kernel, an output size
        below 1, or an input that is not 3-D or 4-D.
    """
    if return_indices:
        return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    if stride is None:
        stride = []
    return _ops["max_pool2d"](input, kernel_size, stride, padding, dilation, ceil_mode)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """2-D average pooling of (N, C, H, W) or (C, H, W) input; the zero padding counts in the divisor when
    count_include_pad, and divisor_override replaces the divisor."""
    if stride is None:
        stride = []
    return _ops["avg_pool2d"](input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def _list_with_default(out_size, defaults):
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError("Input dimension should be at least {}".format(len(out_size) + 1))
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


def adaptive_avg_pool2d(input, output_size):
    """Average pooling of (N, C, H, W) or (C, H, W) input to the size output_size (an int, or a pair whose
    None entries keep the input's size)."""
    return _ops["adaptive_avg_pool2d"](input, _list_with_default(output_size, list(input.shape)))


# ---------------------------------------------------------------------------------------------- normalization
def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p over dim, eps)."""
    if out is None:
        denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
        return input / denom
    denom = input.norm(p, dim, keepdim=True).clamp_min_(eps).expand_as(input)
    return _ops["div"](input, denom, out=out)


# ---------------------------------------------------------------------------------------------- embedding
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """The rows of weight (num_embeddings, D) at the int64/int32 indices input: shape input.shape + (D,).
    With max_norm, the rows looked up whose norm exceeds it are first rescaled in weight, in place.

    Raises:
        IndexError: an index out of [0, num_embeddings).
    """
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        input = input.contiguous()
        # The rescaling is not part of the graph (as PyTorch's): it may modify a weight that requires grad.
        from ..autograd import no_grad
        with no_grad():
            _ops["embedding_renorm_"](weight, input, max_norm, norm_type)
    return _ops["embedding"](weight, input, padding_idx, scale_grad_by_freq, sparse)


def one_hot(tensor, num_classes=-1):
    """int64 one-hot encoding of an int64 tensor: shape tensor.shape + (num_classes,); -1 infers max + 1."""
    return _ops["one_hot"](tensor, num_classes)


# ---------------------------------------------------------------------------------------------- losses
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """Negative log likelihood of log-probabilities input (C), (N, C) or (N, C, d1, ...) at class indices
    target (), (N) or (N, d1, ...); targets equal to ignore_index do not count, and the mean divides by the
    sum of the weights of the targets that count."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _ops["nll_loss_nd"](input, target, weight, _reduction_enum(reduction), ignore_index)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """Cross entropy between logits input (C), (N, C) or (N, C, d1, ...) and class indices target (as
    nll_loss(log_softmax(input, 1), target)) or class probabilities of input's shape; label_smoothing mixes
    the target with the uniform distribution."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _ops["cross_entropy_loss"](input, target, weight, _reduction_enum(reduction), ignore_index,
                                      label_smoothing)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """(input - target)^2, reduced."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    input, target = _broadcast_pair(input, target)
    return _ops["mse_loss"](input, target, _reduction_enum(reduction))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """|input - target|, reduced."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    input, target = _broadcast_pair(input, target)
    return _ops["l1_loss"](input, target, _reduction_enum(reduction))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 z^2 / beta where z = |input - target| < beta, else z - 0.5 beta; reduced."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    input, target = _broadcast_pair(input, target)
    return _ops["smooth_l1_loss"](input, target, _reduction_enum(reduction), beta)


def huber_loss(input, target, reduction="mean", delta=1.0):
    """0.5 z^2 where z = |input - target| < delta, else delta (z - 0.5 delta); reduced."""
    input, target = _broadcast_pair(input, target)
    return _ops["huber_loss"](input, target, _reduction_enum(reduction), delta)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-weight (target log(input) + (1 - target) log(1 - input)), each log clamped at -100; reduced.

    Raises:
        ValueError: target's size differs from input's.
        RuntimeError: an input value outside [0, 1].
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError("Using a target size ({}) that is different to the input size ({}) is deprecated. Please "
                         "ensure they have the same size.".format(target.size(), input.size()))
    if weight is not None:
        weight = weight.expand(_broadcast_shape(target.shape, weight.shape))
    return _ops["binary_cross_entropy"](input, target, weight, _reduction_enum(reduction))


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    """binary_cross_entropy(sigmoid(input), target) computed stably from the logits; pos_weight weighs the
    positive term (broadcast over the classes of the last dim).

    Raises:
        ValueError: target's size differs from input's.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError("Target size ({}) must be the same as input size ({})".format(target.size(), input.size()))
    return _ops["binary_cross_entropy_with_logits"](input, target, weight, pos_weight, _reduction_enum(reduction))


# ---------------------------------------------------------------------------------------------- linear
def linear(input, weight, bias=None):
    r"""Applies ``input @ weight.T + bias``.

    Args:
        input (Tensor): (*, in_features), at least 1-D.
        weight (Tensor): (out_features, in_features), or (in_features) for a result without that dim.
        bias (Tensor, optional): broadcastable to (*, out_features).

    Shape:
        Returns (*, out_features); without out_features when weight is 1-D.

    Raises:
        RuntimeError: shapes that cannot be multiplied, or operands of different dtypes.
    """
    return _ops["linear"](input, weight, bias)


# ---------------------------------------------------------------------------------------------- padding
def pad(input, pad, mode="constant", value=None):
    r"""Pads a tensor.

    ``pad`` lists (before, after) amounts starting from the LAST dimension: ``(left, right)`` pads dim -1,
    ``(left, right, top, bottom)`` also dim -2, and so on for ``len(pad) // 2`` dims. Negative amounts crop.

    Args:
        input (Tensor): the tensor to pad.
        pad (tuple of ints): the (before, after) pairs, last dim first; an even length of at most
            ``2 * input.dim()``.
        mode (str): ``'constant'`` (fill with ``value``), ``'reflect'`` (mirror about the edges, the edge
            element not repeated), ``'replicate'`` (repeat the edge elements) or ``'circular'`` (wrap around).
            Default: ``'constant'``.
        value (float, optional): the fill value of ``'constant'`` mode (0 when None), converted to the dtype
            of input. Other modes take no value.

    Shape:
        - constant: any input; the padded dims grow by before + after.
        - reflect, replicate: 1, 2 or 3 padded dims for inputs of 2-3, 3-4 or 4-5 dims ((C, W) or (N, C, W);
          (C, H, W) or (N, C, H, W); (C, D, H, W) or (N, C, D, H, W)).
        - circular: (N, C, W), (N, C, H, W) or (N, C, D, H, W) with 1, 2 or 3 padded dims.

    Returns:
        Tensor: a new tensor of the dtype of input.

    Raises:
        RuntimeError: an odd ``len(pad)`` or one above ``2 * input.dim()``; a value with a non-constant mode;
            a reflect pad not smaller than the size it pads; a circular pad larger than it; a result size
            below 1 where PyTorch forbids one.
        NotImplementedError: an unknown mode, or a rank that the mode does not support.
    """
    return _C._nn.pad(input, pad, mode, value)


# ---------------------------------------------------------------------------------------------- dropout
def dropout(input, p=0.5, training=True, inplace=False):
    """Zeroes each element with probability p and scales the rest by 1 / (1 - p) when training; the input
    unchanged (the same tensor) otherwise. Draws from the default generator as PyTorch's CPU dropout does,
    so a seed reproduces PyTorch's mask.

    Raises ValueError for p outside [0, 1], as PyTorch's torch.nn.functional.dropout.
    """
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
    return _ops["dropout_"](input, p, training) if inplace else _ops["dropout"](input, p, training)
