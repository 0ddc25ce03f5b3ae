#!/usr/bin/python3
"""The Fashion-MNIST main job's training step and test pass, Ember and PyTorch side by side in one process.

Runs the CNN, optimizer and schedule of examples/fashion_mnist/train.py (its functions, imported) on both
frameworks, on the same real training batches and from the same initial weights, and reports per thread count:

  step   median wall time of one training step (forward, cross_entropy, backward, AdamW step, OneCycleLR step,
         loss.item()) on a batch of 128, and the epoch time it implies (469 steps: 60,000 images)
  eval   median wall time of the no_grad test pass over the 10,000 test images (batches of 1000, model.eval())

Samples are interleaved (a block of --steps steps on Ember, then the same on PyTorch, --rounds times) so a busy
neighbour hits both sides alike; both sides get the same explicit thread count (ember.set_num_threads(n),
torch.set_num_threads(n)) before every block. Run from the repository root after `make` (see BENCHMARKS.md):

  PYTHONPATH=python /usr/bin/python3 benchmarks/epoch_bench.py [--threads 1 2] [--rounds 5] [--steps 10]
      [--eval-rounds 3]

The full job (DataLoader, progress bar, evaluation after each epoch) is timed by train.py itself, which prints
each epoch's time; BENCHMARKS.md records both.
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "fashion_mnist"))
import train  # noqa: E402  (examples/fashion_mnist/train.py)

import ember  # noqa: E402
import torch  # noqa: E402

FRAMEWORKS = {"ember": ember, "torch": torch}
BATCH = 128
STEPS_PER_EPOCH = -(-60000 // BATCH)  # 469, the last batch being partial


def loaded_libraries(*needles):
    """Paths of the shared libraries mapped into this process whose names contain one of the needles."""
    with open("/proc/self/maps") as f:
        return sorted({line.split()[-1] for line in f if any(n in line.split()[-1] for n in needles)
                       and "/" in line})


def set_threads(n):
    for mod in FRAMEWORKS.values():
        mod.set_num_threads(n)
    assert ember.get_num_threads() == n and torch.get_num_threads() == n


class Side:
    """One framework's model, optimizer, schedule and tensors of the shared batches."""

    def __init__(self, mod, weights, batches, test_x, test_y, total_steps):
        self.mod = mod
        self.model = train.build_model(mod.nn)
        self.model.load_state_dict({k: mod.from_numpy(v.copy()) for k, v in weights.items()})
        # The schedule spans every step this benchmark takes, so it never runs past its end.
        self.optimizer, self.scheduler = train.make_optimizer(mod, self.model, 1, total_steps)
        self.batches = [(mod.from_numpy(x), mod.from_numpy(y)) for x, y in batches]
        self.test_x, self.test_y = mod.from_numpy(test_x), mod.from_numpy(test_y)
        self.next = 0

    def steps(self, n):
        """Runs n training steps; returns the wall time of each and the last loss."""
        times = []
        for _ in range(n):
            x, y = self.batches[self.next % len(self.batches)]
            self.next += 1
            start = time.perf_counter()
            loss = train.train_step(self.mod, self.model, self.optimizer, self.scheduler, x, y)
            times.append(time.perf_counter() - start)
        return times, loss

    def evaluate(self):
        start = time.perf_counter()
        accuracy = train.evaluate(self.mod, self.model, self.test_x, self.test_y)
        return time.perf_counter() - start, accuracy


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    p.add_argument("--rounds", type=int, default=5, help="interleaved blocks of steps per framework")
    p.add_argument("--steps", type=int, default=10, help="training steps per block")
    p.add_argument("--eval-rounds", type=int, default=3, help="test passes per framework (0: none)")
    p.add_argument("--warmup", type=int, default=3, help="untimed steps per framework and thread count")
    p.add_argument("--data-dir", default=train.DATA_DIR)
    args = p.parse_args()

    # The same real batches for both: the first images of the training set in a seeded random order.
    n_batches = 40
    train_x, train_y = train.load_split("train", args.data_dir)
    order = np.random.default_rng(0).permutation(train_x.shape[0])[:n_batches * BATCH]
    batches = [(np.ascontiguousarray(train_x[idx]), np.ascontiguousarray(train_y[idx]))
               for idx in np.split(order, n_batches)]
    test_x, test_y = train.load_split("test", args.data_dir)

    torch.manual_seed(0)
    weights = {k: v.numpy().copy() for k, v in train.build_model(torch.nn).state_dict().items()}
    total_steps = len(args.threads) * (args.warmup + args.rounds * args.steps)
    sides = {name: Side(mod, weights, batches, test_x, test_y, total_steps) for name, mod in FRAMEWORKS.items()}

    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
               "unknown")
    print(f"# {cpu}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; ember "
          f"{ember._C._cpu_capability()}, torch {torch.__version__}")
    print(f"# BLAS: ember {ember.backends.blas.config()}; mapped: "
          f"{', '.join(loaded_libraries('blas', 'mkl', 'dnnl'))}")
    print(f"# GLIBC_TUNABLES='{os.environ.get('GLIBC_TUNABLES', '')}'")
    for threads in args.threads:
        set_threads(threads)
        for side in sides.values():
            side.steps(args.warmup)
        samples = {name: [] for name in sides}
        for _ in range(args.rounds):
            for name, side in sides.items():
                set_threads(threads)
                samples[name] += side.steps(args.steps)[0]
        eval_samples = {name: [] for name in sides}
        accuracy = {}
        for _ in range(args.eval_rounds):
            for name, side in sides.items():
                set_threads(threads)
                seconds, accuracy[name] = side.evaluate()
                eval_samples[name].append(seconds)
        step = {name: statistics.median(s) for name, s in samples.items()}
        print(f"\n## threads={threads}: median of {args.rounds * args.steps} training steps (batch {BATCH}), "
              f"{args.eval_rounds} test passes (10,000 images)")
        print(f"{'':8} {'step ms':>9} {'epoch s (469 steps)':>20} {'eval s':>8}")
        for name in sides:
            ev = f"{statistics.median(eval_samples[name]):8.2f}" if eval_samples[name] else f"{'-':>8}"
            print(f"{name:8} {step[name] * 1e3:9.1f} {step[name] * STEPS_PER_EPOCH:20.1f} {ev}")
        ratio = step["ember"] / step["torch"]
        line = f"ember/torch step time: {ratio:.2f}"
        if args.eval_rounds:
            eval_ratio = statistics.median(eval_samples['ember']) / statistics.median(eval_samples['torch'])
            line += (f"; eval time: {eval_ratio:.2f} (accuracies after these few steps: ember "
                     f"{accuracy['ember']:.4f}, torch {accuracy['torch']:.4f})")
        print(line)


if __name__ == "__main__":
    main()
