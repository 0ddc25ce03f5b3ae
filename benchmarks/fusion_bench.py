#!/usr/bin/python3
"""Elementwise fusion (Note [elementwise fusion]): a chain of elementwise ops as one aten::_fused_elementwise
call (one pass over memory) against the same chain op by op in Ember and in PyTorch 1.13.

Chains (float32, N elements each, default 1M):
  swish_bias   x * sigmoid(x) + b           3 ops unfused: 2 inputs read, 3 outputs written, 2 re-read
  relu_mad     relu(a * b + c)              3 ops unfused: 3 inputs read, 3 outputs written, 2 re-read
Variants:
  ember_unfused   the ops one by one (ember.sigmoid, ember.mul, ...)
  ember_fused     ember._fused_elementwise with the program the fusion pass would emit
  torch_eager     the same ops in PyTorch eager mode
  torch_script    torch.jit.trace + torch.jit.freeze of the chain: PyTorch 1.13's TorchScript does not fuse on
                  the CPU by default (torch._C._jit_can_fuse_on_cpu() is False), so this is op by op too

Samples are interleaved across variants (a busy neighbour hits all alike), the thread count is set on both
sides before every sample, and the median sample is reported with ratios. Run from the repository root after
building:

  PYTHONPATH=python /usr/bin/python3 benchmarks/fusion_bench.py [--n 1000000] [--threads 1] [--repeat 15]
"""
import argparse
import statistics
import timeit

import ember
import torch


def program(*instrs):
    codes = {"input": 0, "sigmoid": 13, "relu": 12, "add": 40, "mul": 42}
    out = []
    for name, a, b in instrs:
        out += [codes[name], a, b]
    return out


SWISH_BIAS = program(("input", 0, 0), ("sigmoid", 0, 0), ("mul", 0, 1), ("input", 1, 0), ("add", 2, 3))
RELU_MAD = program(("input", 0, 0), ("input", 1, 0), ("mul", 0, 1), ("input", 2, 0), ("add", 2, 3), ("relu", 4, 0))


def swish_bias(m, x, b):
    return x * m.sigmoid(x) + b


def relu_mad(m, a, b, c):
    return m.relu(a * b + c)


def cases(n):
    g = torch.Generator().manual_seed(0)
    t = [torch.randn(n, generator=g) for _ in range(3)]
    e = [ember.from_numpy(x.numpy()) for x in t]
    with torch.no_grad():
        ts_swish = torch.jit.freeze(torch.jit.trace(_Swish().eval(), (t[0], t[1])))
        ts_mad = torch.jit.freeze(torch.jit.trace(_Mad().eval(), (t[0], t[1], t[2])))
    return {
        "swish_bias": {
            "ember_unfused": lambda: swish_bias(ember, e[0], e[1]),
            "ember_fused": lambda: ember._fused_elementwise([e[0], e[1]], SWISH_BIAS),
            "torch_eager": lambda: swish_bias(torch, t[0], t[1]),
            "torch_script": lambda: ts_swish(t[0], t[1]),
        },
        "relu_mad": {
            "ember_unfused": lambda: relu_mad(ember, e[0], e[1], e[2]),
            "ember_fused": lambda: ember._fused_elementwise([e[0], e[1], e[2]], RELU_MAD),
            "torch_eager": lambda: relu_mad(torch, t[0], t[1], t[2]),
            "torch_script": lambda: ts_mad(t[0], t[1], t[2]),
        },
    }


class _Swish(torch.nn.Module):
    def forward(self, x, b):
        return swish_bias(torch, x, b)


class _Mad(torch.nn.Module):
    def forward(self, a, b, c):
        return relu_mad(torch, a, b, c)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=1_000_000)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--repeat", type=int, default=15)
    p.add_argument("--number", type=int, default=20)
    args = p.parse_args()
    print(f"# fusion_bench: n={args.n} float32, threads={args.threads}, {args.repeat} samples of {args.number} "
          f"calls; torch {torch.__version__}, _jit_can_fuse_on_cpu={torch._C._jit_can_fuse_on_cpu()}")
    all_cases = cases(args.n)
    samples = {(c, v): [] for c, vs in all_cases.items() for v in vs}
    with torch.no_grad(), ember.no_grad():
        for c, vs in all_cases.items():  # check the fused result and warm up
            ref = vs["ember_unfused"]()
            assert ember.equal(vs["ember_fused"](), ref), c
            for f in vs.values():
                f()
        for _ in range(args.repeat):
            for c, vs in all_cases.items():
                for v, f in vs.items():
                    torch.set_num_threads(args.threads)
                    ember.set_num_threads(args.threads)
                    samples[(c, v)].append(timeit.timeit(f, number=args.number) / args.number)
    print(f"{'chain':<12} {'variant':<14} {'median us':>10} {'Melem/s':>9} {'/ember_unfused':>15} {'/torch_eager':>13}")
    for c, vs in all_cases.items():
        med = {v: statistics.median(samples[(c, v)]) for v in vs}
        for v in vs:
            print(f"{c:<12} {v:<14} {med[v] * 1e6:>10.1f} {args.n / med[v] / 1e6:>9.0f} "
                  f"{med[v] / med['ember_unfused']:>15.2f} {med[v] / med['torch_eager']:>13.2f}")


if __name__ == "__main__":
    main()
