"""ember.save / ember.load (Ember's archive format, ember/serialize) against torch.save / torch.load where their
semantics overlap: values and dtypes, shared storages and views, strides and offsets, requires_grad,
Parameters, OrderedDict state dicts, optimizer state dicts. Plus what is Ember's own: atomic writes, refusing
objects it cannot represent, and clear errors for corrupt files."""
import collections
import io
import json
import math
import os
import re
import struct
import sys
import types
import zipfile

import numpy as np
import pytest

import ember
import torch

from conftest import ALL_DTYPES, edtype, make_tensor, to_numpy, to_torch


def roundtrip(obj, tmp_path, name="obj.ember"):
    path = tmp_path / name
    ember.save(obj, path)
    return ember.load(path)


def torch_roundtrip(obj):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf)


def storage_base(t):
    """Address of the start of t's storage (equal for tensors sharing one)."""
    return t.data_ptr() - t.storage_offset() * t.dtype.itemsize


def assert_bitwise_equal(a, b):
    assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
    x, y = to_numpy(a), to_numpy(b)
    np.testing.assert_array_equal(x, y)  # NaN equals NaN here
    if x.dtype.kind == "f":
        np.testing.assert_array_equal(np.signbit(x), np.signbit(y))


# ---- tensors --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (3, 0, 2), (5,), (2, 3, 4)], ids=str)
def test_tensor_roundtrip(tmp_path, dtype, shape):
    x = make_tensor(shape, dtype)
    y = roundtrip(x, tmp_path)
    assert type(y) is ember.Tensor
    assert_bitwise_equal(y, x)
    assert y.stride() == x.stride() and y.storage_offset() == x.storage_offset()
    assert not y.requires_grad
    t = torch_roundtrip(to_torch(x))
    assert tuple(t.shape) == tuple(y.shape) and t.stride() == y.stride()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_special_floats_bitwise(tmp_path, dtype):
    x = ember.tensor([float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 1e-40, 65504.0], dtype=edtype(dtype))
    assert_bitwise_equal(roundtrip(x, tmp_path), x)


@pytest.mark.parametrize("layout", ["transposed", "strided"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "bfloat16"])
def test_non_contiguous_keeps_geometry(tmp_path, layout, dtype):
    x = make_tensor((3, 4), dtype, layout=layout)
    assert not x.is_contiguous()
    y = roundtrip(x, tmp_path)
    tx = to_torch(x)
    if layout == "transposed":
        tx = tx.t().contiguous().t()
    else:
        tx = torch.zeros(3, 8, dtype=tx.dtype)[..., ::2].copy_(tx)
    t = torch_roundtrip(tx)
    assert_bitwise_equal(y, x)
    assert y.stride() == x.stride() == t.stride() and y.storage_offset() == t.storage_offset() == 0
    assert not y.is_contiguous()


def test_slice_with_offset_keeps_whole_storage(tmp_path):
    # As torch.save, the whole storage is written and the view keeps its offset into it.
    base = ember.arange(20.0)
    view = base[5:9]
    y = roundtrip(view, tmp_path)
    t = torch_roundtrip(torch.arange(20.0)[5:9])
    assert y.storage_offset() == t.storage_offset() == 5
    assert y.tolist() == t.tolist() == [5.0, 6.0, 7.0, 8.0]


# ---- sharing --------------------------------------------------------------------------------------------

def _sharing_objects(lib):
    x = lib.arange(12.0).reshape(3, 4)
    return {"x": x, "xt": x.t(), "row": x[1], "col": x[:, 2], "again": x, "other": lib.ones(2)}


def test_shared_storage_and_views_survive(tmp_path):
    y = roundtrip(_sharing_objects(ember), tmp_path)
    t = torch_roundtrip(_sharing_objects(torch))
    # The same object twice is one object, as with torch.load.
    assert (y["again"] is y["x"]) == (t["again"] is t["x"]) == True  # noqa: E712
    for k in ["x", "xt", "row", "col", "other"]:
        assert y[k].stride() == t[k].stride() and y[k].storage_offset() == t[k].storage_offset(), k
        assert y[k].tolist() == t[k].tolist(), k
    shared = {k: storage_base(y[k]) == storage_base(y["x"]) for k in ["xt", "row", "col", "other"]}
    tshared = {k: t[k].storage().data_ptr() == t["x"].storage().data_ptr() for k in ["xt", "row", "col", "other"]}
    assert shared == tshared == {"xt": True, "row": True, "col": True, "other": False}
    # Writing through one shows through the others (one storage, as torch's).
    y["x"].mul_(10)
    t["x"].mul_(10)
    assert y["xt"].tolist() == t["xt"].tolist()
    assert y["row"].tolist() == t["row"].tolist() == [40.0, 50.0, 60.0, 70.0]


