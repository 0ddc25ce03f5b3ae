#!/usr/bin/python3
"""Runs Ember's benchmarks side by side with PyTorch 1.13 and writes the tables of BENCHMARKS.md.

Areas (--areas, default all; --list shows the programs each runs):
  overhead     per-op overhead from C++ and Python, forward + backward of a tiny graph
  elementwise  elementwise throughput from C++ (1M and 16M float32, fresh output and out=)
  reductions   sum over each dim and softmax of a (4096, 1024) float32 matrix, from C++
  gemm         float32 matrix products: square, and the shapes of the main job's training step
  conv         conv2d forward and backward: issue 3's shapes and the main job's
  train_py     the main job's training step from Python (examples/fashion_mnist/train.py's model and recipe)
  train_cpp    the training step from C++ (ember::nn / ember::optim against LibTorch's torch::nn / torch::optim)
  latency      batch-1 and batch-64 latency of the exported models, from C++ and from Python
  import       start-up: `import ember` / `import torch`, loading the C++ library, memory, library size
  serialize    save and load of a 100 MB state dict

Each area runs its programs (benchmarks/*.py and the C++ programs in BUILD/benchmarks/) twice: with PyTorch's
allocator as it is, and with glibc told to keep freed memory (GLIBC_TUNABLES below), because PyTorch allocates
large tensors with plain malloc and by default pays for fresh pages on every call. Every program times Ember and
PyTorch interleaved in one process at the same explicit thread counts (--threads) and reports medians of its
samples. Per case and thread count the table keeps the run in which PyTorch was faster, shows Ember's median from
that same run, and the ratio Ember's time / PyTorch's time (below 1: Ember is faster) beside the goal the issues
set. The tables are Markdown: printed, or with --write FILE put between FILE's marker comments
`<!-- bench:AREA begin -->` and `<!-- bench:AREA end -->` (the rest of FILE is left as it is).

  /usr/bin/python3 benchmarks/run_all.py --write BENCHMARKS.md           # every area; about an hour, quiet machine
  /usr/bin/python3 benchmarks/run_all.py --areas gemm,conv --threads 1,2   # two areas, printed
  /usr/bin/python3 benchmarks/run_all.py --quick --areas import,gemm       # smoke test: few samples, minutes
  /usr/bin/python3 benchmarks/run_all.py --build /other/build --python-path /other/python --areas gemm

Build first (`make`). The Python programs run with PYTHONPATH=--python-path (default python/, where `make` puts
the extension). Every program's output, the JSON the programs write and the commands run (with the load average
before and after) are kept in --out.
"""
import argparse
import datetime
import json
import os
import re
import shlex
import subprocess
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PYTHON = "/usr/bin/python3"
GLIBC_KEEP = "glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=4294967295"
SETTINGS = {"as is": {}, "tunables": {"GLIBC_TUNABLES": GLIBC_KEEP}}
DAGGER = "†"  # marks a PyTorch figure from the run with GLIBC_TUNABLES

# Loads both frameworks' BLAS/oneDNN (a GEMM and a convolution each) and reports the machine and the libraries.
PROBE = r"""
import json, os, re
import ember, torch
a = ember.ones(64, 64); a @ a; ember.nn.functional.conv2d(ember.ones(1, 8, 8, 8), ember.ones(8, 8, 3, 3))
b = torch.ones(64, 64); b @ b; torch.nn.functional.conv2d(torch.ones(1, 8, 8, 8), torch.ones(8, 8, 3, 3))
maps = sorted({l.split()[-1] for l in open("/proc/self/maps") if "/" in l})
mem = next(int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal"))
show = torch.__config__.show()
print(json.dumps({
    "cpu": next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?"),
    "cores": os.cpu_count(), "mem_gb": round(mem / 2**20),
    "ember_isa": ember._C._cpu_capability(), "ember_blas": ember.backends.blas.config(),
    "ember_onednn": ember.backends.onednn.config(), "torch": torch.__version__,
    "torch_isa": (re.findall(r"CPU capability usage: (\w+)", show) or ["?"])[0],
    "torch_blas_info": (re.findall(r"BLAS_INFO=(\w+)", show) or ["?"])[0],
    "torch_blas": [p for p in maps if os.path.basename(p).startswith("libblas.so")],
    "torch_dnnl": [p for p in maps if "dnnl" in os.path.basename(p)],
    "openblas_env": {k: os.environ[k] for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if k in os.environ},
}))
"""


