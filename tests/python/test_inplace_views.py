"""Version counters and in-place ops on views (issue 4): `_version` sequences as PyTorch 1.13's (factories,
clone, to, out= ops, in-place ops, views and detach() sharing the counter), and gradients, grad_fn names and
errors of in-place ops on views (CopySlices, AsStridedBackward0) against PyTorch's autograd."""
import pytest

import ember
import torch
from conftest import assert_same, make_tensor, to_torch


# ------------------------------------------------------------------------------------------- version counter
def _version_cases(m):
    x = m.arange(6.).reshape(2, 3)
    return {
        "zeros": lambda: m.zeros(3), "ones": lambda: m.ones(3), "full": lambda: m.full((3,), 2.),
        "empty": lambda: m.empty(3), "arange": lambda: m.arange(3), "linspace": lambda: m.linspace(0, 1, 5),
        "eye": lambda: m.eye(3), "rand": lambda: m.rand(3), "randn": lambda: m.randn(20),
        "randint": lambda: m.randint(0, 5, (3,)), "tensor": lambda: m.tensor([1., 2.]),
        "zeros_like": lambda: m.zeros_like(x), "ones_like": lambda: m.ones_like(x),
        "rand_like": lambda: m.rand_like(x), "clone": lambda: x.clone(), "contiguous_t": lambda: x.t().contiguous(),
        "to_double": lambda: x.to(m.float64), "double": lambda: x.double(), "reshape_t": lambda: x.t().reshape(6),
        "add": lambda: x + 1, "matmul": lambda: x @ x.t(), "sum": lambda: x.sum(), "cat": lambda: m.cat([x, x]),
        "stack": lambda: m.stack([x, x]), "tril": lambda: x.tril(),
        "index_select": lambda: x.index_select(0, m.tensor([0])),
        "scatter": lambda: x.scatter(0, m.tensor([[0, 1, 0]]), 1.),
        "index_put": lambda: x.index_put((m.tensor([0]),), m.tensor(1.)), "advanced_index": lambda: x[m.tensor([0, 1])],
        "where": lambda: m.where(x > 1, x, x * 0), "masked_fill": lambda: x.masked_fill(x > 1, 0.),
        "softmax": lambda: x.softmax(0), "sort": lambda: x.sort()[0], "topk": lambda: x.topk(1)[0],
        "flip": lambda: x.flip(0), "repeat": lambda: x.repeat(2, 1), "pad": lambda: m.nn.functional.pad(x, (1, 1)),
        "embedding": lambda: m.nn.functional.embedding(m.tensor([0]), x),
        "conv2d": lambda: m.nn.functional.conv2d(m.ones(1, 1, 3, 3), m.ones(1, 1, 2, 2)),
        "layer_norm": lambda: m.nn.functional.layer_norm(x, (3,)), "dropout": lambda: m.nn.functional.dropout(x, 0.5),
    }


@pytest.mark.parametrize("name", list(_version_cases(torch)))
def test_fresh_results_are_at_version_0(name):
    assert _version_cases(ember)[name]()._version == _version_cases(torch)[name]()._version == 0


def _run_sequence(m, ops, shape=(2, 3)):
    y = m.zeros(*shape)
    out = []
    for op in ops:
        op(m, y)
        out.append(y._version)
    return out


INPLACE_OPS = [
    lambda m, y: y.add_(1), lambda m, y: y.mul_(2), lambda m, y: y.zero_(), lambda m, y: y.fill_(3),
    lambda m, y: y.copy_(m.ones(2, 3)), lambda m, y: y.copy_(y), lambda m, y: y.copy_(m.ones(3, dtype=m.float64)),
    lambda m, y: y.clamp_(0, 1), lambda m, y: y.uniform_(), lambda m, y: y.normal_(), lambda m, y: y.exp_(),
    lambda m, y: y.tril_(), lambda m, y: y.index_put_((m.tensor([0]),), m.tensor(1.)),
    lambda m, y: y.index_add_(0, m.tensor([0]), m.ones(1, 3)),
    lambda m, y: y.scatter_(0, m.tensor([[0, 1, 0]]), 1.), lambda m, y: y.masked_fill_(y > 1, 0.),
    lambda m, y: y.relu_(), lambda m, y: y.addcmul_(y, y), lambda m, y: y.sigmoid_(), lambda m, y: y.pow_(2),
    lambda m, y: y.sub_(1, alpha=2), lambda m, y: y.div_(2), lambda m, y: y.neg_(), lambda m, y: y.abs_(),
    lambda m, y: y.bernoulli_(0.5), lambda m, y: y.random_(0, 3), lambda m, y: y.clamp_min_(0),
    lambda m, y: y.requires_grad_(False), lambda m, y: y.t().add_(1), lambda m, y: y[0].mul_(2),
    lambda m, y: y.detach().zero_(),
]


