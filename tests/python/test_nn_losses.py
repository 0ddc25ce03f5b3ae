"""The losses, distances and bag/bilinear/adaptive-softmax layers of ember.nn against PyTorch 1.13: every
reduction, weights, legacy size_average/reduce, broadcasting, empty batches and 0-dim inputs, input gradients
(and gradcheck in float64), errors and their types, module defaults, repr, state_dict and seeded init."""
import inspect
import math
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.nn as enn
import ember.nn.functional as EF

TF = torch.nn.functional


class Lib:
    """One framework's namespaces, so a test body runs unchanged on both: L.top, L.F, L.nn."""

    def __init__(self, top, F, nn):
        self.top, self.F, self.nn = top, F, nn


E = Lib(ember, EF, enn)
T = Lib(torch, TF, torch.nn)


def rand(shape, seed=0, low=-2.0, high=2.0, dtype="float32"):
    return np.random.default_rng(seed).uniform(low, high, shape).astype(dtype)


def as_pair(x, requires_grad=False):
    """(ember, torch) tensors of the NumPy array x (or the value itself for non-arrays)."""
    if not isinstance(x, np.ndarray):
        return x, x
    e = ember.from_numpy(x.copy()).clone()
    t = torch.from_numpy(x.copy()).clone()
    if requires_grad:
        e.requires_grad_(True)
        t.requires_grad_(True)
    return e, t


def assert_close(e, t, rtol=1e-5, atol=1e-6):
    if isinstance(t, (tuple, list)):
        assert isinstance(e, (tuple, list)) and len(e) == len(t)
        for a, b in zip(e, t):
            assert_close(a, b, rtol, atol)
        return
    assert isinstance(e, ember.Tensor), type(e)
    assert str(e.dtype).rsplit(".", 1)[-1] == str(t.dtype).rsplit(".", 1)[-1], (e.dtype, t.dtype)
    assert tuple(e.shape) == tuple(t.shape), (tuple(e.shape), tuple(t.shape))
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol, equal_nan=True)


