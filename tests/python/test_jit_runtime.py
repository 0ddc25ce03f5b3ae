"""Traced modules on the C++ runtime, ember.jit.save / ember.jit.load, against torch.jit (PyTorch 1.13): values
on new inputs and batch sizes, shared parameters, autograd, save -> load -> forward, extra files, file objects,
errors for missing and corrupt files, and threads."""
import copy
import io
import os
import threading

import numpy as np
import pytest
import torch

import ember
from conftest import assert_same, to_ember, to_torch


def randn(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def both(a):
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


def copy_weights(emod, tmod):
    emod.load_state_dict({k: to_ember(v.detach()) for k, v in tmod.state_dict().items()})


def mlp(nn):
    return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))


def cnn(nn):
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Dropout(0.3), nn.Flatten(), nn.Linear(4 * 4 * 4, 5))


def nested_model(lib):
    """Nested submodules (Block inside Nested and inside a Sequential), a buffer, a tuple input and a
    (tensor, list) output; the same classes for ember and torch."""
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)
            self.norm = nn.LayerNorm(4)

        def forward(self, x):
            return self.norm(self.fc(x)).relu()

    class Nested(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = Block()
            self.b = nn.Sequential(Block(), nn.Linear(4, 2))
            self.register_buffer("scale", lib.full((1,), 2.0))

        def forward(self, x, pair):
            h = self.a(x) + pair[0]
            return self.b(h) * self.scale, [pair[1] - h, h.sum(1)]

    return Nested()


def models():
    """(name, ember module, torch module, example input shape) with the same weights, in eval mode."""
    out = []
    for name, build, shape in (("mlp", mlp, (2, 6)), ("cnn", cnn, (3, 1, 8, 8))):
        torch.manual_seed(0)
        t = build(torch.nn).eval()
        e = build(ember.nn).eval()
        copy_weights(e, t)
        out.append((name, e, t, shape))
    return out


def flat(out):
    if isinstance(out, (tuple, list)):
        return [y for o in out for y in flat(o)]
    return [out]


@pytest.mark.parametrize("idx", [0, 1])
def test_traced_and_loaded_modules_match_torch_on_another_batch_size(tmp_path, idx):
    name, e, t, shape = models()[idx]
    x, tx = both(randn(*shape))
    em, tm = ember.jit.trace(e, x), torch.jit.trace(t, tx)
    em.save(str(tmp_path / "e.pt"))
    tm.save(str(tmp_path / "t.pt"))
    el, tl = ember.jit.load(str(tmp_path / "e.pt")), torch.jit.load(str(tmp_path / "t.pt"))
    assert isinstance(el, ember.jit.RecursiveScriptModule) and isinstance(el, ember.jit.ScriptModule)
    assert el.original_name == tl.original_name == "Sequential"
    assert el.training == tl.training is False
    assert [n for n, _ in el.named_parameters()] == [n for n, _ in tl.named_parameters()]
    assert [n for n, _ in el.named_buffers()] == [n for n, _ in tl.named_buffers()]
    assert list(el.state_dict()) == list(tl.state_dict())
    for (n, p), (_, q) in zip(el.named_parameters(), tl.named_parameters()):
        assert isinstance(p, ember.nn.Parameter) and p.requires_grad == q.requires_grad, n
        assert_same(p.detach(), q.detach())
    nx, ntx = both(randn(7, *shape[1:], seed=4))
    with ember.no_grad(), torch.no_grad():
        ref = tm(ntx)
        assert_same(em(nx), ref, rtol=1e-4, atol=1e-5)
        assert_same(el(nx), ref, rtol=1e-4, atol=1e-5)
        assert_same(el(nx), tl(ntx), rtol=1e-4, atol=1e-5)
    assert str(el.graph) == str(em.graph) and el.code == em.code


def test_nested_submodules_containers_and_attributes_after_load(tmp_path):
    torch.manual_seed(1)
    t = nested_model(torch)
    e = nested_model(ember)
    copy_weights(e, t)
    x, tx = both(randn(3, 4))
    p0, tp0 = both(randn(3, 4, seed=1))
    p1, tp1 = both(randn(3, 4, seed=2))
    em = ember.jit.trace(e, (x, (p0, p1)))
    tm = torch.jit.trace(t, (tx, (tp0, tp1)), strict=False)
    ember.jit.save(em, str(tmp_path / "n.pt"))
    torch.jit.save(tm, str(tmp_path / "n.pt.torch"))
    el, tl = ember.jit.load(str(tmp_path / "n.pt")), torch.jit.load(str(tmp_path / "n.pt.torch"))
    assert el.original_name == "Nested" and el.a.original_name == tl.a.original_name == "Block"
    assert el.b[0].original_name == "Block" and len(el.b) == 2
    assert_same(el.a.fc.weight.detach(), tl.a.fc.weight.detach())
    assert_same(el.scale, tl.scale)
    assert [n for n, _ in el.named_modules()] == [n for n, _ in tl.named_modules()]
    nx, ntx = both(randn(5, 4, seed=3))
    q0, tq0 = both(randn(5, 4, seed=4))
    q1, tq1 = both(randn(5, 4, seed=5))
    with ember.no_grad(), torch.no_grad():
        for mod in (em, el):
            out = mod(nx, (q0, q1))
            ref = tl(ntx, (tq0, tq1))
            assert type(out) is tuple and type(out[1]) is list
            for a, b in zip(flat(out), flat(ref)):
                assert_same(a, b, rtol=1e-4, atol=1e-5)
    with pytest.raises(RuntimeError, match="structure"):
        el(nx, [q0, q1])  # a list where a tuple was traced


def test_parameters_stay_shared_and_autograd_reaches_them():
    torch.manual_seed(2)
    t = mlp(torch.nn)
    e = mlp(ember.nn)
    copy_weights(e, t)
    x, tx = both(randn(4, 6))
    em, tm = ember.jit.trace(e, x), torch.jit.trace(t, tx)
    for (n, p), (_, q) in zip(em.named_parameters(), e.named_parameters()):
        assert p is q, n
    # gradients through the traced forward reach the original parameters, as torch's
    em(x).square().sum().backward()
    tm(tx).square().sum().backward()
    for (n, p), (_, q) in zip(e.named_parameters(), t.named_parameters()):
        assert_same(p.grad, q.grad, rtol=1e-4, atol=1e-5)
    # training the traced module: the next call sees the updated parameters
    eo, to = ember.optim.SGD(em.parameters(), lr=0.1), torch.optim.SGD(tm.parameters(), lr=0.1)
    eo.step()
    to.step()
    with ember.no_grad(), torch.no_grad():
        assert_same(em(x), tm(tx), rtol=1e-4, atol=1e-5)
        assert_same(em(x), to_torch(e(x)))
        # replacing a parameter of the traced module is seen by its graph
        getattr(em, "0").bias = ember.nn.Parameter(ember.ones(16))
        getattr(tm, "0").bias = torch.nn.Parameter(torch.ones(16))
        assert_same(em(x), tm(tx), rtol=1e-4, atol=1e-5)


def test_loaded_module_trains_and_load_state_dict_is_seen(tmp_path):
    _, e, t, shape = models()[0]
    x, tx = both(randn(*shape))
    ember.jit.trace(e, x).save(str(tmp_path / "m.pt"))
    torch.jit.trace(t, tx).save(str(tmp_path / "m.pt.torch"))
    el, tl = ember.jit.load(str(tmp_path / "m.pt")), torch.jit.load(str(tmp_path / "m.pt.torch"))
    el(x).sum().backward()
    tl(tx).sum().backward()
    for (n, p), (_, q) in zip(el.named_parameters(), tl.named_parameters()):
        assert_same(p.grad, q.grad, rtol=1e-4, atol=1e-5)
    sd = {k: v * 0 for k, v in el.state_dict().items()}
    el.load_state_dict(sd)
    assert_same(el(x), torch.zeros(2, 3))
    el.train()
    assert el.training and el[0].training and tl.train().training


def test_extra_files_and_file_objects(tmp_path):
    _, e, t, shape = models()[0]
    x, tx = both(randn(*shape))
    em, tm = ember.jit.trace(e, x), torch.jit.trace(t, tx)
    for lib, mod in ((ember, em), (torch, tm)):
        buf = io.BytesIO()
        lib.jit.save(mod, buf, _extra_files={"meta.txt": "hello", "bytes": b"\x00\x01 caf\xc3\xa9"})
        buf.seek(0)
        extra = {"meta.txt": "", "bytes": "", "absent": ""}
        loaded = lib.jit.load(buf, _extra_files=extra)
        assert extra == {"meta.txt": b"hello", "bytes": b"\x00\x01 caf\xc3\xa9", "absent": b""}
        with lib.no_grad():
            assert loaded(x if lib is ember else tx).shape == (2, 3)
    with pytest.raises(ValueError, match="'bin' is not UTF-8 text"):  # a limit of Ember's archive
        ember.jit.save(em, io.BytesIO(), _extra_files={"bin": b"\xff\xfe"})
    p = tmp_path / "path.pt"
    ember.jit.save(em, p)  # os.PathLike
    assert_same(ember.jit.load(p)(x), tm(tx).detach(), rtol=1e-4, atol=1e-5)


def test_missing_directory_corrupt_and_foreign_files_raise_like_torch(tmp_path):
    for lib in (ember, torch):
        with pytest.raises(ValueError, match="does not exist"):
            lib.jit.load(str(tmp_path / "missing.pt"))
        with pytest.raises(ValueError, match="is a directory"):
            lib.jit.load(str(tmp_path))
        bad = tmp_path / "bad.pt"
        bad.write_bytes(b"garbage" * 20)
        with pytest.raises(RuntimeError):
            lib.jit.load(str(bad))
        with pytest.raises(AttributeError, match="has no attribute 'save'"):
            lib.jit.save(lib.nn.Linear(2, 2), str(tmp_path / "x.pt"))
    # a truncated archive, and a plain ember.save archive that is no module
    _, e, _, shape = models()[1]
    good = tmp_path / "good.pt"
    ember.jit.trace(e, ember.from_numpy(randn(*shape))).save(str(good))
    data = good.read_bytes()
    for cut in (len(data) // 2, len(data) - 30, 100):
        trunc = tmp_path / "trunc.pt"
        trunc.write_bytes(data[:cut])
        with pytest.raises(RuntimeError):
            ember.jit.load(str(trunc))
    plain = tmp_path / "plain.pt"
    ember.save({"w": ember.ones(2)}, str(plain))
    with pytest.raises(RuntimeError, match="jit::load: .*plain.pt.*not a module saved by ember.jit.save .* "
                                           "a dict of 1 entries as ember.save writes it"):
        ember.jit.load(str(plain))


def test_failed_save_keeps_the_previous_file(tmp_path):
    _, e, _, shape = models()[0]
    em = ember.jit.trace(e, ember.from_numpy(randn(*shape)))
    target = tmp_path / "m.pt"
    em.save(str(target))
    before = target.read_bytes()
    with pytest.raises(RuntimeError, match="reserved"):
        em.save(str(target), _extra_files={".ember/input_spec/forward": "x"})
    with pytest.raises(RuntimeError):
        em.save(str(tmp_path / "no_such_dir" / "m.pt"))
    assert target.read_bytes() == before
    assert not [f for f in os.listdir(tmp_path) if f != "m.pt"]  # no temporary file left


def test_threads_share_one_loaded_module(tmp_path):
    _, e, t, shape = models()[1]
    x = ember.from_numpy(randn(4, *shape[1:], seed=9))
    ember.jit.trace(e, x).save(str(tmp_path / "m.pt"))
    m = ember.jit.load(str(tmp_path / "m.pt"))
    with ember.no_grad():
        ref = m(x)
    results, errors = [], []

    def work():
        try:
            with ember.no_grad():
                for _ in range(20):
                    results.append(m(x))
        except Exception as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors and len(results) == 160
    for r in results:
        assert bool((r == ref).all())


def first_line(e):
    return str(e).splitlines()[0].split(" Declaration:")[0]


def test_misuse_errors_match_torch(tmp_path):
    """Keyword arguments bind by name; missing, extra and mistyped arguments raise RuntimeError worded as
    TorchScript's (the declaration aside), for traced functions, traced modules and loaded modules."""
    _, e, t, shape = models()[0]
    xe, xt = both(randn(*shape))
    em, tm = ember.jit.trace(e, xe), torch.jit.trace(t, xt)
    em.save(str(tmp_path / "m.pt"))
    el = ember.jit.load(str(tmp_path / "m.pt"))

    def add(a, b):
        return a + b

    ef, tf = ember.jit.trace(add, (xe, xe)), torch.jit.trace(add, (xt, xt))
    calls = {
        "by name": lambda m, f, x: m(input=x),
        "function by name": lambda m, f, x: f(b=x, a=x),
        "unknown keyword": lambda m, f, x: m(x=x),
        "missing": lambda m, f, x: m(),
        "function missing": lambda m, f, x: f(x),
        "int": lambda m, f, x: m(3),
        "list": lambda m, f, x: m([x]),
        "function int": lambda m, f, x: f(x, 3),
        "too many": lambda m, f, x: m(x, x),
    }
    for what, call in calls.items():
        results = []
        for m, f, x in ((em, ef, xe), (el, ef, xe), (tm, tf, xt)):
            try:
                results.append(("ok", tuple(call(m, f, x).shape)))
            except Exception as exc:  # compared below
                results.append((type(exc).__name__, first_line(exc)))
        if what == "too many":  # TorchScript counts self among the arguments
            assert [r[0] for r in results] == ["RuntimeError"] * 3, results
        else:
            assert results[0] == results[1] == results[2], (what, results)


def test_deepcopy_of_traced_and_loaded_modules(tmp_path):
    name, e, t, shape = models()[1]
    x, tx = both(randn(*shape))
    em, tm = ember.jit.trace(e, x), torch.jit.trace(t, tx)
    em.save(str(tmp_path / "m.pt"))
    for mod in (em, ember.jit.load(str(tmp_path / "m.pt"))):
        c = copy.deepcopy(mod)
        tc = copy.deepcopy(tm)
        assert c.original_name == tc.original_name and c.training == tc.training
        assert list(c.state_dict()) == list(tc.state_dict())
        with ember.no_grad(), torch.no_grad():
            assert_same(c(x), tc(tx), rtol=1e-4, atol=1e-5)
            for p in c.parameters():
                p.zero_()  # the copy is independent of the original
            assert_same(mod(x), tm(tx), rtol=1e-4, atol=1e-5)
            assert not any(bool((p != 0).any()) for p in c.parameters())
        assert all(p.requires_grad for p in c.parameters())
        assert str(c.graph) == str(mod.graph)


def test_traced_function_and_misuse_errors():
    x, tx = both(randn(2, 3))
    ef = ember.jit.trace(lambda a, b: a * b + 1, (x, x))
    tf = torch.jit.trace(lambda a, b: a * b + 1, (tx, tx))
    assert_same(ef(x, x * 2), tf(tx, tx * 2))
    _, e, t, shape = models()[0]
    xe, xt = both(randn(*shape))
    em, tm = ember.jit.trace(e, xe), torch.jit.trace(t, xt)
    for mod, a in ((em, xe), (tm, xt)):
        with pytest.raises(RuntimeError):
            mod(a, a)  # too many inputs
        with pytest.raises(RuntimeError):
            mod()  # too few
        with pytest.raises(RuntimeError):
            mod(3)  # not a tensor


def test_traced_module_follows_data_assignment_and_dtype_conversion():
    # As torch's, a traced module computes with what its parameters hold now (Note [Tensor.data]): after
    # .data assignment on the original's parameter, after .double()/.float() of the traced or loaded module.
    import io

    results = []
    for lib in (ember, torch):
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Linear(2, 2, bias=False)).eval()
        tr = lib.jit.trace(m, lib.ones(1, 2))
        m[0].weight.data = lib.full((2, 2), 5.0)
        r = [tr(lib.ones(1, 2)).tolist()]
        tr.double()
        r.append(tr(lib.ones(1, 2, dtype=lib.float64)).tolist())
        buf = io.BytesIO()
        lib.jit.save(tr, buf)
        buf.seek(0)
        ld = lib.jit.load(buf)
        getattr(ld, "0").weight.data = lib.full((2, 2), 2.0, dtype=lib.float64)  # torch: no ld[0]
        r.append(ld(lib.ones(1, 2, dtype=lib.float64)).tolist())
        ld.float()
        r.append((ld(lib.ones(1, 2)).tolist(), str(ld(lib.ones(1, 2)).dtype).split(".")[1]))
        results.append(r)
    assert results[0] == results[1]


def test_ember_load_of_a_jit_file_dispatches_to_jit_load(tmp_path):
    # As torch.load on a TorchScript archive: a warning, then the module.
    m = ember.jit.trace(ember.nn.Linear(2, 3).eval(), ember.ones(1, 2))
    path = str(tmp_path / "m.pt")
    ember.jit.save(m, path)
    for f in (path, open(path, "rb")):
        with pytest.warns(UserWarning, match="ember.jit.load"):
            loaded = ember.load(f)
        assert loaded(ember.ones(1, 2)).tolist() == m(ember.ones(1, 2)).tolist()


# ---- saving traced functions (torch.jit.trace(fn, x).save(path) / torch.jit.save(traced_fn, path))
def fn_pair(lib):
    def pair(x, y):
        scale = lib.tensor([2.0, -1.0, 0.5])  # a tensor made inside: a constant of the graph
        return x * scale + y, (x - y).relu().sum(1)
    return pair


@pytest.mark.filterwarnings("ignore:.*results are registered as constants")
def test_saved_traced_function_loads_as_a_module_as_torchs(tmp_path):
    a, b = randn(4, 3, seed=1), randn(4, 3, seed=2)
    ef = ember.jit.trace(fn_pair(ember), both(a)[0:1] + both(b)[0:1])
    tf = torch.jit.trace(fn_pair(torch), both(a)[1:2] + both(b)[1:2])
    x, tx = both(randn(5, 3, seed=3))  # another batch size: the sum over dim 1 follows it
    y, ty = both(randn(5, 3, seed=4))
    ef.save(tmp_path / "m.pt")  # the method, as torch's ScriptFunction.save
    ember.jit.save(ef, str(tmp_path / "m2.pt"), _extra_files={"note": "fn"})  # the function, as torch.jit.save
    buf = io.BytesIO()
    ember.jit.save(ef, buf)
    buf.seek(0)
    extra = {"note": ""}
    loaded = [ember.jit.load(tmp_path / "m.pt"), ember.jit.load(str(tmp_path / "m2.pt"), _extra_files=extra),
              ember.jit.load(buf)]
    tf.save(str(tmp_path / "t.pt"))
    tl = torch.jit.load(str(tmp_path / "t.pt"))
    assert extra == {"note": b"fn"}
    for m in loaded:
        assert isinstance(m, ember.jit.RecursiveScriptModule)
        assert m.original_name == tl.original_name == "PlaceholderModule"
        assert m.training == tl.training
        assert list(m.parameters()) == list(tl.parameters()) == []
        assert_same(m(x, y), tl(tx, ty))
        assert_same(m(y=y, x=x), tl(y=ty, x=tx))  # the function's argument names are the method's
        assert_same(m.forward(x, y), tl.forward(tx, ty))
        with pytest.raises(RuntimeError):
            m(x)  # too few inputs, as torch's loaded module
        with pytest.raises(RuntimeError):
            tl(tx)
    again = tmp_path / "again.pt"
    loaded[0].save(again)  # a loaded function module saves again as any module
    assert_same(ember.jit.load(again)(x, y), tl(tx, ty))


def test_saved_traced_function_with_structured_inputs(tmp_path):
    def f(pair, d):
        return pair[0] + pair[1] * d["w"]
    a, b, w = (randn(2, 3, seed=s) for s in (5, 6, 7))
    (ea, ta), (eb, tb), (ew, tw) = both(a), both(b), both(w)
    ef = ember.jit.trace(f, ((ea, eb), {"w": ew}))
    tf = torch.jit.trace(f, ((ta, tb), {"w": tw}))
    ef.save(tmp_path / "f.pt")
    tf.save(str(tmp_path / "t.pt"))
    assert_same(ember.jit.load(tmp_path / "f.pt")((eb, ea), {"w": ea}),
                torch.jit.load(str(tmp_path / "t.pt"))((tb, ta), {"w": ta}))


@pytest.mark.filterwarnings("ignore:.*results are registered as constants")
def test_saved_traced_function_runs_in_a_fresh_process(tmp_path):
    import subprocess
    import sys
    a = randn(3, 3, seed=8)
    ef = ember.jit.trace(fn_pair(ember), (both(a)[0], both(a)[0]))
    tf = torch.jit.trace(fn_pair(torch), (both(a)[1], both(a)[1]))
    ef.save(tmp_path / "f.pt")
    x, tx = both(randn(2, 3, seed=9))
    ember.save(x, str(tmp_path / "x.ember"))
    code = ("import ember, sys; d = sys.argv[1]; m = ember.jit.load(d + '/f.pt'); x = ember.load(d + '/x.ember');"
            "ember.save(list(m(x, x + 1)), d + '/out.ember')")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(ember.__file__)))
    p = subprocess.run([sys.executable, "-c", code, str(tmp_path)], env=env, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    out = ember.load(str(tmp_path / "out.ember"))
    assert_same(tuple(out), tf(tx, tx + 1))
