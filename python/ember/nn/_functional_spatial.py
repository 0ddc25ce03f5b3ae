"""The spatial part of ember.nn.functional (PyTorch 1.13's): 3-D and transposed convolutions, 1-D/3-D, adaptive
max, LP and fractional pooling, unpooling, fold/unfold, pixel and channel shuffles, and interpolate/upsample.

The functions do PyTorch's Python-side argument handling and call the ops of ember/ops/ops_nn_spatial.yaml;
interpolate computes the output size as PyTorch's does and calls the separable kernel ``_resample`` (Note
[separable resampling], ember/kernels/cpu/resample.cpp).
"""
import math
import warnings

from .. import _C

_ops = dict(_C._functions)
_ops.update((name, fn) for name, fn in vars(_C._nn).items() if not name.startswith("__"))

__all__ = [
    "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "unfold", "fold",
    "max_pool1d", "max_pool3d", "max_pool1d_with_indices", "max_pool3d_with_indices", "avg_pool1d", "avg_pool3d",
    "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d", "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d_with_indices", "adaptive_avg_pool1d",
    "adaptive_avg_pool3d", "lp_pool1d", "lp_pool2d", "fractional_max_pool2d", "fractional_max_pool3d",
    "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices", "max_unpool1d", "max_unpool2d",
    "max_unpool3d", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle",
    "interpolate", "upsample", "upsample_nearest", "upsample_bilinear",
]

# ---------------------------------------------------------------------------------------------- convolution
# The ops themselves, as PyTorch's F.conv3d / F.conv_transpose*d:
# conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) (padding also 'same'/'valid');
# conv_transposeNd(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1).
conv3d = _ops["conv3d"]
conv_transpose1d = _ops["conv_transpose1d"]
conv_transpose2d = _ops["conv_transpose2d"]
conv_transpose3d = _ops["conv_transpose3d"]


def _tuple(x, n):
    if isinstance(x, (list, tuple)):
        return tuple(x)
    return (x,) * n


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Extracts sliding local blocks of (N, C, H, W) or (C, H, W) input as columns (N, C*kH*kW, L)."""
    if input.dim() not in (3, 4):
        raise NotImplementedError("Input Error: Only 3D or 4D input Tensors are supported (got {}D)".format(
            input.dim()))
    return _ops["im2col"](input, _tuple(kernel_size, 2), _tuple(dilation, 2), _tuple(padding, 2), _tuple(stride, 2))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sums columns (N, C*kH*kW, L) or (C*kH*kW, L) back into (N, C, *output_size) (the adjoint of unfold)."""
    if input.dim() not in (2, 3):
        raise NotImplementedError("Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported "
                                  "(got {}D)".format(input.dim()))
    return _ops["col2im"](input, _tuple(output_size, 2), _tuple(kernel_size, 2), _tuple(dilation, 2),
                          _tuple(padding, 2), _tuple(stride, 2))


