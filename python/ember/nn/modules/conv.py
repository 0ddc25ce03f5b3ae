"""Conv1d and Conv2d over ember.conv1d / ember.conv2d; padding modes other than zeros pad with F.pad first."""
from .. import functional as F
from ..parameter import Parameter
from .linear import _empty, _reset_weight_and_bias
from .module import Module
from .utils import _pair, _reverse_repeat_tuple, _single, _triple

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]


class _ConvNd(Module):
    r"""The shared part of Conv1d/Conv2d: argument checks, the weight (out, in / groups, *kernel) and bias,
    PyTorch's initialisation and the padding F.pad needs for the non-zeros padding modes and 'same'."""

    _valid_padding_modes = ("zeros", "reflect", "replicate", "circular")

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                 padding_mode, device, dtype, transposed=False, output_padding=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError("Invalid padding string {!r}, should be one of {}".format(padding,
                                                                                          valid_padding_strings))
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in self._valid_padding_modes:
            raise ValueError("padding_mode must be one of {}, but got padding_mode='{}'".format(
                set(self._valid_padding_modes), padding_mode))
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding if output_padding is not None else (0,) * len(kernel_size)
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's amounts (last dim first) for the non-zeros padding modes; 'same' puts the odd pixel last
        if isinstance(padding, str):
            pads = [0, 0] * len(kernel_size)
            if padding == "same":
                for i, (d, k) in enumerate(zip(reversed(dilation), reversed(kernel_size))):
                    total = d * (k - 1)
                    pads[2 * i] = total // 2
                    pads[2 * i + 1] = total - total // 2
            self._reversed_padding_repeated_twice = pads
        else:
            self._reversed_padding_repeated_twice = _reverse_repeat_tuple(padding, 2)
        # A transposed convolution's weight is (in, out / groups, *kernel), as PyTorch's.
        shape = (in_channels, out_channels // groups) if transposed else (out_channels, in_channels // groups)
        self.weight = Parameter(_empty(shape + tuple(kernel_size), device, dtype))
        if bias:
            self.bias = Parameter(_empty(out_channels, device, dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_weight_and_bias(self.weight, self.bias, draw_if_no_fan_in=False)

    def extra_repr(self):
        n = len(self.kernel_size)
        s = "{}, {}, kernel_size={}, stride={}".format(self.in_channels, self.out_channels, self.kernel_size,
                                                      self.stride)
        if self.padding != (0,) * n:
            s += ", padding={}".format(self.padding)
        if self.dilation != (1,) * n:
            s += ", dilation={}".format(self.dilation)
        if self.output_padding != (0,) * n:
            s += ", output_padding={}".format(self.output_padding)
        if self.groups != 1:
            s += ", groups={}".format(self.groups)
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={}".format(self.padding_mode)
        return s

    def _conv_forward(self, conv, input, weight, bias, zero_padding):
        if self.padding_mode != "zeros":
            input = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(input, weight, bias, self.stride, zero_padding, self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)


class Conv1d(_ConvNd):
    r"""1-D convolution of (N, C_in, L) or (C_in, L) input with a (C_out, C_in / groups, k) weight.

    Args as PyTorch's: kernel_size, stride=1, padding=0 (an int, or 'valid'/'same'), dilation=1, groups=1,
    bias=True, padding_mode='zeros' ('reflect', 'replicate', 'circular').
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, _single(kernel_size), _single(stride),
                         padding if isinstance(padding, str) else _single(padding), _single(dilation), groups,
                         bias, padding_mode, device, dtype)

    def forward(self, input):
        return self._conv_forward(F.conv1d, input, self.weight, self.bias, _single(0))


class Conv2d(_ConvNd):
    r"""2-D convolution of (N, C_in, H, W) or (C_in, H, W) input with a (C_out, C_in / groups, kH, kW) weight.

    Args as PyTorch's: kernel_size, stride=1, padding=0 (an int, a pair, or 'valid'/'same'), dilation=1,
    groups=1, bias=True, padding_mode='zeros' ('reflect', 'replicate', 'circular').
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, _pair(kernel_size), _pair(stride),
                         padding if isinstance(padding, str) else _pair(padding), _pair(dilation), groups,
                         bias, padding_mode, device, dtype)

    def forward(self, input):
        return self._conv_forward(F.conv2d, input, self.weight, self.bias, _pair(0))


class Conv3d(_ConvNd):
    r"""3-D convolution of (N, C_in, D, H, W) or (C_in, D, H, W) input with a (C_out, C_in / groups, kD, kH, kW)
    weight. Args as PyTorch's (kernel_size, stride=1, padding=0 or 'valid'/'same', dilation=1, groups=1,
    bias=True, padding_mode='zeros')."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, _triple(kernel_size), _triple(stride),
                         padding if isinstance(padding, str) else _triple(padding), _triple(dilation), groups,
                         bias, padding_mode, device, dtype)

    def forward(self, input):
        return self._conv_forward(F.conv3d, input, self.weight, self.bias, _triple(0))


class _ConvTransposeNd(_ConvNd):
    r"""The shared part of ConvTranspose1d/2d/3d: PyTorch's output_padding computation for forward's
    ``output_size`` and the 'zeros'-only padding mode."""

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                 padding_mode, device, dtype, output_padding):
        if padding_mode != "zeros":
            raise ValueError('Only "zeros" padding mode is supported for {}'.format(self.__class__.__name__))
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device, dtype, transposed=True, output_padding=output_padding)

    def _output_padding(self, input, output_size, stride, padding, kernel_size, num_spatial_dims, dilation=None):
        if output_size is None:
            return _single(self.output_padding)
        has_batch_dim = input.dim() == num_spatial_dims + 2
        num_non_spatial_dims = 2 if has_batch_dim else 1
        output_size = list(output_size)
        if len(output_size) == num_non_spatial_dims + num_spatial_dims:
            output_size = output_size[num_non_spatial_dims:]
        if len(output_size) != num_spatial_dims:
            raise ValueError("ConvTranspose{}D: for {}D input, output_size must have {} or {} elements (got {})"
                             .format(num_spatial_dims, input.dim(), num_spatial_dims,
                                     num_non_spatial_dims + num_spatial_dims, len(output_size)))
        min_sizes, max_sizes = [], []
        for d in range(num_spatial_dims):
            dim_size = ((input.size(d + num_non_spatial_dims) - 1) * stride[d] - 2 * padding[d] +
                        (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1) + 1)
            min_sizes.append(dim_size)
            max_sizes.append(min_sizes[d] + stride[d] - 1)
        for i in range(len(output_size)):
            size, min_size, max_size = output_size[i], min_sizes[i], max_sizes[i]
            if size < min_size or size > max_size:
                raise ValueError("requested an output size of {}, but valid sizes range from {} to {} (for an "
                                 "input of {})".format(output_size, min_sizes, max_sizes, input.size()[2:]))
        return tuple(output_size[d] - min_sizes[d] for d in range(num_spatial_dims))

    def _transposed_forward(self, conv, input, output_size, n):
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size, n,
                                              self.dilation)
        return conv(input, self.weight, self.bias, self.stride, self.padding, output_padding, self.groups,
                    self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    r"""1-D transposed convolution of (N, C_in, L) or (C_in, L) input with a (C_in, C_out / groups, k) weight.
    Args as PyTorch's: kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True, dilation=1,
    padding_mode='zeros'. forward(input, output_size=None)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, _single(kernel_size), _single(stride), _single(padding),
                         _single(dilation), groups, bias, padding_mode, device, dtype, _single(output_padding))

    def forward(self, input, output_size=None):
        return self._transposed_forward(F.conv_transpose1d, input, output_size, 1)


class ConvTranspose2d(_ConvTransposeNd):
    r"""2-D transposed convolution of (N, C_in, H, W) or (C_in, H, W) input with a (C_in, C_out / groups, kH, kW)
    weight; H_out = (H - 1)*stride - 2*padding + dilation*(kH - 1) + output_padding + 1. forward(input,
    output_size=None) picks output_padding to reach output_size."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, _pair(kernel_size), _pair(stride), _pair(padding),
                         _pair(dilation), groups, bias, padding_mode, device, dtype, _pair(output_padding))

    def forward(self, input, output_size=None):
        return self._transposed_forward(F.conv_transpose2d, input, output_size, 2)


class ConvTranspose3d(_ConvTransposeNd):
    r"""3-D transposed convolution of (N, C_in, D, H, W) or (C_in, D, H, W) input with a
    (C_in, C_out / groups, kD, kH, kW) weight. forward(input, output_size=None)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, _triple(kernel_size), _triple(stride), _triple(padding),
                         _triple(dilation), groups, bias, padding_mode, device, dtype, _triple(output_padding))

    def forward(self, input, output_size=None):
        return self._transposed_forward(F.conv_transpose3d, input, output_size, 3)


