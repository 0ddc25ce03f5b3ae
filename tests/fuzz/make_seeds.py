"""Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/, Note [fuzz targets]) from valid
files only: archives and modules saved by Ember, real IR texts (Ember's traced graphs and PyTorch 1.13's printed
TorchScript graphs, which the IR parser also reads), the schema of every registered op, and small IDX files,
and TorchScript sources (the code/ files of archives PyTorch 1.13 saves, and hand-written ones), the request
streams a TCP store's server reads and files written by Ember's FileStore.

    cd <repo> && PYTHONPATH=python /usr/bin/python3 tests/fuzz/make_seeds.py [TARGET ...]

With targets named (`make_seeds.py script_parser`), only their corpora are written. It replaces the corpus
folders' contents; the output is the same on every run (fixed seeds and data), except for the schemas, which
follow the op database. Seeds are kept small (libFuzzer's default -max_len follows the largest seed).
"""
import collections
import gzip
import io
import os
import shutil
import struct
import sys
import tempfile
import warnings
import zipfile

import numpy as np
import torch

import ember
import ember.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
FASHION = "/usr/share/datasets/fashion-mnist"

Pair = collections.namedtuple("Pair", ["first", "second"])


def out_dir(target):
    d = os.path.join(HERE, "corpus", target)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def write(d, name, data):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


# ---- archive: ember.save of small objects covering every kind of node (Note [ember format])
def archive_seeds():
    d = out_dir("archive")
    ember.manual_seed(0)
    t = ember.arange(12, dtype=ember.float32).reshape(3, 4)
    lin = nn.Linear(3, 2)
    objects = {
        "tensor.ember": ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
        "dtypes.ember": [ember.ones(2, dtype=dt) for dt in
                         (ember.float32, ember.float64, ember.float16, ember.bfloat16, ember.int64, ember.int32,
                          ember.int16, ember.int8, ember.uint8, ember.bool)],
        "state_dict.ember": lin.state_dict(),
        "containers.ember": {"a": [1, -2.5, float("nan"), float("inf"), float("-inf"), "s\u00e9", None, True,
                                   ember.float16],
                             "b": (1, (2, [3, []])), 7: {"x": {}}},
        "views.ember": [t, t.t(), t[1:], t[:, 1], t],
        "shapes.ember": {"scalar": ember.tensor(3.5), "empty": ember.zeros(0, 3), "size": ember.Size([2, 3]),
                         "param": nn.Parameter(ember.ones(2))},
        "namedtuple.ember": Pair(ember.zeros(1), 2),
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, obj in objects.items():
            path = os.path.join(tmp, name)
            ember.save(obj, path)
            with open(path, "rb") as f:
                write(d, name, f.read())


# ---- jit_module: ember.jit.save of traced modules and functions (Note [saved-module format])
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, padding=1)
        self.bn = nn.BatchNorm2d(2)
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        x = self.bn(self.conv(x)).relu()
        return self.fc(nn.functional.max_pool2d(x, 2).flatten(1))


def scaled(x, y):
    scale = ember.tensor([2.0, -1.0, 0.5])
    return x * scale + y, (x - y).relu().sum(1)


def traced_modules():
    ember.manual_seed(0)
    mlp = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    block = Block().eval()
    return {
        "mlp.pt": ember.jit.trace(mlp, ember.randn(2, 3)),
        "conv_block.pt": ember.jit.trace(block, ember.randn(1, 1, 4, 4)),
        "function.pt": ember.jit.trace(scaled, (ember.randn(2, 3), ember.randn(2, 3))),
        "dict_output.pt": ember.jit.trace(lambda x: ({"y": x * 2, "z": x.sum()}, [x, x.exp()]), ember.randn(2),
                                          strict=False),
    }


def jit_module_seeds(modules):
    d = out_dir("jit_module")
    with tempfile.TemporaryDirectory() as tmp:
        for name, m in modules.items():
            path = os.path.join(tmp, name)
            ember.jit.save(m, path, _extra_files={"note.txt": "a seed"} if name == "mlp.pt" else None)
            with open(path, "rb") as f:
                write(d, name, f.read())


