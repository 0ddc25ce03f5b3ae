"""tools/random_calls.py (issue 18): calls are a pure function of (seed, index), and a worker that crashes or hangs
is reported with the call that was running, whose code is the reproducer."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tools"))
import random_calls as rc  # noqa: E402


@pytest.fixture(scope="module")
def plan():
    return rc.Plan()


def test_calls_are_deterministic_and_cover_every_namespace(plan):
    assert [plan.call(7, i) for i in range(50)] == [plan.call(7, i) for i in range(50)]
    assert plan.call(7, 0) != plan.call(8, 0)
    spaces = {ns for ns, _, _, _ in plan.targets}
    assert {"", "nn.functional", "linalg", "Tensor"} <= spaces
    names = {(ns, name) for ns, name, _, _ in plan.targets}
    assert ("", "add") in names and ("Tensor", "__getitem__") in names and ("nn.functional", "conv2d") in names
    assert ("", "save") not in names  # files and process-wide settings are never touched


def test_a_call_runs_the_same_code_in_both_frameworks(plan):
    c = {"i": 0, "target": "add", "code": "a0 = T((2, 3), 'float32', 'T', 'special', 1).make(m); r = m.add(a0, 2)",
         "torch": True, "mode": "value"}
    (r,) = rc.Pool(60, 4096).run([c])
    assert r["cls"] == "ok", r


def test_crash_and_hang_name_the_call_and_the_worker_goes_on():
    calls = [{"i": 0, "target": "x", "code": "r = 1", "torch": False, "mode": "value"},
             {"i": 1, "target": "abort", "code": "import os; os.abort()", "torch": False, "mode": "value"},
             {"i": 2, "target": "spin", "code": "while True: pass", "torch": False, "mode": "value"},
             {"i": 3, "target": "y", "code": "r = m.ones(2)", "torch": True, "mode": "value"}]
    results = list(rc.Pool(3, 4096).run(calls))
    assert [r["cls"] for r in results] == ["ember-only", "crash", "hang", "ok"]
    assert results[1]["detail"].startswith("signal 6") and results[1]["history"] == [calls[0]]
    assert "os.abort()" in rc.reproducer(results[1]["code"])