class Table:
    """The rows of one area: case -> unit, goal (bound on Ember / PyTorch time, source), whether the figures
    are rates (higher is faster), and cells {threads: {setting: (ember, torch)}} (threads 0: not threaded)."""

    def __init__(self):
        self.rows = {}

    def add(self, case, unit, threads, setting, ember, torch, goal=None, rate=False):
        row = self.rows.setdefault(case, {"unit": unit, "goal": goal, "rate": rate, "cells": {}})
        row["cells"].setdefault(threads, {})[setting] = (ember, torch)

    def markdown(self):
        groups = sorted({t for row in self.rows.values() for t in row["cells"]})
        head = ["case", "unit"]
        for t in groups:
            at = f", {t} thread{'s' if t > 1 else ''}" if t else ""
            head += [f"Ember{at}", f"PyTorch{at}", f"Ember / PyTorch{at}"]
        lines = ["| " + " | ".join(head + ["goal"]) + " |",
                 "| --- | --- |" + " ---: |" * (3 * len(groups)) + " --- |"]
        for case, row in self.rows.items():
            cells, ratios = [case, row["unit"]], []
            for t in groups:
                e, t_, setting = pick(row["cells"].get(t, {}), row["rate"])
                q = None if e is None or t_ is None else (t_ / e if row["rate"] else e / t_)
                if q is not None:
                    ratios.append(q)
                cells += [num(e), num(t_) + (DAGGER if setting == "tunables" else ""),
                          "—" if q is None else f"**{q:.2f}**"]
            lines.append("| " + " | ".join(cells + [goal_text(row["goal"], ratios)]) + " |")
        return "\n".join(lines)


def pick(cell, rate):
    """(Ember, PyTorch, setting) from the run in which PyTorch was faster; Ember from another run if that one
    has no Ember figure."""
    runs = [(s, e, t) for s, (e, t) in cell.items() if t is not None]
    embers = [e for e, _ in cell.values() if e is not None]
    if not runs:
        return (embers[0] if embers else None), None, None
    s, e, t = (max if rate else min)(runs, key=lambda run: run[2])
    return (e if e is not None else embers[0] if embers else None), t, s


def num(x):
    if x is None:
        return "—"
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.1f}" if abs(x) >= 10 else f"{x:.2f}" if abs(x) >= 1 \
        else f"{x:.3f}"


def goal_text(goal, ratios):
    if goal is None:
        return "—"
    bound, source = goal
    verdict = "" if not ratios else ": met" if all(q <= bound for q in ratios) else ": not met"
    return f"≤ {bound:.2f} ({source}){verdict}"


