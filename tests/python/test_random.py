"""Random ops against PyTorch 1.13, bit for bit: the same seed gives the same bytes from rand, randn, randint,
randperm, bernoulli, normal, uniform_, random_, exponential_, dropout and the *_like samplers, over seeds, sizes
(the blocked normal path depends on n and n % 16), dtypes and layouts; the test vectors of
../shared/notes/pytorch-cpu-rng.md §14; generator objects and state round trips (states move between Ember and
PyTorch); and the errors PyTorch raises, with its exception types."""
import hashlib
import math
import os
import subprocess
import sys
import threading

import numpy as np
import pytest
import torch

import ember
from conftest import assert_raises_like, dtype_name, from_array, to_numpy, to_torch

SEEDS = [0, 1, 42, 123456789, 2**40 + 7]
SIZES = [0, 1, 2, 3, 15, 16, 17, 31, 32, 33, 100, 1000]
FLOATS = ["float32", "float64", "float16", "bfloat16"]


def assert_bits(actual, expected, msg=""):
    """ember tensor actual has expected's dtype, shape and exact bytes (bfloat16 compared through float32, which
    holds it exactly; -0.0 and 0.0 differ)."""
    assert isinstance(actual, ember.Tensor), f"{msg}: not an ember.Tensor: {type(actual).__name__}"
    assert dtype_name(actual.dtype) == dtype_name(expected.dtype), f"{msg}: dtype {actual.dtype} != {expected.dtype}"
    assert tuple(actual.shape) == tuple(expected.shape), \
        f"{msg}: shape {tuple(actual.shape)} != {tuple(expected.shape)}"
    a, e = np.ascontiguousarray(to_numpy(actual)), np.ascontiguousarray(to_numpy(expected))
    if a.tobytes() != e.tobytes():
        flat_a, flat_e = a.reshape(-1), e.reshape(-1)
        bad = [i for i in range(a.size) if flat_a[i:i + 1].tobytes() != flat_e[i:i + 1].tobytes()]
        raise AssertionError(f"{msg}: {len(bad)} of {a.size} elements differ; first at {bad[0]}: "
                             f"{flat_a[bad[0]]!r} != {flat_e[bad[0]]!r}")


def both(fn, seed):
    """fn(ember) and fn(torch), each right after seeding its default generator with seed."""
    ember.manual_seed(seed)
    e = fn(ember)
    torch.manual_seed(seed)
    t = fn(torch)
    return e, t


def check_same_stream(fn, seed, msg=""):
    """fn(lib) gives the same bytes in Ember and PyTorch after the same seed, and leaves both generators in the
    same state (the same number of draws, the same cached normal)."""
    e, t = both(fn, seed)
    for i, (x, y) in enumerate(zip(e, t) if isinstance(t, (tuple, list)) else [(e, t)]):
        assert_bits(x, y, f"{msg} seed {seed} result {i}")
    assert_state_equal(msg)


def pair(L, x):
    """The values of ember tensor x for library L: a clone for Ember, a copy for PyTorch (so inputs are the same
    bits in both, whatever either library's own factories would give)."""
    return x.clone() if L is ember else to_torch(x)


def spaced(lo, hi, n, dtype):
    """n values from lo to hi as an ember tensor of dtype (name), made in NumPy."""
    return from_array(np.linspace(lo, hi, n).astype(np.float32 if dtype == "bfloat16" else dtype), dtype)


def assert_state_equal(msg=""):
    es, ts = ember.get_rng_state(), torch.get_rng_state()
    assert bytes(to_numpy(es)) == bytes(ts.numpy()), f"{msg}: generator states differ after the call"


# ---------------------------------------------------------------------------------------------- test vectors

def digest(t):
    """The note's digest: the first 16 hex digits of SHA-256 over the result's contiguous little-endian bytes."""
    if isinstance(t, ember.Tensor):
        if t.dtype == ember.bfloat16:
            raise ValueError("no bfloat16 vectors")
        return hashlib.sha256(np.ascontiguousarray(to_numpy(t)).tobytes()).hexdigest()[:16]
    return hashlib.sha256(t.contiguous().numpy().tobytes()).hexdigest()[:16]


def _linear(lib):
    # nn.Linear(3, 2).reset_parameters(): kaiming_uniform_(a=sqrt(5)) on the weight, then the bias.
    fan_in = 3
    bound = math.sqrt(3.0) * (math.sqrt(2.0 / (1 + math.sqrt(5) ** 2)) / math.sqrt(fan_in))
    w = lib.empty(2, 3).uniform_(-bound, bound)
    b = lib.empty(2).uniform_(-1 / math.sqrt(fan_in), 1 / math.sqrt(fan_in))
    return w, b


