"""ember.jit.script against torch.jit.script (PyTorch 1.13): the same Python functions compiled by both
frameworks' TorchScript compilers give the same results (values, dtypes, shapes) on many inputs; bad programs
raise the same kind of error, naming the same problem, with the source line highlighted."""
from typing import Dict, List, Optional, Tuple

import numpy as np
import pytest
import torch

import ember
from conftest import assert_same, to_ember

F = torch.nn.functional


def _have_builtins():
    """Whether TorchScript's builtin ops on ints, lists and dicts (ember/ops/builtins, issue 22) are registered."""
    def probe(a: int) -> int:
        return a + 1
    try:
        ember.jit.script(probe)
        return True
    except RuntimeError:
        return False


needs_builtins = pytest.mark.skipif(not _have_builtins(), reason="TorchScript's builtin ops are not registered yet")


# ---- the functions (realistic TorchScript: written once, compiled by both frameworks)

def rnn_loop(x, h, w_ih, w_hh, b):
    # A hand-written RNN cell run over the time steps of x: (T, B, I), h: (B, H).
    outputs: List[torch.Tensor] = []
    for t in range(x.size(0)):
        h = torch.tanh(torch.matmul(x[t], w_ih.t()) + torch.matmul(h, w_hh.t()) + b)
        outputs.append(h)
    return torch.stack(outputs), h


def box_area(boxes):
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def nms(boxes, scores, thresh: float) -> List[int]:
    # Greedy non-maximum suppression with Python loops, as torchvision's reference implementation.
    n = boxes.size(0)
    areas = box_area(boxes)
    order = torch.argsort(scores, descending=True)
    suppressed = [False for _ in range(n)]
    keep: List[int] = []
    for a in range(n):
        i = int(order[a])
        if suppressed[i]:
            continue
        keep.append(i)
        for b in range(a + 1, n):
            j = int(order[b])
            if suppressed[j]:
                continue
            xx1 = torch.maximum(boxes[i, 0], boxes[j, 0])
            yy1 = torch.maximum(boxes[i, 1], boxes[j, 1])
            xx2 = torch.minimum(boxes[i, 2], boxes[j, 2])
            yy2 = torch.minimum(boxes[i, 3], boxes[j, 3])
            inter = torch.clamp(xx2 - xx1, min=0.0) * torch.clamp(yy2 - yy1, min=0.0)
            iou = inter / (areas[i] + areas[j] - inter)
            if bool(iou > thresh):
                suppressed[j] = True
    return keep


def greedy_decode(logits, max_len: int, eos: int) -> List[int]:
    # A beam-search style loop (beam of one): stop at the end token or at max_len.
    out: List[int] = []
    t = 0
    while t < max_len:
        tok = int(torch.argmax(logits[t]))
        if tok == eos:
            break
        out.append(tok)
        t += 1
    return out


def classify(x, thr: float) -> int:
    s = float(x.sum())
    if s > thr:
        return 1
    elif s < -thr:
        return -1
    return 0


def first_negative(x, n: int) -> int:
    for i in range(n):
        if bool(x[i] < 0):
            return i
    return -1


def maybe_add(x, y: Optional[torch.Tensor] = None, scale: Optional[float] = None):
    if y is not None:
        x = x + y
    if scale is None:
        return x
    return x * scale


def count_words(words: List[str]) -> Dict[str, int]:
    d: Dict[str, int] = {}
    for w in words:
        if w in d:
            d[w] += 1
        else:
            d[w] = 1
    return d


def pairs(n: int) -> List[Tuple[int, int]]:
    r: List[Tuple[int, int]] = []
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            if (i + j) % 2 == 1:
                continue
            r.append((i, j))
    return r


def weighted(xs: List[float], ws: List[float]) -> float:
    total = 0.0
    for x, w in zip(xs, ws):
        total += x * w
    for i, x in enumerate(xs):
        total += i * x
    return total


def squares(n: int) -> List[int]:
    return [i * i for i in range(n) if i % 3 != 1]


def row_sums(x):
    acc = torch.zeros(x.size(1))
    for row in x:
        acc = acc + row
    return acc


def clamp_int(a: int, lo: int, hi: int) -> int:
    return lo if a < lo else (hi if a > hi else a)


def in_range(a: int, lo: int, hi: int) -> bool:
    return lo <= a < hi and not (a == 5 or a == 7)


def int_math(a: int, b: int) -> Tuple[int, int, float, int, int]:
    q = a // b
    r = a % b
    return q, r, a / b, -a, abs(a - 10)


def greet(name: str, n: int) -> str:
    s = "hi " + name
    return s + str(n)


def tensor_ops(x, k: int):
    y = F.relu(x) * 2 - 1
    if k > 0:
        y = y[:, :k]
    z = y.sum(dim=1, keepdim=True)
    return torch.cat([y, z], dim=1)


