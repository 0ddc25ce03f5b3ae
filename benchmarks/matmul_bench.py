#!/usr/bin/python3
"""GEMM throughput of Ember and PyTorch side by side, in one process, on the same inputs and thread count.

Cases: square float32 (and, with --dtype, float64) products C = A @ B for n in 256, 512, 1024, 2048, or the
(m, k, n) shapes of --shapes (e.g. the GEMMs of the C++ training step: 64x784x512,64x512x784,512x64x784), each
with a fresh output (`m.mm(a, b)`) and into a preallocated one (`m.mm(a, b, out=c)`). The figure is GFLOP/s =
2 m k n / median seconds per call. Ember is timed twice: as it ships (float32 products on oneDNN's sgemm, Note
[onednn gemm]) and with oneDNN switched off ("ember_blas": OpenBLAS, the library PyTorch's mm uses here).

Every (case, framework) is timed in `--repeat` samples (each a loop of calls lasting about `--target` seconds),
interleaved across frameworks and cases so a noisy neighbour on this shared machine hits both sides alike. The
headline figure is the median sample of wall time; the fastest sample (least disturbed by neighbours) is
reported beside it, and with one thread also the median CPU time of the calling thread (OpenBLAS then computes
in that thread, so this counts the work done whatever else the machine runs). Run from the repository root
after building (see BENCHMARKS.md):

  PYTHONPATH=python /usr/bin/python3 benchmarks/matmul_bench.py [--sizes 256 512 1024 2048] [--threads 1 2]
      [--shapes MxKxN ...] [--dtype float32 float64] [--repeat 7] [--json out.json]

Fairness (as Note [benchmark fairness] of the C++ benchmarks): both frameworks get the same values (generated
once with NumPy and copied into tensors each framework allocated itself) and the same explicit thread count
(ember.set_num_threads(n), torch.set_num_threads(n)) before every sample. Both must run on OpenBLAS for the
comparison to mean anything: Ember links Debian's OpenMP OpenBLAS directly; Debian's PyTorch calls the generic
BLAS interface (BLAS_INFO=generic), i.e. whatever libblas.so.3 the system's alternative points to. The script
prints the libraries each side has mapped and refuses to run when PyTorch's BLAS is not OpenBLAS (override
with --any-blas).
"""
import argparse
import json
import os
import platform
import re
import statistics
import sys
import time

import numpy as np

import ember
import torch


def mapped_libraries(*needles):
    """Paths of the shared libraries mapped into this process whose name contains one of needles."""
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f if line.rstrip().endswith(".so") or ".so." in line}
    return sorted(p for p in paths if any(n in os.path.basename(p) for n in needles))


def machine_info():
    cpu = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    m = re.search(r"BLAS_INFO=(\w+)", torch.__config__.show())
    blas_info = m.group(1) if m else "unknown"
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "torch_version": torch.__version__,
        "torch_blas_info": blas_info,
        "torch_mkldnn": torch.backends.mkldnn.is_available(),
        "ember_blas": ember.backends.blas.config(),
        "ember_onednn": ember.backends.onednn.config(),
        # Both sides' BLAS libraries as mapped: Ember's libopenblas.so.0 and PyTorch's libblas.so.3 (Debian's
        # alternative, a thin front end over the same libopenblasp when it points at openblas-openmp).
        "mapped_blas": mapped_libraries("blas", "mkl"),
        "python": platform.python_version(),
    }


FRAMEWORKS = ("ember", "ember_blas", "torch")


def set_threads(n, fw="ember"):
    """The same thread count on both sides; Ember's oneDNN provider on except for the "ember_blas" runs."""
    ember.set_num_threads(n)
    torch.set_num_threads(n)
    ember.backends.onednn.enabled = fw != "ember_blas"
    assert ember.get_num_threads() == n and torch.get_num_threads() == n


def make_env(m, k, n, dtype):
    rng = np.random.default_rng(m * k * n)
    a = rng.uniform(-1, 1, (m, k)).astype(dtype)
    b = rng.uniform(-1, 1, (k, n)).astype(dtype)
    env = {}
    for name, mod in (("ember", ember), ("torch", torch)):
        dt = getattr(mod, dtype)
        ta, tb = mod.empty(m, k, dtype=dt), mod.empty(k, n, dtype=dt)
        ta.numpy()[:] = a
        tb.numpy()[:] = b
        env[name] = dict(m=mod, a=ta, b=tb, c=mod.empty(m, n, dtype=dt))
    env["ember_blas"] = env["ember"]
    # The sides must agree before they are timed.
    t = env["torch"]["m"].mm(env["torch"]["a"], env["torch"]["b"]).numpy()
    for fw in ("ember", "ember_blas"):
        set_threads(1, fw)
        e = env[fw]["m"].mm(env[fw]["a"], env[fw]["b"]).numpy()
        np.testing.assert_allclose(e, t, rtol=1e-4 if dtype == "float32" else 1e-10,
                                   atol=1e-3 if dtype == "float32" else 1e-9)
    return env


class Timer:
    """Runs a statement `number` times; returns seconds per call by the wall clock and by the CPU time of the
    calling thread."""

    def __init__(self, stmt, env):
        self.code, self.env = compile(stmt, "<bench>", "exec"), env

    def run(self, number):
        w0, c0 = time.perf_counter(), time.thread_time()
        for _ in range(number):
            exec(self.code, self.env)
        return (time.perf_counter() - w0) / number, (time.thread_time() - c0) / number


