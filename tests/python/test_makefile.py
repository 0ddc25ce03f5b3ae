"""`make`'s parallelism: ninja gets -jN from JOBS, else from make's own -jN, else the number of cores (never
ninja's own default of cores + 2). Dry runs (make -n) against an empty build directory that looks configured."""
import os
import shutil
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CORES = str(len(os.sched_getaffinity(0)))  # what nproc prints


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("args, jobs", [
    ([], CORES),
    (["-j3"], "3"),
    (["JOBS=1"], "1"),
    (["-j3", "JOBS=5"], "5"),  # JOBS wins
    (["-j"], CORES),  # make's unlimited -j is not passed on
])
def test_make_passes_a_job_count_to_ninja(tmp_path, args, jobs):
    (tmp_path / "build.ninja").write_text("")  # configured: `make build` only runs ninja
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "JOBS")}
    proc = subprocess.run(["make", "-n", "--no-print-directory", "-C", ROOT, "build", f"BUILD={tmp_path}", *args],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert f"ninja -C {tmp_path} -j{jobs}" in proc.stdout.splitlines(), proc.stdout
