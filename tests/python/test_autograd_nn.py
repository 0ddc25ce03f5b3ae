"""Derivatives of the NN ops (issue 4): activations, pooling, normalization, embedding, losses and convolution.

Each case runs the same function in Ember and PyTorch 1.13 on the same leaves and compares
- the output and its grad_fn's name (PyTorch's node names: HardtanhBackward0, MaxPool2DWithIndicesBackward0, ...),
- the first gradients (ember.autograd.grad with create_graph=True, a fixed upstream gradient that itself
  requires grad), and
- the double backward: the gradients of sum(first_grad_i * v_i) for fixed v_i with respect to every leaf and to
  the upstream gradient (a gradient PyTorch leaves undefined counts as zeros, as an unused input would).
"""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
import torch
import torch.nn.functional as TF
from conftest import assert_same, make_array, make_tensor, to_torch

TOL = {"float64": (1e-9, 1e-11), "float32": (2e-4, 2e-5)}


def _leaf(spec, dtype, seed):
    """(ember, torch) copies of one input: a spec is (shape, low, high, layout, requires_grad) or a ready pair of
    (ember, torch) tensors (integer targets, indices)."""
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], ember.Tensor):
        return spec
    shape, low, high, layout, rg = spec
    # No exact zeros: second derivatives at a kink (elu's at 0) are a convention the edge tests cover.
    e = make_tensor(shape, dtype, layout=layout, low=low, high=high, seed=seed, nonzero=True)
    t = to_torch(e)
    if layout == "transposed" and len(shape) >= 2:  # the same strides on the torch side
        dims = list(reversed(range(len(shape))))
        t = t.permute(*dims).contiguous().permute(*dims)
    if rg:
        e.requires_grad_()
        t.requires_grad_()
    return e, t


def A(shape, low=None, high=None, layout="contiguous", rg=True):  # noqa: N802 - an argument spec
    return (tuple(shape), low, high, layout, rg)


def _zeros_for_none(gs, leaves, mod):
    out = []
    for g, x in zip(gs, leaves):
        out.append(g if g is not None else mod.zeros(tuple(x.shape), dtype=x.dtype))
    return out


def check_nn_grads(efn, tfn, specs, dtype="float64", node=None, double=True, tol=None, same_node=True):
    """Compares efn/tfn (Ember/PyTorch functions of the same arguments), their first gradients and their double
    backward on the leaves built from specs. node: PyTorch's grad_fn name (checked against torch's too, unless
    same_node is False)."""
    rtol, atol = tol or TOL[dtype]
    pairs = [_leaf(s, dtype, i) for i, s in enumerate(specs)]
    es, ts = [p[0] for p in pairs], [p[1] for p in pairs]
    eo, to = efn(*es), tfn(*ts)
    assert_same(eo, to.detach(), rtol=rtol, atol=atol, msg="output: ")
    assert eo.grad_fn is not None
    assert not same_node or eo.grad_fn.name() == to.grad_fn.name(), (eo.grad_fn.name(), to.grad_fn.name())
    if node is not None:
        assert eo.grad_fn.name() == node
    ediff = [e for e in es if e.requires_grad]
    tdiff = [t for t in ts if t.requires_grad]
    # The upstream gradient requires grad too, so that the double backward reaches it.
    g = make_tensor(tuple(to.shape), dtype, seed=101)
    tg = to_torch(g).requires_grad_()
    g.requires_grad_()
    eg = ember.autograd.grad(eo, ediff, g, create_graph=True, allow_unused=True)
    tgr = torch.autograd.grad(to, tdiff, tg, create_graph=True, allow_unused=True)
    eg, tgr = _zeros_for_none(eg, ediff, ember), _zeros_for_none(tgr, tdiff, torch)
    for i, (a, b) in enumerate(zip(eg, tgr)):
        assert_same(a, b.detach(), rtol=rtol, atol=atol, msg=f"grad of input {i}: ")
    if not double:
        return
    vs = [make_tensor(tuple(b.shape), dtype, seed=200 + i) for i, b in enumerate(tgr)]
    es_ = sum(((a * v).sum() for a, v in zip(eg, vs) if a.requires_grad), ember.zeros((), dtype=eg[0].dtype))
    ts_ = sum(((b * to_torch(v)).sum() for b, v in zip(tgr, vs) if b.requires_grad),
              torch.zeros((), dtype=tgr[0].dtype))
    assert es_.requires_grad == ts_.requires_grad
    if not ts_.requires_grad:  # a gradient that does not depend on anything (a linear op's w.r.t. its weight)
        return
    egg = ember.autograd.grad(es_, ediff + [g], allow_unused=True)
    tgg = torch.autograd.grad(ts_, tdiff + [tg], allow_unused=True)
    egg, tgg = _zeros_for_none(egg, ediff + [g], ember), _zeros_for_none(tgg, tdiff + [tg], torch)
    for i, (a, b) in enumerate(zip(egg, tgg)):
        assert_same(a, b, rtol=rtol, atol=atol, msg=f"double backward, input {i}: ")


