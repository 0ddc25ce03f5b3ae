"""The normalization and grid-sampling part of ember.nn.functional (PyTorch 1.13's): batch_norm,
instance_norm, layer_norm, group_norm, local_response_norm, affine_grid and grid_sample.

The norms do PyTorch's Python-side checks and call the ops of ember/ops/ops_nn.yaml (batch_norm, layer_norm,
group_norm), which check every other argument (sizes, dtypes, running statistics) with PyTorch's errors, or
ember.instance_norm (ember/_norm.py); the grid functions map mode names to the enums of
ember.grid_sampler / ember.affine_grid_generator (ember/_norm.py).
"""
import warnings

from .. import _C
from .. import _norm

_ops = dict(_C._functions)

__all__ = ["batch_norm", "instance_norm", "layer_norm", "group_norm", "local_response_norm", "affine_grid",
           "grid_sample"]


def _verify_batch_size(size):
    size_prods = size[0]
    for i in range(len(size) - 2):
        size_prods *= size[i + 2]
    if size_prods == 1:
        raise ValueError("Expected more than 1 value per channel when training, got input size {}".format(size))


def _verify_spatial_size(size):
    size_prods = 1
    for s in size[2:]:
        size_prods *= s
    if size_prods == 1:
        raise ValueError("Expected more than 1 spatial element when training, got input size {}".format(size))


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    r"""Batch normalization of (N, C, *) input per channel C (Ioffe & Szegedy, 2015):
    y = (x - mean) / sqrt(var + eps) * weight + bias.

    When training it uses the batch statistics (biased variance) and, when given, updates running_mean and
    running_var in place: running = (1 - momentum) * running + momentum * batch statistic (the unbiased
    variance for running_var). Otherwise it uses running_mean and running_var.

    Args:
        input: (N, C, *). running_mean, running_var: (C) or None (None only when training).
        weight, bias: (C) or None. momentum, eps: floats.

    Raises:
        ValueError: training with one value per channel.
        RuntimeError: a weight, bias or statistic without C elements (input of fewer than 2 dims has C = 0);
            running statistics missing when not training; parameters whose dtype is not input's (or float32 for
            a bfloat16 input).
        IndexError: input of fewer than 2 dims without statistics to check.
    """
    if training:
        _verify_batch_size(input.size())
    return _ops["batch_norm"](input, weight, bias, running_mean, running_var, training, momentum, eps, False)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    r"""Instance normalization of (N, C, *) input (Ulyanov et al., 2016): each channel of each sample is
    normalized over its * elements, y = (x - mean) / sqrt(var + eps) * weight + bias (biased variance).

    With use_input_stats the instance statistics are used, and running_mean / running_var (when given) are
    updated in place with their average over the batch (as batch_norm's update); otherwise the running
    statistics are used. See ember.instance_norm.

    Raises:
        ValueError: use_input_stats with a single spatial element.
        RuntimeError: a weight, bias or statistic without C elements; running statistics missing without
            use_input_stats.
    """
    if use_input_stats:
        _verify_spatial_size(input.size())
    return _norm.instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                               False)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    r"""Layer normalization (Ba et al., 2016) over the trailing dims normalized_shape:
    y = (x - mean) / sqrt(var + eps) * weight + bias, with weight and bias (optional) of shape
    normalized_shape.

    Raises:
        TypeError: a normalized_shape that is no list or tuple (an int too, as PyTorch's functional form).
        RuntimeError: an empty normalized_shape; input whose trailing dims are not normalized_shape; a
            weight or bias of another shape or dtype.
    """
    if not isinstance(normalized_shape, (list, tuple)):
        raise TypeError("layer_norm(): argument 'normalized_shape' must be a tuple of ints, not {}"
                        .format(type(normalized_shape).__name__))
    return _ops["layer_norm"](input, list(normalized_shape), weight, bias, eps, False)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    r"""Group normalization (Wu & He, 2018) of (N, C, *) input: the C channels are split into num_groups
    groups, each normalized over its channels and * elements per sample; then the per-channel weight and bias.

    Raises:
        ValueError: a single value per group.
        IndexError: input of fewer than 2 dims. ZeroDivisionError: num_groups 0.
        RuntimeError: num_groups negative or not dividing C; a weight or bias that is not a vector of C
            elements, or of another dtype.
    """
    _verify_batch_size([input.size(0) * input.size(1) // num_groups, num_groups] + list(input.size()[2:]))
    return _ops["group_norm"](input, num_groups, weight, bias, eps, False)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    r"""Local response normalization across channels (Krizhevsky et al., 2012) of (N, C, *) input:
    y[c] = x[c] / (k + alpha / size * sum of x[j]^2 over j = c - size // 2 .. c + (size - 1) // 2)^beta,
    channels outside [0, C) counting as 0.

    Returns input itself when it has no elements.

    Raises:
        ValueError: input of fewer than 3 dims.
        RuntimeError: size below 1; bool input.
    """
    dim = input.dim()
    if dim < 3:
        raise ValueError("Expected 3D or higher dimensionality input (got {} dimensions)".format(dim))
    if input.numel() == 0:
        return input
    if size < 1:
        raise RuntimeError("local_response_norm: size should be greater than zero, but got {}".format(size))
    if input.dtype == _C.bool:
        raise RuntimeError("local_response_norm: not implemented for bool input")
    # the squares padded with zeros along dim 1, then the mean of each window of `size` channels (for integer
    # input an integer mean, rounded down, as PyTorch's average pooling of integers)
    pad = [0, 0] * (dim - 2) + [size // 2, (size - 1) // 2]
    windows = _C._nn.pad(input.mul(input), pad, "constant", None).unfold(1, size, 1)
    if input.is_floating_point():
        div = windows.mean(-1)
    else:
        div = windows.sum(-1).div(size, rounding_mode="floor")
    return input / div.mul(alpha).add(k).pow(beta)


# ---------------------------------------------------------------------------------------------- grids
_ALIGN_CORNERS_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since "
                          "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
                          "documentation of grid_sample for details.")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    r"""Samples input at the normalized coordinates of grid (as in spatial transformer networks, Jaderberg et
    al., 2015).

    Args:
        input: (N, C, H_in, W_in) or (N, C, D_in, H_in, W_in).
        grid: (N, H_out, W_out, 2) or (N, D_out, H_out, W_out, 3); the last dim holds (x, y[, z]) in [-1, 1]
            with x along W.
        mode: 'bilinear' (trilinear for 5-D), 'nearest' or 'bicubic' (4-D only).
        padding_mode: 'zeros' (points outside read 0), 'border' (the edge value) or 'reflection'.
        align_corners: -1 and 1 are the centers of the corner pixels (True) or their outer edges (False).
            Default None: False, with PyTorch's warning.

    Returns:
        (N, C, H_out, W_out) or (N, C, D_out, H_out, W_out); differentiable in input and grid.

    Raises:
        ValueError: an unknown mode or padding_mode.
        RuntimeError: the shape errors of ember.grid_sampler.
    """
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         "got: '{}'".format(mode))
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         "'reflection', but got: '{}'".format(padding_mode))
    mode_enum = {"bilinear": 0, "nearest": 1, "bicubic": 2}[mode]
    padding_mode_enum = {"zeros": 0, "border": 1, "reflection": 2}[padding_mode]
    if align_corners is None:
        warnings.warn(_ALIGN_CORNERS_WARNING)
        align_corners = False
    return _norm.grid_sampler(input, grid, mode_enum, padding_mode_enum, align_corners)


