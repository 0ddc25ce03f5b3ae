"""ember.jit.trace / trace_module against torch.jit.trace (PyTorch 1.13): graphs of functions and modules,
values of traced modules on new inputs, parameters as attributes, container inputs and outputs, warnings,
check_trace and errors."""
import warnings

import numpy as np
import pytest
import torch

import ember
from conftest import assert_same, to_ember, to_torch

F = ember.nn.functional


def op_kinds(graph):
    """The op node kinds of a graph (Ember's or PyTorch's), constants and attribute reads left out. PyTorch's
    tracer records convolutions as aten::_convolution (its conv2d is a composite traced through); Ember's
    records the op called, aten::conv2d: compared under one name."""
    if hasattr(graph, "nodes") and callable(graph.nodes) and not hasattr(graph, "inputs"):
        kinds = graph.nodes()
    else:
        kinds = [n.kind() for n in graph.nodes()]
    return ["aten::conv2d" if k == "aten::_convolution" else k for k in kinds if k.startswith("aten::")]


def randn(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def both(a):
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


def copy_weights(emod, tmod):
    """Ember module gets the torch module's parameters and buffers (same names)."""
    sd = {k: to_ember(v.detach()) for k, v in tmod.state_dict().items()}
    emod.load_state_dict(sd)


def fn_arith(lib):
    def f(x, y):
        return lib.relu(x + y * 2).sum(1)
    return f


def test_function_graph_and_values_on_new_inputs():
    x, tx = both(randn(3, 4))
    y, ty = both(randn(3, 4, seed=1))
    ef = ember.jit.trace(fn_arith(ember), (x, y))
    tf = torch.jit.trace(fn_arith(torch), (tx, ty))
    assert op_kinds(ef.graph) == op_kinds(tf.graph) == ["aten::mul", "aten::add", "aten::relu", "aten::sum"]
    text = str(ef.graph)
    assert text.startswith("graph(%x : Float(3, 4),\n      %y : Float(3, 4)):")
    assert "def f(x: Tensor,\n    y: Tensor):" in ef.code
    nx, ntx = both(randn(3, 4, seed=5))
    ny, nty = both(randn(3, 4, seed=6))
    assert_same(ef(nx, ny), tf(ntx, nty))
    assert_same(ef(nx, ny), to_torch(fn_arith(ember)(nx, ny)))


class Net(ember.nn.Module):
    """Conv2d + BatchNorm + ReLU + MaxPool + Flatten + Linear, with a nested Sequential."""

    def __init__(self, nn):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2))
        self.flat = nn.Flatten()
        self.head = nn.Sequential(nn.Linear(36, 8), nn.ReLU(), nn.Linear(8, 3))

    def forward(self, x):
        return self.head(self.flat(self.features(x)))


class TorchNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        nn = torch.nn
        self.features = nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2))
        self.flat = nn.Flatten()
        self.head = nn.Sequential(nn.Linear(36, 8), nn.ReLU(), nn.Linear(8, 3))

    def forward(self, x):
        return self.head(self.flat(self.features(x)))


def nets():
    torch.manual_seed(0)
    tnet = TorchNet().eval()
    enet = Net(ember.nn).eval()
    copy_weights(enet, tnet)
    return enet, tnet