# ---- ir: Ember's graphs, PyTorch's printed TorchScript graphs, and graphs with blocks written by hand
def torch_graphs():
    def branchy(x: torch.Tensor, n: int):
        for i in range(n):
            if bool(x.sum() > 0):
                x = x - 1
            else:
                x = x + i
        return x, [n, 2]

    tm = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU())
    return {
        "torch_scripted_loop.txt": str(torch.jit.script(branchy).graph),
        "torch_traced_mlp.txt": str(torch.jit.trace(tm, torch.zeros(1, 3)).graph),
        "torch_traced_function.txt": str(torch.jit.trace(lambda a, b: (a * 2 + b).relu(),
                                                         (torch.zeros(2, 3), torch.zeros(2, 3))).graph),
    }


HAND_WRITTEN_IR = {
    "if_blocks.txt": """graph(%x.1 : Tensor,
      %flag : bool):
  %2 : int = prim::Constant[value=1]()
  %y.1 : Tensor = aten::add(%x.1, %x.1, %2)
  %y : Tensor = prim::If(%flag)
    block0():
      %4 : Tensor = aten::neg(%y.1)
      -> (%4)
    block1():
      -> (%y.1)
  return (%y)
""",
    "loop_constants.txt": """graph(%x : Float(2, 3),
      %n : int):
  %t : bool = prim::Constant[value=1]()
  %s : str = prim::Constant[value="a\\"b\\x01"]()
  %f : float[] = prim::Constant[value=[1., 2.5, inf, nan]]()
  %c : Tensor = prim::Constant[value=<Tensor:0>]()
  %out : Tensor = prim::Loop(%n, %t, %x)
    block0(%i : int, %acc : Tensor):
      %next : Tensor = aten::mul(%acc, %c)
      -> (%t, %next)
  %l : Tensor[] = prim::ListConstruct(%out, %c)
  %tup : (Tensor, int) = prim::TupleConstruct(%out, %n)
  %d : Dict(str, Tensor) = prim::DictConstruct(%s, %out)
  %o : Tensor? = prim::Uninitialized()
  return (%tup, %l, %d)
""",
}


def ir_seeds(modules):
    d = out_dir("ir")
    for name, m in modules.items():
        write(d, "ember_" + name.replace(".pt", ".txt"), str(m.graph))
    for name, text in torch_graphs().items():  # source comments name this file: without the checkout's path
        write(d, name, text.replace(HERE + os.sep, ""))
    for name, text in HAND_WRITTEN_IR.items():
        write(d, name, text)


# ---- schema: every registered op's schema, one file each
def schema_seeds():
    d = out_dir("schema")
    for s in sorted(set(ember._C._op_schemas())):
        name = s.split("(", 1)[0].replace("::", "__")
        write(d, name + ".txt", s)


# ---- idx: small IDX files of every type code, plain and gzip, and the start of Fashion-MNIST (Note [IDX format])
def idx_bytes(arr, code):
    header = struct.pack(">BBBB", 0, 0, code, arr.ndim) + b"".join(struct.pack(">I", n) for n in arr.shape)
    return header + arr.astype(arr.dtype.newbyteorder(">")).tobytes()


def gz(data):
    return gzip.compress(data, mtime=0)


def idx_seeds():
    d = out_dir("idx")
    rng = np.random.default_rng(0)
    files = {
        "uint8_2x3.idx": idx_bytes(np.arange(6, dtype=np.uint8).reshape(2, 3), 0x08),
        "int8_4.idx": idx_bytes(np.array([-128, -1, 0, 127], dtype=np.int8), 0x09),
        "int16_2x2.idx": idx_bytes(np.array([[-300, 2], [3, 32767]], dtype=np.int16), 0x0B),
        "int32_3.idx": idx_bytes(np.array([1, -2, 70000], dtype=np.int32), 0x0C),
        "float32_2x2x1.idx": idx_bytes(rng.standard_normal((2, 2, 1)).astype(np.float32), 0x0D),
        "float64_scalar.idx": idx_bytes(np.array(2.5), 0x0E),
        "uint8_empty_0x4.idx": idx_bytes(np.zeros((0, 4), dtype=np.uint8), 0x08),
    }
    for name, data in list(files.items()):
        files[name + ".gz"] = gz(data)
    plain = files["int32_3.idx"]
    files["int32_3_two_members.idx.gz"] = gz(plain[:9]) + gz(plain[9:])
    files["int32_3_zero_padded.idx.gz"] = gz(plain) + bytes(8)
    with gzip.open(os.path.join(FASHION, "train-images-idx3-ubyte.gz")) as f:
        f.read(16)
        images = np.frombuffer(f.read(2 * 28 * 28), dtype=np.uint8).reshape(2, 28, 28)
    with gzip.open(os.path.join(FASHION, "train-labels-idx1-ubyte.gz")) as f:
        f.read(8)
        labels = np.frombuffer(f.read(8), dtype=np.uint8)
    files["fashion_mnist_2_images.idx.gz"] = gz(idx_bytes(images, 0x08))
    files["fashion_mnist_8_labels.idx"] = idx_bytes(labels, 0x08)
    for name, data in files.items():
        write(d, name, data)