# (expression, {seed: (first value hex or int, sha256[:16])}) from ../shared/notes/pytorch-cpu-rng.md §14, made
# with real torch 1.13.1; `L` is ember or torch.
VECTORS = [
    ("L.rand(1)", {0: ("0x1.fc2abp-2", "6b7e2e190874bd80"), 42: ("0x1.c3b8ccp-1", "35471a4558ed5862")}),
    ("L.rand(5)", {0: (None, "f76815414c7c7c2c"), 42: (None, "89519a133f058aed")}),
    ("L.rand(15)", {0: (None, "477fe9133a832b19"), 42: (None, "587445e9574a71f8")}),
    ("L.rand(16)", {0: (None, "1f989f2ae8aa13f7"), 42: (None, "5e0577df47f5f44c")}),
    ("L.rand(17)", {0: (None, "ed62a82f1b306735"), 42: (None, "03a6f50ac41709e7")}),
    ("L.rand(100)", {0: (None, "bc1bc0f648ede1b5"), 42: (None, "a2f1029a3f45f5d5")}),
    ("L.randn(1)", {0: ("0x1.8a7eb8p+0", "3b8ea0dd3165a760"), 42: ("0x1.58c55cp-2", "f4e1275c6e3dd10f")}),
    ("L.randn(5)", {0: (None, "210d4d6ce714b814"), 42: (None, "af33577995d9ae23")}),
    ("L.randn(15)", {0: (None, "feb39d97c8afee24"), 42: (None, "8db9a5331024e1ef")}),
    ("L.randn(16)", {0: ("-0x1.20370ap+0", "7648137a31024642"), 42: ("0x1.ed4a52p+0", "fc34b516db1204ac")}),
    ("L.randn(17)", {0: (None, "6d2169852e19b6d1"), 42: (None, "2ae700cddb7c7bef")}),
    ("L.randn(100)", {0: (None, "438630ac9c044e48"), 42: (None, "6cf7236205c5dc8d")}),
    ("L.rand(5, dtype=L.float64)", {0: ("0x1.f0aac97c4aa2fp-1", "20027d3a17315de5"),
                                    42: ("0x1.dc66cbea3db3p-5", "a0b98c56dcc0e4d3")}),
    ("L.randn(5, dtype=L.float64)", {0: ("0x1.8a7eb8902be3ap+0", "0f4be11a3a2a9f76"),
                                     42: ("0x1.58c55b33d44ccp-2", "2cd943d9221e2276")}),
    ("L.rand(17, dtype=L.float64)", {0: (None, "9b3a800650064867"), 42: (None, "437cd04d8249e43a")}),
    ("L.randn(17, dtype=L.float64)", {0: ("-0x1.27bb92e9262dcp+1", "cbe42f029e3004a6"),
                                      42: ("0x1.32bee22ccb503p-2", "faddecca8192eec7")}),
    ("L.randint(0, 10, (8,))", {0: (4, "17d2a2fe8d9f6055"), 42: (2, "fca2118fa00beb70")}),
    ("L.randint(-5, 1000000, (8,))", {0: (124254, "ae10b333bc96d686"), 42: (629497, "d5bcf626b2d63ae8")}),
    ("L.randint(0, 2**40, (4,))", {0: (741280623151, "970c4098f5aba23f"), 42: (441507790259, "f39625e91be76d7c")}),
    ("L.randperm(10)", {0: (4, "03a19defe024a605"), 42: (2, "fd6484606b698821")}),
    ("L.randperm(100)", {0: (44, "9ff274cf694671cd"), 42: (42, "0bf2cae57b03d793")}),
    ("L.bernoulli(L.full((8,), 0.3))", {0: (None, "0ff83853cacd9a13"), 42: (None, "ca9c4255343edda7")}),
    ("L.bernoulli(L.full((8,), 0.3, dtype=L.float64))", {0: (None, "28ba660c178fe7db"),
                                                         42: (None, "7559012cb25316ff")}),
    ("L.empty(8).bernoulli_(0.3)", {0: (None, "ca9c4255343edda7"), 42: (None, "527d32343c0a9600")}),
    ("L.normal(2.0, 3.0, (4,))", {0: ("0x1.a7df0ap+2", "a4f93eaaf52ea212"), 42: ("0x1.814a02p+1", "1918e1baec7aa06c")}),
    ("L.normal(2.0, 3.0, (4,), dtype=L.float64)", {0: ("0x1.a7df0a6c20eacp+2", "f067a846a43f7101"),
                                                   42: ("0x1.814a02336f9ccp+1", "6dfb6772092acefa")}),
    ("L.normal(2.0, 3.0, (20,))", {0: ("-0x1.60a51ep+0", "2aab5b34c44daeda"),
                                   42: ("0x1.f1f7bep+2", "9f7cf44dfa6efe32")}),
    ("L.empty(5).uniform_(-3.0, 7.5)", {0: ("0x1.1af808p+1", "eb517370add9d818"),
                                        42: ("0x1.90e28cp+2", "cb2e9a8c4423d50a")}),
    ("L.empty(5).exponential_()", {0: ("0x1.c110d6p+1", "feb079b84f9c11ef"),
                                   42: ("0x1.ead0ccp-5", "e8ceac6c8cef24a3")}),
    ("L.dropout(L.ones(16), 0.5, True)", {0: (0, "bc5fcda180ed7660"), 42: (2, "a359c2bc745bb380")}),
    ("_linear(L)[0]", {0: ("-0x1.1b47dp-8", "ff5b07730abaf7c3"), 42: ("0x1.c40012p-2", "a7c9cce445511386")}),
    ("_linear(L)[1]", {0: ("-0x1.76d68p-7", "4be25c22ce93e0e3"), 42: ("-0x1.1fd4fap-2", "7c33ab17d0c354ba")}),
    ("L.randn(10, 3)", {0: ("-0x1.20370ap+0", "7774ed42c30f5029"), 42: ("0x1.ed4a52p+0", "f437ce2aec45d18e")}),
]


@pytest.mark.parametrize("seed", [0, 42])
@pytest.mark.parametrize("expr", [v[0] for v in VECTORS])
def test_note_vectors(expr, seed):
    first, sha = dict(VECTORS)[expr][seed]
    ember.manual_seed(seed)
    r = eval(expr, {"L": ember, "_linear": _linear})  # noqa: S307  (expressions of the table above)
    assert digest(r) == sha, f"{expr} with seed {seed}: {r}"
    if first is not None:
        v = r.reshape(-1)[0].item()
        assert (v.hex() if isinstance(v, float) and isinstance(first, str) else v) == (
            float.fromhex(first).hex() if isinstance(first, str) else first)
    # PyTorch itself still gives the table's digest (the oracle has not changed under us).
    torch.manual_seed(seed)
    assert digest(eval(expr, {"L": torch, "_linear": _linear})) == sha  # noqa: S307


# ---------------------------------------------------------------------------------------------- factories

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", SIZES)
def test_rand_randn_bitwise(n, dtype):
    for seed in SEEDS:
        check_same_stream(lambda L: L.rand(n, dtype=getattr(L, dtype)), seed, f"rand({n}, {dtype})")
        check_same_stream(lambda L: L.randn(n, dtype=getattr(L, dtype)), seed, f"randn({n}, {dtype})")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [4099, 65541])
def test_randn_long_bitwise(n, dtype):
    check_same_stream(lambda L: L.randn(n, dtype=getattr(L, dtype)), 7, f"randn({n})")


def test_randn_same_bits_on_every_instruction_set():
    # float32 randn has an AVX2 and a one-lane implementation of PyTorch's AVX2 kernel; both give its bits.
    code = ("import sys, ember, hashlib; ember.manual_seed(3); "
            "sys.stdout.write(ember._C._cpu_capability() + ' ' + "
            "hashlib.sha256(ember.randn(100003).numpy().tobytes()).hexdigest())")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(ember.__file__)))
    outs = {}
    for isa in ["default", "avx2", "avx512"]:
        env["EMBER_CPU_CAPABILITY"] = isa
        outs[isa] = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                   check=True).stdout.split()
    assert outs["default"][0] == "default"
    torch.manual_seed(3)
    want = hashlib.sha256(torch.randn(100003).numpy().tobytes()).hexdigest()
    assert {h for _, h in outs.values()} == {want}, outs


@pytest.mark.parametrize("shape", [(), (0, 3), (3, 5), (4, 4), (2, 3, 17), (7, 1, 9)])
def test_factories_nd_bitwise(shape):
    for seed in SEEDS[:3]:
        check_same_stream(lambda L: L.rand(shape), seed, f"rand{shape}")
        check_same_stream(lambda L: L.randn(shape), seed, f"randn{shape}")
        check_same_stream(lambda L: L.randint(-3, 3, shape), seed, f"randint{shape}")
        check_same_stream(lambda L: L.normal(-1.5, 0.25, shape), seed, f"normal{shape}")


def test_default_dtype_and_dtype_args():
    ember.set_default_dtype(ember.float64)
    torch.set_default_dtype(torch.float64)
    check_same_stream(lambda L: L.rand(20), 3, "rand float64 default")
    check_same_stream(lambda L: L.randn(20), 3, "randn float64 default")
    check_same_stream(lambda L: L.normal(1.0, 2.0, (20,)), 3, "normal float64 default")
    assert ember.randint(0, 5, (3,)).dtype == ember.int64
    assert ember.randperm(3).dtype == ember.int64


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [1, 5, 16, 17, 100])
@pytest.mark.parametrize("mean, std", [(2.0, 3.0), (-1.0, 0.5), (0.0, 0.0), (1e3, 1e-3)])
def test_normal_float_float_bitwise(n, dtype, mean, std):
    for seed in SEEDS[:3]:
        check_same_stream(lambda L: L.normal(mean, std, (n,), dtype=getattr(L, dtype)), seed,
                          f"normal({mean}, {std}, {n}, {dtype})")