def functional_calls(x):
    y = F.dropout(F.relu(x, inplace=False), p=0.5, training=False) + F.softmax(x, dim=0)
    return y + F.linear(x, x.view(1, 3)).sum() + torch.nn.functional.gelu(x)


def continue_keeps_values(x, n: int, skip: bool):
    for i in range(n):
        x = x * 2
        if skip:
            continue
        x = x + 1
    return x


def early_return_tensor(x, flag: bool):
    if flag:
        return x * 2
    y = x + 1
    return y


def tuple_swap(x, y):
    a, b = y, x
    t = (a, b)
    return t[1], t[0]


def nested_while(n: int) -> int:
    total = 0
    i = 0
    while i < n:
        j = 0
        while True:
            j += 1
            if j >= i:
                break
            total += j
        i += 1
    return total


def check(n: int) -> int:
    assert n > 0, "n must be positive"
    if n > 100:
        raise ValueError("too big")
    return n * 2


# ---- helpers

def to_both(v):
    if isinstance(v, np.ndarray):
        return ember.from_numpy(v.copy()), torch.from_numpy(v.copy())
    return v, v


def assert_equal_results(e, t):
    if isinstance(t, torch.Tensor):
        assert_same(e, t)
    elif isinstance(t, (list, tuple)):
        assert type(e) is type(t), (e, t)
        assert len(e) == len(t), (e, t)
        for a, b in zip(e, t):
            assert_equal_results(a, b)
    elif isinstance(t, dict):
        assert list(e.keys()) == list(t.keys())
        for k in t:
            assert_equal_results(e[k], t[k])
    elif isinstance(t, float):
        assert isinstance(e, float) and e == pytest.approx(t, rel=1e-6)
    else:
        assert type(e) is type(t) and e == t, (e, t)


def run_both(fn, *args, **kwargs):
    tfn = torch.jit.script(fn)
    efn = ember.jit.script(fn)
    eargs, targs = zip(*[to_both(a) for a in args]) if args else ((), ())
    ekw = {k: to_both(v)[0] for k, v in kwargs.items()}
    tkw = {k: to_both(v)[1] for k, v in kwargs.items()}
    assert_equal_results(efn(*eargs, **ekw), tfn(*targs, **tkw))
    return efn


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


# ---- results equal PyTorch's

@needs_builtins
@pytest.mark.parametrize("seed", range(3))
def test_rnn_loop(seed):
    rng = np.random.default_rng(seed)
    T, B, I, H = int(rng.integers(1, 6)), 2, 3, 4
    run_both(rnn_loop, rand(T, B, I, seed=seed), rand(B, H, seed=seed + 1), rand(H, I, seed=seed + 2),
             rand(H, H, seed=seed + 3), rand(H, seed=seed + 4))


@needs_builtins
@pytest.mark.parametrize("seed", range(4))
def test_nms_and_box_area(seed):
    rng = np.random.default_rng(seed)
    xy = rng.uniform(0, 10, (8, 2)).astype(np.float32)
    wh = rng.uniform(1, 5, (8, 2)).astype(np.float32)
    boxes = np.concatenate([xy, xy + wh], axis=1)
    scores = rng.uniform(0, 1, 8).astype(np.float32)
    run_both(box_area, boxes)
    run_both(nms, boxes, scores, 0.3)
    run_both(nms, boxes, scores, 0.0)


@needs_builtins
@pytest.mark.parametrize("eos", [0, 3, 7])
def test_greedy_decode(eos):
    logits = rand(6, 8, seed=eos)
    run_both(greedy_decode, logits, 6, eos)
    run_both(greedy_decode, logits, 0, eos)


@needs_builtins
@pytest.mark.parametrize("scale", [-10.0, 0.0, 0.5, 100.0])
def test_early_returns(scale):
    run_both(classify, rand(5) * scale, 1.0)
    x = rand(6) * scale
    run_both(first_negative, x, 6)
    run_both(first_negative, np.abs(x), 6)


@needs_builtins
def test_optional_refinement():
    x, y = rand(3), rand(3, seed=1)
    run_both(maybe_add, x)
    run_both(maybe_add, x, y)
    run_both(maybe_add, x, y, 2.5)
    run_both(maybe_add, x, scale=0.5)


@needs_builtins
def test_lists_dicts_loops():
    run_both(count_words, ["a", "b", "a", "c", "b", "a"])
    run_both(count_words, [])
    for n in [0, 1, 5]:
        run_both(pairs, n)
        run_both(squares, n)
        run_both(nested_while, n)
    run_both(weighted, [1.0, 2.5, -3.0], [0.5, 0.25, 2.0])
    run_both(row_sums, rand(4, 3))