# ---- pickle: Python's pickles at protocols 2-5 and torch.save's data.pkl (Note [safe unpickling])
def pickle_seeds():
    import pickle
    import zipfile
    d = out_dir("pickle")
    shared = [1, 2]
    values = {"a": [1, -2, 300, 70000, -(2 ** 40), 2 ** 63 - 1, 2 ** 100], "b": (1.5, None, True, False),
              "c": "h\u00e9", "d": b"\x00\xff", "s": {1, 2}, "f": frozenset([3]), "x": complex(1, 2),
              "sl": slice(1, 5, 2), "m": [shared, shared], "o": collections.OrderedDict(k=1),
              "np": np.arange(4.0).reshape(2, 2), "npf": np.asfortranarray(np.eye(2, dtype=np.int32)),
              "nps": np.float32(1.5), "e": b""}
    for proto in (2, 3, 4, 5):
        write(d, f"values_protocol{proto}.pkl", pickle.dumps(values, protocol=proto))
    torch.manual_seed(0)
    lin = torch.nn.Linear(3, 2)
    t = torch.arange(6.0).reshape(2, 3)
    for name, obj in {"state_dict": lin.state_dict(), "views": [t, t.t(), t[1]],
                      "param": torch.nn.Parameter(torch.ones(2)), "size": torch.Size([2, 3]),
                      "dtypes": [torch.float32, torch.bfloat16, torch.bool]}.items():
        buf = io.BytesIO()
        torch.save(obj, buf)
        z = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
        write(d, f"torch_{name}.pkl", z.read("archive/data.pkl"))


# ---- torch_checkpoint: torch.save files in the zip and the legacy format (Note [torch.save formats])
def torch_checkpoint_seeds():
    d = out_dir("torch_checkpoint")
    torch.manual_seed(0)
    t = torch.arange(6.0).reshape(2, 3)
    objects = {"state_dict": torch.nn.Linear(3, 2).state_dict(), "views": [t, t.t(), t[1]],
               "dtypes": [torch.ones(2, dtype=dt) for dt in (torch.float16, torch.bfloat16, torch.bool, torch.int8)],
               "nested": {"a": (1, 2.5, "s"), "b": [torch.zeros(0)], "c": torch.Size([1])}}
    for name, obj in objects.items():
        for legacy in (False, True):
            buf = io.BytesIO()
            torch.save(obj, buf, _use_new_zipfile_serialization=not legacy)
            write(d, f"{name}{'_legacy' if legacy else ''}.pt", buf.getvalue())


# ---- safetensors: files written by ember.safetensors (Note [safetensors format])
def safetensors_seeds():
    from ember import safetensors
    d = out_dir("safetensors")
    write(d, "dtypes.safetensors", safetensors.save(
        {str(dt): ember.ones(2, dtype=dt) for dt in (ember.float32, ember.float64, ember.float16, ember.bfloat16,
                                                    ember.int64, ember.int8, ember.uint8, ember.bool)},
        metadata={"format": "pt"}))
    write(d, "shapes.safetensors", safetensors.save({"scalar": ember.tensor(3.5), "empty": ember.zeros(0, 3),
                                                     "m": ember.arange(12.0).reshape(3, 4)}))


