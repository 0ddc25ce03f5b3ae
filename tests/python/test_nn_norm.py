"""Normalization, lazy modules, nn.init and grid sampling against PyTorch 1.13: the functional norms (batch,
instance, layer, group, local response) with their argument checks, the norm layers (InstanceNorm1d/2d/3d,
BatchNorm3d, SyncBatchNorm, LocalResponseNorm, CrossMapLRN2d) with running statistics, repr and state_dict
interchange, every Lazy* module and the uninitialized parameters, every nn.init function under the same seed,
and affine_grid / grid_sample in every mode with gradients for input and grid."""
import copy
import pickle
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.nn as enn
import ember.nn.functional as EF
from conftest import assert_raises_like, assert_same, to_ember

TF = torch.nn.functional
# Both libraries warn on constructing a lazy module; the warning itself is checked in one test.
pytestmark = pytest.mark.filterwarnings("ignore:Lazy modules are a new feature")


def tt(t):
    """The torch copy of an ember tensor (values and dtype), without grad."""
    return torch.from_numpy(np.array(t.detach().numpy()))


def close(a, b, atol=1e-5, rtol=1e-4):
    a = a.detach().numpy() if isinstance(a, ember.Tensor) else np.asarray(a)
    b = b.detach().numpy() if isinstance(b, torch.Tensor) else np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, atol=atol, rtol=rtol)


def pair(shape, seed=0, dtype=np.float64, requires_grad=True, low=None, high=None):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) if low is None else rng.uniform(low, high, size=shape)
    x = x.astype(dtype)
    return ember.tensor(x, requires_grad=requires_grad), torch.tensor(x, requires_grad=requires_grad)


def grads_close(ember_tensors, torch_tensors, atol=1e-9, rtol=1e-7):
    for e, t in zip(ember_tensors, torch_tensors):
        if t is None or not t.requires_grad:
            continue
        assert (e.grad is None) == (t.grad is None)
        if t.grad is not None:
            close(e.grad, t.grad, atol=atol, rtol=rtol)


def load_from_torch(em, tm):
    em.load_state_dict({k: to_ember(v) for k, v in tm.state_dict().items()})


# ---------------------------------------------------------------------------------------------- functional norms
BATCH_NORM_CASES = [
    # (shape, training, with running stats, affine, momentum)
    ((4, 3), True, True, True, 0.1),
    ((4, 3, 5), True, True, False, 0.3),
    ((2, 3, 4, 5), True, False, True, 0.1),
    ((2, 3, 2, 3, 4), False, True, True, 0.1),
    ((3, 2, 5), False, True, False, 0.1),
]


@pytest.mark.parametrize("shape, training, stats, affine, momentum", BATCH_NORM_CASES)
def test_batch_norm_functional(shape, training, stats, affine, momentum):
    xe, xt = pair(shape)
    c = shape[1]
    we, wt = pair((c,), 1)
    be, bt = pair((c,), 2)
    rme, rmt = pair((c,), 3, requires_grad=False)
    rve, rvt = (t.abs() + 0.5 for t in pair((c,), 4, requires_grad=False))
    args_e = (rme, rve) if stats else (None, None)
    args_t = (rmt, rvt) if stats else (None, None)
    kw_e = dict(weight=we, bias=be) if affine else {}
    kw_t = dict(weight=wt, bias=bt) if affine else {}
    ye = EF.batch_norm(xe, *args_e, training=training, momentum=momentum, eps=1e-3, **kw_e)
    yt = TF.batch_norm(xt, *args_t, training=training, momentum=momentum, eps=1e-3, **kw_t)
    close(ye, yt, atol=1e-10)
    if stats:
        close(rme, rmt, atol=1e-12)
        close(rve, rvt, atol=1e-12)
    ge, gt = pair(shape, 5, requires_grad=False)
    ye.backward(ge)
    yt.backward(gt)
    grads_close([xe, we, be], [xt, wt, bt])


@pytest.mark.parametrize("shape, use_input_stats, stats, affine", [
    ((2, 3, 5), True, False, False),
    ((2, 3, 5), True, True, True),
    ((3, 2, 4, 5), True, True, False),
    ((2, 2, 2, 3, 4), True, False, True),
    ((2, 3, 4, 4), False, True, True),
    ((0, 3, 4), True, False, False),
])
def test_instance_norm_functional(shape, use_input_stats, stats, affine):
    xe, xt = pair(shape)
    c = shape[1]
    we, wt = pair((c,), 1)
    be, bt = pair((c,), 2)
    rme, rmt = pair((c,), 3, requires_grad=False)
    rve, rvt = (t.abs() + 0.5 for t in pair((c,), 4, requires_grad=False))
    kw_e = dict(running_mean=rme, running_var=rve) if stats else {}
    kw_t = dict(running_mean=rmt, running_var=rvt) if stats else {}
    if affine:
        kw_e.update(weight=we, bias=be)
        kw_t.update(weight=wt, bias=bt)
    ye = EF.instance_norm(xe, use_input_stats=use_input_stats, momentum=0.2, eps=1e-4, **kw_e)
    yt = TF.instance_norm(xt, use_input_stats=use_input_stats, momentum=0.2, eps=1e-4, **kw_t)
    close(ye, yt, atol=1e-10)
    if stats:
        close(rme, rmt, atol=1e-12)
        close(rve, rvt, atol=1e-12)
    ge, gt = pair(shape, 5, requires_grad=False)
    ye.backward(ge)
    yt.backward(gt)
    grads_close([xe, we, be], [xt, wt, bt])
    # the torch-level form takes every argument positionally
    ze = ember.instance_norm(xe.detach(), None, None, None, None, True, 0.1, 1e-5, False)
    zt = torch.instance_norm(xt.detach(), None, None, None, None, True, 0.1, 1e-5, False)
    close(ze, zt, atol=1e-10)


@pytest.mark.parametrize("shape, normalized_shape, affine", [
    ((4, 5), (5,), True), ((2, 3, 4), [3, 4], True), ((2, 3, 4), (4,), False), ((0, 5), (5,), True)])
def test_layer_norm_functional(shape, normalized_shape, affine):
    xe, xt = pair(shape)
    we, wt = pair(tuple(normalized_shape), 1)
    be, bt = pair(tuple(normalized_shape), 2)
    ye = EF.layer_norm(xe, normalized_shape, we if affine else None, be if affine else None, eps=1e-3)
    yt = TF.layer_norm(xt, normalized_shape, wt if affine else None, bt if affine else None, eps=1e-3)
    close(ye, yt, atol=1e-10)
    ge, gt = pair(shape, 5, requires_grad=False)
    ye.backward(ge)
    yt.backward(gt)
    grads_close([xe, we, be], [xt, wt, bt])