def test_inplace_ops_bump_once():
    assert _run_sequence(ember, INPLACE_OPS) == _run_sequence(torch, INPLACE_OPS)


def _setitem(k, v):
    def f(m, y):
        y[k(m) if callable(k) else k] = v(m) if callable(v) else v
    return f


SETITEM_OPS = [
    _setitem(0, 1.), _setitem((0, 1), 2.), _setitem(0, lambda m: m.ones(3)), _setitem(lambda m: m.tensor([0, 1]), 1.),
    _setitem(..., 1.), _setitem(slice(None), lambda m: m.ones(3)),
    _setitem(lambda m: m.tensor([0, 1]), lambda m: m.ones(2, 3)),
    _setitem(lambda m: (m.tensor([0, 1]), m.tensor([0, 1])), lambda m: m.ones(2)),
    _setitem(1, lambda m: m.tensor(2.)), _setitem(0, lambda m: m.tensor(5)),
]


def test_setitem_bumps_once():
    assert _run_sequence(ember, SETITEM_OPS, (4, 3)) == _run_sequence(torch, SETITEM_OPS, (4, 3))


def _out_versions(m):
    x = m.arange(6.).reshape(2, 3)
    r = []
    for fn, out in [(lambda o: m.add(x, 1, out=o), m.zeros(2, 3)), (lambda o: m.mul(x, x, out=o), m.zeros(2, 3)),
                    (lambda o: m.exp(x, out=o), m.zeros(2, 3)), (lambda o: m.sum(x, 0, out=o), m.zeros(3)),
                    (lambda o: m.mm(x, x.t(), out=o), m.zeros(2, 2)), (lambda o: m.cat([x, x], out=o), m.zeros(4, 3)),
                    (lambda o: m.add(x, 1, out=o), m.zeros(0)), (lambda o: m.add(x, 1, out=o), m.zeros(3, 2).t()),
                    (lambda o: m.add(x, 1, out=o), m.zeros(2, 3, dtype=m.float64)),
                    (lambda o: m.tril(x, out=o), m.zeros(2, 3)), (lambda o: m.clamp(x, 0, 1, out=o), m.zeros(2, 3)),
                    (lambda o: m.index_select(x, 0, m.tensor([0]), out=o), m.zeros(1, 3))]:
        fn(out)
        fn(out)
        r.append(out._version)
    return r


def test_out_ops_bump_once_per_call():
    assert _out_versions(ember) == _out_versions(torch)


def _views_share(m):
    y = m.zeros(2, 3)
    views = [y[0], y.t(), y.view(6), y.detach(), y[0][1:], y.reshape(6), y.expand(2, 2, 3), y.unsqueeze(0),
             y.narrow(0, 0, 1), y.unbind(0)[0], y.split(1)[0], y.as_strided((2,), (1,)), y.diagonal(), y.select(1, 0),
             y.unfold(1, 2, 1), y.permute(1, 0), y.flatten(), y.movedim(0, 1)]
    r = []
    for op in (lambda: views[0].add_(1), lambda: views[3].mul_(2), lambda: views[4].zero_(), lambda: y.add_(1)):
        op()
        r.append([y._version] + [v._version for v in views])
    return r


def test_views_and_detach_share_the_counter():
    assert _views_share(ember) == _views_share(torch)


