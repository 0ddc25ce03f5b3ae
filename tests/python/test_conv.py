"""Convolution (ember/ops/ops_conv.yaml) against PyTorch 1.13: conv1d/conv2d (and ember.nn.functional's) over
shapes, groups, stride/padding/dilation, 'same'/'valid', empty batches, unbatched and non-contiguous inputs,
dtypes and every argument error (the same exception type as PyTorch's); convolution_backward against
torch.ops.aten.convolution_backward with every output_mask."""
import itertools
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as F
from conftest import assert_raises_like, assert_same, from_array, make_array, to_ember, to_torch

# Sums of up to a few hundred products: float32 rounding differs between BLAS kernels.
TOL = {"float32": (1e-4, 1e-4), "float64": (1e-10, 1e-10), "bfloat16": (2e-2, 2e-2)}


def pair(shape, dtype="float32", seed=0):
    """(ember tensor, torch tensor) with the same deterministic values."""
    e = from_array(make_array(shape, dtype, seed=seed), dtype)
    return e, to_torch(e)


def compare(efn, tfn, dtype="float32"):
    expected = tfn()
    actual = efn()
    rtol, atol = TOL.get(dtype, (0, 0))
    assert_same(actual, expected, rtol=rtol, atol=atol)
    return actual


# ---------------------------------------------------------------------------------------------- forward
# (input shape, weight shape, kwargs)
CONV2D_CASES = [
    ((1, 1, 5, 5), (1, 1, 3, 3), {}),
    ((3, 4, 9, 8), (6, 4, 3, 2), {}),
    ((3, 4, 9, 8), (6, 4, 3, 3), dict(stride=2)),
    ((3, 4, 9, 8), (6, 4, 3, 3), dict(stride=(2, 3), padding=(1, 2))),
    ((2, 4, 10, 11), (6, 2, 3, 3), dict(groups=2, padding=1)),
    ((2, 6, 10, 11), (6, 1, 3, 3), dict(groups=6, padding=1)),          # depthwise
    ((2, 6, 10, 11), (12, 1, 3, 3), dict(groups=6, stride=2)),          # depthwise, multiplier 2
    ((2, 4, 12, 12), (5, 4, 3, 3), dict(dilation=2)),
    ((2, 4, 12, 12), (6, 2, 3, 2), dict(dilation=(2, 3), padding=(2, 1), stride=(1, 2), groups=2)),
    ((2, 4, 7, 7), (8, 4, 1, 1), {}),                                   # pointwise
    ((2, 4, 7, 7), (8, 4, 1, 1), dict(stride=2)),
    ((2, 4, 7, 7), (8, 4, 1, 1), dict(padding=1)),
    ((2, 3, 6, 6), (4, 3, 6, 6), {}),                                   # kernel = input
    ((2, 3, 4, 4), (4, 3, 5, 5), dict(padding=1)),                      # kernel > input, fits padded
    ((0, 4, 9, 8), (6, 4, 3, 3), {}),                                   # empty batch
    ((5, 3, 16, 16), (8, 3, 3, 3), dict(padding=1)),
]


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("xs, ws, kw", CONV2D_CASES)
def test_conv2d_matches_torch(xs, ws, kw, bias):
    x, tx = pair(xs)
    w, tw = pair(ws, seed=1)
    b, tb = pair((ws[0],), seed=2) if bias else (None, None)
    compare(lambda: ember.conv2d(x, w, b, **kw), lambda: torch.conv2d(tx, tw, tb, **kw))
    compare(lambda: F.conv2d(x, w, b, **kw), lambda: TF.conv2d(tx, tw, tb, **kw))