# ---- gguf: small GGUF files by the format's definition (Note [gguf format])
def gguf_seeds():
    d = out_dir("gguf")

    def s(text):
        return struct.pack("<Q", len(text.encode())) + text.encode()

    def gguf(tensors):
        meta = s("general.name") + struct.pack("<I", 8) + s("seed") + s("ids") + struct.pack("<IIQ", 9, 5, 2) + \
            struct.pack("<ii", 1, -2) + s("f") + struct.pack("<If", 6, 0.5)
        out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), 3) + meta
        data = b""
        for name, (ty, ne, raw) in tensors.items():
            data += b"\0" * ((-len(data)) % 32)
            out += s(name) + struct.pack("<I", len(ne)) + b"".join(struct.pack("<Q", n) for n in ne)
            out += struct.pack("<IQ", ty, len(data))
            data += raw
        return out + b"\0" * ((-len(out)) % 32) + data

    rng = np.random.default_rng(0)
    write(d, "plain.gguf", gguf({"a": (0, [3, 2], rng.standard_normal(6).astype(np.float32).tobytes()),
                                 "b": (1, [4], np.ones(4, np.float16).tobytes())}))
    # ggml's block types (Note [ggml block types]): two rows of one block each, random bytes.
    for name, ty, block, size in (("q4_0", 2, 32, 18), ("q4_1", 3, 32, 20), ("q5_0", 6, 32, 22), ("q5_1", 7, 32, 24),
                                  ("q8_0", 8, 32, 34), ("q8_1", 9, 32, 36), ("q2_k", 10, 256, 84),
                                  ("q3_k", 11, 256, 110), ("q4_k", 12, 256, 144), ("q5_k", 13, 256, 176),
                                  ("q6_k", 14, 256, 210), ("q8_k", 15, 256, 292), ("iq4_nl", 20, 32, 18),
                                  ("iq4_xs", 23, 256, 136)):
        raw = rng.integers(0, 255, 2 * size, dtype=np.uint8).tobytes()
        write(d, f"{name}.gguf", gguf({"w": (ty, [block, 2], raw)}))


# ---- script_parser: TorchScript source, the code/ files of archives saved by PyTorch 1.13 (each under 4 KB) and
# hand-written sources covering the grammar of Note [TorchScript grammar]
HAND_WRITTEN_SCRIPT = {
    "grammar.py": r'''@torch.jit.export
def f(self, x: Tensor, ys: List[int], *, k: int = 2) -> Tuple[Tensor, Optional[int]]:
    # type: (Tensor, List[int], int) -> Tuple[Tensor, Optional[int]]
    """Doc."""
    a, *b = ys
    c: Dict[str, int] = {'a': 0x1F, "b": 1_000, 'c\n': -2 ** 3, r'\d': 0o17 | 0b1}
    d = [i * 2 for i in ys if i % 2 == 0]
    e = {k: v for k, v in c.items()}
    if x is not None and not k in ys or len(d) >= 3:
        x += 1.5e-3
    elif k != 0: pass
    else:
        raise ValueError('bad' "value" """!""")
    while k > 0:
        k -= 1; continue
    for i, j in zip(ys, d):
        if i: break
    with torch.no_grad():
        y = x[0, 1:, ::2][..., -1] if k else x @ x
    assert k == 0, "k"
    del c['a']
    z = []  # type: List[int]
    return (x, \
            None)
''',
    "classes.py": '''class Point(NamedTuple):
  x: int
  y: Optional[Tensor] = None
class M(Module):
  __parameters__ = ["weight", ]
  weight : Tensor
  eps : Final[float] = 1.0000000000000001e-05
  def forward(self: __torch__.M,
    x: Tensor) -> Tensor:
    _0 = ops.prim.unchecked_unwrap_optional(annotate(Optional[Tensor], x))
    return torch.add(_0, self.weight, alpha=1)
''',
}


def scripted_loop(x: torch.Tensor, n: int) -> torch.Tensor:
    out = [x]
    for i in range(n):
        if i % 2 == 0:
            out.append(out[-1] * 2)
        else:
            out.append(torch.relu(out[-1]))
    return torch.stack([t.sum() for t in out])


def script_parser_seeds():
    d = out_dir("script_parser")
    modules = {"conv": torch.nn.Conv2d(1, 2, 3), "bn": torch.nn.BatchNorm2d(2), "linear": torch.nn.Linear(3, 2),
               "seq": torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU(), torch.nn.Dropout(0.1))}
    written = set()  # a submodule's code file (Linear's) recurs in its parent's archive: one seed of it
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, module in modules.items():
            path = os.path.join(tmp, name + ".pt")
            torch.jit.save(torch.jit.script(module), path)
            with zipfile.ZipFile(path) as z:
                for entry in sorted(z.namelist()):
                    data = z.read(entry)
                    if "/code/" in entry and entry.endswith(".py") and len(data) < 4096 and data not in written:
                        written.add(data)
                        write(d, name + "_" + entry.split("/code/", 1)[1].replace("/", "_"), data)
        write(d, "scripted_loop.py", torch.jit.script(scripted_loop).code)
    for name, text in HAND_WRITTEN_SCRIPT.items():
        write(d, name, text)


# ---- tcp_store: request streams of one connection to a TCP store's server, by the protocol's definition (Note
# [tcp store protocol]: command byte, u32 count, u32-length arguments, big-endian)
def store_request(cmd, *args):
    args = [a.encode() if isinstance(a, str) else a for a in args]
    return struct.pack(">BI", cmd, len(args)) + b"".join(struct.pack(">I", len(a)) + a for a in args)