class Runner:
    """Runs the programs of the areas and keeps their output, the commands and the load in --out."""

    def __init__(self, args):
        self.args, self.quick, self.threads = args, args.quick, args.threads
        self.build = os.path.abspath(args.build)
        self.out = os.path.abspath(args.out)
        self.log = os.path.join(self.out, "commands.txt")
        os.makedirs(self.out, exist_ok=True)

    def path(self, name):
        return os.path.join(self.out, name)

    def script(self, name, *argv):
        return [PYTHON, os.path.join("benchmarks", name), *map(str, argv)]

    def binary(self, name, *argv):
        return [os.path.join(self.build, "benchmarks", name), *map(str, argv)]

    def env(self, setting):
        env = dict(os.environ)
        env.pop("GLIBC_TUNABLES", None)  # "as is" is glibc's default behaviour
        env.update(SETTINGS[setting])
        env["PYTHONPATH"] = os.path.abspath(self.args.python_path)
        return env

    def run(self, argv, setting, tag):
        """Runs argv from the repository root under the setting; returns its stdout (also kept in --out)."""
        extra = dict(SETTINGS[setting], PYTHONPATH=os.path.abspath(self.args.python_path))
        shown = " ".join(f"{k}={v}" for k, v in extra.items()) + " " + " ".join(map(shlex.quote, argv))
        print(f"+ {shown}", file=sys.stderr, flush=True)
        start, load = now(), os.getloadavg()[0]
        proc = subprocess.run(argv, env=self.env(setting), cwd=ROOT, stdout=subprocess.PIPE, text=True)
        name = f"{tag}.{setting.replace(' ', '_')}.txt"
        with open(self.path(name), "w") as f:
            f.write(proc.stdout)
        with open(self.log, "a") as f:
            f.write(f"{shown}\n#   {start:%Y-%m-%d %H:%M:%S} UTC, load average {load:.2f}; finished "
                    f"{now():%H:%M:%S}, load average {os.getloadavg()[0]:.2f}; output {name}\n")
        if proc.returncode:
            raise RuntimeError(f"{argv[1] if argv[0] == PYTHON else argv[0]} exited with {proc.returncode}")
        return proc.stdout

    def gbench(self, suites, setting, tag, ops=None):
        """ember_bench's medians: {(suite, case, threads): {"ember": ns, "libtorch": ns}} (CPU time of the
        calling thread for the 1-element cases, wall time for the others, as the program measures them)."""
        out = self.jpath(tag, setting)
        reps, min_time = (2, 0.02) if self.quick else (5, 0.1)
        argv = self.binary("ember_bench", f"--suite={suites}", "--threads=" + ",".join(map(str, self.threads)),
                           f"--benchmark_repetitions={reps}", f"--benchmark_min_time={min_time}",
                           "--benchmark_report_aggregates_only=true", "--benchmark_enable_random_interleaving=true",
                           f"--benchmark_out={out}", "--benchmark_out_format=json")
        self.run(argv + ([f"--ops={ops}"] if ops else []), setting, tag)
        with open(out) as f:
            data = json.load(f)
        r = {}
        for b in data["benchmarks"]:
            if b.get("aggregate_name") != "median":
                continue
            parts = b["run_name"].removesuffix("/real_time").split("/")
            suite, fw, threads = parts[0], parts[-1], int(parts[-2].split(":")[1])
            scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b["time_unit"]]
            t = b["real_time"] if b["run_name"].endswith("/real_time") else b["cpu_time"]
            r.setdefault((suite, "/".join(parts[1:-2]), threads), {})[fw] = t * scale
        return r

    def jpath(self, tag, setting):
        """Where a program run under the setting writes its JSON."""
        return self.path(f"{tag}.{setting.replace(' ', '_')}.json")

    def json_of(self, tag, setting):
        with open(self.jpath(tag, setting)) as f:
            return json.load(f)


def now():
    return datetime.datetime.now(datetime.timezone.utc)


def thread_args(r):
    return [str(t) for t in r.threads]


# ---- the areas: each runs its programs under both settings and fills a Table

# The order of the rows (Google Benchmark reports interleaved cases in any order).
OPS = ["add", "mul", "mul_add", "addcmul", "relu", "exp", "tanh", "sigmoid", "t_copy", "view", "tiny_graph",
       "sum_dim1", "sum_dim0", "softmax"]


def in_order(results):
    """ember_bench's results sorted by size, output, op and thread count."""
    def key(item):
        (_, case, th), _ = item
        op, *rest = case.split("/")
        return rest[:1] != ["1M"], rest[1:], OPS.index(op) if op in OPS else len(OPS), th
    return sorted(results.items(), key=key)


