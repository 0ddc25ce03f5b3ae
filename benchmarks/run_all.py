#!/usr/bin/python3
"""Runs every benchmark side by side with PyTorch and prints the tables of BENCHMARKS.md (Markdown).

Four runs: the C++ program (ember_bench: Ember and LibTorch in one process) and the Python script
(python_bench.py: ember and torch in one process), each twice — once with the environment as it is, once
with glibc told to keep freed memory (GLIBC_TUNABLES below), because PyTorch allocates large tensors with
plain malloc and, by default, pays for fresh pages on every call. A goal holds only against the faster of
the two PyTorch figures; Ember's figure is taken from the plain run.

  cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release && ninja -C build-bench
  /usr/bin/python3 benchmarks/run_all.py --build build-bench [--out DIR] [--quick] [--resume] > report.md

(`make` builds the same programs into build/ too, with the Python extension; --build build then works.) The
glibc C++ run times only LibTorch's cases. Under heavy load a full run takes 20-30 minutes; --resume reuses
the runs whose JSON is already in --out.

Raw results (Google Benchmark JSON and python_bench.py JSON) are kept in --out.
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GLIBC_KEEP = "glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=4294967295"
RUNS = {"plain": {}, "glibc": {"GLIBC_TUNABLES": GLIBC_KEEP}}


def run(cmd, extra_env, log):
    env = dict(os.environ)
    env.pop("GLIBC_TUNABLES", None)  # the plain run is glibc's default behaviour
    env.update(extra_env)
    shown = " ".join(f"{k}={v}" for k, v in extra_env.items()) + (" " if extra_env else "") + " ".join(
        shlex.quote(c) for c in cmd)
    print(f"+ {shown}", file=sys.stderr, flush=True)
    log.append(shown)
    start, load = time.strftime("%Y-%m-%d %H:%M:%S %Z"), os.getloadavg()
    subprocess.run(cmd, env=env, cwd=ROOT, check=True, stdout=sys.stderr)
    # The machine is shared: record how busy it was (1/5/15-minute load averages) before and after each run.
    log.append(f"#   started {start}, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
               f"finished {time.strftime('%H:%M:%S')}, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def cpp_results(path):
    """{(suite, case, threads, framework): median ns} from Google Benchmark's JSON (median aggregates)."""
    r = {}
    with open(path) as f:
        data = json.load(f)
    for b in data["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        name = b["run_name"].removesuffix("/real_time")
        parts = name.split("/")
        suite, fw, threads = parts[0], parts[-1], int(parts[-2].split(":")[1])
        case = "/".join(parts[1:-2])
        scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b["time_unit"]]
        t = b["real_time"] if suite == "throughput" else b["cpu_time"]
        r[(suite, case, threads, fw)] = t * scale
    return r


