"""Microbenchmark of 2-D convolutions (forward, forward+backward), Ember vs PyTorch, one thread.

    PYTHONPATH=python /usr/bin/python3 benchmarks/conv_provider_bench.py [--threads 1] [--repeat 30]

Shapes: the Fashion-MNIST CNN's two convolutions at batch 64 (training) and batch 1 (inference), and a few
others (stride 2, depthwise, 1x1). Prints median milliseconds and the ratio ember/torch.
"""
import argparse
import time

import numpy as np
import torch

import ember

SHAPES = [  # name, input (N, C, H, W), weight (Cout, C/G, kH, kW), stride, padding, groups
    ("conv1 64x1x28x28 k3 p1", (64, 1, 28, 28), (32, 1, 3, 3), 1, 1, 1),
    ("conv2 64x32x14x14 k3 p1", (64, 32, 14, 14), (64, 32, 3, 3), 1, 1, 1),
    ("conv1 1x1x28x28 k3 p1", (1, 1, 28, 28), (32, 1, 3, 3), 1, 1, 1),
    ("conv2 1x32x14x14 k3 p1", (1, 32, 14, 14), (64, 32, 3, 3), 1, 1, 1),
    ("64x32x28x28 k3 s2 p1", (64, 32, 28, 28), (64, 32, 3, 3), 2, 1, 1),
    ("depthwise 64x32x14x14 k3 p1", (64, 32, 14, 14), (32, 1, 3, 3), 1, 1, 32),
    ("1x1 64x64x14x14", (64, 64, 14, 14), (128, 64, 1, 1), 1, 0, 1),
]


def median_ms(f, n):
    for _ in range(3):
        f()
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    ts.sort()
    return ts[len(ts) // 2] * 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=30)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    ember.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    for name, xs, ws, stride, pad, groups in SHAPES:
        x = rng.standard_normal(xs, dtype=np.float32)
        w = rng.standard_normal(ws, dtype=np.float32)
        b = rng.standard_normal(ws[0], dtype=np.float32)
        for mode in ("fwd", "fwd+bwd"):
            r = []
            for lib in (ember, torch):
                xt, wt, bt = lib.tensor(x), lib.tensor(w), lib.tensor(b)
                if mode == "fwd":
                    def f(lib=lib, xt=xt, wt=wt, bt=bt):
                        with lib.no_grad():
                            lib.nn.functional.conv2d(xt, wt, bt, stride, pad, 1, groups)
                else:
                    xt.requires_grad_(True)
                    wt.requires_grad_(True)
                    bt.requires_grad_(True)

                    def f(lib=lib, xt=xt, wt=wt, bt=bt):
                        y = lib.nn.functional.conv2d(xt, wt, bt, stride, pad, 1, groups)
                        y.backward(lib.ones_like(y))
                r.append(median_ms(f, args.repeat))
            print(f"{name:30s} {mode:8s} ember {r[0]:8.3f} ms  torch {r[1]:8.3f} ms  ratio {r[0] / r[1]:.2f}",
                  flush=True)


if __name__ == "__main__":
    main()