CONV1D_CASES = [
    ((2, 3, 10), (4, 3, 3), {}),
    ((2, 4, 17), (6, 2, 4), dict(stride=3, padding=2, dilation=2, groups=2)),
    ((3, 5, 9), (5, 1, 3), dict(groups=5, padding=1)),
    ((1, 4, 8), (2, 4, 1), {}),
    ((0, 4, 8), (2, 4, 3), {}),
    ((2, 4, 3), (2, 4, 5), dict(padding=1)),
]


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("xs, ws, kw", CONV1D_CASES)
def test_conv1d_matches_torch(xs, ws, kw, bias):
    x, tx = pair(xs)
    w, tw = pair(ws, seed=1)
    b, tb = pair((ws[0],), seed=2) if bias else (None, None)
    compare(lambda: ember.conv1d(x, w, b, **kw), lambda: torch.conv1d(tx, tw, tb, **kw))
    compare(lambda: F.conv1d(x, w, b, **kw), lambda: TF.conv1d(tx, tw, tb, **kw))


@pytest.mark.parametrize("ws, dilation", [((4, 4, 3, 3), 1), ((4, 4, 4, 2), 1), ((4, 4, 4, 4), (1, 3)),
                                          ((4, 2, 2, 5), 2), ((4, 4, 3, 2), (2, 3)), ((4, 4, 11, 11), 1)])
@pytest.mark.parametrize("padding", ["same", "valid"])
def test_conv2d_padding_string(ws, dilation, padding):
    x, tx = pair((2, 4, 8, 9))
    w, tw = pair(ws, seed=1)
    b, tb = pair((4,), seed=2)
    groups = 4 // ws[1]
    with _no_check():
        try:
            expected = torch.conv2d(tx, tw, tb, 1, padding, dilation, groups)
        except RuntimeError:  # 'valid' with a dilated kernel wider than the input
            assert_raises_like(lambda: ember.conv2d(x, w, b, 1, padding, dilation, groups),
                               lambda: torch.conv2d(tx, tw, tb, 1, padding, dilation, groups))
            return
        assert_same(ember.conv2d(x, w, b, 1, padding, dilation, groups), expected, rtol=1e-4, atol=1e-4)
    compare(lambda: F.conv2d(x[0], w, None, padding=padding, dilation=dilation, groups=groups),
            lambda: TF.conv2d(tx[0], tw, None, padding=padding, dilation=dilation, groups=groups))


def _no_check():
    """PyTorch warns about the zero-padded copy that 'same' with an even total padding makes; not a result."""
    ctx = warnings.catch_warnings()
    ctx.__enter__()
    warnings.simplefilter("ignore")
    return _Exit(ctx)


class _Exit:
    def __init__(self, ctx):
        self.ctx = ctx

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.ctx.__exit__(*a)


@pytest.mark.parametrize("k, dilation", [(3, 1), (4, 1), (2, 3), (5, 2), (4, 2)])
@pytest.mark.parametrize("padding", ["same", "valid"])
def test_conv1d_padding_string(k, dilation, padding):
    x, tx = pair((2, 3, 13))
    w, tw = pair((5, 3, k), seed=1)
    with _no_check():
        compare(lambda: ember.conv1d(x, w, None, 1, padding, dilation),
                lambda: torch.conv1d(tx, tw, None, 1, padding, dilation))
        compare(lambda: F.conv1d(x[1], w, padding=padding, dilation=dilation),
                lambda: TF.conv1d(tx[1], tw, padding=padding, dilation=dilation))


def test_no_input_channels():
    # Beyond PyTorch 1.13, which returns a (2, 0, 7, 6) tensor here: the empty sums are 0, plus the bias.
    x, _ = pair((2, 0, 9, 8))
    w, _ = pair((6, 0, 3, 3), seed=1)
    b, tb = pair((6,), seed=2)
    assert_same(ember.conv2d(x, w, b), tb.reshape(1, 6, 1, 1).expand(2, 6, 7, 6).contiguous())
    assert_same(ember.conv2d(x, w), torch.zeros(2, 6, 7, 6))
    # PyTorch 1.13 raises for an empty spatial dim ("Only zero batch or zero channel inputs are supported");
    # with enough padding the output is all padding: the bias.
    x, _ = pair((2, 4, 0, 8))
    w, _ = pair((6, 4, 1, 3), seed=1)
    assert_same(ember.conv2d(x, w, b, padding=(1, 0)), tb.reshape(1, 6, 1, 1).expand(2, 6, 2, 6).contiguous())