def _autograd_versions(m):
    y = m.zeros(3).requires_grad_()
    r = [y._version]
    with m.no_grad():
        y.add_(1)
    r.append(y._version)
    z = y * 2
    r.append(z._version)
    z.add_(1)
    r.append(z._version)
    z[0] = 5
    r.append(z._version)
    z.detach_()
    r.append(z._version)
    y.detach().zero_()
    r.append(y._version)
    p = m.ones(3).requires_grad_()
    (p * 2).sum().backward()
    g = p.grad
    r += [p._version, g._version]
    (p * 2).sum().backward()  # accumulates into .grad in place
    r += [p._version, g._version]
    with m.no_grad():
        p.sub_(g * 0.1)
        p.grad.zero_()
    r += [p._version, g._version]
    return r


def test_versions_with_autograd():
    assert _autograd_versions(ember) == _autograd_versions(torch)


def test_saved_tensor_check_still_raises():
    for m in (ember, torch):
        x = m.tensor([1., 2., 3.]).requires_grad_()
        y = (x * 1).exp()
        y.add_(1)
        with pytest.raises(RuntimeError, match=r"FloatTensor \[3\]\], which is output 0 of ExpBackward0, is at version "
                                               r"1; expected version 0 instead"):
            y.sum().backward()
        a = x * 1
        b = a.exp()
        a[0:2].mul_(2)  # a is not saved by exp; b is: through a view of b below
        b[1:].zero_()
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            b.sum().backward()


# --------------------------------------------------------------------------------------- in-place on views
def _leaves(m, dtype):
    x = to_torch(make_tensor((3, 4), dtype, seed=1)) if m is torch else make_tensor((3, 4), dtype, seed=1)
    w = to_torch(make_tensor((4,), dtype, seed=2)) if m is torch else make_tensor((4,), dtype, seed=2)
    z = to_torch(make_tensor((3,), dtype, seed=3)) if m is torch else make_tensor((3,), dtype, seed=3)
    return [t.requires_grad_() for t in (x, w, z)]


def _mul_select(m, x, w, z):
    y = x * 2
    y[0].mul_(3)
    return y, [y.grad_fn, y[0].grad_fn]


def _setitem_tensor(m, x, w, z):
    y = x * 2
    y[:, 1] = z
    return y, [y.grad_fn]


def _view_add(m, x, w, z):
    y = x * 2
    v = y.view(-1)
    v[4:8].add_(w)
    return y * y, [y.grad_fn, v.grad_fn]


def _transpose_exp(m, x, w, z):
    y = x * 2
    t = y.transpose(0, 1)[0]
    t.exp_()
    return y, [y.grad_fn, t.grad_fn]


def _chain_of_views(m, x, w, z):
    y = x * 1.5
    a = y[1:]
    b = a[:, 1:3]
    b.mul_(w[:2])
    c = a.t()[0]
    c.sin_()
    return y.sum(0) * y[0], [y.grad_fn, a.grad_fn, b.grad_fn, c.grad_fn]


def _stale_sibling(m, x, w, z):
    y = x * 1
    a = y[0:2]
    b = y[1:3]  # overlaps a's second row
    a.mul_(w)
    return b * 1, [b.grad_fn, a.grad_fn]


def _base_inplace_then_view(m, x, w, z):
    y = x * 1
    v = y[0]
    y.mul_(w)
    return v.sin(), [v.grad_fn, y.grad_fn]


def _plain_base(m, x, w, z):
    out = m.zeros(3, 4, dtype=x.dtype)
    for i in range(3):
        out[i] = x[i] * z[i]
    out[:, 0] += w[0]
    return out, [out.grad_fn]


def _copy_broadcast_dtype(m, x, w, z):
    y = m.zeros(3, 4, dtype=m.float64)
    y[1:].copy_(w)  # broadcast, float32 -> float64
    y.mul_(x.double())
    return y, [y.grad_fn]


def _fill_view(m, x, w, z):
    y = x * 2
    y[:, 2].fill_(7)
    y[0].zero_()
    return y * x, [y.grad_fn]


def _add_product(m, x, w, z):
    y = x * 1
    r = y[1]
    r.add_(w * z[0])
    return y, [y.grad_fn, r.grad_fn]


def _nograd_inplace_on_view(m, x, w, z):
    y = x * 2
    v = y[0]
    with m.no_grad():
        v.mul_(2)  # not recorded: gradients as if y was x * 2
    return y, [y.grad_fn, v.grad_fn]