def test_shared_storage_across_containers_and_dtypes(tmp_path):
    x = ember.arange(6, dtype=ember.int64)
    obj = [x, (x[2:],), {"deep": [x.reshape(2, 3).t()]}]
    y = roundtrip(obj, tmp_path)
    assert storage_base(y[1][0]) == storage_base(y[0]) == storage_base(y[2]["deep"][0])
    assert y[2]["deep"][0].tolist() == [[0, 3], [1, 4], [2, 5]]


# ---- autograd flags and Parameters ----------------------------------------------------------------------

def test_requires_grad_kept(tmp_path):
    a = ember.ones(3, requires_grad=True)
    b = ember.zeros(2)
    c = a * 2  # not a leaf: loads as a leaf that requires grad, as with torch.load
    y = roundtrip({"a": a, "b": b, "c": c}, tmp_path)
    ta = torch.ones(3, requires_grad=True)
    t = torch_roundtrip({"a": ta, "b": torch.zeros(2), "c": ta * 2})
    for k in "abc":
        assert y[k].requires_grad == t[k].requires_grad, k
        assert y[k].is_leaf and t[k].is_leaf
        assert y[k].grad is None
    assert y["c"].tolist() == [2.0, 2.0, 2.0]


def test_parameter_roundtrips_as_parameter(tmp_path):
    p = ember.nn.Parameter(ember.randn(2, 3))
    q = ember.nn.Parameter(ember.randn(2), requires_grad=False)
    y = roundtrip({"p": p, "q": q, "p2": p}, tmp_path)
    t = torch_roundtrip({"p": torch.nn.Parameter(torch.randn(2, 3)), "q": torch.nn.Parameter(torch.randn(2), False)})
    assert type(y["p"]) is ember.nn.Parameter and type(t["p"]) is torch.nn.Parameter
    assert y["p"].requires_grad == t["p"].requires_grad == True  # noqa: E712
    assert y["q"].requires_grad == t["q"].requires_grad == False  # noqa: E712
    assert y["p2"] is y["p"]
    assert_bitwise_equal(y["p"].detach(), p.detach())


# ---- containers and plain values ------------------------------------------------------------------------

def test_nested_containers_and_scalars(tmp_path):
    x = ember.arange(3)
    obj = {
        "none": None, "true": True, "false": False, "int": -(2**63), "big": 2**63 - 1, "float": 0.1,
        "neg0": -0.0, "nan": float("nan"), "inf": float("inf"), "ninf": -float("inf"), "tiny": 5e-324,
        "str": "héllo \"wörld\"\n\x00", "empty": [], "etuple": (), "edict": {},
        "nested": [1, (2, [3, {"k": (x, None)}]), {7: "int key", "7": "str key"}],
        "dtype": ember.bfloat16, 3: "int key at top",
    }
    y = roundtrip(obj, tmp_path)
    assert list(y.keys()) == list(obj.keys())
    for k in obj:
        if k in ("nested", "nan"):
            continue
        assert type(y[k]) is type(obj[k]) and (y[k] == obj[k]), k
    assert math.isnan(y["nan"]) and math.copysign(1, y["neg0"]) == -1
    n = y["nested"]
    assert type(n[1]) is tuple and type(n[1][1]) is list and type(n[1][1][1]["k"]) is tuple
    assert n[1][1][1]["k"][0].tolist() == [0, 1, 2] and n[1][1][1]["k"][1] is None
    assert n[2] == {7: "int key", "7": "str key"} and list(n[2]) == [7, "7"]
    assert y["dtype"] is ember.bfloat16


def test_dict_order_and_ordered_dict_type(tmp_path):
    d = {"b": 1, "a": 2, "c": 3}
    od = collections.OrderedDict([("z", 1), ("y", 2), ("x", 3)])
    od.move_to_end("z")
    y = roundtrip({"d": d, "od": od}, tmp_path)
    assert type(y["d"]) is dict and list(y["d"]) == ["b", "a", "c"]
    assert type(y["od"]) is collections.OrderedDict and list(y["od"]) == ["y", "x", "z"]


def test_file_like_objects():
    x = ember.arange(10.0).reshape(2, 5)
    buf = io.BytesIO()
    ember.save({"x": x, "v": x[:, 1]}, buf)
    data = buf.getvalue()
    buf.seek(0)
    y = ember.load(buf)
    assert y["x"].tolist() == x.tolist() and storage_base(y["v"]) == storage_base(y["x"])
    # The same bytes as a file written by path, and deterministic.
    buf2 = io.BytesIO()
    ember.save({"x": x, "v": x[:, 1]}, buf2)
    assert buf2.getvalue() == data


def test_path_and_file_give_same_bytes(tmp_path):
    obj = {"w": ember.randn(4, 4), "n": 3}
    ember.save(obj, str(tmp_path / "a.ember"))
    buf = io.BytesIO()
    ember.save(obj, buf)
    assert (tmp_path / "a.ember").read_bytes() == buf.getvalue()
    with open(tmp_path / "b.ember", "wb") as fh:  # an open binary file
        ember.save(obj, fh)
    assert (tmp_path / "b.ember").read_bytes() == buf.getvalue()
    with open(tmp_path / "b.ember", "rb") as fh:
        assert ember.load(fh)["w"].tolist() == obj["w"].tolist()


