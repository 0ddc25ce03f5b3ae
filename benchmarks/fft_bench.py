#!/usr/bin/python3
"""Discrete Fourier transforms, Ember (KissFFT) and PyTorch (pocketfft) side by side in one process (issue 19's
fft table).

Cases, float32 (complex64 for fft) inputs of one signal of n points fixed by a seed (each sample times `--number`
calls):
  fft    fft.fft(x)      x complex64 (n)
  rfft   fft.rfft(x)     x float32 (n)
  irfft  fft.irfft(X)    X complex64 (n/2 + 1), n real outputs
for n = 2^10, 2^12, ..., 2^20 (--log2), and a batch of 64 lines of 2^12 points (where threads split the lines).

Samples are interleaved across frameworks (a busy neighbour hits both alike), the thread count is set on both
sides before every sample, and the median sample is reported with the ratio Ember / PyTorch (below 1: Ember is
faster). Run from the repository root after building:

  PYTHONPATH=python /usr/bin/python3 benchmarks/fft_bench.py [--threads 1 2] [--repeat 7] [--json out.json]
"""
import argparse

import numpy as np

import ember
import torch
from side_by_side import finish, medians_ms

OPS = {
    "fft": lambda m, a: m.fft.fft(a["c"]),
    "rfft": lambda m, a: m.fft.rfft(a["r"]),
    "irfft": lambda m, a: m.fft.irfft(a["h"], n=a["n"]),
}


def inputs(m, batch, n, dtype):
    rng = np.random.default_rng(n)
    r = rng.standard_normal((batch, n)).astype(dtype)
    c = (r + 1j * rng.standard_normal((batch, n))).astype(np.complex64 if dtype == "float32" else np.complex128)
    h = np.fft.rfft(r).astype(c.dtype)
    shape = (n,) if batch == 1 else (batch, n)
    return {"r": m.from_numpy(r.reshape(shape)), "c": m.from_numpy(c.reshape(shape)),
            "h": m.from_numpy(np.ascontiguousarray(h.reshape(shape[:-1] + (n // 2 + 1,)))), "n": n}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeat", type=int, default=7, help="samples per (case, framework)")
    ap.add_argument("--number", type=int, default=0, help="calls per sample (0: about 0.05 s worth)")
    ap.add_argument("--log2", type=int, nargs="+", default=[10, 12, 14, 16, 18, 20])
    ap.add_argument("--ops", nargs="+", default=list(OPS))
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    ap.add_argument("--json", help="write the medians here")
    args = ap.parse_args()
    sizes = [(1, 2 ** k) for k in args.log2] + [(64, 2 ** 12)]
    rows = []
    print(f"{'op':6} {'batch x n':>12} {'thr':>3} {'ember ms':>10} {'torch ms':>10} {'ratio':>6}")
    for threads in args.threads:
        for op in args.ops:
            fn = OPS[op]
            for batch, n in sizes:
                data = {"ember": inputs(ember, batch, n, args.dtype), "torch": inputs(torch, batch, n, args.dtype)}
                med = medians_ms(fn, data, threads, args.repeat, args.number, warm=True)  # plans and caches warm
                ratio = med["ember"] / med["torch"]
                rows.append(dict(op=op, dtype=args.dtype, batch=batch, n=n, threads=threads, ember_ms=med["ember"],
                                 torch_ms=med["torch"], ratio=ratio))
                print(f"{op:6} {f'{batch}x{n}':>12} {threads:>3} {med['ember']:10.4f} {med['torch']:10.4f} "
                      f"{ratio:6.2f}", flush=True)
    finish(rows, lambda r: f"{r['op']} {r['batch']}x{r['n']}", args.json)


if __name__ == "__main__":
    main()
