"""The spatial layers of ember.nn against PyTorch 1.13: transposed and 3-D convolutions, pooling, padding,
shuffles, fold/unfold and resampling — forward, input and parameter gradients, state_dict, initial values under
the same seed, repr and errors. The ops themselves are also in the generic per-op test (op_samples.py)."""
import numpy as np
import pytest
import torch

import ember
import ember.nn as enn
import ember.nn.functional as EF

TF = torch.nn.functional


def to_torch(t):
    return torch.from_numpy(np.array(t.detach().numpy()))


def close(a, b, atol=1e-5, rtol=1e-4):
    a = a.detach().numpy() if isinstance(a, ember.Tensor) else a
    b = b.detach().numpy()
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, atol=atol, rtol=rtol)


def pair(shape, seed=0, dtype=np.float32, requires_grad=True):
    x = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    e = ember.tensor(x, requires_grad=requires_grad)
    t = torch.tensor(x, requires_grad=requires_grad)
    return e, t


def run_both(em, tm, shape, *fargs, seed=0, atol=1e-5):
    """Forward and backward of module em (Ember) and tm (PyTorch) with the same parameters."""
    tm.load_state_dict({k: to_torch(v) for k, v in em.state_dict().items()})
    xe, xt = pair(shape, seed)
    ye, yt = em(xe, *fargs), tm(xt, *fargs)
    close(ye, yt, atol=atol)
    ge, gt = pair(tuple(yt.shape), seed + 1, requires_grad=False)
    ye.backward(ge)
    yt.backward(gt)
    close(xe.grad, xt.grad, atol=atol)
    for (ne, pe), (nt, pt) in zip(em.named_parameters(), tm.named_parameters()):
        assert ne == nt
        close(pe.grad, pt.grad, atol=10 * atol)


CONV_T = [
    ("ConvTranspose1d", (4, 3, 3), dict(stride=2, padding=1, output_padding=1), (2, 4, 7)),
    ("ConvTranspose2d", (4, 6, 3), dict(stride=2, padding=1, output_padding=1, groups=2), (2, 4, 5, 6)),
    ("ConvTranspose2d", (4, 3, (3, 2)), dict(stride=(2, 1), dilation=2, bias=False), (2, 4, 5, 6)),
    ("ConvTranspose2d", (8, 16, 4), dict(stride=2, padding=1), (3, 8, 8, 8)),
    ("ConvTranspose3d", (2, 4, 3), dict(stride=2, padding=1, output_padding=1), (2, 2, 3, 4, 3)),
    ("Conv3d", (3, 4, 3), dict(stride=2, padding=1), (2, 3, 5, 6, 7)),
    ("Conv3d", (4, 4, (2, 3, 1)), dict(groups=2, dilation=(1, 2, 1), padding="same"), (2, 4, 4, 7, 3)),
]