def tcp_store_seeds():
    d = out_dir("tcp_store")
    SET, GET, ADD, CHECK, DELETE, NUMKEYS = range(1, 7)
    workers = "__ember_tcpstore_workers__"
    # What rank 0 of a world of 2 sends during a Gloo rendezvous under a PrefixStore, then a barrier's counter.
    write(d, "rendezvous.bin", store_request(ADD, workers, "1") + store_request(ADD, workers, "0") +
          store_request(SET, "default_pg/0/rank_0", bytes(range(40))) + store_request(CHECK, "default_pg/0/rank_1") +
          store_request(CHECK, "default_pg/0/rank_0", "default_pg/0/rank_1") +
          store_request(GET, "default_pg/0/rank_1") + store_request(ADD, "default_pg/0/barrier", "1"))
    write(d, "every_command.bin", store_request(SET, "k", "v1") + store_request(GET, "k") +
          store_request(GET, "absent") + store_request(ADD, "n", "3") + store_request(ADD, "n", "-10") +
          store_request(ADD, "k", "1") + store_request(CHECK) + store_request(CHECK, "k", "n", "absent") +
          store_request(NUMKEYS) + store_request(DELETE, "k") + store_request(DELETE, "k") +
          store_request(SET, "", b"") + store_request(NUMKEYS))
    write(d, "add_overflow.bin", store_request(ADD, "c", str(2 ** 63 - 1)) + store_request(ADD, "c", "1") +
          store_request(GET, "c"))
    # Past the fuzz target's tight limits (16 keys, arguments of 64 bytes, 256 bytes held), within the defaults.
    write(d, "many_keys.bin", b"".join(store_request(SET, f"key{i}", "x" * i) for i in range(20)) +
          store_request(SET, "big", b"\xff" * 100) + store_request(NUMKEYS))
    write(d, "unknown_command.bin", store_request(SET, "k", "v") + store_request(9, "k"))


# ---- file_store: files written by Ember's FileStore (Note [file store format]), as ranks leave them
def file_store_seeds():
    from ember import distributed as dist
    d = out_dir("file_store")
    with tempfile.TemporaryDirectory() as tmp:
        def store_file(name, fill):
            path = os.path.join(tmp, name)
            store = dist.FileStore(path, -1)  # world_size -1: the file stays when the store goes
            fill(store)
            del store
            with open(path, "rb") as f:
                write(d, name + ".store", f.read())

        def rendezvous(store):
            for rank in range(2):
                dist.PrefixStore("default_pg/0", store).set(f"rank_{rank}", bytes(range(rank, 40 + rank)))
            store.add("barrier", 1)
            store.add("barrier", 1)

        def every_command(store):
            store.set("k", "v1")
            store.set("k", "v2")
            store.add("n", 3)
            store.add("n", -10)
            store.delete_key("k")
            store.set("", "")
            store.set("many", "x" * 100)

        store_file("rendezvous", rendezvous)
        store_file("every_command", every_command)
        store_file("many_keys", lambda store: [store.set(f"key{i}", "x" * i) for i in range(20)])


# The corpora that a run naming targets can write alone.
SEEDERS = {"archive": archive_seeds, "pickle": pickle_seeds, "torch_checkpoint": torch_checkpoint_seeds,
           "safetensors": safetensors_seeds, "gguf": gguf_seeds,
           "jit_module": lambda: jit_module_seeds(traced_modules()),
           "ir": lambda: ir_seeds(traced_modules()), "schema": schema_seeds, "idx": idx_seeds,
           "script_parser": script_parser_seeds, "tcp_store": tcp_store_seeds, "file_store": file_store_seeds}


def main(targets):
    if targets:
        for target in targets:
            if target not in SEEDERS:
                sys.exit(f"make_seeds.py: no target '{target}' (targets: {' '.join(SEEDERS)})")
            SEEDERS[target]()
        return
    archive_seeds()
    pickle_seeds()
    torch_checkpoint_seeds()
    safetensors_seeds()
    gguf_seeds()
    modules = traced_modules()
    jit_module_seeds(modules)
    ir_seeds(modules)
    schema_seeds()
    idx_seeds()
    script_parser_seeds()
    tcp_store_seeds()
    file_store_seeds()


if __name__ == "__main__":
    main(sys.argv[1:])