# ------------------------------------------------------------------------------------------------ activations
ACTIVATIONS = [
    ("hardtanh", lambda m, x: m.hardtanh(x, -1.5, 2.0), "HardtanhBackward0"),
    ("relu6", lambda m, x: m.relu6(x * 2), "HardtanhBackward0"),
    ("leaky_relu", lambda m, x: m.leaky_relu(x, 0.2), "LeakyReluBackward0"),
    ("elu", lambda m, x: m.elu(x, 1.3), "EluBackward0"),
    ("selu", lambda m, x: m.selu(x), "EluBackward0"),
    ("celu", lambda m, x: m.celu(x, 0.7), "CeluBackward0"),
    ("softplus", lambda m, x: m.softplus(x, 2.0, 3.0), "SoftplusBackward0"),
    ("hardsigmoid", lambda m, x: m.hardsigmoid(x), "HardsigmoidBackward0"),
    ("hardswish", lambda m, x: m.hardswish(x), "HardswishBackward0"),
    ("mish", lambda m, x: m.mish(x), "MishBackward0"),
    ("logsigmoid", lambda m, x: m.logsigmoid(x), "LogSigmoidBackward0"),
    ("threshold", lambda m, x: m.threshold(x, 0.5, -2.0), "ThresholdBackward0"),
]


NO_DOUBLE_IN_TORCH = {"hardsigmoid"}  # torch: "derivative for aten::hardsigmoid_backward is not implemented"


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("name, fn, node", ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
def test_activation_grads(name, fn, node, layout, dtype):
    check_nn_grads(lambda x: fn(F, x), lambda x: fn(TF, x), [A((3, 5), -5, 5, layout)], dtype, node,
                   double=name not in NO_DOUBLE_IN_TORCH)


@pytest.mark.parametrize("name, fn, node", ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
def test_activation_grads_0dim_and_empty(name, fn, node):
    double = name not in NO_DOUBLE_IN_TORCH
    check_nn_grads(lambda x: fn(F, x), lambda x: fn(TF, x), [A(())], "float64", node, double=double)
    check_nn_grads(lambda x: fn(F, x), lambda x: fn(TF, x), [A((0, 3))], "float64", node, double=double)



# The points where the pieces meet, NaN and inf: the gradient follows PyTorch's kernels
# (Note [nn gradients at non-smooth points]).
EDGES = [-3.0, 3.0, -1.5, 2.0, -1.0, 1.0, 0.0, 0.5, 6.0, 20.0, float("nan"), float("inf"), -float("inf")]


@pytest.mark.parametrize("name, fn, node", ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
def test_activation_grads_at_edges(name, fn, node):
    e = ember.tensor(EDGES, dtype=ember.float64, requires_grad=True)
    t = torch.tensor(EDGES, dtype=torch.float64, requires_grad=True)
    fn(F, e).backward(ember.ones(len(EDGES), dtype=ember.float64))
    fn(TF, t).backward(torch.ones(len(EDGES), dtype=torch.float64))
    assert_same(e.grad, t.grad)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_glu_grads(dim):
    check_nn_grads(lambda x: F.glu(x, dim), lambda x: TF.glu(x, dim), [A((4, 6, 2))], "float64", "GluBackward0")


def test_inplace_activation_grads():
    for efn, tfn in [(lambda x: F.hardtanh(x * 1, inplace=True), lambda x: TF.hardtanh(x * 1, inplace=True)),
                     (lambda x: F.leaky_relu(x * 1, 0.1, inplace=True),
                      lambda x: TF.leaky_relu(x * 1, 0.1, inplace=True)),
                     (lambda x: F.elu(x * 1, inplace=True), lambda x: TF.elu(x * 1, inplace=True)),
                     (lambda x: F.celu(x * 1, 0.5, inplace=True), lambda x: TF.celu(x * 1, 0.5, inplace=True)),
                     (lambda x: F.selu(x * 1, inplace=True), lambda x: TF.selu(x * 1, inplace=True)),
                     (lambda x: F.relu6(x * 3, inplace=True), lambda x: TF.relu6(x * 3, inplace=True)),
                     (lambda x: F.threshold(x * 1, 0.1, 2.0, inplace=True),
                      lambda x: TF.threshold(x * 1, 0.1, 2.0, inplace=True))]:
        e, t = _leaf(A((2, 3)), "float64", 0)
        efn(e).sum().backward()
        tfn(t).sum().backward()
        assert_same(e.grad, t.grad)


# ------------------------------------------------------------------------------------------------ pooling
AVG_POOL = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0), ceil_mode=True),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    dict(kernel_size=2, stride=1, divisor_override=3),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(2, 3, 7, 6), (1, 2, 5, 5), (3, 5, 4)])
@pytest.mark.parametrize("kw", AVG_POOL, ids=str)
def test_avg_pool2d_grads(kw, shape, dtype):
    check_nn_grads(lambda x: F.avg_pool2d(x, **kw), lambda x: TF.avg_pool2d(x, **kw), [A(shape)], dtype,
                   "AvgPool2DBackward0")