def test_file_like_writer_errors_propagate(tmp_path, monkeypatch):
    # The archive passes through a temporary file in TMPDIR, removed whatever happens.
    monkeypatch.setenv("TMPDIR", str(tmp_path))

    class Failing:
        def __init__(self):
            self.calls = 0

        def write(self, b):
            self.calls += 1
            if self.calls == 1:  # the archive comes in pieces of 4 MiB: a small one in a single call
                raise OSError("disk full")
            return len(b)

    with pytest.raises(OSError, match="disk full"):
        ember.save({"a": ember.ones(3), "b": ember.ones(2)}, Failing())
    assert os.listdir(tmp_path) == []

    class Keeper:  # keeps the views it was given: they are released after each call
        views = []

        def write(self, b):
            self.views.append(b)

    ember.save(ember.ones(3), Keeper())
    with pytest.raises(ValueError):
        bytes(Keeper.views[-1])


def test_map_location_and_weights_only(tmp_path):
    x = ember.arange(4.0)
    ember.save(x, tmp_path / "x.ember")
    for ml in [None, "cpu", ember.device("cpu"), {"cpu": "cpu"}, lambda storage, loc: storage]:
        assert ember.load(tmp_path / "x.ember", map_location=ml, weights_only=True).tolist() == [0, 1, 2, 3]
    with pytest.raises(RuntimeError, match="only the CPU"):
        ember.load(tmp_path / "x.ember", map_location="cuda:0")


# ---- nn and optim ---------------------------------------------------------------------------------------

def _model(nn):
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(),
                         nn.Linear(4 * 5 * 5, 3))


def test_module_state_dict_roundtrip(tmp_path):
    ember.manual_seed(0)
    model = _model(ember.nn)
    model.train()
    model(ember.randn(8, 1, 5, 5))  # running statistics move away from their initial values
    model.eval()
    sd = model.state_dict()
    y = roundtrip(sd, tmp_path)
    tsd = torch_roundtrip(_model(torch.nn).state_dict())
    assert type(y) is type(tsd) is collections.OrderedDict
    assert list(y) == list(sd) == list(tsd)
    assert dict(y._metadata) == dict(sd._metadata)
    for k in sd:
        assert_bitwise_equal(y[k], sd[k])
        assert type(y[k]) is ember.Tensor and not y[k].requires_grad  # state_dict detaches, as torch's
    ember.manual_seed(1)
    fresh = _model(ember.nn)
    fresh.eval()
    fresh.load_state_dict(y)
    inp = ember.randn(2, 1, 5, 5)
    assert fresh(inp).tolist() == model(inp).tolist()


def test_whole_parameters_dict(tmp_path):
    model = ember.nn.Linear(3, 2)
    params = dict(model.named_parameters())
    y = roundtrip(params, tmp_path)
    for k, p in params.items():
        assert type(y[k]) is ember.nn.Parameter and y[k].requires_grad
        assert_bitwise_equal(y[k].detach(), p.detach())


def _adamw_steps(lib, steps=3):
    lib.manual_seed(0)
    w = lib.nn.Parameter(lib.tensor([[0.5, -1.0], [2.0, 0.25]]))
    b = lib.nn.Parameter(lib.tensor([0.1, -0.2]))
    opt = lib.optim.AdamW([{"params": [w]}, {"params": [b], "weight_decay": 0.0}], lr=0.05, amsgrad=True)
    for i in range(steps):
        opt.zero_grad()
        loss = ((w @ lib.tensor([1.0, 2.0]) + b - i) ** 2).sum()
        loss.backward()
        opt.step()
    return w, b, opt


def test_optimizer_state_dict_roundtrip(tmp_path):
    w, b, opt = _adamw_steps(ember)
    sd = opt.state_dict()
    y = roundtrip(sd, tmp_path)
    tw, tb, topt = _adamw_steps(torch)
    tsd = torch_roundtrip(topt.state_dict())
    assert y["param_groups"] == sd["param_groups"]
    assert [sorted(g) for g in y["param_groups"]] == [sorted(g) for g in tsd["param_groups"]]
    assert sorted(y["state"]) == sorted(tsd["state"]) == [0, 1]
    for i in y["state"]:
        assert sorted(y["state"][i]) == sorted(tsd["state"][i])
        for k, v in sd["state"][i].items():
            assert_bitwise_equal(y["state"][i][k], v)
    # Continuing from the loaded state gives the same steps as continuing the original.
    w2 = ember.nn.Parameter(w.detach().clone())
    b2 = ember.nn.Parameter(b.detach().clone())
    opt2 = ember.optim.AdamW([{"params": [w2]}, {"params": [b2], "weight_decay": 0.0}], lr=0.05, amsgrad=True)
    opt2.load_state_dict(y)
    for params, o in [((w, b), opt), ((w2, b2), opt2)]:
        o.zero_grad()
        ((params[0] @ ember.tensor([1.0, 2.0]) + params[1]) ** 2).sum().backward()
        o.step()
    assert w2.tolist() == w.tolist() and b2.tolist() == b.tolist()


