"""ember.jit.freeze / optimize_for_inference against torch.jit's (PyTorch 1.13): equal values on new batch
sizes, parameters become constants (no parameters, no attribute reads of weights), BatchNorm folded, eval mode
required, the frozen module saves and loads."""
import numpy as np
import pytest
import torch

import ember
from conftest import assert_same, to_ember


def randn(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def both(a):
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


def cnn(nn):
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Dropout(0.25), nn.Flatten(), nn.Linear(4 * 4 * 4, 8), nn.BatchNorm1d(8), nn.ReLU(),
                         nn.Linear(8, 3))


def traced_pair():
    torch.manual_seed(0)
    t = cnn(torch.nn)
    e = cnn(ember.nn)
    with torch.no_grad():  # non-trivial running statistics
        for mod in t.modules():
            if isinstance(mod, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d)):
                mod.running_mean.uniform_(-0.5, 0.5)
                mod.running_var.uniform_(0.5, 2.0)
    t.eval()
    e.eval()
    e.load_state_dict({k: to_ember(v.detach()) for k, v in t.state_dict().items()})
    x, tx = both(randn(2, 1, 8, 8))
    return ember.jit.trace(e, x), torch.jit.trace(t, tx)


@pytest.mark.parametrize("how", ["freeze", "optimize_for_inference"])
def test_frozen_values_match_torch_and_parameters_become_constants(tmp_path, how):
    em, tm = traced_pair()
    ef, tf = getattr(ember.jit, how)(em), getattr(torch.jit, how)(tm)
    assert isinstance(ef, ember.jit.ScriptModule)
    assert list(ef.parameters()) == [] and list(tf.parameters()) == []
    assert list(ef.state_dict()) == list(tf.state_dict()) == []
    text = str(ef.graph)
    assert 'prim::GetAttr[name="weight"]' not in text and "aten::batch_norm" not in text  # folded into conv/linear
    for b in (1, 5):
        x, tx = both(randn(b, 1, 8, 8, seed=b))
        with ember.no_grad(), torch.no_grad():
            assert_same(ef(x), tf(tx), rtol=1e-4, atol=1e-5)
    ef.save(str(tmp_path / "f.pt"))
    loaded = ember.jit.load(str(tmp_path / "f.pt"))
    with ember.no_grad(), torch.no_grad():
        assert_same(loaded(x), tf(tx), rtol=1e-4, atol=1e-5)


def test_frozen_module_does_not_follow_the_original():
    """Ember's frozen constants are copies (Note [frozen constants are copies] in ember/jit/passes): training
    the original further leaves the frozen module as frozen. (PyTorch 1.13's constants alias the original's
    tensors, so an in-place update of the original reaches its frozen module; Ember chose the safer copy.)"""
    em, tm = traced_pair()
    ef = ember.jit.freeze(em)
    x, tx = both(randn(3, 1, 8, 8, seed=7))
    with ember.no_grad(), torch.no_grad():
        expected = tm(tx)
        before = ef(x)
        for p in em.parameters():
            p.mul_(0)
        assert_same(ef(x), expected, rtol=1e-4, atol=1e-5)
        assert bool((ef(x) == before).all())


def test_freeze_needs_eval_and_a_script_module_like_torch():
    em, tm = traced_pair()
    em.train()
    tm.train()
    for lib, mod in ((ember, em), (torch, tm)):
        with pytest.raises(RuntimeError, match="only implemented for modules in eval mode"):
            lib.jit.freeze(mod)
        with pytest.raises(RuntimeError, match="expects a ScriptModule as input"):
            lib.jit.freeze(lib.nn.Linear(2, 2).eval())
