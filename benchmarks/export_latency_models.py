#!/usr/bin/python3
"""Writes the models of the latency benchmark (benchmarks/latency_main.cpp) and times them from Python.

    /usr/bin/python3 benchmarks/export_latency_models.py [--out build/latency] [--models cnn,mlp]
        [--state out/fashion_mnist/model_ember.pt] [--python] [--threads 1,2] [--batch 1,64]

Two models (--models; default both):
  cnn  the Fashion-MNIST CNN of examples/fashion_mnist/train.py, input (batch, 1, 28, 28), with the weights of
       --state (a state dict saved by train.py, Ember's or PyTorch's) or, without it, seeded initial weights with
       running statistics set to non-trivial values;
  mlp  an MLP on flattened images, Linear 784->512, ReLU, Linear 512->256, ReLU, Linear 256->10, input
       (batch, 784), seeded initial weights.
The same weights go to both frameworks (through NumPy), in eval mode; for each model M:
  ember_M.pt              ember.jit.trace + ember.jit.freeze + ember.jit.save
  torch_M_traced.pt       torch.jit.trace
  torch_M_frozen.pt       torch.jit.trace + torch.jit.freeze
  torch_M_optimized.pt    torch.jit.trace + torch.jit.optimize_for_inference (freezes, folds Conv+BN, ...)
--python also prints the median latency from Python (no_grad) at each --batch and --threads of the eager models
and of the saved models loaded back (ember.jit.load; torch.jit.load of the traced and frozen files).
optimize_for_inference's CNN file does not load back in PyTorch 1.13 ("required keyword attribute 'value' is
undefined", from Python and LibTorch alike), so that mode is timed on the in-memory module, from Python only.
"""
import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
# After PYTHONPATH, so that PYTHONPATH can name another checkout's built package (benchmarks/run_all.py --python-path).
sys.path.append(os.path.join(ROOT, "python"))
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


def build_mlp(nn):
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 10))


def seeded_mlp_arrays():
    torch.manual_seed(0)
    return {k: v.numpy().copy() for k, v in build_mlp(torch.nn).state_dict().items()}


# name -> (build(fw), shape of one sample). The CNN uses plain ops, not the main job's custom op: latency_main
# loads no library.
MODELS = {
    "cnn": (lambda fw: train.build_model(fw.nn, train.relu_max_pool2d_plain(fw)), (1, 28, 28)),
    "mlp": (lambda fw: build_mlp(fw.nn), (784,)),
}


def build(fw, name, arrays):
    model = MODELS[name][0](fw)
    model.load_state_dict({k: fw.from_numpy(np.ascontiguousarray(v)) for k, v in arrays.items()})
    return model.eval()


def median_latency(fw, model, x, calls):
    with fw.no_grad():
        for _ in range(30):
            model(x)
        samples = []
        for _ in range(calls):
            start = time.perf_counter()
            model(x)
            samples.append(time.perf_counter() - start)
    return float(np.median(samples)) * 1e6


def export(name, arrays, out):
    """Writes the files of model `name` (module docstring); returns (Ember eager, torch eager, torch optimized)."""
    example = np.zeros((1,) + MODELS[name][1], dtype=np.float32)
    emodel = build(ember, name, arrays)
    with ember.no_grad():
        traced = ember.jit.freeze(ember.jit.trace(emodel, ember.from_numpy(example)))
        ember.jit.save(traced, os.path.join(out, f"ember_{name}.pt"))
    tmodel = build(torch, name, arrays)
    with torch.no_grad():
        traced = torch.jit.trace(tmodel, torch.from_numpy(example))
        traced.save(os.path.join(out, f"torch_{name}_traced.pt"))
        torch.jit.freeze(traced).save(os.path.join(out, f"torch_{name}_frozen.pt"))
        optimized = torch.jit.optimize_for_inference(torch.jit.freeze(traced))
        optimized.save(os.path.join(out, f"torch_{name}_optimized.pt"))
    print(f"wrote ember_{name}.pt and torch_{name}_{{traced,frozen,optimized}}.pt to {out}", flush=True)
    return emodel, tmodel, optimized


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "latency"))
    parser.add_argument("--models", default="cnn,mlp", help="models to export (default cnn,mlp)")
    parser.add_argument("--state", default=None, help="the CNN's state dict saved by train.py (default: seeded)")
    parser.add_argument("--python", action="store_true", help="also time the models from Python")
    parser.add_argument("--threads", default="1,2", help="thread counts of --python (default 1,2)")
    parser.add_argument("--batch", default="1", help="batch sizes of --python (default 1)")
    parser.add_argument("--calls", type=int, default=400, help="timed calls per figure of --python (default 400)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    names = [n for n in args.models.split(",") if n]
    for n in names:
        if n not in MODELS:
            parser.error(f"unknown model {n!r} (models: {', '.join(MODELS)})")
    if args.python:
        print(f"{'model':<5} {'Python':<24} {'threads':>7} {'batch':>5} {'median_us':>10}")
    for name in names:
        if name == "cnn":
            arrays = state_arrays(args.state) if args.state else seeded_arrays()
        else:
            arrays = seeded_mlp_arrays()
        emodel, tmodel, optimized = export(name, arrays, args.out)
        if not args.python:
            continue
        models = [("ember eager", ember, emodel), ("torch eager", torch, tmodel),
                  ("ember.jit.load", ember, ember.jit.load(os.path.join(args.out, f"ember_{name}.pt")))]
        for mode in ("traced", "frozen"):
            models.append((f"torch.jit {mode}", torch,
                           torch.jit.load(os.path.join(args.out, f"torch_{name}_{mode}.pt"))))
        models.append(("torch.jit optimized", torch, optimized))  # its CNN file does not load back (see above)
        for b in (int(v) for v in args.batch.split(",")):
            x = np.random.default_rng(0).standard_normal((b,) + MODELS[name][1]).astype(np.float32)
            for n in (int(t) for t in args.threads.split(",")):
                for label, fw, model in models:
                    fw.set_num_threads(n)
                    us = median_latency(fw, model, fw.from_numpy(x), args.calls)
                    print(f"{name:<5} {label:<24} {n:>7} {b:>5} {us:>10.1f}", flush=True)


if __name__ == "__main__":
    main()