# ---- objects Ember's format does not hold: pickled instead; refused objects and atomic writes ----------------

class Custom:
    def __init__(self):
        self.w = ember.arange(2.0)

    def __eq__(self, other):
        return type(other) is Custom and other.w.tolist() == self.w.tolist()


def _local_object():
    class Local:
        pass
    return Local()


@pytest.mark.parametrize("obj, safe", [
    ({"k": {1: {2.5}}}, True),
    ((1, b"bytes"), True),
    ({"x": np.float32(1.5)}, True),
    ({"a": {(1, 2): ember.ones(1)}}, True),  # a key that is no str or int
    ([Custom()], False),
    (collections.defaultdict(list, {"a": [1]}), False),
])
def test_other_objects_are_pickled(tmp_path, obj, safe):
    """What Ember's archive cannot hold is written with pickle in torch.save's zip format (as torch.save does);
    plain data loads back with the default reader, other classes with weights_only=False only."""
    import pickle
    path = tmp_path / "f.pt"
    ember.save(obj, path)
    assert os.listdir(tmp_path) == ["f.pt"] and zipfile.is_zipfile(path)
    if safe:
        back = ember.load(path)
    else:
        with pytest.raises(pickle.UnpicklingError, match=type(obj[0] if isinstance(obj, list) else obj).__name__):
            ember.load(path)
        with pytest.warns(FutureWarning):
            back = ember.load(path, weights_only=False)
    assert type(back) is type(obj)
    if isinstance(obj, dict) and "a" in obj and isinstance(obj["a"], dict):
        assert list(back["a"]) == [(1, 2)] and back["a"][(1, 2)].tolist() == [1.0]
    else:
        assert back == obj


@pytest.mark.parametrize("obj, where, tname, pickle_says", [
    ({"a": [0, 1, lambda: 0]}, "obj['a'][2]", "function", "lambda"),
    ([_local_object()], "obj[0]", "Local", "local object"),
])
def test_unpicklable_objects_raise_type_error(tmp_path, obj, where, tname, pickle_says):
    with pytest.raises(TypeError) as e:
        ember.save(obj, tmp_path / "f.ember")
    assert where in str(e.value) and tname in str(e.value) and pickle_says in str(e.value)
    assert "pickle cannot write it either" in str(e.value)
    assert os.listdir(tmp_path) == []


def test_bad_keys_and_values(tmp_path):
    with pytest.raises(TypeError, match=r"obj\['a'\] has a key of type 'tuple'.*pickle cannot write"):
        ember.save({"a": {(1, 2): lambda: 0}}, tmp_path / "f")
    with pytest.raises(ValueError, match="64 bits"):
        ember.save([2**64], tmp_path / "f")
    cyc = [1]
    cyc.append(cyc)
    with pytest.raises(ValueError, match="contains itself"):
        ember.save({"c": cyc}, tmp_path / "f")
    deep = []
    for _ in range(1100):
        deep = [deep]
    with pytest.raises(ValueError, match="nested more than"):
        ember.save(deep, tmp_path / "f")
    assert os.listdir(tmp_path) == []


def test_failed_save_leaves_existing_file_untouched(tmp_path):
    path = tmp_path / "model.ember"
    ember.save({"w": ember.ones(3)}, path)
    before = path.read_bytes()
    with pytest.raises(TypeError):
        ember.save({"w": ember.zeros(3), "bad": lambda: 0}, path)  # neither Ember's format nor pickle
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["model.ember"]
    # A directory in the way is an error, and leaves nothing behind.
    (tmp_path / "dir").mkdir()
    with pytest.raises(RuntimeError, match="dir': is a directory"):
        ember.save(ember.ones(2), tmp_path / "dir")
    assert sorted(os.listdir(tmp_path)) == ["dir", "model.ember"]
    with pytest.raises(RuntimeError, match="no_such_dir"):
        ember.save(ember.ones(2), tmp_path / "no_such_dir" / "x.ember")


def test_overwrite_replaces_file(tmp_path):
    path = tmp_path / "m.ember"
    ember.save(ember.ones(3), path)
    ember.save(ember.zeros(5), path)
    assert ember.load(path).tolist() == [0.0] * 5
    assert os.listdir(tmp_path) == ["m.ember"]


# ---- corrupt files ---------------------------------------------------------------------------------------

def _archive(tmp_path):
    x = ember.arange(6.0).reshape(2, 3)
    path = tmp_path / "good.ember"
    ember.save({"x": x, "xt": x.t()}, path)
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n) for n in z.namelist()}


def _write(tmp_path, entries, name="bad.ember"):
    path = tmp_path / name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for n, data in entries.items():
            z.writestr(n, data)
    return path


def _with_manifest(tmp_path, edit):
    entries = _archive(tmp_path)
    m = json.loads(entries["manifest.json"])
    edit(m)
    entries["manifest.json"] = json.dumps(m)
    return _write(tmp_path, entries)