def area_overhead(r, tab):
    for s in SETTINGS:
        for (suite, case, th), fw in in_order(r.gbench("dispatch,autograd", s, "overhead_cpp")):
            if suite == "dispatch":
                tab.add(f"C++: {case} (1 element)", "ns", th, s, fw.get("ember"), fw.get("libtorch"),
                        (0.5, "issue 2"))
            else:
                e, t = fw.get("ember"), fw.get("libtorch")
                tab.add("C++: tiny graph, forward + backward", "µs", th, s, e and e / 1e3, t and t / 1e3,
                        (0.5, "issue 4"))
    for s in SETTINGS:
        reps = ["--repeat", "3", "--target", "0.01"] if r.quick else ["--repeat", "11"]
        r.run(r.script("python_bench.py", "--suite", "dispatch", "--threads", *thread_args(r), *reps, "--json",
                       r.jpath("overhead_py", s)), s, "overhead_py")
        for key, v in r.json_of("overhead_py", s)["dispatch"].items():
            name, th = key.split("|")
            tab.add(f"Python: `{name.split(': ', 1)[1]}`", "ns", int(th), s, v["ember_ns"], v["torch_ns"],
                    (0.25, "issue 24"))
    for s in SETTINGS:
        reps = ["--repeat", "3", "--number", "200"] if r.quick else ["--repeat", "15"]
        r.run(r.script("autograd_bench.py", "--threads", *thread_args(r), *reps, "--json",
                       r.jpath("autograd_py", s)), s, "autograd_py")
        labels = {"tiny_graph": ("tiny graph, forward + backward", (0.25, "issue 24")),
                  "forward": ("tiny graph, forward only", None), "train_step": ("one SGD step of a 1-weight fit", None)}
        for key, v in r.json_of("autograd_py", s).items():
            name, th = key.split("|")
            label, goal = labels[name]
            tab.add(f"Python: {label}", "µs", int(th), s, v["ember_ns"] / 1e3, v["torch_ns"] / 1e3, goal)


def area_elementwise(r, tab):
    for s in SETTINGS:
        res = r.gbench("throughput", s, "elementwise", ops="add,relu,exp" if r.quick else None)
        for (_, case, th), fw in in_order(res):
            op, size, out = case.split("/")
            label = f"{'a * b + c' if op == 'mul_add' else 'a.t().contiguous()' if op == 't_copy' else op} {size}"
            tab.add(f"{label}, {'out=' if out == 'out' else 'fresh output'}", "µs", th, s,
                    fw.get("ember", 0) / 1e3 or None, fw.get("libtorch", 0) / 1e3 or None, (1.0, "issue 2"))


def area_reductions(r, tab):
    names = {"sum_dim1": "sum(dim=1)", "sum_dim0": "sum(dim=0)", "softmax": "softmax(dim=1)"}
    for s in SETTINGS:
        for (_, case, th), fw in in_order(r.gbench("reduce", s, "reductions")):
            op, size, out = case.split("/")
            tab.add(f"{names[op]} of {size.replace('x', '×')}, {'out=' if out == 'out' else 'fresh output'}", "µs",
                    th, s, fw.get("ember", 0) / 1e3 or None, fw.get("libtorch", 0) / 1e3 or None)


GEMM_SQUARES = ["256x256x256", "512x512x512", "1024x1024x1024", "2048x2048x2048"]
GEMM_STEP = ["64x784x512", "64x512x784", "512x64x784", "64x288x196"]  # the main job's training step


