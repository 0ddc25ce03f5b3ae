"""oneDNN's convolution provider (Note [conv providers], Note [onednn conv]) against the im2col reference
(oneDNN switched off) and PyTorch 1.13: values and gradients (input, weight, bias) of float32 conv2d/conv1d
through autograd, over stride, padding, dilation, groups (depthwise too), 1x1 kernels, batch 1 and 64,
non-contiguous operands and no bias; the dtypes oneDNN does not serve give the reference's results."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as F
from conftest import assert_same, from_array, make_array, to_torch

# (input shape, weight shape, stride, padding, dilation, groups)
# (input shape, weight shape, stride, padding, dilation, groups). All but the ones marked "reference" are
# large enough for oneDNN to take them (Note [onednn conv]).
CASES = [
    ((64, 32, 14, 14), (64, 32, 3, 3), 1, 1, 1, 1),       # the CNN's conv2, training batch
    ((1, 32, 14, 14), (64, 32, 3, 3), 1, 1, 1, 1),        # ... and inference
    ((64, 1, 28, 28), (32, 1, 3, 3), 1, 1, 1, 1),         # the CNN's conv1: reference
    ((1, 1, 28, 28), (32, 1, 3, 3), 1, 1, 1, 1),          # reference
    ((8, 16, 17, 15), (24, 16, 3, 3), 2, 1, 1, 1),        # stride 2, odd sizes
    ((16, 16, 12, 12), (16, 16, 3, 3), (1, 2), (2, 0), (2, 1), 1),  # dilation, uneven stride/padding
    ((32, 16, 9, 9), (24, 8, 3, 2), 1, 1, 1, 2),          # groups
    ((64, 32, 10, 10), (32, 1, 3, 3), 1, 1, 1, 32),       # depthwise
    ((32, 16, 17, 17), (32, 1, 5, 5), 2, 2, 1, 16),       # depthwise, multiplier 2
    ((5, 24, 7, 7), (40, 24, 1, 1), 1, 0, 1, 1),          # pointwise: reference
    ((64, 24, 7, 7), (40, 24, 1, 1), 2, 1, 1, 1),         # 1x1 with stride and padding
    ((128, 16, 6, 6), (16, 16, 6, 6), 1, 0, 1, 1),        # kernel = input: one output position
]


def scale_tol(xs, ws):
    """Tolerance for float32 sums of this many products (values up to 4 in magnitude)."""
    n = xs[0] * ws[1] * ws[2] * ws[3] * max(1, xs[2] * xs[3] // 4)
    return dict(rtol=1e-4, atol=1e-5 * n)


def run(lib, x, w, b, stride, padding, dilation, groups, gy, conv=None):
    """conv2d's output and the gradients of (output * gy).sum() for x, w and b (None when b is None)."""
    x = x.detach().requires_grad_()
    w = w.detach().requires_grad_()
    b = b.detach().requires_grad_() if b is not None else None
    conv = conv or lib.nn.functional.conv2d
    y = conv(x, w, b, stride, padding, dilation, groups)
    y.backward(gy)
    return y.detach(), x.grad, w.grad, (b.grad if b is not None else None)


def check_all(xs, ws, stride, padding, dilation, groups, bias, layout=lambda t: t, conv=(F.conv2d, TF.conv2d)):
    x = from_array(make_array(xs, "float32"), "float32")
    w = from_array(make_array(ws, "float32", seed=1), "float32")
    b = from_array(make_array((ws[0],), "float32", seed=2), "float32") if bias else None
    tx, tw, tb = to_torch(x), to_torch(w), (to_torch(b) if bias else None)
    ty = tuple(conv[1](tx, tw, tb, stride, padding, dilation, groups).shape)
    gy = from_array(make_array(ty, "float32", seed=3), "float32")
    expected = run(torch, tx, tw, tb, stride, padding, dilation, groups, to_torch(gy), conv[1])
    xe, we = layout(x), layout(w)
    assert ember.backends.onednn.enabled
    onednn = run(ember, xe, we, b, stride, padding, dilation, groups, gy, conv[0])
    with ember.backends.onednn.flags(enabled=False):
        reference = run(ember, xe, we, b, stride, padding, dilation, groups, gy, conv[0])
    tol = scale_tol(xs if len(xs) == 4 else xs[:2] + (1,) + xs[2:], ws if len(ws) == 4 else ws[:2] + (1,) + ws[2:])
    for name, o, r, e in zip(["output", "grad_input", "grad_weight", "grad_bias"], onednn, reference, expected):
        if e is None:
            assert o is None and r is None
            continue
        assert_same(o, e, msg=f"onednn {name}: ", **tol)
        assert_same(r, e, msg=f"reference {name}: ", **tol)
        assert_same(o, to_torch(r), msg=f"onednn vs reference {name}: ", **tol)


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("xs, ws, stride, padding, dilation, groups", CASES)
def test_onednn_conv2d_matches_reference_and_torch(xs, ws, stride, padding, dilation, groups, bias):
    check_all(xs, ws, stride, padding, dilation, groups, bias)