def _expect_load_error(path, match):
    with pytest.raises(RuntimeError) as e:
        ember.load(path)
    assert str(path) in str(e.value), str(e.value)
    assert match in str(e.value), str(e.value)
    with open(path, "rb") as f:  # the same check from bytes, named after the file object
        with pytest.raises(RuntimeError, match=match.replace("(", r"\(").replace("[", r"\[")):
            ember.load(f)


def test_load_missing_file_or_directory(tmp_path):
    for path, error in [(tmp_path / "nope.ember", FileNotFoundError), (tmp_path, IsADirectoryError)]:
        with pytest.raises(error):
            ember.load(path)
        with pytest.raises(error):
            torch.load(path)


def test_not_a_zip(tmp_path):
    p = tmp_path / "text.ember"
    p.write_bytes(b"hello, this is not an archive" * 10)
    _expect_load_error(p, "Not a zip archive")
    p.write_bytes(b"")
    _expect_load_error(p, "Not a zip archive")


def test_torch_file_loads_by_content(tmp_path):
    # A zip too, but with a pickle instead of a manifest: read by the safe pickle reader since issue 21
    # (tests/python/test_torch_files.py has the rest).
    p = tmp_path / "t.pt"
    torch.save({"x": torch.ones(2)}, p)
    assert ember.load(p)["x"].tolist() == [1.0, 1.0]
    zipfile.ZipFile(tmp_path / "other.zip", "w").writestr("a/b.txt", "x")
    _expect_load_error(tmp_path / "other.zip", "the archive has no entry 'manifest.json'")


@pytest.mark.parametrize("cut", [0.1, 0.5, 0.9, 0.99])
def test_truncated_file(tmp_path, cut):
    good = tmp_path / "good.ember"
    ember.save({"x": ember.arange(1000.0)}, good)
    data = good.read_bytes()
    p = tmp_path / "cut.ember"
    p.write_bytes(data[: int(len(data) * cut)])
    with pytest.raises(RuntimeError, match="cut.ember"):
        ember.load(p)


def test_flipped_bytes_in_storage_fail_crc(tmp_path):
    good = tmp_path / "good.ember"
    ember.save({"x": ember.arange(1000.0)}, good)
    data = bytearray(good.read_bytes())
    pos = data.index(np.arange(1000.0, dtype=np.float32)[500:502].tobytes())
    data[pos] ^= 0xFF
    p = tmp_path / "flip.ember"
    p.write_bytes(bytes(data))
    with pytest.raises(RuntimeError, match="flip.ember"):
        ember.load(p)


def test_flipped_bytes_in_manifest(tmp_path):
    good = tmp_path / "good.ember"
    ember.save({"x": ember.arange(10.0)}, good)
    data = bytearray(good.read_bytes())
    pos = data.index(b'"format"')
    for i in range(pos, pos + 40):
        data[i] ^= 0x5A
    p = tmp_path / "flip.ember"
    p.write_bytes(bytes(data))
    with pytest.raises(RuntimeError, match="flip.ember"):
        ember.load(p)


def test_missing_manifest_or_storage(tmp_path):
    entries = _archive(tmp_path)
    _expect_load_error(_write(tmp_path, {"storages/0": entries["storages/0"]}), "no entry 'manifest.json'")
    _expect_load_error(_write(tmp_path, {"manifest.json": entries["manifest.json"]}), "no entry 'storages/0'")


def test_storage_too_short_or_too_long(tmp_path):
    entries = _archive(tmp_path)
    entries["storages/0"] = entries["storages/0"][:-4]
    _expect_load_error(_write(tmp_path, entries), "holds 20 bytes but the manifest says 24")

    def shrink(m):
        m["storages"][0]["nbytes"] = 20
    entries = _archive(tmp_path)
    entries["storages/0"] = entries["storages/0"][:-4]
    m = json.loads(entries["manifest.json"])
    shrink(m)
    entries["manifest.json"] = json.dumps(m)
    _expect_load_error(_write(tmp_path, entries), "tensor 0 does not fit its storage")