def test_avg_pool2d_grads_non_contiguous_and_zero_batch():
    check_nn_grads(lambda x: F.avg_pool2d(x, 2), lambda x: TF.avg_pool2d(x, 2), [A((2, 3, 6, 4), layout="transposed")])
    check_nn_grads(lambda x: F.avg_pool2d(x, 2), lambda x: TF.avg_pool2d(x, 2), [A((0, 3, 6, 4))])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape, out, node", [((2, 3, 7, 5), (3, 2), "AdaptiveAvgPool2DBackward0"),
                                              ((1, 2, 4, 4), (4, 4), "AdaptiveAvgPool2DBackward0"),
                                              ((3, 5, 6), (4, 5), "AdaptiveAvgPool2DBackward0"),
                                              ((2, 3, 5, 5), (1, 1), "MeanBackward1")])
def test_adaptive_avg_pool2d_grads(shape, out, node, dtype):
    check_nn_grads(lambda x: F.adaptive_avg_pool2d(x, out), lambda x: TF.adaptive_avg_pool2d(x, out), [A(shape)],
                   dtype, node)


# ------------------------------------------------------------------------------------------------ embedding
@pytest.mark.parametrize("padding_idx", [None, 2, -1])
@pytest.mark.parametrize("scale", [False, True])
@pytest.mark.parametrize("idx_shape", [(5,), (2, 3), (0,)])
def test_embedding_grads(idx_shape, scale, padding_idx):
    rng = np.random.default_rng(3)
    idx = rng.integers(0, 6, size=idx_shape)
    if idx.size:
        idx.flat[0] = idx.flat[-1]  # a repeated index (scale_grad_by_freq)
    ei, ti = ember.tensor(idx.tolist(), dtype=ember.int64), torch.tensor(idx.tolist(), dtype=torch.int64)
    kw = dict(padding_idx=padding_idx, scale_grad_by_freq=scale)
    if idx.size == 0:
        # PyTorch 1.13's backward fails on no indices ("cannot reshape tensor of 0 elements"); Ember gives zeros.
        w = make_tensor((6, 4), "float64").requires_grad_()
        F.embedding(ember.zeros(idx_shape, dtype=ember.int64), w, **kw).sum().backward()
        assert_same(w.grad, torch.zeros(6, 4, dtype=torch.float64))
        return
    check_nn_grads(lambda w, i: F.embedding(i, w, **kw), lambda w, i: TF.embedding(i, w, **kw),
                   [A((6, 4)), (ei, ti)], "float64", "EmbeddingBackward0")