def fmt_ns(x):
    return f"{x:,.0f}"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default="build-bench")
    p.add_argument("--out", default="/tmp/ember-bench")
    p.add_argument("--quick", action="store_true", help="fewer repetitions (for trying things out)")
    p.add_argument("--skip-cpp", action="store_true")
    p.add_argument("--skip-python", action="store_true")
    p.add_argument("--report-only", action="store_true", help="only rebuild the tables from the JSON in --out")
    p.add_argument("--resume", action="store_true", help="reuse the runs whose JSON is already in --out")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    reps = 3 if args.quick else 5  # C++ repetitions; Python takes 2 * reps + 1 samples (throughput: half)
    log = []

    cpp, py = {}, {}
    for run_name, extra in RUNS.items():
        if args.report_only:
            for kind, store in (("cpp", cpp), ("python", py)):
                path = os.path.join(args.out, f"{kind}_{run_name}.json")
                if os.path.exists(path):
                    if kind == "cpp":
                        store[run_name] = cpp_results(path)
                    else:
                        with open(path) as f:
                            store[run_name] = json.load(f)
            continue
        if not args.skip_cpp:
            out = os.path.join(args.out, f"cpp_{run_name}.json")
            # Ember's figures come from the plain run, so the glibc run times LibTorch only (half the time).
            only = ["--benchmark_filter=/libtorch"] if run_name == "glibc" else []
            if not (args.resume and os.path.exists(out)):
                run([os.path.join(args.build, "benchmarks", "ember_bench"), "--threads=1,2",
                     f"--benchmark_repetitions={reps}", "--benchmark_min_time=0.1",
                     "--benchmark_report_aggregates_only=true", "--benchmark_enable_random_interleaving=true",
                     *only, f"--benchmark_out={out}", "--benchmark_out_format=json"], extra, log)
            cpp[run_name] = cpp_results(out)
        if not args.skip_python:
            out = os.path.join(args.out, f"python_{run_name}.json")
            if not (args.resume and os.path.exists(out)):
                run(["env", "PYTHONPATH=python", "/usr/bin/python3", "benchmarks/python_bench.py", "--threads", "1",
                     "2", "--repeat", str(2 * reps + 1), "--json", out], extra, log)
            with open(out) as f:
                py[run_name] = json.load(f)

    if log:
        with open(os.path.join(args.out, "commands.txt"), "a" if args.resume else "w") as f:
            f.write("\n".join(log) + "\n")
        if args.resume:  # report every run's command, the earlier ones too
            with open(os.path.join(args.out, "commands.txt")) as f:
                log = f.read().split("\n")[:-1]
    elif os.path.exists(os.path.join(args.out, "commands.txt")):
        with open(os.path.join(args.out, "commands.txt")) as f:
            log = f.read().split("\n")[:-1]
    print("Commands (from the repository root):\n\n```")
    for c in log:
        print(c)
    print("```\n")
    if py:
        m = py["plain"]["machine"]
        print(f"Machine: {m['cpu']}, {m['cores']} cores; `ember._C._cpu_capability()` = `{m['ember_cpu_capability']}`; "
              f"PyTorch {m['torch_version']} (CPU capability {m['torch_cpu_capability']}); BLAS: {m['blas']}; "
              f"libember: {', '.join(m['libember'])}\n")

    verdict = {}

    def note(goal, threads, ratio, better_low):
        worst = verdict.setdefault((goal, threads), ratio)
        verdict[(goal, threads)] = max(worst, ratio) if better_low else min(worst, ratio)

    if cpp:
        plain, glibc = cpp["plain"], cpp.get("glibc", {})
        print("### C++ per-op overhead (1-element float32; ns per call, median CPU time)\n")
        print("| op | threads | Ember | LibTorch | LibTorch, glibc keeps memory | Ember / best LibTorch |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for (suite, case, threads, fw), e in sorted(plain.items(), key=lambda kv: (kv[0][2], kv[0][1])):
            if suite != "dispatch" or fw != "ember":
                continue
            t = plain.get((suite, case, threads, "libtorch"))
            tg = glibc.get((suite, case, threads, "libtorch"))
            if t is None:
                continue
            best = min(x for x in (t, tg) if x is not None)
            note("C++ overhead", threads, e / best, True)
            print(f"| {case} | {threads} | {fmt_ns(e)} | {fmt_ns(t)} | {fmt_ns(tg) if tg else '—'} "
                  f"| **{e / best:.2f}** |")
        print()
    if py:
        plain, glibc = py["plain"], py.get("glibc")
        print("### Python per-op overhead (1-element float32; ns per call, median of timeit samples)\n")
        print("| statement (m = ember / torch) | threads | Ember | PyTorch | PyTorch, glibc keeps memory | "
              "Ember / best PyTorch |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for key, v in sorted(plain["dispatch"].items(), key=lambda kv: int(kv[0].split("|")[1])):
            name, threads = key.split("|")
            tg = glibc["dispatch"][key]["torch_ns"] if glibc else None
            best = min(x for x in (v["torch_ns"], tg) if x is not None)
            note("Python overhead", int(threads), v["ember_ns"] / best, True)
            print(f"| `{name.split(': ', 1)[1]}` ({name.split(':')[0]}) | {threads} | {fmt_ns(v['ember_ns'])} | "
                  f"{fmt_ns(v['torch_ns'])} | {fmt_ns(tg) if tg else '—'} | **{v['ember_ns'] / best:.2f}** |")
        print()
    cpp_rate_tables = (
        ("throughput", "C++ throughput", "C++ elementwise throughput (float32; Melem/s of output"),
        ("reduce", "C++ reductions", "C++ reductions of a (4096, 1024) float32 matrix (Melem/s of input"))
    for suite_name, goal, title in cpp_rate_tables if cpp else ():
        plain, glibc = cpp["plain"], cpp.get("glibc", {})
        rows = [kv for kv in plain.items() if kv[0][0] == suite_name and kv[0][3] == "ember"]
        if not rows:
            continue
        print(f"### {title}, median wall time; GB/s counts inputs read + output written once)\n")
        print("| op | size | output | threads | Ember Melem/s (GB/s) | LibTorch | LibTorch, glibc keeps memory | "
              "Ember / best LibTorch |")
        print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
        nin = {"add": 2, "mul": 2, "mul_add": 3, "addcmul": 3}
        order = ["add", "mul", "mul_add", "addcmul", "relu", "exp", "tanh", "sigmoid", "t_copy",
                 "sum_dim1", "sum_dim0", "softmax"]

        def key(item):
            (suite, case, threads, fw), _ = item
            op, size, out = case.split("/")
            return (threads, size != "1M", out, order.index(op) if op in order else 99)

        for (suite, case, threads, fw), e in sorted(rows, key=key):
            op, size, out = case.split("/")
            rows_cols = [int(x) for x in size.split("x")] if "x" in size else None
            n = rows_cols[0] * rows_cols[1] if rows_cols else (1 << 20) if size == "1M" else (1 << 24)
            n_out = {"sum_dim1": rows_cols[0], "sum_dim0": rows_cols[1]}.get(op, n) if rows_cols else n
            nbytes = 4 * (n * nin.get(op, 1) + n_out)
            t = plain.get((suite, case, threads, "libtorch"))
            tg = glibc.get((suite, case, threads, "libtorch"))
            if t is None:
                continue
            best = min(x for x in (t, tg) if x is not None)
            note(goal, threads, best / e, False)
            rate = lambda ns: f"{n / ns * 1e3:,.0f} ({nbytes / ns:,.1f})"
            print(f"| {op} | {size} | {'out=' if out == 'out' else 'fresh'} | {threads} | {rate(e)} | {rate(t)} | "
                  f"{rate(tg) if tg else '—'} | **{best / e:.2f}** |")
        print()
    py_rate_tables = (
        ("throughput", "Python throughput", "Python elementwise throughput (float32; Melem/s of output"),
        ("reduce", "Python reductions", "Python reductions of a (4096, 1024) float32 matrix (Melem/s of input"))
    for suite_name, goal, title in py_rate_tables if py else ():
        plain, glibc = py["plain"], py.get("glibc")
        if not plain.get(suite_name):
            continue
        print(f"### {title}, median wall time)\n")
        print("| case | threads | Ember Melem/s (GB/s) | PyTorch | PyTorch, glibc keeps memory | "
              "Ember / best PyTorch |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for key, v in sorted(plain[suite_name].items(), key=lambda kv: int(kv[0].split("|")[1])):
            name, threads = key.split("|")
            n = v["numel"]
            tg = glibc[suite_name][key]["torch_s"] if glibc else None
            best = min(x for x in (v["torch_s"], tg) if x is not None)
            note(goal, int(threads), best / v["ember_s"], False)
            gbytes = v["ember_gbs"] * v["ember_s"]  # bytes moved per call, in GB
            rate = lambda s: f"{n / s / 1e6:,.0f} ({gbytes / s:,.1f})"
            print(f"| {name} | {threads} | {rate(v['ember_s'])} | {rate(v['torch_s'])} | "
                  f"{rate(tg) if tg else '—'} | **{best / v['ember_s']:.2f}** |")
        print()
    print("### Goals (worst case of each table)\n")
    print("| goal | threads | worst ratio | target | verdict |")
    print("| --- | ---: | ---: | --- | --- |")
    for (goal, threads), r in sorted(verdict.items()):
        low = "overhead" in goal
        ok = r <= 0.5 if low else r >= 1.0  # reductions have no stated goal; shown against parity (1.0)
        target = '≤ 0.5 (Ember / PyTorch time)' if low else '≥ 1.0 (Ember / PyTorch rate)'
        print(f"| {goal} | {threads} | {r:.2f} | {target} | {'met' if ok else 'not met'} |")


if __name__ == "__main__":
    sys.exit(main())
