"""Loading a state dict of PyTorch's formats (issue 21): ember.load on torch.save's zip and legacy files and
ember.safetensors.load_file, against torch.load(weights_only=True) and torch.load on the same file. Each load runs in
a fresh process; time is wall time of the load, memory the process's peak RSS above the same process without the
load, the peak RSS while loading above the RSS before (the peak is reset through /proc/self/clear_refs).

    PYTHONPATH=python /usr/bin/python3 benchmarks/torch_files_bench.py [--mb 100] [--rounds 2]
"""
import argparse
import collections
import os
import subprocess
import sys
import tempfile

CHILD = r"""
import sys, time, torch, ember
from ember import safetensors as est
kind, path = sys.argv[1], sys.argv[2]
def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1])
with open("/proc/self/clear_refs", "w") as f:  # resets the peak (VmHWM) to the current RSS
    f.write("5")
base = status("VmRSS:")
t0 = time.perf_counter()
if kind == "ember": sd = ember.load(path)
elif kind == "ember_safetensors": sd = est.load_file(path)
elif kind == "torch_weights_only": sd = torch.load(path, weights_only=True)
elif kind == "torch": sd = torch.load(path)
elif kind == "none": sd = {}
dt = time.perf_counter() - t0
print(dt, status("VmHWM:") - base)
"""


def run(kind, path):
    out = subprocess.run([sys.executable, "-c", CHILD, kind, path], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH="python"))
    t, rss = out.stdout.split()
    return float(t), int(rss) / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    import torch
    import ember
    from ember import safetensors as est
    n = args.mb * 1024 * 1024 // (512 * 512 * 4)
    torch.manual_seed(0)
    sd = collections.OrderedDict((f"layer{i}.weight", torch.randn(512, 512)) for i in range(n))
    d = tempfile.mkdtemp()
    files = {"zip": os.path.join(d, "sd.pt"), "legacy": os.path.join(d, "sd_legacy.pt"),
             "safetensors": os.path.join(d, "sd.safetensors")}
    torch.save(sd, files["zip"])
    torch.save(sd, files["legacy"], _use_new_zipfile_serialization=False)
    est.save_file({k: ember.from_numpy(v.numpy()) for k, v in sd.items()}, files["safetensors"])
    print(f"state dict of {n} float32 tensors, {args.mb} MB; peak RSS during the load above the RSS before it")
    for fmt, kinds in [("zip", ["ember", "torch_weights_only", "torch"]),
                       ("legacy", ["ember", "torch_weights_only", "torch"]),
                       ("safetensors", ["ember_safetensors"])]:
        for kind in kinds:
            t, rss = min(run(kind, files[fmt]) for _ in range(args.rounds))
            print(f"{fmt:12s} {kind:20s} {t * 1000:8.0f} ms {rss:8.0f} MB")
    for p in files.values():
        os.remove(p)


if __name__ == "__main__":
    main()
