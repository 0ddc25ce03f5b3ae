#!/usr/bin/python3
"""Recurrent layers, Ember and PyTorch 1.13 side by side in one process (issue 20: LSTM forward + backward should
approach PyTorch's time).

Cases, forward + backward (input and parameter gradients) of a loss summing the output, the same weights
(Ember's seeded initial values loaded into PyTorch's module) and inputs on both sides:
  LSTM(256, 512, num_layers=2) over 35 steps of a batch of 64 (the issue's case), padded input
  GRU(256, 512, num_layers=2) at the same shapes
  LSTM(256, 512, num_layers=2) over a packed batch of 64 sequences of lengths 16..35

Samples are interleaved across frameworks (side_by_side.medians_ms), the thread count set on both sides before
every sample, the median sample reported with the ratio Ember / PyTorch (below 1: Ember is faster). Run from the
repository root after building:

  PYTHONPATH=python /usr/bin/python3 benchmarks/rnn_bench.py [--threads 1] [--repeat 7] [--json out.json]
"""
import argparse

import numpy as np

import ember
import torch
from side_by_side import finish, medians_ms

LENGTHS = sorted((35 - (k % 20) for k in range(64)), reverse=True)
CASES = [("LSTM", False), ("GRU", False), ("LSTM", True)]


def make(lib, mode, packed, weights, x):
    """(module, input) of one framework: the layer with the given weights and a leaf input."""
    module = getattr(lib.nn, mode)(256, 512, num_layers=2)
    module.load_state_dict({k: lib.from_numpy(v.copy()) for k, v in weights.items()})
    data = lib.from_numpy(x.copy())
    if packed:
        p = lib.nn.utils.rnn.pack_padded_sequence(data, LENGTHS)
        return module, lib.nn.utils.rnn.PackedSequence(p.data.requires_grad_(), p.batch_sizes)
    return module, data.requires_grad_()


def step(lib, case):
    module, x = case
    y, _ = module(x)
    (y if isinstance(y, lib.Tensor) else y.data).sum().backward()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[1])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--json")
    args = parser.parse_args()
    x = np.random.default_rng(0).standard_normal((35, 64, 256)).astype(np.float32)
    rows = []
    print(f"{'case':46s} {'threads':>7s} {'ember ms':>9s} {'torch ms':>9s} {'ratio':>6s}")
    for mode, packed in CASES:
        ember.manual_seed(0)
        weights = {k: v.numpy() for k, v in getattr(ember.nn, mode)(256, 512, num_layers=2).state_dict().items()}
        data = {name: make(lib, mode, packed, weights, x) for name, lib in (("ember", ember), ("torch", torch))}
        name = f"{mode}(256, 512, num_layers=2) {'packed' if packed else 'padded'} 35x64"
        for threads in args.threads:
            med = medians_ms(step, data, threads, args.repeat, number=1, warm=True)
            ratio = med["ember"] / med["torch"]
            rows.append({"case": name, "threads": threads, "ember_ms": med["ember"], "torch_ms": med["torch"],
                         "ratio": ratio})
            print(f"{name:46s} {threads:7d} {med['ember']:9.1f} {med['torch']:9.1f} {ratio:6.2f}")
    finish(rows, lambda r: r["case"], args.json)


if __name__ == "__main__":
    main()