def compare(fn, *arrays, grad=None, rtol=1e-5, atol=1e-6, seed=99):
    """fn(L, *tensors) on both frameworks: the same result (or the same exception type when PyTorch raises),
    then the same gradients of the arrays at positions grad (default: every floating array) for a random
    output gradient. Returns the ember result."""
    if grad is None:
        grad = [i for i, a in enumerate(arrays) if isinstance(a, np.ndarray) and a.dtype.kind == "f"]
    pairs = [as_pair(a, i in grad) for i, a in enumerate(arrays)]
    es, ts = [p[0] for p in pairs], [p[1] for p in pairs]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rt = fn(T, *ts)
    except Exception as exc:  # PyTorch raises: Ember raises the same type
        with pytest.raises(type(exc)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fn(E, *es)
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        re = fn(E, *es)
    assert_close(re, rt, rtol, atol)
    if grad and isinstance(rt, torch.Tensor) and rt.requires_grad:
        g = rand(tuple(rt.shape), seed, dtype=str(rt.dtype).rsplit(".", 1)[-1])
        ge, gt = as_pair(g)
        gs_t = torch.autograd.grad(rt, [ts[i] for i in grad], gt, allow_unused=True)
        gs_e = ember.autograd.grad(re, [es[i] for i in grad], ge, allow_unused=True)
        for i, a, b in zip(grad, gs_e, gs_t):
            if b is None:
                assert a is None or not a.abs().sum().item(), i
                continue
            assert_close(a, b, 10 * rtol, 10 * atol)
    return re


def gradcheck(fn, *arrays, grad=None):
    """ember.autograd.gradcheck of fn(ember namespace, *tensors) in float64 over the arrays at grad."""
    if grad is None:
        grad = [i for i, a in enumerate(arrays) if isinstance(a, np.ndarray) and a.dtype.kind == "f"]
    es = [as_pair(a.astype("float64") if i in grad else a, i in grad)[0] for i, a in enumerate(arrays)]

    def f(*inputs):
        args = list(es)
        for i, x in zip(grad, inputs):
            args[i] = x
        return fn(E, *args)

    assert ember.autograd.gradcheck(f, tuple(es[i] for i in grad), eps=1e-6, atol=1e-5, rtol=1e-3)


REDUCTIONS = ["none", "mean", "sum"]
LONG = np.int64


def signs(shape, seed):
    return np.where(np.random.default_rng(seed).random(shape) < 0.5, -1.0, 1.0).astype("float32")


# name -> (fn(L, *tensors, reduction=...), arrays): every pointwise-style loss, at a typical shape
LOSSES = {
    "kl_div": (lambda L, x, t, **kw: L.F.kl_div(x, t, **kw), lambda: (rand((3, 5)), rand((3, 5), 1, 0.0, 1.0))),
    "kl_div_log_target": (lambda L, x, t, **kw: L.F.kl_div(x, t, log_target=True, **kw),
                          lambda: (rand((3, 5)), rand((3, 5), 1))),
    "poisson_nll": (lambda L, x, t, **kw: L.F.poisson_nll_loss(x, t, **kw),
                    lambda: (rand((4, 3)), rand((4, 3), 1, 0.0, 5.0))),
    "poisson_nll_rate_full": (lambda L, x, t, **kw: L.F.poisson_nll_loss(x, t, log_input=False, full=True,
                                                                         eps=1e-3, **kw),
                              lambda: (rand((4, 3), 0, 0.1, 3.0), np.array([[0, 1, 2], [3, 0.5, 7], [1.5, 2, 9],
                                                                            [4, 4, 0]], "float32"))),
    "gaussian_nll": (lambda L, x, t, v, **kw: L.F.gaussian_nll_loss(x, t, v, **kw),
                     lambda: (rand((4, 3)), rand((4, 3), 1), rand((4, 3), 2, 0.1, 2.0))),
    "gaussian_nll_full_homoscedastic": (lambda L, x, t, v, **kw: L.F.gaussian_nll_loss(x, t, v, full=True,
                                                                                       eps=0.3, **kw),
                                        lambda: (rand((4, 3)), rand((4, 3), 1), rand((4, 1), 2, 0.35, 2.0))),
    "margin_ranking": (lambda L, a, b, y, **kw: L.F.margin_ranking_loss(a, b, y, margin=0.3, **kw),
                       lambda: (rand(6), rand(6, 1), signs(6, 2))),
    "hinge_embedding": (lambda L, x, y, **kw: L.F.hinge_embedding_loss(x, y, margin=1.5, **kw),
                        lambda: (rand((3, 4)), signs((3, 4), 1))),
    "cosine_embedding": (lambda L, a, b, y, **kw: L.F.cosine_embedding_loss(a, b, y, margin=0.2, **kw),
                         lambda: (rand((5, 3)), rand((5, 3), 1), signs(5, 2))),
    "soft_margin": (lambda L, x, y, **kw: L.F.soft_margin_loss(x, y, **kw), lambda: (rand((3, 4)), signs((3, 4), 1))),
    "multilabel_margin": (lambda L, x, y, **kw: L.F.multilabel_margin_loss(x, y, **kw),
                          lambda: (rand((3, 4)), np.array([[3, 0, -1, 1], [0, 1, 2, 3], [-1, 0, 0, 0]], LONG))),
    "multilabel_soft_margin": (lambda L, x, y, w, **kw: L.F.multilabel_soft_margin_loss(x, y, weight=w, **kw),
                               lambda: (rand((3, 4)), (rand((3, 4), 1) > 0).astype("float32"),
                                        rand(4, 2, 0.5, 2.0))),
    "multi_margin": (lambda L, x, y, **kw: L.F.multi_margin_loss(x, y, **kw),
                     lambda: (rand((4, 5)), np.array([3, 0, 1, 4], LONG))),
    "multi_margin_p2_weight": (lambda L, x, y, w, **kw: L.F.multi_margin_loss(x, y, p=2, margin=0.7, weight=w,
                                                                              **kw),
                               lambda: (rand((4, 5)), np.array([3, 0, 1, 4], LONG), rand(5, 2, 0.5, 2.0))),
    "triplet_margin": (lambda L, a, p, n, **kw: L.F.triplet_margin_loss(a, p, n, margin=0.5, **kw),
                       lambda: (rand((4, 3)), rand((4, 3), 1), rand((4, 3), 2))),
    "triplet_margin_p1_swap": (lambda L, a, p, n, **kw: L.F.triplet_margin_loss(a, p, n, p=1, eps=1e-3, swap=True,
                                                                                **kw),
                               lambda: (rand((4, 3)), rand((4, 3), 1), rand((4, 3), 2))),
    "triplet_with_distance": (lambda L, a, p, n, **kw: L.F.triplet_margin_with_distance_loss(a, p, n, **kw),
                              lambda: (rand((4, 3)), rand((4, 3), 1), rand((4, 3), 2))),
    "triplet_with_cosine_distance_swap": (
        lambda L, a, p, n, **kw: L.F.triplet_margin_with_distance_loss(
            a, p, n, distance_function=lambda x, y: 1.0 - L.F.cosine_similarity(x, y), margin=0.4, swap=True, **kw),
        lambda: (rand((4, 3)), rand((4, 3), 1), rand((4, 3), 2))),
}


# PyTorch's multi_margin_loss has no gradient for its class weights, nor soft_margin_loss for its target
# (Ember's have: see the gradchecks); the reference gradients are those of the input
TORCH_GRADS = {"multi_margin": [0], "multi_margin_p2_weight": [0], "soft_margin": [0]}
# arrays that are not batched (class weights)
UNBATCHED_ARGS = {"multilabel_soft_margin": [2], "multi_margin_p2_weight": [2]}


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss_matches_reference(name, reduction):
    fn, make = LOSSES[name]
    compare(lambda L, *xs: fn(L, *xs, reduction=reduction), *make(), grad=TORCH_GRADS.get(name))


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss_gradcheck_float64(name):
    fn, make = LOSSES[name]
    # the Stirling term of poisson_nll_loss starts at target 1: its target gradient is not continuous there
    gradcheck(lambda L, *xs: fn(L, *xs, reduction="sum"), *make(),
              grad=[0] if name == "poisson_nll_rate_full" else None)


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss_of_empty_batch(name):
    # the mean of no elements is nan, the sum 0, 'none' keeps the empty shape
    fn, make = LOSSES[name]
    arrays = [a if i in UNBATCHED_ARGS.get(name, []) else a[:0] for i, a in enumerate(make())]
    for reduction in REDUCTIONS:
        if name in ("multilabel_margin", "multi_margin", "multi_margin_p2_weight") and reduction != "none":
            # PyTorch's kernels read uninitialised memory here; Ember gives the mean of nothing, nan, and the
            # sum of nothing, 0
            e = fn(E, *[as_pair(a)[0] for a in arrays], reduction=reduction)
            assert math.isnan(e.item()) if reduction == "mean" else e.item() == 0.0
            continue
        compare(lambda L, *xs: fn(L, *xs, reduction=reduction), *arrays, grad=TORCH_GRADS.get(name))


ZERO_DIM = {
    "kl_div": lambda: (np.float32(-0.5), np.float32(0.3)),
    "poisson_nll": lambda: (np.float32(0.7), np.float32(2.0)),
    "margin_ranking": lambda: (np.float32(1.0), np.float32(2.0), np.float32(1.0)),
    "hinge_embedding": lambda: (np.float32(0.3), np.float32(-1.0)),
    "soft_margin": lambda: (np.float32(0.3), np.float32(-1.0)),
    "triplet_margin": lambda: (np.float32(0.3), np.float32(-1.0), np.float32(2.0)),
    "triplet_with_distance": lambda: (np.float32(0.3), np.float32(-1.0), np.float32(2.0)),
}


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", sorted(ZERO_DIM))
def test_loss_of_0dim_inputs(name, reduction):
    fn, _ = LOSSES[name]
    arrays = [np.array(a) for a in ZERO_DIM[name]()]
    compare(lambda L, *xs: fn(L, *xs, reduction=reduction), *arrays, grad=TORCH_GRADS.get(name))


def test_kl_div_batchmean_and_the_mean_warning():
    x, t = rand((4, 5)), rand((4, 5), 1, 0.0, 1.0)
    compare(lambda L, a, b: L.F.kl_div(a, b, reduction="batchmean"), x, t)
    compare(lambda L, a, b: L.F.kl_div(a, b, reduction="batchmean"), np.array(-0.5, "float32"),
            np.array(0.25, "float32"))
    compare(lambda L, a, b: L.F.kl_div(a, b, reduction="batchmean"), x[:0], t[:0])
    for L in (E, T):
        xs = as_pair(x)[L is T], as_pair(t)[L is T]
        with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
            L.F.kl_div(*xs)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            L.F.kl_div(*xs, reduction="sum")


def test_kl_div_zero_and_negative_targets_and_broadcasting():
    x = rand((3, 4))
    t = np.array([0.0, 0.5, -1.0, 1.0], "float32")
    compare(lambda L, a, b: L.F.kl_div(a, b, reduction="none"), x, t)
    compare(lambda L, a, b: L.F.kl_div(a, b, reduction="none"), x[0], np.stack([t, t]))
    compare(lambda L, a, b: L.F.kl_div(a, b, reduction="sum"), x.astype("float64"), rand((3, 4), 2, 0, 1, "float64"))
    compare(lambda L, a, b: L.F.kl_div(a, b), np.ones((2, 3), LONG), np.ones((2, 3), LONG))  # integral: error


def test_float64_and_mixed_dtypes():
    compare(lambda L, a, b: L.F.poisson_nll_loss(a, b), rand((3, 4), dtype="float64"), rand((3, 4), 1, 0, 3))
    compare(lambda L, a, b, y: L.F.margin_ranking_loss(a, b, y), rand(5, dtype="float64"), rand(5, 1),
            np.array([1, -1, 1, 1, -1], LONG))
    compare(lambda L, a, b, y: L.F.cosine_embedding_loss(a, b, y), rand((3, 4), dtype="float64"),
            rand((3, 4), 1, dtype="float64"), np.array([1, -1, 1], LONG))
    compare(lambda L, a, b, y: L.F.cosine_embedding_loss(a, b, y), np.ones((2, 3), LONG), np.ones((2, 3), LONG),
            np.ones(2, LONG))
    compare(lambda L, a, b: L.F.hinge_embedding_loss(a, b), np.ones(2, LONG), np.ones(2, LONG))  # mean of int64
    compare(lambda L, a, b: L.F.hinge_embedding_loss(a, b, reduction="sum"), np.ones(2, LONG), np.ones(2, LONG))
    compare(lambda L, a, b: L.F.soft_margin_loss(a, b), np.ones(2, LONG), np.ones(2, LONG))  # integral: error
    compare(lambda L, a, b: L.F.poisson_nll_loss(a, b), np.ones(2, LONG), np.ones(2, LONG))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_broadcast_targets(reduction):
    x = rand((3, 4))
    compare(lambda L, a, b: L.F.poisson_nll_loss(a, b, reduction=reduction), x, rand(4, 1, 0, 3))
    compare(lambda L, a, b, y: L.F.margin_ranking_loss(a, b, y, reduction=reduction), x[:1], x,
            signs((3, 1), 2))
    compare(lambda L, a, b: L.F.hinge_embedding_loss(a, b, reduction=reduction), x[0], signs((3, 4), 1))
    compare(lambda L, a, b: L.F.soft_margin_loss(a, b, reduction=reduction), x, signs(4, 1), grad=[0])
    compare(lambda L, a, b, v: L.F.gaussian_nll_loss(a, b, v, reduction=reduction), x, x[0] + 1,
            rand((3, 4), 3, 0.5, 1))
    compare(lambda L, a, b, c: L.F.triplet_margin_loss(a, b, c, reduction=reduction), x, x[:1], x[::-1].copy())


def test_hinge_embedding_targets_other_than_plus_minus_one():
    compare(lambda L, a, b: L.F.hinge_embedding_loss(a, b, reduction="none"), rand((3, 4)),
            np.array([1.0, -1.0, 0.0, 2.0], "float32"))


@pytest.mark.parametrize("var_shape, ok", [((3, 4), True), ((3,), True), ((3, 1), True), ((1,), False),
                                           ((4,), False), ((1, 4), False), ((3, 2), False)])
def test_gaussian_nll_var_shapes(var_shape, ok):
    x, t = rand((3, 4)), rand((3, 4), 1)
    v = rand(var_shape, 2, 0.1, 2.0)
    r = compare(lambda L, a, b, c: L.F.gaussian_nll_loss(a, b, c, reduction="none"), x, t, v)
    assert (r is not None) == ok
    # unbatched: (D) input with a (D), (1) or 0-dim var
    for vs in [(4,), (1,), ()]:
        compare(lambda L, a, b, c: L.F.gaussian_nll_loss(a, b, c, reduction="none"), x[0], t[0],
                rand(vs, 3, 0.1, 2.0))


def test_gaussian_nll_errors_and_clamp():
    x, t = rand((3, 4)), rand((3, 4), 1)
    for L in (E, T):
        xe, te = as_pair(x)[L is T], as_pair(t)[L is T]
        with pytest.raises(ValueError, match="negative"):
            L.F.gaussian_nll_loss(xe, te, -L.top.ones(3, 4))
        with pytest.raises(ValueError, match="is not valid"):
            L.F.gaussian_nll_loss(xe, te, L.top.ones(3, 4), reduction="batchmean")
    # variances below eps are clamped, the gradient passing through as if they were not
    v = np.array([[1e-9, 0.0, 0.5, 2.0]] * 3, "float32")
    compare(lambda L, a, b, c: L.F.gaussian_nll_loss(a, b, c, reduction="sum"), x, t, v, rtol=1e-4)


def test_poisson_nll_stirling_term_only_above_one():
    x = rand(6, 0, 0.5, 2.0)
    t = np.array([0.0, 0.5, 1.0, 1.5, 3.0, 10.0], "float32")
    compare(lambda L, a, b: L.F.poisson_nll_loss(a, b, full=True, reduction="none"), x, t, grad=[0])
    compare(lambda L, a, b: L.F.poisson_nll_loss(a, b, log_input=False, full=True, reduction="none"), x, t,
            grad=[0])


@pytest.mark.parametrize("call", [
    lambda L, x: L.F.kl_div(x, x, reduction="batchsum"),
    lambda L, x: L.F.poisson_nll_loss(x, x, reduction="batchmean"),
    lambda L, x: L.F.margin_ranking_loss(x, x, x, reduction="avg"),
    lambda L, x: L.F.hinge_embedding_loss(x, x, reduction="avg"),
    lambda L, x: L.F.soft_margin_loss(x, x, reduction="avg"),
    lambda L, x: L.F.multilabel_soft_margin_loss(x, x, reduction="avg"),
    lambda L, x: L.F.triplet_margin_loss(x, x, x, reduction="avg"),
    lambda L, x: L.F.triplet_margin_with_distance_loss(x, x, x, reduction="avg"),
    lambda L, x: L.F.l1_loss(x, x, reduction="avg"),
])
def test_unknown_reduction_is_a_value_error(call):
    for L in (E, T):
        with pytest.raises(ValueError):
            call(L, as_pair(rand((2, 3)))[L is T])


LEGACY = [
    lambda L, x, y, **kw: L.F.kl_div(x, y.abs(), **kw),
    lambda L, x, y, **kw: L.F.poisson_nll_loss(x, y.abs(), **kw),
    lambda L, x, y, **kw: L.F.margin_ranking_loss(x, y, x.sign(), **kw),
    lambda L, x, y, **kw: L.F.hinge_embedding_loss(x, y.sign(), **kw),
    lambda L, x, y, **kw: L.F.cosine_embedding_loss(x, y, x[:, 0].sign(), **kw),
    lambda L, x, y, **kw: L.F.soft_margin_loss(x, y.sign(), **kw),
    lambda L, x, y, **kw: L.F.multilabel_soft_margin_loss(x, (y > 0).float(), **kw),
    lambda L, x, y, **kw: L.F.multi_margin_loss(x, (y[:, 0] > 0).long(), **kw),
    lambda L, x, y, **kw: L.F.multilabel_margin_loss(x, (y > 0).long() * 2 - 1, **kw),
    lambda L, x, y, **kw: L.F.triplet_margin_loss(x, y, -x, **kw),
    lambda L, x, y, **kw: L.F.l1_loss(x, y, **kw),
    lambda L, x, y, **kw: L.F.mse_loss(x, y, **kw),
    lambda L, x, y, **kw: L.F.smooth_l1_loss(x, y, **kw),
    lambda L, x, y, **kw: L.F.binary_cross_entropy(x.sigmoid(), y.sigmoid(), **kw),
    lambda L, x, y, **kw: L.F.binary_cross_entropy_with_logits(x, y.sigmoid(), **kw),
    lambda L, x, y, **kw: L.F.nll_loss(x, (y[:, 0] > 0).long(), **kw),
    lambda L, x, y, **kw: L.F.cross_entropy(x, (y[:, 0] > 0).long(), **kw),
]


@pytest.mark.parametrize("i", range(len(LEGACY)))
def test_legacy_size_average_and_reduce(i):
    x, y = rand((3, 4)), rand((3, 4), 1)
    for size_average in (None, True, False):
        for reduce in (None, True, False):
            if size_average is None and reduce is None:
                continue
            kw = dict(size_average=size_average, reduce=reduce)
            compare(lambda L, a, b: LEGACY[i](L, a, b, **kw), x, y, grad=[0])
            messages = []
            for L in (E, T):
                with warnings.catch_warnings(record=True) as w:
                    warnings.simplefilter("always")
                    LEGACY[i](L, *[as_pair(a)[L is T] for a in (x, y)], **kw)
                messages.append(sorted(str(m.message) for m in w if "size_average" in str(m.message)))
            assert messages[0] == messages[1] and messages[0]


def test_reduction_module():
    import torch.nn._reduction as TR
    from ember.nn import _reduction as ER

    for r in ["none", "mean", "sum"]:
        assert ER.get_enum(r) == TR.get_enum(r)
    with pytest.warns(UserWarning, match="elementwise_mean"):
        assert ER.get_enum("elementwise_mean") == 1
    with pytest.raises(ValueError):
        ER.get_enum("batchmean")
    for sa in (None, True, False):
        for red in (None, True, False):
            with warnings.catch_warnings(record=True) as we:
                warnings.simplefilter("always")
                e = (ER.legacy_get_string(sa, red), ER.legacy_get_enum(sa, red))
            with warnings.catch_warnings(record=True) as wt:
                warnings.simplefilter("always")
                t = (TR.legacy_get_string(sa, red), TR.legacy_get_enum(sa, red))
            assert e == t
            assert [str(m.message) for m in we] == [str(m.message) for m in wt]
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                assert ER.legacy_get_string(sa, red, emit_warning=False) == t[0]


# ---------------------------------------------------------------------------------------------- margin losses
@pytest.mark.parametrize("x_shape, y", [
    ((4,), [3, 0, -1, 1]), ((), [0]), ((), 0), ((1, 4), [[2, 2, 1, -1]]), ((2, 3), [[-1, 2, 0], [1, 1, 1]]),
])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_margin_shapes(x_shape, y, reduction):
    compare(lambda L, a, b: L.F.multilabel_margin_loss(a, b, reduction=reduction), rand(x_shape),
            np.array(y, LONG))


@pytest.mark.parametrize("x, y", [
    ((3, 4), [[3, 0, -1, 1], [0, 1, 2, 4], [0, 0, 0, 0]]),   # out of range
    ((3, 4), [[3, 0, -2, 1], [0, 1, 2, 3], [0, 0, 0, 0]]),   # negative other than -1
    ((3, 4), [[3, 0, -1], [0, 1, 2], [0, 0, 0]]),            # target of another size
    ((1, 3, 4), [[[0, 0, 0, 0]] * 3]),                        # 3-D
    ((2, 0), np.zeros((2, 0))),                               # no classes
    ((4,), [0, 1, 2]),
])
def test_multilabel_margin_errors(x, y):
    for L in (E, T):
        with pytest.raises(RuntimeError):
            L.F.multilabel_margin_loss(as_pair(rand(x))[L is T], as_pair(np.array(y, LONG))[L is T])
    for L in (E, T):  # targets must be int64, inputs floating
        with pytest.raises(RuntimeError):
            L.F.multilabel_margin_loss(L.top.zeros(2, 3), L.top.zeros(2, 3, dtype=L.top.int32))
        with pytest.raises(RuntimeError):
            L.F.multilabel_margin_loss(L.top.zeros(2, 3, dtype=L.top.int64), L.top.zeros(2, 3, dtype=L.top.int64))


@pytest.mark.parametrize("x_shape, y", [((5,), [2]), ((5,), 2), ((), 0), ((), [0]), ((3, 4), [0, 3, 3]),
                                        ((1, 4), [1])])
@pytest.mark.parametrize("p, margin", [(1, 1.0), (2, 0.3), (2.0, 2)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multi_margin_shapes(x_shape, y, p, margin, reduction):
    classes = 1 if not x_shape else x_shape[-1]
    compare(lambda L, a, b, w: L.F.multi_margin_loss(a, b, p=p, margin=margin, weight=w, reduction=reduction),
            rand(x_shape), np.array(y, LONG), rand(classes, 3, 0.5, 2.0), grad=[0])


def test_multi_margin_errors():
    x, y = rand((3, 4)), np.array([0, 3, 1], LONG)
    for L in (E, T):
        xe, ye = as_pair(x)[L is T], as_pair(y)[L is T]
        with pytest.raises(ValueError, match="only p == 1 and p == 2"):
            L.F.multi_margin_loss(xe, ye, p=3)
        with pytest.raises(ValueError, match="one-dimensional"):
            L.F.multi_margin_loss(xe, ye, weight=L.top.ones(1, 4))
        with pytest.raises(RuntimeError):
            L.F.multi_margin_loss(xe, ye + 1)  # 4 is out of range
        with pytest.raises(RuntimeError):
            L.F.multi_margin_loss(xe, ye - 1)
        with pytest.raises(RuntimeError):
            L.F.multi_margin_loss(xe, ye[:2])
        with pytest.raises(RuntimeError):
            L.F.multi_margin_loss(xe, ye[:, None])
        with pytest.raises(RuntimeError):
            L.F.multi_margin_loss(xe[None], ye[None])
        with pytest.raises(RuntimeError):
            L.F.multi_margin_loss(xe, ye.float())
        with pytest.raises(ValueError):
            L.nn.MultiMarginLoss(p=3)
    # PyTorch 1.13 reads past a weight shorter than the classes; Ember refuses it
    with pytest.raises(RuntimeError, match="weight"):
        EF.multi_margin_loss(as_pair(x)[0], as_pair(y)[0], weight=ember.ones(3))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_soft_margin_shapes(reduction):
    compare(lambda L, a, b: L.F.multilabel_soft_margin_loss(a, b, reduction=reduction), rand(4),
            (rand(4, 1) > 0).astype("float32"))
    compare(lambda L, a, b: L.F.multilabel_soft_margin_loss(a, b, reduction=reduction), rand((2, 3, 4)),
            (rand((2, 3, 4), 1) > 0).astype("float32"))
    compare(lambda L, a, b: L.F.multilabel_soft_margin_loss(a, b, reduction=reduction), rand((3, 4)),
            (rand((3, 4), 1) > 0).astype(LONG))
    compare(lambda L, a, b: L.F.multilabel_soft_margin_loss(a, b, reduction=reduction), np.array(1.0, "float32"),
            np.array(1.0, "float32"))  # IndexError on a 0-dim input


def test_margin_ranking_and_cosine_embedding_errors():
    x = rand((3, 4))
    compare(lambda L, a, b, y: L.F.margin_ranking_loss(a, b, y), x, x, np.ones(4, "float32"))
    compare(lambda L, a, b, y: L.F.margin_ranking_loss(a, b, y), x, x, np.ones((2, 4), "float32"))
    compare(lambda L, a, b, y: L.F.cosine_embedding_loss(a, b, y), x, x, np.array(1.0, "float32"))
    compare(lambda L, a, b, y: L.F.cosine_embedding_loss(a, b, y), x[0], x[0], np.ones(3, "float32"))
    compare(lambda L, a, b, y: L.F.cosine_embedding_loss(a, b, y), x, x, np.ones((3, 1), "float32"))
    compare(lambda L, a, b, y: L.F.cosine_embedding_loss(a, b, y), x, x, np.ones(2, "float32"))
    compare(lambda L, a, b, y: L.F.cosine_embedding_loss(a, b, y), x, x[:, :3], np.ones(3, "float32"))
    compare(lambda L, a, b, y: L.F.cosine_embedding_loss(a, b, y, reduction="none"), x[0], x[1],
            np.array(-1.0, "float32"))
    compare(lambda L, a, b, y: L.F.cosine_embedding_loss(a, b, y, reduction="none"), x, x[::-1].copy(),
            np.array([1, 0, -1], "float32"))


def test_triplet_losses_shapes_and_errors():
    x = rand((3, 4))
    compare(lambda L, a, b, c: L.F.triplet_margin_loss(a, b, c), x, x[0], x)
    compare(lambda L, a, b, c: L.F.triplet_margin_loss(a, b, c, reduction="none"), x[None], x[None] + 1, x[None])
    compare(lambda L, a, b, c: L.F.triplet_margin_loss(a, b, c, p=float("inf")), x, x[::-1].copy(), x + 1)
    compare(lambda L, a, b, c: L.F.triplet_margin_loss(a, b, c), np.ones((2, 3), LONG), np.ones((2, 3), LONG),
            np.zeros((2, 3), LONG))
    # no dims check with a distance function, and any margin
    compare(lambda L, a, b, c: L.F.triplet_margin_with_distance_loss(a, b, c, margin=-1.0, reduction="none"),
            x, x[0], x)
    compare(lambda L, a, b, c: L.F.triplet_margin_with_distance_loss(
        a, b, c, distance_function=L.nn.PairwiseDistance(p=1), swap=True), x, x[::-1].copy(), x + 0.5)


# ---------------------------------------------------------------------------------------------- distances
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((4,), (3, 4)), ((2, 3, 4), (3, 4)), ((4,), (4,)),
                                    ((), ()), ((0, 4), (0, 4)), ((2, 0), (2, 0))])
@pytest.mark.parametrize("p", [2.0, 1.0, 0.0, 3.0, float("inf"), -1.0])
@pytest.mark.parametrize("keepdim", [False, True])
def test_pairwise_distance(shapes, p, keepdim):
    a, b = rand(shapes[0]), rand(shapes[1], 1)
    grad = None if p != 0.0 else []  # the 0-"norm" counts non-zeros: no gradient
    compare(lambda L, x, y: L.F.pairwise_distance(x, y, p=p, eps=1e-4, keepdim=keepdim), a, b, grad=grad,
            rtol=1e-4)


def test_pairwise_distance_integral_inputs_and_module():
    compare(lambda L, x, y: L.F.pairwise_distance(x, y), np.ones((2, 4), LONG), np.zeros((2, 4), LONG))
    compare(lambda L, x, y: L.nn.PairwiseDistance(p=1.0, eps=0.0, keepdim=True)(x, y), rand((3, 5)),
            rand((3, 5), 1))
    compare(lambda L, x, y: L.top.pairwise_distance(x, y, 3.0, 1e-3, True), rand((3, 5)), rand((3, 5), 1))
    gradcheck(lambda L, x, y: L.F.pairwise_distance(x, y, p=3.0), rand((3, 5)), rand((3, 5), 1))


@pytest.mark.parametrize("shapes, dim", [(((3, 4), (3, 4)), 1), (((4,), (3, 4)), 1), (((4,), (4,)), 0),
                                         (((), ()), 0), (((2, 3, 4), (2, 3, 4)), -1), (((0, 4), (0, 4)), 1),
                                         (((5,), (3, 4)), 1), (((4,), (4,)), 1)])
def test_cosine_similarity(shapes, dim):
    compare(lambda L, x, y: L.F.cosine_similarity(x, y, dim=dim), rand(shapes[0]), rand(shapes[1], 1))
    compare(lambda L, x, y: L.top.cosine_similarity(x, y, dim), rand(shapes[0]), rand(shapes[1], 1))


def test_cosine_similarity_eps_clamps_each_norm():
    # 1.13's formula: sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps)); the clamp is outside the graph
    x1 = np.array([[1e-5, 0.0], [3.0, 4.0], [0.0, 0.0]], "float64")
    x2 = np.array([[2e-5, 1e-5], [1.0, 2.0], [1.0, 0.0]], "float64")
    for eps in (1e-8, 1e-3, 10.0):
        compare(lambda L, a, b: L.F.cosine_similarity(a, b, eps=eps), x1, x2, rtol=1e-9, atol=1e-12)
    compare(lambda L, a, b: L.nn.CosineSimilarity(dim=0, eps=0.5)(a, b), x1, x2, rtol=1e-9, atol=1e-12)
    gradcheck(lambda L, a, b: L.F.cosine_similarity(a, b), rand((3, 4)), rand((3, 4), 1))


def test_cosine_similarity_dtypes():
    compare(lambda L, x, y: L.F.cosine_similarity(x, y), np.ones((2, 4), LONG), np.ones((2, 4), LONG))  # error
    compare(lambda L, x, y: L.F.cosine_similarity(x, y), np.ones((2, 4), LONG), rand((2, 4)))
    compare(lambda L, x, y: L.F.cosine_similarity(x, y), rand((2, 4), dtype="float64"), rand((2, 4), 1))


def test_pdist_and_cdist():
    compare(lambda L, x: L.F.pdist(x), rand((5, 3)), rtol=1e-4)
    compare(lambda L, x: L.F.pdist(x, p=1), rand((5, 3)), rtol=1e-4)
    compare(lambda L, x: L.top.pdist(x, 3.0), rand((5, 3)), rtol=1e-4)
    compare(lambda L, x: L.F.pdist(x), rand(4))
    compare(lambda L, x, y: L.top.cdist(x, y), rand((4, 3)), rand((2, 3), 1), rtol=1e-4)
    assert not hasattr(TF, "cdist") and not hasattr(EF, "cdist")


# ---------------------------------------------------------------------------------------------- bilinear
@pytest.mark.parametrize("s1, s2", [((2, 3), (2, 4)), ((3,), (4,)), ((6, 2, 3), (6, 2, 4)), ((0, 3), (0, 4))])
@pytest.mark.parametrize("bias", [True, False])
def test_bilinear_function(s1, s2, bias):
    w, b = rand((5, 3, 4), 7), rand(5, 8)
    if bias:
        compare(lambda L, x, y, w, b: L.F.bilinear(x, y, w, b), rand(s1), rand(s2, 1), w, b, rtol=1e-4, atol=1e-5)
    else:
        compare(lambda L, x, y, w: L.top.bilinear(x, y, w), rand(s1), rand(s2, 1), w, rtol=1e-4, atol=1e-5)


def test_bilinear_errors_and_gradcheck():
    x, y, w = rand((2, 3)), rand((2, 4)), rand((5, 3, 4))
    compare(lambda L, a, b, c: L.F.bilinear(a, b, c), x, y, w[:, :, 0].copy())       # weight not 3-D
    compare(lambda L, a, b, c: L.F.bilinear(a, b, c), x, rand((2, 5)), w)            # in2 size
    compare(lambda L, a, b, c: L.F.bilinear(a, b, c), rand((2, 2)), y, w)            # in1 size
    compare(lambda L, a, b, c: L.F.bilinear(a, b, c), x, rand((3, 4)), w)            # batch
    compare(lambda L, a, b, c: L.F.bilinear(a, b, c), x, rand((1, 2, 4)), w)         # ranks
    compare(lambda L, a, b, c, d: L.F.bilinear(a, b, c, d), x, y, w, rand(4))       # bias size
    gradcheck(lambda L, a, b, c, d: L.F.bilinear(a, b, c, d), x, y, w, rand(5))


def test_bilinear_module():
    torch.manual_seed(3)
    ember.manual_seed(3)
    t, e = torch.nn.Bilinear(3, 4, 5), enn.Bilinear(3, 4, 5)
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    for k, v in t.state_dict().items():  # seeded init, bit-exact
        np.testing.assert_array_equal(e.state_dict()[k].numpy(), v.numpy())
    t2, e2 = torch.nn.Bilinear(2, 2, 1, bias=False, dtype=torch.float64), enn.Bilinear(2, 2, 1, bias=False,
                                                                                        dtype=ember.float64)
    assert repr(e2) == repr(t2) and e2.bias is None and e2.weight.dtype == ember.float64
    x1, x2 = rand((6, 3)), rand((6, 4), 1)
    e.load_state_dict({k: ember.from_numpy(v.numpy().copy()) for k, v in t.state_dict().items()})
    ye, yt = e(*[as_pair(a)[0] for a in (x1, x2)]), t(*[as_pair(a)[1] for a in (x1, x2)])
    assert_close(ye, yt, 1e-5, 1e-6)
    ye.sum().backward()
    yt.sum().backward()
    assert_close(e.weight.grad, t.weight.grad, 1e-5, 1e-5)
    assert_close(e.bias.grad, t.bias.grad, 1e-5, 1e-5)


# ---------------------------------------------------------------------------------------------- embedding_bag
BAG_INPUT = np.array([1, 2, 4, 5, 4, 3, 2, 9], LONG)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("offsets, last", [([0, 4, 4], False), ([0, 4, 4, 8], True), ([0, 1, 5, 7], False),
                                           ([0, 0, 0], False), ([0, 3, 8], True)])
@pytest.mark.parametrize("padding_idx", [None, 2, -1])
def test_embedding_bag_modes(mode, offsets, last, padding_idx):
    w = rand((10, 3), 1)
    compare(lambda L, i, o, w: L.F.embedding_bag(i, w, o, mode=mode, include_last_offset=last,
                                                 padding_idx=padding_idx),
            BAG_INPUT, np.array(offsets, LONG), w)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_2d_input_and_int32(mode):
    w = rand((10, 3), 1)
    compare(lambda L, i, w: L.F.embedding_bag(i, w, mode=mode), BAG_INPUT.reshape(2, 4), w)
    compare(lambda L, i, w: L.F.embedding_bag(i, w, mode=mode, padding_idx=4), BAG_INPUT.reshape(4, 2), w)
    compare(lambda L, i, o, w: L.F.embedding_bag(i, w, o, mode=mode), BAG_INPUT.astype("int32"),
            np.array([0, 3], "int32"), w)
    compare(lambda L, i, w: L.F.embedding_bag(i, w, mode=mode), np.zeros((0, 3), LONG), w)
    compare(lambda L, i, o, w: L.F.embedding_bag(i, w, o, mode=mode), np.zeros(0, LONG), np.array([0, 0], LONG), w)
    compare(lambda L, i, w: L.F.embedding_bag(i, w, mode=mode), BAG_INPUT.reshape(2, 4), w.astype("float64"))


def test_embedding_bag_per_sample_weights():
    w = rand((10, 3), 1)
    compare(lambda L, i, o, w, s: L.F.embedding_bag(i, w, o, mode="sum", per_sample_weights=s),
            BAG_INPUT, np.array([0, 4, 4], LONG), w, rand(8, 2))
    compare(lambda L, i, o, w, s: L.F.embedding_bag(i, w, o, mode="sum", per_sample_weights=s, padding_idx=2),
            BAG_INPUT, np.array([0, 3], LONG), w, rand(8, 2))
    compare(lambda L, i, w, s: L.F.embedding_bag(i, w, mode="sum", per_sample_weights=s),
            BAG_INPUT.reshape(2, 4), w, rand((2, 4), 2))


def test_embedding_bag_scale_grad_by_freq_and_max_norm():
    # the gradient of each row divided by the row's count in the mini-batch (PyTorch's documented behaviour;
    # its CPU kernel divides by the wrong counts when they differ, e.g. row 2 by 3 here)
    idx = np.array([1, 1, 1, 2, 3, 3], LONG)
    counts = np.bincount(idx, minlength=5)[:, None]
    for mode in ("sum", "mean"):
        we, wt = as_pair(rand((5, 3), 1), True)
        ye = EF.embedding_bag(as_pair(idx)[0], we, ember.tensor([0, 2]), mode=mode, scale_grad_by_freq=True)
        yt = TF.embedding_bag(as_pair(idx)[1], wt, torch.tensor([0, 2]), mode=mode)
        assert_close(ye, yt)
        g = rand((2, 3), 5)
        ye.backward(as_pair(g)[0])
        yt.backward(as_pair(g)[1])
        np.testing.assert_allclose(we.grad.numpy(), wt.grad.numpy() / np.maximum(counts, 1), rtol=1e-6)
    compare(lambda L, i, o, w: L.F.embedding_bag(i, w, o, scale_grad_by_freq=True), np.array([1, 2, 3, 3, 4, 4],
            LONG), np.array([0, 3], LONG), rand((5, 3), 1))  # equal counts: PyTorch's kernel is right
    we, wt = as_pair(rand((5, 3), 1, -3, 3))
    ie, it = as_pair(idx)
    oe, ot = as_pair(np.array([0, 2], LONG))
    re = EF.embedding_bag(ie, we, oe, max_norm=1.0, norm_type=1.0)
    rt = TF.embedding_bag(it, wt, ot, max_norm=1.0, norm_type=1.0)
    assert_close(re, rt)
    assert_close(we, wt)  # the rows looked up were renormed in place


def test_embedding_bag_torch_level_outputs():
    w = rand((10, 3), 1)
    for mode in (1, 2):
        for pad in (None, 2):
            compare(lambda L, w, i, o: L.top.embedding_bag(w, i, o, False, mode, False, None, False, pad),
                    w, BAG_INPUT, np.array([0, 4, 4], LONG))


@pytest.mark.parametrize("call", [
    lambda L, i, w: L.F.embedding_bag(i, w, L.top.tensor([0, 4]), mode="mean", per_sample_weights=L.top.ones(8)),
    lambda L, i, w: L.F.embedding_bag(i, w, L.top.tensor([0, 4]), mode="sum", per_sample_weights=L.top.ones(7)),
    lambda L, i, w: L.F.embedding_bag(i.view(2, 4), w, L.top.tensor([0, 4])),
    lambda L, i, w: L.F.embedding_bag(i, w),
    lambda L, i, w: L.F.embedding_bag(i.view(2, 2, 2), w),
    lambda L, i, w: L.F.embedding_bag(i, w, L.top.tensor([[0, 4]])),
    lambda L, i, w: L.F.embedding_bag(i, w, L.top.tensor([1, 4])),
    lambda L, i, w: L.F.embedding_bag(i, w, L.top.tensor([0, 9])),
    lambda L, i, w: L.F.embedding_bag(i + 5, w, L.top.tensor([0, 4])),
    lambda L, i, w: L.F.embedding_bag(i - 2, w, L.top.tensor([0, 4])),
    lambda L, i, w: L.F.embedding_bag(i, w, L.top.tensor([0, 4]), mode="min"),
    lambda L, i, w: L.F.embedding_bag(i, w, L.top.tensor([0, 4]), mode="max", scale_grad_by_freq=True),
    lambda L, i, w: L.F.embedding_bag(i, w, L.top.tensor([0, 4]), mode="max", sparse=True),
    lambda L, i, w: L.F.embedding_bag(i.float(), w.long(), L.top.tensor([0, 4])),
    lambda L, i, w: L.F.embedding_bag(i, w.long(), L.top.tensor([0, 4])),
    lambda L, i, w: L.F.embedding_bag(i, w, L.top.tensor([0, 4]), mode="sum",
                                      per_sample_weights=L.top.ones(8, dtype=L.top.float64)),
    lambda L, i, w: L.F.embedding_bag(i, w, L.top.tensor([0, 4]), padding_idx=10),
    lambda L, i, w: L.F.embedding_bag(i.view(8, 1)[:, :0], w),
])
def test_embedding_bag_errors(call):
    compare(call, BAG_INPUT, rand((10, 3), 1))


def test_embedding_bag_swapped_arguments_warn():
    w = rand((10, 3), 1)
    for L in (E, T):
        i, ww, o = as_pair(BAG_INPUT)[L is T], as_pair(w)[L is T], as_pair(np.array([0, 4], LONG))[L is T]
        with pytest.warns(UserWarning, match="Argument order"):
            r = L.F.embedding_bag(ww, i, o)
        assert tuple(r.shape) == (2, 3)


def test_embedding_bag_module():
    torch.manual_seed(5)
    ember.manual_seed(5)
    kw = dict(max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True, mode="sum", sparse=True,
              include_last_offset=True, padding_idx=-2)
    t, e = torch.nn.EmbeddingBag(6, 3, **kw), enn.EmbeddingBag(6, 3, **kw)
    assert repr(e) == repr(t) and e.padding_idx == t.padding_idx == 4
    np.testing.assert_array_equal(e.weight.detach().numpy(), t.weight.detach().numpy())
    assert repr(enn.EmbeddingBag(5, 2)) == repr(torch.nn.EmbeddingBag(5, 2))
    for name in ["num_embeddings", "embedding_dim", "max_norm", "norm_type", "scale_grad_by_freq", "mode",
                 "sparse", "include_last_offset", "padding_idx"]:
        assert getattr(enn.EmbeddingBag(5, 2), name) == getattr(torch.nn.EmbeddingBag(5, 2), name), name
    assert list(e.state_dict()) == ["weight"]
    i = np.array([0, 1, 4, 5, 2, 2], LONG)
    o = np.array([0, 2, 6], LONG)
    s = rand(6, 3)
    e.scale_grad_by_freq = t.scale_grad_by_freq = False  # see test_embedding_bag_scale_grad_by_freq_and_max_norm
    ye = e(as_pair(i)[0], as_pair(o)[0], per_sample_weights=as_pair(s)[0])
    yt = t(as_pair(i)[1], as_pair(o)[1], per_sample_weights=as_pair(s)[1])
    assert_close(ye, yt)
    ye.sum().backward()
    yt.sum().backward()
    assert_close(e.weight.grad, t.weight.grad.to_dense())  # PyTorch's is sparse (sparse=True), Ember's dense
    for L in (E, T):
        emb = as_pair(rand((4, 2)))[L is T]
        bag = L.nn.EmbeddingBag.from_pretrained(emb, mode="max")
        assert not bag.weight.requires_grad and bag.mode == "max"
        assert L.nn.EmbeddingBag.from_pretrained(emb, freeze=False).weight.requires_grad
        with pytest.raises(AssertionError):
            L.nn.EmbeddingBag.from_pretrained(emb[0])
        with pytest.raises(AssertionError):
            L.nn.EmbeddingBag(3, 2, padding_idx=3)
    eb = enn.EmbeddingBag.from_pretrained(as_pair(rand((4, 2)))[0], padding_idx=1)
    tb = torch.nn.EmbeddingBag.from_pretrained(as_pair(rand((4, 2)))[1], padding_idx=1)
    assert repr(eb) == repr(tb)


def test_embedding_from_pretrained():
    for L in (E, T):
        emb = as_pair(rand((4, 2)))[L is T]
        m = L.nn.Embedding.from_pretrained(emb, padding_idx=1, max_norm=2.0)
        assert not m.weight.requires_grad and m.padding_idx == 1 and m.max_norm == 2.0
        assert L.nn.Embedding.from_pretrained(emb, freeze=False).weight.requires_grad
    e = enn.Embedding.from_pretrained(as_pair(rand((4, 2)))[0], scale_grad_by_freq=True)
    t = torch.nn.Embedding.from_pretrained(as_pair(rand((4, 2)))[1], scale_grad_by_freq=True)
    assert repr(e) == repr(t)


# ---------------------------------------------------------------------------------------------- CTC
def ctc_case(seed=0, T_=6, N=3, C=5, S=3, dtype="float32"):
    rng = np.random.default_rng(seed)
    logits = rng.standard_normal((T_, N, C)).astype(dtype)
    targets = rng.integers(1, C, (N, S)).astype(LONG)
    return logits, targets


def log_softmax_np(x):
    m = x.max(-1, keepdims=True)
    return (x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))).astype(x.dtype)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("lengths", ["tensor", "tuple"])
