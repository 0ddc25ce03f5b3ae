"""PyTorch 1.13's top-level instance_norm, grid_sampler (grid_sampler_2d, grid_sampler_3d) and
affine_grid_generator, written in Python on Ember's ops (gather, floor, where, bmm, batch_norm), so their
gradients come from autograd.

Note [grid sampling on gathers]
Sampling is vectorized over every output point: the source coordinate of each point is computed on whole
tensors (unnormalize, then the padding mode's clip or reflection), the 2^d corners of bilinear/trilinear (the
4x4 taps of bicubic, the one pixel of nearest) become flat indices into the (N, C, D*H*W) input, and one
gather per corner fetches the values, masked to 0 outside the image. The gradient of the input is gather's
(a scatter-add); that of the grid flows through the interpolation weights. The clip and reflection are written
with where() so that their derivative is PyTorch's: 0 on and beyond an edge (clip), -1 on a reflected stretch.

Note [non-finite grid points]
PyTorch 1.13 samples 4-D input with a vectorized CPU kernel and 5-D input with a scalar one, which disagree on
NaN and infinite grid values; Ember gives the values each gives. Clipping (border, and reflection, whose
reflection of an infinite coordinate is NaN) sends NaN to 0 in 2-D (a vector max with 0) and to size - 1 in
3-D (std::min/std::max); a corner outside the image contributes value * weight = 0 * NaN = NaN in 2-D but is
skipped in 3-D. Gradients at such points are not defined (PyTorch's border backward even crashes on them).
The two kernels also round differently: nearest's halves go to even in 2-D, away from zero in 3-D, and the
unnormalization is written in two ways, which round differently near ties.
"""
import itertools
import math

from . import _C
from .autograd import Function

__all__ = ["instance_norm", "norm_except_dim", "grid_sampler", "grid_sampler_2d", "grid_sampler_3d",
           "affine_grid_generator"]

_fn = _C._functions

# interpolation_mode and padding_mode as the int the ops take (PyTorch's enums)
_BILINEAR, _NEAREST, _BICUBIC = 0, 1, 2
_ZEROS, _BORDER, _REFLECTION = 0, 1, 2


# ---------------------------------------------------------------------------------------------- instance_norm
def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    r"""Instance normalization of (N, C, *) input: each (sample, channel) plane is normalized over its *
    elements, y = (x - mean) / sqrt(var + eps) * weight[c] + bias[c] (biased variance).

    It is the batch norm of the input seen as (1, N * C, *) with weight, bias and the running statistics
    repeated N times; when running statistics are given they are then set, in place, to the average over the
    N samples of the updated copies (each copy updated as batch_norm does with momentum).

    Args:
        input: (N, C, *). weight, bias, running_mean, running_var: (C) or None.
        use_input_stats: normalize with the instance statistics (else with the running ones).
        momentum, eps: as batch_norm's. cudnn_enabled: ignored (as on PyTorch's CPU).

    Raises:
        RuntimeError: use_input_stats False without running statistics; a weight, bias or statistic whose
            size is not C.
    """
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    shape = list(input.shape)
    b, c = shape[0], shape[1]
    for t, what in ((weight, "weight"), (bias, "bias"), (running_mean, "running_mean"), (running_var, "running_var")):
        if t is not None and t.numel() != c:
            raise RuntimeError("instance_norm: {} should contain {} elements (the channels of input of shape {}), not "
                               "{}".format(what, c, shape, t.numel()))

    def repeated(t):
        return None if t is None else t.repeat(b)

    running_mean_, running_var_ = repeated(running_mean), repeated(running_var)
    flat = input.contiguous().view([1, b * c] + shape[2:])
    out = _fn["batch_norm"](flat, repeated(weight), repeated(bias), running_mean_, running_var_, use_input_stats,
                            momentum, eps, cudnn_enabled)
    from .autograd import no_grad
    with no_grad():
        if running_mean is not None:
            running_mean.copy_(running_mean_.view(b, c).mean(0))
        if running_var is not None:
            running_var.copy_(running_var_.view(b, c).mean(0))
    return out.view(shape)


