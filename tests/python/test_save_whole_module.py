"""Whole modules in files (Note [module unpickling] in python/ember/_module_pickle.py): ember.save(model, f)
pickles what Ember's archive cannot hold into torch.save's zip format, and ember.load's default reads a pickled
module with a restricted unpickler: already-imported Module subclasses, plain data and references to Ember's
functions, nothing else; PyTorch's whole-model files load as the same-named Ember modules."""
import io
import os
import pickle
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest
import torch

import ember
import ember.nn as enn
import ember.nn.functional as EF


class Block(enn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = enn.Conv2d(channels, channels, 3, padding=1)
        self.bn = enn.BatchNorm2d(channels)
        self.act = EF.relu  # a function kept as an attribute

    def forward(self, x):
        return self.act(self.bn(self.conv(x))) + x


class Net(enn.Module):
    def __init__(self):
        super().__init__()
        self.stem = enn.Conv2d(1, 4, 3, padding=1)
        self.blocks = enn.ModuleList([Block(4), Block(4)])
        self.head = enn.Sequential(enn.Flatten(), enn.Linear(4 * 4 * 4, 3))
        self.scale = enn.Parameter(ember.tensor(1.5))
        self.register_buffer("mean", ember.full((1, 1, 4, 4), 0.25))
        self.register_buffer("scratch", ember.zeros(2), persistent=False)
        self.config = {"name": "net", "sizes": ember.Size([4, 4]), "dtype": ember.float32,
                       "device": ember.device("cpu"), "tags": {"a", "b"}, "window": slice(1, 3), "c": 1 + 2j,
                       "np": np.arange(3.0), "steps": range(0, 10, 2)}
        self.activation = EF.gelu

    def forward(self, x):
        x = self.stem(x - self.mean)
        for block in self.blocks:
            x = block(x)
        return self.activation(self.head(x)) * self.scale


def make_net():
    ember.manual_seed(0)
    net = Net()
    net(ember.randn(5, 1, 4, 4))  # moves BatchNorm's running statistics away from their initial values
    return net.eval()


def saved(obj, **kw):
    buf = io.BytesIO()
    ember.save(obj, buf, **kw)
    return buf.getvalue()


def assert_same_module(a, b):
    assert type(a) is type(b)
    sa, sb = a.state_dict(), b.state_dict()
    assert list(sa) == list(sb)
    for k in sa:
        assert sa[k].dtype == sb[k].dtype and sa[k].tolist() == sb[k].tolist(), k
    assert [n for n, _ in a.named_modules()] == [n for n, _ in b.named_modules()]
    for (n, p), (_, q) in zip(a.named_parameters(), b.named_parameters()):
        assert type(p) is type(q) is enn.Parameter and p.requires_grad == q.requires_grad, n


# ---- ember.save(model) -> ember.load ----------------------------------------------------------------------------

@pytest.mark.parametrize("to_path", [False, True])
def test_round_trip_of_a_user_module(tmp_path, to_path):
    net = make_net()
    if to_path:
        ember.save(net, tmp_path / "net.pt")
        assert os.listdir(tmp_path) == ["net.pt"]
        back = ember.load(tmp_path / "net.pt")
    else:
        back = ember.load(io.BytesIO(saved(net)))
    assert back is not net
    assert_same_module(back, net)
    assert back.training is False and back.blocks[0].bn.training is False
    assert back.blocks[0].act is EF.relu and back.activation is EF.gelu
    assert back.scratch.tolist() == [0.0, 0.0] and "scratch" not in back.state_dict()
    cfg = back.config
    assert cfg["sizes"] == ember.Size([4, 4]) and type(cfg["sizes"]) is ember.Size
    assert cfg["dtype"] is ember.float32 and str(cfg["device"]) == "cpu"
    assert cfg["tags"] == {"a", "b"} and cfg["window"] == slice(1, 3) and cfg["c"] == 1 + 2j
    assert cfg["np"].tolist() == [0.0, 1.0, 2.0] and cfg["steps"] == range(0, 10, 2)
    x = ember.randn(2, 1, 4, 4)
    assert back(x).tolist() == net(x).tolist()
    # It trains: gradients reach the loaded parameters.
    back.train()
    back(x).sum().backward()
    assert back.stem.weight.grad is not None and back.scale.grad is not None


def test_shared_parameters_stay_shared_and_checkpoints_mix():
    ember.manual_seed(1)
    tied = enn.Sequential(enn.Embedding(5, 3), enn.Linear(3, 5, bias=False))
    tied[1].weight = tied[0].weight
    opt = ember.optim.SGD(tied.parameters(), lr=0.1, momentum=0.9)
    tied(ember.tensor([[1, 2]])).sum().backward()
    opt.step()
    ckpt = {"model": tied, "optimizer": opt.state_dict(), "epoch": 3}
    back = ember.load(io.BytesIO(saved(ckpt)))
    assert back["epoch"] == 3
    assert back["model"][1].weight is back["model"][0].weight
    assert list(back["optimizer"]["state"]) == list(opt.state_dict()["state"])
    assert_same_module(back["model"], tied)
    # The tensors are still listed without unpickling anything.
    assert list(ember.utils.checkpoint_tensors(io.BytesIO(saved(tied)))) == ["0.weight"]


def test_weights_only_true_refuses_a_module():
    data = saved(make_net())
    with pytest.raises(pickle.UnpicklingError, match=r"Net.*weights_only|weights_only.*Net"):
        ember.load(io.BytesIO(data), weights_only=True)
    with pytest.warns(FutureWarning):
        assert_same_module(ember.load(io.BytesIO(data), weights_only=False), make_net())


def test_saving_what_pickle_cannot_write_raises_type_error(tmp_path):
    net = make_net()
    net.callback = lambda x: x
    with pytest.raises(TypeError, match=r"'Net'.*pickle cannot write it either.*lambda"):
        ember.save(net, tmp_path / "net.pt")
    assert os.listdir(tmp_path) == []


# ---- hostile files: refused, nothing runs -----------------------------------------------------------------------

def zip_of(pkl):
    """A torch.save zip archive whose data.pkl is `pkl`."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", pkl)
        z.writestr("archive/version", "3\n")
    return out.getvalue()


def global_op(module, name):
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def after_module(body):
    """A protocol 2 pickle that makes a Net first (so that the C++ reader refuses the file and the restricted
    unpickler reads it), drops it, then runs `body`."""
    return b"\x80\x02" + global_op(__name__, "Net") + b")\x81}b0" + body + b"."


def module_pickle(cls_module, cls_name, state=b"}"):
    """Protocol 2: NEWOBJ of cls_module.cls_name without arguments, BUILD with `state`."""
    return b"\x80\x02" + global_op(cls_module, cls_name) + b")\x81" + state + b"b."


class Evil:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (os.system, (f"touch {self.path}",))


class EvalTrick:
    def __reduce__(self):
        return (eval, ("__import__('os').getcwd()",))


class NotAModule:
    pass


@pytest.fixture
def side_effect_module(tmp_path, monkeypatch):
    """An importable module, not imported yet, that defines a Module subclass and touches a file when imported."""
    marker = tmp_path / "imported"
    (tmp_path / "ember_test_unimported.py").write_text(textwrap.dedent(f"""
        import pathlib
        import ember.nn
        pathlib.Path({str(marker)!r}).touch()
        class Net(ember.nn.Module):
            pass
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("ember_test_unimported", None)
    return marker


def hostile_cases(tmp_path):
    marker = tmp_path / "pwned"
    net = saved(make_net())
    return marker, {
        "os.system": (zip_of(pickle.dumps({"m": Evil(marker)}, protocol=2)), r"global 'posix\.system'"),
        "eval": (zip_of(pickle.dumps([EvalTrick()], protocol=2)), r"global '(builtins|__builtin__)\.eval'"),
        "not a module": (zip_of(pickle.dumps(NotAModule(), protocol=2)), r"NotAModule' is not allowed"),
        "unimported module class": (zip_of(module_pickle("ember_test_unimported", "Net")),
                                    r"ember_test_unimported\.Net' is not allowed \(its module is not imported"),
        "undefined __main__ class": (zip_of(module_pickle("__main__", "NoSuchNet")), r"__main__\.NoSuchNet'"),
        "torch name Ember lacks": (zip_of(module_pickle("torch.nn.modules.foo", "NoSuchLayer")),
                                   r"NoSuchLayer' is not allowed \(Ember has no such"),
        # A referenced Ember function is not called: relu(...) by REDUCE, and ember.save is not even referenced.
        "call a referenced function": (zip_of(after_module(global_op("ember.nn.functional", "relu")
                                                           + b"N\x85R")), r"calling 'ember\.nn\.functional\.relu'"),
        "ember.save": (zip_of(b"\x80\x02" + global_op("ember.serialization", "save") + b"."),
                       r"ember\.serialization\.save' is not allowed"),
        "module with arguments": (zip_of(b"\x80\x02" + global_op(__name__, "Net") + b"K\x01\x85\x81."),
                                  r"creating an instance of .*Net"),
        "build a set": (zip_of(after_module(global_op("builtins", "set") + b")R}b")),
                        r"setting the state of a set"),
        "set items on a module": (zip_of(module_pickle(__name__, "Net", b"}b(K\x01K\x02u")),
                                  r"SETITEMS on a Net"),
        "range too many args": (zip_of(after_module(global_op("builtins", "range") + b"(K\x01K\x02K\x03K\x04tR")),
                                r"range: unexpected arguments"),
        "legacy eval": (torch_legacy_bytes([EvalTrick()]), r"eval' is not allowed"),
        "protocol 0 INST": (zip_of(after_module(b"(i" + __name__.encode() + b"\nNet\n")), r"INST"),
        "forged tensor geometry": (forged_geometry(net), r"out of bounds"),
    }


def torch_legacy_bytes(obj):
    buf = io.BytesIO()
    torch.save(obj, buf, _use_new_zipfile_serialization=False)
    return buf.getvalue()


def forged_geometry(data):
    """The saved Net with its first tensor's size made huge (its storage stays 4 elements)."""
    z = zipfile.ZipFile(io.BytesIO(data))
    pkl = z.read("archive/data.pkl")
    i = pkl.index(b"_rebuild_tensor_v2")
    size = b"(K\x04K\x01K\x03K\x03t"  # the stem's weight size (4, 1, 3, 3)
    j = pkl.index(size, i)
    bad = pkl[:j] + b"(J\x00\x00\x00\x10K\x01K\x03K\x03t" + pkl[j + len(size):]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as w:
        for info in z.infolist():
            w.writestr(info.filename, bad if info.filename.endswith("data.pkl") else z.read(info.filename))
    return out.getvalue()


def test_hostile_files_are_refused_without_running_anything(tmp_path, side_effect_module):
    marker, cases = hostile_cases(tmp_path)
    for what, (data, message) in cases.items():
        error = RuntimeError if what == "forged tensor geometry" else pickle.UnpicklingError
        with pytest.raises(error, match=message):
            ember.load(io.BytesIO(data))
        if error is pickle.UnpicklingError:
            with pytest.raises(error, match="weights_only"):
                ember.load(io.BytesIO(data))
    assert not marker.exists()
    assert not side_effect_module.exists() and "ember_test_unimported" not in sys.modules


def test_imported_module_class_loads_once_its_module_is_imported(side_effect_module):
    data = zip_of(module_pickle("ember_test_unimported", "Net", b"}"))
    with pytest.raises(pickle.UnpicklingError, match="not imported"):
        ember.load(io.BytesIO(data))
    import ember_test_unimported  # the program imports it: now the name resolves
    try:
        assert type(ember.load(io.BytesIO(data))) is ember_test_unimported.Net
    finally:
        sys.modules.pop("ember_test_unimported", None)


# ---- whole PyTorch models -----------------------------------------------------------------------------------

def torch_cnn():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Conv2d(1, 3, 3, padding=1), torch.nn.BatchNorm2d(3), torch.nn.ReLU(),
                            torch.nn.MaxPool2d(2), torch.nn.Flatten(), torch.nn.Linear(12, 5), torch.nn.Dropout(0.2),
                            torch.nn.LayerNorm(5), torch.nn.GELU())
    m(torch.randn(4, 1, 4, 4))
    return m.eval()