def affine_grid(theta, size, align_corners=None):
    r"""The grid for grid_sample of a batch of affine maps.

    Args:
        theta: (N, 2, 3) for a 4-D size, (N, 3, 4) for a 5-D size; floating.
        size: the target output size (N, C, H, W) or (N, C, D, H, W).
        align_corners: as grid_sample's; default None is False, with PyTorch's warning.

    Returns:
        (N, H, W, 2) or (N, D, H, W, 3): theta applied to the normalized coordinates of the output pixels.

    Raises:
        ValueError: a theta that is not floating or not of the shape the size needs; a size with an element
            below 1 (unless align_corners with a spatial size of 1, which warns).
        NotImplementedError: a size of other than 4 or 5 elements.
    """
    if align_corners is None:
        warnings.warn(_ALIGN_CORNERS_WARNING)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError("Expected theta to have floating point type, but got {}".format(theta.dtype))
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError("Expected a batch of 2D affine matrices of shape Nx2x3 for size {}. Got {}."
                             .format(size, theta.shape))
        spatial_size = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError("Expected a batch of 3D affine matrices of shape Nx3x4 for size {}. Got {}."
                             .format(size, theta.shape))
        spatial_size = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  "respectively. Got size {}.".format(size))
    if align_corners and min(spatial_size) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.")
    elif min(size) <= 0:
        raise ValueError("Expected non-zero, positive output size. Got {}".format(size))
    return _norm.affine_grid_generator(theta, list(size), align_corners)