def norm_except_dim(v, pow=2, dim=0):
    """The pow-norm of v over every dim but dim, shaped to broadcast against v (size 1 but at dim); dim=-1 means
    the norm of the whole tensor (0-dim), as PyTorch's torch.norm_except_dim (weight_norm's magnitude).

    Raises:
        IndexError: a dim out of range, or a 0-dim v with dim other than -1.
    """
    if dim == -1:
        return v.norm(pow)
    moved = v.transpose(0, dim) if dim != 0 else v
    norms = moved.reshape(moved.shape[0], -1).norm(pow, dim=1)
    shape = [1] * v.dim()
    shape[dim] = v.shape[dim]
    return norms.reshape(shape)


# ---------------------------------------------------------------------------------------------- grid sampling
def _check_grid_sampler_common(input, grid):
    if input.device != grid.device:
        raise RuntimeError("grid_sampler(): expected input and grid to be on same device, but input is on {} and "
                           "grid is on {}".format(input.device, grid.device))
    if input.dim() == 0 or grid.dim() == 0:
        raise RuntimeError("grid_sampler(): expected input and grid with dimensions, got input of sizes {} and grid "
                           "of sizes {}".format(list(input.shape), list(grid.shape)))
    if input.size(0) != grid.size(0):
        raise RuntimeError("grid_sampler(): expected grid and input to have same batch size, but got input with "
                           "sizes {} and grid with sizes {}".format(list(input.shape), list(grid.shape)))
    if grid.size(-1) != input.dim() - 2:
        raise RuntimeError("grid_sampler(): expected grid to have size {} in last dimension, but got grid with "
                           "sizes {}".format(input.dim() - 2, list(grid.shape)))
    for i in range(2, input.dim()):
        if input.size(i) <= 0:
            raise RuntimeError("grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               "sizes {} with dimension {} being empty".format(list(input.shape), i))


def _check_grid_sampler_nd(input, grid, nd, interpolation_mode, padding_mode):
    if input.dim() != nd + 2 or grid.dim() != nd + 2:
        raise RuntimeError("grid_sampler(): expected {}D input and grid with same number of dimensions, but got "
                           "input with sizes {} and grid with sizes {}".format(nd + 2, list(input.shape),
                                                                               list(grid.shape)))
    if nd == 3 and interpolation_mode == _BICUBIC:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if interpolation_mode not in (_BILINEAR, _NEAREST, _BICUBIC):
        raise RuntimeError("grid_sampler(): unknown interpolation_mode {} (0 bilinear, 1 nearest, 2 bicubic)"
                           .format(interpolation_mode))
    if padding_mode not in (_ZEROS, _BORDER, _REFLECTION):
        raise RuntimeError("grid_sampler(): unknown padding_mode {} (0 zeros, 1 border, 2 reflection)"
                           .format(padding_mode))
    if not input.dtype.is_floating_point or input.dtype != grid.dtype:
        raise RuntimeError("grid_sampler_{}d(): expected input and grid of one floating dtype (float32 or "
                           "float64), got {} and {}".format(nd, input.dtype, grid.dtype))


def _unnormalize(coord, size, align_corners, nd):
    """[-1, 1] to pixel coordinates: -1 and 1 are the centers of the corner pixels (align_corners) or their
    outer edges. Rounded as PyTorch's 2-D kernel, (coord + 1) * (size / 2) - 0.5, or its 3-D kernel,
    ((coord + 1) * size - 1) / 2, so that nearest breaks the same ties (Note [non-finite grid points])."""
    if align_corners:
        return (coord + 1) * ((size - 1) / 2) if nd == 2 else ((coord + 1) / 2) * (size - 1)
    return (coord + 1) * (size / 2) - 0.5 if nd == 2 else ((coord + 1) * size - 1) / 2


def _clip(coord, size, nd):
    """coord clamped to [0, size - 1]; its derivative is 1 strictly inside, 0 on the edges and beyond. A NaN
    becomes 0 for 2 spatial dims and size - 1 for 3 (see Note [non-finite grid points])."""
    zero = _fn["zeros"]([], dtype=coord.dtype)
    high = _fn["full"]([], size - 1, dtype=coord.dtype)
    clipped = _fn["where"](coord <= 0, zero, _fn["where"](coord >= size - 1, high, coord))
    return _fn["where"](coord.isnan(), zero if nd == 2 else high, clipped)


def _reflect(coord, twice_low, twice_high):
    """coord reflected about low = twice_low / 2 and high = twice_high / 2 until it lies between them."""
    if twice_low == twice_high:
        # a single position: 0, with a zero derivative (kept in the graph so the grid still gets a gradient)
        return _fn["where"](coord.isfinite(), coord * 0, _fn["zeros"]([], dtype=coord.dtype))
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    d = coord - low
    d = _fn["where"](d < 0, -d, d)
    extra = d.fmod(span)
    even = (d / span).floor().fmod(2) == 0
    return _fn["where"](even, extra + low, span - extra + low)


def _pad_coordinates(coord, size, padding_mode, align_corners, nd):
    """The source coordinate after the padding mode: unchanged (zeros), clipped (border), or reflected about
    the corner centers (align_corners) or the image edges, then clipped (reflection)."""
    if padding_mode == _BORDER:
        return _clip(coord, size, nd)
    if padding_mode == _REFLECTION:
        if align_corners:
            coord = _reflect(coord, 0, 2 * (size - 1))
        else:
            coord = _reflect(coord, -1, 2 * size - 1)
        return _clip(coord, size, nd)
    return coord


def _cubic_coefficients(t):
    """The weights of the taps at -1, 0, 1, 2 for the fraction t: Keys' cubic convolution with A = -0.75 (as
    PyTorch's bicubic; R. Keys, "Cubic convolution interpolation for digital image processing", 1981)."""
    a = -0.75

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


class _Gatherer:
    """Fetches input values at integer source positions: input (N, C, *spatial) seen as (N, C, P), positions
    as one float tensor per spatial dim (x first) of the grid's shape (N, *out); out-of-image positions give 0.
    See Note [grid sampling on gathers]."""

    def __init__(self, input, out_shape):
        self.n, self.c = input.size(0), input.size(1)
        self.sizes = list(reversed(list(input.shape[2:])))  # W, H(, D): the order of the grid's last dim
        self.flat = input.reshape(self.n, self.c, math.prod(self.sizes))
        self.out_shape = out_shape
        self.q = math.prod(out_shape)
        self.zero = _fn["zeros"]([], dtype=input.dtype)

    def column(self, t):
        """A per-point tensor of the grid's shape (N, *out) as (N, 1, Q), to weigh gathered values."""
        return t.reshape(self.n, 1, self.q)

    def locate(self, positions):
        """(index, inside): the flat int64 indices (N, C, Q) of the positions (0 where outside) and the mask
        (N, 1, Q) of those inside the image."""
        inside = None
        index = None
        stride = 1
        for pos, size in zip(positions, self.sizes):
            ok = (pos >= 0) & (pos <= size - 1)
            inside = ok if inside is None else inside & ok
            i = _fn["where"](ok, pos, _fn["zeros"]([], dtype=pos.dtype)).to(_C.int64) * stride
            index = i if index is None else index + i
            stride *= size
        index = index.reshape(self.n, 1, self.q).expand(self.n, self.c, self.q)
        return index, inside.reshape(self.n, 1, self.q)

    def __call__(self, positions, weight):
        """The values at positions times weight (N, *out); 0 outside the image (see Note [non-finite grid
        points] for a non-finite weight there)."""
        index, inside = self.locate(positions)
        values = self.flat.gather(2, index)
        if len(self.sizes) == 2:
            return _fn["where"](inside, values, self.zero) * self.column(weight)
        return _fn["where"](inside, values * self.column(weight), self.zero)

    def result(self, flat):
        return flat.reshape([self.n, self.c] + list(self.out_shape))


def _grid_sample(input, grid, interpolation_mode, padding_mode, align_corners):
    """Samples input (N, C, *spatial) at grid (N, *out, d): (N, C, *out). See Note [grid sampling on gathers]."""
    if interpolation_mode == _NEAREST:
        return _NearestSample.apply(input, grid, padding_mode, align_corners)
    nd = input.dim() - 2
    gather = _Gatherer(input, list(grid.shape[1:-1]))
    coords = [_unnormalize(grid.select(-1, i), size, align_corners, nd) for i, size in enumerate(gather.sizes)]

    if interpolation_mode == _BICUBIC:
        # the taps are the integer positions around the (unpadded) coordinate, each padded on its own
        floors = [x.floor() for x in coords]
        weights = [_cubic_coefficients(x - f) for x, f in zip(coords, floors)]
        taps = [[_pad_coordinates(f.detach() + (k - 1), size, padding_mode, align_corners, nd).trunc()
                 for k in range(4)] for f, size in zip(floors, gather.sizes)]
        out = None
        for j in range(4):  # rows (y): interpolate along x, then combine the rows
            row = None
            for i in range(4):
                term = gather([taps[0][i], taps[1][j]], weights[0][i])
                row = term if row is None else row + term
            term = row * gather.column(weights[1][j])
            out = term if out is None else out + term
        return gather.result(out)

    coords = [_pad_coordinates(x, size, padding_mode, align_corners, nd) for x, size in zip(coords, gather.sizes)]

    # bilinear (trilinear for 3 spatial dims): the 2^d corners, each weighted by the opposite volume
    lows = [x.floor() for x in coords]
    out = None
    for corner in itertools.product((0, 1), repeat=nd):
        positions, weight = [], None
        for x, lo, up in zip(coords, lows, corner):
            positions.append(lo + up)
            w = x - lo if up else (lo + 1) - x
            weight = w if weight is None else weight * w
        term = gather(positions, weight)
        out = term if out is None else out + term
    return gather.result(out)


def _round_half_away_from_zero(x):
    """x rounded to the nearest integer, halves away from zero (C's round), exactly."""
    t = x.trunc()
    return _fn["where"]((x - t).abs() >= 0.5, t + x.sign(), t)


class _NearestSample(Function):
    """Nearest sampling: the gathered pixel values. Its gradient is gather's adjoint for input (a scatter-add
    of the output gradient onto the pixels read) and zeros for the grid, whose small moves do not change the
    result (as PyTorch's)."""

    @staticmethod
    def forward(ctx, input, grid, padding_mode, align_corners):
        gather = _Gatherer(input, list(grid.shape[1:-1]))
        nd = input.dim() - 2
        rounded = _fn["round"] if nd == 2 else _round_half_away_from_zero
        positions = [rounded(_pad_coordinates(_unnormalize(grid.select(-1, i), size, align_corners, nd), size,
                                              padding_mode, align_corners, nd)) for i, size in enumerate(gather.sizes)]
        index, inside = gather.locate(positions)
        ctx.save_for_backward(index, inside)
        ctx.input_shape, ctx.grid_shape, ctx.grid_dtype = list(input.shape), list(grid.shape), grid.dtype
        return gather.result(_fn["where"](inside, gather.flat.gather(2, index), gather.zero))

    @staticmethod
    def backward(ctx, grad_output):
        index, inside = ctx.saved_tensors
        n, c = ctx.input_shape[0], ctx.input_shape[1]
        zero = _fn["zeros"]([], dtype=grad_output.dtype)
        grad = _fn["where"](inside, grad_output.reshape(n, c, index.size(2)), zero)
        grad_input = _fn["zeros"]([n, c, math.prod(ctx.input_shape[2:])], dtype=grad_output.dtype)
        grad_input = grad_input.scatter_add(2, index, grad).reshape(ctx.input_shape)
        return grad_input, _fn["zeros"](ctx.grid_shape, dtype=ctx.grid_dtype), None, None


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    r"""Samples input (N, C, H_in, W_in) at the points of grid (N, H_out, W_out, 2): (N, C, H_out, W_out).

    grid[n, h, w] = (x, y) in [-1, 1] (x along W) is unnormalized to pixel coordinates (-1 and 1 the centers
    of the corner pixels when align_corners, else their outer edges), then treated by padding_mode: 0 zeros
    (points outside read 0), 1 border (clamped to the edge), 2 reflection (reflected about the edges);
    interpolation_mode: 0 bilinear, 1 nearest (halves to even), 2 bicubic (Keys, A = -0.75; each of the 4x4
    taps padded on its own). Differentiable in input and grid (nearest: zero gradient for the grid).

    Raises:
        RuntimeError: input not 4-D or grid not 4-D; batch sizes that differ; grid's last dim not 2; an empty
            spatial dim of input; a mode out of range; input and grid not of one floating dtype.
    """
    _check_grid_sampler_common(input, grid)
    _check_grid_sampler_nd(input, grid, 2, interpolation_mode, padding_mode)
    return _grid_sample(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    r"""Samples input (N, C, D_in, H_in, W_in) at grid (N, D_out, H_out, W_out, 3) (x, y, z: along W, H, D):
    (N, C, D_out, H_out, W_out). Modes as grid_sampler_2d's, without bicubic (trilinear for bilinear; nearest
    rounds halves away from zero, as PyTorch's 3-D kernel).

    Raises:
        RuntimeError: as grid_sampler_2d's for 5-D tensors; bicubic interpolation.
    """
    _check_grid_sampler_common(input, grid)
    _check_grid_sampler_nd(input, grid, 3, interpolation_mode, padding_mode)
    return _grid_sample(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    r"""grid_sampler_2d for a 4-D input, grid_sampler_3d otherwise (see those). The functional form with mode
    names is ember.nn.functional.grid_sample."""
    _check_grid_sampler_common(input, grid)
    if input.dim() == 4:
        return grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners)
    return grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners)


# ---------------------------------------------------------------------------------------------- affine grids
def _linspace_from_neg_one(theta, steps, align_corners):
    """steps coordinates from -1 to 1 (the pixel centers: scaled by (steps - 1) / steps unless
    align_corners); a single step is 0."""
    if steps <= 1:
        return _fn["zeros"](max(steps, 0), dtype=theta.dtype)
    r = _fn["linspace"](-1, 1, steps, dtype=theta.dtype)
    if not align_corners:
        r = r * (steps - 1) / steps
    return r


def affine_grid_generator(theta, size, align_corners):
    r"""The sampling grid of the affine maps theta for grid_sampler: theta (N, 2, 3) and size (N, C, H, W)
    give (N, H, W, 2); theta (N, 3, 4) and size (N, C, D, H, W) give (N, D, H, W, 3). Each output point is
    theta @ (x, y[, z], 1) for the normalized coordinates of the output pixel centers in [-1, 1] (see
    grid_sampler_2d for align_corners). Differentiable in theta.

    Raises:
        RuntimeError: a size that is not of 4 or 5 elements; a theta of the wrong shape for it.
    """
    size = list(size)
    if len(size) not in (4, 5):
        raise RuntimeError("AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    n = size[0]
    spatial = size[2:]
    # the homogeneous coordinates (x, y[, z], 1) of every output point, x varying fastest
    axes = [_linspace_from_neg_one(theta, s, align_corners) for s in spatial]  # (D,) H, W
    mesh = _fn["meshgrid"](axes, indexing="ij")
    columns = [m.reshape(-1) for m in reversed(mesh)]  # x, y(, z)
    points = 1
    for s in spatial:
        points *= s
    columns.append(_fn["ones"](points, dtype=theta.dtype))
    base = _fn["stack"](columns, 1)  # (points, d + 1)
    base = base.unsqueeze(0).expand(n, points, len(columns))
    grid = base.bmm(theta.transpose(1, 2))
    return grid.view([n] + spatial + [len(spatial)])