@needs_builtins
@pytest.mark.parametrize("a", [-3, 0, 5, 7, 12])
def test_numbers_and_strings(a):
    run_both(clamp_int, a, 0, 10)
    run_both(in_range, a, 0, 10)
    run_both(int_math, a, 4)
    run_both(int_math, a, -3)
    run_both(greet, "ember", a)


@needs_builtins
@pytest.mark.parametrize("k", [0, 2])
def test_tensor_ops_and_tuples(k):
    run_both(tensor_ops, rand(3, 4), k)
    run_both(tuple_swap, rand(2), rand(3))


@needs_builtins
def test_graph_has_pytorch_node_kinds():
    g = str(ember.jit.script(nms).graph)
    for kind in ["prim::Loop", "prim::If", "aten::select", "aten::slice", "aten::append", "aten::Int"]:
        assert kind in g, kind
    s = ember.jit.script(maybe_add)
    assert "prim::unchecked_cast" in str(s.graph)
    assert s.schema == "maybe_add(Tensor x, Tensor? y=None, float? scale=None) -> Tensor"


@pytest.mark.parametrize("flag", [True, False])
def test_tensor_control_flow(flag):
    run_both(functional_calls, rand(3))
    run_both(continue_keeps_values, rand(2), 3, flag)
    run_both(early_return_tensor, rand(4), flag)


# ---- errors

@needs_builtins
def test_runtime_errors_of_assert_and_raise():
    tfn, efn = torch.jit.script(check), ember.jit.script(check)
    assert efn(3) == tfn(3)
    for n, text in [(0, "AssertionError: n must be positive"), (101, "ValueError: too big")]:
        with pytest.raises(RuntimeError) as te:
            tfn(n)
        with pytest.raises(RuntimeError) as ee:
            efn(n)
        assert text in str(te.value) and text in str(ee.value)


def bad_undefined(x):
    return x + undefined_thing  # noqa: F821


def bad_branch_types(c: bool):
    if c:
        y = 1
    else:
        y = "a"
    return y


def bad_argument(x):
    return clamp_int(1, "no", 3)


def bad_one_branch(x, c: bool):
    if c:
        y = x
    return y


def bad_loop_type(n: int):
    x = 1
    for i in range(n):
        x = 1.5
    return x


@pytest.mark.parametrize("fn, phrase", [
    (bad_undefined, "undefined value undefined_thing"),
    (bad_branch_types, "Type mismatch: y is set to type int in the true branch and type str in the false branch"),
    pytest.param(bad_argument, "Expected a value of type 'int' for argument 'lo' but instead found type 'str'",
                 marks=needs_builtins),
    (bad_one_branch, "y is not defined in the false branch"),
    (bad_loop_type, "Variable 'x' previously had type int but is now being assigned to a value of type float"),
])
def test_compile_errors_match_pytorch(fn, phrase):
    with pytest.raises(RuntimeError) as te:
        torch.jit.script(fn)
    assert phrase in str(te.value)
    with pytest.raises(RuntimeError) as ee:
        ember.jit.script(fn)
    msg = str(ee.value)
    assert phrase in msg
    assert "<--- HERE" in msg and "test_script.py" in msg


def test_error_cites_the_file_line():
    with pytest.raises(RuntimeError) as ee:
        ember.jit.script(bad_undefined)
    line = bad_undefined.__code__.co_firstlineno + 1
    assert 'line {},'.format(line) in str(ee.value)
    assert "return x + undefined_thing" in str(ee.value)


@needs_builtins
def test_arguments_checked_at_call():
    efn = ember.jit.script(clamp_int)
    assert efn(5, hi=3, lo=0) == 3
    with pytest.raises(RuntimeError, match="argument 'lo'"):
        efn(1, "no", 3)
    with pytest.raises(RuntimeError, match="missing value for argument 'hi'"):
        efn(1, 2)


def test_modules_are_not_scripted_yet():
    with pytest.raises(NotImplementedError):
        ember.jit.script(ember.nn.Linear(2, 2))


@needs_builtins
def test_scripted_function_calls_a_scripted_function():
    efn = ember.jit.script(tensor_ops)
    assert isinstance(efn, ember.jit.ScriptFunction)
    assert ember.jit.script(efn) is efn
    x = rand(3, 4)
    assert_same(efn(ember.from_numpy(x), 2), torch.jit.script(tensor_ops)(torch.from_numpy(x), 2))
    assert to_ember is not None


def test_function_without_source_raises_oserror():
    ns = {"__name__": "generated"}
    exec("def f(x):\n    return x\n", ns)
    with pytest.raises(OSError):
        torch.jit.script(ns["f"])
    with pytest.raises(OSError, match="TorchScript requires source access"):
        ember.jit.script(ns["f"])
