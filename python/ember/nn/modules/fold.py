"""Fold and Unfold over F.fold / F.unfold (col2im / im2col)."""
from .. import functional as F
from .module import Module

__all__ = ["Fold", "Unfold"]


class Fold(Module):
    r"""Sums (N, C*kH*kW, L) columns into (N, C, *output_size) (the adjoint of Unfold)."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return "output_size={output_size}, kernel_size={kernel_size}, dilation={dilation}, padding={padding}, " \
               "stride={stride}".format(**self.__dict__)


class Unfold(Module):
    r"""The sliding kH x kW blocks of (N, C, H, W) input as columns (N, C*kH*kW, L)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return "kernel_size={kernel_size}, dilation={dilation}, padding={padding}, stride={stride}".format(
            **self.__dict__)
