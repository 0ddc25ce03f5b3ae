"""The pooling layers of PyTorch 1.13 (max, average, adaptive, LP, fractional, unpooling; 1-D to 3-D) over
ember.nn.functional."""
from .. import functional as F
from .module import Module
from .utils import _ntuple, _single

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
           "LPPool1d", "LPPool2d", "FractionalMaxPool2d", "FractionalMaxPool3d", "MaxUnpool1d", "MaxUnpool2d",
           "MaxUnpool3d"]


class MaxPool2d(Module):
    r"""2-D max pooling (see F.max_pool2d); stride defaults to kernel_size. With return_indices, forward
    returns (values, indices)."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self):
        return "kernel_size={}, stride={}, padding={}, dilation={}, ceil_mode={}".format(
            self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode)


class AvgPool2d(Module):
    r"""2-D average pooling (see F.avg_pool2d); stride defaults to kernel_size."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return "kernel_size={}, stride={}, padding={}".format(self.kernel_size, self.stride, self.padding)


class AdaptiveAvgPool2d(Module):
    r"""Average pooling to a fixed output size (an int, or a pair whose None keeps the input's size)."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self):
        return "output_size={}".format(self.output_size)


class _MaxPoolNd(Module):
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return type(self)._fn(input, self.kernel_size, self.stride, self.padding, self.dilation,
                              ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self):
        return "kernel_size={kernel_size}, stride={stride}, padding={padding}, dilation={dilation}, " \
               "ceil_mode={ceil_mode}".format(**self.__dict__)


class MaxPool1d(_MaxPoolNd):
    r"""1-D max pooling (F.max_pool1d); stride defaults to kernel_size."""
    _fn = staticmethod(F.max_pool1d)


class MaxPool3d(_MaxPoolNd):
    r"""3-D max pooling (F.max_pool3d); stride defaults to kernel_size."""
    _fn = staticmethod(F.max_pool3d)


class AvgPool1d(Module):
    r"""1-D average pooling (F.avg_pool1d)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self):
        return "kernel_size={}, stride={}, padding={}".format(self.kernel_size, self.stride, self.padding)


class AvgPool3d(Module):
    r"""3-D average pooling (F.avg_pool3d)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return "kernel_size={}, stride={}, padding={}".format(self.kernel_size, self.stride, self.padding)


class _AdaptiveNd(Module):
    _fn = None

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input):
        return type(self)._fn(input, self.output_size, self.return_indices)

    def extra_repr(self):
        return "output_size={}".format(self.output_size)


class AdaptiveMaxPool1d(_AdaptiveNd):
    r"""Adaptive max pooling of (N, C, L) or (C, L) input (F.adaptive_max_pool1d)."""
    _fn = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveNd):
    r"""Adaptive max pooling of (N, C, H, W) or (C, H, W) input (F.adaptive_max_pool2d)."""
    _fn = staticmethod(F.adaptive_max_pool2d)


class AdaptiveMaxPool3d(_AdaptiveNd):
    r"""Adaptive max pooling of 4-D or 5-D input (F.adaptive_max_pool3d)."""
    _fn = staticmethod(F.adaptive_max_pool3d)


class AdaptiveAvgPool1d(Module):
    r"""Adaptive average pooling of (N, C, L) or (C, L) input."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)

    def extra_repr(self):
        return "output_size={}".format(self.output_size)


class AdaptiveAvgPool3d(AdaptiveAvgPool1d):
    r"""Adaptive average pooling of 4-D or 5-D input."""

    def forward(self, input):
        return F.adaptive_avg_pool3d(input, self.output_size)


class _LPPoolNd(Module):
    _fn = None

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return type(self)._fn(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self):
        return "norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, ceil_mode={ceil_mode}".format(
            **self.__dict__)


class LPPool1d(_LPPoolNd):
    r"""1-D power-average pooling (F.lp_pool1d)."""
    _fn = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPoolNd):
    r"""2-D power-average pooling (F.lp_pool2d)."""
    _fn = staticmethod(F.lp_pool2d)


class _FractionalNd(Module):
    _fn = None
    _n = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        self.kernel_size = _ntuple(self._n)(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(self._n)(output_size) if output_size is not None else None
        self.output_ratio = _ntuple(self._n)(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError("FractionalMaxPool{}d requires specifying either an output size, or a pooling "
                             "ratio".format(self._n))
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None:
            if not all(0 < r < 1 for r in self.output_ratio):
                raise ValueError("output_ratio must be between 0 and 1 (got {})".format(output_ratio))

    def forward(self, input):
        return type(self)._fn(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                              _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalNd):
    r"""Fractional max pooling of (N, C, H, W) or (C, H, W) input (F.fractional_max_pool2d)."""
    _fn = staticmethod(F.fractional_max_pool2d)
    _n = 2


class FractionalMaxPool3d(_FractionalNd):
    r"""Fractional max pooling of 4-D or 5-D input (F.fractional_max_pool3d)."""
    _fn = staticmethod(F.fractional_max_pool3d)
    _n = 3


class _MaxUnpoolNd(Module):
    _fn = None
    _n = 2

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = _ntuple(self._n)(kernel_size)
        self.stride = _ntuple(self._n)(stride if (stride is not None) else kernel_size)
        self.padding = _ntuple(self._n)(padding)

    def forward(self, input, indices, output_size=None):
        return type(self)._fn(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self):
        return "kernel_size={}, stride={}, padding={}".format(self.kernel_size, self.stride, self.padding)


class MaxUnpool1d(_MaxUnpoolNd):
    r"""The partial inverse of MaxPool1d."""
    _fn = staticmethod(F.max_unpool1d)
    _n = 1


class MaxUnpool2d(_MaxUnpoolNd):
    r"""The partial inverse of MaxPool2d."""
    _fn = staticmethod(F.max_unpool2d)
    _n = 2


class MaxUnpool3d(_MaxUnpoolNd):
    r"""The partial inverse of MaxPool3d."""
    _fn = staticmethod(F.max_unpool3d)
    _n = 3