@pytest.mark.parametrize("edit, match", [
    (lambda m: m.update(format="something-else"), "not an Ember archive"),
    (lambda m: m.pop("format"), "has no 'format'"),
    (lambda m: m.update(version=2), "unsupported archive format version 2"),
    (lambda m: m.update(version="1"), "version is not an integer"),
    (lambda m: m.update(version=0), "unsupported archive format version 0"),
    (lambda m: m.update(byte_order="big"), "byte order"),
    (lambda m: m["tensors"][0].update(dtype="complex32"), "unknown dtype 'complex32'"),
    (lambda m: m["tensors"][0].update(dtype=6), "dtype of tensor 0 is not a string"),
    (lambda m: m["tensors"][0].update(sizes=[2, -3]), "negative size"),
    (lambda m: m["tensors"][0].update(sizes=[2]), "1 sizes but 2 strides"),
    (lambda m: m["tensors"][0].update(sizes=[2, 4]), "does not fit its storage"),
    (lambda m: m["tensors"][1].update(storage_offset=1), "does not fit its storage"),
    (lambda m: m["tensors"][1].update(storage_offset=-1), "does not fit its storage"),
    (lambda m: m["tensors"][0].update(strides=[2**62, 1]), "does not fit its storage"),
    (lambda m: m["tensors"][0].update(sizes=[2**62, 2**62]), "does not fit its storage"),
    (lambda m: m["tensors"][0].update(strides=[3, -1]), "does not fit its storage"),
    (lambda m: m["tensors"][0].update(storage_offset=2**63), "does not fit in 64 bits"),
    (lambda m: m["tensors"][0].update(storage_offset=2**64), "storage_offset is not an integer"),
    (lambda m: m["tensors"][0].update(storage=5), "refers to storage 5 but there are 1"),
    (lambda m: m["tensors"][0].pop("strides"), "tensor 0 has no 'strides'"),
    (lambda m: m["storages"][0].update(nbytes=10**15), "holds 24 bytes but the manifest says 1000000000000000"),
    (lambda m: m["storages"][0].update(nbytes=-1), "negative size"),
    (lambda m: m["storages"].append(m["storages"][0]), "used by more than one storage"),
    (lambda m: m["root"]["items"][0][1].update(index=9), "refers to tensor 9 but there are 2"),
    (lambda m: m["root"]["items"][0][1].update(kind="pickle"), "unknown kind 'pickle'"),
    (lambda m: m["root"].update(items=[["x", 1]]), "a manifest node is not a JSON object"),
    (lambda m: m["root"].update(items=[[{"value": "x"}, {"kind": "none"}]]), "a manifest node has no 'kind'"),
    (lambda m: m["root"].update(items=[[{"kind": "float", "value": 1.5}, {"kind": "none"}]]), "not a str or int"),
    (lambda m: m["root"].update(items=[{"kind": "none"}]), "not a [key, value] pair"),
    (lambda m: m.update(root={"kind": "int", "value": 1.5}), "not an integer"),
    (lambda m: m.update(root={"kind": "float", "value": "pi"}), "a float node holds"),
    (lambda m: m.update(root=[]), "a manifest node is not a JSON object"),
    (lambda m: m.update(tensors={}), "not a JSON array"),
])
def test_bad_manifest(tmp_path, edit, match):
    _expect_load_error(_with_manifest(tmp_path, edit), match)


def test_manifest_not_json_or_too_deep(tmp_path):
    entries = _archive(tmp_path)
    entries["manifest.json"] = entries["manifest.json"][:-5]
    _expect_load_error(_write(tmp_path, entries), "is not valid JSON")
    entries["manifest.json"] = b"[1, 2]"
    _expect_load_error(_write(tmp_path, entries), "not a JSON object")
    entries = _archive(tmp_path)
    m = json.loads(entries["manifest.json"])
    m["root"] = "ROOT"
    deep = '{"kind": "list", "items": [' * 1500 + '{"kind": "none"}' + "]}" * 1500
    entries["manifest.json"] = json.dumps(m).replace('"ROOT"', deep)
    _expect_load_error(_write(tmp_path, entries), "nested more than 1000")


def test_compressed_entries_are_read(tmp_path):
    # Another zip tool may re-compress an archive: deflated entries load too.
    entries = _archive(tmp_path)
    path = tmp_path / "deflated.ember"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for n, data in entries.items():
            z.writestr(n, data)
    y = ember.load(path)
    assert y["xt"].tolist() == [[0, 3], [1, 4], [2, 5]]


def test_overlapping_entries_rejected(tmp_path):
    # Two directory records pointing at the same bytes (a zip-bomb trick) must not be read twice.
    x = ember.arange(6.0)
    y = ember.arange(6.0) + 1
    good = tmp_path / "good.ember"
    ember.save([x, y], good)
    data = bytearray(good.read_bytes())
    with zipfile.ZipFile(good) as z:
        offsets = {i.filename: i.header_offset for i in z.infolist()}
    # The central record of storages/1: patch its local-header offset (libzip writes the 32-bit field for a
    # small archive, ZIP64 only where sizes need it).
    rec = data.index(b"storages/1", data.index(b"PK\x01\x02")) - 46
    assert struct.unpack_from("<I", data, rec + 42)[0] == offsets["storages/1"]
    struct.pack_into("<I", data, rec + 42, offsets["storages/0"])
    p = tmp_path / "overlap.ember"
    p.write_bytes(bytes(data))
    with pytest.raises(RuntimeError, match="overlap.ember"):
        ember.load(p)


# ---- ember.Size and namedtuples (Note [tuple classes] in ember/serialize/EmberFormat.h) ------------------------

Point = collections.namedtuple("Point", ["x", "y"])


class Pair(collections.namedtuple("PairBase", "first second")):
    """A class deriving from a namedtuple, with its own __new__ that the loader must not call."""
    news = 0

    def __new__(cls, first, second):
        Pair.news += 1
        return super().__new__(cls, first, second)

    def total(self):
        return self.first + self.second