def calibrate(timer, target):
    number = 1
    while True:
        dt = timer.run(number)[0] * number
        if dt >= target / 4 or number >= 1 << 16:
            return max(1, int(number * target / max(dt, 1e-9)))
        number *= 2


CASES = [("fresh", "m.mm(a, b)"), ("out=", "m.mm(a, b, out=c)")]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", nargs="+", type=int, default=[256, 512, 1024, 2048])
    p.add_argument("--shapes", nargs="+", default=None, help="MxKxN products instead of the square --sizes")
    p.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    p.add_argument("--dtype", nargs="+", default=["float32"], choices=["float32", "float64"])
    p.add_argument("--repeat", type=int, default=7, help="samples per case (the median is reported)")
    p.add_argument("--target", type=float, default=0.2, help="seconds per sample (at least one call)")
    p.add_argument("--json", help="write all samples and medians here")
    p.add_argument("--any-blas", action="store_true", help="run even when PyTorch's BLAS is not OpenBLAS")
    args = p.parse_args()

    info = machine_info()
    # /proc/self/maps names the files actually mapped, symlinks (Debian's alternatives) resolved.
    torch_on_openblas = any("libblas.so" in path and "openblas" in path for path in info["mapped_blas"])
    print(f"# {info['cpu']}, {info['cores']} cores, torch {info['torch_version']} "
          f"(BLAS_INFO={info['torch_blas_info']})")
    print(f"# Ember BLAS: {info['ember_blas']}")
    print(f"# Ember oneDNN: {info['ember_onednn']}")
    print(f"# BLAS libraries mapped: {', '.join(info['mapped_blas'])}")
    if not torch_on_openblas and not args.any_blas:
        sys.exit("matmul_bench: PyTorch's libblas.so.3 is not OpenBLAS here; point the libblas.so.3 alternative at "
                 "openblas-openmp, or pass --any-blas")

    shapes = ([tuple(int(v) for v in sh.lower().split("x")) for sh in args.shapes] if args.shapes
              else [(n, n, n) for n in args.sizes])
    results = {"machine": info, "gemm": {}}
    for dtype in args.dtype:
        for threads in args.threads:
            print(f"\n## GEMM {dtype}, threads={threads}: GFLOP/s, median of {args.repeat} samples (wall clock)")
            print(f"{'m x k x n':>16} {'output':>7} {'ember':>9} {'ember_blas':>11} {'torch':>9} {'torch/ember':>12}"
                  f" {'torch/ember_blas':>17} {'best-of ratio':>14}"
                  + (f" {'thread-CPU ratio':>17}" if threads == 1 else ""))
            for m, k, n in shapes:
                env = make_env(m, k, n, dtype)
                plan = []
                for label, stmt in CASES:
                    for fw in FRAMEWORKS:
                        set_threads(threads, fw)
                        timer = Timer(stmt, env[fw])
                        timer.run(1)  # warm-up: first-call caches, BLAS buffers, allocator
                        plan.append((label, fw, timer, calibrate(timer, args.target)))
                wall, cpu = {}, {}
                for _ in range(args.repeat):
                    for label, fw, timer, number in plan:
                        set_threads(threads, fw)
                        w, c = timer.run(number)
                        wall.setdefault((label, fw), []).append(w)
                        cpu.setdefault((label, fw), []).append(c)
                set_threads(threads)
                flop = 2.0 * m * k * n
                for label, _ in CASES:
                    med = {fw: statistics.median(wall[(label, fw)]) for fw in FRAMEWORKS}
                    e, t = med["ember"], med["torch"]
                    best = min(wall[(label, "torch")]) / min(wall[(label, "ember")])
                    cpu_ratio = statistics.median(cpu[(label, "torch")]) / statistics.median(cpu[(label, "ember")])
                    results["gemm"][f"{dtype}|{threads}|{m}x{k}x{n}|{label}"] = {
                        "ember_gflops": flop / e / 1e9, "ember_blas_gflops": flop / med["ember_blas"] / 1e9,
                        "torch_gflops": flop / t / 1e9, "ratio": t / e, "blas_ratio": t / med["ember_blas"],
                        "best_ratio": best, "thread_cpu_ratio": cpu_ratio,
                        **{f"{fw}_wall_s": wall[(label, fw)] for fw in FRAMEWORKS},
                        "ember_thread_cpu_s": cpu[(label, "ember")], "torch_thread_cpu_s": cpu[(label, "torch")]}
                    print(f"{f'{m}x{k}x{n}':>16} {label:>7} {flop / e / 1e9:9.1f}"
                          f" {flop / med['ember_blas'] / 1e9:11.1f} {flop / t / 1e9:9.1f} {t / e:12.3f}"
                          f" {t / med['ember_blas']:17.3f} {best:14.3f}"
                          + (f" {cpu_ratio:17.3f}" if threads == 1 else ""))
    for key in ("ratio", "best_ratio"):
        worst = min(r[key] for r in results["gemm"].values())
        print(f"worst ember/torch GFLOP/s {key.replace('_', ' ')}: {worst:.3f} (goal >= 0.95)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
