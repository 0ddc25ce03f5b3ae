"""The fused backward kernels against PyTorch 1.13: native_batch_norm_backward (which batch_norm's derivative
calls when no graph is recorded; with create_graph the composite formula runs, tested in test_autograd_nn.py)
and threshold_backward (relu's and threshold's derivative, an op of its own)."""
import math

import numpy as np
import pytest

import ember
import ember.nn.functional as F
import torch
import torch.nn.functional as TF
from conftest import assert_same, make_array, make_tensor, to_torch

TOL = {"float64": (1e-9, 1e-11), "float32": (1e-4, 1e-5)}


def _pair(shape, dtype, seed, layout=None):
    e = make_tensor(shape, dtype, seed=seed) if layout is None else make_tensor(shape, dtype, seed=seed,
                                                                                layout=layout)
    return e, to_torch(e)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (3, 2, 4, 3), (5, 4, 7, 9), (0, 3, 2, 2)])
def test_batch_norm_backward_without_graph(shape, affine, training, dtype):
    if shape[0] == 0 and training:
        pytest.skip("PyTorch refuses an empty batch in training")
    C = shape[1]
    x, tx = _pair(shape, dtype, 1)
    g, tg = _pair(shape, dtype, 2)
    x.requires_grad_(), tx.requires_grad_()
    leaves = [x]
    tleaves = [tx]
    wb, twb = (None, None), (None, None)
    if affine:
        w, tw = _pair((C,), dtype, 3)
        b, tb = _pair((C,), dtype, 4)
        for t in (w, tw, b, tb):
            t.requires_grad_()
        wb, twb = (w, b), (tw, tb)
        leaves += [w, b]
        tleaves += [tw, tb]
    rm = make_array((C,), dtype, seed=5)
    rv = make_array((C,), dtype, low=0.5, high=2.0, seed=6)
    y = F.batch_norm(x, ember.tensor(rm.tolist(), dtype=x.dtype), ember.tensor(rv.tolist(), dtype=x.dtype), *wb,
                     training=training)
    ty = TF.batch_norm(tx, torch.tensor(rm.tolist(), dtype=tx.dtype), torch.tensor(rv.tolist(), dtype=tx.dtype),
                       *twb, training=training)
    got = ember.autograd.grad(y, leaves, g)
    want = torch.autograd.grad(ty, tleaves, tg)
    rtol, atol = TOL[dtype]
    for i, (a, b) in enumerate(zip(got, want)):
        assert not a.requires_grad
        assert_same(a, b, rtol=rtol, atol=atol, msg=f"grad of input {i}: ")


def test_batch_norm_backward_non_contiguous_and_only_some_grads():
    # A transposed input and upstream gradient; only the weight requires grad (output_mask = [0, 1, 0]).
    x, tx = _pair((6, 4, 5), "float64", 1, layout="transposed")
    g, tg = _pair((6, 4, 5), "float64", 2, layout="transposed")
    w, tw = _pair((4,), "float64", 3)
    w.requires_grad_(), tw.requires_grad_()
    y = F.batch_norm(x, None, None, w, None, training=True)
    ty = TF.batch_norm(tx, None, None, tw, None, training=True)
    (gw,) = ember.autograd.grad(y, [w], g)
    (tgw,) = torch.autograd.grad(ty, [tw], tg)
    assert_same(gw, tgw, rtol=1e-9, atol=1e-11)


def test_batch_norm_module_training_step_matches():
    # The layer as the main job uses it (conv -> BatchNorm2d -> relu), one backward without create_graph.
    torch.manual_seed(0)
    tbn = torch.nn.BatchNorm2d(8)
    bn = ember.nn.BatchNorm2d(8)
    bn.load_state_dict({k: ember.from_numpy(v.numpy().copy()) for k, v in tbn.state_dict().items()})
    x, tx = _pair((16, 8, 6, 6), "float32", 7)
    x.requires_grad_(), tx.requires_grad_()
    F.relu(bn(x)).square().sum().backward()
    TF.relu(tbn(tx)).square().sum().backward()
    assert_same(x.grad, tx.grad, rtol=1e-4, atol=1e-5)
    assert_same(bn.weight.grad, tbn.weight.grad, rtol=1e-4, atol=1e-4)
    assert_same(bn.bias.grad, tbn.bias.grad, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_threshold_backward(dtype):
    g, tg = _pair((3, 4), dtype, 1)
    s, ts = _pair((3, 4), dtype, 2)
    for th in (0, 0.5, -1):
        assert_same(ember.threshold_backward(g, s, th), torch.ops.aten.threshold_backward(tg, ts, th))
    # Broadcast, and dtype promotion between grad_output and self.
    s1, ts1 = _pair((4,), "float64", 3)
    assert_same(ember.threshold_backward(g, s1, 0), torch.ops.aten.threshold_backward(tg, ts1, 0))


def test_threshold_backward_nan_and_relu_at_nan():
    s = [float("nan"), -1.0, 0.0, 2.0, float("inf"), -float("inf")]
    g = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    got = ember.threshold_backward(ember.tensor(g), ember.tensor(s), 0)
    want = torch.ops.aten.threshold_backward(torch.tensor(g), torch.tensor(s), 0)
    assert_same(got, want)
    # relu's gradient passes at NaN, as PyTorch's (its derivative is threshold_backward of the result).
    e, t = ember.tensor(s, requires_grad=True), torch.tensor(s, requires_grad=True)
    ember.relu(e).backward(ember.tensor(g))
    torch.relu(t).backward(torch.tensor(g))
    assert_same(e.grad, t.grad)
    assert not math.isnan(e.grad[0].item())


def test_threshold_backward_double_backward():
    # Gradient of relu's gradient with respect to the upstream gradient: threshold_backward again.
    x, tx = _pair((5,), "float64", 1)
    g, tg = _pair((5,), "float64", 2)
    for t in (x, tx, g, tg):
        t.requires_grad_()
    (gx,) = ember.autograd.grad(ember.relu(x), [x], g, create_graph=True)
    (tgx,) = torch.autograd.grad(torch.relu(tx), [tx], tg, create_graph=True)
    assert gx.grad_fn.name() == tgx.grad_fn.name() == "ThresholdBackwardBackward0"
    v = np.arange(5.0)
    (gg,) = ember.autograd.grad(gx, [g], ember.tensor(v.tolist(), dtype=ember.float64))
    (tgg,) = torch.autograd.grad(tgx, [tg], torch.tensor(v.tolist(), dtype=torch.float64))
    assert_same(gg, tgg)