def test_cnn_module_values_params_and_graph():
    enet, tnet = nets()
    x, tx = both(randn(2, 1, 8, 8))
    em = ember.jit.trace(enet, x)
    tm = torch.jit.trace(tnet, tx)
    assert isinstance(em, ember.jit.TracedModule) and isinstance(em, ember.nn.Module)
    assert [n for n, _ in em.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert [n for n, _ in em.named_parameters()] == [n for n, _ in enet.named_parameters()]
    assert list(em.state_dict()) == list(tm.state_dict())
    for (n, p), (_, q) in zip(em.named_parameters(), enet.named_parameters()):
        assert p is q, n  # shared with the original, as PyTorch's traced modules share theirs
    assert op_kinds(em.graph) == op_kinds(tm.inlined_graph)
    text = str(em.graph)
    assert 'prim::GetAttr[name="features"](%self)' in text
    assert 'prim::GetAttr[name="weight"]' in text and 'prim::GetAttr[name="running_mean"]' in text
    assert "value=<Tensor>" not in text  # parameters are attributes, not constants
    nx, ntx = both(randn(5, 1, 8, 8, seed=3))  # new inputs, another batch size
    with ember.no_grad(), torch.no_grad():
        assert_same(em(nx), tm(ntx), rtol=1e-4, atol=1e-5)
        assert_same(em(nx), to_torch(enet(nx)))
    assert "features" in dict(em.named_children()) and em.features[0].original_name == "Conv2d"
    assert repr(em.head).startswith("Sequential(\n  original_name=Sequential")


def test_linear_module_and_live_parameters():
    torch.manual_seed(1)
    tl = torch.nn.Linear(4, 3)
    el = ember.nn.Linear(4, 3)
    copy_weights(el, tl)
    x, tx = both(randn(2, 4))
    em, tm = ember.jit.trace(el, x), torch.jit.trace(tl, tx)
    assert [n for n, _ in em.named_parameters()] == [n for n, _ in tm.named_parameters()] == ["weight", "bias"]
    assert op_kinds(em.graph) == op_kinds(tm.graph) == ["aten::linear"]
    with ember.no_grad(), torch.no_grad():
        em.weight.mul_(2)
        tm.weight.mul_(2)
        assert_same(em(x), tm(tx))  # the graph reads the parameters when it runs


@pytest.mark.filterwarnings("ignore::torch.jit.TracerWarning")  # PyTorch's batch_norm converts a size to bool
def test_training_flags_are_recorded_as_constants():
    torch.manual_seed(0)
    tbn, ebn = torch.nn.BatchNorm1d(3), ember.nn.BatchNorm1d(3)
    x, tx = both(randn(4, 3))
    eg = str(ember.jit.trace(ebn, x, check_trace=False).graph)
    tg = str(torch.jit.trace(tbn, tx, check_trace=False).graph)
    assert "aten::batch_norm" in eg and "aten::batch_norm" in tg
    # training=True is the sixth argument of batch_norm; both traces hold it as a constant 1.
    assert "bool = prim::Constant[value=1]()" in eg and "bool = prim::Constant[value=1]()" in tg
    eg_eval = str(ember.jit.trace(ebn.eval(), x).graph)
    assert "bool = prim::Constant[value=1]()" not in eg_eval


def test_dropout_in_training_mode_warns_as_pytorch():
    def kinds_of(lib, mod, x):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.jit.trace(mod, x)
        return [(x.category.__name__, str(x.message).split(".")[0]) for x in w]
    x, tx = both(np.ones((50,), np.float32))
    ours = kinds_of(ember, ember.nn.Dropout(0.5), x)
    theirs = kinds_of(torch, torch.nn.Dropout(0.5), tx)
    assert ours == theirs
    assert ours[0] == ("TracerWarning", "Trace had nondeterministic nodes")


def containers(x):
    (a, b), lst, d = x[0], x[1], x[2]
    return (a + b, [lst[0] * 2, d["k"] - a])


def test_tuple_list_dict_inputs_and_outputs():
    a, ta = both(randn(2, 3))
    b, tb = both(randn(2, 3, seed=1))
    c, tc = both(randn(2, 3, seed=2))
    args = (((a, b), [c], {"k": a}),)
    targs = (((ta, tb), [tc], {"k": ta}),)
    ef = ember.jit.trace(lambda *x: containers(x[0] if len(x) == 1 else x), args, strict=False)
    tf = torch.jit.trace(lambda *x: containers(x[0] if len(x) == 1 else x), targs, strict=False)
    n = [both(randn(2, 3, seed=s)) for s in (7, 8, 9)]
    eout = ef(((n[0][0], n[1][0]), [n[2][0]], {"k": n[0][0]}))
    tout = tf(((n[0][1], n[1][1]), [n[2][1]], {"k": n[0][1]}))
    assert type(eout) is tuple and type(eout[1]) is list and len(eout[1]) == 2
    assert_same(eout[0], tout[0])
    assert_same(eout[1][0], tout[1][0])
    assert_same(eout[1][1], tout[1][1])
    # A call with another structure is refused.
    with pytest.raises(RuntimeError):
        ef(((n[0][0],), [n[2][0]], {"k": n[0][0]}))


def weighted(d):
    return d["a"] * 2 + d["b"]


def test_a_dict_input_is_matched_by_key():
    (a, ta), (b, tb) = both(randn(2, 3, seed=1)), both(randn(2, 3, seed=2))
    e = ember.jit.trace(weighted, ({"a": a, "b": b},))
    t = torch.jit.trace(weighted, ({"a": ta, "b": tb},))
    # the same keys in another order are the same input, on both sides
    assert_same(e({"b": b, "a": a}), t({"b": tb, "a": ta}))
    assert_same(e({"b": a, "a": b}), t({"b": ta, "a": tb}))
    # a missing or an extra key is refused (PyTorch: RuntimeError as well)
    for lib, x, y in ((e, a, b), (t, ta, tb)):
        with pytest.raises(RuntimeError):
            lib({"a": x})
    with pytest.raises(RuntimeError, match="structure"):
        e({"a": a, "b": b, "c": a})


def test_dict_output_needs_strict_false():
    x, tx = both(randn(3))
    for lib, t in ((ember, x), (torch, tx)):
        with pytest.raises(RuntimeError, match="Encountering a dict at the output"):
            lib.jit.trace(lambda v: {"a": v * 2}, (t,))
    e = ember.jit.trace(lambda v: {"a": v * 2}, (x,), strict=False)
    r = torch.jit.trace(lambda v: {"a": v * 2}, (tx,), strict=False)
    assert_same(e(x)["a"], r(tx)["a"])
    assert "prim::DictConstruct" in str(e.graph)


def uses_item(x):
    s = x.sum().item()  # the TracerWarning names this line
    return x * s


def test_tracer_warning_on_item_names_the_line():
    def record(lib, t):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.jit.trace(uses_item, (t,), check_trace=False)
        return [(x.category.__name__, x.filename, x.lineno, str(x.message)[:60]) for x in w]
    x, tx = both(randn(3))
    ours, theirs = record(ember, x), record(torch, tx)
    assert ours == theirs
    assert ours[0][0] == "TracerWarning" and ours[0][1] == __file__
    assert issubclass(ember.jit.TracerWarning, Warning)


@pytest.mark.parametrize("convert", ["bool", "int", "float", "tolist"])
def test_tracer_warning_on_other_conversions(convert):
    conv = {"bool": bool, "int": int, "float": float, "tolist": lambda t: t.tolist()}[convert]

    def f(x):
        conv(x.sum())
        return x + 1
    x, tx = both(randn(1))
    msgs = {}
    for lib, t in ((ember, x), (torch, tx)):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.jit.trace(f, (t,), check_trace=False)
        msgs[lib.__name__] = [str(m.message).split(" might")[0] for m in w]
    assert msgs["ember"] == msgs["torch"] and len(msgs["ember"]) == 1


def data_dependent(x):
    if x.sum() > 0:
        return x * 2
    return x - 1


def test_check_trace_fails_on_data_dependent_control_flow():
    x, tx = both(np.ones(3, np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ember.jit.trace(data_dependent, (x,))  # same inputs: same graph, no error (as PyTorch)
        with pytest.raises(ember.jit.TracingCheckError, match="Graphs differed across invocations"):
            ember.jit.trace(data_dependent, (x,), check_inputs=[(-x,)])
        with pytest.raises(torch.jit.TracingCheckError, match="Graphs differed across invocations"):
            torch.jit.trace(data_dependent, (tx,), check_inputs=[(-tx,)])
        traced = ember.jit.trace(data_dependent, (x,))
    assert op_kinds(traced.graph) == ["aten::mul"]  # the comparison feeding `if` is dead and removed
    assert_same(traced(-x), to_torch(x * -2))  # the trace follows the example's branch


def test_non_tensor_inputs_raise_like_pytorch():
    for lib in (ember, torch):
        with pytest.raises(RuntimeError, match="cannot be traced"):
            lib.jit.trace(lambda v: v, (3,))
        with pytest.raises(RuntimeError, match="cannot be traced"):
            lib.jit.trace(lambda v: v, ("s",))


def test_inplace_and_view_ops():
    def f(x):
        y = x.clone()
        y.add_(1)
        v = y.view(2, 3)
        v.mul_(2)
        return y.relu()
    x, tx = both(randn(6))
    ef, tf = ember.jit.trace(f, (x,)), torch.jit.trace(f, (tx,))
    assert op_kinds(ef.graph) == op_kinds(tf.graph)
    n, tn = both(randn(6, seed=4))
    assert_same(ef(n), tf(tn))


def test_errors_inside_the_traced_function_clear_the_state():
    def bad(x):
        x.relu()
        raise ValueError("boom")
    x = ember.ones(2)
    with pytest.raises(ValueError, match="boom"):
        ember.jit.trace(bad, (x,))
    assert not ember.jit.is_tracing()
    with pytest.raises(RuntimeError):
        ember.jit.trace(lambda v: v.view(5), (x,))  # an op error inside the trace
    assert not ember.jit.is_tracing()
    assert_same(ember.jit.trace(lambda v: v * 3, (x,))(x), to_torch(x) * 3)


def test_unknown_tensors_become_constants():
    c = ember.ones(3) * 2
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        f = ember.jit.trace(lambda v: v + c, (ember.ones(3),))
    assert any(issubclass(m.category, ember.jit.TracerWarning) and "constant" in str(m.message) for m in w)
    assert "prim::Constant[value=<Tensor>]" in str(f.graph)
    assert_same(f(ember.zeros(3)), torch.full((3,), 2.0))


def test_train_eval_and_submodule_calls():
    enet, _ = nets()
    em = ember.jit.trace(enet, ember.from_numpy(randn(1, 1, 8, 8)))
    em.train()
    assert em.training and em.features[1].training
    em.eval()
    assert not em.features[1].training
    with pytest.raises(RuntimeError, match="no graph of its own"):
        em.features(ember.ones(1, 1, 8, 8))
    with pytest.raises(NotImplementedError):
        ember.jit.trace_module(enet, {"forward": ember.ones(1, 1, 8, 8), "other": ember.ones(1)})


def test_fashion_mnist_style_cnn_in_eval_mode():
    """The example's model shape: conv without bias, in-place ReLU, Dropout, Sequential with numbered children;
    in eval mode the trace is deterministic (no warning, as PyTorch's), and values follow on a new batch size."""
    def build(nn):
        def block(i, o):
            return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True),
                    nn.MaxPool2d(2)]
        return nn.Sequential(*block(1, 4), *block(4, 8), nn.Flatten(), nn.Dropout(0.25), nn.Linear(8 * 2 * 2, 10))
    torch.manual_seed(0)
    tnet = build(torch.nn).eval()
    enet = build(ember.nn).eval()
    copy_weights(enet, tnet)
    x, tx = both(randn(3, 1, 8, 8))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        em = ember.jit.trace(enet, x)
        tm = torch.jit.trace(tnet, tx)
    assert op_kinds(em.graph) == op_kinds(tm.inlined_graph)
    assert 'getattr(self, "0").weight' in em.code  # numbered children read with getattr in the code
    assert list(em.state_dict()) == list(tm.state_dict())
    n, tn = both(randn(1, 1, 8, 8, seed=2))
    with ember.no_grad(), torch.no_grad():
        assert_same(em(n), tm(tn), rtol=1e-4, atol=1e-5)


def test_len_and_iteration_warn_as_pytorch():
    def f(x):
        n = len(x)
        for _ in x:
            pass
        return x * n
    msgs = {}
    for lib in (ember, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.jit.trace(f, (lib.ones(2, 2),), check_trace=False)
        msgs[lib.__name__] = [(m.category.__name__, m.lineno, str(m.message)) for m in w]
    assert msgs["ember"] == msgs["torch"] and len(msgs["ember"]) == 2


def test_warnings_as_errors_abort_the_trace_cleanly():
    c = ember.ones(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ember.jit.TracerWarning)
        with pytest.raises(ember.jit.TracerWarning):
            ember.jit.trace(uses_item, (ember.ones(3),))
        with pytest.raises(ember.jit.TracerWarning, match="recorded as a constant"):
            ember.jit.trace(lambda v: v + c, (ember.ones(3),))  # raised inside the op's recording
    assert not ember.jit.is_tracing()
    assert_same(ember.jit.trace(lambda v: v - 1, (c,))(c), torch.zeros(3))


def test_unknown_tensor_requiring_grad_is_refused():
    for lib in (ember, torch):
        w = lib.nn.Parameter(lib.ones(2))
        with pytest.raises(RuntimeError, match="Cannot insert a Tensor that requires grad as a constant"):
            lib.jit.trace(lambda x: x * w, (lib.ones(2),))
    assert not ember.jit.is_tracing()


def test_tensors_from_python_data_are_constants():
    """ember.tensor and list indices fill their data outside the dispatcher: the trace holds them as constants
    (ember.tensor with PyTorch's TracerWarning, a list index silently), and running the trace gives their
    values."""
    def f(lib):
        def g(x):
            return x[1:, [0, 2]] * lib.tensor([1.0, -1.0])
        return g
    x, tx = both(np.arange(12, dtype=np.float32).reshape(3, 4))
    res = {}
    for lib, t in ((ember, x), (torch, tx)):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            traced = lib.jit.trace(f(lib), (t,), check_trace=False)
        res[lib.__name__] = (traced, [(m.category.__name__, m.lineno) for m in w])
    assert res["ember"][1] == res["torch"][1] and len(res["ember"][1]) == 1
    n, tn = both(np.arange(12, 24, dtype=np.float32).reshape(3, 4))
    assert_same(res["ember"][0](n), res["torch"][0](tn))
    assert_same(res["ember"][0](n), to_torch(f(ember)(n)))


@pytest.mark.parametrize("ret", ["int", "none", "tuple_with_int"])
def test_bad_outputs_raise_like_pytorch(ret):
    out = {"int": lambda x: 3, "none": lambda x: None, "tuple_with_int": lambda x: (x, 1)}[ret]
    for lib in (ember, torch):
        with pytest.raises(RuntimeError) as e:
            lib.jit.trace(out, (lib.ones(2),))
        assert ("didn't return any values" in str(e.value)) == (ret == "none")
    assert not ember.jit.is_tracing()


def test_a_tensor_passed_for_two_inputs_traces_two_inputs():
    # f(x, x) traced must still compute f(a, b) for distinct a and b, as PyTorch's trace does.
    def f(a, b):
        return a - b @ a.t()

    def g(d):
        return d["p"] * d["q"]

    results = []
    for lib in (torch, ember):
        x = lib.ones(2, 2)
        tf = lib.jit.trace(f, (x, x))
        tg = lib.jit.trace(g, ({"p": x, "q": x},))
        a, b = lib.arange(4.0).reshape(2, 2), lib.full((2, 2), 3.0)
        results.append((tf(a, b).tolist(), tg({"p": a, "q": b}).tolist()))
    assert results[0] == results[1]
