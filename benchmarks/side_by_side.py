"""The timing loop the op benchmarks share (linalg_bench.py, fft_bench.py): Ember and PyTorch timed in one
process on the same inputs, samples interleaved across the frameworks (a busy neighbour hits both alike), the
thread count set on both sides before every sample, the median sample reported."""
import json
import statistics
import timeit

import ember
import torch

MODULES = {"ember": ember, "torch": torch}


def medians_ms(fn, data, threads, repeat, number=0, warm=False):
    """Median milliseconds per call of fn(module, data[name]) for each framework name ("ember", "torch").

    number: calls per sample (0: about 0.05 s of PyTorch's calls); warm: one untimed call on each side first
    (plans and caches built before the calls per sample are estimated)."""
    timers = {k: timeit.Timer(lambda k=k: fn(MODULES[k], data[k])) for k in MODULES}
    for k in MODULES:
        MODULES[k].set_num_threads(threads)
        if warm:
            timers[k].timeit(1)
    number = number or max(1, int(0.05 / max(1e-6, timers["torch"].timeit(1))))
    samples = {k: [] for k in MODULES}
    for _ in range(repeat):
        for k, t in timers.items():
            MODULES[k].set_num_threads(threads)
            samples[k].append(t.timeit(number) / number)
    return {k: statistics.median(v) * 1e3 for k, v in samples.items()}


def finish(rows, case, json_path):
    """Prints the row of the largest Ember / PyTorch ratio (case(row) names it) and writes rows to json_path."""
    worst = max(rows, key=lambda r: r["ratio"])
    print(f"worst case: {case(worst)} at {worst['threads']} thread(s): {worst['ratio']:.2f}x PyTorch's time")
    if json_path:
        with open(json_path, "w") as f:
            json.dump(rows, f, indent=1)
