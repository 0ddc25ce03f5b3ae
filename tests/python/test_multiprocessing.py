"""Tensors shared between processes: Tensor.share_memory_ / is_shared, Module.share_memory, and
ember.multiprocessing (its reducers under 'fork' and 'spawn', Queues, Hogwild training, spawn()).

PyTorch is the reference for what share_memory_ keeps and reports; the cross-process tests check that what a child
writes, the parent reads (and the reverse), and that no file is left in /dev/shm."""
import os
import signal
import subprocess
import sys

import pytest

import ember
import ember.multiprocessing as mp

import mp_workers as workers

torch = pytest.importorskip("torch")

SHM = "/dev/shm"


def _segments():
    return {name for name in os.listdir(SHM) if name.startswith("ember_shm_")} if os.path.isdir(SHM) else set()


@pytest.fixture(autouse=True)
def no_files_left():
    before = _segments()
    yield
    assert _segments() - before == set(), "share_memory_ left files in /dev/shm"


# ---------------------------------------------------------------- share_memory_ in one process, against PyTorch
def _pair(values, dtype_name):
    return ember.tensor(values, dtype=getattr(ember, dtype_name)), torch.tensor(values, dtype=getattr(torch,
                                                                                                      dtype_name))


@pytest.mark.parametrize("dtype_name", ["float32", "float64", "int64", "int8", "uint8", "bool", "float16",
                                        "bfloat16", "complex64"])
@pytest.mark.parametrize("make", ["contiguous", "transposed", "sliced", "scalar", "empty", "empty_2d"])
def test_share_memory_keeps_values_dtype_shape_strides_offset(dtype_name, make):
    values = [[1, 0, 3, 4], [5, 6, 0, 8], [9, 10, 11, 0]]
    e, t = _pair(values, dtype_name)
    pick = {"contiguous": lambda x: x, "transposed": lambda x: x.t(), "sliced": lambda x: x[1:, ::2],
            "scalar": lambda x: x[1, 2], "empty": lambda x: x[:, 4:], "empty_2d": lambda x: x.reshape(-1)[:0]}[make]
    e, t = pick(e), pick(t)
    before = e.clone()
    assert not e.is_shared() and not t.is_shared()
    assert e.share_memory_() is e
    t.share_memory_()
    assert e.is_shared() and t.is_shared()
    assert e.dtype == before.dtype and e.shape == before.shape == ember.Size(t.shape)
    assert e.stride() == t.stride() and e.storage_offset() == t.storage_offset()
    assert ember.equal(e, before)
    assert e.share_memory_() is e and e.is_shared()  # already shared: a no-op


def test_views_after_share_are_shared_and_writes_reach_them():
    x = ember.arange(12.0).view(3, 4)
    old_view = x[0]
    x.share_memory_()
    new_view = x[1:].t()
    assert new_view.is_shared() and x[2, 2:2].is_shared()
    x[1, 0] = 100.0
    assert new_view[0, 0].item() == 100.0
    # a view made BEFORE the move keeps the old private memory (Ember cannot move a storage in place)
    assert not old_view.is_shared()
    assert not ember.arange(3.0).is_shared() and not x.clone().is_shared()


def test_share_memory_of_a_leaf_that_requires_grad_keeps_it_a_leaf():
    p = ember.nn.Parameter(ember.tensor([1.0, 2.0, 3.0]))
    p.share_memory_()
    assert type(p) is ember.nn.Parameter and p.requires_grad and p.is_leaf and p.is_shared()
    (p * p).sum().backward()
    assert p.grad.tolist() == [2.0, 4.0, 6.0] and not p.grad.is_shared()  # gradients stay private
    y = p * 2  # a non-leaf can be moved too (as PyTorch), but not sent: see the Queue tests
    y.share_memory_()
    assert y.is_shared() and y.grad_fn is not None


def test_module_share_memory_moves_parameters_and_buffers():
    ember.manual_seed(0)
    model = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.BatchNorm1d(4))
    params = [p.clone() for p in model.state_dict().values()]
    ids = [id(p) for p in model.parameters()]
    assert model.share_memory() is model
    assert [id(p) for p in model.parameters()] == ids
    assert all(t.is_shared() for t in model.state_dict().values())
    assert all(ember.equal(a, b) for a, b in zip(params, model.state_dict().values()))


def test_sharing_strategies():
    assert mp.get_all_sharing_strategies() == {"file_descriptor"}
    assert mp.get_sharing_strategy() == "file_descriptor"
    mp.set_sharing_strategy("file_descriptor")
    with pytest.raises(AssertionError):
        mp.set_sharing_strategy("no_such_strategy")


def test_reexports_pythons_multiprocessing():
    import multiprocessing

    for name in ["Process", "Queue", "SimpleQueue", "Pool", "Manager", "set_start_method", "get_start_method",
                 "get_context", "cpu_count", "current_process", "Event", "Lock", "Value", "Array", "Pipe"]:
        assert getattr(mp, name) == getattr(multiprocessing, name), name
    assert ember.multiprocessing is mp


# ---------------------------------------------------------------- across processes
def _join(process):
    process.join(60)
    if process.exitcode is None:  # a hung child fails the test instead of hanging it
        process.kill()
        process.join()
        raise AssertionError("a child process did not end within 60 s")


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_child_writes_into_a_shared_tensor(method):
    ctx = mp.get_context(method)
    t = ember.zeros(4, 3, dtype=ember.float64).t()
    t.share_memory_()
    p = ctx.Process(target=workers.write_rows, args=(t, 7.0))
    p.start()
    _join(p)
    assert p.exitcode == 0
    assert t[:, 0].tolist() == [7.0, 7.0, 7.0] and t[:, 1:].abs().sum().item() == 0.0