class Outer:
    class Inner(collections.namedtuple("InnerBase", ["v"])):  # __qualname__ "Outer.Inner"
        pass


def _save_bytes(obj):
    buf = io.BytesIO()
    ember.save(obj, buf)
    return buf.getvalue()


def _load_bytes(data):
    return ember.load(io.BytesIO(data))


@pytest.mark.parametrize("shape", [(2, 3), (), (0,), (1, 1, 5)])
def test_size_roundtrips_as_size(tmp_path, shape):
    s = ember.zeros(shape).shape
    t = torch_roundtrip(torch.zeros(shape).shape)
    for got in (roundtrip(s, tmp_path), roundtrip({"s": [s, (s, 1)]}, tmp_path)["s"][1][0]):
        assert type(got) is ember.Size and type(t) is torch.Size
        assert tuple(got) == tuple(t) == shape
        assert repr(got) == repr(t).replace("torch.", "ember.")


def test_size_of_non_ints_refused(tmp_path):
    with pytest.raises(TypeError, match="item 1 is 'str'"):
        ember.Size([2, "a"])
    forged = tuple.__new__(ember.Size, (2, "a"))  # past Size's own check: save still refuses it
    with pytest.raises(TypeError, match=r"obj\[1\].*str"):
        ember.save([1, forged], tmp_path / "f.ember")
    assert os.listdir(tmp_path) == []


def test_namedtuple_roundtrips_as_its_class(tmp_path):
    p = Point(ember.arange(3.0), Point(1, "b"))
    q = torch_roundtrip(Point(torch.arange(3.0), Point(1, "b")))
    got = roundtrip({"p": p, "o": Outer.Inner(2.5)}, tmp_path)
    assert type(torch_roundtrip(Outer.Inner(2.5))) is Outer.Inner
    assert type(got["p"]) is type(q) is Point
    assert got["p"]._fields == q._fields
    assert got["p"].x.tolist() == q.x.tolist() and type(got["p"].y) is type(q.y) is Point and got["p"].y == q.y
    assert type(got["o"]) is Outer.Inner and got["o"].v == 2.5
    # A subclass comes back as itself, built without running its __new__ (torch's unpickler calls it).
    Pair.news = 0
    pair = roundtrip(Pair(ember.ones(2), 3), tmp_path)
    assert Pair.news == 1  # the one call above, none from load
    assert type(pair) is Pair and pair.second == 3 and pair.total().tolist() == [4.0, 4.0]


def test_namedtuple_of_a_local_class_loads_as_tuple(tmp_path):
    class Local(collections.namedtuple("LocalBase", ["a"])):  # __qualname__ "test_...<locals>.Local"
        pass

    with pytest.warns(UserWarning, match=r"namedtuple .*<locals>\.Local\('a',\) loads as a plain tuple"):
        got = roundtrip([Local(ember.ones(1))], tmp_path)
    assert type(got[0]) is tuple and got[0][0].tolist() == [1.0]
    with pytest.raises(Exception):  # torch cannot even save it (pickle finds no class by that name)
        torch.save(Local(1), io.BytesIO())