def test_ctc_loss_matches_reference(reduction, lengths):
    logits, targets = ctc_case()
    il, tl = [6, 5, 4], [3, 2, 0]
    conv = (lambda L, v: L.top.tensor(v)) if lengths == "tensor" else (lambda L, v: tuple(v))
    # the gradient with respect to the logits (through log_softmax) is PyTorch's
    compare(lambda L, x, y: L.F.ctc_loss(x.log_softmax(2), y, conv(L, il), conv(L, tl), reduction=reduction),
            logits, targets, rtol=1e-4, atol=1e-5)
    compare(lambda L, x, y: L.nn.CTCLoss(reduction=reduction)(x.log_softmax(2), y, conv(L, il), conv(L, tl)),
            logits, targets, rtol=1e-4, atol=1e-5)


def test_ctc_loss_concatenated_targets_blank_and_int32():
    logits, targets = ctc_case(1)
    flat = np.concatenate([targets[0, :3], targets[1, :2]])
    compare(lambda L, x, y: L.F.ctc_loss(x.log_softmax(2), y, (6, 5, 4), (3, 2, 0), reduction="none"),
            logits, flat, rtol=1e-4, atol=1e-5)
    # blank as the last class; targets of class 0
    compare(lambda L, x, y: L.F.ctc_loss(x.log_softmax(2), y, (6, 6, 6), (3, 3, 1), blank=4), logits,
            targets - 1, rtol=1e-4, atol=1e-5)
    compare(lambda L, x, y: L.F.ctc_loss(x.log_softmax(2), y.int(), L.top.tensor([6, 5, 4]).int(),
                                         L.top.tensor([3, 2, 2]).int(), reduction="sum"),
            logits, targets, rtol=1e-4, atol=1e-5)
    # repeated labels need a blank between them
    compare(lambda L, x, y: L.F.ctc_loss(x.log_softmax(2), y, (6, 6, 5), (3, 3, 2), reduction="none"),
            logits, np.array([[1, 1, 2], [3, 3, 3], [2, 2, 0]], LONG), rtol=1e-4, atol=1e-5)
    compare(lambda L, x, y: L.F.ctc_loss(x.log_softmax(2), y, (6, 6, 6), (3, 3, 3), reduction="none"),
            logits.astype("float64"), targets, rtol=1e-9, atol=1e-10)