RANDINT_CASES = [  # (low, high, dtypes)
    (0, 10, ["int64", "int32", "int16", "int8", "uint8", "float32", "float64", "float16", "bfloat16"]),
    (-5, 1000000, ["int64", "int32", "float32", "float64"]),
    (0, 2, ["bool", "uint8", "int8"]),
    (-128, 128, ["int8", "int16"]),
    (0, 2**32, ["int64", "float32", "float64", "bfloat16"]),
    (0, 2**32 - 1, ["int64", "float64"]),
    (-2**40, 2**40, ["int64", "float64", "float32"]),
    (-2**63, 2**63 - 1, ["int64"]),
    (-2000, 2000, ["float16", "bfloat16"]),
]


@pytest.mark.parametrize("low, high, dtypes", RANDINT_CASES)
@pytest.mark.parametrize("n", [0, 1, 17, 1000])
def test_randint_bitwise(low, high, dtypes, n):
    for dtype in dtypes:
        for seed in SEEDS[:3]:
            check_same_stream(lambda L: L.randint(low, high, (n,), dtype=getattr(L, dtype)), seed,
                              f"randint({low}, {high}, {n}, {dtype})")
    check_same_stream(lambda L: L.randint(high, (n,)) if high > 0 else L.randint(low, high, (n,)), 5,
                      f"randint({high})")


@pytest.mark.parametrize("n", [0, 1, 2, 3, 10, 100, 1000, 100000])
def test_randperm_bitwise(n):
    for seed in SEEDS:
        check_same_stream(lambda L: L.randperm(n), seed, f"randperm({n})")
    for dtype, limit in [("int32", None), ("float32", None), ("float64", None), ("int16", 32768),
                         ("uint8", 256), ("int8", 128), ("float16", 2049), ("bfloat16", 300)]:
        if limit is None or n <= limit:
            check_same_stream(lambda L: L.randperm(n, dtype=getattr(L, dtype)), 1, f"randperm({n}, {dtype})")


# ---------------------------------------------------------------------------------------------- in-place samplers

def layouts(shape, dtype, L):
    """(name, tensor) pairs of lib L's empty tensors of a shape in several layouts: contiguous, transposed (a
    permuted view, sampled in storage order), a column slice (row-major over the view) and an expanded-from-
    storage view with a leading size-1 dim."""
    t = getattr(L, dtype)
    yield "contiguous", L.empty(shape, dtype=t)
    yield "transposed", L.empty(shape[::-1], dtype=t).t()
    yield "sliced", L.empty(shape[0], 2 * shape[1], dtype=t)[:, ::2]
    yield "permuted3d", L.empty(2, shape[1], shape[0], dtype=t).permute(2, 0, 1)[:, 1]


def over_layouts(fn, shape, dtype, seed, msg):
    for i, name in enumerate(["contiguous", "transposed", "sliced", "permuted3d"]):
        def f(L, i=i):
            x = list(layouts(shape, dtype, L))[i][1]
            r = fn(x)
            assert r is x, "in-place ops return self"
            return x
        check_same_stream(f, seed, f"{msg} {name}")


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(4, 5), (5, 4), (16, 3), (6, 7)])
def test_uniform_normal_layouts_bitwise(shape, dtype):
    for seed in SEEDS[:2]:
        over_layouts(lambda x: x.uniform_(-3.0, 7.5), shape, dtype, seed, f"uniform_ {shape} {dtype}")
        over_layouts(lambda x: x.normal_(0.5, 2.0), shape, dtype, seed, f"normal_ {shape} {dtype}")
        over_layouts(lambda x: x.exponential_(1.5), shape, dtype, seed, f"exponential_ {shape} {dtype}")


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("bounds", [(0.0, 1.0), (-3.0, 7.5), (-1 / math.sqrt(3), 1 / math.sqrt(3)), (5.0, 5.0),
                                    (-1e4, 1e4), (0.1, 0.2)])
@pytest.mark.parametrize("n", [0, 1, 17, 1000])
def test_uniform_bitwise(n, bounds, dtype):
    for seed in SEEDS[:3]:
        check_same_stream(lambda L: L.empty(n, dtype=getattr(L, dtype)).uniform_(*bounds), seed,
                          f"uniform_{bounds} {n} {dtype}")


RANDOM_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


@pytest.mark.parametrize("dtype", RANDOM_DTYPES)
def test_random_bitwise(dtype):
    big = dtype in ("int64", "float32", "float64", "bfloat16")
    calls = [lambda x: x.random_(), lambda x: x.random_(2), lambda x: x.random_(0, 2), lambda x: x.random_(1, None)]
    if dtype != "bool":
        calls += [lambda x: x.random_(100), lambda x: x.random_(3, 100)]
    if dtype not in ("bool", "uint8"):
        calls += [lambda x: x.random_(-50, 50), lambda x: x.random_(-100, None)]
    if big:
        calls += [lambda x: x.random_(0, 2**40), lambda x: x.random_(-2**63, None), lambda x: x.random_(2**32)]
    for k, call in enumerate(calls):
        for seed in SEEDS[:3]:
            over_layouts(call, (5, 7), dtype, seed, f"random_ call {k} {dtype}")
            check_same_stream(lambda L: call(L.empty(1000, dtype=getattr(L, dtype))), seed, f"random_ {k} {dtype}")


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("lambd", [1.0, 0.5, 3.0])
def test_exponential_bitwise(dtype, lambd):
    for seed in SEEDS[:3]:
        check_same_stream(lambda L: L.empty(1000, dtype=getattr(L, dtype)).exponential_(lambd), seed,
                          f"exponential_({lambd}) {dtype}")


def test_normal_cache_is_shared_between_calls():
    # Path B (fewer than 16 elements, or non-contiguous) keeps a Box-Muller value in the generator: a later small
    # call uses it, path-A calls leave it alone, and seeding clears it.
    def seq(L):
        out = [L.randn(3), L.randn(100), L.randn(1), L.randn(1), L.randn(5, dtype=L.float64)]
        out.append(L.empty(4, 5).t().normal_())
        out.append(L.randn(2, dtype=L.float16))
        out.append(L.rand(3))
        out.append(L.randn(1))
        return out
    for seed in SEEDS:
        check_same_stream(seq, seed, "normal cache sequence")
    # The cache is part of the state.
    ember.manual_seed(0)
    ember.randn(1)
    torch.manual_seed(0)
    torch.randn(1)
    assert_state_equal("cached normal in the state")


# ---------------------------------------------------------------------------------------------- normal tensor forms

