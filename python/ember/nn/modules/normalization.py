"""LayerNorm, GroupNorm, LocalResponseNorm and CrossMapLRN2d."""
import numbers

from ... import _C
from ...autograd import Function
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .linear import _empty
from .module import Module

__all__ = ["LayerNorm", "GroupNorm", "LocalResponseNorm", "CrossMapLRN2d"]


class LayerNorm(Module):
    r"""Normalization over the trailing dims normalized_shape, with elementwise weight (1) and bias (0) of that
    shape when elementwise_affine."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_empty(self.normalized_shape, device, dtype))
            self.bias = Parameter(_empty(self.normalized_shape, device, dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)
            init.zeros_(self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return "{}, eps={}, elementwise_affine={}".format(self.normalized_shape, self.eps, self.elementwise_affine)


class GroupNorm(Module):
    r"""Normalization of (N, C, *) input over groups of num_channels / num_groups channels, with per-channel
    weight (1) and bias (0) when affine. Raises ValueError when num_groups does not divide num_channels."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        if affine:
            self.weight = Parameter(_empty(num_channels, device, dtype))
            self.bias = Parameter(_empty(num_channels, device, dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.affine:
            init.ones_(self.weight)
            init.zeros_(self.bias)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return "{}, {}, eps={}, affine={}".format(self.num_groups, self.num_channels, self.eps, self.affine)


class LocalResponseNorm(Module):
    r"""Local response normalization across channels (Krizhevsky et al., 2012) of (N, C, *) input, at least
    3-D: y[c] = x[c] / (k + alpha / size * sum of x[j]^2 over the size channels around c)^beta (see
    F.local_response_norm).

    Args:
        size: the number of neighbouring channels summed. alpha: Default 1e-4. beta: Default 0.75.
        k: Default 1.
    """

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return "{}, alpha={}, beta={}, k={}".format(self.size, self.alpha, self.beta, self.k)


def _channel_windows(channels, size):
    """The 0/1 matrices (C, C) of the channels PyTorch 1.13's CrossMapLRN2d sums, for its forward (row c: the
    channels in the scale of channel c) and for its backward (row c: the channels whose ratio reaches channel
    c's gradient). See Note [CrossMapLRN2d's windows]."""
    # Note [CrossMapLRN2d's windows]
    # CrossMapLRN2d is the cross-channel LRN of Lua Torch kept by PyTorch for compatibility. Its running-sum
    # forward sums, for channel c, the squares of channels j with c - p < j <= c + p - 1, p = (size - 1) // 2 + 1
    # (a centred window for odd sizes), and channel 0 for every c (its running sum never drops channel 0); its
    # hand-written backward sums the ratios of channels c - q .. c + size - 1 - q, q = size - (size - 1) // 2
    # rounded down as a float: not the derivative of that forward. Ember reproduces both, so that values and
    # gradients are PyTorch's; LocalResponseNorm is the layer whose gradient is exact.
    c = _C._functions["arange"](channels)
    row, col = c.unsqueeze(1), c.unsqueeze(0)
    p = int((size - 1) / 2 + 1)
    forward = ((col > row - p) & (col <= row + p - 1)) | (col == 0)
    q = int(size - (size - 1) / 2)
    backward = (col >= row - q) & (col <= row + size - 1 - q)
    return forward, backward


class _CrossMapLRN2dFunction(Function):
    """PyTorch 1.13's CrossMapLRN2d forward and backward formulas (see Note [CrossMapLRN2d's windows])."""

    @staticmethod
    def forward(ctx, input, size, alpha, beta, k):
        if input.dim() != 4:
            raise AssertionError("CrossMapLRN2d: expected a 4-D input (N, C, H, W), got {}-D".format(input.dim()))
        channels = input.size(1)
        forward_window, _ = _channel_windows(channels, size)
        squares = input * input
        # scale[n, c] = k + alpha / size * sum over the window of channel c of squares[n, j]
        sums = _C._functions["einsum"]("cj,njhw->nchw", [forward_window.to(input.dtype), squares])
        scale = sums * (alpha / size) + k
        output = input * scale.pow(-beta)
        ctx.size, ctx.alpha, ctx.beta = size, alpha, beta
        ctx.save_for_backward(input, output, scale)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, output, scale = ctx.saved_tensors
        size, alpha, beta = ctx.size, ctx.alpha, ctx.beta
        channels = input.size(1)
        if int(size - (size - 1) / 2) > size - 1:
            raise RuntimeError("CrossMapLRN2d backward: size {} leaves no room for its padded window of {} "
                               "channels (PyTorch 1.13 raises here too)".format(size, channels))
        _, backward_window = _channel_windows(channels, size)
        ratio = grad_output * output / scale
        accumulated = _C._functions["einsum"]("cj,njhw->nchw", [backward_window.to(input.dtype), ratio])
        grad_input = scale.pow(-beta) * grad_output - (2 * alpha * beta / size) * input * accumulated
        return grad_input, None, None, None, None


class CrossMapLRN2d(Module):
    r"""The cross-channel local response normalization of Lua Torch, of (N, C, H, W) input, as PyTorch 1.13
    computes it: y[c] = x[c] * (k + alpha / size * sum of x[j]^2 over a window of channels)^(-beta), with that
    implementation's window and hand-written gradient (see Note [CrossMapLRN2d's windows]; prefer
    LocalResponseNorm).

    Raises:
        AssertionError: input that is not 4-D. RuntimeError: backward with size 1 (as PyTorch's).
    """

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return _CrossMapLRN2dFunction.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return "{}, alpha={}, beta={}, k={}".format(self.size, self.alpha, self.beta, self.k)