def test_ctc_loss_unbatched():
    logits, targets = ctc_case(2)
    for il, tl in [(lambda L: L.top.tensor(6), lambda L: L.top.tensor(3)), (lambda L: (6,), lambda L: (3,)),
                   (lambda L: L.top.tensor([6]), lambda L: L.top.tensor([3]))]:
        for reduction in REDUCTIONS:
            compare(lambda L, x, y: L.F.ctc_loss(x.log_softmax(1), y, il(L), tl(L), reduction=reduction),
                    logits[:, 0], targets[0], rtol=1e-4, atol=1e-5)
    compare(lambda L, x, y: L.F.ctc_loss(x.log_softmax(1), y, L.top.tensor(6), L.top.tensor(3)), logits[:, 0],
            targets[:1], rtol=1e-4, atol=1e-5)


def test_ctc_loss_impossible_alignments_and_zero_infinity():
    logits, _ = ctc_case(3, T_=5, N=3)
    targets = np.array([[1, 1, 1], [2, 2, 2], [1, 2, 3]], LONG)
    il, tl = (5, 5, 2), (3, 3, 3)  # [1, 1, 1] needs 5 frames, [2, 2, 2] as well, [1, 2, 3] 3 > 2
    for reduction in REDUCTIONS:
        r = compare(lambda L, x, y: L.F.ctc_loss(x.log_softmax(2), y, il, tl, reduction=reduction,
                                                 zero_infinity=True), logits, targets, rtol=1e-4, atol=1e-5)
        assert np.isfinite(r.detach().numpy()).all()
    r = compare(lambda L, x, y: L.F.ctc_loss(x.log_softmax(2), y, il, tl, reduction="none"), logits, targets,
                grad=[], rtol=1e-4)
    assert r[2].item() == math.inf and math.isfinite(r[0].item())
    # without zero_infinity the gradient of an impossible sample is nan at its frames (as PyTorch's), 0 after
    x = as_pair(logits, True)[0]
    EF.ctc_loss(x.log_softmax(2), as_pair(targets)[0], il, tl, reduction="sum").backward()
    g = x.grad.numpy()
    assert np.isnan(g[:2, 2]).all() and (g[2:, 2] == 0).all() and np.isfinite(g[:, :2]).all()


