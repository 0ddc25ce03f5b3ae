"""One rank of a process group, for test_distributed.py: run as

    python dist_workers.py --framework ember|torch --scenario NAME --rank R --world-size N --init-method URL

The scenarios are written against the name `torch` (`import ember as torch` with --framework ember), so the same
code runs on PyTorch 1.13's torch.distributed (Gloo) and on Ember. A scenario returns plain data (lists, numbers,
strings) that the rank prints as one line `RESULT <json>`; an exception prints `ERROR <type>: <message>` and exits
with status 3, so the test can check errors by type and text.
"""
import argparse
import json
import os
import sys
import time
from datetime import timedelta

# Values of every rank's inputs: rank r's tensor of n elements is base + r * 10 + arange(n) (as a float64 list).
N = 6


def values(torch, rank, dtype, n=N, base=1):
    return torch.arange(n, dtype=torch.float64).add(base + rank * 10).to(dtype)


def out(t):
    """A tensor as JSON-ready data: its dtype name, shape and values (as float64; complex as [re, im] pairs)."""
    name = str(t.dtype).split(".")[-1]
    if t.is_complex():
        vals = [[v.real, v.imag] for v in t.flatten().tolist()]
    else:
        vals = t.double().flatten().tolist()
    return {"dtype": name, "shape": list(t.shape), "values": vals}


def common(torch, dist, rank, world):
    """The collectives PyTorch 1.13's Gloo group supports, for comparison with it."""
    res = {}
    for dt in ["float32", "float64", "int32", "int64", "uint8", "int8"]:
        dtype = getattr(torch, dt)
        for op in ["SUM", "PRODUCT", "MIN", "MAX"]:
            t = values(torch, rank, dtype, base=1 if dt != "uint8" else 1)
            if dt in ("uint8", "int8") and op == "PRODUCT":
                t = torch.ones(N, dtype=dtype) + rank
            dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
            res[f"all_reduce-{dt}-{op}"] = out(t)
    for root in range(world):
        t = values(torch, rank, torch.float32)
        dist.broadcast(t, src=root)
        res[f"broadcast-{root}"] = out(t)
        t = values(torch, rank, torch.int64)
        dist.reduce(t, dst=root, op=dist.ReduceOp.SUM)
        if rank == root:
            res[f"reduce-{root}"] = out(t)
    t = values(torch, rank, torch.float64).reshape(2, 3)
    outs = [torch.zeros(2, 3, dtype=torch.float64) for _ in range(world)]
    dist.all_gather(outs, t)
    res["all_gather"] = [out(o) for o in outs]
    gl = [torch.zeros(N, dtype=torch.int32) for _ in range(world)] if rank == 0 else None
    dist.gather(values(torch, rank, torch.int32), gather_list=gl, dst=0)
    if rank == 0:
        res["gather"] = [out(o) for o in gl]
    t = torch.zeros(N)
    sl = [values(torch, r, torch.float32, base=100) for r in range(world)] if rank == world - 1 else None
    dist.scatter(t, scatter_list=sl, src=world - 1)
    res["scatter"] = out(t)
    # A ring of send/recv, then isend/irecv with a tag.
    t = values(torch, rank, torch.float32)
    r = torch.zeros(N)
    if rank % 2 == 0:
        dist.send(t, dst=(rank + 1) % world)
        dist.recv(r, src=(rank - 1) % world)
    else:
        dist.recv(r, src=(rank - 1) % world)
        dist.send(t, dst=(rank + 1) % world)
    res["send_recv"] = out(r)
    r2 = torch.zeros(N, dtype=torch.int64)
    works = [dist.isend(values(torch, rank, torch.int64), dst=(rank + 1) % world, tag=7),
             dist.irecv(r2, src=(rank - 1) % world, tag=7)]
    for w in works:
        w.wait()
    res["isend_irecv"] = out(r2)
    r3 = torch.zeros(N, dtype=torch.float64)
    ops = [dist.P2POp(dist.irecv, r3, (rank - 1) % world, tag=3),
           dist.P2POp(dist.isend, values(torch, rank, torch.float64), (rank + 1) % world, tag=3)]
    for w in dist.batch_isend_irecv(ops):
        w.wait()
    res["batch_isend_irecv"] = out(r3)
    t = values(torch, rank, torch.float32)
    w = dist.all_reduce(t, async_op=True)
    w.wait()
    res["async_all_reduce"] = out(t)
    res["async_completed"] = bool(w.is_completed())
    # A non-contiguous (transposed) tensor reduces in place as a contiguous one does.
    t = values(torch, rank, torch.float32).reshape(2, 3).t()
    dist.all_reduce(t)
    res["all_reduce_transposed"] = out(t)
    dist.barrier()
    res["rank"], res["world"], res["backend"] = dist.get_rank(), dist.get_world_size(), dist.get_backend()
    return res