@pytest.mark.parametrize("shape, groups", [((2, 6, 5), 3), ((3, 4, 2, 3), 2), ((2, 4), 4), ((0, 4, 3), 2)])
def test_group_norm_functional(shape, groups):
    xe, xt = pair(shape)
    we, wt = pair((shape[1],), 1)
    be, bt = pair((shape[1],), 2)
    ye = EF.group_norm(xe, groups, we, be, eps=1e-3)
    yt = TF.group_norm(xt, groups, wt, bt, eps=1e-3)
    close(ye, yt, atol=1e-10)
    ge, gt = pair(shape, 5, requires_grad=False)
    ye.backward(ge)
    yt.backward(gt)
    grads_close([xe, we, be], [xt, wt, bt])


@pytest.mark.parametrize("shape, size", [((2, 5, 4), 3), ((2, 6, 3, 4), 2), ((1, 4, 2, 3, 2), 5), ((2, 3, 4), 10),
                                         ((2, 4, 3), 1)])
def test_local_response_norm_functional(shape, size):
    xe, xt = pair(shape)
    ye = EF.local_response_norm(xe, size, alpha=0.3, beta=0.6, k=1.5)
    yt = TF.local_response_norm(xt, size, alpha=0.3, beta=0.6, k=1.5)
    close(ye, yt, atol=1e-10)
    ge, gt = pair(shape, 5, requires_grad=False)
    ye.backward(ge)
    yt.backward(gt)
    grads_close([xe], [xt], atol=1e-8, rtol=1e-6)


def test_local_response_norm_integer_and_empty_input():
    x = torch.arange(24).view(2, 3, 4)
    assert_same(EF.local_response_norm(to_ember(x), 2, alpha=0.5), TF.local_response_norm(x, 2, alpha=0.5))
    e = ember.zeros(0, 3, 4)
    assert EF.local_response_norm(e, 3) is e


def _bad_norm_calls(F, lib):
    x = lib.ones(4, 3, 5)
    rm, rv = lib.zeros(3), lib.ones(3)
    return [
        lambda: F.batch_norm(x, None, None),
        lambda: F.batch_norm(x, rm, None),
        lambda: F.batch_norm(lib.ones(5), rm, rv),
        lambda: F.batch_norm(lib.ones(5), None, None, training=True),
        lambda: F.batch_norm(lib.tensor(1.0), None, None, training=True),
        lambda: F.batch_norm(x, rm, rv, weight=lib.ones(4)),
        lambda: F.batch_norm(x, rm, rv, bias=lib.ones(2)),
        lambda: F.batch_norm(x, lib.zeros(2), rv),
        lambda: F.batch_norm(x, rm, lib.ones(2), training=True),
        lambda: F.batch_norm(x, rm.double(), rv),
        lambda: F.batch_norm(x, rm, rv, weight=lib.ones(3, dtype=lib.float64)),
        lambda: F.batch_norm(x.double(), rm, rv),
        lambda: F.batch_norm(lib.ones(1, 3), None, None, training=True),
        lambda: F.batch_norm(x.bfloat16(), rm, rv, weight=lib.ones(3, dtype=lib.bfloat16)),
        lambda: F.layer_norm(x.bfloat16(), [5], lib.ones(5)),
        lambda: F.group_norm(x.bfloat16(), 3, lib.ones(3)),
        lambda: F.layer_norm(x, []),
        lambda: F.layer_norm(x, [4]),
        lambda: F.layer_norm(x, [2, 4, 3, 5]),
        lambda: F.layer_norm(x, [5], weight=lib.ones(4)),
        lambda: F.layer_norm(x, [5], weight=lib.ones(1, 5)),
        lambda: F.layer_norm(x, [5], bias=lib.ones(4)),
        lambda: F.layer_norm(x, 5),
        lambda: F.layer_norm(x, [5], weight=lib.ones(5, dtype=lib.float64)),
        lambda: F.layer_norm(lib.tensor(1.0), [1]),
        lambda: F.group_norm(x, 2),
        lambda: F.group_norm(x, 0),
        lambda: F.group_norm(x, -1),
        lambda: F.group_norm(lib.ones(3), 1),
        lambda: F.group_norm(x, 3, weight=lib.ones(4)),
        lambda: F.group_norm(x, 3, weight=lib.ones(3, 1)),
        lambda: F.group_norm(x, 3, bias=lib.ones(2)),
        lambda: F.group_norm(x, 3, weight=lib.ones(3, dtype=lib.float64)),
        lambda: F.group_norm(lib.ones(1, 3, 1), 3),
        lambda: F.instance_norm(lib.ones(5)),
        lambda: F.instance_norm(lib.ones(3, 5)),
        lambda: F.instance_norm(x, use_input_stats=False),
        lambda: F.instance_norm(x, weight=lib.ones(4)),
        lambda: F.instance_norm(x, running_mean=lib.zeros(4), running_var=lib.ones(3)),
        lambda: F.instance_norm(lib.ones(2, 3, 1)),
        lambda: F.local_response_norm(lib.ones(3, 4), 2),
        lambda: F.local_response_norm(x, 0),
        lambda: F.local_response_norm(x > 0, 2),
    ]


@pytest.mark.parametrize("i", range(len(_bad_norm_calls(TF, torch))))
def test_norm_argument_errors_match_reference(i):
    assert_raises_like(_bad_norm_calls(EF, ember)[i], _bad_norm_calls(TF, torch)[i])


def test_norms_accept_what_pytorch_accepts():
    x = torch.randn(4, 3, 5)
    for fe, ft in [
        (lambda F, lib, x: F.batch_norm(x, None, None, training=True), None),
        (lambda F, lib, x: F.batch_norm(x, lib.zeros(3), lib.ones(3), weight=lib.ones(3, 1)), None),
        (lambda F, lib, x: F.batch_norm(x.bfloat16(), lib.zeros(3), lib.ones(3)), None),
        (lambda F, lib, x: F.batch_norm(x[:0], lib.zeros(3), lib.ones(3), training=True), None),
        (lambda F, lib, x: F.layer_norm(x, lib.Size([5])), None),
        (lambda F, lib, x: F.layer_norm(x, (3, 5), None, lib.ones(3, 5)), None),
        (lambda F, lib, x: F.group_norm(x[:, :, 0], 3), None),
        (lambda F, lib, x: F.group_norm(lib.zeros(2, 0, 3), 1), None),
    ]:
        assert_same(fe(EF, ember, to_ember(x)), fe(TF, torch, x), rtol=2e-2, atol=2e-2)


# ---------------------------------------------------------------------------------------------- norm layers
def _run_steps(em, tm, shape, steps=3):
    """Forward/backward of both in train mode for a few batches, then eval: outputs, input and parameter
    gradients, and the running statistics after each step."""
    for step in range(steps):
        xe, xt = pair(shape, 10 + step)
        ye, yt = em(xe), tm(xt)
        close(ye, yt, atol=1e-9)
        ge, gt = pair(tuple(yt.shape), 20 + step, requires_grad=False)
        ye.backward(ge)
        yt.backward(gt)
        close(xe.grad, xt.grad, atol=1e-9)
        for (ne, pe), (nt, pt) in zip(em.named_parameters(), tm.named_parameters()):
            assert ne == nt
            close(pe.grad, pt.grad, atol=1e-9)
        for k, v in tm.state_dict().items():
            close(em.state_dict()[k], v, atol=1e-12)
    em.eval()
    tm.eval()
    xe, xt = pair(shape, 30)
    close(em(xe), tm(xt), atol=1e-9)


