"""ember.nn.init: in-place initialisations of tensors (PyTorch 1.13's torch.nn.init).

Each function fills its tensor under no_grad with the default generator's uniform_/normal_ streams, which
are PyTorch's CPU streams: after ``ember.manual_seed(s)`` a tensor initialised here equals PyTorch's
bit for bit (the bounds are computed with the same Python float arithmetic as PyTorch's).
"""
import math
import warnings

from .. import _C
from ..autograd import no_grad

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_", "dirac_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "sparse_",
           # deprecated aliases (each warns and calls the in-place form)
           "uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal", "kaiming_uniform",
           "kaiming_normal", "orthogonal", "sparse"]


def calculate_gain(nonlinearity, param=None):
    r"""The recommended gain for a nonlinearity: 1 for linear/conv/sigmoid, 5/3 for tanh, sqrt(2) for relu,
    sqrt(2 / (1 + slope^2)) for leaky_relu (param is the slope, default 0.01), 3/4 for selu.

    Raises:
        ValueError: an unknown nonlinearity or a slope that is no number.
    """
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif (not isinstance(param, bool) and isinstance(param, int)) or isinstance(param, float):
            negative_slope = param
        else:
            raise ValueError("negative_slope {} not a valid number".format(param))
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError("Unsupported nonlinearity {}".format(nonlinearity))


def _calculate_fan_in_and_fan_out(tensor):
    """(fan_in, fan_out) of a weight (out, in, *kernel): in and out times the kernel's element count.

    Raises ValueError for a tensor of fewer than 2 dims."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field = 1
    for s in tensor.shape[2:]:
        receptive_field *= s
    return tensor.size(1) * receptive_field, tensor.size(0) * receptive_field


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError("Mode {} not supported, please use one of {}".format(mode, valid_modes))
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0):
    """Fills tensor with values drawn from U(a, b). Returns tensor."""
    with no_grad():
        return tensor.uniform_(a, b)


def normal_(tensor, mean=0.0, std=1.0):
    """Fills tensor with values drawn from N(mean, std^2). Returns tensor."""
    with no_grad():
        return tensor.normal_(mean, std)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0):
    r"""Fills tensor with values drawn from N(mean, std^2) truncated to [a, b], by inverting the normal CDF
    at uniform draws: u ~ U(2 Phi((a - mean) / std) - 1, 2 Phi((b - mean) / std) - 1), then
    mean + std * sqrt(2) * erfinv(u), clamped to [a, b] (the draws and arithmetic PyTorch makes, so a seed gives
    its values). Warns when mean is more than 2 std outside [a, b], where the method loses accuracy.
    Returns tensor."""
    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may "
                      "be incorrect.", stacklevel=2)
    with no_grad():
        low = norm_cdf((a - mean) / std)
        high = norm_cdf((b - mean) / std)
        tensor.uniform_(2 * low - 1, 2 * high - 1)
        tensor.erfinv_()
        tensor.mul_(std * math.sqrt(2.0))
        tensor.add_(mean)
        tensor.clamp_(min=a, max=b)
        return tensor


def constant_(tensor, val):
    """Fills tensor with val. Returns tensor."""
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    """Fills tensor with 1. Returns tensor."""
    return constant_(tensor, 1.0)


def zeros_(tensor):
    """Fills tensor with 0. Returns tensor."""
    with no_grad():
        return tensor.zero_()


def eye_(tensor):
    """Fills a 2-D tensor with the identity matrix (ones on the diagonal). Returns tensor.

    Raises ValueError for a tensor that is not 2-D."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        return tensor.copy_(_C._functions["eye"](tensor.size(0), tensor.size(1), dtype=tensor.dtype))


def dirac_(tensor, groups=1):
    r"""Fills a 3-, 4- or 5-D convolution weight (out, in, *kernel) with the Dirac delta: the convolution then
    copies its input channels (channel d of each of the groups to output channel d of the group), as far as
    there are output channels per group and input channels. Returns tensor.

    Raises:
        ValueError: a tensor of another rank, or out not divisible by groups.
    """
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = list(tensor.shape)
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = sizes[0] // groups
    min_dim = min(out_per_group, sizes[1])
    center = tuple(s // 2 for s in sizes[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min_dim):
                tensor[(g * out_per_group + d, d) + center] = 1
    return tensor


def xavier_uniform_(tensor, gain=1.0):
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio, 2010). Returns tensor."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a)


def xavier_normal_(tensor, gain=1.0):
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)). Returns tensor."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std)


def _kaiming_std(tensor, a, mode, nonlinearity):
    """gain / sqrt(fan) of kaiming_*, or None (with PyTorch's warning) for a zero-element tensor."""
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op")
        return None
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    r"""U(-bound, bound) with bound = gain * sqrt(3 / fan) (He et al., 2015).

    Args:
        a: the negative slope of the leaky_relu that follows (only for 'leaky_relu').
        mode: 'fan_in' (keeps the forward variance) or 'fan_out' (the backward's).
        nonlinearity: the name for calculate_gain ('relu' or 'leaky_relu' recommended).
    Returns tensor (a zero-element tensor unchanged, with a warning).
    """
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    """N(0, std^2) with std = gain / sqrt(fan) (see kaiming_uniform_). Returns tensor."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return normal_(tensor, 0.0, std)


def orthogonal_(tensor, gain=1):
    r"""Fills tensor (at least 2-D, seen as rows = size(0) by the product of the other sizes) with a
    (semi-)orthogonal matrix times gain (Saxe et al., 2013): the Q of the QR decomposition of a standard normal
    matrix (of its transpose when there are fewer rows than columns), with the signs that make R's diagonal
    positive. A zero-element tensor is returned unchanged. Returns tensor.

    Raises:
        ValueError: a tensor of fewer than 2 dims.
    """
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    from .. import linalg
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flattened = _C._functions["empty"]((rows, cols), dtype=tensor.dtype).normal_(0, 1)
    if rows < cols:
        flattened = flattened.t()
    q, r = linalg.qr(flattened)
    q = q * r.diagonal().sign()
    if rows < cols:
        q = q.t()
    with no_grad():
        tensor.view_as(q).copy_(q)
        tensor.mul_(gain)
    return tensor


def sparse_(tensor, sparsity, std=0.01):
    r"""Fills a 2-D tensor (rows, cols) as a sparse matrix (Martens, 2010): values from N(0, std^2), then in
    each column ceil(sparsity * rows) rows, chosen by a random permutation, set to 0. Returns tensor.

    Raises:
        ValueError: a tensor that is not 2-D.
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    randperm = _C._functions["randperm"]
    with no_grad():
        tensor.normal_(0, std)
        for col_idx in range(cols):
            zero_indices = randperm(rows)[:num_zeros]
            tensor[zero_indices, col_idx] = 0
    return tensor


def _make_deprecate(meth):
    """The deprecated name without the trailing underscore: warns (UserWarning, as PyTorch), then calls meth."""
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn("nn.init.{} is now deprecated in favor of nn.init.{}.".format(old_name, new_name), stacklevel=2)
        return meth(*args, **kwargs)

    deprecated_init.__doc__ = "{}(...): deprecated, use ember.nn.init.{} (it warns, then calls it).".format(
        old_name, new_name)
    deprecated_init.__name__ = old_name
    deprecated_init.__qualname__ = old_name
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
