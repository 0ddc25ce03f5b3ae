#!/usr/bin/python3
"""Ember and PyTorch side by side from Python, in one process, on the same inputs and thread count.

Suites:
  dispatch    per-call time of ops on 1-element float32 tensors (the per-op overhead from Python):
              ember.add(a, b) vs torch.add(a, b), a + b, a.exp(), ..., a.view(1)
  throughput  elementwise ops (and a transposed copy) on 1M and 16M float32 elements, with a fresh output
              each call and with out=
  reduce      sum over dim 1, sum over dim 0 and softmax over dim 1 of a (4096, 1024) float32 matrix

Every (case, framework) is timed with timeit in `--repeat` samples, interleaved across frameworks and cases
so a noisy neighbour hits both sides alike; the figure reported is the median sample. Run from the
repository root after building (see BENCHMARKS.md):

  PYTHONPATH=python /usr/bin/python3 benchmarks/python_bench.py [--suite dispatch throughput]
      [--threads 1 2] [--repeat 7] [--json out.json]

Statements see a, b, c (1-D inputs), o, tmp (1-D outputs), a2 / o2 (a / o viewed as a square matrix), x (a
viewed as (4096, 1024)), r1 / r0 (outputs of x.sum(1) / x.sum(0)) and the module as `m`.

Fairness (Note [benchmark fairness] in bench_cases.h): both frameworks get the same values (generated once
with NumPy and copied into tensors each framework allocated itself) and the same explicit thread count
(ember.set_num_threads(n), torch.set_num_threads(n)) before every case.
"""
import argparse
import json
import os
import platform
import statistics
import sys
import time
import timeit

import numpy as np

import ember
import torch

# (name, statement). The same text runs on both sides (see the docstring for the names it sees).
DISPATCH_CASES = [
    ("add: m.add(a, b)", "m.add(a, b)"),
    ("add: a + b", "a + b"),
    ("add out=: m.add(a, b, out=o)", "m.add(a, b, out=o)"),
    ("mul: m.mul(a, b)", "m.mul(a, b)"),
    ("mul: a * b", "a * b"),
    ("exp: m.exp(a)", "m.exp(a)"),
    ("exp: a.exp()", "a.exp()"),
    ("relu: m.relu(a)", "m.relu(a)"),
    ("relu: a.relu()", "a.relu()"),
    ("view: a.view(1)", "a.view(1)"),
]

# (op, fresh-output statement, out= statement). relu has no out= form in PyTorch; clamp_min(a, 0) is the
# same function with one.
THROUGHPUT_CASES = [
    ("add", "m.add(a, b)", "m.add(a, b, out=o)"),
    ("mul", "m.mul(a, b)", "m.mul(a, b, out=o)"),
    ("mul_add (a * b + c)", "a * b + c", "m.add(m.mul(a, b, out=tmp), c, out=o)"),
    ("addcmul", "m.addcmul(c, a, b)", "m.addcmul(c, a, b, out=o)"),
    ("relu", "m.relu(a)", "m.clamp_min(a, 0, out=o)"),
    ("exp", "m.exp(a)", "m.exp(a, out=o)"),
    ("tanh", "m.tanh(a)", "m.tanh(a, out=o)"),
    ("sigmoid", "m.sigmoid(a)", "m.sigmoid(a, out=o)"),
    ("t_copy (a2.t().contiguous())", "a2.t().contiguous()", "o2.copy_(a2.t())"),
]
# Reductions of x = (4096, 1024); softmax has no out= form in Ember.
REDUCE_CASES = [
    ("sum(dim=1)", "x.sum(1)", "m.sum(x, 1, out=r1)"),
    ("sum(dim=0)", "x.sum(0)", "m.sum(x, 0, out=r0)"),
    ("softmax(dim=1)", "m.softmax(x, 1)", None),
]
REDUCE_SHAPE = (4096, 1024)
INPUTS_PER_OP = {"add": 2, "mul": 2, "mul_add (a * b + c)": 3, "addcmul": 3}  # others: 1


def bytes_moved(op, n):
    """Bytes an unfused implementation reads and writes per call (4 per float32 element)."""
    out = {"sum(dim=1)": REDUCE_SHAPE[0], "sum(dim=0)": REDUCE_SHAPE[1]}.get(op, n)
    return 4 * (n * INPUTS_PER_OP.get(op, 1) + out)

SIZES = {"1M": 1 << 20, "16M": 1 << 24}


def make_inputs(n):
    """Values uniform in [-4, 4), the same for both frameworks, in tensors each framework allocated."""
    rng = np.random.default_rng(0)
    arrays = [rng.uniform(-4, 4, n).astype(np.float32) for _ in range(3)]
    env = {}
    for name, mod in (("ember", ember), ("torch", torch)):
        ts = []
        for arr in arrays:
            t = mod.empty(n)
            t.numpy()[:] = arr
            ts.append(t)
        e = dict(m=mod, a=ts[0], b=ts[1], c=ts[2], o=mod.empty(n), tmp=mod.empty(n))
        side = int(round(n ** 0.5))
        if side * side == n:
            e.update(a2=e["a"].view(side, side), o2=e["o"].view(side, side))
        if n == REDUCE_SHAPE[0] * REDUCE_SHAPE[1]:
            e.update(x=e["a"].view(*REDUCE_SHAPE), r1=mod.empty(REDUCE_SHAPE[0]), r0=mod.empty(REDUCE_SHAPE[1]))
        env[name] = e
    return env


