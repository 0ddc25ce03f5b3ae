#!/usr/bin/python3
"""The layers of the Fashion-MNIST CNN (examples/fashion_mnist/train.py), one at a time, Ember and PyTorch 1.13
side by side: median wall time of forward + backward (input gradient included) at the model's shapes, batch 128.
Shows which layer limits the training step (benchmarks/results/train_python.md).

  PYTHONPATH=python /usr/bin/python3 benchmarks/cnn_layers_bench.py [--threads 1] [--reps 15]

Run it both as it is and with GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=4294967295
(PyTorch with freed memory kept), as the fairness rules ask.
"""
import argparse
import statistics
import time

import ember
import torch


def layers(lib):
    """(name, module, input) at the shapes the CNN sees them."""
    nn = lib.nn
    return [
        ("Conv2d(1, 32, 3, padding=1)", nn.Conv2d(1, 32, 3, padding=1), lib.randn(128, 1, 28, 28)),
        ("Conv2d(32, 64, 3, padding=1)", nn.Conv2d(32, 64, 3, padding=1), lib.randn(128, 32, 14, 14)),
        ("BatchNorm2d(32)", nn.BatchNorm2d(32), lib.randn(128, 32, 28, 28)),
        ("MaxPool2d(2)", nn.MaxPool2d(2), lib.randn(128, 32, 28, 28)),
        ("ReLU", nn.ReLU(), lib.randn(128, 32, 28, 28)),
        ("Linear(3136, 10)", nn.Linear(3136, 10), lib.randn(128, 3136)),
    ]


def time_layers(lib, threads, reps):
    lib.set_num_threads(threads)
    lib.manual_seed(0)
    result = {}
    for name, module, x in layers(lib):
        x.requires_grad_(True)

        def step():
            y = module(x)
            y.backward(lib.ones_like(y))

        for _ in range(3):
            step()
        samples = []
        for _ in range(reps):
            t0 = time.perf_counter()
            step()
            samples.append(time.perf_counter() - t0)
        result[name] = statistics.median(samples) * 1e3
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[1])
    parser.add_argument("--reps", type=int, default=15)
    args = parser.parse_args()
    for threads in args.threads:
        e, t = time_layers(ember, threads, args.reps), time_layers(torch, threads, args.reps)
        print(f"## threads={threads}: forward + backward, median of {args.reps}, ms")
        print(f"{'layer':32s} {'ember':>8s} {'torch':>8s} {'ratio':>6s}")
        for name in e:
            print(f"{name:32s} {e[name]:8.2f} {t[name]:8.2f} {e[name] / t[name]:6.2f}")


if __name__ == "__main__":
    main()
