#!/usr/bin/python3
"""Autograd overhead from Python, Ember and PyTorch side by side in one process (issue 4's goal: Ember's time at
most 0.5x PyTorch's).

Cases (1-element float32 leaves a, b that require grad; each sample times `--number` iterations):
  tiny_graph   y = (a * b + a.exp()).sum(); y.backward()      forward + backward of a small graph
  forward      (a * b + a.exp()).sum()                        recording only (the graph is freed unused)
  train_step   loss = ((w * x + c - t) ** 2).sum(); loss.backward(); with no_grad: w.sub_(0.1 * w.grad),
               c.sub_(0.1 * c.grad); w.grad = None; c.grad = None   (one SGD step of a 1-parameter fit)

Samples are interleaved across frameworks and cases (a busy neighbour hits both alike), the thread count is
set on both sides before every sample, and the median sample is reported with the ratio Ember / PyTorch.
Run from the repository root after building:

  PYTHONPATH=python /usr/bin/python3 benchmarks/autograd_bench.py [--threads 1] [--repeat 15] [--json out.json]
"""
import argparse
import json
import statistics
import timeit

import ember
import torch

CASES = [
    ("tiny_graph", "y = (a * b + a.exp()).sum(); y.backward()"),
    ("forward", "(a * b + a.exp()).sum()"),
    ("train_step", "loss = ((w * x + c - t) ** 2).sum(); loss.backward()\n"
                   "with m.no_grad():\n    w.sub_(0.1 * w.grad); c.sub_(0.1 * c.grad)\nw.grad = None; c.grad = None"),
]


def namespace(m):
    ns = {"m": m}
    ns["a"] = m.tensor([0.5]).requires_grad_()
    ns["b"] = m.tensor([-1.25]).requires_grad_()
    ns["w"] = m.tensor([0.1]).requires_grad_()
    ns["c"] = m.tensor([0.0]).requires_grad_()
    ns["x"] = m.tensor([2.0])
    ns["t"] = m.tensor([3.0])
    return ns


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, nargs="+", default=[1])
    ap.add_argument("--repeat", type=int, default=15, help="samples per (case, framework)")
    ap.add_argument("--number", type=int, default=2000, help="iterations per sample")
    ap.add_argument("--json", help="write the medians here")
    args = ap.parse_args()
    results = {}
    for threads in args.threads:
        timers = {}
        for name, stmt in CASES:
            for label, m in (("ember", ember), ("torch", torch)):
                timers[(name, label)] = timeit.Timer(stmt, globals=namespace(m))
        samples = {k: [] for k in timers}
        for _ in range(args.repeat):
            for (name, label), t in timers.items():
                (ember if label == "ember" else torch).set_num_threads(threads)
                samples[(name, label)].append(t.timeit(args.number) / args.number * 1e9)
        print(f"threads={threads}  (ns per iteration, median of {args.repeat} samples of {args.number})")
        print(f"{'case':<12} {'ember':>10} {'torch':>10} {'ember/torch':>12}")
        for name, _ in CASES:
            e = statistics.median(samples[(name, "ember")])
            t = statistics.median(samples[(name, "torch")])
            print(f"{name:<12} {e:>10.0f} {t:>10.0f} {e / t:>12.2f}")
            results[f"{name}|{threads}"] = {"ember_ns": e, "torch_ns": t, "ratio": e / t}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
