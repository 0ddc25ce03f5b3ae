"""PyTorch's files in Ember (ember/serialize/Pickle.h, TorchCheckpoint.h, Safetensors.h): torch.save's zip and
legacy formats read by ember.load without running anything, written back by ember.save(format="torch") for
PyTorch 1.13's torch.load, pickled objects refused by default (checkpoint_tensors, weights_only=False), hostile
and corrupt files, and safetensors."""
import collections
import io
import os
import pickle
import struct
import warnings
import zipfile

import numpy as np
import pytest
import torch

import ember
import ember.nn as enn
from ember import safetensors as est

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool",
          "complex64", "complex128"]


def to_np(t):
    if t.dtype in (torch.bfloat16, ember.bfloat16):
        t = t.float()
    return t.detach().numpy() if isinstance(t, torch.Tensor) else t.detach().numpy()


def same(e, t):
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_array_equal(to_np(e), to_np(t))


def torch_bytes(obj, legacy=False):
    buf = io.BytesIO()
    torch.save(obj, buf, _use_new_zipfile_serialization=not legacy)
    return buf.getvalue()


def sample(dtype_name):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(3, 4, generator=g) * 50
    if dtype_name.startswith("complex"):
        x = torch.complex(x, torch.randn(3, 4, generator=g))
    return x.to(getattr(torch, dtype_name)) if dtype_name != "bool" else x > 0


# ---- torch.save -> ember.load --------------------------------------------------------------------------------

@pytest.mark.parametrize("legacy", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype_from_torch(tmp_path, dtype, legacy):
    t = sample(dtype)
    path = tmp_path / "x.pt"
    path.write_bytes(torch_bytes({"t": t, "col": t[:, 1], "scalar": t[0, 0].clone()}, legacy))
    for source in (str(path), io.BytesIO(path.read_bytes())):
        d = ember.load(source)
        same(d["t"], t)
        same(d["col"], t[:, 1])
        same(d["scalar"], t[0, 0])


@pytest.mark.parametrize("legacy", [False, True])
def test_views_share_storage_after_load(legacy):
    t = torch.arange(12.0).reshape(3, 4)
    a, at, row = ember.load(io.BytesIO(torch_bytes([t, t.t(), t[1]], legacy)))
    assert at.stride() == (1, 4) and row.storage_offset() == 4
    a[1, 2] = 100.0
    assert at[2, 1].item() == 100.0 and row[2].item() == 100.0


@pytest.mark.parametrize("legacy", [False, True])
def test_nested_containers_from_torch(legacy):
    obj = {"ints": [0, -1, 255, 65536, -(2 ** 31), 2 ** 40, 2 ** 63 - 1, 2 ** 70], "floats": (1.5, -0.0, float("inf")),
           "s": "h\u00e9llo", "b": b"\x00\xff", "none": None, "flags": [True, False], "set": {1, 2},
           "size": torch.Size([2, 3]), "dtype": torch.float16, "device": torch.device("cpu"),
           "od": collections.OrderedDict([("z", 1), ("a", 2)]), 3: {"deep": [[[]]]}, "c": complex(1, -2),
           "sl": slice(1, None, 2)}
    d = ember.load(io.BytesIO(torch_bytes(obj, legacy)))
    assert d["ints"] == obj["ints"] and d["floats"][:2] == (1.5, -0.0) and d["floats"][2] == float("inf")
    assert d["s"] == obj["s"] and d["b"] == obj["b"] and d["none"] is None and d["flags"] == [True, False]
    assert d["set"] == {1, 2} and d["c"] == complex(1, -2) and d["sl"] == slice(1, None, 2)
    assert isinstance(d["size"], ember.Size) and d["size"] == (2, 3)
    assert d["dtype"] is ember.float16 and str(d["device"]) == "cpu"
    assert isinstance(d["od"], collections.OrderedDict) and list(d["od"]) == ["z", "a"]
    assert d[3] == {"deep": [[[]]]}


def test_parameters_and_requires_grad_from_torch():
    p = torch.nn.Parameter(torch.ones(2))
    q = torch.nn.Parameter(torch.zeros(1), requires_grad=False)
    r = torch.ones(3, requires_grad=True)
    p2, q2, r2 = ember.load(io.BytesIO(torch_bytes([p, q, r])))
    assert isinstance(p2, enn.Parameter) and p2.requires_grad
    assert isinstance(q2, enn.Parameter) and not q2.requires_grad
    assert not isinstance(r2, enn.Parameter) and r2.requires_grad


def torch_modules():
    torch.manual_seed(0)
    return {
        "linear": (torch.nn.Linear(4, 3), lambda: enn.Linear(4, 3), (2, 4)),
        "conv": (torch.nn.Conv2d(2, 3, 3, padding=1), lambda: enn.Conv2d(2, 3, 3, padding=1), (1, 2, 5, 5)),
        "batchnorm": (torch.nn.BatchNorm1d(3), lambda: enn.BatchNorm1d(3), (4, 3)),
        "embedding": (torch.nn.Embedding(5, 2), lambda: enn.Embedding(5, 2), None),
        "sequential": (torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2)),
                       lambda: enn.Sequential(enn.Linear(4, 8), enn.ReLU(), enn.Linear(8, 2)), (3, 4)),
    }