def set_threads(n):
    ember.set_num_threads(n)
    torch.set_num_threads(n)
    assert ember.get_num_threads() == n and torch.get_num_threads() == n


def calibrate(stmt, env, target, timer):
    """A loop count whose sample takes about `target` seconds."""
    t = timeit.Timer(stmt, globals=env, timer=timer)
    number = 1
    while True:
        dt = t.timeit(number)
        if dt >= target / 5 or number >= 1 << 24:
            return max(1, int(number * target / max(dt, 1e-9)))
        number *= 4


def run_suite(cases, threads, repeat, target, timer):
    """cases: list of (key, stmt, env by framework). Returns {key: {framework: [seconds per call, ...]}}.
    timer: time.thread_time (CPU time of this thread: single-threaded dispatch cases, which a busy neighbour
    on a shared machine then disturbs less) or time.perf_counter (wall time: throughput, which may use
    several threads)."""
    samples = {}
    plan = []
    for key, stmt, envs in cases:
        for fw in ("ember", "torch"):
            set_threads(threads)
            env = envs[fw]
            eval(compile(stmt, "<bench>", "eval"), env)  # warm up (first-call caches, allocator)
            plan.append((key, fw, timeit.Timer(stmt, globals=env, timer=timer), calibrate(stmt, env, target, timer)))
    for _ in range(repeat):
        for key, fw, timer, number in plan:
            set_threads(threads)
            samples.setdefault(key, {}).setdefault(fw, []).append(timer.timeit(number) / number)
    return samples


def machine_info():
    cpu = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    libember = sorted({line.split()[-1] for line in open("/proc/self/maps") if "libember" in line})
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "ember_cpu_capability": ember._C._cpu_capability(),
        "torch_version": torch.__version__,
        "torch_cpu_capability": next((l.split(":", 1)[1].strip() for l in torch.__config__.show().splitlines()
                                      if "CPU capability usage" in l), "unknown"),
        "python": platform.python_version(),
        "GLIBC_TUNABLES": os.environ.get("GLIBC_TUNABLES", ""),
        "libember": libember,
        # No case here calls BLAS; the libraries are listed so the report can say what each side loaded.
        "blas": "ember " + ember.backends.blas.config() + "; mapped: " + ", ".join(
            sorted({line.split()[-1] for line in open("/proc/self/maps") if "blas" in line or "mkl" in line})),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--suite", nargs="+", default=["dispatch", "throughput", "reduce"],
                   choices=["dispatch", "throughput", "reduce"])
    p.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    p.add_argument("--repeat", type=int, default=7, help="samples per case (the median is reported)")
    p.add_argument("--target", type=float, default=0.05, help="seconds per sample")
    p.add_argument("--json", help="write all samples and medians here")
    args = p.parse_args()

    info = machine_info()
    results = {"machine": info, "dispatch": {}, "throughput": {}, "reduce": {}}
    print(f"# {info['cpu']}, {info['cores']} cores, ember {info['ember_cpu_capability']}, torch "
          f"{info['torch_version']} ({info['torch_cpu_capability']}), GLIBC_TUNABLES='{info['GLIBC_TUNABLES']}'")
    for threads in args.threads:
        if "dispatch" in args.suite:
            env = make_inputs(1)
            cases = [(name, stmt, env) for name, stmt in DISPATCH_CASES]
            samples = run_suite(cases, threads, args.repeat, args.target, time.thread_time)
            print(f"\n## dispatch, threads={threads}: median ns per call (CPU time of the calling thread)")
            print(f"{'case':34} {'ember':>9} {'torch':>9} {'ember/torch':>12}")
            for name, _ in DISPATCH_CASES:
                e = statistics.median(samples[name]["ember"]) * 1e9
                t = statistics.median(samples[name]["torch"]) * 1e9
                results["dispatch"][f"{name}|{threads}"] = {"ember_ns": e, "torch_ns": t, "samples": samples[name]}
                print(f"{name:34} {e:9.0f} {t:9.0f} {e / t:12.2f}")
        for suite, table, sizes in (("throughput", THROUGHPUT_CASES, SIZES),
                                    ("reduce", REDUCE_CASES, {"4096x1024": REDUCE_SHAPE[0] * REDUCE_SHAPE[1]})):
            if suite not in args.suite:
                continue
            print(f"\n## {suite}, threads={threads}: median ms per call (Melem/s of input)")
            print(f"{'case':34} {'ember':>18} {'torch':>18} {'ember speedup':>14}")
            for size, n in sizes.items():
                env = make_inputs(n)
                cases = []
                for op, fresh, out in table:
                    cases.append((f"{op} {size} fresh", fresh, env))
                    if out:
                        cases.append((f"{op} {size} out=", out, env))
                samples = run_suite(cases, threads, max(3, args.repeat // 2), max(args.target, 0.1), time.perf_counter)
                for key, _, _ in cases:
                    e = statistics.median(samples[key]["ember"])
                    t = statistics.median(samples[key]["torch"])
                    op = key.rsplit(" ", 2)[0]
                    gbytes = bytes_moved(op, n) / 1e9
                    results[suite][f"{key}|{threads}"] = {
                        "numel": n, "ember_s": e, "torch_s": t, "ember_gbs": gbytes / e, "torch_gbs": gbytes / t,
                        "samples": samples[key]}
                    print(f"{key:34} {e * 1e3:8.3f} ({n / e / 1e6:6.0f}) {t * 1e3:8.3f} ({n / t / 1e6:6.0f}) "
                          f"{t / e:14.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
