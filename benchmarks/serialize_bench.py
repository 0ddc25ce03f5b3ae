"""Save/load speed of a 100 MB state dict: ember.save/ember.load against torch.save/torch.load (PyTorch 1.13).

The state dict is that of an MLP-like stack of float32 weights and biases (26.2 M parameters, 100 MB), filled
with the same values on both sides. Samples interleave the frameworks (one save and one load of each per round)
so a busy machine hits both alike. Files go to one directory (default: a temporary one under /tmp; pass
--dir /dev/shm for tmpfs, which measures the formats' CPU cost without the file system's writeback). By default
every save replaces the previous file of the same name; --fresh saves each round under a new name (the old
file is removed outside the timing). Prints the median time and throughput of each.

    PYTHONPATH=python /usr/bin/python3 benchmarks/serialize_bench.py [--rounds 7] [--dir /dev/shm] [--fresh]
"""
import argparse
import collections
import os
import statistics
import tempfile
import time

import numpy as np

import ember
import torch

LAYERS = [(4096, 2048), (2048, 4096), (1024, 4096), (4096, 1024), (1000, 1024)]


def state_dicts():
    rng = np.random.default_rng(0)
    e, t = collections.OrderedDict(), collections.OrderedDict()
    for i, (out_f, in_f) in enumerate(LAYERS):
        for name, shape in [("weight", (out_f, in_f)), ("bias", (out_f,))]:
            a = rng.standard_normal(shape, dtype=np.float32)
            e[f"layers.{i}.{name}"] = ember.from_numpy(a.copy()).clone()
            t[f"layers.{i}.{name}"] = torch.from_numpy(a.copy()).clone()
    return e, t


def timed(fn):
    t0 = time.perf_counter()
    r = fn()
    return time.perf_counter() - t0, r


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--dir", default=None, help="directory for the files (default: a temporary one)")
    ap.add_argument("--fresh", action="store_true", help="save to a new file name every round")
    args = ap.parse_args()
    ember.set_num_threads(1)
    torch.set_num_threads(1)
    esd, tsd = state_dicts()
    nbytes = sum(v.numel() * 4 for v in tsd.values())
    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        times = collections.defaultdict(list)
        for r in range(args.rounds + 1):  # round 0 warms up (page cache, allocators)
            suffix = str(r) if args.fresh else ""
            if args.fresh and r:
                os.remove(epath)
                os.remove(tpath)
            epath, tpath = os.path.join(d, f"sd{suffix}.ember"), os.path.join(d, f"sd{suffix}.pt")
            for fw, save, load, sd, path in [("ember", ember.save, ember.load, esd, epath),
                                             ("torch", torch.save, torch.load, tsd, tpath)]:
                ts, _ = timed(lambda: save(sd, path))
                tl, loaded = timed(lambda: load(path))
                assert len(loaded) == len(sd)
                del loaded
                if r:
                    times[fw, "save"].append(ts)
                    times[fw, "load"].append(tl)
        sizes = {fw: os.path.getsize(p) for fw, p in [("ember", epath), ("torch", tpath)]}
    print(f"state dict: {len(tsd)} tensors, {nbytes / 1e6:.1f} MB of float32; {args.rounds} rounds, medians; "
          f"load average {os.getloadavg()[0]:.1f}; directory {args.dir or tempfile.gettempdir()}"
          f"{', a new file per save' if args.fresh else ', each save replacing the file'}")
    for op in ["save", "load"]:
        e, t = (statistics.median(times[fw, op]) for fw in ["ember", "torch"])
        print(f"{op}: ember {e * 1e3:7.1f} ms ({nbytes / e / 1e9:5.2f} GB/s)   torch {t * 1e3:7.1f} ms "
              f"({nbytes / t / 1e9:5.2f} GB/s)   ember/torch time {e / t:.2f}")
    print(f"file size: ember {sizes['ember']} bytes, torch {sizes['torch']} bytes")


if __name__ == "__main__":
    main()
