"""The eager meaning of torch.jit's annotation names (ignore, unused, export, annotate, Attribute, Final,
isinstance, is_scripting, interface, script_if_tracing, fork/wait) and ember.futures, compared with PyTorch
1.13."""
import threading
import warnings
from typing import Dict, List, Optional, Tuple, Union

import pytest
import torch

import ember


def test_markers_are_pytorchs():
    for name in ("ignore", "unused", "export"):
        def f(x):
            return x + 1

        def g(x):
            return x + 1

        mine, theirs = getattr(ember.jit, name)(f), getattr(torch.jit, name)(g)
        assert mine is f and mine(1) == 2
        assert mine._torchscript_modifier == theirs._torchscript_modifier
    with pytest.warns(FutureWarning):
        dropped = ember.jit.ignore(drop=True)(lambda x: x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = torch.jit.ignore(drop=True)(lambda x: x)._torchscript_modifier
    assert dropped._torchscript_modifier == expected
    with pytest.raises(RuntimeError):
        ember.jit.ignore(3)

    class WithProperty:
        @ember.jit.unused
        @property
        def size(self):
            return 4

    assert WithProperty().size == 4


def test_values_pass_through():
    assert ember.jit.is_scripting() is torch.jit.is_scripting() is False
    empty = []
    assert ember.jit.annotate(List[int], empty) is empty
    assert ember.jit.Attribute(3, int) == (3, int) and ember.jit.Attribute(3, int).value == 3
    assert ember.jit.Final is torch.jit.Final

    class Iface:
        def f(self) -> int:
            return 1

    assert ember.jit.interface(Iface) is Iface


CASES = [([1, 2], List[int]), ([1, "a"], List[int]), ({"a": 1}, Dict[str, int]), ({"a": "b"}, Dict[str, int]),
         (None, Optional[int]), (3, Optional[int]), ("x", Optional[int]), ((1, "a"), Tuple[int, str]),
         ((1, 2), Tuple[int, str]), (3, int), (3.0, int), (True, int), (3, float),
         ([[1], [2]], List[List[int]]), ("s", Union[int, str]), (1.5, Union[int, str])]


@pytest.mark.parametrize("obj,target", CASES, ids=[f"{o!r}-{t}" for o, t in CASES])
def test_isinstance_matches_pytorch(obj, target):
    assert ember.jit.isinstance(obj, target) == torch.jit.isinstance(obj, target)


def test_isinstance_tensors_and_errors():
    assert ember.jit.isinstance([ember.ones(1)], List[ember.Tensor])
    assert not ember.jit.isinstance([1], List[ember.Tensor])
    with pytest.warns(UserWarning, match="inner type"):
        assert ember.jit.isinstance([], List[int])
    with pytest.raises(RuntimeError, match="contained type"):
        ember.jit.isinstance([1], List)
    with pytest.raises(RuntimeError):
        torch.jit.isinstance([1], List)


def test_script_if_tracing_runs_the_function():
    @ember.jit.script_if_tracing
    def double(x):
        return x * 2

    assert double(ember.ones(2)).tolist() == [2.0, 2.0]
    traced = ember.jit.trace(lambda x: double(x) + 1, ember.ones(2))
    assert traced(ember.full((2,), 3.0)).tolist() == [7.0, 7.0]


def test_fork_and_wait():
    fut = ember.jit.fork(lambda x, y=1: x + y, 2, y=5)
    assert isinstance(fut, ember.futures.Future) and fut.done()
    assert ember.jit.wait(fut) == 7 == ember.wait(ember.fork(lambda: 7))
    with pytest.raises(ZeroDivisionError):  # raised at the fork, as PyTorch's eager fork
        ember.jit.fork(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        torch.jit.fork(lambda: 1 / 0)


def test_futures_as_pytorchs():
    for futures in (ember.futures, torch.futures):
        f = futures.Future()
        assert not f.done()
        f.set_result(5)
        assert f.done() and f.wait() == 5 and f.value() == 5
        with pytest.raises(RuntimeError, match="complete again"):
            f.set_result(6)
        assert f.then(lambda fut: fut.value() * 2).wait() == 10

        def bad(fut):
            raise KeyError("k")

        with pytest.raises(RuntimeError, match="KeyError"):
            f.then(bad).wait()
        g = futures.Future()
        g.set_exception(ValueError("x"))
        with pytest.raises(ValueError):
            g.wait()
        assert futures.wait_all([f]) == [5]
        assert [x.wait() for x in futures.collect_all([f]).wait()] == [5]
    with pytest.raises(RuntimeError):
        ember.futures.Future().value()


def test_a_future_set_from_another_thread_wakes_the_waiter():
    f = ember.futures.Future()
    seen = []
    f.add_done_callback(lambda fut: seen.append(fut.value()))
    threading.Timer(0.05, f.set_result, args=(11,)).start()
    assert f.wait() == 11
    assert seen == [11]
    combined = ember.futures.collect_all([f, ember.jit.fork(lambda: 2)])
    assert [x.wait() for x in combined.wait()] == [11, 2]