def area_gemm(r, tab):
    shapes = ["256x256x256", "64x784x512"] if r.quick else GEMM_SQUARES + GEMM_STEP
    reps = ["--repeat", "3", "--target", "0.05"] if r.quick else ["--repeat", "11", "--target", "0.2"]
    goal = (1 / 0.95, "issue 3: ≥ 0.95× GFLOP/s")
    for s in SETTINGS:
        r.run(r.script("matmul_bench.py", "--shapes", *shapes, "--threads", *thread_args(r), *reps, "--json",
                       r.jpath("gemm", s)), s, "gemm")
        gemm = r.json_of("gemm", s)["gemm"]
        for shape in shapes:  # fresh outputs only in the table; out= is in the JSON
            for th in r.threads:
                v = gemm[f"float32|{th}|{shape}|fresh"]
                label = f"mm {shape.replace('x', '×')}" + (" (training step)" if shape in GEMM_STEP else "")
                tab.add(label, "GFLOP/s", th, s, v["ember_gflops"], v["torch_gflops"], goal, rate=True)
                tab.add(label + ", Ember on OpenBLAS", "GFLOP/s", th, s, v["ember_blas_gflops"], v["torch_gflops"],
                        goal, rate=True)


def area_conv(r, tab):
    reps = ["--repeat", "3", "--target", "0.05"] if r.quick else ["--repeat", "7", "--target", "0.2"]
    for s in SETTINGS:
        r.run(r.script("conv_bench.py", "--threads", *thread_args(r), *reps, "--json", r.jpath("conv", s)), s,
              "conv")
        for key, v in r.json_of("conv", s).items():
            th, case, op = key.split("|")
            tab.add(f"conv2d {case.replace('->', '→')}, {op}", "ms", int(th), s, v["ember_ms"], v["torch_ms"],
                    (1.5, "issue 3"))
    line = re.compile(r"^(.*?)\s+(fwd\+bwd|fwd)\s+ember\s+([\d.]+) ms\s+torch\s+([\d.]+) ms")
    for s in SETTINGS:
        for th in r.threads:
            out = r.run(r.script("conv_provider_bench.py", "--threads", th, "--repeat", 5 if r.quick else 30), s,
                        f"conv_provider_t{th}")
            for m in map(line.match, out.splitlines()):
                if m and m.group(1).startswith(("conv1", "conv2")):  # the main job's two convolutions
                    tab.add(f"main job's {m.group(1)}, {m.group(2)}", "ms", th, s, float(m.group(3)),
                            float(m.group(4)))


def area_train_py(r, tab):
    argv = ["--rounds", "2", "--steps", "3", "--warmup", "1", "--eval-rounds", "0"] if r.quick else []
    for s in SETTINGS:
        out = r.run(r.script("epoch_bench.py", "--threads", *thread_args(r), *argv), s, "train_py")
        th, got = None, {}
        for ln in out.splitlines():
            if m := re.match(r"## threads=(\d+)", ln):
                th = int(m.group(1))
            elif m := re.match(r"(ember|torch)\s+([\d.]+)\s+([\d.]+)\s+(\S+)$", ln):
                got[(th, m.group(1))] = (float(m.group(2)), None if m.group(4) == "-" else float(m.group(4)))
        for th in r.threads:
            (es, ee), (ts, te) = got[(th, "ember")], got[(th, "torch")]
            tab.add("CNN training step, batch 128 (AdamW, OneCycleLR)", "ms", th, s, es, ts, (0.6, "issue 24"))
            if ee is not None:
                tab.add("test pass, 10,000 images (no_grad, batches of 1000)", "s", th, s, ee, te)


def area_train_cpp(r, tab):
    argv = ["--rounds", "2", "--steps", "3", "--warmup", "2", "--batches", "4"] if r.quick else ["--rounds", "11"]
    names = {"cnn": "CNN + AdamW step, batch 64", "mlp": "MLP 784-512-256-10 + SGD step, batch 64"}
    for s in SETTINGS:
        out = r.run(r.binary("ember_train_step_bench", "--threads", ",".join(thread_args(r)), *argv), s,
                    "train_cpp")
        got = {}
        for ln in out.splitlines():
            f = ln.split()
            if len(f) >= 8 and f[-6] in ("ember", "libtorch") and f[-7].isdigit():
                got[(f[0], int(f[-7]), f[-6])] = float(f[-5])
        for (model, th, side), ms in got.items():
            if side == "ember":
                tab.add(names[model], "ms", th, s, ms, got.get((model, th, "libtorch")), (0.5, "issue 24"))