# ---------------------------------------------------------------------------------------------- pooling
def _stride(stride):
    return [] if stride is None else stride


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """1-D max pooling of (N, C, L) or (C, L) input with the int64 indices of the maxima along L."""
    return _ops["max_pool1d_with_indices"](input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """1-D max pooling of (N, C, L) or (C, L) input; stride defaults to kernel_size."""
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _ops["max_pool1d"](input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """3-D max pooling of (N, C, D, H, W) or (C, D, H, W) input with the flat int64 indices of the maxima."""
    return _ops["max_pool3d_with_indices"](input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """3-D max pooling of (N, C, D, H, W) or (C, D, H, W) input; stride defaults to kernel_size."""
    if return_indices:
        return max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _ops["max_pool3d"](input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """1-D average pooling of (N, C, L) or (C, L) input."""
    return _ops["avg_pool1d"](input, _tuple(kernel_size, 1), _stride(stride) if stride is None else
                              _tuple(stride, 1), _tuple(padding, 1), ceil_mode, count_include_pad)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """3-D average pooling of (N, C, D, H, W) or (C, D, H, W) input."""
    return _ops["avg_pool3d"](input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad,
                              divisor_override)


def _list_with_default(out_size, defaults):
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError("Input dimension should be at least {}".format(len(out_size) + 1))
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """Adaptive max pooling of (N, C, L) or (C, L) input: (values, int64 indices)."""
    return _ops["adaptive_max_pool1d"](input, _tuple(output_size, 1))


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Adaptive max pooling of (N, C, L) or (C, L) input to output_size cells."""
    out = adaptive_max_pool1d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """Adaptive max pooling of (N, C, H, W) or (C, H, W) input: (values, flat int64 indices)."""
    return _ops["adaptive_max_pool2d"](input, _list_with_default(output_size, list(input.shape)))


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Adaptive max pooling of (N, C, H, W) or (C, H, W) input (None in output_size keeps the input's size)."""
    out = adaptive_max_pool2d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """Adaptive max pooling of (N, C, D, H, W) or (C, D, H, W) input: (values, flat int64 indices)."""
    return _ops["adaptive_max_pool3d"](input, _list_with_default(output_size, list(input.shape)))


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Adaptive max pooling of (N, C, D, H, W) or (C, D, H, W) input."""
    out = adaptive_max_pool3d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_avg_pool1d(input, output_size):
    """Adaptive average pooling of (N, C, L) or (C, L) input."""
    return _ops["adaptive_avg_pool1d"](input, _tuple(output_size, 1))


def adaptive_avg_pool3d(input, output_size):
    """Adaptive average pooling of (N, C, D, H, W) or (C, D, H, W) input (None keeps the input's size)."""
    return _ops["adaptive_avg_pool3d"](input, _list_with_default(output_size, list(input.shape)))


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling: (sum over each window of x**p) ** (1/p), as PyTorch's (via avg_pool1d)."""
    from .functional import relu
    if stride is not None:
        out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool1d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (out.sign() * relu(out.abs())).mul(kernel_size).pow(1.0 / norm_type)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over 2-D windows (via avg_pool2d), as PyTorch's."""
    from .functional import avg_pool2d, relu
    kw, kh = _tuple(kernel_size, 2)
    if stride is not None:
        out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool2d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (out.sign() * relu(out.abs())).mul(kw * kh).pow(1.0 / norm_type)


def _fractional(name, dims, input, kernel_size, output_size, output_ratio, _random_samples):
    from .. import rand
    if output_size is None and output_ratio is None:
        raise ValueError("{} requires specifying either an output_size or an output_ratio".format(name))
    if output_size is None:
        ratio = _tuple(output_ratio, dims)
        output_size = [int(input.size(-dims + i) * ratio[i]) for i in range(dims)]
    if _random_samples is None:
        n_batch = 1 if input.dim() == dims + 1 else input.size(0)
        _random_samples = rand(n_batch, input.size(-dims - 1), dims, dtype=input.dtype, device=input.device)
    return _ops[name](input, _tuple(kernel_size, dims), _tuple(output_size, dims), _random_samples)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """Fractional max pooling (Graham, 2014) of (N, C, H, W) or (C, H, W) input: (values, flat indices). The
    samples are drawn as PyTorch's (rand(N, C, 2) from the default generator)."""
    return _fractional("fractional_max_pool2d", 2, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """Fractional max pooling of (N, C, H, W) or (C, H, W) input."""
    out = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio, True, _random_samples)
    return out if return_indices else out[0]


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """Fractional max pooling of (N, C, D, H, W) or (C, D, H, W) input: (values, flat indices)."""
    return _fractional("fractional_max_pool3d", 3, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """Fractional max pooling of (N, C, D, H, W) or (C, D, H, W) input."""
    out = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio, True, _random_samples)
    return out if return_indices else out[0]


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    input_size = input.size()
    default_size = []
    for d in range(len(kernel_size)):
        default_size.append((input_size[-len(kernel_size) + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d])
    if output_size is None:
        return default_size
    output_size = list(output_size)
    if len(output_size) == len(kernel_size) + 2:
        output_size = output_size[2:]
    elif len(output_size) == len(kernel_size) + 1:
        output_size = output_size[1:]
    if len(output_size) != len(kernel_size):
        raise ValueError("output_size should be a sequence containing {} or {} elements, but it has a length of "
                         "'{}'".format(len(kernel_size), len(kernel_size) + 2, len(output_size)))
    for d in range(len(kernel_size)):
        min_size = default_size[d] - stride[d]
        max_size = default_size[d] + stride[d]
        if not (min_size < output_size[d] < max_size):
            raise ValueError('invalid output_size "{}" (dim {} must be between {} and {})'.format(
                output_size, d, min_size, max_size))
    return output_size


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool1d: zeros with the values put back at their indices."""
    kernel_size = _tuple(kernel_size, 1)
    stride = _tuple(stride, 1) if stride is not None else kernel_size
    padding = _tuple(padding, 1)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    if isinstance(output_size, list):
        size = size + [1]
    else:
        size = list(size) + [1]
    return _ops["max_unpool2d"](input.unsqueeze(-1), indices.unsqueeze(-1), size).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool2d (indices h*W + w of each value in the output plane)."""
    kernel_size = _tuple(kernel_size, 2)
    stride = _tuple(stride, 2) if stride is not None else kernel_size
    padding = _tuple(padding, 2)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _ops["max_unpool2d"](input, indices, list(size))


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool3d."""
    kernel_size = _tuple(kernel_size, 3)
    stride = _tuple(stride, 3) if stride is not None else kernel_size
    padding = _tuple(padding, 3)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _ops["max_unpool3d"](input, indices, list(size), list(stride), list(padding))


# ---------------------------------------------------------------------------------------------- shuffles
pixel_shuffle = _ops["pixel_shuffle"]
pixel_unshuffle = _ops["pixel_unshuffle"]
channel_shuffle = _ops["channel_shuffle"]
native_channel_shuffle = _ops["channel_shuffle"]


# ---------------------------------------------------------------------------------------------- resampling
_MODES = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact")


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    r"""Resamples (N, C, *spatial) input (1-3 spatial dims) to `size` or by `scale_factor`, as PyTorch 1.13's
    F.interpolate: modes nearest, nearest-exact, linear (3-D input), bilinear (4-D), bicubic (4-D), trilinear
    (5-D) and area; align_corners for the linear and cubic modes; a given scale_factor is passed on to the
    source-index formula unless recompute_scale_factor.

    Raises:
        ValueError: both or neither of size and scale_factor; lengths that do not match; align_corners with a
            nearest or area mode; recompute_scale_factor without scale_factor.
        NotImplementedError: a mode that does not fit the input's rank, or an unknown mode; antialias=True.
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    else:
        if align_corners is None:
            align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    elif size is not None:
        assert scale_factor is None
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError("Input and output must have the same number of spatial dimensions, but got input "
                                 "with spatial dimensions of {} and output size of {}. Please provide input tensor "
                                 "in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) "
                                 "format.".format(list(input.shape[2:]), size))
            output_size = list(size)
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        assert size is None
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError("Input and scale_factor must have the same number of spatial dimensions, but got "
                                 "input with spatial dimensions of {} and scale_factor of shape {}. Please provide "
                                 "input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) "
                                 "format.".format(list(input.shape[2:]), scale_factor))
            scale_factors = list(scale_factor)
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor is not None and recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor is not None and recompute_scale_factor:
        assert scale_factors is not None
        output_size = [math.floor(float(input.size(i + 2)) * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic") and input.dim() == 4):
        raise ValueError("Anti-alias option is only supported for bilinear and bicubic modes")
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not implemented in Ember")
    wanted = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}
    if input.dim() not in (3, 4, 5) or (mode in wanted and input.dim() != wanted[mode]) or mode not in _MODES:
        if mode in wanted and input.dim() in (3, 4, 5):
            raise NotImplementedError("Got {}D input, but {} mode needs {}D input".format(
                input.dim(), mode, wanted[mode]))
        raise NotImplementedError("Input Error: Only 3D, 4D and 5D input Tensors supported (got {}D) for the modes: "
                                  "nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got {})"
                                  .format(input.dim(), mode))
    if output_size is None:
        output_size = [math.floor(float(input.size(i + 2)) * scale_factors[i]) for i in range(dim)]
    scales = list(scale_factors) if scale_factors is not None else []
    scales = scales + [None] * (3 - len(scales))
    kernel_mode = {"bilinear": "linear", "trilinear": "linear", "bicubic": "cubic"}.get(mode, mode)
    if mode == "area":
        return _ops["_resample"](input, [int(s) for s in output_size], "area", False, None, None, None)
    return _ops["_resample"](input, [int(s) for s in output_size], kernel_mode, bool(align_corners), *scales)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of interpolate (warns, as PyTorch's)."""
    warnings.warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: interpolate(..., mode='nearest')."""
    warnings.warn("nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: interpolate(..., mode='bilinear', align_corners=True)."""
    warnings.warn("nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
