"""The main job's custom op (issue 7): examples/fashion_mnist/train.py compiles fmnist::relu_max_pool2d with
ember.utils.cpp_extension.load_inline and uses it in both conv blocks. It must compute PyTorch's
max_pool2d(relu(x), 2), values and gradients, bit for bit (Note [fused relu + max pooling] in train.py), so the
model trains exactly as with the plain ops; it must be traced as one op; a second load must not recompile.
"""
import math
import os
import sys

import numpy as np
import pytest
import torch

import ember
from ember.utils import cpp_extension

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "examples", "fashion_mnist"))
import train  # noqa: E402


@pytest.fixture(scope="module")
def fused(tmp_path_factory):
    """The op, compiled into a fresh cache (so the compile itself is tested) unless this process loaded it
    already (train.load_fused_op loads it once per process)."""
    root = tmp_path_factory.mktemp("ember_extensions")
    old = os.environ.get("EMBER_EXTENSIONS_DIR")
    os.environ["EMBER_EXTENSIONS_DIR"] = str(root)
    mod = train.load_fused_op()
    yield ember.ops.fmnist.relu_max_pool2d, mod
    if old is None:
        del os.environ["EMBER_EXTENSIONS_DIR"]
    else:
        os.environ["EMBER_EXTENSIONS_DIR"] = old


def torch_ref(x):
    return torch.nn.functional.max_pool2d(torch.relu(x), 2)


def to_torch(t):
    return torch.from_numpy(np.array(t.detach().numpy()))


