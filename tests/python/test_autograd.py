"""Autograd (issue 4, first increment): gradients of each op with a derivative against PyTorch's autograd on the
same inputs (values, dtypes, shapes; broadcasting, non-contiguous, 0-dim, float32/float64), the Tensor API
(requires_grad, grad, grad_fn, is_leaf, detach, retain_grad, backward), ember.autograd.grad, grad modes, and
PyTorch's error types and messages."""
import threading

import numpy as np
import pytest

import ember
import torch
from conftest import assert_raises_like, assert_same, make_tensor, to_torch


def leaf_pair(shape, dtype, layout="contiguous", low=None, high=None, seed=0):
    e = make_tensor(shape, dtype, layout=layout, low=low, high=high, seed=seed)
    t = to_torch(e)
    if layout != "contiguous" and len(shape) >= 2:  # keep the non-contiguity on the torch side too
        t = t.t().contiguous().t() if t.dim() == 2 else t
    return e.requires_grad_(), t.requires_grad_()


def check_grads(efn, tfn, specs, dtype="float64", grad_out=True):
    """Runs efn/tfn on leaves made from specs [(shape, low, high, layout)], back-propagates a fixed upstream
    gradient, and compares the outputs and every leaf's .grad."""
    es, ts = [], []
    for i, (shape, low, high, layout) in enumerate(specs):
        e, t = leaf_pair(shape, dtype, layout, low, high, seed=i)
        es.append(e)
        ts.append(t)
    eo, to = efn(*es), tfn(*ts)
    assert_same(eo, to.detach())
    g = make_tensor(tuple(to.shape), str(to.dtype).replace("torch.", ""), seed=7)
    eo.backward(g)
    to.backward(to_torch(g))
    for e, t in zip(es, ts):
        assert_same(e.grad, t.grad)


S = lambda shape, low=None, high=None, layout="contiguous": (shape, low, high, layout)  # noqa: E731