@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("n", [1, 5, 16, 17, 40])
def test_normal_tensor_forms_bitwise(n, dtype):
    m, s = spaced(-2, 2, n, dtype), spaced(0, 3, n, dtype)

    def mean(L):
        return pair(L, m)

    def std(L):
        return pair(L, s)
    for seed in SEEDS[:3]:
        check_same_stream(lambda L: L.normal(mean(L), 0.5), seed, f"normal(Tensor, float) {n} {dtype}")
        check_same_stream(lambda L: L.normal(mean(L)), seed, f"normal(Tensor) {n} {dtype}")
        check_same_stream(lambda L: L.normal(1.5, std(L)), seed, f"normal(float, Tensor) {n} {dtype}")
        check_same_stream(lambda L: L.normal(mean(L), std(L)), seed, f"normal(Tensor, Tensor) {n} {dtype}")
        check_same_stream(lambda L: L.normal(mean(L).reshape(n, 1), std(L)), seed, f"normal broadcast {n} {dtype}")


# ---------------------------------------------------------------------------------------------- bernoulli

@pytest.mark.parametrize("p_dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("n", [0, 1, 17, 1000])
def test_bernoulli_tensor_p_bitwise(n, p_dtype):
    probs = spaced(0, 1, n, p_dtype)

    def p(L):
        return pair(L, probs)
    for seed in SEEDS[:3]:
        check_same_stream(lambda L: L.bernoulli(p(L)), seed, f"bernoulli(p) {n} {p_dtype}")
        check_same_stream(lambda L: p(L).bernoulli(), seed, f"p.bernoulli() {n} {p_dtype}")
        for out in ["float32", "float64", "int64", "bool", "uint8", "bfloat16"]:
            check_same_stream(lambda L: L.empty(n, dtype=getattr(L, out)).bernoulli_(p(L)), seed,
                              f"bernoulli_(p) {n} {p_dtype} into {out}")


def test_bernoulli_tensor_p_broadcast_and_layouts():
    for seed in SEEDS[:3]:
        check_same_stream(lambda L: L.zeros(4, 6).bernoulli_(pair(L, spaced(0, 1, 6, "float32"))), seed, "row")
        check_same_stream(lambda L: L.zeros(4, 6).bernoulli_(L.full((4, 1), 0.7, dtype=L.float64)), seed, "column")
        check_same_stream(lambda L: L.zeros(6, 4).t().bernoulli_(L.rand(4, 6)), seed, "transposed self")
        check_same_stream(lambda L: L.bernoulli(L.rand(6, 4).t()), seed, "transposed p")
        check_same_stream(lambda L: L.bernoulli(L.rand(5), generator=L.Generator().manual_seed(9)), seed, "gen")


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("p", [0.0, 0.3, 0.5, 1.0])
def test_bernoulli_scalar_p_bitwise(dtype, p):
    for seed in SEEDS[:3]:
        check_same_stream(lambda L: L.empty(100, dtype=getattr(L, dtype)).bernoulli_(p), seed, f"bernoulli_({p})")
        check_same_stream(lambda L: L.bernoulli(L.empty(3, 7, dtype=getattr(L, dtype)), p), seed, f"bernoulli(x, {p})")
        over_layouts(lambda x: x.bernoulli_(p), (3, 5), dtype, seed, f"bernoulli_({p}) {dtype}")
    check_same_stream(lambda L: L.empty(10, dtype=getattr(L, dtype)).bernoulli_(), 0, "bernoulli_() p=0.5")


def test_bernoulli_float16_is_sampled():
    # PyTorch 1.13 has no float16 Bernoulli on the CPU; Ember's draws as for the other dtypes.
    ember.manual_seed(4)
    h = ember.empty(1000, dtype=ember.float16).bernoulli_(0.25)
    ember.manual_seed(4)
    f = ember.empty(1000).bernoulli_(0.25)
    assert np.array_equal(to_numpy(h).astype(np.float32), to_numpy(f))
    p = ember.full((1000,), 0.25, dtype=ember.float16)
    ember.manual_seed(4)
    h = ember.bernoulli(p)
    ember.manual_seed(4)
    assert np.array_equal(to_numpy(h).astype(np.float32), to_numpy(ember.bernoulli(p.float())))


# ---------------------------------------------------------------------------------------------- dropout

@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("p", [0.0, 0.1, 0.5, 0.9, 1.0])
@pytest.mark.parametrize("shape", [(0,), (1,), (16,), (17,), (8, 13)])
def test_dropout_bitwise(shape, p, dtype):
    values = spaced(-3, 3, int(np.prod(shape)), dtype).reshape(shape)

    def x(L):
        return pair(L, values)
    for seed in SEEDS[:2]:
        check_same_stream(lambda L: L.dropout(x(L), p, True), seed, f"dropout {shape} {p} {dtype}")
        check_same_stream(lambda L: L.dropout(x(L), p, False), seed, f"dropout eval {shape} {p} {dtype}")
        check_same_stream(lambda L: L.dropout_(x(L), p, True), seed, f"dropout_ {shape} {p} {dtype}")
        check_same_stream(lambda L: L.dropout(x(L).t() if len(shape) == 2 else x(L), p, True), seed,
                          f"dropout transposed {shape} {p} {dtype}")


def test_dropout_semantics():
    x = ember.ones(1000)
    ember.manual_seed(0)
    y = ember.dropout(x, 0.25, True)
    kept = to_numpy(y) != 0
    assert np.all(to_numpy(y)[kept] == np.float32(1) / np.float32(0.75))  # scaled by 1/(1-p)
    assert 650 < kept.sum() < 850
    assert ember.dropout(x, 0.5, False) is x  # eval mode: the input itself, no draws
    z = ember.ones(5)
    assert ember.dropout_(z, 1.0, True) is z and to_numpy(z).tolist() == [0.0] * 5
    n = ember.tensor([float("nan"), 1.0])
    assert np.isnan(to_numpy(ember.dropout(n, 1.0, True))[0])  # NaN * 0, as PyTorch


# ---------------------------------------------------------------------------------------------- *_like

@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced", "permuted3d", "stepped_transposed"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_like_bitwise(layout, dtype):
    def base(L):
        if layout == "stepped_transposed":  # neither dense nor row-major: PyTorch keeps the dim order
            return L.empty(5, 12, dtype=getattr(L, dtype)).t()[::2]
        return dict(layouts((6, 5), dtype, L))[layout]
    for seed in SEEDS[:3]:
        check_same_stream(lambda L: L.rand_like(base(L)), seed, f"rand_like {layout}")
        check_same_stream(lambda L: L.randn_like(base(L)), seed, f"randn_like {layout}")
        check_same_stream(lambda L: L.randn_like(base(L), dtype=L.float64), seed, f"randn_like dtype {layout}")
        check_same_stream(lambda L: L.randn_like(base(L), memory_format=L.contiguous_format), seed,
                          f"randn_like contiguous_format {layout}")
    e, t = ember.randn_like(base(ember)), torch.randn_like(base(torch))
    assert e.stride() == t.stride()


# ---------------------------------------------------------------------------------------------- generators

def test_generator_objects_match_torch():
    for seed in SEEDS + [-1, 2**64 - 1, 2**63]:
        eg, tg = ember.Generator().manual_seed(seed), torch.Generator().manual_seed(seed)
        assert eg.initial_seed() == tg.initial_seed()
        assert_bits(ember.randn(37, generator=eg), torch.randn(37, generator=tg), f"randn gen {seed}")
        assert_bits(ember.rand(3, 4, generator=eg, dtype=ember.float64),
                    torch.rand(3, 4, generator=tg, dtype=torch.float64), f"rand gen {seed}")
        assert_bits(ember.randint(3, 9, (20,), generator=eg), torch.randint(3, 9, (20,), generator=tg), "randint")
        assert_bits(ember.randint(9, (20,), generator=eg), torch.randint(9, (20,), generator=tg), "randint high")
        assert_bits(ember.randperm(50, generator=eg), torch.randperm(50, generator=tg), "randperm")
        assert_bits(ember.normal(1.0, 2.0, (5,), generator=eg), torch.normal(1.0, 2.0, (5,), generator=tg), "normal")
        assert_bits(ember.empty(9).uniform_(-1, 1, generator=eg), torch.empty(9).uniform_(-1, 1, generator=tg), "u")
        assert_bits(ember.empty(9).normal_(generator=eg), torch.empty(9).normal_(generator=tg), "normal_")
        assert_bits(ember.empty(9, dtype=ember.int64).random_(generator=eg),
                    torch.empty(9, dtype=torch.int64).random_(generator=tg), "random_")
        assert_bits(ember.bernoulli(ember.full((9,), 0.5), generator=eg),
                    torch.bernoulli(torch.full((9,), 0.5), generator=tg), "bernoulli")
        assert_bits(ember.normal(ember.zeros(4), 1.0, generator=eg), torch.normal(torch.zeros(4), 1.0, generator=tg),
                    "normal tensor")
        assert bytes(to_numpy(eg.get_state())) == bytes(tg.get_state().numpy())


def test_generators_are_independent_of_the_default():
    ember.manual_seed(5)
    a = ember.rand(10)
    ember.manual_seed(5)
    g = ember.Generator()
    ember.rand(7, generator=g)  # draws from g only
    assert to_numpy(ember.rand(10)).tobytes() == to_numpy(a).tobytes()
    # Unseeded generators all start with PyTorch's seed 67280421310721.
    assert ember.Generator().initial_seed() == torch.Generator().initial_seed() == 67280421310721
    assert_bits(ember.rand(5, generator=ember.Generator()), torch.rand(5, generator=torch.Generator()), "fresh gen")
    assert ember.Generator(device="cpu").device == ember.device("cpu")
    assert ember.manual_seed(3) is ember.default_generator
    assert ember.random.default_generator is ember.default_generator


def test_seed_and_initial_seed():
    s = ember.seed()
    assert isinstance(s, int) and 0 <= s < 2**64
    assert ember.initial_seed() == s
    assert ember.seed() != s
    ember.manual_seed(-1)
    assert ember.initial_seed() == 2**64 - 1
    ember.manual_seed(1.7)  # int(seed), as torch.manual_seed
    assert ember.initial_seed() == 1
    ember.manual_seed(2**32 + 5)
    a = ember.rand(4)
    ember.manual_seed(5)
    assert to_numpy(ember.rand(4)).tobytes() == to_numpy(a).tobytes()  # only the low 32 bits seed the engine


def test_state_round_trips():
    for seed in SEEDS:
        ember.manual_seed(seed)
        ember.randn(3)  # leaves a cached normal
        state = ember.get_rng_state()
        assert state.dtype == ember.uint8 and tuple(state.shape) == (5056,)
        a = [ember.randn(5), ember.rand(20), ember.randperm(30)]
        ember.set_rng_state(state)
        b = [ember.randn(5), ember.rand(20), ember.randperm(30)]
        for x, y in zip(a, b):
            assert to_numpy(x).tobytes() == to_numpy(y).tobytes()
        g = ember.Generator().set_state(state)
        assert g.initial_seed() == seed
        assert to_numpy(ember.randn(5, generator=g)).tobytes() == to_numpy(a[0]).tobytes()


def test_states_move_between_ember_and_torch():
    torch.manual_seed(77)
    torch.randn(5)  # cached normal and a partly used block
    torch.rand(1000)
    ember.set_rng_state(to_ember_bytes(torch.get_rng_state()))
    assert_bits(ember.randn(7), torch.randn(7), "after torch's state")
    assert_bits(ember.randn(40), torch.randn(40), "after torch's state")
    ember.manual_seed(78)
    ember.randn(1)
    torch.set_rng_state(to_torch(ember.get_rng_state()))
    assert_bits(ember.randn(3), torch.randn(3), "after ember's state")
    assert_state_equal()


def to_ember_bytes(t):
    return ember.from_numpy(t.numpy().copy())


def test_fork_rng_restores_the_state():
    ember.manual_seed(8)
    with ember.random.fork_rng():
        ember.rand(100)
    a = ember.rand(3)
    ember.manual_seed(8)
    assert to_numpy(ember.rand(3)).tobytes() == to_numpy(a).tobytes()


def test_generator_errors_as_torch():
    assert_raises_like(lambda: ember.Generator().manual_seed(1.5), lambda: torch.Generator().manual_seed(1.5))
    assert_raises_like(lambda: ember.Generator().manual_seed(True), lambda: torch.Generator().manual_seed(True))
    assert_raises_like(lambda: ember.Generator().manual_seed(2**64), lambda: torch.Generator().manual_seed(2**64))
    assert_raises_like(lambda: ember.Generator().manual_seed(-2**63 - 1),
                       lambda: torch.Generator().manual_seed(-2**63 - 1))
    assert_raises_like(lambda: ember.manual_seed("a"), lambda: torch.manual_seed("a"))
    assert_raises_like(lambda: ember.set_rng_state(ember.zeros(5056)), lambda: torch.set_rng_state(torch.zeros(5056)))
    assert_raises_like(lambda: ember.set_rng_state([1, 2]), lambda: torch.set_rng_state([1, 2]))
    for n in [5055, 5057, 0]:
        assert_raises_like(lambda: ember.set_rng_state(ember.zeros(n, dtype=ember.uint8)),
                           lambda: torch.set_rng_state(torch.zeros(n, dtype=torch.uint8)))
    assert_raises_like(lambda: ember.set_rng_state(ember.zeros(5056, dtype=ember.uint8)),
                       lambda: torch.set_rng_state(torch.zeros(5056, dtype=torch.uint8)))
    assert_raises_like(lambda: ember.Generator(device="cuda"), lambda: torch.Generator(device="cuda"))
    assert_raises_like(lambda: ember.rand(3, generator=5), lambda: torch.rand(3, generator=5))
    # A failed set_state leaves the generator as it was.
    ember.manual_seed(3)
    before = bytes(to_numpy(ember.get_rng_state()))
    with pytest.raises(RuntimeError):
        ember.set_rng_state(ember.zeros(5056, dtype=ember.uint8))
    assert bytes(to_numpy(ember.get_rng_state())) == before


def test_threads_share_a_generator_without_losing_draws():
    # Each call holds the generator for all of its draws: from several threads, the results are the chunks of
    # one stream in some order.
    g = ember.Generator().manual_seed(12)
    results = []
    lock = threading.Lock()

    def work():
        for _ in range(20):
            r = to_numpy(ember.rand(500, generator=g))
            with lock:
                results.append(r.tobytes())
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    tg = torch.Generator().manual_seed(12)
    expected = [torch.rand(500, generator=tg).numpy().tobytes() for _ in range(80)]
    assert sorted(results) == sorted(expected)


# ---------------------------------------------------------------------------------------------- errors

ERROR_CASES = {
    "randint low == high": lambda L: L.randint(5, 5, (3,)),
    "randint low > high": lambda L: L.randint(6, 5, (3,)),
    "randint high == 0": lambda L: L.randint(0, (3,)),
    "randint high < 0": lambda L: L.randint(-1, (3,)),
    "randint beyond uint8": lambda L: L.randint(0, 300, (3,), dtype=L.uint8),
    "randint beyond bool": lambda L: L.randint(0, 3, (3,), dtype=L.bool),
    "randint negative size": lambda L: L.randint(0, 3, (-1,)),
    "randperm negative": lambda L: L.randperm(-1),
    "randperm beyond uint8": lambda L: L.randperm(300, dtype=L.uint8),
    "randperm beyond int8": lambda L: L.randperm(129, dtype=L.int8),
    "randperm beyond float16": lambda L: L.randperm(2050, dtype=L.float16),
    "randperm bool": lambda L: L.randperm(3, dtype=L.bool),
    "bernoulli p tensor > 1": lambda L: L.bernoulli(L.full((3,), 1.5)),
    "bernoulli p tensor < 0": lambda L: L.bernoulli(L.full((3,), -0.5)),
    "bernoulli p tensor NaN": lambda L: L.bernoulli(L.full((3,), float("nan"))),
    "bernoulli p float > 1": lambda L: L.bernoulli(L.full((3,), 0.5), 1.5),
    "bernoulli p float < 0": lambda L: L.bernoulli(L.full((3,), 0.5), -1.0),
    "bernoulli_ p float > 1": lambda L: L.empty(3).bernoulli_(1.5),
    "bernoulli_ p float NaN": lambda L: L.empty(3).bernoulli_(float("nan")),
    "bernoulli_ p tensor > 1": lambda L: L.empty(3).bernoulli_(L.full((3,), 1.5)),
    "bernoulli integer p": lambda L: L.bernoulli(L.full((3,), 1)),
    "bernoulli_ p not broadcastable": lambda L: L.empty(3).bernoulli_(L.full((4,), 0.5)),
    "dropout p > 1": lambda L: L.dropout(L.ones(3), 1.5, True),
    "dropout p < 0": lambda L: L.dropout(L.ones(3), -0.5, True),
    "dropout p NaN": lambda L: L.dropout(L.ones(3), float("nan"), True),
    "dropout p > 1 eval": lambda L: L.dropout(L.ones(3), 1.5, False),
    "dropout_ p > 1": lambda L: L.dropout_(L.ones(3), 1.5, True),
    "dropout integer input": lambda L: L.dropout(L.ones(3, dtype=L.int64), 0.5, True),
    "rand integer dtype": lambda L: L.rand(3, dtype=L.int64),
    "rand bool dtype": lambda L: L.rand(3, dtype=L.bool),
    "randn integer dtype": lambda L: L.randn(3, dtype=L.int64),
    "uniform_ from > to": lambda L: L.empty(3).uniform_(2, 1),
    "uniform_ from -inf": lambda L: L.empty(3).uniform_(float("-inf"), 1),
    "uniform_ to NaN": lambda L: L.empty(3).uniform_(0, float("nan")),
    "uniform_ range too wide": lambda L: L.empty(3).uniform_(-3e38, 3e38),
    "uniform_ beyond float16": lambda L: L.empty(3, dtype=L.float16).uniform_(0, 1e5),
    "uniform_ integer": lambda L: L.empty(3, dtype=L.int64).uniform_(),
    "normal_ std < 0": lambda L: L.empty(3).normal_(0, -1),
    "normal std < 0": lambda L: L.normal(0.0, -1.0, (3,)),
    "normal Tensor, std < 0": lambda L: L.normal(L.zeros(3), -1.0),
    "normal float, Tensor std < 0": lambda L: L.normal(0.0, L.full((3,), -1.0)),
    "normal Tensor, Tensor std < 0": lambda L: L.normal(L.zeros(3), L.full((3,), -1.0)),
    "normal shapes mismatch": lambda L: L.normal(L.zeros(3), L.ones(4)),
    "normal integer mean": lambda L: L.normal(L.zeros(3, dtype=L.int64), 1.0),
    "normal_ integer": lambda L: L.empty(3, dtype=L.int64).normal_(),
    "random_ from >= to": lambda L: L.empty(3, dtype=L.int64).random_(5, 3),
    "random_ to beyond uint8": lambda L: L.empty(3, dtype=L.uint8).random_(0, 300),
    "random_ from beyond uint8": lambda L: L.empty(3, dtype=L.uint8).random_(-1, 3),
    "random_ beyond float16": lambda L: L.empty(3, dtype=L.float16).random_(0, 70000),
    "random_ beyond bool": lambda L: L.empty(3, dtype=L.bool).random_(0, 3),
    "random_ full range int32": lambda L: L.empty(3, dtype=L.int32).random_(-2**63, None),
    "exponential_ lambda < 0": lambda L: L.empty(3).exponential_(-1),
    "exponential_ integer": lambda L: L.empty(3, dtype=L.int64).exponential_(),
    "in-place on an expanded tensor": lambda L: L.zeros(1).expand(4).uniform_(),
    "rand_like integer": lambda L: L.rand_like(L.zeros(3, dtype=L.int64)),
}


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_errors_as_torch(case):
    fn = ERROR_CASES[case]
    assert_raises_like(lambda: fn(ember), lambda: fn(torch))


def test_error_messages_name_the_op_and_values():
    with pytest.raises(RuntimeError, match=r"from=5 >= to=5"):
        ember.randint(5, 5, (3,))
    with pytest.raises(RuntimeError, match=r"negative dimension -1"):
        ember.randperm(-1)
    with pytest.raises(RuntimeError, match=r"p to be in \[0, 1\], but got p=1.5"):
        ember.empty(3).bernoulli_(1.5)
    with pytest.raises(RuntimeError, match=r"^dropout: dropout probability has to be between 0 and 1, but got 1.5"):
        ember.dropout(ember.ones(3), 1.5, True)


# ---------------------------------------------------------------------------------------------- statistics

def test_statistics_sanity():
    # Beyond bit-exactness: the distributions are the right ones.
    ember.manual_seed(123)
    x = to_numpy(ember.randn(200000)).astype(np.float64)
    assert abs(x.mean()) < 0.01 and abs(x.std() - 1) < 0.01
    u = to_numpy(ember.rand(200000)).astype(np.float64)
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.005
    r = to_numpy(ember.randint(0, 10, (100000,)))
    assert np.all(np.bincount(r, minlength=10) > 9500)
    p = to_numpy(ember.randperm(1000))
    assert sorted(p.tolist()) == list(range(1000))
    e = to_numpy(ember.empty(100000, dtype=ember.float64).exponential_(2.0))
    assert abs(e.mean() - 0.5) < 0.01
    b = to_numpy(ember.empty(100000).bernoulli_(0.3))
    assert abs(b.mean() - 0.3) < 0.01
    h = to_numpy(ember.randn(100000, dtype=ember.float16)).astype(np.float64)
    assert abs(h.mean()) < 0.02 and abs(h.std() - 1) < 0.02


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "uint8"])
@pytest.mark.parametrize("shape", [(0,), (), (7,), (3, 5)], ids=str)
def test_randint_like_bitwise(dtype, shape):
    # randint_like(x, high) and randint_like(x, low, high): x's size and dtype, PyTorch's draws (as random_).
    def make(L, *bounds, **kw):
        x = L.zeros(shape, dtype=getattr(L, dtype))
        return L.randint_like(x, *bounds, **kw)
    for seed in SEEDS[:2]:
        check_same_stream(lambda L: make(L, 10), seed, f"randint_like(10) {dtype}")
        check_same_stream(lambda L: make(L, 3, 100), seed, f"randint_like(3, 100) {dtype}")
    check_same_stream(lambda L: make(L, 2, 9, dtype=L.float64), 3, "randint_like dtype=")