def test_ctc_loss_edge_lengths_and_empty_batch():
    logits, targets = ctc_case(4)
    compare(lambda L, x, y: L.F.ctc_loss(x.log_softmax(2), y, (6, 1, 1), (0, 1, 0), reduction="none"), logits,
            targets, rtol=1e-4, atol=1e-5)
    for reduction in REDUCTIONS:
        compare(lambda L, x, y: L.F.ctc_loss(x.log_softmax(2), y, L.top.zeros(0, dtype=L.top.long),
                                             L.top.zeros(0, dtype=L.top.long), reduction=reduction),
                logits[:, :0], targets[:0])
    # no frames: probability 1 for the empty target (PyTorch gives -0.0), 0 for any other (PyTorch: garbage)
    lp = as_pair(log_softmax_np(logits))[0]
    r = EF.ctc_loss(lp, as_pair(targets)[0], (0, 0, 6), (0, 2, 1), reduction="none")
    assert r[0].item() == 0.0 and r[1].item() == math.inf and math.isfinite(r[2].item())


def test_ctc_gradient_is_exact():
    # gradcheck on the log-probabilities themselves; PyTorch's CPU gradient adds exp(log_probs) inside the input
    # lengths (a term that vanishes through log_softmax), which the last assertion checks
    logits, targets = ctc_case(5, T_=5, N=2, C=4, S=2, dtype="float64")
    lp = log_softmax_np(logits)
    il, tl = (5, 4), (2, 1)
    gradcheck(lambda L, x, y: L.F.ctc_loss(x, y, il, tl), lp, targets)
    gradcheck(lambda L, x, y: L.F.ctc_loss(x.log_softmax(2), y, il, tl, reduction="none"), logits, targets)
    gradcheck(lambda L, x, y: L.F.ctc_loss(x, y, il, tl, blank=3, reduction="sum"), lp, targets - 1)
    gradcheck(lambda L, x, y: L.F.ctc_loss(x, y, il, (2, 2), zero_infinity=True), lp,
              np.array([[1, 1], [2, 2]], LONG))  # [2, 2] in 4 frames: fine; both finite
    xe, xt = as_pair(lp, True)
    EF.ctc_loss(xe, as_pair(targets)[0], il, tl, reduction="sum").backward()
    TF.ctc_loss(xt, as_pair(targets)[1], il, tl, reduction="sum").backward()
    in_time = (np.arange(5)[:, None] < np.array(il)[None, :])[:, :, None]
    np.testing.assert_allclose(xe.grad.numpy() + np.exp(lp) * in_time, xt.grad.numpy(), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("call", [
    lambda L, x, y: L.F.ctc_loss(x, y, (6, 5, 4), (3, 2, 0), blank=5),
    lambda L, x, y: L.F.ctc_loss(x, y, (6, 5, 4), (3, 2, 0), blank=-1),
    lambda L, x, y: L.F.ctc_loss(x, y, (7, 5, 4), (3, 2, 0)),
    lambda L, x, y: L.F.ctc_loss(x, y, (6, 5, 4), (4, 2, 0)),
    lambda L, x, y: L.F.ctc_loss(x, y, (6, 5), (3, 2, 0)),
    lambda L, x, y: L.F.ctc_loss(x, y, (6, 5, 4), (3, 2)),
    lambda L, x, y: L.F.ctc_loss(x, y.view(-1)[:2], (6, 5, 4), (3, 2, 0)),
    lambda L, x, y: L.F.ctc_loss(x, y.view(-1)[:7], (6, 5, 4), (3, 2, 0)),
    lambda L, x, y: L.F.ctc_loss(x, y, L.top.tensor([6.0, 5.0, 4.0]), L.top.tensor([3, 2, 0])),
    lambda L, x, y: L.F.ctc_loss(x.half(), y, (6, 5, 4), (3, 2, 0)),
    lambda L, x, y: L.F.ctc_loss(x[0], y, (6, 5, 4), (3, 2, 0)),
    lambda L, x, y: L.F.ctc_loss(x[None], y, (6, 5, 4), (3, 2, 0)),
    lambda L, x, y: L.F.ctc_loss(x, y[:2], (6, 5, 4), (3, 2, 0)),
    lambda L, x, y: L.F.ctc_loss(x, y[None], (6, 5, 4), (3, 2, 0)),
    lambda L, x, y: L.F.ctc_loss(x, y[:, :2], (6, 5, 4), (3, 2, 0)),
    lambda L, x, y: L.F.ctc_loss(x, y, (6, 5, 4), (3, 2, 0), reduction="batchmean"),
    lambda L, x, y: L.F.ctc_loss(x[:, 0], y[0], 6, 3),
])
def test_ctc_loss_errors(call):
    logits, targets = ctc_case()
    compare(call, log_softmax_np(logits), targets, grad=[])


def test_ctc_loss_rejects_what_pytorch_reads_out_of_bounds():
    logits, targets = ctc_case()
    lp, y = as_pair(log_softmax_np(logits))[0], as_pair(targets)[0]
    with pytest.raises(RuntimeError, match="target"):
        EF.ctc_loss(lp, y + 2, (6, 5, 4), (3, 2, 0))
    with pytest.raises(RuntimeError, match="non-negative"):
        EF.ctc_loss(lp, y, (-1, 5, 4), (3, 2, 0))


def test_ctc_loss_float_targets_as_pytorch():
    logits, targets = ctc_case()
    compare(lambda L, x, y: L.F.ctc_loss(x.log_softmax(2), y, (6, 5, 4), (3, 2, 1)), logits,
            targets.astype("float32"), grad=[0], rtol=1e-4, atol=1e-5)
    compare(lambda L, x, y: L.top.ctc_loss(x.log_softmax(2), y, [6, 5, 4], [3, 2, 1], 0, 2, True), logits,
            targets, rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------------------------------------- adaptive softmax
def adaptive_pair(seed=0, **kw):
    args = dict(in_features=8, n_classes=10, cutoffs=[3, 6], div_value=2.0)
    args.update(kw)
    torch.manual_seed(seed)
    ember.manual_seed(seed)
    return enn.AdaptiveLogSoftmaxWithLoss(**args), torch.nn.AdaptiveLogSoftmaxWithLoss(**args)


def test_adaptive_log_softmax_init_and_state_dict():
    e, t = adaptive_pair(head_bias=True)
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    for k, v in t.state_dict().items():
        np.testing.assert_array_equal(e.state_dict()[k].numpy(), v.numpy(), err_msg=k)
    for name in ["in_features", "n_classes", "cutoffs", "div_value", "head_bias", "shortlist_size", "n_clusters",
                 "head_size"]:
        assert getattr(e, name) == getattr(t, name), name
    e2, t2 = adaptive_pair(cutoffs=(9,), div_value=4.0)
    assert repr(e2) == repr(t2)
    for cutoffs in ([3, 3], [3, 10], [0, 5], [5, 3]):
        for L in (E, T):
            with pytest.raises(ValueError, match="cutoffs"):
                L.nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs)


def test_adaptive_log_softmax_forward_log_prob_predict():
    e, t = adaptive_pair(1, head_bias=True)
    x = rand((7, 8), 3)
    y = np.array([0, 4, 9, 2, 7, 5, 6], LONG)

    def run(L, m, x, y):
        return tuple(m(x, y))

    r = compare(lambda L, x, y: run(L, e if L is E else t, x, y), x, y, grad=[])
    assert type(r).__name__ == "tuple"
    out_e = e(as_pair(x)[0], as_pair(y)[0])
    out_t = t(as_pair(x)[1], as_pair(y)[1])
    assert type(out_e).__name__ == "_ASMoutput" and out_e._fields == ("output", "loss")
    out_e.loss.backward()
    out_t.loss.backward()
    for (ne, pe), (nt, pt) in zip(e.named_parameters(), t.named_parameters()):
        assert ne == nt
        assert_close(pe.grad, pt.grad, 1e-4, 1e-6)
    compare(lambda L, x: (e if L is E else t).log_prob(x), x, grad=[], rtol=1e-5)
    compare(lambda L, x: (e if L is E else t).log_prob(x).exp().sum(1), x, grad=[], rtol=1e-5)
    xs = rand((40, 8), 4, -4, 4)
    compare(lambda L, x: (e if L is E else t).predict(x), xs)
    # unbatched input, an empty batch
    compare(lambda L, x, y: tuple((e if L is E else t)(x, y)), x[0], np.array(4, LONG), grad=[])
    compare(lambda L, x, y: tuple((e if L is E else t)(x, y)), x[:0], y[:0], grad=[])


@pytest.mark.parametrize("xs, y", [((7, 8), [0, 4, 9]), ((8,), [1]), ((7, 8), 2), ((1, 7, 8), [[1] * 7]),
                                   ((3, 8), [0, 10, 2]), ((3, 8), [0, -1, 2]), ((3, 7), [0, 1, 2])])
def test_adaptive_log_softmax_errors(xs, y):
    e, t = adaptive_pair(2)
    compare(lambda L, x, y: tuple((e if L is E else t)(x, y)), rand(xs), np.array(y, LONG), grad=[])


# ---------------------------------------------------------------------------------------------- modules
MODULES = ["L1Loss", "MSELoss", "NLLLoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss", "SmoothL1Loss",
           "HuberLoss", "KLDivLoss", "PoissonNLLLoss", "GaussianNLLLoss", "MarginRankingLoss", "HingeEmbeddingLoss",
           "CosineEmbeddingLoss", "SoftMarginLoss", "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss",
           "MultiMarginLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss", "CTCLoss", "CosineSimilarity",
           "PairwiseDistance", "NLLLoss2d"]


def _public_attrs(m):
    return {k: v for k, v in vars(m).items() if not k.startswith("_") and k != "training"}


@pytest.mark.parametrize("name", MODULES)
def test_module_defaults_signature_and_repr(name):
    te, tt = getattr(enn, name), getattr(torch.nn, name)
    pe, pt = inspect.signature(te.__init__).parameters, inspect.signature(tt.__init__).parameters
    assert [(p.name, p.kind, p.default) for p in pe.values()] == [(p.name, p.kind, p.default) for p in pt.values()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e, t = te(), tt()
    assert repr(e) == repr(t)
    ae, at = _public_attrs(e), _public_attrs(t)
    assert ae.keys() == at.keys()
    for k in ae:
        if not isinstance(at[k], torch.nn.Module):
            assert ae[k] == at[k], k
    assert list(e.state_dict()) == list(t.state_dict())


@pytest.mark.parametrize("name", ["NLLLoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss",
                                  "MultiLabelSoftMarginLoss", "MultiMarginLoss"])
def test_weighted_loss_modules_register_weight_buffers(name):
    kw = {"pos_weight": None} if name == "BCEWithLogitsLoss" else {}
    e = getattr(enn, name)(weight=ember.ones(3), **kw)
    t = getattr(torch.nn, name)(weight=torch.ones(3), **kw)
    assert list(e.state_dict()) == list(t.state_dict()) == ["weight"]


def test_nll_loss2d_warns_and_is_nll_loss():
    for L in (E, T):
        with pytest.warns(UserWarning, match="NLLLoss2d has been deprecated"):
            m = L.nn.NLLLoss2d(ignore_index=1)
        assert isinstance(m, L.nn.NLLLoss)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare(lambda L, x, y: L.nn.NLLLoss2d(reduction="sum")(x.log_softmax(1), y), rand((2, 3, 4, 5)),
                np.random.default_rng(0).integers(0, 3, (2, 4, 5)).astype(LONG))


MODULE_CALLS = [
    ("KLDivLoss", dict(reduction="batchmean", log_target=True), lambda: (rand((3, 4)), rand((3, 4), 1))),
    ("PoissonNLLLoss", dict(log_input=False, full=True, eps=1e-4, reduction="sum"),
     lambda: (rand((3, 4), 0, 0.1, 2), rand((3, 4), 1, 0, 5))),
    ("GaussianNLLLoss", dict(full=True, eps=1e-3, reduction="none"),
     lambda: (rand((3, 4)), rand((3, 4), 1), rand(3, 2, 0.1, 1))),
    ("MarginRankingLoss", dict(margin=0.5), lambda: (rand(5), rand(5, 1), signs(5, 2))),
    ("HingeEmbeddingLoss", dict(margin=0.5, reduction="sum"), lambda: (rand((3, 4)), signs((3, 4), 1))),
    ("CosineEmbeddingLoss", dict(margin=-0.2), lambda: (rand((3, 4)), rand((3, 4), 1), signs(3, 2))),
    ("SoftMarginLoss", dict(reduction="none"), lambda: (rand((3, 4)), signs((3, 4), 1))),
    ("MultiLabelMarginLoss", dict(), lambda: (rand((2, 3)), np.array([[2, -1, 0], [1, 0, -1]], LONG))),
    ("MultiLabelSoftMarginLoss", dict(weight=None, reduction="sum"),
     lambda: (rand((2, 3)), (rand((2, 3), 1) > 0).astype("float32"))),
    ("MultiMarginLoss", dict(p=2, margin=0.5), lambda: (rand((3, 4)), np.array([0, 3, 2], LONG))),
    ("TripletMarginLoss", dict(margin=0.2, p=1.0, eps=1e-3, swap=True),
     lambda: (rand((3, 4)), rand((3, 4), 1), rand((3, 4), 2))),
    ("TripletMarginWithDistanceLoss", dict(margin=0.2, swap=True),
     lambda: (rand((3, 4)), rand((3, 4), 1), rand((3, 4), 2))),
    ("CosineSimilarity", dict(dim=0, eps=1e-3), lambda: (rand((3, 4)), rand((3, 4), 1))),
    ("PairwiseDistance", dict(p=3.0, eps=1e-3, keepdim=True), lambda: (rand((3, 4)), rand((3, 4), 1))),
    ("HuberLoss", dict(delta=0.5, reduction="sum"), lambda: (rand((3, 4)), rand((3, 4), 1))),
    ("SmoothL1Loss", dict(beta=0.5, reduction="none"), lambda: (rand((3, 4)), rand((3, 4), 1))),
    ("BCEWithLogitsLoss", dict(pos_weight="p", weight="w"), lambda: (rand((3, 4)), rand((3, 4), 1, 0, 1))),
    ("CrossEntropyLoss", dict(label_smoothing=0.2, ignore_index=1, weight="w"),
     lambda: (rand((3, 4)), np.array([0, 1, 3], LONG))),
    ("CrossEntropyLoss", dict(label_smoothing=0.1), lambda: (rand((3, 4)), rand((3, 4), 1, 0, 1))),
]


@pytest.mark.parametrize("i", range(len(MODULE_CALLS)))
def test_module_forward_matches_reference(i):
    name, kw, make = MODULE_CALLS[i]

    def build(L):
        args = {k: (L.top.tensor([0.5, 1.0, 2.0, 1.5]) if v in ("p", "w") else v) for k, v in kw.items()}
        return getattr(L.nn, name)(**args)

    compare(lambda L, *xs: build(L)(*xs), *make(), rtol=1e-4, atol=1e-5,
            grad=[0] if name == "SoftMarginLoss" else None)


def test_loss_functions_accept_every_pytorch_argument():
    names = ["l1_loss", "mse_loss", "nll_loss", "cross_entropy", "binary_cross_entropy",
             "binary_cross_entropy_with_logits", "smooth_l1_loss", "huber_loss", "kl_div", "poisson_nll_loss",
             "gaussian_nll_loss", "margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss",
             "soft_margin_loss", "multilabel_margin_loss", "multilabel_soft_margin_loss", "multi_margin_loss",
             "triplet_margin_loss", "triplet_margin_with_distance_loss", "ctc_loss", "embedding_bag"]
    for name in names:
        pe = inspect.signature(getattr(EF, name)).parameters
        pt = inspect.signature(getattr(TF, name)).parameters
        assert [(p.name, p.kind, p.default) for p in pe.values()] == \
            [(p.name, p.kind, p.default) for p in pt.values()], name
    for name in ["Bilinear", "EmbeddingBag", "AdaptiveLogSoftmaxWithLoss"]:
        pe = inspect.signature(getattr(enn, name).__init__).parameters
        pt = inspect.signature(getattr(torch.nn, name).__init__).parameters
        assert [(p.name, p.default) for p in pe.values()] == [(p.name, p.default) for p in pt.values()], name


def test_existing_losses_with_all_arguments():
    x, y = rand((3, 4)), rand((3, 4), 1, 0, 1)
    idx = np.array([0, 3, 1], LONG)
    w = rand(4, 2, 0.5, 2.0)
    for reduction in REDUCTIONS:
        compare(lambda L, a, b, c: L.F.cross_entropy(a, b, c, ignore_index=3, reduction=reduction,
                                                     label_smoothing=0.3), x, idx, w)
        compare(lambda L, a, b, c: L.F.cross_entropy(a, b, c, reduction=reduction, label_smoothing=0.3), x, y, w)
        compare(lambda L, a, b, c: L.F.nll_loss(a.log_softmax(1), b, c, ignore_index=0, reduction=reduction),
                x, idx, w)
        compare(lambda L, a, b, c, d: L.F.binary_cross_entropy_with_logits(a, b, c, reduction=reduction,
                                                                           pos_weight=d), x, y, w, w[::-1].copy())
        compare(lambda L, a, b, c: L.F.binary_cross_entropy(a.sigmoid(), b, c, reduction=reduction), x, y, w)
        compare(lambda L, a, b: L.F.smooth_l1_loss(a, b, reduction=reduction, beta=0.0), x, y)
        compare(lambda L, a, b: L.F.smooth_l1_loss(a, b, reduction=reduction, beta=2.0), x, y)
        compare(lambda L, a, b: L.F.huber_loss(a, b, reduction=reduction, delta=0.3), x, y)
        compare(lambda L, a, b: L.F.l1_loss(a, b, reduction=reduction), x, y[0])
        compare(lambda L, a, b: L.F.mse_loss(a, b, reduction=reduction), x[0], y)


# ---------------------------------------------------------------------------------------------- containers
def test_parameter_dict_full_api():
    def build(L, n):
        return L.nn.ParameterDict({"b": L.nn.Parameter(L.top.ones(n)), "a": L.top.zeros(2)})

    for L in (E, T):
        d = build(L, 3)
        other = L.nn.ParameterDict([("c", L.top.ones(1)), ("a", L.top.ones(4))])
        merged = d | other
        assert list(merged.keys()) == ["a", "b", "c"] and tuple(merged["a"].shape) == (4,)
        assert list(d.keys()) == ["a", "b"] and tuple(d["a"].shape) == (2,)
        rmerged = other.__ror__(d)
        assert list(rmerged.keys()) == ["a", "b", "c"]
        assert list((other | d).keys()) == ["c", "a", "b"] and tuple((other | d)["a"].shape) == (2,)
        d |= other
        assert list(d.keys()) == ["a", "b", "c"] and isinstance(d["c"], L.nn.Parameter)
        fk = d.fromkeys(["x", "y"], L.top.ones(2))
        assert list(fk.keys()) == ["x", "y"] and isinstance(fk["x"], L.nn.Parameter)
        assert d.setdefault("z", None) is None and "z" in d
        assert d.setdefault("a") is d["a"]
        with pytest.raises(TypeError):
            d[1] = L.top.ones(1)
        with pytest.raises(TypeError):
            d.update(3)
        with pytest.raises(ValueError):
            d.update([("k", L.top.ones(1), 3)])
        d.update([("q", "text")])
        assert d["q"] == "text"
    e, t = build(E, 3), build(T, 3)
    e["s"], t["s"] = "x", "x"
    assert repr(e).replace("ember.", "torch.") == repr(t)


def test_parameter_list_api():
    for L in (E, T):
        pl = L.nn.ParameterList([L.top.ones(2), L.nn.Parameter(L.top.zeros(3))])
        pl.append(L.top.ones(1))
        pl.extend([L.top.ones(4)])
        pl += [L.top.ones(5)]
        assert len(pl) == 5 and isinstance(pl[0], L.nn.Parameter) and tuple(pl[-1].shape) == (5,)
        assert len(pl[1:3]) == 2
        with pytest.raises(TypeError):
            pl.extend(L.top.ones(2))
        with pytest.raises(IndexError):
            pl[7]
    e = enn.ParameterList([ember.ones(2), "s"])
    t = torch.nn.ParameterList([torch.ones(2), "s"])
    assert repr(e).replace("ember.", "torch.") == repr(t)


# ---------------------------------------------------------------------------------------------- placement
def test_names_are_where_torch_has_them():
    top = ["kl_div", "poisson_nll_loss", "cosine_embedding_loss", "margin_ranking_loss", "hinge_embedding_loss",
           "triplet_margin_loss", "ctc_loss", "embedding_bag", "bilinear", "pairwise_distance", "pdist",
           "cosine_similarity", "cdist"]
    for name in top:
        assert hasattr(torch, name) and hasattr(ember, name), name
        assert name in ember.__all__, name
    for name in ["gaussian_nll_loss", "multilabel_soft_margin_loss", "triplet_margin_with_distance_loss",
                 "soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss"]:
        assert not hasattr(torch, name) and not hasattr(ember, name), name
        assert hasattr(EF, name) and name in EF.__all__
    for name in ["KLDivLoss", "CTCLoss", "Bilinear", "EmbeddingBag", "AdaptiveLogSoftmaxWithLoss",
                 "CosineSimilarity", "PairwiseDistance", "NLLLoss2d", "TripletMarginWithDistanceLoss"]:
        assert getattr(enn, name).__module__.replace("ember", "torch") == getattr(torch.nn, name).__module__, name


# ---------------------------------------------------------------------------------------------- layouts, specials
NONCONTIGUOUS = [
    lambda L, x, y: L.F.kl_div(x.t(), y.t(), reduction="sum"),
    lambda L, x, y: L.F.soft_margin_loss(x.t(), y.t().sign()),
    lambda L, x, y: L.F.multilabel_soft_margin_loss(x.t(), (y.t() > 0).float()),
    lambda L, x, y: L.F.multi_margin_loss(x.t(), L.top.tensor([0, 1, 2, 3, 0, 1])),
    lambda L, x, y: L.F.multilabel_margin_loss(x.t(), L.top.tensor([[1, 0, -1, 2]] * 6)),
    lambda L, x, y: L.F.cosine_embedding_loss(x.t(), y.t(), L.top.tensor([1, -1, 1, 1, -1, 1])),
    lambda L, x, y: L.F.triplet_margin_loss(x.t(), y.t(), x.t()[::2].repeat(2, 1), swap=True),
    lambda L, x, y: L.F.cosine_similarity(x[:, ::2], y[:, ::2], dim=0),
    lambda L, x, y: L.F.pairwise_distance(x.t(), y.t(), p=1.5),
    lambda L, x, y: L.F.gaussian_nll_loss(x.t(), y.t(), (x.t() * 0.5).exp()),
    lambda L, x, y: L.F.ctc_loss(x.t().reshape(3, 2, 4).log_softmax(2), L.top.tensor([[1, 2], [3, 3]]), (3, 2),
                                 (2, 1)),
    lambda L, x, y: L.F.bilinear(x.t(), y.t(), x.reshape(2, 4, 3).permute(0, 2, 1)[:, :4, :]),
]


@pytest.mark.parametrize("i", range(len(NONCONTIGUOUS)))
def test_noncontiguous_inputs(i):
    compare(NONCONTIGUOUS[i], rand((4, 6)), rand((4, 6), 1), grad=[0], rtol=1e-4, atol=1e-5)


SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-8, 50.0, -50.0, 1.0, -1.0], "float32")