def extended(torch, dist, rank, world):
    """What Ember adds to PyTorch 1.13's Gloo group: AVG, reduce_scatter, all_gather_into_tensor, more dtypes,
    complex, non-contiguous outputs, object collectives, subgroups, recv from any source."""
    res = {}
    for dt in ["float32", "float64", "float16", "bfloat16"]:
        t = values(torch, rank, getattr(torch, dt))
        dist.all_reduce(t, op=dist.ReduceOp.AVG)
        res[f"avg-{dt}"] = out(t)
    for dt in ["int16", "float16", "bfloat16"]:
        for op in ["SUM", "MIN", "MAX"]:
            t = values(torch, rank, getattr(torch, dt))
            dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
            res[f"all_reduce-{dt}-{op}"] = out(t)
    for op in ["SUM", "PRODUCT", "MIN", "MAX", "BOR", "BAND", "BXOR"]:
        t = torch.tensor([True, False, rank == 0, True])
        dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
        res[f"all_reduce-bool-{op}"] = out(t)
    for op in ["BAND", "BOR", "BXOR"]:
        t = torch.tensor([rank + 1, 6, 12], dtype=torch.int32)
        dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
        res[f"all_reduce-int32-{op}"] = out(t)
    t = torch.complex(values(torch, rank, torch.float32), torch.ones(N))
    dist.all_reduce(t)
    res["all_reduce-complex64"] = out(t)
    o = torch.zeros(3)
    dist.reduce_scatter(o, [values(torch, rank, torch.float32, n=3, base=r) for r in range(world)])
    res["reduce_scatter"] = out(o)
    o = torch.zeros(2, dtype=torch.float64)
    dist.reduce_scatter_tensor(o, values(torch, rank, torch.float64, n=2 * world), op=dist.ReduceOp.MAX)
    res["reduce_scatter_tensor"] = out(o)
    o = torch.zeros(world * 2, 3)
    dist.all_gather_into_tensor(o, values(torch, rank, torch.float32).reshape(2, 3))
    res["all_gather_into_tensor"] = out(o)
    # Non-contiguous outputs of all_gather and a non-contiguous broadcast.
    big = torch.zeros(3, world * 2)
    outs = [big[:, 2 * r:2 * r + 2] for r in range(world)]
    dist.all_gather(outs, values(torch, rank, torch.float32).reshape(3, 2))
    res["all_gather_strided"] = out(big)
    t = values(torch, rank, torch.float32, n=8).reshape(2, 4)[:, ::2]
    dist.broadcast(t, src=world - 1)
    res["broadcast_strided"] = out(t)
    # Object collectives through Ember's archive.
    objs = [{"a": 1, "rank": rank}, [1.5, "text", None], torch.arange(3) + rank] if rank == 1 else [None] * 3
    dist.broadcast_object_list(objs, src=1)
    res["broadcast_object_list"] = [objs[0], objs[1], objs[2].tolist()]
    gathered = [None] * world
    dist.all_gather_object(gathered, {"rank": rank, "name": f"r{rank}", "t": torch.full((rank + 1,), rank)})
    res["all_gather_object"] = [[g["rank"], g["name"], g["t"].tolist()] for g in gathered]
    # A subgroup of the odd ranks (every rank calls new_group).
    odd = dist.new_group([r for r in range(world) if r % 2 == 1])
    if rank % 2 == 1:
        t = torch.tensor([float(rank)])
        dist.all_reduce(t, group=odd)
        res["subgroup"] = [dist.get_rank(odd), dist.get_world_size(odd), t.item()]
    else:
        res["subgroup"] = [dist.get_rank(odd), dist.get_world_size(odd), None]
    # A subgroup of ranks 0 and 2, addressed by global ranks: broadcast from global rank 2 (group rank 1), and
    # send/recv between its members.
    ends = dist.new_group([2, 0])
    if rank in (0, 2):
        t = torch.tensor([float(rank), 7.0])
        dist.broadcast(t, src=2, group=ends)
        u = torch.zeros(1)
        if rank == 0:
            dist.send(torch.tensor([5.5]), dst=2, group=ends)
        else:
            dist.recv(u, src=0, group=ends)
        res["subgroup_ends"] = [dist.get_rank(ends), t.tolist(), u.tolist(), dist.get_process_group_ranks(ends)]
    # recv from any source: rank 0 receives from every other rank.
    if rank == 0:
        got = []
        for _ in range(world - 1):
            t = torch.zeros(1)
            src = dist.recv(t)
            got.append([src, t.item()])
        res["recv_any"] = sorted(got)
    else:
        dist.send(torch.tensor([rank * 1.5]), dst=0)
    dist.barrier()
    return res