def _strided(t):
    """A non-contiguous view with t's values: every other element of a twice-as-wide last dim."""
    shape = tuple(t.shape[:-1]) + (t.shape[-1] * 2,)
    big = ember.zeros(*shape, dtype=t.dtype)
    big[..., ::2] = t
    return big[..., ::2]


def _transposed(t):
    """A non-contiguous view with t's values: the last two dims swapped in memory."""
    return t.transpose(-1, -2).contiguous().transpose(-1, -2)


@pytest.mark.parametrize("layout", [_strided, _transposed])
@pytest.mark.parametrize("xs, ws, stride, padding, dilation, groups",
                         [CASES[0], CASES[4], CASES[7]])
def test_onednn_conv2d_non_contiguous(xs, ws, stride, padding, dilation, groups, layout):
    check_all(xs, ws, stride, padding, dilation, groups, True, layout)


@pytest.mark.parametrize("xs, ws, stride, padding, dilation, groups", [
    ((32, 16, 50), (32, 16, 3), 1, 1, 1, 1),
    ((64, 16, 65), (32, 8, 5), 2, 2, 2, 2),
    ((64, 16, 400), (16, 1, 3), 1, 1, 1, 16),
])
def test_onednn_conv1d(xs, ws, stride, padding, dilation, groups):
    check_all(xs, ws, stride, padding, dilation, groups, True, conv=(F.conv1d, TF.conv1d))


@pytest.mark.parametrize("threads", [1, 2])
def test_onednn_conv2d_threads(threads):
    before = ember.get_num_threads()
    ember.set_num_threads(threads)
    try:
        check_all(*CASES[0], True)
    finally:
        ember.set_num_threads(before)


@pytest.mark.parametrize("dtype", ["float64", "bfloat16", "int32", "int64"])
def test_other_dtypes_use_the_reference(dtype):
    """oneDNN serves float32 only: other dtypes give the same bits with it on and off."""
    x = from_array(make_array((2, 4, 9, 8), dtype), dtype)
    w = from_array(make_array((6, 2, 3, 3), dtype, seed=1), dtype)
    on = ember.conv2d(x, w, None, 2, 1, 1, 2)
    with ember.backends.onednn.flags(enabled=False):
        off = ember.conv2d(x, w, None, 2, 1, 1, 2)
    assert on.dtype == getattr(ember, dtype)
    assert np.array_equal(to_torch(on).float().numpy(), to_torch(off).float().numpy())
    expected = torch.conv2d(to_torch(x).double(), to_torch(w).double(), None, 2, 1, 1, 2)
    tol = dict(rtol=2e-2, atol=2e-1) if dtype == "bfloat16" else {}
    assert_same(on.to(ember.float64), expected, **tol)


def test_repeated_shapes_and_calls():
    """The plan cache: alternating shapes and bias/no bias keep giving the right values."""
    for _ in range(2):
        for xs, ws, stride, padding, dilation, groups in CASES[4:7]:
            x = from_array(make_array(xs, "float32"), "float32")
            w = from_array(make_array(ws, "float32", seed=1), "float32")
            for b in [None, from_array(make_array((ws[0],), "float32", seed=2), "float32")]:
                expected = torch.conv2d(to_torch(x), to_torch(w), to_torch(b) if b is not None else None, stride,
                                        padding, dilation, groups)
                assert_same(ember.conv2d(x, w, b, stride, padding, dilation, groups), expected,
                            **scale_tol(xs, ws))