# ------------------------------------------------------------------------------------------------ losses
REDUCTIONS = ["mean", "sum", "none"]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name, efn, tfn, node", [
    ("mse", F.mse_loss, TF.mse_loss, "MseLossBackward0"),
    ("l1", F.l1_loss, TF.l1_loss, None),
    ("smooth_l1", lambda a, b, reduction: F.smooth_l1_loss(a, b, reduction=reduction, beta=0.7),
     lambda a, b, reduction: TF.smooth_l1_loss(a, b, reduction=reduction, beta=0.7), "SmoothL1LossBackward0"),
    ("huber", lambda a, b, reduction: F.huber_loss(a, b, reduction=reduction, delta=0.8),
     lambda a, b, reduction: TF.huber_loss(a, b, reduction=reduction, delta=0.8), "HuberLossBackward0"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_regression_loss_grads(name, efn, tfn, node, reduction, dtype):
    specs = [A((3, 4), -2, 2), A((3, 4), -2, 2, "transposed")]
    if name == "l1":
        # l1_loss is abs (a composite): create_graph goes through sign's derivative, which belongs to the
        # elementwise ops of ops.yaml (not there yet); the plain first gradients are checked.
        (ea, ta), (eb, tb) = _leaf(specs[0], dtype, 0), _leaf(specs[1], dtype, 1)
        efn(ea, eb, reduction=reduction).sum().backward()
        tfn(ta, tb, reduction=reduction).sum().backward()
        assert_same(ea.grad, ta.grad)
        assert_same(eb.grad, tb.grad)
        return
    check_nn_grads(lambda a, b: efn(a, b, reduction=reduction), lambda a, b: tfn(a, b, reduction=reduction),
                   specs, dtype, node)


def test_regression_loss_grads_edge_cases():
    # A target that needs no grad; 0-dim; the kinks (z = 0, z = +-beta/delta); beta = 0 (smooth_l1 is l1 there).
    for efn, tfn in [(lambda a, b: F.mse_loss(a, b), lambda a, b: TF.mse_loss(a, b)),
                     (lambda a, b: F.smooth_l1_loss(a, b, beta=0.0), lambda a, b: TF.smooth_l1_loss(a, b, beta=0.0)),
                     (lambda a, b: F.smooth_l1_loss(a, b, beta=0.5), lambda a, b: TF.smooth_l1_loss(a, b, beta=0.5)),
                     (lambda a, b: F.huber_loss(a, b, delta=0.5), lambda a, b: TF.huber_loss(a, b, delta=0.5))]:
        a = [0.0, 0.5, -0.5, 1.0, 2.0]
        e, t = ember.tensor(a, dtype=ember.float64, requires_grad=True), torch.tensor(a, dtype=torch.float64,
                                                                                   requires_grad=True)
        efn(e, ember.zeros(5, dtype=ember.float64)).backward()
        tfn(t, torch.zeros(5, dtype=torch.float64)).backward()
        assert_same(e.grad, t.grad)
        check_nn_grads(efn, tfn, [A(()), A((), rg=False)])


def test_embedding_max_norm_renormalizes_outside_the_graph():
    w = make_array((5, 3), "float64", seed=4)
    e, t = ember.tensor(w.tolist(), dtype=ember.float64, requires_grad=True), torch.tensor(w, requires_grad=True)
    idx = [[0, 2], [2, 4]]
    F.embedding(ember.tensor(idx), e, max_norm=1.0).sum().backward()
    TF.embedding(torch.tensor(idx), t, max_norm=1.0).sum().backward()
    assert_same(e.grad, t.grad)
    assert_same(e.detach(), t.detach())


MAX_POOL = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0), dilation=(1, 2), ceil_mode=True),
    dict(kernel_size=2, stride=1, dilation=2),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(2, 3, 7, 6), (1, 2, 5, 5), (3, 5, 4)])
