"""ember.nn.utils against PyTorch 1.13's torch.nn.utils: weight_norm, spectral_norm (hook and parametrization
forms), parametrize, parametrizations.orthogonal, stateless.functional_call, BatchNorm fusion, skip_init,
clip_grad_*: values, gradients, state-dict keys and metadata, and errors."""
import copy
import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch

import ember
import ember.nn as nn
from conftest import assert_same, to_ember, to_torch


def pair(name, *args, **kwargs):
    """(ember module, torch module) of the same class and arguments, the ember one with torch's weights."""
    tm = getattr(torch.nn, name)(*args, **kwargs).double()
    em = getattr(nn, name)(*args, **kwargs).double()
    em.load_state_dict(OrderedDict((k, to_ember(v)) for k, v in tm.state_dict().items()))
    return em, tm


def inputs(*shape, seed=0):
    a = np.random.RandomState(seed).uniform(-2, 2, size=shape)
    return ember.from_numpy(a), torch.from_numpy(a)


def assert_state_same(em, tm):
    es, ts = em.state_dict(), tm.state_dict()
    assert list(es) == list(ts)
    for k in ts:
        assert_same(es[k], ts[k], msg=k + ": ")


def grads_same(em, tm):
    for (en, ep), (tn, tp) in zip(em.named_parameters(), tm.named_parameters()):
        assert en == tn
        assert_same(ep.grad, tp.grad, msg=en + ": ")


# ---------------------------------------------------------------------------------------------- weight_norm
@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_matches_torch(dim):
    em, tm = pair("Linear", 4, 3)
    nn.utils.weight_norm(em, dim=dim)
    torch.nn.utils.weight_norm(tm, dim=dim)
    assert_state_same(em, tm)
    assert [n for n, _ in em.named_parameters()] == ["bias", "weight_g", "weight_v"]
    xe, xt = inputs(5, 4)
    ye, yt = em(xe), tm(xt)
    assert_same(ye, yt)
    (ye * ye).sum().backward()
    (yt * yt).sum().backward()
    grads_same(em, tm)
    nn.utils.remove_weight_norm(em)
    torch.nn.utils.remove_weight_norm(tm)
    assert_state_same(em, tm)
    assert isinstance(em.weight, nn.Parameter)


def test_weight_norm_conv_dim_and_errors():
    em, tm = pair("Conv2d", 2, 3, 3)
    nn.utils.weight_norm(em, dim=1)
    torch.nn.utils.weight_norm(tm, dim=1)
    assert_same(em.weight_g, tm.weight_g.detach())
    assert tuple(em.weight_g.shape) == (1, 2, 1, 1)
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"):
        nn.utils.weight_norm(em, dim=1)
    with pytest.raises(ValueError, match="weight_norm of 'bias' not found"):
        nn.utils.remove_weight_norm(em, "bias")


