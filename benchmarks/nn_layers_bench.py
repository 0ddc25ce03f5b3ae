#!/usr/bin/python3
"""Issue 20's layers, Ember and PyTorch 1.13 side by side in one process: median wall time of forward + backward
(input and parameter gradients) at the issue's shapes, samples interleaved across the frameworks
(side_by_side.medians_ms), at 1 and 2 threads set explicitly on both sides.

  PYTHONPATH=python /usr/bin/python3 benchmarks/nn_layers_bench.py [--threads 1 2] [--repeat 9] [--only NAME]
      [--json FILE]

Run it both as it is and with GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=4294967295
(PyTorch with freed memory kept); a goal holds against the faster PyTorch figure. Goal (issue 20): at most 0.8x
PyTorch's time.

Cases:
- LSTM(256, 512, num_layers=2) on 64 sequences of 35 tokens (input (35, 64, 256));
- TransformerEncoderLayer(512, 8) on 32 sequences of 128 tokens (batch_first, dropout 0 so the two frameworks do
  the same arithmetic);
- ConvTranspose2d(128, 64, 4, stride=2, padding=1) on (64, 128, 16, 16) (a DCGAN generator's block);
- F.interpolate(bilinear, scale_factor=2) on (32, 64, 32, 32).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from side_by_side import MODULES, finish, medians_ms  # noqa: E402


def cases(lib):
    """name -> (module or function, input) for the framework `lib`, seeded."""
    lib.manual_seed(0)
    nn, F = lib.nn, lib.nn.functional
    return {
        "LSTM(256, 512, num_layers=2) 35x64": (nn.LSTM(256, 512, num_layers=2), lib.randn(35, 64, 256)),
        "TransformerEncoderLayer(512, 8) 32x128": (
            nn.TransformerEncoderLayer(512, 8, dropout=0.0, batch_first=True), lib.randn(32, 128, 512)),
        "ConvTranspose2d(128, 64, 4, 2, 1) 64x128x16x16": (
            nn.ConvTranspose2d(128, 64, 4, stride=2, padding=1), lib.randn(64, 128, 16, 16)),
        "interpolate(bilinear, x2) 32x64x32x32": (
            lambda x: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False),
            lib.randn(32, 64, 32, 32)),
    }


def step(lib, data):
    layer, x = data
    out = layer(x)
    if isinstance(out, tuple):
        out = out[0]
    out.sum().backward()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--only", help="run the cases whose name contains this")
    parser.add_argument("--json")
    args = parser.parse_args()
    data = {k: cases(lib) for k, lib in MODULES.items()}
    for k in data:
        for layer, x in data[k].values():
            x.requires_grad_(True)
    names = [n for n in data["ember"] if not args.only or args.only in n]
    print(f"# PyTorch {MODULES['torch'].__version__}, GLIBC_TUNABLES='{os.environ.get('GLIBC_TUNABLES', '')}'")
    print(f"{'case':48} {'threads':>7} {'ember ms':>10} {'torch ms':>10} {'ratio':>6}")
    rows = []
    for name in names:
        for threads in args.threads:
            ms = medians_ms(step, {k: data[k][name] for k in data}, threads, args.repeat, number=1, warm=True)
            ratio = ms["ember"] / ms["torch"]
            rows.append({"case": name, "threads": threads, "ember_ms": ms["ember"], "torch_ms": ms["torch"],
                         "ratio": ratio})
            print(f"{name:48} {threads:>7} {ms['ember']:>10.2f} {ms['torch']:>10.2f} {ratio:>6.2f}", flush=True)
    finish(rows, lambda r: r["case"], args.json)


if __name__ == "__main__":
    main()
