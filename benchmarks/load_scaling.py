"""Loading time and memory against the input's size (issue 18's goal: linear, with stated limits).

For each kind of input it writes files at sizes k, 2k, 4k, 8k (in elements of that kind), loads each in a fresh
subprocess, and prints the file size, the median CPU time of a load over --rounds loads, the peak resident memory a
load added (VmHWM, reset before each load, minus the resident size before it), and both per kilobyte of file: a
linear loader keeps the per-KB columns flat as k grows. The kinds:
  state_dict   ember.load of a state dict of k small tensors (the per-entry cost of the manifest and the zip)
  nested       ember.load of lists nested k/10 deep, 10 wide, within the 1,000-level limit (the object tree)
  jit_nodes    ember.jit.load of a traced function of k chained ops (IR text, verifier, lowering)
  jit_outputs  ember.jit.load of a traced function returning k values (one node with k inputs: the case that
               was quadratic before Note [linear verification])

    PYTHONPATH=python /usr/bin/python3 benchmarks/load_scaling.py [--kinds ...] [--base K] [--rounds 5]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

import ember

BASE = {"state_dict": 2000, "nested": 100, "jit_nodes": 500, "jit_outputs": 2000}


def write(kind, k, path):
    if kind == "state_dict":
        ember.save({f"layer{i}.weight": ember.full((4,), float(i)) for i in range(k)}, path)
    elif kind == "nested":
        depth = max(1, k // 10)
        obj = x = []
        for _ in range(depth):
            x.extend([ember.ones(1)] * 9)
            x.append([])
            x = x[-1]
        ember.save(obj, path)
    elif kind == "jit_nodes":
        def chain(x):
            for _ in range(k):
                x = x + 1
            return x
        ember.jit.trace(chain, (ember.ones(2),)).save(path)
    elif kind == "jit_outputs":
        def many(x):
            return tuple(x[i] for i in range(k))
        ember.jit.trace(many, (ember.ones(k),)).save(path)
    else:
        raise ValueError(kind)


CHILD = r"""
import json, sys, time
sys.path.insert(0, {python!r})
import ember
load = ember.jit.load if {jit} else ember.load


def status(field):  # kB, from /proc/self/status
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":"))


times, added = [], []
for _ in range({rounds}):
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # resets the peak (VmHWM) to the current resident size
    rss = status("VmRSS")
    t = time.process_time()  # CPU time: a busy machine's waits for a core do not count
    m = load({path!r})
    times.append(time.process_time() - t)
    added.append(status("VmHWM") - rss)
    del m
print(json.dumps({{"times": times, "rss_kb": max(added)}}))
"""


def measure(kind, path, rounds):
    python = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python")
    code = CHILD.format(python=python, jit=kind.startswith("jit"), rounds=rounds, path=path)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    return json.loads(out.splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kinds", nargs="+", default=list(BASE), choices=list(BASE))
    ap.add_argument("--base", type=int, default=None, help="k of the smallest size (default per kind)")
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    print(f"{'kind':12s} {'k':>7s} {'file KB':>9s} {'CPU ms':>9s} {'+RSS MB':>8s} {'us/KB':>7s} {'RSS/file':>8s}")
    with tempfile.TemporaryDirectory() as d:
        for kind in a.kinds:
            base = a.base or BASE[kind]
            for k in (base, 2 * base, 4 * base, 8 * base):
                path = os.path.join(d, f"{kind}_{k}.pt")
                write(kind, k, path)
                kb = os.path.getsize(path) / 1024
                r = measure(kind, path, a.rounds)
                ms = statistics.median(r["times"]) * 1e3
                print(f"{kind:12s} {k:7d} {kb:9.1f} {ms:9.2f} {r['rss_kb'] / 1024:8.1f} {ms * 1e3 / kb:7.1f} "
                      f"{r['rss_kb'] / kb:8.1f}", flush=True)


if __name__ == "__main__":
    main()