def area_latency(r, tab):
    models = r.path("latency")
    r.run(r.script("export_latency_models.py", "--out", models), "as is", "latency_export")
    calls = ["--rounds", "2", "--calls", "5"] if r.quick else ["--rounds", "20", "--calls", "20"]
    frozen_goal, best_goal = (0.4, "issue 24"), (0.8, "issue 24")  # against frozen; against the best mode
    for s in SETTINGS:
        out = r.run(r.binary("ember_latency_bench", "--dir", models, "--model", "cnn,mlp", "--threads",
                             ",".join(thread_args(r)), "--batch", "1,64", *calls), s, "latency_cpp")
        got = {}
        for ln in out.splitlines():
            f = ln.split()
            if len(f) >= 8 and f[-6].isdigit():
                got.setdefault((f[0], int(f[-6]), int(f[-5])), {})[" ".join(f[1:-6])] = float(f[-4])
        for (model, th, batch), v in got.items():
            e, name = v["ember jit runtime"], f"C++: {model.upper()} batch {batch}"
            if batch == 1:
                tab.add(f"{name} vs TorchScript frozen", "µs", th, s, e, v.get("torchscript frozen"), frozen_goal)
                if "torchscript optimize_for_inference" in v:
                    tab.add(f"{name} vs optimize_for_inference", "µs", th, s, e,
                            v["torchscript optimize_for_inference"], best_goal)
            else:
                best = min(t for k, t in v.items() if k.startswith("torchscript"))
                tab.add(f"{name} vs TorchScript's fastest mode", "µs", th, s, e, best, best_goal)
    for s in SETTINGS:
        out = r.run(r.script("export_latency_models.py", "--out", r.path("latency_py"), "--python", "--threads",
                             ",".join(thread_args(r)), "--batch", "1,64", "--calls", 20 if r.quick else 300), s,
                    "latency_py")
        got = {}
        for ln in out.splitlines():
            f = ln.split()
            if len(f) >= 5 and f[-3].isdigit() and f[-2].isdigit():
                got.setdefault((f[0], int(f[-3]), int(f[-2])), {})[" ".join(f[1:-3])] = float(f[-1])
        for (model, th, batch), v in got.items():
            name = f"Python: {model.upper()} batch {batch}"
            if batch == 1:
                tab.add(f"{name}, ember.jit.load vs torch.jit frozen", "µs", th, s, v["ember.jit.load"],
                        v["torch.jit frozen"], frozen_goal)
                tab.add(f"{name}, ember.jit.load vs optimize_for_inference", "µs", th, s, v["ember.jit.load"],
                        v["torch.jit optimized"], best_goal)
                tab.add(f"{name}, eager vs eager", "µs", th, s, v["ember eager"], v["torch eager"])
            else:
                best = min(t for k, t in v.items() if k.startswith("torch.jit"))
                tab.add(f"{name}, ember.jit.load vs torch.jit's fastest mode", "µs", th, s, v["ember.jit.load"], best,
                        best_goal)


def area_import(r, tab):
    labels = {"import_ms": ("`import ember` / `import torch` (fresh interpreter)", "ms"),
              "library_ms": ("load libember.so / libtorch.so (a C++ program's start)", "ms"),
              "rss_mb": ("peak resident memory after the import", "MB"),
              "library_mb": ("the framework's own shared libraries on disk", "MB")}
    for s in SETTINGS:
        r.run(r.script("import_bench.py", "--rounds", 5 if r.quick else 21, "--libember",
                       os.path.join(r.build, "lib", "libember.so"), "--json", r.jpath("import", s)), s, "import")
        res = r.json_of("import", s)
        for key, (label, unit) in labels.items():
            tab.add(label, unit, 0, s, res[key]["ember"], res[key]["torch"])