def _edit_class(data, edit):
    """The archive `data` with edit(class_node) applied to the class of the root tuple."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for n in src.namelist():
            b = src.read(n)
            if n == "manifest.json":
                m = json.loads(b)
                edit(m["root"]["class"])
                b = json.dumps(m).encode()
            z.writestr(n, b)
    return out.getvalue()


def test_namedtuple_loader_imports_nothing(tmp_path, monkeypatch):
    # A module on sys.path that is not imported: loading must not import it (torch.load would).
    (tmp_path / "ember_test_canary.py").write_text(
        "import pathlib\npathlib.Path(__file__).with_suffix('.imported').write_text('x')\n"
        "import collections\nPoint = collections.namedtuple('Point', ['x', 'y'])\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    data = _edit_class(_save_bytes(Point(1, 2)), lambda c: c.update(module="ember_test_canary"))
    with pytest.warns(UserWarning, match="ember_test_canary.Point.*its module is not imported"):
        got = _load_bytes(data)
    assert type(got) is tuple and got == (1, 2)
    assert "ember_test_canary" not in sys.modules and not (tmp_path / "ember_test_canary.imported").exists()


def test_namedtuple_loader_runs_no_attribute_hooks(monkeypatch):
    calls = []
    mod = types.ModuleType("ember_test_hooked")
    mod.__getattr__ = lambda name: calls.append(name) or Point  # PEP 562 hook: never consulted
    monkeypatch.setitem(sys.modules, "ember_test_hooked", mod)
    data = _edit_class(_save_bytes(Point(1, 2)), lambda c: c.update(module="ember_test_hooked"))
    with pytest.warns(UserWarning, match="not found there or has other fields"):
        got = _load_bytes(data)
    assert type(got) is tuple and calls == []


@pytest.mark.parametrize("edit, why", [
    (lambda c: c.update(qualname="Missing"), "not found"),
    (lambda c: c.update(qualname="Point.x"), "not found"),  # a field descriptor, not a class
    (lambda c: c.update(qualname="collections"), "not found"),  # a module, not a class
    (lambda c: c.update(qualname="Point.__class__.__subclasses__"), "not found"),
    (lambda c: c.update(fields=["x", "z"]), "other fields"),
    (lambda c: c.update(qualname="Outer.Inner"), "other fields"),  # a namedtuple with one field
])
def test_namedtuple_mismatch_loads_as_tuple(edit, why):
    data = _edit_class(_save_bytes(Point(1, 2)), edit)
    with pytest.warns(UserWarning, match=why):
        got = _load_bytes(data)
    assert type(got) is tuple and got == (1, 2)


@pytest.mark.parametrize("obj, edit, match", [
    (Point(1, 2), lambda c: c.update(kind="class"), "a tuple's class has the unknown kind \"class\""),
    (Point(1, 2), lambda c: c.update(fields=["x"]), "has 2 items but 1 field names"),
    (Point(1, 2), lambda c: c.update(fields=["x", 3]), "field name is 3, not a string"),
    (Point(1, 2), lambda c: c.update(module=7), "not two non-empty strings"),
    (Point(1, 2), lambda c: c.update(qualname=""), "not two non-empty strings"),
    (Point(1, 2), lambda c: c.pop("fields"), "has no 'fields'"),
    (ember.Size([1, 2]), lambda c: c.update(kind="namedtuple"), "has no 'module'"),
    (Point(1, 2), lambda c: c.clear() or c.update(kind="size"), None),  # ints: a valid Size
    (Point(1.5, 2), lambda c: c.clear() or c.update(kind="size"), "a Size holds a float, not an int"),
])
def test_bad_tuple_class_in_manifest(obj, edit, match):
    data = _edit_class(_save_bytes(obj), edit)
    if match is None:
        assert type(_load_bytes(data)) is ember.Size
        return
    with pytest.raises(RuntimeError, match=re.escape(match)):
        _load_bytes(data)


def test_other_tuple_subclasses_refused(tmp_path):
    class MyTuple(tuple):
        pass

    with pytest.raises(TypeError, match=r"'MyTuple' \(at obj\['t'\]\).*only ember.Size and namedtuples"):
        ember.save({"t": MyTuple((1,))}, tmp_path / "f.ember")
    assert os.listdir(tmp_path) == []


# ---- short writes (Note [short writes] in python/csrc/serialization.cpp) ---------------------------------

class ChunkyWriter:
    """A raw-stream-like writer that takes at most `limit` bytes per call and says how many."""

    def __init__(self, limit):
        self.limit, self.buf, self.calls = limit, io.BytesIO(), 0

    def write(self, b):
        self.calls += 1
        return self.buf.write(bytes(b)[: self.limit])


class FixedReturn:
    def __init__(self, value):
        self.value, self.received = value, 0

    def write(self, b):
        self.received += len(b)
        return self.value

    def __repr__(self):
        return f"<FixedReturn {self.value!r}>"


def test_short_writes_are_retried():
    obj = {"w": ember.randn(300), "n": 3}
    want = _save_bytes(obj)
    for limit in [1000, 4096, 7]:
        w = ChunkyWriter(limit)
        ember.save(obj, w)
        assert w.buf.getvalue() == want and w.calls >= len(want) // limit
        assert ember.load(io.BytesIO(w.buf.getvalue()))["w"].tolist() == obj["w"].tolist()

    class RawChunky(io.RawIOBase):  # an io raw stream, also under a BufferedWriter
        def __init__(self):
            self.out = bytearray()

        def writable(self):
            return True

        def write(self, b):
            self.out += bytes(b)[:100]
            return min(len(b), 100)

    for f in (RawChunky(), io.BufferedWriter(RawChunky())):
        ember.save(obj, f)
        f.flush()
        assert bytes(getattr(f, "raw", f).out) == want


@pytest.mark.parametrize("value, error, match", [
    (0, OSError, r"<FixedReturn 0>\.write\(\) wrote 0 of \d+ bytes.*incomplete"),
    (-1, OSError, r"<FixedReturn -1>\.write\(\) returned -1 for \d+ bytes"),
    (10**9, OSError, r"returned 1000000000 for \d+ bytes"),
    (2**70, OSError, r"returned 1180591620717411303424 for"),
    ("x", TypeError, r"<FixedReturn 'x'>\.write\(\) returned a 'str', not the number of bytes"),
    (True, TypeError, r"returned a 'bool'"),
    (1.0, TypeError, r"returned a 'float'"),
])
def test_bad_write_results_raise(tmp_path, monkeypatch, value, error, match):
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # the temporary archive is removed on the error too
    w = FixedReturn(value)
    with pytest.raises(error, match=match):
        ember.save({"w": ember.ones(10)}, w)
    assert w.received > 0 and os.listdir(tmp_path) == []