@pytest.mark.parametrize("kw", MAX_POOL, ids=str)
def test_max_pool2d_grads(kw, shape, dtype):
    check_nn_grads(lambda x: F.max_pool2d(x, **kw), lambda x: TF.max_pool2d(x, **kw), [A(shape)], dtype,
                   "MaxPool2DWithIndicesBackward0")


def test_max_pool2d_grads_ties_non_contiguous_zero_batch_and_indices():
    # Ties (repeated values) send the gradient to the index the forward picked, as PyTorch's.
    x = [[[[1.0, 1.0, 0.0], [1.0, 1.0, 2.0], [2.0, 0.0, 2.0]]]]
    e, t = ember.tensor(x, dtype=ember.float64, requires_grad=True), torch.tensor(x, dtype=torch.float64,
                                                                               requires_grad=True)
    F.max_pool2d(e, 2, 1).sum().backward()
    TF.max_pool2d(t, 2, 1).sum().backward()
    assert_same(e.grad, t.grad)
    check_nn_grads(lambda x: F.max_pool2d(x, 2), lambda x: TF.max_pool2d(x, 2), [A((2, 3, 6, 4), layout="transposed")])
    check_nn_grads(lambda x: F.max_pool2d(x, 2), lambda x: TF.max_pool2d(x, 2), [A((0, 3, 6, 4))])
    check_nn_grads(lambda x: F.max_pool2d(x, 2, return_indices=True)[0],
                   lambda x: TF.max_pool2d(x, 2, return_indices=True)[0], [A((1, 2, 4, 4))])


# ------------------------------------------------------------------------------------------------ normalization
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (3, 2, 4, 3), (1, 3, 2, 2)])
def test_batch_norm_training_grads(shape, affine, dtype):
    C = shape[1]

    def run(m, x, *wb):
        rm, rv = m.zeros(C, dtype=x.dtype), m.ones(C, dtype=x.dtype)
        out = (F if m is ember else TF).batch_norm(x, rm, rv, *(wb or (None, None)), training=True, momentum=0.3)
        return out, rm, rv

    specs = [A(shape)] + ([A((C,), 0.5, 2.0), A((C,))] if affine else [])
    check_nn_grads(lambda *a: run(ember, *a)[0], lambda *a: run(torch, *a)[0], specs, dtype,
                   "NativeBatchNormBackward0", tol=(1e-8, 1e-10) if dtype == "float64" else (1e-3, 1e-4))
    # The running statistics were updated as PyTorch's.
    e, t = make_tensor(shape, dtype), None
    t = to_torch(e)
    _, erm, erv = run(ember, e)
    _, trm, trv = run(torch, t)
    assert_same(erm, trm, rtol=1e-5, atol=1e-6)
    assert_same(erv, trv, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_batch_norm_eval_grads(dtype):
    rm = make_array((3,), dtype, seed=9)
    rv = make_array((3,), dtype, low=0.5, high=2.0, seed=10)

    def run(m, x, w, b):
        return (F if m is ember else TF).batch_norm(
            x, (ember if m is ember else torch).tensor(rm.tolist(), dtype=x.dtype),
            (ember if m is ember else torch).tensor(rv.tolist(), dtype=x.dtype), w, b, training=False)

    check_nn_grads(lambda *a: run(ember, *a), lambda *a: run(torch, *a), [A((4, 3, 2)), A((3,)), A((3,))], dtype,
                   "NativeBatchNormBackward0")


def test_batch_norm_two_forwards_then_backward():
    # The running statistics change in place at every forward: backward through the first one still works.
    for m, fm in [(ember, F), (torch, TF)]:
        x = m.tensor(make_array((4, 3), "float64").tolist(), dtype=m.float64, requires_grad=True)
        rm, rv = m.zeros(3, dtype=m.float64), m.ones(3, dtype=m.float64)
        y1 = fm.batch_norm(x, rm, rv, training=True)
        y2 = fm.batch_norm(x * 2, rm, rv, training=True)
        (y1 * y1).sum().backward()
        (y2 * y2 * y2).sum().backward()
        if m is ember:
            eg = x.grad
        else:
            assert_same(eg, x.grad)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape, norm", [((4, 5), (5,)), ((2, 3, 4), (3, 4)), ((2, 3, 4), (4,)), ((5,), (5,)),
                                         ((0, 4), (4,))])
