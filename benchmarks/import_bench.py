#!/usr/bin/python3
"""Start-up cost and footprint of Ember against PyTorch 1.13, each in fresh processes.

Cases:
  import    `import ember` against `import torch` in a fresh interpreter, minus the interpreter's own start
            (`python3 -c pass`): what the import adds
  library   loading the C++ library alone (libember.so against LibTorch's libtorch.so, as a C++ program that
            links it pays when it starts: the dynamic loader, its dependencies, static initialisers), minus a
            process that only imports ctypes
  memory    the peak resident memory of the importing process (ru_maxrss after `import X`)
  size      the size on disk of each framework's own shared libraries that `import X` maps (libember*.so and the
            ember package's extension; libtorch*.so, libc10*.so, libshm*.so, libcaffe2*.so and the torch
            package's extensions); the libraries both depend on (OpenBLAS, oneDNN, libgomp, ...) are not counted

Every time is the median over --rounds processes; the processes take turns (baseline, ember, torch, ...) so a
busy neighbour hits all of them alike. Run from the repository root after building:

  PYTHONPATH=python /usr/bin/python3 benchmarks/import_bench.py [--rounds 21] [--libember build/lib/libember.so]
      [--libtorch /usr/lib/x86_64-linux-gnu/libtorch.so] [--json out.json]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOAD_LIBRARY = "import ctypes, sys; ctypes.CDLL(sys.argv[1])"
# Prints the framework's own shared libraries mapped after importing it, with their total size.
OWN_LIBRARIES = r"""
import importlib, json, os, sys
name, prefixes = sys.argv[1], tuple(sys.argv[2].split(","))
package = os.path.dirname(os.path.realpath(importlib.import_module(name).__file__)) + os.sep
own = set()
for line in open("/proc/self/maps"):
    path = line.split()[-1]
    if path.startswith("/") and ".so" in path:
        real = os.path.realpath(path)
        if real.startswith(package) or os.path.basename(path).startswith(prefixes):
            own.add(real)
print(json.dumps({"libraries": sorted(own), "bytes": sum(os.path.getsize(p) for p in own)}))
"""
PREFIXES = {"ember": "libember", "torch": "libtorch,libc10,libshm,libcaffe2"}


def run(code, *argv):
    """Runs `python3 -c code argv...` to its end; returns (wall seconds, peak resident MB)."""
    start = time.perf_counter()
    pid = os.posix_spawn(sys.executable, [sys.executable, "-c", code, *argv], os.environ)
    _, status, usage = os.wait4(pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"import_bench: `python3 -c {code!r} {' '.join(argv)}` failed")
    return seconds, usage.ru_maxrss / 1024


def own_libraries(name):
    out = subprocess.run([sys.executable, "-c", OWN_LIBRARIES, name, PREFIXES[name]], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=21, help="processes per case (the median is reported)")
    p.add_argument("--libember", default=os.path.join(ROOT, "build", "lib", "libember.so"))
    p.add_argument("--libtorch", default="/usr/lib/x86_64-linux-gnu/libtorch.so")
    p.add_argument("--json", help="write the medians and samples here")
    args = p.parse_args()
    for path in (args.libember, args.libtorch):
        if not os.path.exists(path):
            sys.exit(f"import_bench: {path} not found (see --libember / --libtorch)")
    cases = {
        "python": ("pass",), "import ember": ("import ember",), "import torch": ("import torch",),
        "ctypes": ("import ctypes",), "load libember": (LOAD_LIBRARY, args.libember),
        "load libtorch": (LOAD_LIBRARY, args.libtorch),
    }
    for argv in cases.values():  # warm-up: page cache, .pyc files
        run(*argv)
    samples = {name: [] for name in cases}
    for _ in range(args.rounds):
        for name, argv in cases.items():
            samples[name].append(run(*argv))
    med = {name: (statistics.median(s for s, _ in v) * 1e3, statistics.median(m for _, m in v))
           for name, v in samples.items()}
    sizes = {name: own_libraries(name) for name in ("ember", "torch")}
    results = {
        "import_ms": {fw: med[f"import {fw}"][0] - med["python"][0] for fw in ("ember", "torch")},
        "library_ms": {fw: med[f"load lib{fw}"][0] - med["ctypes"][0] for fw in ("ember", "torch")},
        "rss_mb": {fw: med[f"import {fw}"][1] for fw in ("ember", "torch")},
        "library_mb": {fw: sizes[fw]["bytes"] / 1e6 for fw in ("ember", "torch")},
        "baseline_ms": {"python": med["python"][0], "ctypes": med["ctypes"][0]},
        "libraries": {fw: sizes[fw]["libraries"] for fw in ("ember", "torch")},
        "samples": samples,
    }
    print(f"# {args.rounds} rounds, medians; load average {os.getloadavg()[0]:.1f}; interpreter start "
          f"{med['python'][0]:.1f} ms (python3 -c pass), with ctypes {med['ctypes'][0]:.1f} ms")
    print(f"{'case':<44} {'ember':>9} {'torch':>9} {'ember/torch':>12}")
    for key, label in (("import_ms", "import, ms (minus the interpreter's start)"),
                       ("library_ms", "load the C++ library, ms (minus ctypes)"),
                       ("rss_mb", "peak resident memory after import, MB"),
                       ("library_mb", "own shared libraries on disk, MB")):
        e, t = results[key]["ember"], results[key]["torch"]
        print(f"{label:<44} {e:9.1f} {t:9.1f} {e / t:12.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