# ---------------------------------------------------------------------------------------------- spectral_norm
def test_spectral_norm_matches_torch_including_power_iteration():
    em, tm = pair("Linear", 5, 4)
    ember.manual_seed(3)
    torch.manual_seed(3)
    nn.utils.spectral_norm(em, n_power_iterations=2)
    torch.nn.utils.spectral_norm(tm, n_power_iterations=2)
    # u and v are drawn from the generator as PyTorch draws them
    assert_same(em.weight_u, tm.weight_u)
    assert_same(em.weight_v, tm.weight_v)
    sd = em.state_dict()
    assert list(sd) == list(tm.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    assert sd._metadata[""]["spectral_norm"] == tm.state_dict()._metadata[""]["spectral_norm"] == \
        {"weight.version": 1}
    xe, xt = inputs(3, 5)
    for _ in range(2):  # two training forwards: u and v refined in place each time
        ye, yt = em(xe), tm(xt)
        assert_same(ye, yt)
        assert_same(em.weight_u, tm.weight_u)
    ye.sum().backward()
    yt.sum().backward()
    grads_same(em, tm)
    em.eval()
    tm.eval()
    assert_same(em(xe), tm(xt).detach())
    nn.utils.remove_spectral_norm(em)
    torch.nn.utils.remove_spectral_norm(tm)
    assert_state_same(em, tm)
    assert not em._state_dict_hooks and not em._load_state_dict_pre_hooks


def test_spectral_norm_state_dict_round_trip_and_old_version():
    em, tm = pair("Linear", 3, 4)
    nn.utils.spectral_norm(em)
    torch.nn.utils.spectral_norm(tm)
    tsd = tm.state_dict()
    esd = OrderedDict((k, to_ember(v)) for k, v in tsd.items())
    esd._metadata = copy.deepcopy(tsd._metadata)
    em.load_state_dict(esd)
    assert_state_same(em, tm)
    # a version-0 state dict holds the normalized weight instead of v: v is solved for
    old_t = OrderedDict((k, v) for k, v in tsd.items() if k != "weight_v")
    old_t["weight"] = tm.weight.detach()
    old_t._metadata = {"": {"version": 1}}
    old_e = OrderedDict((k, to_ember(v)) for k, v in old_t.items())
    old_e._metadata = {"": {"version": 1}}
    tm.load_state_dict(old_t)
    em.load_state_dict(old_e)
    assert_same(em.weight_v, tm.weight_v, rtol=1e-6, atol=1e-8)


def test_spectral_norm_errors():
    m = nn.Linear(2, 2)
    with pytest.raises(ValueError, match="n_power_iterations to be positive"):
        nn.utils.spectral_norm(m, n_power_iterations=0)
    nn.utils.spectral_norm(m)
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
        nn.utils.spectral_norm(m)
    with pytest.raises(ValueError, match="spectral_norm of 'bias' not found"):
        nn.utils.remove_spectral_norm(m, "bias")


# ---------------------------------------------------------------------------------------------- parametrize
class Symmetric(nn.Module):
    def forward(self, x):
        return x.triu() + x.triu(1).transpose(-1, -2)


class TSymmetric(torch.nn.Module):
    def forward(self, x):
        return x.triu() + x.triu(1).transpose(-1, -2)


class Scale(nn.Module):
    def forward(self, x):
        return 2 * x

    def right_inverse(self, x):
        return x / 2


class TScale(torch.nn.Module):
    def forward(self, x):
        return 2 * x

    def right_inverse(self, x):
        return x / 2


def test_register_parametrization_matches_torch():
    em, tm = pair("Linear", 3, 3)
    P = nn.utils.parametrize
    TP = torch.nn.utils.parametrize
    P.register_parametrization(em, "weight", Symmetric())
    TP.register_parametrization(tm, "weight", TSymmetric())
    P.register_parametrization(em, "weight", Scale())
    TP.register_parametrization(tm, "weight", TScale())
    assert type(em).__name__ == type(tm).__name__ == "ParametrizedLinear"
    assert isinstance(em, nn.Linear)
    assert P.is_parametrized(em) and P.is_parametrized(em, "weight") and not P.is_parametrized(em, "bias")
    assert P.type_before_parametrizations(em) is nn.Linear
    assert_state_same(em, tm)
    assert list(em.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert_same(em.weight, tm.weight.detach())
    xe, xt = inputs(2, 3)
    ye, yt = em(xe), tm(xt)
    assert_same(ye, yt.detach())
    ye.pow(2).sum().backward()
    yt.pow(2).sum().backward()
    grads_same(em, tm)
    # assignment goes through right_inverse (Scale's; Symmetric has none -> error)
    with pytest.raises(RuntimeError, match="does not implement right_inverse"):
        em.weight = ember.ones(3, 3)
    with P.cached():
        assert em.weight is em.weight
    assert em.weight is not em.weight
    P.remove_parametrizations(em, "weight")
    TP.remove_parametrizations(tm, "weight")
    assert type(em) is nn.Linear and not hasattr(em, "parametrizations")
    assert_state_same(em, tm)


def test_right_inverse_at_registration_and_assignment():
    em, tm = pair("Linear", 2, 2)
    w0 = em.weight.detach().clone()
    nn.utils.parametrize.register_parametrization(em, "weight", Scale())
    torch.nn.utils.parametrize.register_parametrization(tm, "weight", TScale())
    assert_same(em.parametrizations.weight.original, tm.parametrizations.weight.original.detach())
    assert_same(em.weight, to_torch(w0))  # forward(right_inverse(w)) == w
    em.weight = ember.full((2, 2), 4.0, dtype=ember.float64)
    tm.weight = torch.full((2, 2), 4.0, dtype=torch.float64)
    assert_same(em.parametrizations.weight.original, tm.parametrizations.weight.original.detach())
    nn.utils.parametrize.remove_parametrizations(em, "weight", leave_parametrized=False)
    torch.nn.utils.parametrize.remove_parametrizations(tm, "weight", leave_parametrized=False)
    assert_same(em.weight, tm.weight.detach())


def test_parametrize_errors():
    P = nn.utils.parametrize
    m = nn.Linear(3, 2)

    class Shrink(nn.Module):
        def forward(self, x):
            return x[:1]

    with pytest.raises(ValueError, match="may not change the shape"):
        P.register_parametrization(m, "weight", Shrink())
    P.register_parametrization(m, "weight", Shrink(), unsafe=True)
    assert tuple(m.weight.shape) == (1, 3)
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element"):
        P.register_parametrization(m, "nothing", Scale())
    with pytest.raises(ValueError, match="does not have a parametrization on bias"):
        P.remove_parametrizations(m, "bias")


# ---------------------------------------------------------------------------------------------- parametrizations
@pytest.mark.parametrize("shape, orthogonal_map", [((4, 4), None), ((4, 4), "cayley"), ((5, 3), None),
                                                    ((3, 5), "householder"), ((5, 3), "matrix_exp")])
def test_orthogonal_matches_torch(shape, orthogonal_map):
    em, tm = pair("Linear", shape[1], shape[0])
    nn.utils.parametrizations.orthogonal(em, orthogonal_map=orthogonal_map)
    torch.nn.utils.parametrizations.orthogonal(tm, orthogonal_map=orthogonal_map)
    assert list(em.state_dict()) == list(tm.state_dict())
    w = em.weight
    q = w.mT @ w if shape[0] >= shape[1] else w @ w.mT
    assert_same(q, torch.eye(min(shape), dtype=torch.float64), atol=1e-10)
    # the initial value is the QR-orthogonalized weight, as PyTorch's (no random draw for a square matrix)
    if shape[0] == shape[1]:
        assert_same(em.weight, tm.weight.detach(), atol=1e-10)
        xe, xt = inputs(2, shape[1])
        em(xe).sum().backward()
        tm(xt).sum().backward()
        assert_same(em.parametrizations.weight.original.grad, tm.parametrizations.weight.original.grad,
                    atol=1e-10)


def test_orthogonal_householder_without_trivialization():
    em, tm = pair("Linear", 3, 5)
    nn.utils.parametrizations.orthogonal(em, orthogonal_map="householder", use_trivialization=False)
    torch.nn.utils.parametrizations.orthogonal(tm, orthogonal_map="householder", use_trivialization=False)
    assert list(em.state_dict()) == list(tm.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert_same(em.weight, tm.weight.detach(), atol=1e-10)
    with pytest.raises(ValueError, match="orthogonal_map has to be one of"):
        nn.utils.parametrizations.orthogonal(nn.Linear(2, 2), orthogonal_map="qr")
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices"):
        nn.utils.parametrizations.orthogonal(nn.Linear(2, 2), name="bias")


def test_parametrizations_spectral_norm_matches_torch():
    em, tm = pair("Linear", 4, 3)
    ember.manual_seed(5)
    torch.manual_seed(5)
    nn.utils.parametrizations.spectral_norm(em)
    torch.nn.utils.parametrizations.spectral_norm(tm)
    assert list(em.state_dict()) == list(tm.state_dict()) == \
        ["bias", "parametrizations.weight.original", "parametrizations.weight.0._u", "parametrizations.weight.0._v"]
    assert_state_same(em, tm)
    xe, xt = inputs(2, 4)
    ye, yt = em(xe), tm(xt)
    assert_same(ye, yt.detach())
    ye.sum().backward()
    yt.sum().backward()
    assert_same(em.parametrizations.weight.original.grad, tm.parametrizations.weight.original.grad)


# ---------------------------------------------------------------------------------------------- stateless
def test_functional_call_matches_torch_and_restores():
    em, tm = pair("Linear", 3, 2)
    we, wt = inputs(2, 3, seed=4)
    we.requires_grad_(True)
    wt.requires_grad_(True)
    xe, xt = inputs(4, 3)
    ye = nn.utils.stateless.functional_call(em, {"weight": we}, (xe,))
    yt = torch.nn.utils.stateless.functional_call(tm, {"weight": wt}, (xt,))
    assert_same(ye, yt.detach())
    ye.sum().backward()
    yt.sum().backward()
    assert_same(we.grad, wt.grad)
    assert em.weight.grad is None and type(em) is nn.Linear
    assert_same(em(xe), tm(xt).detach())  # the module's own weight again


def test_functional_call_nested_names_and_buffer_writes():
    class Counter(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("count", ember.zeros(()))
            self.lin = nn.Linear(2, 2)

        def forward(self, x):
            self.count = self.count + 1
            return self.lin(x)

    m = Counter()
    given = {"count": ember.zeros(()), "lin.bias": ember.ones(2)}
    out = nn.utils.stateless.functional_call(m, given, ember.zeros(1, 2))
    assert out.tolist() == [[1.0, 1.0]]
    assert given["count"].item() == 1.0 and m.count.item() == 0.0
    with pytest.raises(AttributeError):
        nn.utils.stateless.functional_call(m, {"nope.weight": ember.ones(2)}, ember.zeros(1, 2))
    assert type(m) is Counter


# ---------------------------------------------------------------------------------------------- fusion
@pytest.mark.parametrize("bias", [True, False])
def test_fuse_conv_bn_eval(bias):
    ce, ct = pair("Conv2d", 2, 3, 3, bias=bias)
    be, bt = pair("BatchNorm2d", 3)
    with torch.no_grad():
        bt.running_mean.uniform_(-1, 1)
        bt.running_var.uniform_(0.5, 2)
        bt.weight.uniform_(-1, 1)
        bt.bias.uniform_(-1, 1)
    be.load_state_dict(OrderedDict((k, to_ember(v)) for k, v in bt.state_dict().items()))
    for m in (ce, ct, be, bt):
        m.eval()
    fe = nn.utils.fuse_conv_bn_eval(ce, be)
    ft = torch.nn.utils.fuse_conv_bn_eval(ct, bt)
    assert_state_same(fe, ft)
    xe, xt = inputs(1, 2, 5, 5)
    assert_same(fe(xe), to_torch(be(ce(xe)).detach()))
    assert_same(fe(xe), ft(xt).detach())
    ce.train()
    with pytest.raises(AssertionError, match="Fusion only for eval"):
        nn.utils.fuse_conv_bn_eval(ce, be)


def test_fuse_linear_bn_eval():
    le, _ = pair("Linear", 3, 4)
    be, _ = pair("BatchNorm1d", 4)
    be.running_mean.uniform_(-1, 1)
    be.running_var.uniform_(0.5, 2)
    le.eval()
    be.eval()
    fused = nn.utils.fuse_linear_bn_eval(le, be)
    x, _ = inputs(5, 3)
    assert_same(fused(x), to_torch(be(le(x)).detach()))
    assert fused.weight.requires_grad and fused.weight.is_leaf


# ---------------------------------------------------------------------------------------------- skip_init, clip
def test_skip_init():
    m = nn.utils.skip_init(nn.Linear, 3, 4, bias=False)
    assert type(m) is nn.Linear and tuple(m.weight.shape) == (4, 3) and m.bias is None
    assert isinstance(m.weight, nn.Parameter)
    with pytest.raises(RuntimeError, match="Expected a Module"):
        nn.utils.skip_init(int)

    class NoDevice(nn.Module):
        def __init__(self, n):
            super().__init__()

    with pytest.raises(RuntimeError, match="must support a 'device' arg"):
        nn.utils.skip_init(NoDevice, 3)


def test_clip_grad_foreach_and_deprecated_alias():
    pe, pt = inputs(4)
    pe.requires_grad_(True)
    pt.requires_grad_(True)
    (pe * pe).sum().backward()
    (pt * pt).sum().backward()
    with pytest.warns(UserWarning, match="clip_grad_norm is now deprecated"):
        ne = nn.utils.clip_grad_norm([pe], 1.0)
    nt = torch.nn.utils.clip_grad_norm_([pt], 1.0, foreach=None) if "foreach" in \
        torch.nn.utils.clip_grad_norm_.__code__.co_varnames else torch.nn.utils.clip_grad_norm_([pt], 1.0)
    assert_same(ne, nt)
    assert_same(pe.grad, pt.grad)
    nn.utils.clip_grad_value_([pe], 0.1, foreach=True)
    torch.nn.utils.clip_grad_value_([pt], 0.1)
    assert_same(pe.grad, pt.grad)