@pytest.mark.parametrize("kind", ["linear", "conv", "batchnorm", "embedding", "sequential"])
@pytest.mark.parametrize("legacy", [False, True])
def test_state_dicts_of_modules_from_torch(kind, legacy):
    tm, make, shape = torch_modules()[kind]
    if kind == "batchnorm":  # running statistics that are not the defaults
        tm.train()
        tm(torch.randn(8, 3))
    tm.eval()
    sd = ember.load(io.BytesIO(torch_bytes(tm.state_dict(), legacy)))
    assert isinstance(sd, collections.OrderedDict) and list(sd) == list(tm.state_dict())
    assert sd._metadata == tm.state_dict()._metadata
    em = make()
    em.load_state_dict(sd)
    em.eval()
    if shape is None:
        idx = torch.tensor([0, 4, 2])
        same(em(ember.tensor([0, 4, 2])), tm(idx).detach())
    else:
        x = torch.randn(*shape)
        np.testing.assert_allclose(em(ember.from_numpy(x.numpy())).detach().numpy(), tm(x).detach().numpy(),
                                   rtol=1e-5, atol=1e-6)


def test_map_location_is_accepted():
    data = torch_bytes({"w": torch.ones(2)})
    for loc in (None, "cpu", ember.device("cpu"), {"cuda:0": "cpu"}, lambda s, l: s):
        same(ember.load(io.BytesIO(data), map_location=loc)["w"], torch.ones(2))


def test_storage_saved_on_another_device_loads_on_cpu():
    data = torch_bytes({"w": torch.ones(2)})
    z = zipfile.ZipFile(io.BytesIO(data))
    pkl = z.read("archive/data.pkl").replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
    same(ember.load(io.BytesIO(rezip(data, {"archive/data.pkl": pkl})))["w"], torch.ones(2))


# ---- pickled objects: refused by default, checkpoint_tensors, weights_only=False ------------------------------

class Holder:
    """A custom class pickled by torch.save."""

    def __init__(self):
        self.w = torch.arange(3.0)
        self.meta = {"epoch": 3}


def test_pickled_module_is_refused_with_weights_only_naming_its_class():
    # The default loads it as Ember's Sequential (tests/python/test_save_whole_module.py); weights_only=True
    # refuses it as PyTorch's does.
    data = torch_bytes(torch.nn.Sequential(torch.nn.Linear(2, 2)))
    with pytest.raises(pickle.UnpicklingError, match=r"torch\.nn\.modules\.container\.Sequential"):
        ember.load(io.BytesIO(data), weights_only=True)
    with pytest.raises(pickle.UnpicklingError, match=r"weights_only"):
        ember.load(io.BytesIO(data), weights_only=True)
    assert type(ember.load(io.BytesIO(data))) is enn.Sequential