NORM_LAYERS = [
    ("InstanceNorm1d", (3,), {}, (2, 3, 5)),
    ("InstanceNorm1d", (3,), dict(affine=True, track_running_stats=True), (2, 3, 5)),
    ("InstanceNorm1d", (3,), dict(affine=True, track_running_stats=True), (3, 5)),  # unbatched
    ("InstanceNorm1d", (3,), dict(track_running_stats=True, momentum=0.9), (2, 3, 5)),
    ("InstanceNorm2d", (2,), dict(affine=True), (2, 2, 3, 4)),
    ("InstanceNorm2d", (2,), dict(track_running_stats=True, momentum=0.5), (2, 3, 4)),  # unbatched
    ("InstanceNorm3d", (2,), dict(affine=True, track_running_stats=True, eps=1e-3), (2, 2, 2, 3, 4)),
    ("InstanceNorm3d", (2,), {}, (2, 3, 2, 2)),  # unbatched
    ("BatchNorm3d", (3,), {}, (2, 3, 2, 3, 2)),
    ("BatchNorm3d", (3,), dict(momentum=None, affine=False), (2, 3, 2, 3, 2)),
    ("BatchNorm3d", (3,), dict(track_running_stats=False), (2, 3, 2, 3, 2)),
    ("LocalResponseNorm", (3,), dict(alpha=0.2, beta=0.5, k=2.0), (2, 5, 3, 4)),
    ("LocalResponseNorm", (2,), {}, (2, 4, 6)),
]


@pytest.mark.parametrize("name, args, kwargs, shape", NORM_LAYERS,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(NORM_LAYERS)])
def test_norm_layers_match_reference(name, args, kwargs, shape):
    em = getattr(enn, name)(*args, **kwargs).double()
    tm = getattr(torch.nn, name)(*args, **kwargs).double()
    assert repr(em) == repr(tm)
    assert list(em.state_dict()) == list(tm.state_dict())
    for k, v in tm.state_dict().items():
        assert_same(em.state_dict()[k], v)
    if "weight" in tm.state_dict():  # other affine parameters than the initial ones
        with torch.no_grad():
            tm.weight.uniform_(0.5, 1.5)
            tm.bias.uniform_(-1, 1)
        load_from_torch(em, tm)
    _run_steps(em, tm, shape)


def test_instance_norm_momentum_none_is_a_type_error_as_in_pytorch():
    # PyTorch 1.13's instance_norm takes a float momentum (no cumulative average as BatchNorm's None)
    x = torch.randn(2, 3, 5)
    assert_raises_like(lambda: enn.InstanceNorm1d(3, track_running_stats=True, momentum=None)(to_ember(x)),
                       lambda: torch.nn.InstanceNorm1d(3, track_running_stats=True, momentum=None)(x))


def test_instance_norm_num_features_mismatch_behaves_as_pytorch():
    x = torch.randn(2, 4, 5)
    # without affine parameters or running statistics num_features is not used
    close(enn.InstanceNorm1d(3)(to_ember(x)), torch.nn.InstanceNorm1d(3)(x))
    for kwargs in (dict(affine=True), dict(track_running_stats=True)):
        assert_raises_like(lambda: enn.InstanceNorm1d(3, **kwargs)(to_ember(x)),
                           lambda: torch.nn.InstanceNorm1d(3, **kwargs)(x))
    assert_raises_like(lambda: enn.InstanceNorm1d(3, affine=True)(to_ember(x[0])),
                       lambda: torch.nn.InstanceNorm1d(3, affine=True)(x[0]))


@pytest.mark.parametrize("name, shape", [("InstanceNorm1d", (2, 3, 4, 5)), ("InstanceNorm2d", (3, 4)),
                                         ("InstanceNorm3d", (2, 3)), ("BatchNorm3d", (2, 3, 4, 5)),
                                         ("InstanceNorm1d", (2, 3, 1))])
def test_norm_layer_input_errors(name, shape):
    x = torch.ones(shape)
    assert_raises_like(lambda: getattr(enn, name)(3)(to_ember(x)), lambda: getattr(torch.nn, name)(3)(x))


def test_instance_norm_old_state_dict_with_running_stats():
    sd = {"running_mean": ember.zeros(3), "running_var": ember.ones(3)}
    with pytest.raises(RuntimeError, match="Unexpected running stats buffer"):
        enn.InstanceNorm1d(3).load_state_dict(sd)
    with pytest.raises(RuntimeError, match="Unexpected running stats buffer"):
        torch.nn.InstanceNorm1d(3).load_state_dict({k: tt(v) for k, v in sd.items()})
    # with a version in the metadata (a current checkpoint) they are plain unexpected keys
    em = enn.InstanceNorm1d(3, track_running_stats=True)
    tm = torch.nn.InstanceNorm1d(3, track_running_stats=True)
    assert list(em.state_dict()) == list(tm.state_dict()) == ["running_mean", "running_var", "num_batches_tracked"]


def test_state_dict_interchange_with_pytorch():
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Conv2d(2, 4, 3), torch.nn.InstanceNorm2d(4, affine=True,
                                                                                 track_running_stats=True),
                             torch.nn.BatchNorm2d(4), torch.nn.LocalResponseNorm(2), torch.nn.Flatten(),
                             torch.nn.LazyLinear(3))
    tm(torch.randn(2, 2, 6, 6))  # materializes the LazyLinear and updates the running statistics
    em = enn.Sequential(enn.Conv2d(2, 4, 3), enn.InstanceNorm2d(4, affine=True, track_running_stats=True),
                        enn.BatchNorm2d(4), enn.LocalResponseNorm(2), enn.Flatten(), enn.LazyLinear(3))
    em.load_state_dict({k: to_ember(v) for k, v in tm.state_dict().items()})
    assert type(em[5]) is enn.LazyLinear and not em[5].has_uninitialized_params()
    tm.eval()
    em.eval()
    xe, xt = pair((2, 2, 6, 6), dtype=np.float32)
    close(em(xe), tm(xt), atol=1e-5)
    assert type(em[5]) is enn.Linear
    # and back: ember's state dict loads into PyTorch's model
    tm2 = copy.deepcopy(tm)
    tm2.load_state_dict({k: tt(v) for k, v in em.state_dict().items()})
    for k, v in tm.state_dict().items():
        assert torch.equal(tm2.state_dict()[k], v), k