def test_randint_like_strides_and_errors():
    x = ember.zeros(3, 4).t()
    ember.manual_seed(0)
    r = ember.randint_like(x, 5)
    assert r.stride() == x.stride() and r.dtype == ember.float32
    assert ((r >= 0) & (r < 5)).all().item()
    for args in [(0,), (5, 5), (7, 2)]:
        assert_raises_like(lambda: ember.randint_like(ember.zeros(3), *args),
                           lambda: torch.randint_like(torch.zeros(3), *args))
    assert_raises_like(lambda: ember.randint_like(ember.zeros(3, dtype=ember.uint8), 300),
                       lambda: torch.randint_like(torch.zeros(3, dtype=torch.uint8), 300))


# ---------------------------------------------------------------------------------------------- samplers of issue 19
# multinomial, poisson, binomial, cauchy_, geometric_, log_normal_: bit for bit with PyTorch for several seeds,
# shapes (empty too), dtypes and layouts, and the generator left in PyTorch's state.

def weights(shape, dtype="float32", seed=0, zeros=False):
    """Non-negative weights of the given shape as an ember tensor (some exact zeros when zeros)."""
    rng = np.random.default_rng(seed)
    w = rng.random(shape)
    if zeros:
        w[rng.random(shape) < 0.3] = 0.0
        w.reshape(-1, shape[-1])[:, 0] = 0.5  # no row sums to 0
    return from_array(w.astype(np.float32 if dtype == "bfloat16" else dtype), dtype)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("shape,k,replacement", [((4,), 2, False), ((4,), 4, False), ((4,), 1, False),
                                                 ((4,), 6, True), ((4,), 1, True), ((3, 7), 3, False),
                                                 ((3, 7), 1, False), ((3, 7), 20, True), ((0, 5), 2, False),
                                                 ((0, 5), 3, True), ((1000,), 5, False), ((50, 40), 40, False),
                                                 ((20, 300), 64, True)], ids=str)