def test_a_private_tensor_sent_under_spawn_is_moved_to_shared_memory_first():
    ctx = mp.get_context("spawn")
    t = ember.zeros(2, 3)
    p = ctx.Process(target=workers.write_rows, args=(t, 5.0))
    p.start()
    _join(p)
    assert p.exitcode == 0 and t.is_shared()
    assert t.tolist() == [[5.0, 0.0, 0.0], [5.0, 0.0, 0.0]]


def test_a_tensor_through_a_queue_shares_memory_both_ways():
    ctx = mp.get_context("fork")
    inbox, outbox, done = ctx.Queue(), ctx.Queue(), ctx.Event()
    p = ctx.Process(target=workers.receive_and_write, args=(inbox, outbox, done))
    p.start()
    t = ember.arange(6, dtype=ember.int32).view(2, 3)[:, 1:]
    inbox.put(t)
    back = outbox.get(timeout=30)
    assert t.is_shared() and back.is_shared()
    assert t.tolist() == [[2, 3], [5, 6]] and ember.equal(back, t)
    back[0, 0] = -1  # the parent's own segment came back: the same memory
    assert t[0, 0].item() == -1
    done.set()
    _join(p)
    assert p.exitcode == 0


def test_a_parameter_through_a_queue_keeps_its_class_and_requires_grad():
    ctx = mp.get_context("fork")
    inbox, outbox = ctx.Queue(), ctx.Queue()
    proc = ctx.Process(target=workers.echo_parameter, args=(inbox, outbox))
    proc.start()
    param = ember.nn.Parameter(ember.tensor([1.5, -2.0]))
    param.grad = ember.ones(2)
    inbox.put(param)
    assert outbox.get(timeout=30) == ("Parameter", True, True, True, [1.5, -2.0])  # the grad does not travel
    _join(proc)


def test_a_non_leaf_that_requires_grad_is_refused():
    from multiprocessing.reduction import ForkingPickler

    y = ember.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="non-leaf tensor which requires_grad"):
        ForkingPickler.dumps(y)
    ForkingPickler.dumps(y.detach())


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_hogwild_two_processes_train_the_parents_model(method):
    ctx = mp.get_context(method)
    ember.manual_seed(0)
    model = ember.nn.Linear(3, 2)
    data = [(ember.randn(5, 3), ember.randn(5, 2)) for _ in range(2)]
    model.share_memory()
    # expected: each worker's gradient at the initial parameters, both applied (SGD, no momentum)
    initial = [p.detach().clone() for p in model.parameters()]
    grads = []
    for x, y in data:
        model.zero_grad()
        ember.nn.functional.mse_loss(model(x), y).backward()
        grads.append([p.grad.clone() for p in model.parameters()])
    model.zero_grad(set_to_none=True)
    lock, barrier = ctx.Lock(), ctx.Barrier(2)
    procs = [ctx.Process(target=workers.sgd_step, args=(rank, model, data, lock, barrier)) for rank in range(2)]
    for w in procs:
        w.start()
    for w in procs:
        _join(w)
    assert [w.exitcode for w in procs] == [0, 0]
    for p, p0, g0, g1 in zip(model.parameters(), initial, *grads):
        assert ember.allclose(p.detach(), p0 - 0.1 * (g0 + g1), rtol=1e-6, atol=1e-7)
        assert not ember.equal(p.detach(), p0)
    assert all(p.grad is None for p in model.parameters())  # the workers' gradients stayed theirs


def test_spawn_runs_fn_with_its_index():
    t = ember.zeros(3, dtype=ember.int64)
    assert mp.spawn(workers.fill, args=(t,), nprocs=3) is None
    assert t.tolist() == [1, 2, 3]


def test_spawn_propagates_a_childs_exception():
    t = ember.zeros(2).share_memory_()
    with pytest.raises(mp.ProcessRaisedException, match="(?s)Process 1 terminated.*ValueError: worker one fails") \
            as info:
        mp.start_processes(workers.fail, args=(t,), nprocs=2, start_method="fork")
    assert info.value.error_index == 1


def test_spawn_reports_an_exit_code_and_can_return_its_context():
    context = mp.start_processes(workers.exit_with_code, nprocs=2, join=False, start_method="fork")
    assert len(context.pids()) == 2
    with pytest.raises(mp.ProcessExitedException, match="process 0 terminated with exit code 3") as info:
        while not context.join():
            pass
    assert info.value.exit_code == 3 and info.value.error_index == 0


def test_nothing_is_left_in_dev_shm_after_kill_9():
    if not os.path.isdir(SHM):
        pytest.skip("no /dev/shm")
    before = _segments()
    code = ("import ember, os, sys\n"
            "ts = [ember.ones(1000).share_memory_() for _ in range(3)]\n"
            "print('ready', flush=True)\n"
            "sys.stdin.read()\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
                            text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        fds = os.listdir(f"/proc/{proc.pid}/fd")
        links = [os.readlink(f"/proc/{proc.pid}/fd/{fd}") for fd in fds]
        # each segment's file is open (its name already gone) until the process ends
        assert len({link for link in links if "ember_shm_" in link and link.endswith("(deleted)")}) == 3
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert _segments() - before == set()