def test_cross_map_lrn2d_matches_reference():
    xe, xt = pair((2, 6, 3, 3))
    for size in (2, 3, 4, 5, 7):
        em, tm = enn.CrossMapLRN2d(size, alpha=0.5, beta=0.75, k=1.0), torch.nn.CrossMapLRN2d(size, 0.5, 0.75, 1.0)
        assert repr(em) == repr(tm)
        ye, yt = em(xe), tm(xt)
        close(ye, yt, atol=1e-10)
        ge, gt = pair((2, 6, 3, 3), size, requires_grad=False)
        (ge_x,) = ember.autograd.grad(ye, xe, ge)
        (gt_x,) = torch.autograd.grad(yt, xt, gt)
        close(ge_x, gt_x, atol=1e-10)
    # size 1: forward works, PyTorch's backward raises
    em, tm = enn.CrossMapLRN2d(1), torch.nn.CrossMapLRN2d(1)
    close(em(xe), tm(xt), atol=1e-10)
    assert_raises_like(lambda: em(xe).sum().backward(), lambda: tm(xt).sum().backward())
    assert_raises_like(lambda: em(xe[0]), lambda: tm(xt[0]))


def test_sync_batch_norm_on_one_process_is_batch_norm():
    em = enn.SyncBatchNorm(3, momentum=0.2).double()
    tm = torch.nn.BatchNorm2d(3, momentum=0.2).double()
    assert repr(em) == repr(torch.nn.SyncBatchNorm(3, momentum=0.2))
    assert list(em.state_dict()) == list(tm.state_dict())
    _run_steps(em, tm, (2, 3, 4, 5))
    with pytest.raises(ValueError, match="at least 2D"):
        em(ember.ones(3))
    with pytest.raises(ValueError, match="non-zero"):
        em(ember.ones(2, 0, 3))


def test_convert_sync_batchnorm():
    tm = torch.nn.Sequential(torch.nn.Conv2d(2, 3, 1), torch.nn.BatchNorm2d(3),
                             torch.nn.Sequential(torch.nn.BatchNorm1d(4, affine=False)))
    em = enn.Sequential(enn.Conv2d(2, 3, 1), enn.BatchNorm2d(3), enn.Sequential(enn.BatchNorm1d(4, affine=False)))
    bn = em[1]
    ce, ct = enn.SyncBatchNorm.convert_sync_batchnorm(em), torch.nn.SyncBatchNorm.convert_sync_batchnorm(tm)
    assert repr(ce) == repr(ct)
    assert type(ce[1]) is enn.SyncBatchNorm and type(ce[2][0]) is enn.SyncBatchNorm
    assert ce[1].weight is bn.weight and ce[1].running_mean is bn.running_mean
    assert ce[1].num_batches_tracked is bn.num_batches_tracked
    assert list(ce.state_dict()) == list(ct.state_dict())
    single = enn.BatchNorm1d(2)
    single.qconfig = "q"
    converted = enn.SyncBatchNorm.convert_sync_batchnorm(single, process_group="pg")
    assert type(converted) is enn.SyncBatchNorm and converted.process_group == "pg" and converted.qconfig == "q"


# ---------------------------------------------------------------------------------------------- lazy modules
LAZY = [
    ("LazyLinear", (4,), {}, (3, 5), "Linear", (5, 4)),
    ("LazyLinear", (4,), dict(bias=False), (2, 3, 5), "Linear", (5, 4)),
    ("LazyConv1d", (4, 3), dict(padding=1), (2, 3, 7), "Conv1d", (3, 4, 3)),
    ("LazyConv2d", (4, 3), dict(groups=2, bias=False), (2, 6, 5, 5), "Conv2d", (6, 4, 3)),
    ("LazyConv2d", (4, 2), {}, (3, 5, 5), "Conv2d", (3, 4, 2)),  # unbatched
    ("LazyConv3d", (2, 2), dict(stride=2), (1, 3, 4, 4, 4), "Conv3d", (3, 2, 2)),
    ("LazyConvTranspose1d", (4, 3), dict(stride=2), (2, 3, 5), "ConvTranspose1d", (3, 4, 3)),
    ("LazyConvTranspose2d", (4, 3), dict(groups=2, output_padding=1, stride=2), (2, 6, 3, 3),
     "ConvTranspose2d", (6, 4, 3)),
    ("LazyConvTranspose3d", (2, 2), {}, (1, 3, 3, 3, 3), "ConvTranspose3d", (3, 2, 2)),
    ("LazyBatchNorm1d", (), {}, (4, 3), "BatchNorm1d", (3,)),
    ("LazyBatchNorm2d", (), dict(affine=False), (2, 3, 4, 4), "BatchNorm2d", (3,)),
    ("LazyBatchNorm3d", (), dict(track_running_stats=False), (2, 3, 2, 2, 2), "BatchNorm3d", (3,)),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 5), "InstanceNorm1d", (3,)),
    ("LazyInstanceNorm2d", (), dict(affine=False), (2, 3, 4, 4), "InstanceNorm2d", (3,)),
    ("LazyInstanceNorm3d", (), dict(track_running_stats=False), (2, 3, 2, 2, 2), "InstanceNorm3d", (3,)),
]