@pytest.mark.parametrize("affine", ["both", "weight", "none"])
def test_layer_norm_grads(shape, norm, affine, dtype):
    specs = [A(shape)] + {"both": [A(norm, 0.5, 2.0), A(norm)], "weight": [A(norm, 0.5, 2.0)], "none": []}[affine]
    check_nn_grads(lambda x, *wb: F.layer_norm(x, norm, *wb), lambda x, *wb: TF.layer_norm(x, norm, *wb), specs,
                   dtype, "NativeLayerNormBackward0", tol=(1e-8, 1e-10) if dtype == "float64" else (1e-3, 1e-4))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape, groups", [((2, 6, 5), 3), ((3, 4, 2, 3), 2), ((1, 4, 3), 4), ((2, 6), 1)])
@pytest.mark.parametrize("affine", [True, False])
def test_group_norm_grads(shape, groups, affine, dtype):
    C = shape[1]
    specs = [A(shape)] + ([A((C,), 0.5, 2.0), A((C,))] if affine else [])
    check_nn_grads(lambda x, *wb: F.group_norm(x, groups, *wb), lambda x, *wb: TF.group_norm(x, groups, *wb), specs,
                   dtype, "NativeGroupNormBackward0", tol=(1e-8, 1e-10) if dtype == "float64" else (1e-3, 1e-4))


# ------------------------------------------------------------------------------------------------ classification
def _targets(shape, C, ignore=None, seed=0):
    t = np.random.default_rng(seed).integers(0, C, size=shape)
    if ignore is not None and t.size:
        t.flat[:: 3] = ignore
    return ember.tensor(t.tolist(), dtype=ember.int64) if t.size else ember.zeros(shape, dtype=ember.int64), \
        torch.tensor(t.tolist(), dtype=torch.int64) if t.size else torch.zeros(shape, dtype=torch.int64)


def _class_weight(C):
    w = make_array((C,), "float64", low=0.2, high=2.0, seed=5)
    return ember.tensor(w.tolist(), dtype=ember.float64), torch.tensor(w.tolist(), dtype=torch.float64)


NLL_SHAPES = [((4, 5), (4,)), ((5,), ()), ((2, 3, 4, 2), (2, 4, 2)), ((2, 3, 4), (2, 4)),
              ((2, 3, 2, 2, 2), (2, 2, 2, 2)), ((1, 3), (1,))]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore", [None, 1, -100])
@pytest.mark.parametrize("shape, tshape", NLL_SHAPES, ids=str)
def test_nll_loss_grads(shape, tshape, ignore, weighted, reduction):
    C = shape[1] if len(shape) > 1 else shape[0]
    et, tt = _targets(tshape, C, ignore)
    ew, tw = _class_weight(C) if weighted else (None, None)
    kw = dict(reduction=reduction, ignore_index=ignore if ignore is not None else -100)
    check_nn_grads(lambda x: F.nll_loss(x, et, ew, **kw), lambda x: TF.nll_loss(x, tt, tw, **kw), [A(shape)])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
@pytest.mark.parametrize("shape, tshape", [((4, 5), (4,)), ((5,), ()), ((2, 3, 4, 2), (2, 4, 2)), ((2, 3, 4), (2, 4))],
                         ids=str)
def test_cross_entropy_grads(shape, tshape, smoothing, weighted, reduction):
    C = shape[1] if len(shape) > 1 else shape[0]
    et, tt = _targets(tshape, C, 2)
    ew, tw = _class_weight(C) if weighted else (None, None)
    kw = dict(reduction=reduction, ignore_index=2, label_smoothing=smoothing)
    check_nn_grads(lambda x: F.cross_entropy(x, et, ew, **kw), lambda x: TF.cross_entropy(x, tt, tw, **kw),
                   [A(shape)])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.3])