def test_multinomial_bitwise(seed, dtype, shape, k, replacement):
    w = weights(shape, dtype, seed=seed % 97)
    check_same_stream(lambda L: L.multinomial(pair(L, w), k, replacement), seed, f"multinomial{shape, k}")


@pytest.mark.parametrize("replacement", [False, True])
def test_multinomial_forms(replacement):
    w = weights((6, 9), zeros=True)
    for seed in SEEDS[:3]:
        check_same_stream(lambda L: pair(L, w).multinomial(4, replacement), seed, "method")
        check_same_stream(lambda L: L.multinomial(pair(L, w).t().contiguous().t(), 3, replacement), seed, "T")
        check_same_stream(lambda L: L.multinomial(pair(L, w)[:, ::2], 3, replacement), seed, "strided")
        check_same_stream(lambda L: L.multinomial(pair(L, w)[1], 3, replacement), seed, "row")
    for seed in SEEDS[:2]:
        e = ember.multinomial(weights((5,)), 3, replacement, generator=ember.Generator().manual_seed(seed))
        t = torch.multinomial(to_torch(weights((5,))), 3, replacement, generator=torch.Generator().manual_seed(seed))
        assert_bits(e, t, "generator=")
        for L in (ember, torch):
            L.manual_seed(seed)
        out_e, out_t = ember.empty(7, dtype=ember.int64), torch.empty(7, dtype=torch.int64)
        ember.multinomial(weights((5,)), 3, replacement, out=out_e)
        torch.multinomial(to_torch(weights((5,))), 3, replacement, out=out_t)
        assert_bits(out_e, out_t, "out=")