def mismatch(torch, dist, rank, world):
    """Ranks all-reduce tensors of different sizes: every rank must raise, not hang (short timeout)."""
    t = torch.ones(3 if rank == 0 else 1000000)
    dist.all_reduce(t)
    return {"no error": True}


def peer_exits(torch, dist, rank, world):
    """Rank 1 exits after joining; rank 0's all_reduce must then fail (not hang)."""
    dist.barrier()
    if rank == 1:
        os._exit(0)
    time.sleep(0.5)
    t = torch.ones(4)
    dist.all_reduce(t)
    return {"no error": True}


def stalled_peer(torch, dist, rank, world):
    """Rank 1 stays alive but does not call the collective: rank 0's all_reduce must fail within the timeout."""
    if rank == 1:
        time.sleep(8)
        return {"slept": True}
    start = time.monotonic()
    try:
        dist.all_reduce(torch.ones(4))
        return {"error": None}
    except RuntimeError as e:
        return {"error": str(e), "seconds": time.monotonic() - start}


def local_errors(torch, dist, rank, world):
    """Argument errors raised at the call on one rank, before anything is exchanged."""
    res = {}

    def err(fn):
        try:
            fn()
            return None
        except Exception as e:  # noqa: BLE001 - the type is what is checked
            return [type(e).__name__, str(e)]

    res["all_gather_bad_size"] = err(lambda: dist.all_gather([torch.zeros(2), torch.zeros(3)], torch.ones(2)))
    res["all_gather_bad_dtype"] = err(
        lambda: dist.all_gather([torch.zeros(2), torch.zeros(2, dtype=torch.int64)], torch.ones(2)))
    res["broadcast_bad_root"] = err(lambda: dist.broadcast(torch.ones(2), 5))
    res["gather_list_on_non_root"] = err(
        lambda: dist.gather(torch.ones(2), [torch.zeros(2)] * world, dst=0) if rank == 1 else None)
    res["send_non_contiguous"] = err(lambda: dist.send(torch.zeros(2, 3).t(), dst=1 - rank))
    res["not_a_tensor"] = err(lambda: dist.all_reduce([1, 2]))
    res["init_twice"] = err(lambda: dist.init_process_group("gloo", init_method="file:///nonexistent/x",
                                                            rank=rank, world_size=world))
    dist.barrier()
    return res


def p2p_mismatch(torch, dist, rank, world):
    """A recv whose tensor is smaller than what arrives raises on the receiver; the sender completes."""
    res = {}
    try:
        if rank == 0:
            dist.send(torch.arange(5.0), dst=1)
        else:
            dist.recv(torch.zeros(2, dtype=torch.int64), src=0)
        res["error"] = None
    except RuntimeError as e:
        res["error"] = str(e)
    t = torch.ones(2)
    dist.all_reduce(t)
    res["after"] = t.tolist()
    return res


SCENARIOS = {"common": common, "extended": extended, "mismatch": mismatch, "peer_exits": peer_exits,
             "local_errors": local_errors, "p2p_mismatch": p2p_mismatch, "stalled_peer": stalled_peer}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--framework", choices=["ember", "torch"], default="ember")
    p.add_argument("--scenario", required=True)
    p.add_argument("--rank", type=int, required=True)
    p.add_argument("--world-size", type=int, required=True)
    p.add_argument("--init-method", required=True)
    p.add_argument("--timeout", type=float, default=60)
    a = p.parse_args()
    if a.framework == "ember":
        import ember as torch
    else:
        import torch
    dist = torch.distributed
    try:
        dist.init_process_group("gloo", init_method=a.init_method, rank=a.rank, world_size=a.world_size,
                                timeout=timedelta(seconds=a.timeout))
        res = SCENARIOS[a.scenario](torch, dist, a.rank, a.world_size)
        dist.destroy_process_group()
    except Exception as e:  # noqa: BLE001 - reported to the test, which checks type and message
        print(f"ERROR {type(e).__name__}: {e}", flush=True)
        sys.stdout.flush()
        os._exit(3)
    print("RESULT " + json.dumps(res), flush=True)


if __name__ == "__main__":
    main()