def test_cross_entropy_probability_target_grads(smoothing, reduction):
    check_nn_grads(lambda x, p: F.cross_entropy(x, F.softmax(p, 1), reduction=reduction, label_smoothing=smoothing),
                   lambda x, p: TF.cross_entropy(x, TF.softmax(p, 1), reduction=reduction, label_smoothing=smoothing),
                   [A((3, 4)), A((3, 4))], same_node=False)  # the mean's division by a number: DivBackward1 in
    # PyTorch (div.Scalar), DivBackward0 in Ember, whose Scalar overloads call the Tensor ones (scalar_of)


def test_cross_entropy_node_is_nll_over_log_softmax():
    x = make_tensor((3, 4), "float64").requires_grad_()
    et, _ = _targets((3,), 4)
    out = F.cross_entropy(x, et)
    assert out.grad_fn.name() == "NllLossBackward0"
    assert out.grad_fn.next_functions[0][0].name() == "LogSoftmaxBackward0"


def test_nll_loss_all_targets_ignored_gives_zero_grad():
    et, tt = _targets((3,), 4, ignore=1)
    et, tt = ember.full((3,), 1, dtype=ember.int64), torch.full((3,), 1, dtype=torch.int64)
    check_nn_grads(lambda x: F.nll_loss(x, et, ignore_index=1), lambda x: TF.nll_loss(x, tt, ignore_index=1),
                   [A((3, 4))])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy_grads(weighted, reduction, dtype):
    specs = [A((3, 4), 0.05, 0.95), A((3, 4), 0.0, 1.0)]
    w = make_tensor((3, 4), dtype, low=0.2, high=2.0, seed=8) if weighted else None
    check_nn_grads(lambda x, t: F.binary_cross_entropy(x, t, w, reduction=reduction),
                   lambda x, t: TF.binary_cross_entropy(x, t, to_torch(w) if weighted else None, reduction=reduction),
                   specs, dtype, "BinaryCrossEntropyBackward0")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted, pos", [(False, False), (True, False), (False, True), (True, True)])
def test_binary_cross_entropy_with_logits_grads(weighted, pos, reduction, dtype):
    w = make_tensor((4,), dtype, low=0.2, high=2.0, seed=8) if weighted else None
    p = make_tensor((4,), dtype, low=0.5, high=3.0, seed=9) if pos else None
    tconv = lambda v: to_torch(v) if v is not None else None  # noqa: E731
    check_nn_grads(lambda x, t: F.binary_cross_entropy_with_logits(x, t, w, reduction=reduction, pos_weight=p),
                   lambda x, t: TF.binary_cross_entropy_with_logits(x, t, tconv(w), reduction=reduction,
                                                                    pos_weight=tconv(p)),
                   [A((3, 4), -4, 4), A((3, 4), 0.0, 1.0)], dtype, "BinaryCrossEntropyWithLogitsBackward0")


