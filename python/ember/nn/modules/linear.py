"""Identity and Linear."""
import math

from ... import _C
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Identity", "Linear", "Bilinear"]


def _empty(shape, device=None, dtype=None):
    """An uninitialised parameter tensor (the layers' factory_kwargs device/dtype)."""
    kwargs = {k: v for k, v in (("device", device), ("dtype", dtype)) if v is not None}
    return _C._functions["empty"](shape, **kwargs)


class Identity(Module):
    """Returns its input (arguments of the constructor are ignored)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    r"""y = x W^T + b, with W of shape (out_features, in_features) and b of shape (out_features).

    Initialised as PyTorch's: W ~ kaiming_uniform_(a=sqrt(5)), i.e. U(-1/sqrt(in), 1/sqrt(in)), and
    b ~ U(-1/sqrt(in), 1/sqrt(in)).
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(_empty((out_features, in_features), device, dtype))
        if bias:
            self.bias = Parameter(_empty(out_features, device, dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_weight_and_bias(self.weight, self.bias)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return "in_features={}, out_features={}, bias={}".format(self.in_features, self.out_features,
                                                                 self.bias is not None)


def _reset_weight_and_bias(weight, bias, draw_if_no_fan_in=True):
    """PyTorch's default initialisation of Linear and Conv: kaiming_uniform_(a=sqrt(5)) for the weight and
    U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for the bias, drawn in that order. With fan_in 0, Linear still draws
    its bias from U(0, 0) (advancing the generator) while Conv leaves it: draw_if_no_fan_in."""
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = init._calculate_fan_in_and_fan_out(weight)
        if fan_in > 0 or draw_if_no_fan_in:
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(bias, -bound, bound)


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear that PyTorch's dynamic quantization leaves alone: MultiheadAttention's out_proj (its weight is
    read directly by the attention function, not through forward). It computes exactly as Linear; it exists
    so that module trees, reprs and state dicts are PyTorch's."""


class Bilinear(Module):
    r"""y = x1^T A x2 + b over the last dims: input1 (*, in1_features), input2 (*, in2_features) give
    (*, out_features) (see F.bilinear). weight A: (out_features, in1_features, in2_features); bias b:
    (out_features).

    Initialised as PyTorch's: weight and bias ~ U(-1/sqrt(in1_features), 1/sqrt(in1_features)), drawn in that
    order.
    """

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(_empty((out_features, in1_features, in2_features), device, dtype))
        if bias:
            self.bias = Parameter(_empty(out_features, device, dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return "in1_features={}, in2_features={}, out_features={}, bias={}".format(
            self.in1_features, self.in2_features, self.out_features, self.bias is not None)


# ---------------------------------------------------------------------------------------------- lazy
from ...autograd import no_grad  # noqa: E402
from ..parameter import UninitializedParameter  # noqa: E402
from .lazy import LazyModuleMixin  # noqa: E402

__all__ += ["LazyLinear"]


class LazyLinear(LazyModuleMixin, Linear):
    r"""Linear whose in_features is inferred from input.shape[-1] at the first forward (see LazyModuleMixin);
    it then becomes a Linear, initialised as Linear's constructor does (the same draws under a seed).

    Args:
        out_features: the size of each output. bias: Default True. device, dtype: of the parameters.
    """

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        # in_features 0 and no bias first, so that no tensor is made only to be replaced
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