@pytest.mark.parametrize("legacy", [False, True])
def test_torch_whole_model_file_loads_as_ember_modules(legacy):
    tm = torch_cnn()
    buf = io.BytesIO()
    torch.save(tm, buf, _use_new_zipfile_serialization=not legacy)
    em = ember.load(io.BytesIO(buf.getvalue()))
    assert [type(m) for m in em] == [getattr(enn, type(m).__name__) for m in tm]
    assert repr(em) == repr(tm)
    tsd, esd = tm.state_dict(), em.state_dict()
    assert list(esd) == list(tsd)
    for k in tsd:
        np.testing.assert_array_equal(esd[k].numpy(), tsd[k].numpy())
    x = np.random.default_rng(0).standard_normal((2, 1, 4, 4)).astype(np.float32)
    with torch.no_grad():
        expected = tm(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(em(ember.from_numpy(x)).detach().numpy(), expected, rtol=1e-5, atol=1e-6)


PROGRAM = textwrap.dedent("""
    import sys
    import numpy as np
    if sys.argv[1] == "save":
        import torch
    else:
        import ember as torch
    F = torch.nn.functional

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(1, 2, 3)
            self.fc = torch.nn.Linear(8, 3)
            self.act = F.relu
            self.register_buffer("shift", torch.arange(3.0))
            self.note = {"epoch": 4, "tags": ("a", "b")}

        def forward(self, x):
            return self.fc(self.act(self.conv(x)).flatten(1)) + self.shift

    x = torch.from_numpy(np.linspace(-1, 1, 32, dtype=np.float32).reshape(2, 1, 4, 4))
    if sys.argv[1] == "save":
        torch.manual_seed(0)
        model = Net()
        torch.save(model, sys.argv[2])
    else:
        model = torch.load(sys.argv[2])
        assert type(model) is Net and model.act is F.relu and model.note == {"epoch": 4, "tags": ("a", "b")}
    np.save(sys.argv[3], model(x).detach().numpy())
""")


def test_torch_program_and_its_ember_rename_share_a_whole_model_file(tmp_path):
    """The same program text: run with torch it saves its Net; renamed to Ember (import ember as torch) it loads
    the file as its own Net (__main__.Net, defined by the running program) and computes the same outputs."""
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    for mode in ("save", "load"):
        proc = subprocess.run([sys.executable, str(script), mode, str(tmp_path / "net.pt"),
                               str(tmp_path / f"{mode}.npy")], capture_output=True, text=True, env=env, timeout=120)
        assert proc.returncode == 0, proc.stderr
    np.testing.assert_allclose(np.load(tmp_path / "load.npy"), np.load(tmp_path / "save.npy"), rtol=1e-5, atol=1e-6)