@pytest.mark.parametrize("name, args, kwargs, shape", CONV_T)
def test_conv_layers_match_reference(name, args, kwargs, shape):
    ember.manual_seed(3)
    torch.manual_seed(3)
    em, tm = getattr(enn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(em) == repr(tm)
    assert list(em.state_dict()) == list(tm.state_dict())
    for k, v in em.state_dict().items():  # initial values under the same seed
        close(v, tm.state_dict()[k], atol=1e-6)
    run_both(em, tm, shape)


def test_conv_transpose_output_size_and_unbatched():
    em, tm = enn.ConvTranspose2d(3, 2, 3, stride=2), torch.nn.ConvTranspose2d(3, 2, 3, stride=2)
    tm.load_state_dict({k: to_torch(v) for k, v in em.state_dict().items()})
    xe, xt = pair((3, 4, 5))
    close(em(xe, output_size=[10, 12]), tm(xt, output_size=[10, 12]))
    with pytest.raises(ValueError):
        em(xe, output_size=[20, 20])
    with pytest.raises(RuntimeError):  # output_padding must be below stride or dilation
        EF.conv_transpose2d(xe, em.weight, None, 1, 0, 1)


def test_conv_transpose_channels_last_and_float64():
    em, tm = enn.ConvTranspose2d(4, 3, 3, stride=2), torch.nn.ConvTranspose2d(4, 3, 3, stride=2)
    tm.load_state_dict({k: to_torch(v) for k, v in em.state_dict().items()})
    xe, xt = pair((2, 4, 5, 5))
    ye = em(xe.contiguous(memory_format=ember.channels_last))
    close(ye, tm(xt.contiguous(memory_format=torch.channels_last)))
    em64, tm64 = em.double(), tm.double()
    xe, xt = pair((2, 4, 5, 5), dtype=np.float64)
    close(em64(xe), tm64(xt), atol=1e-10)


POOL = [
    ("MaxPool1d", (3,), dict(stride=2, padding=1, ceil_mode=True), (2, 3, 10)),
    ("MaxPool3d", (3,), dict(stride=2, padding=1, dilation=1), (2, 2, 5, 6, 7)),
    ("AvgPool1d", (3,), dict(stride=2, padding=1, count_include_pad=False), (2, 3, 10)),
    ("AvgPool3d", (3,), dict(stride=2, padding=1, ceil_mode=True, divisor_override=5), (2, 2, 5, 6, 7)),
    ("AdaptiveAvgPool1d", (4,), {}, (2, 3, 10)),
    ("AdaptiveAvgPool3d", ((2, None, 3),), {}, (2, 2, 5, 6, 7)),
    ("AdaptiveMaxPool1d", (4,), {}, (2, 3, 10)),
    ("AdaptiveMaxPool2d", ((3, 4),), {}, (2, 3, 7, 9)),
    ("AdaptiveMaxPool3d", (3,), {}, (2, 2, 5, 6, 7)),
    ("LPPool1d", (2, 3), dict(stride=2), (2, 3, 10)),
    ("LPPool2d", (3, 2), {}, (2, 3, 6, 8)),
    ("PixelShuffle", (2,), {}, (2, 8, 3, 4)),
    ("PixelUnshuffle", (2,), {}, (2, 2, 6, 4)),
    ("ChannelShuffle", (3,), {}, (2, 6, 3, 4)),
    ("ReflectionPad1d", ((2, 1),), {}, (2, 3, 5)),
    ("ReflectionPad2d", (2,), {}, (2, 3, 5, 6)),
    ("ReflectionPad3d", (1,), {}, (2, 3, 4, 5, 6)),
    ("ReplicationPad1d", (2,), {}, (2, 3, 5)),
    ("ReplicationPad2d", ((1, 2, 0, 3),), {}, (2, 3, 5, 6)),
    ("ReplicationPad3d", (2,), {}, (2, 3, 4, 5, 6)),
    ("ConstantPad1d", (2, 1.5), {}, (2, 3, 5)),
    ("ConstantPad2d", ((1, 0, 2, 1), -1.0), {}, (2, 3, 5, 6)),
    ("ConstantPad3d", (1, 0.5), {}, (2, 3, 4, 5, 6)),
    ("ZeroPad2d", (2,), {}, (2, 3, 5, 6)),
    ("Upsample", (), dict(scale_factor=2, mode="nearest"), (2, 3, 4, 5)),
    ("Upsample", (), dict(size=(7, 9), mode="bilinear"), (2, 3, 4, 5)),
    ("Upsample", (), dict(scale_factor=1.7, mode="bilinear", align_corners=True), (2, 3, 4, 5)),
    ("Upsample", (), dict(scale_factor=2.5, mode="bicubic"), (2, 3, 4, 5)),
    ("Upsample", (), dict(size=8, mode="linear"), (2, 3, 5)),
    ("Upsample", (), dict(scale_factor=(2, 1.5, 3), mode="trilinear"), (1, 2, 3, 4, 2)),
    ("Upsample", (), dict(size=(3, 7), mode="area"), (2, 3, 8, 5)),
    ("Upsample", (), dict(scale_factor=1.6, mode="nearest-exact"), (2, 3, 4, 5)),
    ("UpsamplingNearest2d", (), dict(size=(7, 3)), (2, 3, 4, 5)),
    ("UpsamplingBilinear2d", (), dict(scale_factor=2), (2, 3, 4, 5)),
    ("Unfold", ((2, 3),), dict(dilation=(1, 2), padding=1, stride=(2, 1)), (2, 3, 6, 7)),
    ("Fold", ((5, 6), (2, 2)), dict(padding=1), (2, 12, 42)),
]


@pytest.mark.parametrize("name, args, kwargs, shape", POOL, ids=[f"{p[0]}-{i}" for i, p in enumerate(POOL)])
def test_parameterless_layers_match_reference(name, args, kwargs, shape):
    em, tm = getattr(enn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(em) == repr(tm)
    if name.startswith("LPPool"):
        shape_ok = shape
        xe, xt = pair(shape_ok)
        xe, xt = xe.detach().abs().requires_grad_(), xt.detach().abs().requires_grad_()
        ye, yt = em(xe), tm(xt)
        close(ye, yt)
        ye.sum().backward()
        yt.sum().backward()
        close(xe.grad, xt.grad)
        return
    if name == "ChannelShuffle":
        # PyTorch 1.13's channel_shuffle has no derivative (RuntimeError); Ember's is the permutation's, checked
        # against the same shuffle written with view/transpose.
        xe, xt = pair(shape)
        ye = em(xe)
        close(ye, tm(xt))
        with pytest.raises(RuntimeError, match="derivative for channel_shuffle"):
            tm(xt).sum().backward()
        g = args[0]
        yt = xt.view(shape[0], g, shape[1] // g, *shape[2:]).transpose(1, 2).reshape(shape)
        close(ye, yt)
        ge, gt = pair(shape, 1, requires_grad=False)
        ye.backward(ge)
        yt.backward(gt)
        close(xe.grad, xt.grad)
        return
    run_both(em, tm, shape)


@pytest.mark.parametrize("fn, n", [("max_pool1d", 1), ("max_pool3d", 3), ("adaptive_max_pool1d", 1),
                                   ("adaptive_max_pool2d", 2), ("adaptive_max_pool3d", 3)])
def test_return_indices_and_unpool(fn, n):
    shape = (2, 3) + (6,) * n
    xe, xt = pair(shape)
    arg = 2
    ve, ie = getattr(EF, fn)(xe, arg, return_indices=True)
    vt, it = getattr(TF, fn)(xt, arg, return_indices=True)
    close(ve, vt)
    assert ie.dtype == ember.int64
    np.testing.assert_array_equal(ie.numpy(), it.numpy())
    if fn.startswith("max_pool"):
        ue = getattr(EF, f"max_unpool{n}d")(ve, ie, 2)
        ut = getattr(TF, f"max_unpool{n}d")(vt, it, 2)
        close(ue, ut)


@pytest.mark.parametrize("n", [2, 3])
def test_fractional_max_pool_draws_as_pytorch(n):
    shape = (2, 3) + (9,) * n
    xe, xt = pair(shape)
    ember.manual_seed(5)
    torch.manual_seed(5)
    em = getattr(enn, f"FractionalMaxPool{n}d")(2, output_size=4, return_indices=True)
    tm = getattr(torch.nn, f"FractionalMaxPool{n}d")(2, output_size=4, return_indices=True)
    (ve, ie), (vt, it) = em(xe), tm(xt)
    close(ve, vt)
    np.testing.assert_array_equal(ie.numpy(), it.numpy())
    ve.sum().backward()
    vt.sum().backward()
    close(xe.grad, xt.grad)


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact", "bilinear", "bicubic", "area"])
@pytest.mark.parametrize("kw", [dict(size=(7, 3)), dict(scale_factor=1.7), dict(scale_factor=(0.6, 2.2)),
                                dict(scale_factor=1.7, recompute_scale_factor=True)])
def test_interpolate_matches_reference(mode, kw):
    if mode == "area" and "scale_factor" in kw and not kw.get("recompute_scale_factor"):
        kw = dict(kw, recompute_scale_factor=None)
    xe, xt = pair((2, 3, 5, 6))
    for ac in ((None,) if mode in ("nearest", "nearest-exact", "area") else (False, True)):
        ye = EF.interpolate(xe, mode=mode, align_corners=ac, **kw)
        yt = TF.interpolate(xt, mode=mode, align_corners=ac, **kw)
        close(ye, yt)
        g = np.random.default_rng(1).standard_normal(tuple(yt.shape)).astype(np.float32)
        gxe = ember.autograd.grad(ye, xe, ember.tensor(g))[0]
        gxt = torch.autograd.grad(yt, xt, torch.tensor(g))[0]
        close(gxe, gxt)


def test_interpolate_errors():
    x = ember.zeros(1, 2, 4, 4)
    with pytest.raises(ValueError):
        EF.interpolate(x, size=3, scale_factor=2)
    with pytest.raises(ValueError):
        EF.interpolate(x)
    with pytest.raises(ValueError):
        EF.interpolate(x, size=3, align_corners=True)
    with pytest.raises(NotImplementedError):
        EF.interpolate(x, size=3, mode="linear")
    with pytest.raises(NotImplementedError):
        EF.interpolate(x, size=3, mode="bogus")


def test_fold_unfold_roundtrip_and_errors():
    xe, xt = pair((2, 3, 5, 6))
    ce = EF.unfold(xe, 2, padding=1)
    ct = TF.unfold(xt, 2, padding=1)
    close(ce, ct)
    close(EF.fold(ce, (5, 6), 2, padding=1), TF.fold(ct, (5, 6), 2, padding=1))
    with pytest.raises(RuntimeError):
        EF.fold(ember.zeros(1, 5, 30), (5, 6), 2)
    with pytest.raises(NotImplementedError):
        EF.unfold(ember.zeros(2, 3), 2)


def test_pad_modes_with_gradients():
    for mode, shape, pad in [("reflect", (2, 3, 6), (2, 1)), ("replicate", (2, 3, 4, 5), (1, 2, 0, 1)),
                             ("circular", (1, 2, 3, 4, 5), (1, 1, 2, 0, 1, 1)), ("constant", (3, 4), (1, 2, 1, 0))]:
        xe, xt = pair(shape)
        ye, yt = EF.pad(xe, pad, mode), TF.pad(xt, pad, mode)
        close(ye, yt)
        ye.sum().backward()
        yt.sum().backward()
        close(xe.grad, xt.grad)


@pytest.mark.parametrize("fn, size", [
    ("adaptive_max_pool2d", (2 ** 40, 2 ** 40)),
    ("adaptive_max_pool3d", (2 ** 40, 1, 1)),
    ("adaptive_avg_pool3d", (2 ** 40, 1, 1)),
    ("adaptive_max_pool1d", (2 ** 62,)),
])
def test_an_impossible_adaptive_output_size_is_refused_at_once(fn, size):
    # Found by a user's check: these ran a loop over every output position (hours) before failing. PyTorch refuses
    # an output whose byte count overflows; an output larger than the machine's memory is refused too.
    x = ember.randn(*((1, 1) + (4,) * len(size)))
    with pytest.raises(RuntimeError, match=fn + ": (Storage size calculation overflowed|an output of sizes)"):
        getattr(EF, fn)(x, size)
    tx = torch.randn(*((1, 1) + (4,) * len(size)))
    if size == (2 ** 40, 2 ** 40):
        with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
            getattr(torch.nn.functional, fn)(tx, size)
    with pytest.raises(RuntimeError, match="greater than or equal to 0"):
        getattr(EF, fn)(x, (-1,) * len(size))