def test_unbatched_input():
    x, tx = pair((4, 9, 8))
    w, tw = pair((6, 2, 3, 3), seed=1)
    r = compare(lambda: ember.conv2d(x, w, None, 1, 1, 1, 2), lambda: torch.conv2d(tx, tw, None, 1, 1, 1, 2))
    assert tuple(r.shape) == (6, 9, 8)
    x1, tx1 = pair((4, 9))
    w1, tw1 = pair((6, 4, 3), seed=1)
    r = compare(lambda: ember.conv1d(x1, w1, stride=2), lambda: torch.conv1d(tx1, tw1, stride=2))
    assert tuple(r.shape) == (6, 4)


def _layouts(e, t):
    """Non-contiguous views of the same values: transposed twice (a permuted view), sliced with steps, and
    channels_last strides."""
    yield e.transpose(2, 3).contiguous().transpose(2, 3), t
    big_e = ember.zeros(e.shape[0], e.shape[1] * 2, e.shape[2], e.shape[3] * 2, dtype=e.dtype)
    big_e[:, ::2, :, ::2] = e
    yield big_e[:, ::2, :, ::2], t
    # channels_last: an NHWC tensor viewed as NCHW (to_ember copies contiguously, so permute a copy)
    cl = to_ember(t.permute(0, 2, 3, 1).contiguous()).permute(0, 3, 1, 2)
    assert cl.stride(1) == 1
    yield cl, t


