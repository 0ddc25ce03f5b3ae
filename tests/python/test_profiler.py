"""ember.autograd.profiler: the events recorded for op calls made from Python and record_function ranges, their
nesting (parents, children, self vs total time), key averages and PyTorch 1.13's table layout."""
import re

import pytest
import torch

import ember
from ember.autograd import profiler


def run_model(T, prof_mod):
    x = T.ones(4, 4, requires_grad=True)
    with prof_mod.profile() as prof:
        with prof_mod.record_function("block"):
            y = T.mm(x, x).relu()
            y = T.mm(y, x)
        z = (y + 1).sum()
    return prof, z


def test_events_names_nesting_and_times():
    prof, _ = run_model(ember, profiler)
    events = prof.function_events
    names = [e.name for e in events]
    assert names == ["block", "aten::mm", "aten::relu", "aten::mm", "aten::add", "aten::sum"]
    block = events[0]
    assert [c.name for c in block.cpu_children] == ["aten::mm", "aten::relu", "aten::mm"]
    assert all(c.cpu_parent is block for c in block.cpu_children)
    assert events[4].cpu_parent is None
    children_total = sum(c.cpu_time_total for c in block.cpu_children)
    assert block.self_cpu_time_total == pytest.approx(block.cpu_time_total - children_total)
    for e in events:
        assert 0 <= e.self_cpu_time_total <= e.cpu_time_total
        assert e.time_range.start <= e.time_range.end
    # the same ops (under the same names) as PyTorch records at the top level of its own profile
    tprof, _ = run_model(torch, torch.autograd.profiler)
    # (PyTorch also lists its profiler's own setup ops -- aten::zeros, aten::empty, aten::zero_, aten::fill_ --, C++
    # children, and -- depending on what ran before in the process -- a no-op aten::resolve_conj/resolve_neg; none
    # of them is a user op)
    skip = ("aten::zeros", "aten::empty", "aten::zero_", "aten::fill_", "aten::resolve_conj", "aten::resolve_neg")
    top = [e.name for e in tprof.function_events
           if (e.cpu_parent is None or e.cpu_parent.name == "block") and e.name not in skip]
    assert names == top


def test_key_averages_and_table_layout():
    prof, _ = run_model(ember, profiler)
    avg = prof.key_averages()
    by_key = {e.key: e for e in avg}
    assert by_key["aten::mm"].count == 2 and by_key["block"].count == 1
    mm = [e for e in prof.function_events if e.name == "aten::mm"]
    assert by_key["aten::mm"].cpu_time_total == pytest.approx(sum(e.cpu_time_total for e in mm))
    assert by_key["aten::mm"].cpu_time == pytest.approx(by_key["aten::mm"].cpu_time_total / 2)
    assert prof.self_cpu_time_total == pytest.approx(sum(e.self_cpu_time_total for e in prof.function_events))
    table = avg.table(sort_by="self_cpu_time_total", row_limit=3)
    lines = table.rstrip("\n").split("\n")
    tprof, _ = run_model(torch, torch.autograd.profiler)
    tlines = tprof.key_averages().table(sort_by="self_cpu_time_total", row_limit=3).rstrip("\n").split("\n")
    assert len(lines) == len(tlines) == 8
    assert re.sub(r"\s+", " ", lines[1]).strip() == re.sub(r"\s+", " ", tlines[1]).strip() == \
        "Name Self CPU % Self CPU CPU total % CPU total CPU time avg # of Calls"
    assert set(lines[0]) == {"-", " "} and lines[0].endswith("------------  ")
    assert re.fullmatch(r"Self CPU time total: [0-9.]+(us|ms|s)", lines[-1])
    selfs = [float(re.findall(r"([0-9.]+)(us|ms|s)", row)[0][0]) * {"us": 1, "ms": 1e3, "s": 1e6}[
        re.findall(r"([0-9.]+)(us|ms|s)", row)[0][1]] for row in lines[3:6]]
    assert selfs == sorted(selfs, reverse=True)
    top = prof.function_events.table(top_level_events_only=True)
    assert "aten::relu" not in top and "block" in top


def test_record_function_decorator_and_disabled_profile():
    @profiler.record_function("helper")
    def helper(x):
        return x * 2

    with profiler.profile() as prof:
        helper(ember.ones(2))
    assert [(e.name, e.cpu_parent.name if e.cpu_parent else None) for e in prof.function_events] == \
        [("aten::ones", None), ("helper", None), ("aten::mul", "helper")]
    with profiler.profile(enabled=False) as off:
        ember.ones(2) + 1
    assert off.function_events is None
    helper(ember.ones(1))  # no profiler: nothing recorded, nothing raised


def test_profiler_errors():
    p = profiler.profile()
    with pytest.raises(RuntimeError, match="Profiler didn't finish running"):
        p.key_averages()
    with profiler.profile():
        with pytest.raises(RuntimeError, match="already enabled"):
            with profiler.profile():
                pass
    with pytest.raises(ValueError):
        with profiler.profile() as prof:
            ember.ones(1)
            raise ValueError("inside")
    assert [e.name for e in prof.function_events] == ["aten::ones"]


def test_torch_profiler_api_with_schedule():
    from ember.profiler import ProfilerActivity, profile, schedule

    def steps(T, prof_mod):
        ready = []
        sched = prof_mod.schedule(wait=1, warmup=1, active=2, repeat=1)
        actions = [sched(i).name for i in range(6)]
        with prof_mod.profile(activities=[prof_mod.ProfilerActivity.CPU], schedule=sched,
                              on_trace_ready=lambda p: ready.append(sorted(
                                  e.key for e in p.key_averages() if e.key.startswith("aten::m")))) as p:
            for i in range(6):
                T.ones(1) * i if i % 2 else T.ones(1, 1).mm(T.ones(1, 1))
                p.step()
        return actions, ready

    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = steps(ember, ember.profiler)
        expected = steps(torch, torch.profiler)
    assert got[0] == expected[0] == ["NONE", "WARMUP", "RECORD", "RECORD_AND_SAVE", "NONE", "NONE"]
    assert got[1] == expected[1] == [["aten::mm", "aten::mul"]]
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        ember.ones(2).sum()
    assert [e.key for e in prof.key_averages()] == ["aten::ones", "aten::sum"]
    with pytest.raises(AssertionError, match="Invalid profiler schedule arguments"):
        schedule(wait=0, warmup=0, active=0)