def _expand_of_stale_base(m, x, w, z):
    y = x * 1
    e = y[0].expand(2, 4)
    y.add_(1)
    return e, [e.grad_fn]


VIEW_CASES = [_mul_select, _setitem_tensor, _view_add, _transpose_exp, _chain_of_views, _stale_sibling,
              _base_inplace_then_view, _plain_base, _copy_broadcast_dtype, _fill_view, _add_product,
              _nograd_inplace_on_view, _expand_of_stale_base]


def node_name(n):
    """The PyTorch-style name of a grad_fn of either framework (None for None)."""
    if n is None:
        return None
    return type(n).__name__ if type(n).__module__ != "ember._C" and type(n).__name__ != "_Node" else n.name()


def _names(nodes):
    return [node_name(n) for n in nodes]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", VIEW_CASES, ids=lambda f: f.__name__.lstrip("_"))
def test_inplace_on_view_gradients(case, dtype):
    el, tl = _leaves(ember, dtype), _leaves(torch, dtype)
    eo, en = case(ember, *el)
    to, tn = case(torch, *tl)
    assert_same(eo.detach(), to.detach())
    assert _names(en) == _names(tn)
    g = make_tensor(tuple(to.shape), str(to.dtype).replace("torch.", ""), seed=9)
    eo.backward(g)
    to.backward(to_torch(g))
    for e, t in zip(el, tl):
        if t.grad is None:
            assert e.grad is None
        else:
            assert_same(e.grad, t.grad)


def test_copyslices_graph_structure():
    for m in (ember, torch):
        x = m.ones(2, 3).requires_grad_()
        y = x * 2
        v = y[0]
        v.mul_(3)
        assert node_name(y.grad_fn) == "CopySlices" and node_name(v.grad_fn) == "AsStridedBackward0"
        assert node_name(y[0].grad_fn) == "SelectBackward0"
        nxt = [node_name(f) for f, _ in y.grad_fn.next_functions]
        assert nxt == ["MulBackward0", None]
        assert y[0]._base is y and y[0][1:]._base is y and y.detach()._base is None
        assert y[0]._is_view() and not y._is_view() and not y.detach()._is_view()


def test_plain_base_gets_history():
    for m in (ember, torch):
        a = m.zeros(3)
        w = m.ones(2).requires_grad_()
        a[1:].copy_(w * 2)
        assert a.requires_grad and node_name(a.grad_fn) == "CopySlices"
        (a * m.tensor([1., 2., 3.])).sum().backward()
        assert w.grad.tolist() == [4., 6.]


# ------------------------------------------------------------------------------------------------- errors
def test_inplace_view_errors_match_torch():
    for m in (ember, torch):
        x = m.ones(2, 3).requires_grad_()
        w = m.ones(3).requires_grad_()
        with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used in an "
                                               "in-place operation."):
            x[0].mul_(2)
        with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
            x[0] = w
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
            x.copy_(m.zeros(2, 3))
        with m.no_grad():
            x[0].mul_(2)  # allowed without grad mode
            v = x[0]
        with pytest.raises(RuntimeError, match="A view was created in no_grad mode and is being modified inplace "
                                               "with grad mode enabled"):
            v.mul_(w)
        y = x * 2
        with m.no_grad():
            v = y[1]
        with pytest.raises(RuntimeError, match="A view was created in no_grad mode"):
            v.add_(w)
        with pytest.raises(RuntimeError, match="Can't detach views in-place. Use detach\\(\\) instead."):
            y[0].detach_()
        with pytest.raises(RuntimeError, match="Can't detach views in-place"):
            m.zeros(3)[1:].detach_()
        d = y.detach()
        d.detach_()  # detach() is not a view
        assert d.grad_fn is None and not d.requires_grad


def test_detach_inplace_keeps_version_and_grad():
    for m in (ember, torch):
        x = m.ones(3).requires_grad_()
        (x * 2).sum().backward()
        y = x * 2
        y.add_(1)
        y.detach_()
        assert y.grad_fn is None and not y.requires_grad and y.is_leaf and y._version == 1
        x.detach_()
        assert not x.requires_grad and x.grad.tolist() == [2., 2., 2.]
