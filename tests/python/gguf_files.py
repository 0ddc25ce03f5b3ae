"""GGUF files written by the format's definition (Note [gguf format] in ember/serialize/Gguf.h), for the tests of
ember.utils.gguf (test_gguf.py, test_gguf_kquants.py)."""
import struct

# ggml.h's type numbers.
GGML = {"F32": 0, "F16": 1, "Q4_0": 2, "Q4_1": 3, "Q5_0": 6, "Q5_1": 7, "Q8_0": 8, "Q8_1": 9, "Q2_K": 10, "Q3_K": 11,
        "Q4_K": 12, "Q5_K": 13, "Q6_K": 14, "Q8_K": 15, "IQ2_XXS": 16, "IQ4_NL": 20, "IQ4_XS": 23, "I8": 24,
        "I16": 25, "I32": 26, "I64": 27, "F64": 28, "BF16": 30}


def s(text):
    b = text.encode()
    return struct.pack("<Q", len(b)) + b


def kv(key, value):
    if isinstance(value, bool):
        return s(key) + struct.pack("<IB", 7, value)
    if isinstance(value, int):
        return s(key) + struct.pack("<Iq", 11, value)
    if isinstance(value, float):
        return s(key) + struct.pack("<Id", 12, value)
    if isinstance(value, str):
        return s(key) + struct.pack("<I", 8) + s(value)
    if isinstance(value, list):  # of int32
        return s(key) + struct.pack("<IIQ", 9, 5, len(value)) + b"".join(struct.pack("<i", v) for v in value)
    raise TypeError(value)


def gguf_file(metadata, tensors, alignment=32, version=3):
    """tensors: name -> (type name, ne (fastest first), raw bytes)."""
    meta = dict(metadata)
    if alignment != 32:
        meta["general.alignment"] = alignment
    head = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(meta))
    for k, v in meta.items():
        if k == "general.alignment":
            head += s(k) + struct.pack("<II", 4, v)
        else:
            head += kv(k, v)
    data, infos = b"", b""
    for name, (ty, ne, raw) in tensors.items():
        pad = (-len(data)) % alignment
        data += b"\0" * pad
        infos += s(name) + struct.pack("<I", len(ne)) + b"".join(struct.pack("<Q", n) for n in ne)
        infos += struct.pack("<IQ", GGML[ty], len(data))
        data += raw
    body = head + infos
    body += b"\0" * ((-len(body)) % alignment)
    return body + data