def area_serialize(r, tab):
    rounds = ["--rounds", "2" if r.quick else "7"]
    places = {"tmpfs": ("serialize_shm", ["--dir", "/dev/shm"]),
              "/tmp, a new file per save": ("serialize_tmp", ["--fresh"])}
    sizes = {}
    for s in SETTINGS:
        for place, (tag, argv) in places.items():
            out = r.run(r.script("serialize_bench.py", *rounds, *argv), s, tag)
            for m in re.finditer(r"^(save|load): ember\s+([\d.]+) ms.*?torch\s+([\d.]+) ms", out, re.M):
                tab.add(f"{m.group(1)} a 100 MB state dict, {place}", "ms", 1, s, float(m.group(2)),
                        float(m.group(3)))
            if m := re.search(r"^file size: ember (\d+) bytes, torch (\d+) bytes", out, re.M):
                sizes[s] = (int(m.group(1)) / 1e6, int(m.group(2)) / 1e6)
    for s, (e, t) in sizes.items():
        tab.add("file size", "MB", 1, s, e, t)


AREAS = {  # name: (function, what it runs)
    "overhead": (area_overhead, "ember_bench --suite=dispatch,autograd; python_bench.py --suite dispatch; "
                                "autograd_bench.py"),
    "elementwise": (area_elementwise, "ember_bench --suite=throughput"),
    "reductions": (area_reductions, "ember_bench --suite=reduce"),
    "gemm": (area_gemm, "matmul_bench.py --shapes ..."),
    "conv": (area_conv, "conv_bench.py; conv_provider_bench.py"),
    "train_py": (area_train_py, "epoch_bench.py"),
    "train_cpp": (area_train_cpp, "ember_train_step_bench"),
    "latency": (area_latency, "export_latency_models.py; ember_latency_bench; export_latency_models.py --python"),
    "import": (area_import, "import_bench.py"),
    "serialize": (area_serialize, "serialize_bench.py --dir /dev/shm; serialize_bench.py --fresh"),
}


def describe_machine(probe):
    ember_libs = f"Ember: {probe['ember_blas']}; {probe['ember_onednn']}"
    torch_libs = (f"PyTorch {probe['torch']}: BLAS_INFO={probe['torch_blas_info']} → "
                  f"{', '.join(probe['torch_blas']) or 'no libblas mapped'}; oneDNN "
                  f"{', '.join(probe['torch_dnnl']) or 'not mapped'}")
    env = ", ".join(f"{k}={v}" for k, v in probe["openblas_env"].items()) or "OPENBLAS_* unset"
    return (f"{probe['cpu']}, {probe['cores']} cores, {probe['mem_gb']} GB; Ember's kernels {probe['ember_isa']}, "
            f"PyTorch's {probe['torch_isa']}; {env}. Libraries loaded — {ember_libs}. {torch_libs}")