@pytest.mark.parametrize("name, args, kwargs, shape, eager, eager_args", LAZY,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(LAZY)])
def test_lazy_modules_materialize_as_pytorch(name, args, kwargs, shape, eager, eager_args):
    with pytest.warns(UserWarning, match="Lazy modules are a new feature"):
        em = getattr(enn, name)(*args, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tm = getattr(torch.nn, name)(*args, **kwargs)
    assert repr(em) == repr(tm)
    assert em.has_uninitialized_params()
    assert list(em.state_dict()) == list(tm.state_dict())
    for k, v in tm.state_dict().items():
        ev = em.state_dict()[k]
        assert type(ev).__name__ == type(v).__name__, k
        assert repr(ev) == repr(v), k
    # the first forward materializes, draws the initial values as the eager module's constructor does, and
    # turns the module into the eager class
    ember.manual_seed(4)
    torch.manual_seed(4)
    xe, xt = pair(shape, dtype=np.float32)
    ye, yt = em(xe), tm(xt)
    assert type(em) is getattr(enn, eager) and type(tm) is getattr(torch.nn, eager)
    assert not em.has_uninitialized_params() if hasattr(em, "has_uninitialized_params") else True
    assert repr(em) == repr(tm)
    assert list(em.state_dict()) == list(tm.state_dict())
    for k, v in tm.state_dict().items():
        assert_same(em.state_dict()[k], v, msg=k + ": ")
    close(ye, yt, atol=1e-5)
    ye.sum().backward()
    yt.sum().backward()
    close(xe.grad, xt.grad, atol=1e-5)
    for (ne, pe), (nt, pt) in zip(em.named_parameters(), tm.named_parameters()):
        assert ne == nt and isinstance(pe, enn.Parameter) and type(pe) is enn.Parameter
        close(pe.grad, pt.grad, atol=1e-4)
    assert "_initialize_hook" not in em.__dict__ and not em._forward_pre_hooks
    # an eager module made under the same seed has the same initial parameters (the buffers have been updated
    # by the forward)
    ember.manual_seed(4)
    # (the lazy instance norms default to affine=True, track_running_stats=True, the eager ones to False)
    ref_kwargs = dict(affine=True, track_running_stats=True) if name.startswith("LazyInstance") else {}
    ref = getattr(enn, eager)(*eager_args, **{**ref_kwargs, **kwargs})
    assert [n for n, _ in ref.named_parameters()] == [n for n, _ in em.named_parameters()]
    for (_, pr), (_, pe) in zip(ref.named_parameters(), em.named_parameters()):
        np.testing.assert_array_equal(pe.detach().numpy(), pr.detach().numpy())


def test_lazy_linear_dtype_and_conversion_before_materializing():
    em = enn.LazyLinear(3, dtype=ember.float64)
    assert em.weight.dtype == ember.float64
    em.float()  # a conversion keeps the parameters uninitialized, with the new dtype
    assert isinstance(em.weight, enn.UninitializedParameter) and em.weight.dtype == ember.float32
    y = em(ember.ones(2, 4))
    assert y.dtype == ember.float32 and tuple(em.weight.shape) == (3, 4)


def test_loading_a_state_dict_materializes_a_lazy_module():
    torch.manual_seed(0)
    tm = torch.nn.Linear(5, 3)
    em = enn.LazyLinear(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tlazy = torch.nn.LazyLinear(3)
    result = em.load_state_dict({k: to_ember(v) for k, v in tm.state_dict().items()})
    tlazy.load_state_dict(tm.state_dict())
    assert repr(result) == "<All keys matched successfully>"
    # shapes and values are there, the class changes at the first forward (in_features stays 0 until then, as
    # in PyTorch)
    assert type(em) is enn.LazyLinear and not em.has_uninitialized_params()
    assert repr(em) == repr(tlazy)
    assert_same(em.weight.detach(), tm.weight.detach())
    xe, xt = pair((2, 5), dtype=np.float32)
    close(em(xe), tm(xt))
    close(em(xe), tlazy(xt))
    assert type(em) is enn.Linear and repr(em) == repr(tlazy)
    # an uninitialized state dict loads into a lazy module (nothing materializes) but not into an eager one
    lazy2 = enn.LazyLinear(3)
    lazy2.load_state_dict(enn.LazyLinear(3).state_dict())
    assert lazy2.has_uninitialized_params()
    assert_raises_like(lambda: enn.Linear(2, 3).load_state_dict(enn.LazyLinear(3).state_dict()),
                       lambda: torch.nn.Linear(2, 3).load_state_dict(tlazy_state()))


def tlazy_state():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.nn.LazyLinear(3).state_dict()


def test_lazy_batch_norm_load_and_errors():
    tm = torch.nn.BatchNorm1d(4)
    tm(torch.randn(5, 4))
    em = enn.LazyBatchNorm1d()
    em.load_state_dict({k: to_ember(v) for k, v in tm.state_dict().items()})
    for k, v in tm.state_dict().items():
        assert_same(em.state_dict()[k], v)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_raises_like(lambda: enn.LazyConv2d(4, 3, groups=2)(ember.ones(1, 3, 5, 5)),
                           lambda: torch.nn.LazyConv2d(4, 3, groups=2)(torch.ones(1, 3, 5, 5)))
        assert_raises_like(lambda: enn.LazyConv2d(4, 3)(ember.ones(5, 5)),
                           lambda: torch.nn.LazyConv2d(4, 3)(torch.ones(5, 5)))
        assert_raises_like(lambda: enn.LazyConvTranspose1d(4, 3, padding_mode="reflect"),
                           lambda: torch.nn.LazyConvTranspose1d(4, 3, padding_mode="reflect"))


def test_copied_and_pickled_lazy_modules_materialize_on_their_own():
    m = enn.LazyLinear(3)
    c = copy.deepcopy(m)
    c(ember.ones(2, 4))
    assert type(c) is enn.Linear and c.in_features == 4 and type(m) is enn.LazyLinear
    assert m.has_uninitialized_params() and len(m._forward_pre_hooks) == 1 and not c._forward_pre_hooks
    m(ember.ones(2, 5))
    assert tuple(m.weight.shape) == (3, 5)
    p = pickle.loads(pickle.dumps(enn.LazyBatchNorm1d()))
    assert repr(p) == repr(torch.nn.LazyBatchNorm1d())
    p(ember.ones(4, 3) + ember.arange(4.0).unsqueeze(1))
    assert type(p) is enn.BatchNorm1d and tuple(p.running_mean.shape) == (3,)
    handle = enn.Linear(2, 2).register_forward_hook(lambda *a: None)
    assert pickle.loads(pickle.dumps(handle)).id == handle.id  # its dict is gone: a dead reference
    pickle.loads(pickle.dumps(handle)).remove()


def test_lazy_module_mixin_in_user_module():
    class MyLazy(enn.modules.lazy.LazyModuleMixin, enn.Module):
        def __init__(self):
            super().__init__()
            self.w = enn.UninitializedParameter()

        def initialize_parameters(self, x):
            self.w.materialize(x.shape[-1:])
            enn.init.ones_(self.w)

        def forward(self, x):
            return x * self.w

    m = MyLazy()
    assert m.has_uninitialized_params()
    close(m(ember.full((2, 3), 2.0)), torch.full((2, 3), 2.0))
    assert not m.has_uninitialized_params() and type(m) is MyLazy

    class Incomplete(enn.modules.lazy.LazyModuleMixin, enn.Module):
        def __init__(self):
            super().__init__()
            self.w = enn.UninitializedParameter()

        def initialize_parameters(self, x):
            pass

        def forward(self, x):
            return x

    with pytest.raises(RuntimeError, match="has not been fully initialized"):
        Incomplete()(ember.ones(2))

    class NoInit(enn.modules.lazy.LazyModuleMixin, enn.Module):
        def forward(self, x):
            return x

    with pytest.raises(NotImplementedError):
        NoInit()(ember.ones(2))


def test_uninitialized_parameter_and_buffer():
    p = enn.UninitializedParameter()
    tp = torch.nn.UninitializedParameter()
    assert repr(p) == repr(tp) == "<UninitializedParameter>"
    assert isinstance(p, enn.Parameter) and enn.parameter.is_lazy(p)
    assert p.requires_grad and p.dtype == ember.float32 and p.grad is None
    assert tuple(p.size()) == (0,)
    for attempt in (lambda q: q.shape, lambda q: q.add(1), lambda q: q.dim(), lambda q: q.numel(),
                    lambda q: q.detach(), lambda q: q.clone(), lambda q: len(q), lambda q: q.requires_grad_(False),
                    lambda q: q.share_memory_()):
        assert_raises_like(lambda: attempt(p), lambda: attempt(tp))
    assert p.double().dtype == ember.float64 and type(p.double()) is ember.Tensor
    q = copy.deepcopy(p)
    assert type(q) is enn.UninitializedParameter and q is not p
    r = pickle.loads(pickle.dumps(p))
    assert type(r) is enn.UninitializedParameter and r.requires_grad
    p.materialize((2, 3), dtype=ember.float64)
    assert type(p) is enn.Parameter and tuple(p.shape) == (2, 3) and p.dtype == ember.float64
    b = enn.UninitializedBuffer(dtype=ember.float64)
    assert repr(b) == "<UninitializedBuffer>" and not b.requires_grad and not isinstance(b, enn.Parameter)
    b.materialize((4,))
    assert type(b) is ember.Tensor and tuple(b.shape) == (4,) and b.dtype == ember.float64
    m = enn.LazyLinear(2)
    with pytest.raises(RuntimeError, match="share memory"):
        m.weight.share_memory_()
    with pytest.raises(RuntimeError, match="DataParallel"):
        m._replicate_for_data_parallel()


# ---------------------------------------------------------------------------------------------- nn.init
def _seeded_pair(fn_e, fn_t, shape, seed=11, dtype="float32"):
    ember.manual_seed(seed)
    torch.manual_seed(seed)
    e = ember.empty(shape, dtype=getattr(ember, dtype))
    t = torch.empty(shape, dtype=getattr(torch, dtype))
    re, rt = fn_e(e), fn_t(t)
    assert re is e and rt is t
    # the generators advanced alike
    assert ember.rand(3).tolist() == torch.rand(3).tolist()
    return e, t


INIT_CASES = [
    ("uniform_", (), dict(a=-0.5, b=2.0), (3, 4)),
    ("normal_", (), dict(mean=1.0, std=0.3), (5, 2)),
    ("trunc_normal_", (), {}, (20, 30)),
    ("trunc_normal_", (), dict(mean=0.5, std=2.0, a=-1.0, b=3.0), (7, 9)),
    ("constant_", (0.25,), {}, (2, 3)),
    ("ones_", (), {}, (4,)),
    ("zeros_", (), {}, (2, 2)),
    ("eye_", (), {}, (3, 5)),
    ("dirac_", (), {}, (4, 3, 3)),
    ("dirac_", (), dict(groups=2), (6, 2, 3, 3)),
    ("dirac_", (), {}, (2, 4, 3, 2, 3)),
    ("xavier_uniform_", (), dict(gain=2.0), (4, 5, 3)),
    ("xavier_normal_", (), {}, (6, 3)),
    ("kaiming_uniform_", (), dict(a=0.2, mode="fan_out"), (5, 4, 2)),
    ("kaiming_uniform_", (), dict(nonlinearity="relu"), (5, 4)),
    ("kaiming_normal_", (), dict(mode="fan_in", nonlinearity="tanh"), (3, 6)),
    ("orthogonal_", (), {}, (4, 7)),
    ("orthogonal_", (), dict(gain=1.5), (8, 3)),
    ("orthogonal_", (), {}, (3, 2, 4)),
    ("sparse_", (0.3,), {}, (10, 6)),
    ("sparse_", (0.5,), dict(std=1.0), (7, 4)),
]


@pytest.mark.parametrize("name, args, kwargs, shape", INIT_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(INIT_CASES)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_init_seeded_equals_pytorch(name, args, kwargs, shape, dtype):
    e, t = _seeded_pair(lambda x: getattr(enn.init, name)(x, *args, **kwargs),
                        lambda x: getattr(torch.nn.init, name)(x, *args, **kwargs), shape, dtype=dtype)
    if name == "trunc_normal_":
        # the same uniform draws through erfinv, whose last bit differs between Ember's kernel and PyTorch's
        close(e, t, atol=0, rtol=1e-6 if dtype == "float32" else 1e-14)
    elif name == "orthogonal_":  # Q of a QR decomposition: LAPACK's rounding, not a draw
        close(e, t, atol=1e-6 if dtype == "float32" else 1e-12)
        m = e.reshape(shape[0], -1)
        gram = m @ m.t() if shape[0] <= m.shape[1] else m.t() @ m
        close(gram, torch.eye(gram.shape[0], dtype=gram.dtype if False else getattr(torch, dtype))
              * kwargs.get("gain", 1) ** 2, atol=1e-5)
    else:
        np.testing.assert_array_equal(e.numpy(), t.numpy())


def test_init_of_parameters_keeps_them_leaves():
    p = enn.Parameter(ember.empty(3, 4))
    for fn in (enn.init.trunc_normal_, enn.init.orthogonal_, enn.init.xavier_uniform_, enn.init.eye_):
        out = fn(p)
        assert out is p and p.is_leaf and p.requires_grad and p.grad_fn is None
    enn.init.dirac_(enn.Parameter(ember.empty(2, 2, 3)))
    enn.init.sparse_(p, 0.5)
    assert p.is_leaf


@pytest.mark.parametrize("nonlinearity, param", [
    ("linear", None), ("conv1d", None), ("conv2d", None), ("conv3d", None), ("conv_transpose1d", None),
    ("conv_transpose2d", None), ("conv_transpose3d", None), ("sigmoid", None), ("tanh", None), ("relu", None),
    ("leaky_relu", None), ("leaky_relu", 0.2), ("leaky_relu", 3), ("selu", None)])
def test_calculate_gain(nonlinearity, param):
    assert_same(enn.init.calculate_gain(nonlinearity, param), torch.nn.init.calculate_gain(nonlinearity, param))


def test_init_errors_match_reference():
    for call in [
        lambda I, lib: I.calculate_gain("softmax"),
        lambda I, lib: I.calculate_gain("leaky_relu", "x"),
        lambda I, lib: I.calculate_gain("leaky_relu", True),
        lambda I, lib: I.eye_(lib.empty(2, 3, 4)),
        lambda I, lib: I.dirac_(lib.empty(2, 3)),
        lambda I, lib: I.dirac_(lib.empty(5, 2, 3), groups=2),
        lambda I, lib: I.xavier_uniform_(lib.empty(3)),
        lambda I, lib: I.kaiming_normal_(lib.empty(3, 4), mode="fan_avg"),
        lambda I, lib: I.orthogonal_(lib.empty(3)),
        lambda I, lib: I.sparse_(lib.empty(3, 4, 5), 0.1),
    ]:
        assert_raises_like(lambda: call(enn.init, ember), lambda: call(torch.nn.init, torch))
    with pytest.warns(UserWarning, match="mean is more than 2 std"):
        enn.init.trunc_normal_(ember.empty(3), mean=10.0)
    with pytest.warns(UserWarning, match="zero-element"):
        enn.init.kaiming_uniform_(ember.empty(0, 3))
    e = ember.empty(0, 3)
    assert enn.init.orthogonal_(e) is e


@pytest.mark.parametrize("old, args", [("uniform", ()), ("normal", ()), ("constant", (0.5,)), ("eye", ()),
                                       ("dirac", ()), ("xavier_uniform", ()), ("xavier_normal", ()),
                                       ("kaiming_uniform", ()), ("kaiming_normal", ()), ("orthogonal", ()),
                                       ("sparse", (0.2,))])
def test_deprecated_init_aliases_warn_and_initialize(old, args):
    shape = (4, 3, 3) if old == "dirac" else (4, 3)
    message = "nn.init.{} is now deprecated in favor of nn.init.{}_.".format(old, old)
    with pytest.warns(UserWarning) as record:
        e, t = _seeded_pair(lambda x: getattr(enn.init, old)(x, *args), lambda x: getattr(torch.nn.init, old)(x, *args),
                            shape)
    assert message in [str(w.message) for w in record]
    assert getattr(enn.init, old).__name__ == old
    if old == "orthogonal":
        close(e, t, atol=1e-6)
    else:
        np.testing.assert_array_equal(e.numpy(), t.numpy())


# ---------------------------------------------------------------------------------------------- grid sampling
def _grid_pair(shape, seed, spread=1.3):
    # points inside and outside [-1, 1], and some exactly on the edges and corner centers
    e, t = pair(shape, seed, low=-spread, high=spread)
    flat = t.detach().view(-1).clone()
    flat[:6] = torch.tensor([-1.0, 1.0, 0.0, -1.0, 1.0, 1.0])[: flat.numel()]
    return ember.tensor(flat.view(shape).numpy(), requires_grad=True), flat.view(shape).requires_grad_()


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_2d_matches_reference(mode, padding_mode, align_corners):
    xe, xt = pair((2, 3, 4, 5), 1)
    ge, gt = _grid_pair((2, 6, 7, 2), 2)
    ye = EF.grid_sample(xe, ge, mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    yt = TF.grid_sample(xt, gt, mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    close(ye, yt, atol=1e-10)
    oe, ot = pair(tuple(yt.shape), 3, requires_grad=False)
    ye.backward(oe)
    yt.backward(ot)
    close(xe.grad, xt.grad, atol=1e-10)
    close(ge.grad, gt.grad, atol=1e-9)


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_3d_matches_reference(mode, padding_mode, align_corners):
    xe, xt = pair((2, 2, 3, 4, 5), 1)
    ge, gt = _grid_pair((2, 3, 2, 4, 3), 2)
    ye = EF.grid_sample(xe, ge, mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    yt = TF.grid_sample(xt, gt, mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    close(ye, yt, atol=1e-10)
    oe, ot = pair(tuple(yt.shape), 3, requires_grad=False)
    ye.backward(oe)
    yt.backward(ot)
    close(xe.grad, xt.grad, atol=1e-10)
    close(ge.grad, gt.grad, atol=1e-9)


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_far_outside_single_pixel_and_float32(padding_mode):
    # far outside the image (several reflections), and a 1x1 image with align_corners
    xe, xt = pair((1, 2, 3, 4), 4)
    ge, gt = pair((1, 2, 5, 2), 5, low=-7.0, high=7.0)
    for align in (False, True):
        close(EF.grid_sample(xe, ge, padding_mode=padding_mode, align_corners=align),
              TF.grid_sample(xt, gt, padding_mode=padding_mode, align_corners=align), atol=1e-10)
    xe, xt = pair((2, 1, 1, 1), 6)
    ge, gt = pair((2, 3, 3, 2), 7)
    ye = EF.grid_sample(xe, ge, padding_mode=padding_mode, align_corners=True)
    yt = TF.grid_sample(xt, gt, padding_mode=padding_mode, align_corners=True)
    close(ye, yt, atol=1e-10)
    ye.sum().backward()
    yt.sum().backward()
    close(xe.grad, xt.grad, atol=1e-10)
    close(ge.grad, gt.grad, atol=1e-10)
    xe, xt = pair((2, 3, 5, 4), 8, dtype=np.float32)
    ge, gt = pair((2, 4, 4, 2), 9, dtype=np.float32)
    for mode in ("bilinear", "nearest", "bicubic"):
        ye = EF.grid_sample(xe, ge, mode=mode, padding_mode=padding_mode, align_corners=False)
        assert ye.dtype == ember.float32
        close(ye, TF.grid_sample(xt, gt, mode=mode, padding_mode=padding_mode, align_corners=False), atol=1e-5)


@pytest.mark.parametrize("nd", [2, 3])
def test_grid_sample_non_finite_points_and_ties(nd):
    # NaN and infinite coordinates, and nearest's halves (rounded to even in 2-D, away from zero in 3-D, as
    # PyTorch's two kernels): values only, gradients are not defined there
    x = np.arange(24.0).reshape((1, 2, 3, 4) if nd == 2 else (1, 1, 2, 3, 4))
    pts = [[np.nan, 0.0], [0.0, np.inf], [-np.inf, 0.5], [0.3, -np.inf], [2.5, 0.0], [np.nan, np.nan],
           [-0.75, 0.0], [-0.25, 0.5], [0.25, 0.0], [0.75, 1.0]]
    g = np.array(pts)[None, None] if nd == 2 else np.array([p + [0.5] for p in pts])[None, None, None]
    for mode in ("bilinear", "nearest", "bicubic")[: 3 if nd == 2 else 2]:
        for padding_mode in ("zeros", "border", "reflection"):
            for align in (False, True):
                ye = EF.grid_sample(ember.tensor(x), ember.tensor(g), mode, padding_mode, align)
                yt = TF.grid_sample(torch.tensor(x), torch.tensor(g), mode, padding_mode, align)
                close(ye, yt, atol=1e-12)


def test_grid_sample_empty_and_non_contiguous():
    for shape, gshape in [((0, 2, 3, 4), (0, 2, 2, 2)), ((2, 0, 3, 4), (2, 2, 2, 2)), ((2, 3, 3, 4), (2, 0, 5, 2)),
                          ((0, 2, 2, 3, 4), (0, 1, 2, 2, 3))]:
        xe, xt = pair(shape, 1)
        ge, gt = pair(gshape, 2)
        ye, yt = EF.grid_sample(xe, ge, align_corners=False), TF.grid_sample(xt, gt, align_corners=False)
        close(ye, yt)
        ye.sum().backward()
        yt.sum().backward()
        close(xe.grad, xt.grad)
        close(ge.grad, gt.grad)
    xe, xt = pair((3, 5, 4, 2), 3)
    ge, gt = pair((2, 3, 4, 2), 4)
    xe, xt = xe.detach().permute(3, 0, 2, 1), xt.detach().permute(3, 0, 2, 1)  # (2, 3, 4, 5), strided
    ge, gt = ge.detach().transpose(1, 2), gt.detach().transpose(1, 2)
    for mode in ("bilinear", "nearest", "bicubic"):
        close(EF.grid_sample(xe, ge, mode, "reflection", True), TF.grid_sample(xt, gt, mode, "reflection", True),
              atol=1e-12)


def test_grid_sample_gradcheck():
    xe = ember.tensor(np.random.default_rng(0).standard_normal((1, 2, 3, 4)), requires_grad=True)
    # points away from pixel boundaries, where the sampling is smooth
    ge = ember.tensor(np.random.default_rng(1).uniform(-0.9, 0.9, (1, 3, 2, 2)) + 0.013, requires_grad=True)
    for mode in ("bilinear", "bicubic"):
        for padding_mode in ("zeros", "border", "reflection"):
            assert ember.autograd.gradcheck(
                lambda x, g: EF.grid_sample(x, g, mode=mode, padding_mode=padding_mode, align_corners=False),
                (xe, ge))
    xe = ember.tensor(np.random.default_rng(2).standard_normal((1, 2, 2, 3, 2)), requires_grad=True)
    ge = ember.tensor(np.random.default_rng(3).uniform(-1.3, 1.3, (1, 2, 2, 1, 3)) + 0.013, requires_grad=True)
    assert ember.autograd.gradcheck(lambda x, g: EF.grid_sample(x, g, padding_mode="reflection",
                                                                align_corners=True), (xe, ge))
    theta = ember.tensor(np.random.default_rng(4).standard_normal((2, 3, 4)), requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: EF.affine_grid(t, [2, 1, 2, 3, 2], align_corners=False), (theta,))


@pytest.mark.parametrize("size, align_corners", [((2, 3, 4, 5), False), ((2, 3, 4, 5), True),
                                                 ((1, 2, 3, 4, 5), False), ((2, 1, 2, 3, 2), True),
                                                 ((2, 3, 1, 5), False)])
def test_affine_grid_matches_reference(size, align_corners):
    theta_shape = (size[0], 2, 3) if len(size) == 4 else (size[0], 3, 4)
    te, tt_ = pair(theta_shape, 1)
    ye = EF.affine_grid(te, size, align_corners=align_corners)
    yt = TF.affine_grid(tt_, size, align_corners=align_corners)
    close(ye, yt, atol=1e-12)
    oe, ot = pair(tuple(yt.shape), 2, requires_grad=False)
    ye.backward(oe)
    yt.backward(ot)
    close(te.grad, tt_.grad, atol=1e-10)
    close(ember.affine_grid_generator(te.detach(), list(size), align_corners),
          torch.affine_grid_generator(tt_.detach(), list(size), align_corners), atol=1e-12)


def test_affine_grid_identity_resamples_the_image():
    x = ember.tensor(np.random.default_rng(0).standard_normal((2, 3, 4, 5)))
    theta = ember.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]] * 2, dtype=ember.float64)
    for align in (False, True):
        grid = EF.affine_grid(theta, [2, 3, 4, 5], align_corners=align)
        close(EF.grid_sample(x, grid, align_corners=align), x.numpy(), atol=1e-12)


def test_torch_level_grid_sampler_functions():
    xe, xt = pair((2, 3, 4, 5), 1)
    ge, gt = _grid_pair((2, 3, 3, 2), 2)
    for fe, ft in [(ember.grid_sampler, torch.grid_sampler), (ember.grid_sampler_2d, torch.grid_sampler_2d)]:
        for mode in (0, 1, 2):
            for pad in (0, 1, 2):
                close(fe(xe, ge, mode, pad, True), ft(xt, gt, mode, pad, True), atol=1e-10)
    xe, xt = pair((1, 2, 3, 4, 5), 1)
    ge, gt = _grid_pair((1, 2, 3, 4, 3), 2)
    close(ember.grid_sampler_3d(xe, ge, 0, 2, False), torch.grid_sampler_3d(xt, gt, 0, 2, False), atol=1e-10)
    close(ember.grid_sampler(xe, ge, 1, 1, False), torch.grid_sampler(xt, gt, 1, 1, False), atol=1e-10)


def test_grid_functions_warn_without_align_corners():
    x, grid = ember.ones(1, 1, 2, 2), ember.zeros(1, 1, 1, 2)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        EF.grid_sample(x, grid)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        EF.affine_grid(ember.zeros(1, 2, 3), [1, 1, 2, 2])
    with pytest.warns(UserWarning, match="unit-size grids"):
        EF.affine_grid(ember.zeros(1, 2, 3), [1, 1, 1, 2], align_corners=True)


def _bad_grid_calls(F, lib):
    x4, x5 = lib.ones(2, 3, 4, 5), lib.ones(2, 3, 2, 4, 5)
    g4, g5 = lib.zeros(2, 3, 3, 2), lib.zeros(2, 2, 3, 3, 3)
    return [
        lambda: F.grid_sample(x4, g4, mode="area", align_corners=False),
        lambda: F.grid_sample(x4, g4, padding_mode="circular", align_corners=False),
        lambda: F.grid_sample(x4, lib.zeros(3, 3, 3, 2), align_corners=False),
        lambda: F.grid_sample(x4, lib.zeros(2, 3, 3, 3), align_corners=False),
        lambda: F.grid_sample(x4, g5[..., :2], align_corners=False),
        lambda: F.grid_sample(x5, g5, mode="bicubic", align_corners=False),
        lambda: F.grid_sample(lib.ones(2, 3, 0, 5), g4, align_corners=False),
        lambda: F.grid_sample(lib.ones(2, 3, 5), lib.zeros(2, 3, 1), align_corners=False),
        lambda: F.grid_sample(x4, g4.double(), align_corners=False),
        lambda: F.affine_grid(lib.zeros(2, 2, 3, dtype=lib.int64), [2, 3, 4, 5], align_corners=False),
        lambda: F.affine_grid(lib.zeros(2, 3, 4), [2, 3, 4, 5], align_corners=False),
        lambda: F.affine_grid(lib.zeros(2, 2, 3), [2, 3, 4, 5, 6], align_corners=False),
        lambda: F.affine_grid(lib.zeros(2, 2, 3), [2, 3, 4], align_corners=False),
        lambda: F.affine_grid(lib.zeros(2, 2, 3), [2, 3, 0, 5], align_corners=False),
        lambda: lib.affine_grid_generator(lib.zeros(2, 2, 3), [2, 3, 4], False),
        lambda: lib.grid_sampler_2d(x5, g5, 0, 0, False),
        lambda: lib.grid_sampler_3d(x4, g4, 0, 0, False),
    ]


@pytest.mark.parametrize("i", range(len(_bad_grid_calls(TF, torch))))
def test_grid_errors_match_reference(i):
    assert_raises_like(_bad_grid_calls(EF, ember)[i], _bad_grid_calls(TF, torch)[i])


def test_norm_except_dim():
    ve, vt = pair((3, 4, 5), 1)
    for p, d in [(2, 0), (2, 1), (3, 2), (2, -1), (1, -2), (2, -3)]:
        ye, yt = ember.norm_except_dim(ve, p, d), torch.norm_except_dim(vt, p, d)
        close(ye, yt, atol=1e-12)
        ge, gt = pair(tuple(yt.shape), 2, requires_grad=False)
        (gre,), (grt,) = ember.autograd.grad(ye, ve, ge), torch.autograd.grad(yt, vt, gt)
        close(gre, grt, atol=1e-12)
    for d in (3, -4):
        assert_raises_like(lambda: ember.norm_except_dim(ve, 2, d), lambda: torch.norm_except_dim(vt, 2, d))
    assert_raises_like(lambda: ember.norm_except_dim(ember.tensor(2.0), 2, 0),
                       lambda: torch.norm_except_dim(torch.tensor(2.0), 2, 0))
