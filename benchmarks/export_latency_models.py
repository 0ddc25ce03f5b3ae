#!/usr/bin/python3
"""Writes the models of the latency benchmark (benchmarks/latency_main.cpp) and times them from Python at batch 1.

    /usr/bin/python3 benchmarks/export_latency_models.py [--out build/latency]
        [--state out/fashion_mnist/model_ember.pt] [--python] [--threads 1,2]

The Fashion-MNIST CNN of examples/fashion_mnist/train.py, with the weights of --state (a state dict saved by
train.py, Ember's or PyTorch's) or, without it, seeded initial weights with running statistics set to non-trivial
values. The same weights go to both frameworks (through NumPy), in eval mode:
  ember_cnn.pt              ember.jit.trace + ember.jit.save (frozen first when ember.jit.freeze exists)
  torch_cnn_traced.pt       torch.jit.trace
  torch_cnn_frozen.pt       torch.jit.trace + torch.jit.freeze
  torch_cnn_optimized.pt    torch.jit.trace + torch.jit.optimize_for_inference (freezes, folds Conv+BN, ...)
--python also prints the median batch-1 latency from Python (no_grad) of the eager models and of the saved models
loaded back (ember.jit.load; torch.jit.load of the traced and frozen files). optimize_for_inference's file does not
load back in PyTorch 1.13 ("required keyword attribute 'value' is undefined", from Python and LibTorch alike), so
that mode is timed on the in-memory module, from Python only.
"""
import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "examples", "fashion_mnist"))
import ember  # noqa: E402
import torch  # noqa: E402
import train  # noqa: E402  (the model)


def state_arrays(path):
    """The state dict at path as NumPy arrays (either framework's file)."""
    try:
        state = ember.load(path)
        return {k: v.numpy() for k, v in state.items()}
    except Exception:
        state = torch.load(path)
        return {k: v.numpy() for k, v in state.items()}


def seeded_arrays():
    torch.manual_seed(0)
    model = train.build_model(torch.nn)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
    return {k: v.numpy().copy() for k, v in model.state_dict().items()}


def build(fw, arrays):
    model = train.build_model(fw.nn, train.relu_max_pool2d_plain(fw))  # plain ops: latency_main loads no library
    model.load_state_dict({k: fw.from_numpy(np.ascontiguousarray(v)) for k, v in arrays.items()})
    return model.eval()


def median_latency(fw, model, x, calls=400):
    with fw.no_grad():
        for _ in range(30):
            model(x)
        samples = []
        for _ in range(calls):
            start = time.perf_counter()
            model(x)
            samples.append(time.perf_counter() - start)
    return float(np.median(samples)) * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "latency"))
    parser.add_argument("--state", default=None, help="a state dict saved by train.py (default: seeded weights)")
    parser.add_argument("--python", action="store_true", help="also time the models from Python at batch 1")
    parser.add_argument("--threads", default="1,2", help="thread counts of --python (default 1,2)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    arrays = state_arrays(args.state) if args.state else seeded_arrays()
    example = np.zeros((1, 1, 28, 28), dtype=np.float32)

    emodel = build(ember, arrays)
    with ember.no_grad():
        traced = ember.jit.trace(emodel, ember.from_numpy(example))
        if hasattr(ember.jit, "freeze"):
            traced = ember.jit.freeze(traced)
        ember.jit.save(traced, os.path.join(args.out, "ember_cnn.pt"))

    tmodel = build(torch, arrays)
    with torch.no_grad():
        traced = torch.jit.trace(tmodel, torch.from_numpy(example))
        traced.save(os.path.join(args.out, "torch_cnn_traced.pt"))
        torch.jit.freeze(traced).save(os.path.join(args.out, "torch_cnn_frozen.pt"))
        optimized = torch.jit.optimize_for_inference(torch.jit.freeze(traced))
        optimized.save(os.path.join(args.out, "torch_cnn_optimized.pt"))
    print(f"wrote ember_cnn.pt and torch_cnn_{{traced,frozen,optimized}}.pt to {args.out}")

    if args.python:
        x = np.random.default_rng(0).standard_normal((1, 1, 28, 28)).astype(np.float32)
        models = [("ember eager", ember, emodel), ("torch eager", torch, tmodel),
                  ("ember.jit.load", ember, ember.jit.load(os.path.join(args.out, "ember_cnn.pt")))]
        for mode in ("traced", "frozen"):
            models.append((f"torch.jit {mode}", torch, torch.jit.load(os.path.join(args.out, f"torch_cnn_{mode}.pt"))))
        models.append(("torch.jit optimized", torch, optimized))  # its file does not load back (see above)
        print(f"{'Python, batch 1':<24} {'threads':>7} {'median_us':>10}")
        for n in (int(t) for t in args.threads.split(",")):
            for name, fw, model in models:
                fw.set_num_threads(n)
                print(f"{name:<24} {n:>7} {median_latency(fw, model, fw.from_numpy(x)):>10.1f}", flush=True)

if __name__ == "__main__":
    main()
