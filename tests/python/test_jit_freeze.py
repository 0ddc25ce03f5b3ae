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


def test_preserved_attributes_stay_attributes_like_torch():
    """preserved_attrs names attributes too (torch.jit.freeze accepts both): "weight" of the root and "6.weight"
    of a submodule stay prim::GetAttr reads of the original's tensors, so changing them in place changes the frozen
    module's results, in both frameworks (Note [preserved attributes] in ember/jit/passes/Freeze.cpp)."""
    em, tm = traced_pair()
    names = ["6.weight", "1.running_mean"]
    ef, tf = ember.jit.freeze(em, preserved_attrs=names), torch.jit.freeze(tm, preserved_attrs=names)
    for lib, f in ((ember, ef), (torch, tf)):
        text = str(f.graph)
        assert 'prim::GetAttr[name="weight"]' in text and 'prim::GetAttr[name="running_mean"]' in text
        assert 'prim::GetAttr[name="running_var"]' not in text  # the others are constants
    x, tx = both(randn(3, 1, 8, 8, seed=9))
    with ember.no_grad(), torch.no_grad():
        assert_same(ef(x), tf(tx), rtol=1e-4, atol=1e-5)
        for lib, m in ((ember, em), (torch, tm)):  # in place, through the original module
            getattr(m, "6").weight.mul_(-2)
            getattr(m, "1").running_mean.add_(1)
        assert_same(ef(x), tf(tx), rtol=1e-4, atol=1e-5)
        assert_same(ef(x), tm(tx), rtol=1e-4, atol=1e-5)  # = the changed original

    # An attribute of the root; a method name and an attribute name together.
    torch.manual_seed(1)
    tl = torch.nn.Linear(3, 2).eval()
    el = ember.nn.Linear(3, 2).eval()
    el.load_state_dict({k: to_ember(v.detach()) for k, v in tl.state_dict().items()})
    x, tx = both(randn(4, 3, seed=10))
    ef = ember.jit.freeze(ember.jit.trace(el, x), preserved_attrs=["weight", "forward"])
    tf = torch.jit.freeze(torch.jit.trace(tl, tx), preserved_attrs=["weight", "forward"])
    assert [n for n, _ in ef.named_parameters()] == [n for n, _ in tf.named_parameters()] == ["weight"]
    assert not hasattr(ef, "bias") and not hasattr(tf, "bias")
    with ember.no_grad(), torch.no_grad():
        ef.weight.zero_()
        tf.weight.zero_()
        assert_same(ef(x), tf(tx))  # the bias alone, in both
        assert_same(el.weight, tl.weight)  # the frozen module shares the preserved tensor with the original


def test_preserved_attrs_naming_nothing_raise_like_torch():
    em, tm = traced_pair()
    for lib, mod in ((ember, em), (torch, tm)):
        with pytest.raises(RuntimeError):
            lib.jit.freeze(mod, preserved_attrs=["no_such_thing"])
    with pytest.raises(RuntimeError, match="names neither a method nor an attribute"):
        ember.jit.freeze(em, preserved_attrs=["no_such_thing"])
    with pytest.raises(RuntimeError, match="has no submodule 'nine'"):
        ember.jit.freeze(em, preserved_attrs=["nine.weight"])