@pytest.mark.parametrize("kw", [{}, dict(stride=2, padding=1, groups=2), dict(dilation=2, padding=(0, 2))])
def test_non_contiguous_input_and_weight(kw):
    x, tx = pair((2, 4, 9, 10))
    w, tw = pair((6, 4 // kw.get("groups", 1), 3, 3), seed=1)
    b, tb = pair((6,), seed=2)
    expected = torch.conv2d(tx, tw, tb, **kw)
    for xe, _ in _layouts(x, tx):
        assert not xe.is_contiguous()
        for we in [w, w.transpose(2, 3).contiguous().transpose(2, 3), w.transpose(0, 1).contiguous().transpose(0, 1)]:
            assert_same(ember.conv2d(xe, we, b, **kw), expected, rtol=1e-4, atol=1e-4)
    # a bias that is a strided slice
    bb = ember.zeros(12)
    bb[::2] = b
    assert_same(ember.conv2d(x, w, bb[::2], **kw), expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", ["float64", "bfloat16"])
def test_floating_dtypes(dtype):
    x, tx = pair((2, 4, 9, 8), dtype)
    w, tw = pair((6, 2, 3, 3), dtype, seed=1)
    b, tb = pair((6,), dtype, seed=2)
    r = compare(lambda: ember.conv2d(x, w, b, 2, 1, 1, 2), lambda: torch.conv2d(tx, tw, tb, 2, 1, 1, 2), dtype)
    assert r.dtype == getattr(ember, dtype)
    compare(lambda: ember.conv1d(x[:, :, 0], w[:, :, 0], b, padding=1, groups=2),
            lambda: torch.conv1d(tx[:, :, 0], tw[:, :, 0], tb, padding=1, groups=2), dtype)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_integer_dtypes_forward(dtype):
    # PyTorch 1.13's CPU convolution computes integer convolutions (its dilated path only for int64).
    lo, hi = (0, 4) if dtype == "uint8" else (-3, 4)
    x = from_array(make_array((2, 4, 7, 6), dtype, low=lo, high=hi), dtype)
    w = from_array(make_array((6, 2, 3, 3), dtype, low=lo, high=hi, seed=1), dtype)
    b = from_array(make_array((6,), dtype, low=lo, high=hi, seed=2), dtype)
    compare(lambda: ember.conv2d(x, w, b, 1, 1, 1, 2),
            lambda: torch.conv2d(to_torch(x), to_torch(w), to_torch(b), 1, 1, 1, 2), dtype)
    compare(lambda: ember.conv1d(x[:, :, 0], w[:, :4 // 2, 0], None, 2, groups=2),
            lambda: torch.conv1d(to_torch(x)[:, :, 0], to_torch(w)[:, :2, 0], None, 2, groups=2), dtype)


@pytest.mark.parametrize("dtype", ["float16", "bool"])
def test_unsupported_dtypes_raise(dtype):
    x = from_array(make_array((1, 2, 5, 5), dtype), dtype)
    w = from_array(make_array((3, 2, 3, 3), dtype, seed=1), dtype)
    assert_raises_like(lambda: ember.conv2d(x, w), lambda: torch.conv2d(to_torch(x), to_torch(w)))


@pytest.mark.parametrize("threads", [1, 2])
def test_threads_give_the_same_values(threads):
    x, tx = pair((5, 3, 12, 12))
    w, tw = pair((8, 3, 3, 3), seed=1)
    ember.set_num_threads(threads)
    compare(lambda: ember.conv2d(x, w, None, 1, 1), lambda: torch.conv2d(tx, tw, None, 1, 1))


# ---------------------------------------------------------------------------------------------- errors
def _err_cases():
    x4, w4 = (2, 4, 8, 8), (6, 4, 3, 3)
    return [
        ("weight 3-D for conv2d", x4, (6, 4, 3), {}, None),
        ("weight 5-D", x4, (1, 6, 4, 3, 3), {}, None),
        ("input 2-D", (8, 8), w4, {}, None),
        ("input 5-D", (1, 2, 4, 8, 8), w4, {}, None),
        ("channels", x4, (6, 3, 3, 3), {}, None),
        ("channels with groups", x4, (6, 3, 3, 3), dict(groups=2), None),
        ("groups needs more channels", x4, (6, 2, 3, 3), dict(groups=3), None),
        ("out channels not divisible", x4, (5, 2, 3, 3), dict(groups=2), None),
        ("out channels below groups", x4, (1, 1, 3, 3), dict(groups=4), None),
        ("zero out channels", x4, (0, 4, 3, 3), {}, None),
        ("groups 0", x4, w4, dict(groups=0), None),
        ("groups negative", x4, w4, dict(groups=-2), None),
        ("kernel too large", x4, (6, 4, 9, 9), {}, None),
        ("kernel size 0", x4, (6, 4, 0, 0), {}, None),
        ("dilated kernel too large", x4, w4, dict(dilation=4), None),
        ("empty height", (2, 4, 0, 8), w4, {}, None),
        ("stride 0", x4, w4, dict(stride=0), None),
        ("stride negative", x4, w4, dict(stride=(1, -1)), None),
        ("padding negative", x4, w4, dict(padding=-1), None),
        ("dilation 0", x4, w4, dict(dilation=0), None),
        ("stride length", x4, w4, dict(stride=(1, 1, 1)), None),
        ("padding length", x4, w4, dict(padding=(1, 1, 1)), None),
        ("bias size", x4, w4, {}, (5,)),
        ("bias 2-D", x4, w4, {}, (6, 1)),
        ("same with stride", x4, w4, dict(padding="same", stride=2), None),
        ("same with stride 0", x4, w4, dict(padding="same", stride=0), None),
        ("bad padding string", x4, w4, dict(padding="full"), None),
        ("float stride", x4, w4, dict(stride=1.5), None),
    ]


@pytest.mark.parametrize("name, xs, ws, kw, bs", _err_cases(), ids=[c[0] for c in _err_cases()])
def test_conv2d_errors_match_torch(name, xs, ws, kw, bs):
    x, tx = pair(xs)
    w, tw = pair(ws, seed=1)
    b, tb = pair(bs, seed=2) if bs else (None, None)
    exc = assert_raises_like(lambda: ember.conv2d(x, w, b, **kw), lambda: torch.conv2d(tx, tw, tb, **kw))
    assert "conv" in str(exc) or isinstance(exc, TypeError)


@pytest.mark.parametrize("xs, ws, kw", [
    ((2, 4, 8, 8), (6, 4, 3), {}),         # a 4-D input is batched 2-D data, not conv1d's
    ((8,), (6, 1, 3), {}),
    ((2, 4, 8), (6, 3, 3), {}),
    ((4, 8), (6, 3, 3), {}),                # unbatched, wrong channels
    ((2, 4, 8), (6, 4, 20), {}),
    ((2, 4, 8), (6, 4, 3, 3), {}),
    ((2, 4, 8), (6, 4, 3), dict(padding="same", stride=2)),
    ((2, 4, 8), (6, 4, 3), dict(stride=0)),
])
def test_conv1d_errors_match_torch(xs, ws, kw):
    x, tx = pair(xs)
    w, tw = pair(ws, seed=1)
    assert_raises_like(lambda: ember.conv1d(x, w, **kw), lambda: torch.conv1d(tx, tw, **kw))


def test_zero_kernel_width_raises():
    """PyTorch 1.13 raises for a kernel of width 0 too (through a oneDNN descriptor message); Ember names it."""
    x, _ = pair((2, 4, 8, 8))
    w, _ = pair((6, 4, 3, 0), seed=1)
    with pytest.raises(RuntimeError, match="kernel size should be greater than zero"):
        ember.conv2d(x, w)
    with pytest.raises(RuntimeError, match="kernel size should be greater than zero"):
        ember.nn.Conv2d(1, 2, 0)(ember.ones(1, 1, 8, 8))


def test_mixed_dtypes_raise():
    x, tx = pair((2, 4, 8, 8))
    w, tw = pair((6, 4, 3, 3), "float64", seed=1)
    assert_raises_like(lambda: ember.conv2d(x, w), lambda: torch.conv2d(tx, tw))
    w32, tw32 = pair((6, 4, 3, 3), seed=1)
    b, tb = pair((6,), "float64", seed=2)
    exc = assert_raises_like(lambda: ember.conv2d(x, w32, b), lambda: torch.conv2d(tx, tw32, tb))
    assert "bias type (float64)" in str(exc)  # Ember's dtype names (PyTorch says double)
    exc = assert_raises_like(lambda: ember.convolution(x, w, None, [1], [0], [1], False, [0], 1),
                             lambda: torch.convolution(tx, tw, None, [1], [0], [1], False, [0], 1))
    assert "weight type (float64)" in str(exc)


def test_channel_error_message_names_the_shapes():
    x, _ = pair((2, 4, 8, 8))
    w, _ = pair((6, 3, 3, 3), seed=1)
    with pytest.raises(RuntimeError, match=r"expected input\[2, 4, 8, 8\] to have 3 channels, but got 4 channels"):
        ember.conv2d(x, w)


def test_convolution_op_and_transposed():
    x, tx = pair((2, 4, 8, 8))
    w, tw = pair((6, 2, 3, 3), seed=1)
    compare(lambda: ember.convolution(x, w, None, [2, 1], [1], [1, 2], False, [0], 2),
            lambda: torch.convolution(tx, tw, None, [2, 1], [1], [1, 2], False, [0], 2))
    # transposed: the weight is (in, out / groups, ...); a 4-channel input does not fit a 6-channel weight
    with pytest.raises(RuntimeError, match="expected input"):
        ember.convolution(x, w, None, [1], [0], [1], True, [0], 1)
    with pytest.raises(RuntimeError):
        torch.convolution(tx, tw, None, [1], [0], [1], True, [0], 1)
    wt, twt = pair((4, 3, 3, 3), seed=2)
    compare(lambda: ember.convolution(x, wt, None, [2, 1], [1], [1, 2], True, [1, 0], 1),
            lambda: torch.convolution(tx, twt, None, [2, 1], [1], [1, 2], True, [1, 0], 1))


# ---------------------------------------------------------------------------------------------- backward
# (input shape, weight shape, stride, padding, dilation, groups)
BACKWARD_CASES = [
    ((2, 3, 7, 6), (4, 3, 3, 3), [1, 1], [0, 0], [1, 1], 1),
    ((3, 4, 9, 8), (6, 2, 3, 2), [2, 2], [1, 1], [2, 1], 2),
    ((2, 4, 10, 9), (8, 1, 3, 3), [1, 2], [1, 0], [1, 1], 4),             # depthwise, multiplier 2
    ((2, 4, 12, 12), (6, 4, 3, 3), [3, 2], [2, 1], [2, 3], 1),
    ((2, 6, 5, 5), (4, 6, 1, 1), [1, 1], [0, 0], [1, 1], 1),              # pointwise
    ((2, 6, 5, 5), (4, 3, 1, 1), [2, 2], [1, 1], [1, 1], 2),
    ((0, 3, 7, 6), (4, 3, 3, 3), [1, 1], [1, 1], [1, 1], 1),              # empty batch
    ((5, 3, 16, 16), (8, 3, 3, 3), [1, 1], [1, 1], [1, 1], 1),
    ((3, 4, 11), (6, 2, 3), [2], [1], [2], 2),                            # 1-D
    ((2, 3, 9), (5, 3, 4), [1], [0], [1], 1),
]


@pytest.mark.parametrize("mask", list(itertools.product([True, False], repeat=3)))
@pytest.mark.parametrize("xs, ws, stride, padding, dilation, groups", BACKWARD_CASES)
def test_convolution_backward_matches_torch(xs, ws, stride, padding, dilation, groups, mask):
    x, tx = pair(xs)
    w, tw = pair(ws, seed=1)
    out_shape = tuple(torch.convolution(tx, tw, None, stride, padding, dilation, False, [0], groups).shape)
    gy, tgy = pair(out_shape, seed=3)
    args = ([ws[0]], stride, padding, dilation, False, [0] * len(stride), groups, list(mask))
    expected = torch.ops.aten.convolution_backward(tgy, tx, tw, *args)
    actual = ember.convolution_backward(gy, x, w, *args)
    assert len(actual) == 3
    for wanted, a, e in zip(mask, actual, expected):
        if wanted:
            assert_same(a, e, rtol=1e-4, atol=1e-4)
        else:  # PyTorch's kernels may compute grad_weight along with grad_bias anyway; Ember computes no more
            assert a is None


@pytest.mark.parametrize("dtype", ["float64", "bfloat16"])
def test_convolution_backward_dtypes(dtype):
    x, tx = pair((2, 4, 7, 6), dtype)
    w, tw = pair((6, 2, 3, 3), dtype, seed=1)
    gy, tgy = pair((2, 6, 4, 6), dtype, seed=3)
    args = ([6], [2, 1], [1, 1], [1, 1], False, [0, 0], 2, [True, True, True])
    expected = torch.ops.aten.convolution_backward(tgy, tx, tw, *args)
    actual = ember.convolution_backward(gy, x, w, *args)
    rtol, atol = TOL[dtype]
    if dtype == "bfloat16":
        rtol, atol = 5e-2, 2e-1  # PyTorch rounds partial sums to bfloat16; Ember rounds once
    for a, e in zip(actual, expected):
        assert_same(a, e, rtol=rtol, atol=atol)


def test_convolution_backward_agrees_with_autograd():
    """The gradients of a conv2d with bias, non-contiguous input, through PyTorch's autograd."""
    x, tx = pair((3, 4, 9, 8))
    w, tw = pair((6, 2, 3, 3), seed=1)
    b, tb = pair((6,), seed=2)
    tx = tx.transpose(2, 3).contiguous().transpose(2, 3).requires_grad_()
    tw.requires_grad_()
    tb.requires_grad_()
    y = torch.conv2d(tx, tw, tb, 2, 1, 2, 2)
    gy, tgy = pair(tuple(y.shape), seed=3)
    y.backward(tgy)
    xe = x.transpose(2, 3).contiguous().transpose(2, 3)
    gi, gw, gb = ember.convolution_backward(gy, xe, w, [6], [2, 2], [1, 1], [2, 2], False, [0, 0], 2,
                                            [True, True, True])
    assert_same(gi, tx.grad, rtol=1e-4, atol=1e-4)
    assert_same(gw, tw.grad, rtol=1e-4, atol=1e-4)
    assert_same(gb, tb.grad, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("threads", [1, 2])
def test_convolution_backward_threads(threads):
    ember.set_num_threads(threads)
    x, tx = pair((5, 3, 10, 10))
    w, tw = pair((8, 3, 3, 3), seed=1)
    gy, tgy = pair((5, 8, 10, 10), seed=3)
    args = ([8], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True])
    expected = torch.ops.aten.convolution_backward(tgy, tx, tw, *args)
    for a, e in zip(ember.convolution_backward(gy, x, w, *args), expected):
        assert_same(a, e, rtol=1e-4, atol=1e-4)


def test_convolution_backward_errors():
    x, tx = pair((2, 4, 8, 8))
    w, tw = pair((6, 4, 3, 3), seed=1)
    gy, tgy = pair((2, 6, 6, 6), seed=3)
    args = ([6], [1, 1], [0, 0], [1, 1], False, [0, 0], 1, [True, True, True])
    # wrong channels, as the forward
    w3, tw3 = pair((6, 3, 3, 3), seed=1)
    assert_raises_like(lambda: ember.convolution_backward(gy, x, w3, *args),
                       lambda: torch.ops.aten.convolution_backward(tgy, tx, tw3, *args))
    # integer inputs: PyTorch 1.13 has no integer backward
    xi, txi = pair((2, 4, 8, 8), "int64")
    wi, twi = pair((6, 4, 3, 3), "int64", seed=1)
    gi, tgi = pair((2, 6, 6, 6), "int64", seed=3)
    assert_raises_like(lambda: ember.convolution_backward(gi, xi, wi, *args),
                       lambda: torch.ops.aten.convolution_backward(tgi, txi, twi, *args))
    # grad_output of the wrong shape
    gy_bad, _ = pair((2, 6, 5, 6), seed=3)
    with pytest.raises(RuntimeError, match="grad_output"):
        ember.convolution_backward(gy_bad, x, w, *args)
    with pytest.raises(TypeError):
        ember.convolution_backward(gy, x, w, *args[:-1], [True, True])
    # transposed with a weight of the wrong channel count: PyTorch's RuntimeError
    assert_raises_like(
        lambda: ember.convolution_backward(gy, x, w, [6], [1, 1], [0, 0], [1, 1], True, [0, 0], 1, [True] * 3),
        lambda: torch.ops.aten.convolution_backward(tgy, tx, tw, [6], [1, 1], [0, 0], [1, 1], True, [0, 0], 1,
                                                    [True] * 3))


@pytest.mark.parametrize("kwargs", [dict(padding=2 ** 62), dict(dilation=2 ** 62), dict(padding=2 ** 63 - 1)],
                         ids=str)
def test_conv2d_overflowing_sizes_raise_runtime_error(kwargs):
    # Checked arithmetic: a RuntimeError naming the op and the parameters (was a negative padded size). PyTorch
    # raises RuntimeError for the paddings; for dilation=2**62 its kernel extent wraps and it returns a result.
    with pytest.raises(RuntimeError) as e:
        F.conv2d(ember.zeros(1, 1, 4, 4), ember.zeros(1, 1, 3, 3), **kwargs)
    assert str(e.value).startswith("convolution: integer out of range")
    if "padding" in kwargs:
        assert_raises_like(lambda: F.conv2d(ember.zeros(1, 1, 4, 4), ember.zeros(1, 1, 3, 3), **kwargs),
                           lambda: TF.conv2d(torch.zeros(1, 1, 4, 4), torch.zeros(1, 1, 3, 3), **kwargs))


def test_conv2d_huge_stride_is_one_window():
    # A stride beyond the input is no overflow: one output position, as PyTorch.
    x, w = ember.ones(1, 1, 4, 4), ember.ones(1, 1, 3, 3)
    assert_same(F.conv2d(x, w, stride=2 ** 62), TF.conv2d(to_torch(x), to_torch(w), stride=2 ** 62))
