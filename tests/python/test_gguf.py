"""GGUF read by ember.utils.gguf (ember/serialize/Gguf.h): files written here by the format's definition, block
quantized types checked against a NumPy dequantization of ggml's block layouts, and bad files."""
import io
import struct

import numpy as np
import pytest

import ember
from ember.utils import gguf

from gguf_files import gguf_file


def random_blocks(kind, nblocks, rng):
    """Raw bytes of nblocks blocks of a quantized type and their float32 values by ggml's definitions."""
    d = rng.uniform(-2, 2, nblocks).astype(np.float16)
    m = rng.uniform(-1, 1, nblocks).astype(np.float16)
    out, raw = [], b""
    for b in range(nblocks):
        df, mf = np.float32(d[b]), np.float32(m[b])
        if kind == "Q8_0":
            q = rng.integers(-128, 128, 32).astype(np.int8)
            raw += d[b].tobytes() + q.tobytes()
            out.append(q.astype(np.float32) * df)
            continue
        bits = 5 if kind.startswith("Q5") else 4
        q = rng.integers(0, 2 ** bits, 32).astype(np.uint8)
        qs = (q[:16] & 0xF) | ((q[16:] & 0xF) << 4)
        qh = sum(int(q[j] >> 4) << j for j in range(32)) if bits == 5 else 0
        scale = d[b].tobytes() + (m[b].tobytes() if kind.endswith("_1") else b"")
        raw += scale + (struct.pack("<I", qh) if bits == 5 else b"") + qs.astype(np.uint8).tobytes()
        vals = q.astype(np.float32)
        if kind.endswith("_0"):
            out.append((vals - 2 ** (bits - 1)) * df)
        else:
            out.append(vals * df + mf)
    return raw, np.concatenate(out)


def test_metadata_and_plain_tensors(tmp_path):
    rng = np.random.default_rng(0)
    f32 = rng.standard_normal((3, 4)).astype(np.float32)
    f16 = rng.standard_normal((2, 8)).astype(np.float16)
    i32 = np.arange(5, dtype=np.int32)
    path = tmp_path / "m.gguf"
    path.write_bytes(gguf_file(
        {"general.architecture": "test", "general.name": "t\u00e9", "n": 7, "ok": True, "x": 0.5, "ids": [1, -2, 3]},
        {"a": ("F32", [4, 3], f32.tobytes()), "b": ("F16", [8, 2], f16.tobytes()), "c": ("I32", [5], i32.tobytes())},
        alignment=64))
    meta, sd = gguf.load(str(path))
    assert meta["general.architecture"] == "test" and meta["general.name"] == "t\u00e9"
    assert meta["n"] == 7 and meta["ok"] is True and meta["x"] == 0.5 and meta["ids"] == [1, -2, 3]
    assert meta["general.alignment"] == 64
    assert list(sd) == ["a", "b", "c"]
    np.testing.assert_array_equal(sd["a"].numpy(), f32)
    assert sd["b"].dtype == ember.float16 and sd["b"].shape == (2, 8)
    np.testing.assert_array_equal(sd["b"].numpy(), f16)
    np.testing.assert_array_equal(sd["c"].numpy(), i32)
    f = gguf.GGUFFile(str(path))
    assert f.version == 3 and f.tensor_type("b") == "F16"


@pytest.mark.parametrize("kind", ["Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0"])
def test_block_quantized_types_dequantize(tmp_path, kind):
    rng = np.random.default_rng(1)
    raw, expected = random_blocks(kind, 6, rng)  # 2 rows of 96 values
    path = tmp_path / "q.gguf"
    path.write_bytes(gguf_file({}, {"w": (kind, [96, 2], raw)}))
    _, sd = gguf.load(str(path))
    assert sd["w"].dtype == ember.float32 and sd["w"].shape == (2, 96)
    np.testing.assert_allclose(sd["w"].numpy().ravel(), expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("mutate, message", [
    (lambda b: b"GGUX" + b[4:], "offset 0: not a GGUF file \\(no \"GGUF\" magic\\)"),
    (lambda b: b[:4] + struct.pack("<I", 9) + b[8:], "version 9"),
    (lambda b: b[:8] + struct.pack("<Q", 2 ** 60) + b[16:], "the header claims 1152921504606846976 tensors"),
    (lambda b: b[:16] + struct.pack("<Q", 2 ** 60) + b[24:], "claims 1152921504606846976 metadata entries"),
    (lambda b: b[:-4], "past the end of the data section"),
])
def test_bad_files(tmp_path, mutate, message):
    good = gguf_file({"k": 1}, {"a": ("F32", [4], np.ones(4, np.float32).tobytes())})
    path = tmp_path / "bad.gguf"
    path.write_bytes(mutate(good))
    with pytest.raises(RuntimeError, match=message):
        gguf.load(str(path))


def test_missing_files_and_file_objects(tmp_path):
    with pytest.raises(FileNotFoundError):
        gguf.load(str(tmp_path / "missing.gguf"))
    with pytest.raises(IsADirectoryError):
        gguf.GGUFFile(tmp_path)
    data = gguf_file({"k": 1}, {"a": ("F32", [4], np.arange(4, dtype=np.float32).tobytes())})
    metadata, sd = gguf.load(io.BytesIO(data))
    assert metadata["k"] == 1 and sd["a"].tolist() == [0.0, 1.0, 2.0, 3.0]


def test_unknown_type_and_bad_rows(tmp_path):
    path = tmp_path / "t.gguf"
    path.write_bytes(gguf_file({}, {"a": ("IQ2_XXS", [256], b"\0" * 66)}))
    with pytest.raises(RuntimeError, match=r"ggml type 16 \(IQ2_XXS\), which Ember does not read .*Q4_K"):
        gguf.load(str(path))
    path.write_bytes(gguf_file({}, {"a": ("Q8_0", [16], b"\0" * 34)}))
    with pytest.raises(RuntimeError, match="not a multiple of 32"):
        gguf.load(str(path))


def test_a_zero_size_beside_huge_sizes_is_refused(tmp_path):
    # numel 0, but the contiguous strides would multiply the other sizes (2^40 * 2^40 * 8: past 64 bits); found by
    # the gguf fuzz target (signed overflow in get_tensor). A zero size beside small ones still loads.
    path = tmp_path / "z.gguf"
    path.write_bytes(gguf_file({}, {"a": ("F32", [2 ** 40, 2 ** 40, 0, 8], b"")}))
    with pytest.raises(RuntimeError, match="overflows 64 bits"):
        gguf.load(str(path))
    path.write_bytes(gguf_file({}, {"a": ("F32", [3, 0], b"")}))
    _, sd = gguf.load(str(path))
    assert sd["a"].shape == (0, 3)