# ------------------------------------------------------------------------------------------------ convolution
CONV2D = [
    dict(),
    dict(stride=2, padding=1),
    dict(stride=(2, 1), padding=(1, 2), dilation=(2, 1)),
    dict(groups=2, padding=1),
    dict(padding="same", dilation=2),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("kw", CONV2D, ids=str)
@pytest.mark.parametrize("n", [2, 1])
def test_conv2d_grads(n, kw, bias, dtype):
    specs = [A((n, 4, 6, 5)), A((6, 4 // kw.get("groups", 1), 3, 2))] + ([A((6,))] if bias else [])
    check_nn_grads(lambda x, w, *b: F.conv2d(x, w, *b, **kw), lambda x, w, *b: TF.conv2d(x, w, *b, **kw), specs,
                   dtype, "ConvolutionBackward0", tol=None if dtype == "float64" else (1e-3, 1e-4))


def test_conv_grads_unbatched_non_contiguous_zero_batch_and_conv1d():
    check_nn_grads(lambda x, w: F.conv2d(x, w), lambda x, w: TF.conv2d(x, w), [A((3, 5, 4)), A((2, 3, 2, 2))])
    check_nn_grads(lambda x, w: F.conv2d(x, w, padding=1), lambda x, w: TF.conv2d(x, w, padding=1),
                   [A((2, 3, 5, 4), layout="transposed"), A((2, 3, 3, 3), layout="transposed")])
    check_nn_grads(lambda x, w, b: F.conv2d(x, w, b), lambda x, w, b: TF.conv2d(x, w, b),
                   [A((0, 3, 5, 4)), A((2, 3, 3, 3)), A((2,))])
    check_nn_grads(lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1, groups=3),
                   lambda x, w, b: TF.conv1d(x, w, b, stride=2, padding=1, groups=3),
                   [A((2, 3, 7)), A((6, 1, 3)), A((6,))])


def test_conv_weight_only_and_input_only_grads():
    check_nn_grads(lambda x, w: F.conv2d(x, w), lambda x, w: TF.conv2d(x, w),
                   [A((2, 3, 5, 4), rg=False), A((2, 3, 3, 3))])
    check_nn_grads(lambda x, w: F.conv2d(x, w), lambda x, w: TF.conv2d(x, w),
                   [A((2, 3, 5, 4)), A((2, 3, 3, 3), rg=False)])


def test_double_backward_node_names_match_torch():
    # The first gradients (create_graph=True) are made by the backward ops, named as PyTorch's.
    def names(m, fm):
        x = m.ones(1, 2, 4, 4, dtype=m.float64).requires_grad_()
        w = m.ones(3, 2, 2, 2, dtype=m.float64).requires_grad_()
        cases = [(lambda: fm.conv2d(x, w), [x, w]), (lambda: fm.avg_pool2d(x, 2), [x]),
                 (lambda: fm.max_pool2d(x * 1, 2), [x]), (lambda: fm.adaptive_avg_pool2d(x, 3), [x])]
        out = []
        for f, ins in cases:
            g = m.autograd.grad(f().sum(), ins, create_graph=True)
            out.append([t.grad_fn.name() if t.grad_fn is not None else None for t in g])
        return out

    # (Activations and norms differentiate through compositions of Ember ops instead: other names there.)
    ours, theirs = names(ember, F), names(torch, TF)
    assert ours == theirs
    assert ours[0] == ["ConvolutionBackwardBackward0"] * 2


# ---------------------------------------------------------------------------------------------- class weights
NOT_DIFFERENTIABLE = [
    ("nll_loss", lambda m, F, x, w: F.nll_loss(x.log_softmax(1), m.tensor([1, 0, 3]), weight=w), (4,)),
    ("cross_entropy", lambda m, F, x, w: F.cross_entropy(x, m.tensor([1, 0, 3]), weight=w), (4,)),
    ("nll_loss2d", lambda m, F, x, w: F.nll_loss(x.reshape(1, 3, 2, 2).log_softmax(1),
                                                  m.zeros(1, 2, 2, dtype=m.int64), weight=w), (3,)),
    ("bce", lambda m, F, x, w: F.binary_cross_entropy(x.sigmoid(), m.full((3, 4), 0.5), weight=w), (3, 4)),
    ("bce_logits_weight", lambda m, F, x, w: F.binary_cross_entropy_with_logits(x, m.full((3, 4), 0.5), weight=w),
     (3, 4)),
    ("bce_logits_pos_weight",
     lambda m, F, x, w: F.binary_cross_entropy_with_logits(x, m.full((3, 4), 0.5), pos_weight=w), (4,)),
]


@pytest.mark.parametrize("x_requires_grad", [True, False])
@pytest.mark.parametrize("name,fn,wshape", NOT_DIFFERENTIABLE, ids=[c[0] for c in NOT_DIFFERENTIABLE])
def test_class_weights_requiring_grad_raise_like_pytorch(name, fn, wshape, x_requires_grad):
    # PyTorch has no derivative for these weights and refuses them requiring grad rather than dropping it; under
    # no_grad the same call works.
    for m, F in ((torch, torch.nn.functional), (ember, ember.nn.functional)):
        x = m.linspace(-1, 1, 12).reshape(3, 4).requires_grad_(x_requires_grad)
        w = m.linspace(0.5, 1, int(np.prod(wshape))).reshape(wshape).requires_grad_()
        with pytest.raises(RuntimeError, match="not differentiable with respect to argument"):
            fn(m, F, x, w)
        with m.no_grad():
            fn(m, F, x, w)