def source_revision(build):
    """The git revision of the sources the build was configured from (its CMakeCache.txt)."""
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            src = next(ln.split("=", 1)[1].strip() for ln in f if ln.startswith("CMAKE_HOME_DIRECTORY"))
        rev = subprocess.run(["git", "-C", src, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", src, "status", "--porcelain", "-uno"], capture_output=True,
                               text=True).stdout.strip()
        return f"{src} at {rev}" + (" with uncommitted changes" if dirty else "")
    except (OSError, StopIteration, subprocess.CalledProcessError):
        return build


def block(name, args, table, start, load0, load1, machine, revision):
    """The area's notes (when, load, build, threads, machine and libraries, the command) and its table."""
    groups = sorted({t for row in table.rows.values() for t in row["cells"]})
    threads = ("not threaded" if groups == [0] else
               f"threads {' and '.join(map(str, groups))}, set explicitly on both sides" if len(groups) > 1 else
               f"{groups[0]} thread{'s' if groups[0] > 1 else ''}, set explicitly on both sides")
    command = f"/usr/bin/python3 benchmarks/run_all.py --areas {name} --threads {','.join(map(str, args.threads))}"
    if os.path.abspath(args.build) != os.path.join(ROOT, "build"):
        command += f" --build {args.build}"
    if os.path.abspath(args.python_path) != os.path.join(ROOT, "python"):
        command += f" --python-path {args.python_path}"
    if args.quick:
        command += " --quick"
    notes = (f"Figures from the run of {start:%Y-%m-%d %H:%M}–{now():%H:%M} UTC, load average {load0:.1f} → "
             f"{load1:.1f}; Ember built from {revision}; {threads}. "
             f"Machine: {machine}. {DAGGER}: PyTorch with GLIBC_TUNABLES={GLIBC_KEEP} (its faster setting there; "
             f"unmarked: as it is); Ember's figure is from the same run. "
             f"Reproduce: `{command} --write BENCHMARKS.md`.")
    if args.quick:
        notes += " **Quick mode** (few samples): a smoke test of the programs, not a measurement."
    return textwrap.fill(f"_{notes}_", width=116, break_long_words=False, break_on_hyphens=False) + \
        f"\n\n{table.markdown()}"


def write_blocks(path, blocks):
    with open(path) as f:
        text = f.read()
    for name, body in blocks.items():
        begin, end = f"<!-- bench:{name} begin -->", f"<!-- bench:{name} end -->"
        i, j = text.find(begin), text.find(end)
        text = text[:i + len(begin)] + "\n" + body + "\n" + text[j:]
    with open(path, "w") as f:
        f.write(text)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--areas", default=",".join(AREAS), help="comma-separated areas (default: all)")
    p.add_argument("--threads", default="1,2", help="thread counts, set on both sides (default 1,2)")
    p.add_argument("--quick", action="store_true", help="few samples: a smoke test that takes minutes")
    p.add_argument("--build", default=os.path.join(ROOT, "build"), help="build directory (default build/)")
    p.add_argument("--python-path", default=os.path.join(ROOT, "python"),
                   help="PYTHONPATH of the Python programs: where the built ember package is (default python/)")
    p.add_argument("--out", default="/tmp/ember-bench", help="raw outputs (default /tmp/ember-bench)")
    p.add_argument("--write", metavar="FILE", help="put the tables between FILE's markers instead of printing")
    p.add_argument("--list", action="store_true", help="list the areas and the programs each runs")
    args = p.parse_args()
    if args.list:
        for name, (_, what) in AREAS.items():
            print(f"{name:<12} {what}")
        return 0
    names = [a for a in args.areas.split(",") if a]
    unknown = [a for a in names if a not in AREAS]
    if unknown:
        p.error(f"unknown area(s) {', '.join(unknown)} (areas: {', '.join(AREAS)})")
    args.threads = [int(t) for t in args.threads.split(",")]
    if args.write:
        with open(args.write) as f:
            text = f.read()
        missing = [a for a in names if f"<!-- bench:{a} begin -->" not in text or f"<!-- bench:{a} end -->" not in text]
        if missing:
            p.error(f"{args.write} has no markers for {', '.join(missing)}")
    r = Runner(args)
    probe = json.loads(subprocess.run([PYTHON, "-c", PROBE], env=r.env("as is"), cwd=ROOT, check=True,
                                      stdout=subprocess.PIPE, text=True).stdout)
    machine, revision = describe_machine(probe), source_revision(r.build)
    blocks, failed = {}, []
    for name in names:
        table, start, load0 = Table(), now(), os.getloadavg()[0]
        try:
            AREAS[name][0](r, table)
        except (RuntimeError, KeyError, ValueError, OSError) as e:
            print(f"run_all: area {name} failed: {e!r} (outputs in {r.out})", file=sys.stderr)
            failed.append(name)
            continue
        blocks[name] = block(name, args, table, start, load0, os.getloadavg()[0], machine, revision)
        if not args.write:
            print(f"<!-- bench:{name} begin -->\n{blocks[name]}\n<!-- bench:{name} end -->\n", flush=True)
    if args.write and blocks:
        write_blocks(args.write, blocks)
        print(f"run_all: wrote {', '.join(blocks)} into {args.write}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