def test_checkpoint_tensors_gives_attribute_paths():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3))
    found = ember.utils.checkpoint_tensors(io.BytesIO(torch_bytes({"model": model, "epoch": 4})))
    expected = {"model." + k: v for k, v in model.state_dict().items()}
    assert list(found) == list(expected)
    for k, v in expected.items():
        same(found[k], v)
    legacy = ember.utils.checkpoint_tensors(io.BytesIO(torch_bytes(Holder(), legacy=True)))
    assert list(legacy) == ["w"]


def test_weights_only_false_uses_pickle_with_a_warning():
    with pytest.warns(FutureWarning, match="weights_only=False"):
        h = ember.load(io.BytesIO(torch_bytes(Holder())), weights_only=False)
    assert isinstance(h, Holder) and h.meta == {"epoch": 3}
    assert isinstance(h.w, ember.Tensor)
    same(h.w, torch.arange(3.0))
    with pytest.warns(FutureWarning):
        sd = ember.load(io.BytesIO(torch_bytes(torch.nn.Linear(2, 2).state_dict(), legacy=True)), weights_only=False)
    assert list(sd) == ["weight", "bias"]


# ---- hostile and corrupt files -------------------------------------------------------------------------------

def rezip(data, replace):
    """The zip `data` with some entries' bytes replaced (CRCs recomputed), entry order kept."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for info in src.infolist():
            z.writestr(info.filename, replace.get(info.filename, src.read(info.filename)))
    return out.getvalue()


class Evil:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (os.system, (f"touch {self.path}",))


class EvalTrick:
    def __reduce__(self):
        return (eval, ("__import__('os').getcwd()",))


@pytest.mark.parametrize("legacy", [False, True])
@pytest.mark.parametrize("make", [lambda p: Evil(p), lambda p: EvalTrick()])
def test_hostile_globals_run_nothing(tmp_path, legacy, make):
    marker = tmp_path / "pwned"
    data = torch_bytes({"w": torch.ones(1), "x": make(marker)}, legacy)
    refused = r"global '(posix\.system|(__builtin__|builtins)\.eval)' is not allowed"
    with pytest.raises(pickle.UnpicklingError, match=refused):
        ember.load(io.BytesIO(data))
    found = ember.utils.checkpoint_tensors(io.BytesIO(data))  # placeholders: inert
    assert list(found) == ["w"]
    assert not marker.exists()


def test_corrupt_files_raise_naming_the_file(tmp_path):
    data = torch_bytes({"w": torch.arange(64.0), "s": "x" * 50})
    legacy = torch_bytes({"w": torch.arange(64.0)}, legacy=True)
    for name, bad in [("cut_zip", data[: len(data) // 2]), ("cut_legacy", legacy[:-10]),
                      ("cut_legacy_pickle", legacy[:120]), ("flipped", data[:200] + b"\xff" + data[201:])]:
        p = tmp_path / name
        p.write_bytes(bad)
        with pytest.raises(RuntimeError, match=name):
            ember.load(str(p))


def test_storage_smaller_than_its_view_is_refused():
    data = torch_bytes(torch.ones(4))
    z = zipfile.ZipFile(io.BytesIO(data))
    bad = rezip(data, {"archive/data/0": z.read("archive/data/0")[:8]})
    with pytest.raises(RuntimeError, match="holds 8 bytes but its persistent id in data.pkl says 16"):
        ember.load(io.BytesIO(bad))
    # A size tuple of (10^6, 10^6) over a 4-element storage.
    pkl = z.read("archive/data.pkl")
    million = b"J\x40\x42\x0f\x00"
    big = pkl.replace(b"K\x04\x85", million + million + b"\x86").replace(b"K\x01\x85", million + b"K\x01\x86")
    with pytest.raises(RuntimeError, match="does not fit its storage"):
        ember.load(io.BytesIO(rezip(data, {"archive/data.pkl": big})))


def test_legacy_storage_claiming_10e12_elements_allocates_nothing():
    legacy = torch_bytes(torch.ones(2), legacy=True)
    bad = legacy.replace(b"K\x02N", b"\x8a\x06\x00\x10\xa5\xd4\xe8\x00N", 1)
    assert bad != legacy
    with pytest.raises(RuntimeError, match="claims 1000000000000 elements"):
        ember.load(io.BytesIO(bad))


def test_deeply_nested_pickle_is_refused():
    import sys
    deep = []
    for _ in range(1500):
        deep = [deep]
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20000)
    try:
        data = torch_bytes(deep)
    finally:
        sys.setrecursionlimit(limit)
    with pytest.raises(RuntimeError, match="nested more than 1000"):
        ember.load(io.BytesIO(data))


# ---- ember.save(format="torch") -> torch.load -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype_to_torch(tmp_path, dtype):
    t = sample(dtype)
    e = ember.from_numpy(t.float().numpy()).to(getattr(ember, dtype)) if dtype == "bfloat16" else \
        ember.from_numpy(t.numpy())
    path = tmp_path / "e.pt"
    ember.save({"t": e, "col": e[:, 1]}, str(path), format="torch")
    for weights_only in (False, True):
        d = torch.load(str(path), weights_only=weights_only)
        same(e, d["t"])
        same(e[:, 1], d["col"])
        assert d["col"].storage().data_ptr() == d["t"].storage().data_ptr()


def test_views_and_nested_containers_to_torch():
    e = ember.arange(12.0).reshape(3, 4)
    obj = {"views": [e, e.t(), e[1]], "nested": {"a": (1, [2, {"b": None}]), "s": "str", "flag": True},
           "size": ember.Size([2, 3]), "big": 2 ** 40, "neg": -5}
    buf = io.BytesIO()
    ember.save(obj, buf, format="torch")
    d = torch.load(io.BytesIO(buf.getvalue()), weights_only=True)
    a, at, row = d["views"]
    a[1, 2] = 100.0
    assert at[2, 1].item() == 100.0 and row[2].item() == 100.0
    assert d["nested"] == {"a": (1, [2, {"b": None}]), "s": "str", "flag": True}
    assert isinstance(d["size"], torch.Size) and d["size"] == (2, 3)
    assert d["big"] == 2 ** 40 and d["neg"] == -5
    # floats and dtypes: plain torch.load (1.13's weights_only unpickler has no BINFLOAT)
    buf = io.BytesIO()
    ember.save({"lr": 0.5, "dt": ember.bfloat16}, buf, format="torch")
    assert torch.load(io.BytesIO(buf.getvalue())) == {"lr": 0.5, "dt": torch.bfloat16}


@pytest.mark.parametrize("kind", ["linear", "conv", "batchnorm", "embedding", "sequential"])
def test_state_dicts_to_torch_and_back(tmp_path, kind):
    tm, make, _ = torch_modules()[kind]
    em = make()
    path = str(tmp_path / "sd.pt")
    ember.save(em.state_dict(), path, format="torch")
    sd = torch.load(path, weights_only=True)
    assert isinstance(sd, collections.OrderedDict) and sd._metadata == em.state_dict()._metadata
    tm.load_state_dict(sd)
    for k, v in em.state_dict().items():
        same(v, tm.state_dict()[k])
    back = ember.load(path)
    for k, v in em.state_dict().items():
        same(back[k], tm.state_dict()[k])


def test_parameters_to_torch():
    p = enn.Parameter(ember.ones(2))
    buf = io.BytesIO()
    ember.save([p, p, ember.ones(1).requires_grad_()], buf, format="torch")
    a, b, c = torch.load(io.BytesIO(buf.getvalue()), weights_only=True)
    assert isinstance(a, torch.nn.Parameter) and a is b and a.requires_grad and c.requires_grad


# ---- safetensors ---------------------------------------------------------------------------------------------

def handmade_safetensors(tensors, metadata=None):
    """A safetensors file written by the format's definition (8-byte size, JSON header, data)."""
    import json
    header, data = {}, b""
    if metadata:
        header["__metadata__"] = metadata
    for name, (code, shape, raw) in tensors.items():
        header[name] = {"dtype": code, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    h = json.dumps(header).encode()
    return struct.pack("<Q", len(h)) + h + data


CODES = {"float32": "F32", "float64": "F64", "float16": "F16", "bfloat16": "BF16", "int64": "I64", "int32": "I32",
         "int16": "I16", "int8": "I8", "uint8": "U8", "bool": "BOOL"}


@pytest.mark.parametrize("dtype", list(CODES))  # the format has no complex dtypes
def test_safetensors_reads_the_format(tmp_path, dtype):
    t = sample(dtype)
    raw = t.view(torch.int16).numpy().tobytes() if dtype == "bfloat16" else t.numpy().tobytes()
    path = tmp_path / "m.safetensors"
    path.write_bytes(handmade_safetensors({"t": (CODES[dtype], [3, 4], raw)}, {"format": "pt"}))
    same(est.load_file(str(path))["t"], t)
    with est.safe_open(str(path), framework="pt") as f:
        assert f.keys() == ["t"] and f.metadata() == {"format": "pt"}
        same(f.get_tensor("t"), t)
    same(ember.load(str(path))["t"], t)  # ember.load recognises it by content


def test_safetensors_round_trip_and_mmap(tmp_path):
    tensors = {"b": ember.arange(6.0).reshape(2, 3), "a": ember.tensor([True, False]), "e": ember.zeros(0, 2),
               "h": ember.ones(3, dtype=ember.bfloat16)}
    path = str(tmp_path / "x.safetensors")
    est.save_file(tensors, path, metadata={"k": "v"})
    data = open(path, "rb").read()
    n = struct.unpack("<Q", data[:8])[0]
    assert (8 + n) % 8 == 0  # padded header: aligned data
    back = est.load_file(path)
    assert sorted(back) == sorted(tensors)
    for k, v in tensors.items():
        assert back[k].dtype == v.dtype and back[k].shape == v.shape
        np.testing.assert_array_equal(back[k].float().numpy(), v.float().numpy())
    assert est.load(est.save(tensors))["b"].tolist() == tensors["b"].tolist()
    back["b"][0, 0] = 42.0  # copy-on-write: the file is unchanged
    assert est.load_file(path)["b"][0, 0].item() == 0.0
    with pytest.raises(ValueError, match="non contiguous"):
        est.save_file({"t": ember.ones(2, 3).t()}, str(tmp_path / "nc.safetensors"))


@pytest.mark.parametrize("bad, message", ids=lambda x: x if isinstance(x, str) else "", argvalues=[
    (struct.pack("<Q", 2 ** 40) + b"{}", "more than the limit"),
    (struct.pack("<Q", 100) + b"{}", "the header claims 100 bytes"),
    (handmade_safetensors({"t": ("F32", [2], b"\0" * 4)}), "needs 8 bytes"),
    (handmade_safetensors({"t": ("C64", [1], b"\0" * 8)}), "dtype C64"),
    (handmade_safetensors({"t": ("F32", [10 ** 6, 10 ** 6], b"\0" * 4)}), "needs 4000000000000 bytes"),
    (handmade_safetensors({"a": ("U8", [2], b"\0\0"), "b": ("U8", [2], b"\0\0")})[:-2], "outside the data buffer"),
    (handmade_safetensors({"t": ("BOOL", [1], b"\x07")}), "a bool byte is 0 or 1"),
    # numel 0, but the contiguous strides would multiply 2^40 * 2^40 * 2^40 (the class of a gguf fuzz finding)
    (handmade_safetensors({"t": ("F32", [2 ** 40, 2 ** 40, 2 ** 40, 0], b"")}), "overflows 64 bits"),
    (struct.pack("<Q", 20002) + b"{" + b"[" * 10000 + b"]" * 10000 + b"}", "nests JSON"),
])
def test_safetensors_bad_input(tmp_path, bad, message):
    path = tmp_path / "bad.safetensors"
    path.write_bytes(bad)
    with pytest.raises(RuntimeError, match=message):
        est.load_file(str(path))


# ---- a state dict saved by PyTorch loads into the matching ember::nn module from C++ ----------------------------

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CPP_PROGRAM = os.path.join(os.environ.get("EMBER_BUILD_DIR", os.path.join(ROOT, "build")), "tests",
                           "nn_state_dict_roundtrip")


class TorchNet(torch.nn.Module):
    """tests/nn/roundtrip/state_dict_roundtrip.cpp's Net, in PyTorch."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(6, 4, padding_idx=0)
        self.body = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(8, 5), torch.nn.Dropout(0.2),
                                        torch.nn.Linear(5, 3))
        self.register_buffer("calls", torch.zeros((), dtype=torch.int64))

    def forward(self, indices):
        return self.body(self.emb(indices))


@pytest.mark.skipif(not os.path.exists(CPP_PROGRAM), reason="the C++ round-trip program is not built")
@pytest.mark.parametrize("legacy", [False, True])
def test_torch_state_dict_loads_into_cpp_module(tmp_path, legacy):
    import subprocess
    torch.manual_seed(5)
    net = TorchNet().eval()
    state = tmp_path / "torch_state.pt"
    state.write_bytes(torch_bytes(net.state_dict(), legacy))
    indices = [[0, 1], [2, 5], [4, 4]]
    ember.save(ember.tensor(indices), str(tmp_path / "input.ember"))
    proc = subprocess.run([CPP_PROGRAM, "load", str(state), str(tmp_path / "input.ember"), str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = ember.load(str(tmp_path / "output.ember"))
    with torch.no_grad():
        expected = net(torch.tensor(indices))
    np.testing.assert_allclose(out.numpy(), expected.numpy(), rtol=1e-6, atol=1e-6)


# ---- whole objects: ember.save(format="torch") pickles them, ember.load loads them only with weights_only=False -----

class Trainer:
    """A custom class holding a model, a NumPy array and numbers, pickled whole."""

    def __init__(self):
        ember.manual_seed(0)
        self.model = enn.Sequential(enn.Linear(3, 2), enn.ReLU())
        self.history = np.arange(4.0)
        self.epoch = 7


def test_whole_objects_written_with_pickle():
    buf = io.BytesIO()
    trainer = Trainer()
    ember.save(trainer, buf, format="torch")
    data = buf.getvalue()
    with pytest.raises(pickle.UnpicklingError, match="Trainer"):
        ember.load(io.BytesIO(data))  # safe by default: nothing of the class runs
    found = ember.utils.checkpoint_tensors(io.BytesIO(data))
    assert list(found) == ["model.0.weight", "model.0.bias", "history"]  # NumPy arrays count as tensors
    same(found["model.0.weight"], trainer.model[0].weight.detach())
    with pytest.warns(FutureWarning, match="weights_only=False"):
        back = ember.load(io.BytesIO(data), weights_only=False)
    assert isinstance(back, Trainer) and back.epoch == 7 and back.history.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert isinstance(back.model[0].weight, enn.Parameter)
    x = ember.ones(4, 3)
    assert back.model(x).tolist() == trainer.model(x).tolist()


@pytest.mark.parametrize("legacy", [False, True])
def test_numpy_values_load_without_numpy_code(legacy):
    obj = {"a": np.arange(6.0).reshape(2, 3), "f": np.asfortranarray(np.arange(6, dtype=np.int32).reshape(2, 3)),
           "b": np.array([True, False]), "h": np.ones(2, np.float16), "s": np.float64(2.5), "i": np.int64(-3),
           "e": np.zeros((0, 2), np.uint8)}
    d = ember.load(io.BytesIO(torch_bytes(obj, legacy)))
    for k in ("a", "f", "b", "h", "e"):
        assert isinstance(d[k], np.ndarray) and d[k].dtype == obj[k].dtype
        np.testing.assert_array_equal(d[k], obj[k])
    assert d["s"] == 2.5 and d["i"] == -3
    with pytest.raises(RuntimeError, match="dtype 'c16', which Ember does not read"):
        ember.load(io.BytesIO(torch_bytes({"c": np.ones(2, np.complex128)}, legacy)))


def test_numpy_arrays_saved_by_ember_load_back_safely():
    buf = io.BytesIO()
    ember.save({"w": ember.ones(2), "hist": np.arange(3.0), "step": 4}, buf, format="torch")
    d = ember.load(io.BytesIO(buf.getvalue()))  # the default, safe reader
    assert d["hist"].tolist() == [0.0, 1.0, 2.0] and d["step"] == 4 and d["w"].tolist() == [1.0, 1.0]