# ---------------------------------------------------------------------------------------------- lazy
from ...autograd import no_grad  # noqa: E402
from ..parameter import UninitializedParameter  # noqa: E402
from .lazy import LazyModuleMixin  # noqa: E402

__all__ += ["LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
            "LazyConvTranspose3d"]


class _LazyConvXdMixin(LazyModuleMixin):
    """The lazy convolutions: in_channels is the channel dim of the first input ((N, C, *) or unbatched
    (C, *)); until then weight and bias are UninitializedParameters. Materializing initialises as the eager
    constructor does."""

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            with no_grad():
                if self.transposed:
                    shape = (self.in_channels, self.out_channels // self.groups)
                else:
                    shape = (self.out_channels, self.in_channels // self.groups)
                self.weight.materialize(shape + tuple(self.kernel_size))
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()

    def _get_in_channels(self, input):
        """C of an (N, C, *spatial) or (C, *spatial) input. Raises RuntimeError for another rank."""
        no_batch = self._get_num_spatial_dims() + 1
        if input.dim() not in (no_batch, no_batch + 1):
            raise RuntimeError("Expected {}D (unbatched) or {}D (batched) input to {}, but got input of size: {}"
                               .format(no_batch, no_batch + 1, self.__class__.__name__, input.shape))
        return input.shape[1] if input.dim() == no_batch + 1 else input.shape[0]

    def _get_num_spatial_dims(self):
        raise NotImplementedError


def _lazy_conv_parameters(module, out_channels, bias, device, dtype):
    """Replaces the empty weight (and bias) of an eager conv made with 0 channels by uninitialized ones."""
    module.weight = UninitializedParameter(device=device, dtype=dtype)
    module.out_channels = out_channels
    if bias:
        module.bias = UninitializedParameter(device=device, dtype=dtype)


class LazyConv1d(_LazyConvXdMixin, Conv1d):
    r"""Conv1d whose in_channels is inferred from the first input (see LazyModuleMixin); it then becomes a
    Conv1d. Args as Conv1d's without in_channels."""

    cls_to_become = Conv1d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode)
        _lazy_conv_parameters(self, out_channels, bias, device, dtype)

    def _get_num_spatial_dims(self):
        return 1


class LazyConv2d(_LazyConvXdMixin, Conv2d):
    r"""Conv2d whose in_channels is inferred from the first input; it then becomes a Conv2d."""

    cls_to_become = Conv2d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode)
        _lazy_conv_parameters(self, out_channels, bias, device, dtype)

    def _get_num_spatial_dims(self):
        return 2


