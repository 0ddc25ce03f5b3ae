#!/usr/bin/python3
"""Ember and PyTorch side by side from Python, in one process, on the same inputs and thread count.

Suites:
  dispatch    per-call time of ops on 1-element float32 tensors (the per-op overhead from Python):
              ember.add(a, b) vs torch.add(a, b), a + b, a.exp(), ..., a.view(1)
  throughput  elementwise ops on 1M and 16M float32 elements, with a fresh output each call and with out=

Every (case, framework) is timed with timeit in `--repeat` samples, interleaved across frameworks and cases
so a noisy neighbour hits both sides alike; the figure reported is the median sample. Run from the
repository root after building (see BENCHMARKS.md):

  PYTHONPATH=python /usr/bin/python3 benchmarks/python_bench.py [--suite dispatch throughput]
      [--threads 1 2] [--repeat 7] [--json out.json]

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

# (name, statement, frameworks it applies to). Statements see a, b, c (inputs), o, tmp (outputs) and the
# module as `m` (ember or torch), so the same text runs on both sides.
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
    ("mul_add (a * b + c)", "a * b + c", "m.add(m.mul(a, b, out=tmp), c, out=o)"),
    ("addcmul", "m.addcmul(c, a, b)", "m.addcmul(c, a, b, out=o)"),
    ("relu", "m.relu(a)", "m.clamp_min(a, 0, out=o)"),
    ("exp", "m.exp(a)", "m.exp(a, out=o)"),
    ("tanh", "m.tanh(a)", "m.tanh(a, out=o)"),
    ("sigmoid", "m.sigmoid(a)", "m.sigmoid(a, out=o)"),
]
INPUTS_PER_OP = {"add": 2, "mul_add (a * b + c)": 3, "addcmul": 3, "relu": 1, "exp": 1, "tanh": 1, "sigmoid": 1}

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
        env[name] = dict(m=mod, a=ts[0], b=ts[1], c=ts[2], o=mod.empty(n), tmp=mod.empty(n))
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
        "blas": "n/a (elementwise ops only)",
    }


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--suite", nargs="+", default=["dispatch", "throughput"], choices=["dispatch", "throughput"])
    p.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    p.add_argument("--repeat", type=int, default=7, help="samples per case (the median is reported)")
    p.add_argument("--target", type=float, default=0.05, help="seconds per sample")
    p.add_argument("--json", help="write all samples and medians here")
    args = p.parse_args()

    info = machine_info()
    results = {"machine": info, "dispatch": {}, "throughput": {}}
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
        if "throughput" in args.suite:
            print(f"\n## throughput, threads={threads}: median ms per call (Melem/s)")
            print(f"{'case':34} {'ember':>18} {'torch':>18} {'ember speedup':>14}")
            for size, n in SIZES.items():
                env = make_inputs(n)
                cases = []
                for op, fresh, out in THROUGHPUT_CASES:
                    cases.append((f"{op} {size} fresh", fresh, env))
                    cases.append((f"{op} {size} out=", out, env))
                samples = run_suite(cases, threads, max(3, args.repeat // 2), max(args.target, 0.1), time.perf_counter)
                for key, _, _ in cases:
                    e = statistics.median(samples[key]["ember"])
                    t = statistics.median(samples[key]["torch"])
                    op = key.rsplit(" ", 2)[0]
                    gbytes = 4 * n * (INPUTS_PER_OP[op] + 1) / 1e9
                    results["throughput"][f"{key}|{threads}"] = {
                        "numel": n, "ember_s": e, "torch_s": t, "ember_gbs": gbytes / e, "torch_gbs": gbytes / t,
                        "samples": samples[key]}
                    print(f"{key:34} {e * 1e3:8.3f} ({n / e / 1e6:6.0f}) {t * 1e3:8.3f} ({n / t / 1e6:6.0f}) "
                          f"{t / e:14.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