UNARY = [
    ("neg", lambda m, x: m.neg(x), None, None),
    ("exp", lambda m, x: m.exp(x), None, None),
    ("log", lambda m, x: m.log(x), 0.5, 3.0),
    ("sqrt", lambda m, x: m.sqrt(x), 0.5, 3.0),
    ("sin", lambda m, x: m.sin(x), None, None),
    ("cos", lambda m, x: m.cos(x), None, None),
    ("tanh", lambda m, x: m.tanh(x), None, None),
    ("sigmoid", lambda m, x: m.sigmoid(x), None, None),
    ("relu", lambda m, x: m.relu(x), None, None),
    ("abs", lambda m, x: m.abs(x), None, None),
    ("square", lambda m, x: m.square(x), None, None),
    ("pow2", lambda m, x: x ** 2, None, None),
    ("pow_half", lambda m, x: m.pow(x, 0.5), 0.5, 3.0),
    ("pow0", lambda m, x: m.pow(x, 0), None, None),
    ("clamp", lambda m, x: m.clamp(x, -0.5, 0.5), None, None),
    ("clamp_min", lambda m, x: m.clamp(x, min=0.1), None, None),
    ("sum", lambda m, x: x.sum(), None, None),
    ("sum_dim", lambda m, x: x.sum(1), None, None),
    ("sum_dims_keepdim", lambda m, x: x.sum((0, 1), keepdim=True), None, None),
    ("mean", lambda m, x: x.mean(), None, None),
    ("mean_dim", lambda m, x: x.mean(-1, keepdim=True), None, None),
    ("view", lambda m, x: x.contiguous().view(6, 2), None, None),
    ("reshape", lambda m, x: x.reshape(2, 6), None, None),
    ("transpose", lambda m, x: x.transpose(0, 1), None, None),
    ("t", lambda m, x: x.t(), None, None),
    ("permute", lambda m, x: x.permute(1, 0), None, None),
    ("unsqueeze", lambda m, x: x.unsqueeze(1), None, None),
    ("squeeze", lambda m, x: x.unsqueeze(0).squeeze(), None, None),
    ("squeeze_dim", lambda m, x: x.unsqueeze(2).squeeze(2), None, None),
    ("expand", lambda m, x: x.unsqueeze(0).expand(2, 3, 4), None, None),
    ("select", lambda m, x: x.select(1, 2), None, None),
    ("index_int", lambda m, x: x[1], None, None),
    ("slice", lambda m, x: x[:, 1:4:2], None, None),
    ("softmax", lambda m, x: m.softmax(x, 1), None, None),
    ("log_softmax", lambda m, x: m.log_softmax(x, 0), None, None),
    ("clone", lambda m, x: x.clone(), None, None),
    ("to_float32", lambda m, x: x.to(m.float32) * 2, None, None),
    ("chain", lambda m, x: (x.exp() * x.sin() - x / 3).tanh(), None, None),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("name, fn, low, high", UNARY, ids=[u[0] for u in UNARY])
def test_unary_grad_matches_torch(name, fn, low, high, layout, dtype):
    check_grads(lambda x: fn(ember, x), lambda x: fn(torch, x), [S((3, 4), low, high, layout)], dtype)


BINARY = [
    ("add", lambda m, a, b: a + b), ("add_alpha", lambda m, a, b: m.add(a, b, alpha=2.5)),
    ("sub", lambda m, a, b: a - b), ("sub_alpha", lambda m, a, b: m.sub(a, b, alpha=-2)),
    ("mul", lambda m, a, b: a * b), ("div", lambda m, a, b: a / b),
    ("pow", lambda m, a, b: m.pow(a, b)),
    ("scalar_ops", lambda m, a, b: (2 * a - 1) / 3 + b * 0.5 - 1 / b),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("sa, sb", [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (3,)), ((3,), ())])
@pytest.mark.parametrize("name, fn", BINARY, ids=[b[0] for b in BINARY])
def test_binary_grad_matches_torch(name, fn, sa, sb, dtype):
    check_grads(lambda a, b: fn(ember, a, b), lambda a, b: fn(torch, a, b),
                [S(sa, 0.5, 2.0), S(sb, 0.5, 2.0)], dtype)


MATMUL = [
    ("mm", lambda m, a, b, c: m.mm(a, b), (3, 4), (4, 5), (5,)),
    ("matmul_vec", lambda m, a, b, c: m.matmul(a, c), (3, 5), (1,), (5,)),
    ("matmul_batched", lambda m, a, b, c: m.matmul(a, b), (2, 3, 4), (4, 5), (1,)),
    ("linear", lambda m, a, b, c: m.nn.functional.linear(a, b, c), (3, 4), (5, 4), (5,)),
    ("addmm", lambda m, a, b, c: m.addmm(c, a, b, beta=0.5, alpha=2), (3, 4), (4, 5), (5,)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name, fn, sa, sb, sc", MATMUL, ids=[m[0] for m in MATMUL])
def test_matmul_grad_matches_torch(name, fn, sa, sb, sc, dtype):
    check_grads(lambda a, b, c: fn(ember, a, b, c), lambda a, b, c: fn(torch, a, b, c),
                [S(sa), S(sb), S(sc)], dtype)


def test_mixed_dtype_gradient_in_input_dtype():
    a = ember.tensor([1.0, 2.0], dtype=ember.float32, requires_grad=True)
    b = ember.tensor([3.0, 4.0], dtype=ember.float64, requires_grad=True)
    (a * b).sum().backward()
    assert a.grad.dtype == ember.float32 and b.grad.dtype == ember.float64
    assert a.grad.tolist() == [3.0, 4.0] and b.grad.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("fn, x, expected", [
    (lambda m, x: m.relu(x), [0.0, -1.0, 2.0], [0.0, 0.0, 1.0]),
    (lambda m, x: m.abs(x), [0.0, -1.0, 2.0], [0.0, -1.0, 1.0]),
    (lambda m, x: m.sqrt(x), [0.0, 4.0], [float("inf"), 0.25]),
    (lambda m, x: m.clamp(x, -1.0, 1.0), [-1.0, 1.0, 2.0, 0.0], [1.0, 1.0, 0.0, 1.0]),
])
def test_non_smooth_points_follow_torch(fn, x, expected):
    e = ember.tensor(x, requires_grad=True)
    t = torch.tensor(x, requires_grad=True)
    fn(ember, e).sum().backward()
    fn(torch, t).sum().backward()
    assert e.grad.tolist() == t.grad.tolist() == expected


@pytest.mark.parametrize("fn", [lambda x: (x.exp() * x.sin()).sum(), lambda x: (x ** 3 / (1 + x * x)).mean(),
                                lambda x: x.softmax(0).log().sum(), lambda x: x.tanh().sum()])
def test_finite_differences_float64(fn):
    x0 = np.linspace(-1.0, 1.5, 5)
    x = ember.tensor(x0.tolist(), dtype=ember.float64, requires_grad=True)
    fn(x).backward()
    eps = 1e-6
    for i in range(5):
        up, dn = x0.copy(), x0.copy()
        up[i] += eps
        dn[i] -= eps
        fd = (fn(ember.tensor(up.tolist(), dtype=ember.float64)).item()
              - fn(ember.tensor(dn.tolist(), dtype=ember.float64)).item()) / (2 * eps)
        assert abs(fd - x.grad[i].item()) < 1e-6


# ---------------------------------------------------------------------------------------------------- API
def test_leaf_and_non_leaf_attributes():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    assert x.requires_grad and x.is_leaf and x.grad_fn is None and x.grad is None
    y = x * 2
    assert y.requires_grad and not y.is_leaf and y.grad_fn.name() == "MulBackward0"
    acc, nr = y.grad_fn.next_functions[0]
    assert acc.name() == "AccumulateGrad" and nr == 0 and acc.variable is x
    assert (y + 1).grad_fn.name() == "AddBackward0"
    assert y.sum().grad_fn.name() == "SumBackward0"
    plain = ember.tensor([1.0])
    assert not plain.requires_grad and plain.is_leaf and (plain * 2).grad_fn is None


def test_detach_shares_storage_and_drops_history():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    d.add_(1)
    assert y.tolist() == [3.0, 5.0]
    z = x * 3
    z.detach_()
    assert not z.requires_grad and z.grad_fn is None


def test_grad_accumulates_across_backward_calls():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    (x * 3).sum().backward()
    assert x.grad.tolist() == [5.0, 7.0]
    x.grad = None
    assert x.grad is None


def test_retain_graph_and_second_backward_error():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    tx = torch.tensor([1.0, 2.0], requires_grad=True)
    ty = (tx.exp() * tx).sum()
    ty.backward(retain_graph=True)
    ty.backward()
    assert_same(x.grad, tx.grad)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_retain_grad_on_non_leaf():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    assert y.retains_grad
    (y * y).sum().backward()
    assert y.grad.tolist() == [6.0, 12.0]
    assert x.grad.tolist() == [18.0, 36.0]


def test_autograd_grad_and_allow_unused():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    w = ember.tensor([3.0, 4.0], requires_grad=True)
    (gx,) = ember.autograd.grad((x * x).sum(), x)
    assert gx.tolist() == [2.0, 4.0] and x.grad is None
    gx, gw = ember.autograd.grad((x * 2).sum(), [x, w], allow_unused=True)
    assert gx.tolist() == [2.0, 2.0] and gw is None
    with pytest.raises(RuntimeError, match="not have been used in the graph"):
        ember.autograd.grad((x * 2).sum(), [x, w])


def test_create_graph_gives_second_derivative():
    x = ember.tensor([0.5, 1.5], dtype=ember.float64, requires_grad=True)
    (g,) = ember.autograd.grad((x * x * x).sum(), x, create_graph=True)
    assert g.requires_grad
    g.sum().backward()
    assert np.allclose(x.grad.tolist(), [3.0, 9.0])


def test_backward_inputs_and_explicit_gradient():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    w = ember.tensor([3.0, 4.0], requires_grad=True)
    y = x * w
    y.backward(ember.tensor([1.0, 10.0]), inputs=[x])
    assert x.grad.tolist() == [3.0, 40.0] and w.grad is None
    z = x * w
    ember.autograd.backward([z.sum()])
    assert w.grad.tolist() == [1.0, 2.0]


def test_grad_modes():
    x = ember.tensor([1.0], requires_grad=True)
    with ember.no_grad():
        assert not (x * 2).requires_grad
        assert not ember.is_grad_enabled()
        with ember.enable_grad():
            assert (x * 2).requires_grad
    assert ember.is_grad_enabled()

    @ember.no_grad()
    def f():
        return x * 2
    assert not f().requires_grad
    with ember.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad
    ember.set_grad_enabled(False)
    assert not ember.is_grad_enabled()
    ember.set_grad_enabled(True)


def test_inplace_on_non_leaf_records_history():
    for m in (ember, torch):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        y.mul_(x)
        y.add_(1)
        y.sum().backward()
        if m is ember:
            eg, ev = x.grad.tolist(), y.tolist()
        else:
            assert eg == x.grad.tolist() and ev == y.tolist()


# ---------------------------------------------------------------------------------------------------- errors
def test_errors_match_torch():
    for m in (ember, torch):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
            (x * 2).backward()
        with pytest.raises(RuntimeError,
                           match="element 0 of tensors does not require grad and does not have a grad_fn"):
            m.tensor([1.0]).sum().backward()
        with pytest.raises(RuntimeError,
                           match="a leaf Variable that requires grad is being used in an in-place operation."):
            x.add_(1)
        with pytest.raises(RuntimeError, match="only Tensors of floating point"):
            m.tensor([1, 2]).requires_grad_()
        with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
            (x * 2).requires_grad_(False)


def test_saved_tensor_modified_inplace_raises():
    for m in (ember, torch):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        z = y.exp()
        z.add_(1)  # exp saved its result
        with pytest.raises(RuntimeError, match="modified by an inplace operation.*is at version 1; expected version 0"):
            z.sum().backward()
        a = x * 1
        b = a * a
        a.detach().mul_(2)  # through a detach() alias
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            b.sum().backward()


def test_inplace_on_view_of_tensor_with_history():
    # More cases in test_inplace_views.py (CopySlices).
    for m in (ember, torch):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y[0:1].mul_(3)
        y.sum().backward()
        assert x.grad.tolist() == [6.0, 2.0]


def test_plain_tensors_get_no_autograd_metadata():
    a = ember.tensor([1.0, 2.0])
    b = a * 2 + a.exp()
    assert b.grad_fn is None and not b.requires_grad


# ---------------------------------------------------------------------------------------------- no formula yet
def test_op_without_derivative_raises_instead_of_dropping_the_gradient():
    # Note [ops without a derivative]: scatter with reduce= has no formula (PyTorch 1.13 has none either);
    # x.scatter(..., reduce="add") + x.sum() must not backpropagate through sum alone.
    x = ember.tensor([1.0, 3.0, 2.0], requires_grad=True)
    index = ember.tensor([0, 0])
    with pytest.raises(NotImplementedError, match="scatter"):
        x.scatter(0, index, 2.0, reduce="add")
    with ember.no_grad():
        assert x.scatter(0, index, 2.0, reduce="add").tolist() == [5.0, 3.0, 2.0]
    assert x.detach().scatter(0, index, 2.0, reduce="add").tolist() == [5.0, 3.0, 2.0]


def test_non_differentiable_results_pass_through():
    x = ember.tensor([1.0, 3.0, 2.0], requires_grad=True)
    t = torch.tensor([1.0, 3.0, 2.0], requires_grad=True)
    for f in [lambda m, a: a > 1, lambda m, a: a.argmax(), lambda m, a: m.zeros_like(a), lambda m, a: a.detach(),
              lambda m, a: m.ones_like(a)]:
        e, r = f(ember, x), f(torch, t)
        assert e.requires_grad == r.requires_grad is False
        np.testing.assert_array_equal(e.numpy(), r.numpy())


def test_repr_shows_grad_fn_and_requires_grad_as_torch():
    for make in [lambda m: m.tensor([1.0, 3.0, 2.0], requires_grad=True),
                 lambda m: m.tensor([1.0, 3.0, 2.0], requires_grad=True) * 2,
                 lambda m: (m.tensor([[1.0, 2.0]], dtype=m.float64, requires_grad=True) + 1).sum(),
                 lambda m: m.tensor([1.0, 3.0, 2.0], requires_grad=True).detach(),
                 lambda m: m.ones(2000).requires_grad_()]:
        assert repr(make(ember)) == repr(make(torch)).replace("torch.", "ember.")


# ---------------------------------------------------------------------------------------------- generator forms
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat_list_input_gradients(dim):
    # A Tensor[] argument: one gradient per element; a legacy 1-D empty input is skipped by cat and gets an empty
    # gradient; an input that does not require grad gets none.
    def run(m):
        a = m.arange(6., dtype=m.float64).reshape(2, 3).requires_grad_()
        b = m.full((2, 3), 2.0, dtype=m.float64).requires_grad_()
        c = m.ones(2, 3, dtype=m.float64)
        parts = [a, c, b * 3] + ([m.zeros(0, dtype=m.float64).requires_grad_()] if dim == 0 else [])
        y = m.cat(parts, dim)
        w = m.arange(float(y.numel()), dtype=m.float64).reshape(y.shape)
        (y * w).sum().backward()
        extra = [parts[3].grad] if dim == 0 else []
        return [y.grad_fn.name(), a.grad, b.grad] + extra

    e, t = run(ember), run(torch)
    assert e[0] == t[0]
    for x, y in zip(e[1:], t[1:]):
        assert_same(x, y)


@pytest.mark.parametrize("keepdim", [False, True])
def test_max_dim_multi_output_gradients(keepdim):
    # Two results: only the values get a grad_fn; ties go to the one index max returns.
    def run(m):
        x = m.tensor([[1., 5., 5.], [7., 3., 3.]], dtype=m.float64).requires_grad_()
        v, i = x.max(1, keepdim=keepdim)
        (v * m.tensor(3., dtype=m.float64)).sum().backward()
        return v.grad_fn.name(), i.requires_grad, i.grad_fn, x.grad

    e, t = run(ember), run(torch)
    assert e[:3] == t[:3]
    assert_same(e[3], t[3])


# ---------------------------------------------------------------------------------------------- factories
FACTORY_CALLS = [
    ("zeros", lambda m, **k: m.zeros(2, 3, **k)),
    ("ones", lambda m, **k: m.ones((2,), dtype=m.float64, **k)),
    ("full", lambda m, **k: m.full((2,), 1.5, **k)),
    ("empty", lambda m, **k: m.empty(0, **k)),
    ("arange", lambda m, **k: m.arange(3.0, **k)),
    ("linspace", lambda m, **k: m.linspace(0, 1, 5, **k)),
    ("eye", lambda m, **k: m.eye(2, **k)),
    ("rand", lambda m, **k: m.rand(2, **k)),
    ("randn_generator", lambda m, **k: m.randn(2, generator=m.Generator().manual_seed(0), **k)),
    ("zeros_like", lambda m, **k: m.zeros_like(m.ones(2), **k)),
    ("full_like", lambda m, **k: m.full_like(m.ones(2), 7.0, **k)),
    ("randn_like", lambda m, **k: m.randn_like(m.ones(2), **k)),
]


@pytest.mark.parametrize("rg", [True, False])
@pytest.mark.parametrize("name,call", FACTORY_CALLS, ids=[c[0] for c in FACTORY_CALLS])
def test_factories_take_requires_grad(name, call, rg):
    # Note [requires_grad of factories]: the result is a leaf that requires grad.
    e, t = call(ember, requires_grad=rg), call(torch, requires_grad=rg)
    assert (e.requires_grad, e.is_leaf, e.grad_fn) == (t.requires_grad, t.is_leaf, t.grad_fn)
    assert e.shape == tuple(t.shape) and str(e.dtype) == str(t.dtype).replace("torch", "ember")


@pytest.mark.parametrize("call", [lambda m: m.ones(2, dtype=m.int64, requires_grad=True),
                                  lambda m: m.arange(3, requires_grad=True),
                                  lambda m: m.zeros(2, requires_grad=1),
                                  lambda m: m.add(m.ones(1), 1, requires_grad=True)])
def test_factory_requires_grad_errors_match_pytorch(call):
    with pytest.raises(Exception) as te:
        call(torch)
    with pytest.raises(type(te.value)):
        call(ember)


@pytest.mark.parametrize("call", [lambda m, x: m.log10(x, out=m.zeros(3)), lambda m, x: m.add(x, 1, out=m.zeros(3)),
                                  lambda m, x: m.cumsum(x, 0, out=m.zeros(3))], ids=["log10", "add", "cumsum"])
def test_out_with_an_input_that_requires_grad_raises(call):
    # Found by tools/random_calls.py: NotImplementedError ("derivative not implemented"), after out= was written.
    e = assert_raises_like(lambda: call(ember, ember.ones(3, requires_grad=True)),
                           lambda: call(torch, torch.ones(3, requires_grad=True)))
    assert "functions with out=... arguments don't support automatic differentiation" in str(e)
    out = ember.zeros(3)
    with pytest.raises(RuntimeError):
        ember.add(ember.ones(3, requires_grad=True), 1, out=out)
    assert out.tolist() == [0.0, 0.0, 0.0]  # refused before anything is written
    assert ember.argmax(ember.ones(3, requires_grad=True), out=ember.zeros((), dtype=ember.int64)).item() == 0


def test_backward_from_several_threads():
    """Eight threads run forward and backward at once on one module (shared leaves, Hogwild-style) and
    differentiate graphs of their own: the shared .grad holds every thread's gradient (PyTorch's for the same
    calls made one after another; integer values, so the order of the sums does not matter) and each thread's
    grad() is its own. `make tsan` runs this under ThreadSanitizer."""
    def run(m, threaded):
        lin = m.nn.Linear(4, 3)
        with m.no_grad():
            lin.weight.copy_(m.arange(12.0).reshape(3, 4) - 5)
            lin.bias.copy_(m.tensor([1.0, -1.0, 2.0]))
        own, errors = [None] * 8, []

        def work(t):
            try:
                x = m.arange(8.0).reshape(2, 4) - t
                for _ in range(5):
                    lin(x).pow(2).sum().backward()
                y = m.full((3,), float(t), requires_grad=True)
                own[t] = m.autograd.grad((y * y * y).sum(), y)[0]
            except Exception as e:  # reported below
                errors.append(e)

        if threaded:
            threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
        else:
            for t in range(8):
                work(t)
        assert not errors
        return [lin.weight.grad, lin.bias.grad] + own

    for e, t in zip(run(ember, True), run(torch, False)):
        assert_same(e, t)
