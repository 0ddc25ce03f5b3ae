"""Traced sizes (Note [traced sizes] in ember/jit/frontend/Tracer.h) against torch.jit.trace (PyTorch 1.13):
x.size(0), x.shape[1], x.size(), arithmetic on them and their use as int arguments are recorded, so the traced
graph works for other input sizes where PyTorch's does; sizes turned into Python ints stay frozen, with a
TracerWarning in both."""
import warnings

import numpy as np
import pytest
import torch

import ember
from conftest import assert_same, to_ember


def randn(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def both(a):
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


def kinds(graph):
    """Op kinds of a graph, PyTorch's prim::NumToTensor read as Ember's aten::scalar_tensor (the same step),
    and ops PyTorch's tracer records under another name read under Ember's."""
    if hasattr(graph, "inputs"):
        ks = [n.kind() for n in graph.nodes()]
    else:
        ks = graph.nodes()
    same = {"prim::NumToTensor": "aten::scalar_tensor", "aten::new_zeros": "aten::zeros",
            "aten::_convolution": "aten::conv2d",  # Ember's new_zeros records aten::zeros
            "aten::ScalarImplicit": "aten::Int"}  # a traced int for a Scalar argument: Ember reuses aten::Int
    ks = [same.get(k, k) for k in ks]
    return [k for k in ks if k.startswith("aten::")]


def view_batch(x):
    return x.view(x.size(0), -1)


def reshape_arith(x):
    return x.reshape(x.shape[0] * 2, -1) + 1


def size_tuple(x):
    n, c = x.size()[:2]
    return x.reshape(n, c, -1).sum(2)


def factory_from_shape(x):
    return x + x.new_zeros(x.shape)


def flatten_from(x):
    return x.flatten(1)


def scaled_by_size(x):
    return x * x.size(1)


def arange_of_batch(x):
    lib = ember if isinstance(x, ember.Tensor) else torch
    return x + lib.arange(x.size(0)).view(-1, 1, 1)


@pytest.mark.parametrize("fn", [view_batch, reshape_arith, size_tuple, factory_from_shape, flatten_from,
                                scaled_by_size, arange_of_batch])
def test_sizes_follow_the_input_like_torch(fn):
    x, tx = both(randn(2, 3, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # neither tracer warns: nothing is frozen
        ef = ember.jit.trace(fn, (x,))
        tf = torch.jit.trace(fn, (tx,))
    assert sorted(kinds(ef.graph)) == sorted(kinds(tf.graph))  # x.size() may order its nodes otherwise
    for shape in ((5, 3, 4), (1, 3, 4), (7, 2, 6)):
        n, tn = both(randn(*shape, seed=1))
        assert_same(ef(n), tf(tn))
        assert_same(ef(n), fn(tn))


def test_size_is_a_traced_int64_tensor_while_tracing():
    seen = {}

    def f(x):
        seen["size"] = x.size(0)
        seen["shape"] = x.shape
        return x * 2

    for lib in (ember, torch):
        lib.jit.trace(f, (lib.ones(3, 2),), check_trace=False)  # check_trace would run f again untraced
        assert isinstance(seen["size"], lib.Tensor) and seen["size"].dtype == lib.int64 and seen["size"].dim() == 0
        assert int(seen["size"]) == 3
        assert isinstance(seen["shape"], lib.Size) and isinstance(seen["shape"][1], lib.Tensor)
    # not tracing: plain ints
    assert ember.ones(3, 2).size(0) == 3 and type(ember.ones(3, 2).shape[1]) is int


def test_sizes_made_python_ints_are_frozen_with_a_warning_in_both():
    def f(x):
        return x.view(int(x.size(0)), -1)

    for lib in (ember, torch):
        x = lib.ones(2, 3, 4)
        with pytest.warns(lib.jit.TracerWarning, match="Python"):
            g = lib.jit.trace(f, (x,))
        assert g(lib.ones(2, 3, 4)).shape == (2, 12)
        assert g(lib.ones(5, 3, 4)).shape == (2, 30)  # frozen at 2 in both


class Flat(ember.nn.Module):
    """The classic classifier head: x.view(x.size(0), -1) between a convolution and a Linear."""

    def __init__(self, nn):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3)
        self.fc = nn.Linear(2 * 4 * 4, 3)

    def forward(self, x):
        h = self.conv(x).relu()
        return self.fc(h.view(h.size(0), -1))


class TorchFlat(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 2, 3)
        self.fc = torch.nn.Linear(2 * 4 * 4, 3)

    forward = Flat.forward


def test_module_with_view_of_batch_size_saves_and_runs_any_batch(tmp_path):
    torch.manual_seed(0)
    t = TorchFlat()
    e = Flat(ember.nn)
    e.load_state_dict({k: to_ember(v.detach()) for k, v in t.state_dict().items()})
    x, tx = both(randn(4, 1, 6, 6))
    em, tm = ember.jit.trace(e, x), torch.jit.trace(t, tx)
    assert kinds(em.graph) == kinds(tm.inlined_graph)
    em.save(str(tmp_path / "m.pt"))
    loaded = ember.jit.load(str(tmp_path / "m.pt"))
    with ember.no_grad(), torch.no_grad():
        for b in (1, 9):
            n, tn = both(randn(b, 1, 6, 6, seed=b))
            assert_same(em(n), tm(tn), rtol=1e-4, atol=1e-5)
            assert_same(loaded(n), tm(tn), rtol=1e-4, atol=1e-5)