class LazyConv3d(_LazyConvXdMixin, Conv3d):
    r"""Conv3d whose in_channels is inferred from the first input; it then becomes a Conv3d."""

    cls_to_become = Conv3d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode)
        _lazy_conv_parameters(self, out_channels, bias, device, dtype)

    def _get_num_spatial_dims(self):
        return 3


class LazyConvTranspose1d(_LazyConvXdMixin, ConvTranspose1d):
    r"""ConvTranspose1d whose in_channels is inferred from the first input; it then becomes a
    ConvTranspose1d. Args as ConvTranspose1d's without in_channels."""

    cls_to_become = ConvTranspose1d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode)
        _lazy_conv_parameters(self, out_channels, bias, device, dtype)

    def _get_num_spatial_dims(self):
        return 1


class LazyConvTranspose2d(_LazyConvXdMixin, ConvTranspose2d):
    r"""ConvTranspose2d whose in_channels is inferred from the first input; it then becomes a
    ConvTranspose2d."""

    cls_to_become = ConvTranspose2d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode)
        _lazy_conv_parameters(self, out_channels, bias, device, dtype)

    def _get_num_spatial_dims(self):
        return 2


class LazyConvTranspose3d(_LazyConvXdMixin, ConvTranspose3d):
    r"""ConvTranspose3d whose in_channels is inferred from the first input; it then becomes a
    ConvTranspose3d."""

    cls_to_become = ConvTranspose3d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode)
        _lazy_conv_parameters(self, out_channels, bias, device, dtype)

    def _get_num_spatial_dims(self):
        return 3
