#!/usr/bin/python3
"""conv2d forward and backward of Ember and PyTorch side by side, in one process, on the same inputs and
thread count.

Cases (float32, padding 1, stride 1, bias): N=32, 3->32 channels, 32x32, 3x3 kernel (a first layer: K = 27),
and N=64, 64->64 channels, 28x28, 3x3 kernel (a middle layer: K = 576). Forward is `m.conv2d(x, w, b, 1, 1)`;
backward is `convolution_backward(gy, x, w, ...)` with every gradient requested, Ember's op against
`torch.ops.aten.convolution_backward` (what PyTorch's autograd calls for a conv2d). The figure is the median
milliseconds per call; the ratio is Ember's time over PyTorch's (goal: at most 1.5).

Every (case, framework) is timed in `--repeat` samples (each a loop of calls lasting about `--target`
seconds), interleaved across frameworks so a noisy neighbour on this shared machine hits both alike; the
fastest sample's ratio is reported beside the median's. Run from the repository root after building:

  PYTHONPATH=python /usr/bin/python3 benchmarks/conv_bench.py [--threads 1 2] [--repeat 5] [--target 0.3]
      [--json out.json]

Fairness: the same values (generated once with NumPy, copied into tensors each framework allocated itself)
and the same explicit thread count (ember.set_num_threads(n), torch.set_num_threads(n)) before every sample.
Ember runs im2col + OpenBLAS GEMMs (Note [conv im2col]); Debian's PyTorch 1.13 runs oneDNN (mkldnn) for
float32 convolutions, which the header reports.
"""
import argparse
import json
import statistics
import sys
import time

import numpy as np

import ember
import torch

# (label, N, C_in, C_out, H=W, k)
SHAPES = [("N32 3->32 32x32 k3", 32, 3, 32, 32, 3), ("N64 64->64 28x28 k3", 64, 64, 64, 28, 3)]
OPS = [
    ("forward", "m.conv2d(x, w, b, 1, 1)"),
    ("backward", "bwd(gy, x, w, [cout], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True])"),
]


def set_threads(n):
    ember.set_num_threads(n)
    torch.set_num_threads(n)
    assert ember.get_num_threads() == n and torch.get_num_threads() == n


def copy_in(mod, a):
    t = mod.empty(*a.shape, dtype=mod.float32)
    t.numpy()[:] = a
    return t


def make_env(n, cin, cout, hw, k):
    rng = np.random.default_rng(n * 1000 + cin)
    arrays = dict(x=rng.standard_normal((n, cin, hw, hw)), w=rng.standard_normal((cout, cin, k, k)) * 0.1,
                  b=rng.standard_normal(cout), gy=rng.standard_normal((n, cout, hw, hw)))
    env = {}
    for name, mod, bwd in (("ember", ember, ember.convolution_backward),
                           ("torch", torch, torch.ops.aten.convolution_backward)):
        tensors = {k: copy_in(mod, v.astype(np.float32)) for k, v in arrays.items()}
        env[name] = dict(m=mod, bwd=bwd, cout=cout, **tensors)
    # The two sides must agree before they are timed.
    for _, stmt in OPS:
        got = [eval(stmt, env[fw]) for fw in ("ember", "torch")]
        for e, t in zip(*[r if isinstance(r, (tuple, list)) else (r,) for r in got]):
            np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-3, atol=1e-2)
    return env


class Timer:
    def __init__(self, stmt, env):
        self.code, self.env = compile(stmt, "<bench>", "exec"), env

    def run(self, number):
        t0 = time.perf_counter()
        for _ in range(number):
            exec(self.code, self.env)
        return (time.perf_counter() - t0) / number


def calibrate(timer, target):
    number = 1
    while True:
        dt = timer.run(number) * number
        if dt >= target / 4 or number >= 1 << 12:
            return max(1, int(number * target / max(dt, 1e-9)))
        number *= 2


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    p.add_argument("--repeat", type=int, default=5, help="samples per case (the median is reported)")
    p.add_argument("--target", type=float, default=0.3, help="seconds per sample (at least one call)")
    p.add_argument("--json", help="write all samples and medians here")
    args = p.parse_args()

    print(f"# torch {torch.__version__} (mkldnn: {torch.backends.mkldnn.is_available()}), "
          f"Ember BLAS: {ember.backends.blas.config()}")
    results = {}
    for threads in args.threads:
        print(f"\n## conv2d float32, threads={threads}: ms per call, median of {args.repeat} samples (wall clock)")
        print(f"{'case':<22} {'op':<9} {'ember':>9} {'torch':>9} {'ember/torch':>12} {'best-of ratio':>14}")
        for label, n, cin, cout, hw, k in SHAPES:
            env = make_env(n, cin, cout, hw, k)
            plan = []
            for op, stmt in OPS:
                for fw in ("ember", "torch"):
                    set_threads(threads)
                    timer = Timer(stmt, env[fw])
                    timer.run(1)  # warm-up
                    plan.append((op, fw, timer, calibrate(timer, args.target)))
            wall = {}
            for _ in range(args.repeat):
                for op, fw, timer, number in plan:
                    set_threads(threads)
                    wall.setdefault((op, fw), []).append(timer.run(number))
            for op, _ in OPS:
                e, t = statistics.median(wall[(op, "ember")]), statistics.median(wall[(op, "torch")])
                best = min(wall[(op, "ember")]) / min(wall[(op, "torch")])
                results[f"{threads}|{label}|{op}"] = {"ember_ms": e * 1e3, "torch_ms": t * 1e3, "ratio": e / t,
                                                      "best_ratio": best, "ember_s": wall[(op, "ember")],
                                                      "torch_s": wall[(op, "torch")]}
                print(f"{label:<22} {op:<9} {e * 1e3:9.2f} {t * 1e3:9.2f} {e / t:12.3f} {best:14.3f}")
    worst = max(r["ratio"] for r in results.values())
    print(f"worst ember/torch time ratio: {worst:.3f} (goal <= 1.5)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
