"""ember.distributed against PyTorch 1.13's torch.distributed (Gloo): the same collectives on the same inputs in
groups of 2-4 processes on the loopback interface (tests/python/dist_workers.py is one rank), what Ember adds
(AVG, reduce_scatter, all_gather_into_tensor, more dtypes, object collectives) against values computed here, and
the errors: before init_process_group, bad init methods, mismatched sizes, a rank that exits, a wrong world size,
a port in use. Every process group run is bounded in time: a hang fails the test, it does not stall the suite."""
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from datetime import timedelta

import numpy as np
import pytest

import ember
import torch

dist = ember.distributed
HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "dist_workers.py")
PYTHON_DIR = os.environ.get("EMBER_PYTHON_DIR") or os.path.abspath(os.path.join(HERE, "..", "..", "python"))
RUN_TIMEOUT = 120  # seconds for a whole group run


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_group(scenario, world, framework="ember", init="file", timeout=60, rank_args=None, env_extra=None):
    """Runs `scenario` in `world` processes; returns per rank ("ok", data) or ("error", type, message). Fails the
    test when the group does not end within RUN_TIMEOUT seconds (the processes are killed)."""
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        init_method = {"file": f"file://{tmp}/store", "tcp": f"tcp://127.0.0.1:{port}", "env": "env://"}[init]
        env = dict(os.environ, PYTHONPATH=PYTHON_DIR, OMP_NUM_THREADS="1", MASTER_ADDR="127.0.0.1",
                   MASTER_PORT=str(port))
        env.update(env_extra or {})
        procs = []
        for r in range(world):
            args = [sys.executable, WORKER, "--framework", framework, "--scenario", scenario, "--rank", str(r),
                    "--world-size", str(world), "--init-method", init_method, "--timeout", str(timeout)]
            args += (rank_args or {}).get(r, [])
            procs.append(subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                          cwd=tmp))
        deadline = time.monotonic() + RUN_TIMEOUT
        results = []
        try:
            for r, p in enumerate(procs):
                try:
                    stdout, stderr = p.communicate(timeout=max(1.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    pytest.fail(f"{framework} {scenario}: rank {r} did not finish within {RUN_TIMEOUT} s")
                results.append(parse(stdout, stderr, r))
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()
        return results


def parse(stdout, stderr, rank):
    for line in stdout.splitlines():
        if line.startswith("RESULT "):
            return ("ok", json.loads(line[len("RESULT "):]))
        if line.startswith("ERROR "):
            kind, _, msg = line[len("ERROR "):].partition(": ")
            return ("error", kind, msg)
    return ("crash", stdout + stderr)


def ok(results):
    for r, res in enumerate(results):
        assert res[0] == "ok", f"rank {r}: {res}"
    return [res[1] for res in results]


def tensor_values(d):
    return np.array(d["values"], dtype=np.float64).reshape(d["shape"])


# ---- the collectives PyTorch's Gloo group has: same inputs, same outputs

@pytest.mark.parametrize("world", [3])  # PyTorch's processes start slowly; world 4 is checked below
def test_collectives_match_pytorch(world):
    ours = ok(run_group("common", world, "ember"))
    theirs = ok(run_group("common", world, "torch"))
    for r in range(world):
        assert set(ours[r]) == set(theirs[r])
        for key in theirs[r]:
            assert ours[r][key] == theirs[r][key], f"rank {r}: {key}"


def test_collectives_expected_values():
    world = 4
    res = ok(run_group("common", world, "ember", init="tcp"))
    base = np.arange(6, dtype=np.float64)
    inputs = [base + 1 + r * 10 for r in range(world)]
    for r in range(world):
        got = res[r]
        assert got["rank"] == r and got["world"] == world and got["backend"] == "gloo"
        np.testing.assert_array_equal(tensor_values(got["all_reduce-float64-SUM"]), sum(inputs))
        np.testing.assert_array_equal(tensor_values(got["all_reduce-int64-MAX"]), inputs[-1])
        np.testing.assert_array_equal(tensor_values(got["all_reduce-float32-MIN"]), inputs[0])
        np.testing.assert_array_equal(tensor_values(got["all_reduce-uint8-PRODUCT"]), np.full(6, 24.0))
        for root in range(world):
            np.testing.assert_array_equal(tensor_values(got[f"broadcast-{root}"]), inputs[root])
        np.testing.assert_array_equal(tensor_values(got[f"reduce-{r}"]), sum(inputs))
        for q in range(world):
            np.testing.assert_array_equal(tensor_values(got["all_gather"][q]), inputs[q].reshape(2, 3))
        np.testing.assert_array_equal(tensor_values(got["scatter"]), base + 100 + r * 10)
        np.testing.assert_array_equal(tensor_values(got["send_recv"]), inputs[(r - 1) % world])
        np.testing.assert_array_equal(tensor_values(got["isend_irecv"]), inputs[(r - 1) % world])
        np.testing.assert_array_equal(tensor_values(got["batch_isend_irecv"]), inputs[(r - 1) % world])
        np.testing.assert_array_equal(tensor_values(got["all_reduce_transposed"]), sum(inputs).reshape(2, 3).T)
        assert got["async_completed"] is True
    for q in range(world):
        np.testing.assert_array_equal(tensor_values(res[0]["gather"][q]), inputs[q])


# ---- what Ember adds: AVG, reduce_scatter, all_gather_into_tensor, more dtypes, objects, subgroups

def test_extended_collectives():
    world = 3
    res = ok(run_group("extended", world, "ember"))
    base = np.arange(6, dtype=np.float64)
    inputs = [base + 1 + r * 10 for r in range(world)]
    for r in range(world):
        got = res[r]
        for dt in ["float32", "float64", "float16", "bfloat16"]:
            assert got[f"avg-{dt}"]["dtype"] == dt
            np.testing.assert_allclose(tensor_values(got[f"avg-{dt}"]), sum(inputs) / world, rtol=1e-2)
        for dt in ["int16", "float16", "bfloat16"]:
            np.testing.assert_array_equal(tensor_values(got[f"all_reduce-{dt}-SUM"]), sum(inputs))
            np.testing.assert_array_equal(tensor_values(got[f"all_reduce-{dt}-MIN"]), inputs[0])
            np.testing.assert_array_equal(tensor_values(got[f"all_reduce-{dt}-MAX"]), inputs[-1])
        bools = [np.array([1, 0, q == 0, 1], dtype=bool) for q in range(world)]
        expect = {"SUM": np.logical_or.reduce(bools), "MAX": np.logical_or.reduce(bools),
                  "BOR": np.logical_or.reduce(bools), "PRODUCT": np.logical_and.reduce(bools),
                  "MIN": np.logical_and.reduce(bools), "BAND": np.logical_and.reduce(bools),
                  "BXOR": np.logical_xor.reduce(bools)}
        for op, e in expect.items():
            assert got[f"all_reduce-bool-{op}"]["dtype"] == "bool"
            np.testing.assert_array_equal(tensor_values(got[f"all_reduce-bool-{op}"]), e.astype(np.float64))
        ints = [np.array([q + 1, 6, 12]) for q in range(world)]
        for op, fn in [("BAND", np.bitwise_and), ("BOR", np.bitwise_or), ("BXOR", np.bitwise_xor)]:
            np.testing.assert_array_equal(tensor_values(got[f"all_reduce-int32-{op}"]), fn.reduce(ints))
        np.testing.assert_array_equal(np.array(got["all_reduce-complex64"]["values"]),
                                      np.stack([sum(inputs), np.full(6, world)], axis=1))
        # reduce_scatter: rank r gets sum over q of (r + q * 10 + arange(3))
        np.testing.assert_array_equal(tensor_values(got["reduce_scatter"]),
                                      sum(np.arange(3) + r + q * 10 for q in range(world)))
        full = [np.arange(2 * world) + 1 + q * 10 for q in range(world)]
        np.testing.assert_array_equal(tensor_values(got["reduce_scatter_tensor"]),
                                      np.maximum.reduce(full)[2 * r:2 * r + 2])
        np.testing.assert_array_equal(tensor_values(got["all_gather_into_tensor"]),
                                      np.concatenate([x.reshape(2, 3) for x in inputs]))
        np.testing.assert_array_equal(tensor_values(got["all_gather_strided"]),
                                      np.concatenate([x.reshape(3, 2) for x in inputs], axis=1))
        last = np.arange(8, dtype=np.float64) + 1 + (world - 1) * 10
        np.testing.assert_array_equal(tensor_values(got["broadcast_strided"]), last.reshape(2, 4)[:, ::2])
        assert got["broadcast_object_list"] == [{"a": 1, "rank": 1}, [1.5, "text", None], [1, 2, 3]]
        assert got["all_gather_object"] == [[q, f"r{q}", [q] * (q + 1)] for q in range(world)]
        if r % 2 == 1:
            assert got["subgroup"] == [0, 1, 1.0]  # ranks {1}: world 3 has one odd rank
        else:
            assert got["subgroup"] == [-1, -1, None]
    assert res[0]["recv_any"] == [[q, q * 1.5] for q in range(1, world)]
    assert res[0]["subgroup_ends"] == [0, [2.0, 7.0], [0.0], [0, 2]]
    assert res[2]["subgroup_ends"] == [1, [2.0, 7.0], [5.5], [0, 2]]
    assert "subgroup_ends" not in res[1]


@pytest.mark.parametrize("init", ["env", "tcp", "file"])
def test_init_methods(init):
    res = ok(run_group("common", 2, "ember", init=init))
    assert [r["rank"] for r in res] == [0, 1]


# ---- errors

def test_local_argument_errors_match_pytorch():
    ours = ok(run_group("local_errors", 2, "ember"))
    theirs = ok(run_group("local_errors", 2, "torch"))
    for r in range(2):
        for key, expected in theirs[r].items():
            got = ours[r][key]
            if expected is None:
                assert got is None, f"rank {r} {key}: {got}"
            else:
                assert got is not None and got[0] == expected[0], f"rank {r} {key}: {got} vs {expected}"
    # PyTorch's words where the message is PyTorch's.
    assert "invalid tensor size at index 1" in ours[0]["all_gather_bad_size"][1]
    assert "invalid root rank: 5" in ours[0]["broadcast_bad_root"][1]
    assert "input tensor has to be contiguous" in ours[0]["send_non_contiguous"][1]
    assert ours[1]["gather_list_on_non_root"][1] == theirs[1]["gather_list_on_non_root"][1]
    assert ours[0]["init_twice"][1] == "trying to initialize the default process group twice!"


def test_mismatched_sizes_fail_within_timeout():
    start = time.monotonic()
    res = run_group("mismatch", 2, "ember", timeout=10)
    assert time.monotonic() - start < 60
    for r in range(2):
        assert res[r][0] == "error" and res[r][1] == "RuntimeError", res[r]
        assert ("ProcessGroupGloo::allreduce: the ranks called different collectives or passed tensors of "
                "different sizes or dtypes (rank 0: allreduce of 3 float32 elements, SUM; rank 1: allreduce of "
                "1000000 float32 elements, SUM)") in res[r][2]


def test_recv_of_another_size_raises():
    res = ok(run_group("p2p_mismatch", 2, "ember", timeout=20))
    assert res[0] == {"error": None, "after": [2.0, 2.0]}
    assert res[1]["after"] == [2.0, 2.0]
    assert ("ProcessGroupGloo::recv: rank 0 sent 5 float32 elements with tag 0, but the tensor of this recv on rank 1 "
            "holds 2 int64 elements") in res[1]["error"]


def test_a_rank_that_exits_makes_the_others_fail():
    res = run_group("peer_exits", 2, "ember", timeout=20)
    assert res[0][0] == "error" and res[0][1] == "RuntimeError", res[0]
    assert "failed on rank 0 of 2" in res[0][2]


def test_a_rank_that_stops_answering_makes_the_others_fail_within_the_timeout():
    res = ok(run_group("stalled_peer", 2, "ember", timeout=2))
    assert "ProcessGroupGloo::allreduce failed on rank 0 of 2" in res[0]["error"], res[0]
    assert "Timed out" in res[0]["error"] and 1.5 < res[0]["seconds"] < 7, res[0]


def test_wrong_world_size():
    res = run_group("common", 2, "ember", timeout=5, rank_args={1: ["--world-size", "3"]})
    assert res[1][0] == "error" and "rank 1 was given world_size 3 but rank 0 was given 2" in res[1][2], res[1]
    assert res[0][0] == "error" and res[0][1] == "RuntimeError", res[0]


def test_port_in_use():
    with socket.socket() as s:
        s.bind(("", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(RuntimeError, match=f"cannot listen on port {port}.*MASTER_PORT"):
            dist.TCPStore("127.0.0.1", port, 1, True, timedelta(seconds=5))


def test_tcp_store_connect_timeout():
    port = free_port()
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match=f"could not connect to the server at 127.0.0.1:{port} within 1 s"):
        dist.TCPStore("127.0.0.1", port, 2, False, timedelta(seconds=1))
    assert time.monotonic() - t0 < 10


@pytest.mark.parametrize("kind", ["tcp", "file"])
def test_store_api(kind, tmp_path):
    if kind == "tcp":
        store = dist.TCPStore("127.0.0.1", 0, 1, True, timedelta(seconds=2))
        assert store.port > 0
    else:
        store = dist.FileStore(str(tmp_path / "store"), 1, timedelta(seconds=2))
    store.set("a", "hello")
    store.set("b", b"\x00\x01")
    assert store.get("a") == b"hello" and store.get("b") == b"\x00\x01"
    assert store.add("n", 5) == 5 and store.add("n", -2) == 3
    assert store.check(["a", "n"]) and not store.check(["a", "missing"])
    assert store.num_keys() == 3
    assert store.delete_key("b") and not store.delete_key("b")
    prefixed = dist.PrefixStore("p", store)
    prefixed.set("a", "other")
    assert prefixed.get("a") == b"other" and store.get("a") == b"hello"
    with pytest.raises(RuntimeError, match="timed out after 200 ms waiting for key\\(s\\) 'missing'"):
        store.wait(["missing"], timedelta(milliseconds=200))


def api_errors(mod):
    """Calls before init_process_group and with bad init methods: [(exception type, message)]."""
    d = mod.distributed
    out = []
    calls = [
        lambda: d.get_rank(), lambda: d.get_world_size(), lambda: d.all_reduce(mod.ones(2)), lambda: d.barrier(),
        lambda: d.new_group([0]), lambda: d.broadcast(mod.ones(2), 0), lambda: d.get_backend(),
        lambda: d.init_process_group("gloo", init_method="foo://bar", rank=0, world_size=1),
        lambda: d.init_process_group("gloo", init_method="tcp://127.0.0.1:1234", world_size=1),
        lambda: d.init_process_group("gloo", init_method="file:///tmp/x", rank=0),
        lambda: d.init_process_group("gloo", init_method="env://", rank=0, world_size=1),
        lambda: d.init_process_group("bogus", init_method="env://"),
        lambda: d.init_process_group("gloo", timeout=5),
    ]
    for call in calls:
        try:
            call()
            out.append(None)
        except Exception as e:  # noqa: BLE001
            out.append((type(e).__name__, str(e)))
    return out


def test_errors_before_init_match_pytorch(monkeypatch):
    for var in ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE"):
        monkeypatch.delenv(var, raising=False)
    assert not dist.is_initialized() and not torch.distributed.is_initialized()
    assert dist.is_available()
    ours, theirs = api_errors(ember), api_errors(torch)

    def words(errors):  # PyTorch's "of typedatetime.timedelta" lacks a space
        return [e and (e[0], "".join(e[1].split())) for e in errors]

    assert words(ours) == words(theirs)


def test_single_process_group(tmp_path):
    dist.init_process_group("gloo", init_method=f"file://{tmp_path}/store", rank=0, world_size=1)
    try:
        assert dist.is_initialized() and dist.get_rank() == 0 and dist.get_world_size() == 1
        assert dist.get_backend() == "gloo" and dist.group.WORLD is not None
        t = ember.arange(4.0)
        dist.all_reduce(t, op=dist.ReduceOp.AVG)
        assert t.tolist() == [0.0, 1.0, 2.0, 3.0]
        w = dist.all_reduce(t, async_op=True)
        assert w.wait() is True and w.is_completed() and w.is_success()
        o = ember.zeros(4)
        dist.all_gather_into_tensor(o, t)
        assert o.tolist() == t.tolist()
        with pytest.raises(RuntimeError, match="ReduceOp.BAND with non-integral dtype float32"):
            dist.all_reduce(t, op=dist.ReduceOp.BAND)
        with pytest.raises(ValueError, match="all_reduce does not support ReduceOp.MAX on complex tensors"):
            dist.all_reduce(ember.zeros(2, dtype=ember.complex64), op=dist.ReduceOp.MAX)
        with pytest.raises(RuntimeError, match="output tensor size must be equal to world_size times input"):
            dist.all_gather_into_tensor(ember.zeros(3), t)
        with pytest.raises(TypeError, match="all_gather_object: cannot send an object of type object"):
            dist.all_gather_object([None], object())
        sampler = ember.utils.data.DistributedSampler(range(5), shuffle=False)  # the group's size and rank
        assert (sampler.num_replicas, sampler.rank, list(sampler)) == (1, 0, [0, 1, 2, 3, 4])
    finally:
        dist.destroy_process_group()
    assert not dist.is_initialized()
    with pytest.raises(RuntimeError, match="Default process group has not been initialized"):
        dist.get_rank()
