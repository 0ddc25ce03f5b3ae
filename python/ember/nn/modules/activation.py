"""Activation modules: each calls its ember.nn.functional function with the settings given to the
constructor, and prints them as PyTorch's extra_repr does."""
import warnings

from .. import functional as F
from .module import Module

__all__ = ["Threshold", "ReLU", "ReLU6", "Hardtanh", "LeakyReLU", "ELU", "CELU", "SELU", "GELU", "SiLU", "Mish",
           "Sigmoid", "Tanh", "Softplus", "Hardsigmoid", "Hardswish", "LogSigmoid", "GLU", "Softmax", "LogSoftmax",
           "Softmin", "Softsign", "Tanhshrink"]


def _inplace_str(inplace, sep=", "):
    return sep + "inplace=True" if inplace else ""


class _InplaceActivation(Module):
    """An activation whose only setting is inplace (ReLU, SELU, SiLU, Mish, Hardsigmoid, Hardswish);
    subclasses name their function in _fn and whether their repr shows inplace."""

    _fn = None
    _repr_inplace = True

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return type(self)._fn(input, inplace=self.inplace)

    def extra_repr(self):
        return _inplace_str(self.inplace, "") if self._repr_inplace else ""


class ReLU(_InplaceActivation):
    """max(x, 0)."""
    _fn = F.relu


class SELU(_InplaceActivation):
    """scale * elu(x, alpha) with SELU's constants."""
    _fn = F.selu


class SiLU(_InplaceActivation):
    """x * sigmoid(x)."""
    _fn = F.silu


class Mish(_InplaceActivation):
    """x * tanh(softplus(x))."""
    _fn = F.mish


class Hardsigmoid(_InplaceActivation):
    """min(max(x + 3, 0), 6) / 6."""
    _fn = F.hardsigmoid
    _repr_inplace = False


class Hardswish(_InplaceActivation):
    """x * min(max(x + 3, 0), 6) / 6."""
    _fn = F.hardswish
    _repr_inplace = False


class Threshold(Module):
    """x where x > threshold, else value."""

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return "threshold={}, value={}{}".format(self.threshold, self.value, _inplace_str(self.inplace))


class Hardtanh(Module):
    """min(max(x, min_val), max_val) (min_value/max_value: deprecated names)."""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None):
        super().__init__()
        if min_value is not None:
            warnings.warn("keyword argument min_value is deprecated and rename to min_val")
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument max_value is deprecated and rename to max_val")
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        assert self.max_val > self.min_val

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return "min_val={}, max_val={}{}".format(self.min_val, self.max_val, _inplace_str(self.inplace))


class ReLU6(Hardtanh):
    """min(max(x, 0), 6)."""

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return _inplace_str(self.inplace, "")


class LeakyReLU(Module):
    """x if x > 0 else negative_slope * x."""

    def __init__(self, negative_slope=1e-2, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return "negative_slope={}{}".format(self.negative_slope, _inplace_str(self.inplace))


class ELU(Module):
    """x if x > 0 else alpha * (exp(x) - 1)."""
    _fn = F.elu

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return type(self)._fn(input, self.alpha, self.inplace)

    def extra_repr(self):
        return "alpha={}{}".format(self.alpha, _inplace_str(self.inplace))


class CELU(ELU):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    _fn = F.celu


class GELU(Module):
    """x * Phi(x), or its tanh approximation (approximate='tanh')."""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return "approximate={}".format(repr(self.approximate))


class Sigmoid(Module):
    """1 / (1 + exp(-x))."""

    def forward(self, input):
        return input.sigmoid()


class Tanh(Module):
    """tanh(x)."""

    def forward(self, input):
        return input.tanh()


class Softsign(Module):
    """x / (1 + |x|)."""

    def forward(self, input):
        return F.softsign(input)


class Tanhshrink(Module):
    """x - tanh(x)."""

    def forward(self, input):
        return F.tanhshrink(input)


class LogSigmoid(Module):
    """log(sigmoid(x))."""

    def forward(self, input):
        return F.logsigmoid(input)


class Softplus(Module):
    """log(1 + exp(beta * x)) / beta (x where beta * x > threshold)."""

    def __init__(self, beta=1, threshold=20):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return "beta={}, threshold={}".format(self.beta, self.threshold)


class GLU(Module):
    """a * sigmoid(b) for the halves a, b of the input along dim."""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return "dim={}".format(self.dim)


class _SoftmaxBase(Module):
    """Softmax, LogSoftmax and Softmin: the function _fn along dim (None: PyTorch's deprecated implicit
    choice, with its warning)."""

    _fn = None

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def forward(self, input):
        return type(self)._fn(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return "dim={dim}".format(dim=self.dim)


class Softmax(_SoftmaxBase):
    """exp(x) / sum(exp(x)) along dim."""
    _fn = F.softmax


class LogSoftmax(_SoftmaxBase):
    """log(softmax(x)) along dim."""
    _fn = F.log_softmax


class Softmin(_SoftmaxBase):
    """softmax(-x) along dim."""
    _fn = F.softmin