MULTINOMIAL_ERRORS = {
    "zero samples": lambda L: L.multinomial(L.ones(4), 0),
    "negative samples": lambda L: L.multinomial(L.ones(4), -1, True),
    "too many": lambda L: L.multinomial(L.ones(4), 5),
    "3-d": lambda L: L.multinomial(L.ones(2, 3, 4), 1),
    "0-d": lambda L: L.multinomial(L.ones(()), 1),
    "int64": lambda L: L.multinomial(L.ones(4, dtype=L.int64), 1),
    "negative": lambda L: L.multinomial(L.tensor([1.0, -1.0]), 1),
    "negative replacement": lambda L: L.multinomial(L.tensor([1.0, -1.0]), 1, True),
    "inf": lambda L: L.multinomial(L.tensor([1.0, math.inf]), 1),
    "inf replacement": lambda L: L.multinomial(L.tensor([1.0, math.inf]), 2, True),
    "nan": lambda L: L.multinomial(L.tensor([1.0, math.nan]), 1),
    "nan replacement": lambda L: L.multinomial(L.tensor([1.0, math.nan]), 1, True),
    "zero row": lambda L: L.multinomial(L.tensor([[1.0, 1.0], [0.0, 0.0]]), 1),
    "zero row replacement": lambda L: L.multinomial(L.tensor([[1.0, 1.0], [0.0, 0.0]]), 1, True),
    "no categories": lambda L: L.multinomial(L.ones(3, 0), 2, True),
    "out dtype": lambda L: L.multinomial(L.ones(4), 2, out=L.empty(2)),
}


@pytest.mark.parametrize("case", sorted(MULTINOMIAL_ERRORS))
def test_multinomial_errors(case):
    assert_raises_like(lambda: MULTINOMIAL_ERRORS[case](ember), lambda: MULTINOMIAL_ERRORS[case](torch))