@pytest.mark.parametrize("call", [
    lambda L, x, y: L.F.kl_div(x, y, reduction="none"),
    lambda L, x, y: L.F.kl_div(x, y, reduction="none", log_target=True),
    lambda L, x, y: L.F.poisson_nll_loss(x, y, reduction="none"),
    lambda L, x, y: L.F.poisson_nll_loss(x, y, log_input=False, full=True, reduction="none"),
    lambda L, x, y: L.F.margin_ranking_loss(x, y, L.top.ones(10), reduction="none"),
    lambda L, x, y: L.F.hinge_embedding_loss(x, y.sign(), reduction="none"),
    lambda L, x, y: L.F.soft_margin_loss(x, y, reduction="none"),
    lambda L, x, y: L.F.multilabel_soft_margin_loss(x[None], (y[None] > 0).float(), reduction="none"),
    lambda L, x, y: L.F.pairwise_distance(x[:, None], y[:, None]),
])
def test_special_values(call):
    compare(call, SPECIALS, SPECIALS[::-1].copy(), grad=[])


@pytest.mark.parametrize("name", [n for n in MODULES if "size_average" in inspect.signature(
    getattr(torch.nn, n).__init__).parameters])
def test_module_legacy_arguments(name):
    for size_average, reduce in [(False, None), (None, False), (True, True), (False, True)]:
        got = []
        for L in (E, T):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                m = getattr(L.nn, name)(size_average=size_average, reduce=reduce)
            got.append((m.reduction, [str(x.message) for x in w if "size_average" in str(x.message)]))
        assert got[0] == got[1] and got[0][1]


def test_ctc_loss_has_no_double_backward():
    logits, targets = ctc_case(6)
    for L in (E, T):
        x = as_pair(logits, True)[L is T]
        loss = L.F.ctc_loss(x.log_softmax(2), as_pair(targets)[L is T], (6, 5, 4), (3, 2, 1))
        g, = L.top.autograd.grad(loss, x, create_graph=True)
        with pytest.raises(RuntimeError):
            L.top.autograd.grad(g.sum(), x)
