#!/usr/bin/python3
"""LAPACK-backed linear algebra, Ember and PyTorch side by side in one process (issue 19's svd/solve/cholesky
table; goal: at least PyTorch's speed at the same thread count).

Cases, float32 and float64 inputs fixed by a seed (each sample times `--number` calls):
  svd        linalg.svd(A, full_matrices=False)      A (batch, n, n)
  solve      linalg.solve(A, B)                      A (batch, n, n) well-conditioned, B (batch, n, 1)
  cholesky   linalg.cholesky(A)                      A (batch, n, n) symmetric positive-definite
for (batch, n) in {(1024, 4), (256, 16), (1, 256), (1, 512)}: batched small and single large.

Samples are interleaved across frameworks (a busy neighbour hits both alike), the thread count is set on both
sides before every sample, and the median sample is reported with the ratio Ember / PyTorch (below 1: Ember is
faster). Run from the repository root after building:

  PYTHONPATH=python /usr/bin/python3 benchmarks/linalg_bench.py [--threads 1 2] [--repeat 7] [--json out.json]
"""
import argparse

import numpy as np

import ember
import torch
from side_by_side import finish, medians_ms

SIZES = [(1024, 4), (256, 16), (1, 256), (1, 512)]
OPS = {
    "svd": lambda m, a: m.linalg.svd(a["A"], full_matrices=False),
    "solve": lambda m, a: m.linalg.solve(a["W"], a["B"]),
    "cholesky": lambda m, a: m.linalg.cholesky(a["P"]),
}


def inputs(m, batch, n, dtype):
    rng = np.random.default_rng(batch * 1000 + n)
    a = rng.uniform(-1, 1, (batch, n, n)).astype(dtype)
    arrays = {"A": a, "W": a + n * np.eye(n, dtype=dtype), "B": rng.uniform(-1, 1, (batch, n, 1)).astype(dtype),
              "P": a @ np.swapaxes(a, -1, -2) + n * np.eye(n, dtype=dtype)}
    return {k: m.from_numpy(np.ascontiguousarray(v)) for k, v in arrays.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeat", type=int, default=7, help="samples per (case, framework)")
    ap.add_argument("--number", type=int, default=0, help="calls per sample (0: about 0.05 s worth)")
    ap.add_argument("--dtypes", nargs="+", default=["float32", "float64"])
    ap.add_argument("--json", help="write the medians here")
    args = ap.parse_args()
    rows = []
    print(f"{'op':9} {'dtype':8} {'batch x n':>11} {'thr':>3} {'ember ms':>10} {'torch ms':>10} {'ratio':>6}")
    for threads in args.threads:
        for dtype in args.dtypes:
            for op, fn in OPS.items():
                for batch, n in SIZES:
                    data = {"ember": inputs(ember, batch, n, dtype), "torch": inputs(torch, batch, n, dtype)}
                    med = medians_ms(fn, data, threads, args.repeat, args.number)
                    ratio = med["ember"] / med["torch"]
                    rows.append(dict(op=op, dtype=dtype, batch=batch, n=n, threads=threads, ember_ms=med["ember"],
                                     torch_ms=med["torch"], ratio=ratio))
                    print(f"{op:9} {dtype:8} {f'{batch}x{n}':>11} {threads:>3} {med['ember']:10.4f} "
                          f"{med['torch']:10.4f} {ratio:6.2f}", flush=True)
    finish(rows, lambda r: f"{r['op']} {r['dtype']} {r['batch']}x{r['n']}", args.json)


if __name__ == "__main__":
    main()