def test_multinomial_statistics():
    ember.manual_seed(0)
    p = ember.tensor([0.1, 0.2, 0.3, 0.4], dtype=ember.float64)
    counts = ember.bincount(ember.multinomial(p, 40000, True), minlength=4).double() / 40000
    assert float((counts - p).abs().max()) < 0.01


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_poisson_bitwise(seed, dtype):
    rates = [0.0, 0.01, 0.5, 1.0, 3.0, 9.9, 10.0, 10.5, 25.0, 100.0, 1234.5, 1e5]
    for r in rates:
        lam = from_array(np.full((7,), r, np.float32 if dtype == "bfloat16" else dtype), dtype)
        check_same_stream(lambda L: L.poisson(pair(L, lam)), seed, f"poisson({r})")
    mixed = spaced(0, 60, 200, dtype)
    check_same_stream(lambda L: L.poisson(pair(L, mixed).reshape(10, 20).t()), seed, "poisson transposed")
    check_same_stream(lambda L: L.poisson(pair(L, mixed)[:0]), seed, "poisson empty")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binomial_bitwise(seed, dtype):
    counts = [0.0, 1.0, 5.0, 19.0, 20.0, 21.0, 100.0, 1000.0, 12345.0, 1e6]
    probs = [0.0, 0.001, 0.05, 0.3, 0.5, 0.5001, 0.7, 0.95, 1.0]
    c, p = np.meshgrid(np.array(counts), np.array(probs))
    cnt, prb = from_array(c.astype(dtype), dtype), from_array(p.astype(dtype), dtype)
    check_same_stream(lambda L: L.binomial(pair(L, cnt), pair(L, prb)), seed, "binomial grid")
    check_same_stream(lambda L: L.binomial(pair(L, cnt).t(), pair(L, prb).t()), seed, "binomial transposed")
    check_same_stream(lambda L: L.binomial(pair(L, cnt)[:, :1], pair(L, prb)[:1]), seed, "binomial broadcast")
    check_same_stream(lambda L: L.binomial(pair(L, cnt)[:0], pair(L, prb)[:0]), seed, "binomial empty")


def test_poisson_binomial_generator_and_grad():
    lam = spaced(0, 30, 12, "float32")
    e = ember.poisson(lam, ember.Generator().manual_seed(5))
    t = torch.poisson(to_torch(lam), torch.Generator().manual_seed(5))
    assert_bits(e, t, "poisson generator")
    e = ember.binomial(lam, lam / 40, ember.Generator().manual_seed(5))
    t = torch.binomial(to_torch(lam), to_torch(lam) / 40, torch.Generator().manual_seed(5))
    assert_bits(e, t, "binomial generator")
    x = ember.ones(3, dtype=ember.float64, requires_grad=True)
    ember.poisson(x * 4).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [0, 1, 7, 40])
def test_elementwise_distributions_bitwise(seed, dtype, n):
    x = ember.zeros(n, dtype=getattr(ember, dtype))
    check_same_stream(lambda L: pair(L, x).cauchy_(), seed, "cauchy_")
    check_same_stream(lambda L: pair(L, x).cauchy_(-2.0, 0.5), seed, "cauchy_(m, s)")
    check_same_stream(lambda L: pair(L, x).geometric_(0.3), seed, "geometric_")
    check_same_stream(lambda L: pair(L, x).geometric_(0.001), seed, "geometric_ small p")
    check_same_stream(lambda L: pair(L, x).log_normal_(), seed, "log_normal_")
    check_same_stream(lambda L: pair(L, x).log_normal_(0.5, 0.25), seed, "log_normal_(m, s)")


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8"])
def test_geometric_integral_bitwise(dtype):
    x = ember.zeros(50, dtype=getattr(ember, dtype))
    for seed in SEEDS:
        check_same_stream(lambda L: pair(L, x).geometric_(0.2), seed, f"geometric_ {dtype}")


def test_log_normal_shares_the_normal_cache():
    # randn(3) leaves a cached normal; log_normal_ of 3 elements uses it first, then one pair (caching again).
    def fn(L):
        return L.randn(3), L.empty(3).log_normal_(0.0, 1.0), L.randn(1)

    for seed in SEEDS:
        check_same_stream(fn, seed, "cache")


def test_distribution_layouts_bitwise():
    base = ember.zeros(6, 5)
    for seed in SEEDS[:3]:
        check_same_stream(lambda L: pair(L, base).t().cauchy_(), seed, "cauchy_ T")
        check_same_stream(lambda L: pair(L, base)[:, ::2].geometric_(0.4), seed, "geometric_ strided")
        check_same_stream(lambda L: pair(L, base).t().log_normal_(), seed, "log_normal_ T")


SAMPLER_ERRORS = {
    "geometric p=0": lambda L: L.ones(3).geometric_(0),
    "geometric p=1": lambda L: L.ones(3).geometric_(1),
    "geometric bool": lambda L: L.ones(3, dtype=L.bool).geometric_(0.5),
    "log_normal std=0": lambda L: L.ones(3).log_normal_(0, 0),
    "log_normal int": lambda L: L.ones(3, dtype=L.int64).log_normal_(),
    "cauchy int": lambda L: L.ones(3, dtype=L.int64).cauchy_(),
    "poisson negative": lambda L: L.poisson(L.tensor([1.0, -1.0])),
    "poisson nan": lambda L: L.poisson(L.tensor([math.nan])),
    "poisson int64": lambda L: L.poisson(L.ones(2, dtype=L.int64)),
    "binomial dtypes": lambda L: L.binomial(L.ones(3), L.ones(3, dtype=L.float64)),
    "binomial shapes": lambda L: L.binomial(L.ones(3), L.ones(2)),
}


@pytest.mark.parametrize("case", sorted(SAMPLER_ERRORS))
def test_sampler_errors(case):
    assert_raises_like(lambda: SAMPLER_ERRORS[case](ember), lambda: SAMPLER_ERRORS[case](torch))


def test_binomial_nan_gives_nan():
    # PyTorch 1.13 loops forever on a NaN count; Ember returns NaN for a NaN count or probability.
    r = ember.binomial(ember.tensor([math.nan, 5.0]), ember.tensor([0.5, math.nan]))
    assert all(math.isnan(v) for v in r.tolist())


def test_16_bit_types_pytorch_lacks_sample_as_float32():
    # PyTorch 1.13 has no float16 multinomial or poisson and no 16-bit binomial: Ember draws as for float32.
    w = weights((3, 6))
    for seed in SEEDS[:3]:
        for replacement in (False, True):
            e, t = both(lambda L: L.multinomial(pair(L, w).half() if L is ember else to_torch(w), 4, replacement),
                        seed)
            assert_bits(e, t, "multinomial float16")
        rates = spaced(0, 40, 30, "float32")
        e, t = both(lambda L: L.poisson(pair(L, rates).half()) if L is ember else L.poisson(pair(L, rates)).half(),
                    seed)
        assert_bits(e, t, "poisson float16")
        n, p = spaced(0, 100, 20, "float32").round(), spaced(0, 1, 20, "float32")
        for dt in ("float16", "bfloat16"):
            e, t = both(lambda L: L.binomial(pair(L, n).to(getattr(L, dt)), pair(L, p).to(getattr(L, dt)))
                        if L is ember else L.binomial(pair(L, n).to(getattr(L, dt)).float(),
                                                      pair(L, p).to(getattr(L, dt)).float()).to(getattr(L, dt)), seed)
            assert_bits(e, t, f"binomial {dt}")