def compare(op, array, grad_array=None):
    """Runs the op and torch's plain ops on `array` (NumPy); checks values, dtype, shape and the input's gradient
    for the output gradient `grad_array` (default random), all bit for bit (NaN where torch has NaN)."""
    x = ember.tensor(array, requires_grad=True)
    tx = torch.tensor(array, requires_grad=True)
    y, ty = op(x), torch_ref(tx)
    assert y.dtype == x.dtype and tuple(y.shape) == tuple(ty.shape)
    torch.testing.assert_close(to_torch(y), ty.detach(), rtol=0, atol=0, equal_nan=True)
    if grad_array is None:
        grad_array = np.random.default_rng(1).standard_normal(tuple(ty.shape)).astype(array.dtype)
    y.backward(ember.tensor(grad_array))
    ty.backward(torch.tensor(grad_array))
    assert x.grad.dtype == x.dtype
    torch.testing.assert_close(to_torch(x.grad), tx.grad, rtol=0, atol=0, equal_nan=True)
    return y


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(2, 3, 8, 8), (2, 3, 7, 7), (1, 2, 5, 6), (3, 4, 5), (4, 1, 2, 2)])
def test_values_and_gradients(fused, dtype, shape):
    op, _ = fused
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    y = compare(op, x)
    # 7x7 -> 3x3, 5x6 -> 2x3 (floor, as MaxPool2d(2))
    assert tuple(y.shape) == shape[:-2] + (shape[-2] // 2, shape[-1] // 2)


def test_ties_zeros_and_negatives(fused):
    """Small integers: many windows hold equal maxima (the first one gets the gradient), zeros, or only negatives
    (output 0, no gradient)."""
    op, _ = fused
    x = np.random.default_rng(2).integers(-2, 3, size=(3, 4, 9, 10)).astype(np.float32)
    compare(op, x)
    compare(op, np.zeros((1, 1, 4, 4), np.float32))
    compare(op, -np.ones((1, 1, 4, 4), np.float64))
    compare(op, np.array([[[[-0.0, 0.0], [0.0, -0.0]]]], np.float32))


def test_nan_and_inf(fused):
    op, _ = fused
    x = np.array([[[[np.nan, 1.0, -1.0, np.nan, 2.0, 0.5],
                    [3.0, np.nan, -2.0, -3.0, np.inf, 1.0],
                    [-np.inf, -np.inf, np.nan, -1.0, -np.inf, 4.0],
                    [-np.inf, -5.0, 1.0, np.nan, 2.0, 3.0]]]], np.float32)
    y = compare(op, x)
    assert math.isnan(y[0, 0, 0, 0].item()) and math.isnan(y[0, 0, 0, 1].item())
    assert y[0, 0, 0, 2].item() == math.inf and y[0, 0, 1, 0].item() == 0.0
    compare(op, x.astype(np.float64), grad_array=np.full((1, 1, 2, 3), np.nan))


def test_noncontiguous_input(fused):
    op, _ = fused
    base = np.random.default_rng(3).standard_normal((2, 7, 6, 3)).astype(np.float32)
    x = ember.tensor(base).permute(0, 3, 1, 2)  # (2, 3, 7, 6), channels last in memory
    assert not x.is_contiguous()
    x.requires_grad_()
    tx = torch.tensor(base).permute(0, 3, 1, 2).requires_grad_()
    y, ty = op(x), torch_ref(tx)
    torch.testing.assert_close(to_torch(y), ty.detach(), rtol=0, atol=0)
    g = np.random.default_rng(4).standard_normal(tuple(ty.transpose(2, 3).shape)).astype(np.float32)
    # the output's gradient reaches the op transposed: non-contiguous
    (y.transpose(2, 3) * ember.tensor(g)).sum().backward()
    (ty.transpose(2, 3) * torch.tensor(g)).sum().backward()
    torch.testing.assert_close(to_torch(x.grad), tx.grad, rtol=0, atol=0)
    step = ember.tensor(np.random.default_rng(5).standard_normal((2, 3, 8, 12)).astype(np.float32))[:, :, :, ::2]
    torch.testing.assert_close(to_torch(op(step)), torch_ref(to_torch(step)), rtol=0, atol=0)


def test_empty_batch(fused):
    op, _ = fused
    y = compare(op, np.zeros((0, 3, 7, 7), np.float32))
    assert tuple(y.shape) == (0, 3, 3, 3)


def test_gradcheck_float64(fused):
    op, _ = fused
    # Distinct values away from 0, so that no finite-difference step crosses a tie or relu's kink.
    values = np.random.default_rng(6).permutation(2 * 3 * 5 * 6).astype(np.float64) - 60.5
    x = ember.tensor(values.reshape(2, 3, 5, 6) * 0.1, requires_grad=True)
    assert ember.autograd.gradcheck(op, (x,))


@pytest.mark.parametrize("array", [
    np.zeros((4, 4), np.float32),                 # 2-D
    np.zeros((1, 1, 1, 1, 4), np.float32),        # 5-D
    np.zeros((1, 1, 1, 4), np.float32),           # smaller than the window
    np.zeros((2, 0, 4, 4), np.float32),           # no channels
    np.zeros((1, 1, 4, 4), np.int64),             # not floating
])
def test_bad_input_raises_as_torch(fused, array):
    op, _ = fused
    with pytest.raises(RuntimeError):
        torch_ref(torch.tensor(array))
    with pytest.raises(RuntimeError, match="fmnist::relu_max_pool2d"):
        op(ember.tensor(array))


def test_model_equals_plain_model(fused):
    """The model with the fused op gives the plain model's logits and gradients, bit for bit."""
    ember.manual_seed(0)
    model = train.build_model(ember.nn)
    plain = train.build_model(ember.nn, train.relu_max_pool2d_plain(ember))
    plain.load_state_dict(model.state_dict())
    x = ember.randn(16, 1, 28, 28)
    labels = ember.arange(16) % 10
    for m in (model, plain):
        ember.manual_seed(1)  # the same dropout masks
        ember.nn.functional.cross_entropy(m(x), labels).backward()
    for (name, p), q in zip(model.named_parameters(), plain.parameters()):
        assert ember.equal(p.grad, q.grad), name
    model.eval()
    plain.eval()
    with ember.no_grad():
        assert ember.equal(model(x), plain(x))
    assert model.state_dict().keys() == plain.state_dict().keys()


def test_traced_as_one_op(fused):
    model = train.build_model(ember.nn)
    model.eval()
    with ember.no_grad():
        traced = ember.jit.trace(model, (ember.randn(2, 1, 28, 28),))
    graph = str(traced.graph)
    assert graph.count("fmnist::relu_max_pool2d") == 2, graph
    assert "max_pool2d" not in graph.replace("fmnist::relu_max_pool2d", "") and "relu" not in \
        graph.replace("fmnist::relu_max_pool2d", ""), graph


def test_second_load_does_not_compile(fused, monkeypatch):
    _, mod = fused

    def no_compiler(*args, **kwargs):
        raise AssertionError("the compiler ran again")

    monkeypatch.setattr(cpp_extension.subprocess, "run", no_compiler)
    assert train.load_fused_op() is mod  # once per process
    # The cache the module was built in (another test of the run may have built it first, in the default cache).
    monkeypatch.setenv("EMBER_EXTENSIONS_DIR", os.path.dirname(os.path.dirname(mod.__file__)))
    again = cpp_extension.load_inline(train.FUSED_OP_NAME, train.FUSED_OP_SOURCE, extra_cflags=train.FUSED_OP_CFLAGS)
    assert again.__file__ == mod.__file__ and os.path.isfile(mod.__file__)


def test_torch_model_uses_plain_ops():
    model = train.build_model(torch.nn)
    model.eval()
    traced = torch.jit.trace(model, torch.randn(2, 1, 28, 28))
    graph = str(traced.inlined_graph)
    assert "aten::max_pool2d" in graph and "aten::relu" in graph
