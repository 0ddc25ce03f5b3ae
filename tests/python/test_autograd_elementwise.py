"""Derivatives of the element-wise, copy, view and matrix-product ops of ember/ops/ops.yaml and ops_linalg.yaml
(issue 4) against PyTorch 1.13's autograd on the same inputs: the node's name (grad_fn), first gradients and
second-order gradients (autograd.grad with create_graph=True, then the gradient of a weighted sum of the first
gradients), for float64 and float32, broadcast and non-contiguous operands, 0-dim and empty tensors, and the
conventions at non-smooth points and at NaN/inf."""
import math

import numpy as np
import pytest

import ember
import ember.nn.functional as EF
import torch
import torch.nn.functional as TF
from conftest import assert_same, make_tensor, to_torch

# (rtol, atol) of gradients by dtype: second-order gradients add a few roundings.
GRAD_TOL = {"float64": (1e-9, 1e-11), "float32": (1e-4, 1e-5)}


def _nn(m):
    return EF if m is ember else TF


def _leaves(specs, dtype):
    """spec: (shape, low, high, layout[, requires_grad]) or an ember tensor (used as is, without grad)."""
    es, ts, req = [], [], []
    for i, sp in enumerate(specs):
        if isinstance(sp, ember.Tensor):
            es.append(sp)
            ts.append(to_torch(sp))
            req.append(False)
            continue
        shape, low, high, layout = sp[:4]
        rg = sp[4] if len(sp) > 4 else True
        e = make_tensor(shape, dtype, layout=layout, low=low, high=high, seed=i + 1)
        t = to_torch(e)
        if layout != "contiguous":  # the same strides on the torch side (contiguous() and views depend on them)
            t = torch.empty_strided(t.shape, e.stride(), dtype=t.dtype).copy_(t)
        es.append(e.requires_grad_(rg))
        ts.append(t.requires_grad_(rg))
        req.append(rg)
    return es, ts, req


def _tc(x):
    """torch results made safe to compare: PyTorch 1.13's backward formulas may return "zero tensors"
    (_efficientzerotensor) whose .numpy() reads no real memory; clone() materializes them."""
    if isinstance(x, (list, tuple)):
        return type(x)(_tc(v) for v in x)
    return x.detach().clone() if isinstance(x, torch.Tensor) else x


def _zeros_if_none(g, like):
    return _tc(g) if g is not None else like.detach() * 0


def check_op(fn, specs, dtype="float64", post=None, second=True, tol=None, check_name=True):
    """fn(m, *tensors) with m = ember or torch. Compares the output, its grad_fn's name, the first gradients of
    every input that requires grad for a fixed upstream gradient, and (second=True) the second-order
    gradients: d/dx of sum(w_i * dL/dx_i). post (e.g. squaring) is applied after the op's name is read, for
    linear ops whose first gradients would otherwise not depend on the inputs."""
    rtol, atol = tol or GRAD_TOL[dtype]
    es, ts, req = _leaves(specs, dtype)
    eo, to = fn(ember, *es), fn(torch, *ts)
    assert_same(eo.detach(), to.detach(), rtol=rtol, atol=atol, msg="output: ")
    tname = type(to.grad_fn).__name__ if to.grad_fn is not None else None
    ename = eo.grad_fn.name() if eo.grad_fn is not None else None
    if check_name:
        assert ename == tname
    if post is not None:
        eo, to = post(eo), post(to)
    if not to.requires_grad:
        assert not eo.requires_grad
        return
    ein = [e for e, r in zip(es, req) if r]
    tin = [t for t, r in zip(ts, req) if r]
    g = make_tensor(tuple(to.shape), str(to.dtype).replace("torch.", ""), seed=11, low=0.5, high=1.5)
    eg = ember.autograd.grad(eo, ein, g, create_graph=True, allow_unused=True)
    tg = torch.autograd.grad(to, tin, to_torch(g), create_graph=True, allow_unused=True)
    for a, b, t in zip(eg, tg, tin):
        if b is None:
            assert a is None or not a.detach().abs().sum().item()
        else:
            assert_same(a.detach(), _tc(b), rtol=rtol, atol=atol, msg="first gradient: ")
    if not second:
        return
    tw = [b for b in tg if b is not None and b.requires_grad]
    if not tw:
        return
    es_sum, ts_sum = 0, 0
    for i, (a, b) in enumerate(zip(eg, tg)):
        if b is None or not b.requires_grad:
            continue
        w = make_tensor(tuple(b.shape), str(b.dtype).replace("torch.", ""), seed=20 + i, low=0.5, high=1.5)
        es_sum = es_sum + (a * w).sum()
        ts_sum = ts_sum + (b * to_torch(w)).sum()
    eg2 = ember.autograd.grad(es_sum, ein, allow_unused=True)
    tg2 = torch.autograd.grad(ts_sum, tin, allow_unused=True)
    for a, b, e, t in zip(eg2, tg2, ein, tin):
        assert_same(_zeros_if_none(a, e), _zeros_if_none(b, t), rtol=rtol, atol=atol, msg="second gradient: ")


def S(shape, low=None, high=None, layout="contiguous", requires_grad=True):
    return (shape, low, high, layout, requires_grad)


# ------------------------------------------------------------------------------------------------- unary
UNARY = [
    # name, fn, low, high
    ("exp2", lambda m, x: m.exp2(x), -2, 2),
    ("expm1", lambda m, x: m.expm1(x), -2, 2),
    ("log2", lambda m, x: m.log2(x), 0.5, 3),
    ("log10", lambda m, x: m.log10(x), 0.5, 3),
    ("log1p", lambda m, x: m.log1p(x), -0.5, 3),
    ("rsqrt", lambda m, x: m.rsqrt(x), 0.5, 3),
    ("reciprocal", lambda m, x: m.reciprocal(x), 0.5, 3),
    ("reciprocal_neg", lambda m, x: x.reciprocal(), -3, -0.5),
    ("tan", lambda m, x: m.tan(x), -1, 1),
    ("asin", lambda m, x: m.asin(x), -0.9, 0.9),
    ("acos", lambda m, x: m.acos(x), -0.9, 0.9),
    ("atan", lambda m, x: m.atan(x), -3, 3),
    ("sinh", lambda m, x: m.sinh(x), -2, 2),
    ("cosh", lambda m, x: m.cosh(x), -2, 2),
    ("gelu", lambda m, x: _nn(m).gelu(x), -3, 3),
    ("gelu_tanh", lambda m, x: _nn(m).gelu(x, approximate="tanh"), -3, 3),
    ("silu", lambda m, x: _nn(m).silu(x), -3, 3),
    ("erf", lambda m, x: m.erf(x), -2, 2),
    ("erfc", lambda m, x: m.erfc(x), -2, 2),
    ("sign", lambda m, x: m.sign(x), -2, 2),
    ("floor", lambda m, x: m.floor(x), -3, 3),
    ("ceil", lambda m, x: m.ceil(x), -3, 3),
    ("round", lambda m, x: m.round(x), -3, 3),
    ("trunc", lambda m, x: m.trunc(x), -3, 3),
    ("frac", lambda m, x: m.frac(x), -3, 3),
    ("nan_to_num", lambda m, x: m.nan_to_num(x), -3, 3),
    ("exp2_", lambda m, x: x.clone().exp2_(), -2, 2),
    ("sign_", lambda m, x: (x * 1).sign_(), -2, 2),
    ("chain", lambda m, x: m.erf(m.sinh(x)) * m.atan(x).expm1(), -1, 1),
]
SHAPES = [((3, 4), "contiguous"), ((3, 4), "transposed"), ((5,), "strided"), ((), "contiguous"),
          ((0, 3), "contiguous")]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape, layout", SHAPES, ids=lambda v: str(v))
@pytest.mark.parametrize("name, fn, low, high", UNARY, ids=[u[0] for u in UNARY])
def test_unary(name, fn, low, high, shape, layout, dtype):
    check_op(fn, [S(shape, low, high, layout)], dtype)


NAN, INF = float("nan"), float("inf")
# Conventions at special points: the gradient at each of these inputs (and the second-order one) as PyTorch's.
SPECIAL = [
    ("sqrt", lambda m, x: m.sqrt(x), [0.0, 1.0, INF, NAN]),
    ("rsqrt", lambda m, x: m.rsqrt(x), [0.0, 1.0, INF, NAN]),
    ("reciprocal", lambda m, x: m.reciprocal(x), [0.0, -0.0, INF, NAN]),
    ("log2", lambda m, x: m.log2(x), [0.0, -1.0, INF, NAN]),
    ("log1p", lambda m, x: m.log1p(x), [-1.0, 0.0, INF, NAN]),
    ("asin", lambda m, x: m.asin(x), [1.0, -1.0, 2.0, NAN]),
    ("acos", lambda m, x: m.acos(x), [1.0, -1.0, 0.0, NAN]),
    ("abs", lambda m, x: m.abs(x), [0.0, -0.0, -2.0, NAN]),
    ("sign", lambda m, x: m.sign(x), [0.0, -1.0, INF, NAN]),
    ("floor", lambda m, x: m.floor(x), [0.5, -1.0, INF, NAN]),
    ("round", lambda m, x: m.round(x), [0.5, 1.5, -INF, NAN]),
    ("frac", lambda m, x: m.frac(x), [0.5, -1.5, INF, NAN]),
    ("nan_to_num", lambda m, x: m.nan_to_num(x), [NAN, INF, -INF, 1.0]),
    ("nan_to_num_args", lambda m, x: m.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-2.0), [NAN, INF, -INF, 1.0]),
    ("exp2", lambda m, x: m.exp2(x), [-INF, INF, 0.0, NAN]),
    ("expm1", lambda m, x: m.expm1(x), [-INF, INF, 0.0, NAN]),
    ("tan", lambda m, x: m.tan(x), [math.pi / 2, INF, 0.0, NAN]),
    ("atan", lambda m, x: m.atan(x), [-INF, INF, 0.0, NAN]),
    ("erf", lambda m, x: m.erf(x), [-INF, INF, 0.0, NAN]),
    ("gelu", lambda m, x: _nn(m).gelu(x), [-INF, INF, 0.0, NAN]),
    ("silu", lambda m, x: _nn(m).silu(x), [-50.0, 50.0, 0.0, NAN]),
    ("clamp_min", lambda m, x: m.clamp_min(x, 0.5), [0.5, 0.0, INF, NAN]),
    ("clamp_max", lambda m, x: x.clamp_max(0.5), [0.5, 1.0, -INF, NAN]),
    ("clamp", lambda m, x: m.clamp(x, 0.0, 1.0), [0.0, 1.0, 2.0, NAN]),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name, fn, values", SPECIAL, ids=[s[0] for s in SPECIAL])
def test_special_points(name, fn, values, dtype):
    e = ember.tensor(values, dtype=getattr(ember, dtype), requires_grad=True)
    t = torch.tensor(values, dtype=getattr(torch, dtype), requires_grad=True)
    eo, to = fn(ember, e), fn(torch, t)
    assert eo.grad_fn.name() == type(to.grad_fn).__name__
    (eg,) = ember.autograd.grad(eo.sum(), e, create_graph=True)
    (tg,) = torch.autograd.grad(to.sum(), t, create_graph=True)
    assert_same(eg.detach(), _tc(tg))
    if tg.requires_grad:
        assert_same(ember.autograd.grad(eg.sum(), e, allow_unused=True)[0],
                    _zeros_if_none(torch.autograd.grad(tg.sum(), t, allow_unused=True)[0], t))


# ------------------------------------------------------------------------------------------------ binary
def _pos(shape, layout="contiguous", requires_grad=True):
    return S(shape, 0.5, 2.0, layout, requires_grad)


BINARY = [
    # name, fn, specs (broadcast and non-contiguous mixed in)
    ("atan2", lambda m, a, b: m.atan2(a, b), [S((3, 4)), S((4,), 0.5, 2)]),
    ("atan2_t", lambda m, a, b: a.atan2(b), [S((3, 4), layout="transposed"), S((3, 1), -2, -0.5)]),
    ("maximum", lambda m, a, b: m.maximum(a, b), [S((3, 4)), S((1, 4))]),
    ("hypot", lambda m, a, b: m.hypot(a, b), [S((3, 4)), S((1, 4))]),
    ("minimum", lambda m, a, b: m.minimum(a, b), [S((3, 4), layout="transposed"), S((4,))]),
    ("fmax", lambda m, a, b: m.fmax(a, b), [S((3, 4)), S((3, 1))]),
    ("fmin", lambda m, a, b: m.fmin(a, b), [S((2, 3, 4)), S((4,))]),
    ("remainder", lambda m, a, b: m.remainder(a, b), [S((3, 4), -5, 5), _pos((4,))]),
    ("remainder_neg", lambda m, a, b: a % b, [S((3, 4), -5, 5), S((3, 1), -2, -0.5)]),
    ("fmod", lambda m, a, b: m.fmod(a, b), [S((3, 4), -5, 5), _pos((4,))]),
    ("div", lambda m, a, b: m.div(a, b), [S((3, 4)), _pos((4,))]),
    ("div_none", lambda m, a, b: m.div(a, b, rounding_mode=None), [S((3, 4)), _pos((3, 1))]),
    ("div_floor", lambda m, a, b: m.div(a, b, rounding_mode="floor"), [S((3, 4)), _pos((4,))]),
    ("div_trunc", lambda m, a, b: a.div(b, rounding_mode="trunc"), [S((3, 4)), _pos((4,))]),
    ("lerp_scalar", lambda m, a, b: m.lerp(a, b, 0.3), [S((3, 4)), S((4,))]),
    ("lerp_tensor", lambda m, a, b, w: m.lerp(a, b, w), [S((3, 4)), S((4,)), S((3, 1), 0, 1)]),
    ("lerp_tensor_t", lambda m, a, b, w: a.lerp(b, w), [S((3, 4), layout="transposed"), S((3, 4)), S((), 0, 1)]),
    ("where", lambda m, a, b: m.where(a > 0, a, b), [S((3, 4)), S((4,))]),
    ("where_scalar", lambda m, a: m.where(a > 0, a, 0.0), [S((3, 4), layout="transposed")]),
    ("addcmul", lambda m, a, b, c: m.addcmul(a, b, c), [S((3, 4)), S((4,)), S((3, 1))]),
    ("addcmul_value", lambda m, a, b, c: a.addcmul(b, c, value=-0.5), [S((4,)), S((3, 4)), S((3, 4))]),
    ("addcdiv", lambda m, a, b, c: m.addcdiv(a, b, c, value=2), [S((3, 4)), S((4,)), _pos((3, 1))]),
    ("clamp_min", lambda m, a: m.clamp_min(a, 0.1), [S((3, 4), layout="transposed")]),
    ("clamp_max", lambda m, a: a.clamp_max(0.1), [S((3, 4))]),
    ("clamp_scalar", lambda m, a: m.clamp(a, min=-0.5, max=0.5), [S((3, 4))]),
    ("clamp_scalar_min", lambda m, a: a.clamp(min=-0.5), [S((3, 4))]),
    ("clamp_min_", lambda m, a: (a * 1).clamp_min_(0.0), [S((3, 4))]),
    ("clamp_tensor", lambda m, a, lo, hi: m.clamp(a, lo, hi), [S((3, 4)), S((4,), -1, 0), S((3, 1), 0, 1)]),
    ("clamp_tensor_min", lambda m, a, lo: m.clamp(a, min=lo), [S((3, 4), layout="transposed"), S((4,), -0.5, 0.5)]),
    ("clamp_tensor_max", lambda m, a, hi: a.clamp(max=hi), [S((3, 4)), S((), -0.5, 0.5)]),
    ("clamp_tensor_crossed", lambda m, a, lo, hi: m.clamp(a, lo, hi), [S((3, 4)), S((4,), 0, 1), S((3, 1), -1, 0)]),
    ("clamp_tensor_", lambda m, a, lo: (a * 1).clamp_(min=lo), [S((3, 4)), S((4,), -0.5, 0.5)]),
    ("float32_and_float64", lambda m, a, b: m.maximum(a, b.to(m.float32)), [S((3, 4)), S((4,))]),
    ("empty", lambda m, a, b: m.atan2(a, b), [S((0, 4)), S((4,))]),
    ("zero_dim", lambda m, a, b: m.addcdiv(a, a, b), [S(()), _pos((2,))]),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name, fn, specs", BINARY, ids=[b[0] for b in BINARY])
def test_binary(name, fn, specs, dtype):
    check_op(fn, specs, dtype)


def test_maximum_minimum_fmax_fmin_ties_and_nan():
    a = [1.0, 2.0, 3.0, NAN, NAN, 1.0]
    b = [1.0, 3.0, 2.0, 1.0, NAN, NAN]
    for name in ["maximum", "minimum", "fmax", "fmin"]:
        ea, eb = (ember.tensor(v, dtype=ember.float64, requires_grad=True) for v in (a, b))
        ta, tb = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (a, b))
        assert_same(ember.autograd.grad(getattr(ember, name)(ea, eb).sum(), [ea, eb]),
                    _tc(torch.autograd.grad(getattr(torch, name)(ta, tb).sum(), [ta, tb])))


def test_div_rounding_gives_zero_gradients_and_remainder_at_special_points():
    vals = [[1.0, -3.5, INF, NAN, 0.0], [2.0, 0.0, 3.0, 1.0, -2.0]]
    for fn in [lambda m, a, b: m.div(a, b, rounding_mode="floor"), lambda m, a, b: m.div(a, b, rounding_mode="trunc"),
               lambda m, a, b: m.remainder(a, b), lambda m, a, b: m.fmod(a, b), lambda m, a, b: m.atan2(a, b)]:
        es = [ember.tensor(v, dtype=ember.float64, requires_grad=True) for v in vals]
        ts = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in vals]
        assert_same(ember.autograd.grad(fn(ember, *es).sum(), es), _tc(torch.autograd.grad(fn(torch, *ts).sum(), ts)))


def test_clamp_tensor_bounds_at_ties_and_nan():
    x = [0.0, 1.0, 2.0, 3.0, NAN, 5.0, 1.0]
    lo = [1.0, 1.0, 3.0, 0.0, 0.0, NAN, 2.0]
    hi = [2.0, 0.5, 2.5, 3.0, 1.0, 1.0, 1.0]
    for args in [(True, True), (True, False), (False, True)]:
        es = [ember.tensor(v, dtype=ember.float64, requires_grad=True) for v in (x, lo, hi)]
        ts = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (x, lo, hi)]
        ek = {k: v for k, v, on in zip(("min", "max"), es[1:], args) if on}
        tk = {k: v for k, v, on in zip(("min", "max"), ts[1:], args) if on}
        eo, to = ember.clamp(es[0], **ek), torch.clamp(ts[0], **tk)
        assert eo.grad_fn.name() == type(to.grad_fn).__name__ == "ClampBackward0"
        used = [0] + [i + 1 for i, on in enumerate(args) if on]
        assert_same(ember.autograd.grad(eo.sum(), [es[i] for i in used]),
                    _tc(torch.autograd.grad(to.sum(), [ts[i] for i in used])))


def test_where_nan_in_the_branch_not_taken():
    # where passes nothing to the branch not taken, even a NaN gradient.
    x = ember.tensor([0.0, 1.0, -1.0], dtype=ember.float64, requires_grad=True)
    t = torch.tensor([0.0, 1.0, -1.0], dtype=torch.float64, requires_grad=True)
    e = ember.where(x > 0, x.sqrt(), x * 0).sum()
    r = torch.where(t > 0, t.sqrt(), t * 0).sum()
    assert_same(ember.autograd.grad(e, x)[0], _tc(torch.autograd.grad(r, t)[0]))


# ---------------------------------------------------------------------------------------- copies and fills
def test_copy_gradient_goes_to_src_in_its_dtype():
    for dst_dtype, src_dtype in [("float64", "float32"), ("float32", "float64"), ("float64", "float64")]:
        def fn(m, s):
            dst = m.zeros(3, 4, dtype=getattr(m, dst_dtype))
            return dst.copy_(s)
        check_op(fn, [S((4,))], src_dtype, post=lambda y: y * y, tol=GRAD_TOL["float32"])


def test_copy_into_a_tensor_with_history():
    # self's old history gets a zero gradient; src gets the output's
    check_op(lambda m, a, b: (a * 2).copy_(b) * a, [S((3, 4)), S((3, 1), layout="contiguous")], "float64")


def test_fill_and_zero_give_zero_gradients():
    check_op(lambda m, a: (a * 1).fill_(2.0) * a, [S((3, 4))], "float64")
    check_op(lambda m, a: (a * 1).zero_() + a * a, [S((3, 4), layout="transposed")], "float64")
    check_op(lambda m, a: (a * 1).fill_(2.0), [S((3, 4))], "float64")
    check_op(lambda m, a: (a * 1).zero_(), [S((2,))], "float32")


def test_inplace_copy_fill_on_leaf_requiring_grad_raises():
    for f in [lambda x: x.fill_(1.0), lambda x: x.zero_(), lambda x: x.copy_(x.detach() * 2)]:
        e = ember.ones(3).requires_grad_()
        t = torch.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError) as te:
            f(t)
        with pytest.raises(RuntimeError) as ee:
            f(e)
        assert "leaf Variable that requires grad" in str(te.value) and "leaf Variable that requires grad" in str(
            ee.value)


CONVERSIONS = [
    ("to_dtype", lambda m, x: x.to(m.float32)),
    ("to_same_dtype", lambda m, x: x.to(m.float64) * 1),
    ("to_copy", lambda m, x: x.to(m.float64, copy=True)),
    ("to_other", lambda m, x: x.to(m.zeros(1, dtype=m.float32))),
    ("to_device", lambda m, x: x.to("cpu", m.float32)),
    ("contiguous", lambda m, x: x.t().contiguous()),
    ("contiguous_noop", lambda m, x: x.contiguous() * 1),
    ("clone", lambda m, x: x.clone()),
]


@pytest.mark.parametrize("name, fn", CONVERSIONS, ids=[c[0] for c in CONVERSIONS])
def test_conversions(name, fn):
    check_op(fn, [S((3, 4), layout="transposed")], "float64", post=lambda y: y * y)


# ------------------------------------------------------------------------------------------------- views
VIEWS = [
    ("as_strided", lambda m, x: x.as_strided((2, 2), (1, 2))),
    ("as_strided_offset", lambda m, x: m.as_strided(x, (3,), (4,), 1)),
    ("as_strided_overlap", lambda m, x: x.as_strided((3, 3), (1, 1))),
    ("as_strided_of_view", lambda m, x: x[1:].as_strided((2, 2), (4, 1), 5)),
    ("narrow", lambda m, x: x.narrow(1, 1, 2)),
    ("narrow_neg", lambda m, x: m.narrow(x, -1, -2, 2)),
    ("unfold", lambda m, x: x.unfold(1, 2, 1)),
    ("unfold_gap", lambda m, x: x.unfold(1, 1, 2)),
    ("unfold_dim0", lambda m, x: x.unfold(0, 2, 1)),
    ("diagonal", lambda m, x: x.diagonal()),
    ("diagonal_offset", lambda m, x: m.diagonal(x, 1)),
    ("diagonal_neg_offset", lambda m, x: x.diagonal(-1, 1, 0)),
    ("diagonal_out_of_range", lambda m, x: x.diagonal(5)),
    ("movedim", lambda m, x: x.movedim(0, 1)),
    ("movedim_list", lambda m, x: m.movedim(x.unsqueeze(0), [0, 1], [2, 0])),
    ("unsqueeze", lambda m, x: x.unsqueeze(-1)),
    ("flatten", lambda m, x: x.flatten()),
    ("unflatten", lambda m, x: x.unflatten(1, (2, 2))),
    ("squeeze_dim", lambda m, x: x.unsqueeze(1).squeeze(1)),
    ("squeeze_dim_noop", lambda m, x: x.squeeze(0)),
    ("t", lambda m, x: x.t()),
    ("t_method", lambda m, x: m.t(x)),
    ("select", lambda m, x: x.select(0, -1)),
    ("slice", lambda m, x: x[:, 1::2]),
    ("slice_open", lambda m, x: x[1:]),
]


# Known difference: Ember's reshape (CompositeImplicitAutograd, as flatten over it) records ViewBackward0 (or
# CloneBackward0 + ViewBackward0 when it copies) where PyTorch 1.13 records ReshapeAliasBackward0
# (UnsafeViewBackward0); the gradients are the same.
RESHAPE_NAMED = {"flatten", "flatten_0d"}


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("name, fn", VIEWS, ids=[v[0] for v in VIEWS])
def test_views(name, fn, layout):
    if name.startswith("as_strided") and layout != "contiguous":
        layout = "contiguous"  # as_strided addresses the storage: the same values need the same layout
    check_op(fn, [S((3, 4), layout=layout)], "float64", post=lambda y: y * y, check_name=name not in RESHAPE_NAMED)


@pytest.mark.parametrize("name, fn, shape", [
    ("t_1d", lambda m, x: x.t(), (3,)),
    ("t_0d", lambda m, x: x.t(), ()),
    ("unsqueeze_0d", lambda m, x: x.unsqueeze(0), ()),
    ("unfold_0d", lambda m, x: x.unfold(0, 1, 1), ()),
    ("diagonal_3d", lambda m, x: x.diagonal(0, 0, 2), (3, 2, 4)),
    ("diagonal_empty", lambda m, x: x.diagonal(), (0, 3)),
    ("unfold_empty", lambda m, x: x.unfold(0, 0, 1), (2, 3)),
    ("narrow_empty", lambda m, x: x.narrow(0, 1, 0), (2, 3)),
    ("flatten_0d", lambda m, x: x.flatten(), ()),
    ("as_strided_3d", lambda m, x: x.as_strided((2, 2, 2), (12, 1, 4)), (2, 3, 4)),
])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_view_edge_shapes(name, fn, shape, dtype):
    check_op(fn, [S(shape)], dtype, post=lambda y: y * y, check_name=name not in RESHAPE_NAMED)


def test_view_gradients_are_differentiable_backward_ops():
    # The second-order graph of a view's gradient goes through the view's backward op, named as PyTorch's.
    for fn, name in [(lambda x: x.diagonal(), "DiagonalBackwardBackward0"),
                     (lambda x: x.select(1, 0), "SelectBackwardBackward0"),
                     (lambda x: x[:, 1:], "SliceBackwardBackward0"),
                     (lambda x: x.unfold(0, 2, 1), "UnfoldBackwardBackward0")]:
        e = ember.ones(3, 3, dtype=ember.float64).requires_grad_()
        t = torch.ones(3, 3, dtype=torch.float64, requires_grad=True)
        g = ember.ones(fn(e).shape, dtype=ember.float64).requires_grad_()
        tg = torch.ones(fn(t).shape, dtype=torch.float64, requires_grad=True)
        (ge,) = ember.autograd.grad(fn(e), e, g, create_graph=True)
        (gt,) = torch.autograd.grad(fn(t), t, tg, create_graph=True)
        assert ge.grad_fn.name() == type(gt.grad_fn).__name__ == name
        assert_same(ember.autograd.grad((ge * ge).sum(), g)[0], _tc(torch.autograd.grad((gt * gt).sum(), tg)[0]))


def test_as_strided_second_order_with_respect_to_the_upstream_gradient():
    e = ember.ones(3, 4, dtype=ember.float64).requires_grad_()
    t = torch.ones(3, 4, dtype=torch.float64, requires_grad=True)
    ge = ember.arange(9, dtype=ember.float64).reshape(3, 3).requires_grad_()
    gt = torch.arange(9, dtype=torch.float64).reshape(3, 3).requires_grad_()
    (a,) = ember.autograd.grad(e.as_strided((3, 3), (1, 1)), e, ge, create_graph=True)
    (b,) = torch.autograd.grad(t.as_strided((3, 3), (1, 1)), t, gt, create_graph=True)
    assert_same(a.detach(), _tc(b))
    assert_same(ember.autograd.grad((a * a).sum(), ge)[0], _tc(torch.autograd.grad((b * b).sum(), gt)[0]))


def test_as_strided_of_an_overlapping_input_raises_not_implemented():
    # PyTorch splits the gradient among the aliasing elements; Ember raises rather than double-count.
    e = ember.ones(3, dtype=ember.float64).requires_grad_()
    y = e.expand(2, 3).as_strided((2, 2), (1, 1))
    with pytest.raises(NotImplementedError, match="as_strided"):
        y.sum().backward()


def test_alias():
    e = ember.ones(2, 3, dtype=ember.float64).requires_grad_()
    t = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
    eo, to = ember.alias(e), torch.ops.aten.alias(t)
    assert eo.grad_fn.name() == type(to.grad_fn).__name__
    assert_same(ember.autograd.grad((eo * eo).sum(), e)[0], _tc(torch.autograd.grad((to * to).sum(), t)[0]))


# ---------------------------------------------------------------------------------------------- products
LINALG = [
    ("outer", lambda m, a, b: m.outer(a, b), [S((3,)), S((4,))]),
    ("ger", lambda m, a, b: a.ger(b), [S((3,)), S((4,), layout="strided")]),
    ("dot", lambda m, a, b: m.dot(a, b), [S((3,)), S((3,), layout="strided")]),
    ("mv", lambda m, a, b: m.mv(a, b), [S((3, 4), layout="transposed"), S((4,))]),
    ("mm", lambda m, a, b: a.mm(b), [S((3, 4)), S((4, 2), layout="transposed")]),
    ("addmm", lambda m, c, a, b: m.addmm(c, a, b), [S((2,)), S((3, 4)), S((4, 2))]),
    ("addmm_beta_alpha", lambda m, c, a, b: m.addmm(c, a, b, beta=0.5, alpha=-2), [S((3, 1)), S((3, 4)),
                                                                                   S((4, 2), layout="transposed")]),
    ("addmm_beta0", lambda m, c, a, b: m.addmm(c, a, b, beta=0), [S((3, 2)), S((3, 4)), S((4, 2))]),
    ("baddbmm", lambda m, c, a, b: m.baddbmm(c, a, b), [S((2, 3, 2)), S((2, 3, 4)), S((2, 4, 2))]),
    ("baddbmm_beta_alpha", lambda m, c, a, b: c.baddbmm(a, b, beta=-1.5, alpha=0.25),
     [S((3, 1)), S((2, 3, 4), layout="transposed"), S((2, 4, 2))]),
    ("baddbmm_empty", lambda m, c, a, b: m.baddbmm(c, a, b), [S((2, 3, 2)), S((2, 3, 0)), S((2, 0, 2))]),
    ("matmul", lambda m, a, b: m.matmul(a, b), [S((2, 3, 4)), S((4,))]),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name, fn, specs", LINALG, ids=[c[0] for c in LINALG])
def test_products(name, fn, specs, dtype):
    # matmul folding batch dims ends in PyTorch's _unsafe_view (UnsafeViewBackward0), in Ember's view: see
    # RESHAPE_NAMED.
    check_op(fn, specs, dtype, post=lambda y: y * y, check_name=name != "matmul")


# ------------------------------------------------------------------------------------------ node names
def test_node_names_follow_pytorch():
    x = ember.ones(3, 4, dtype=ember.float64).requires_grad_()
    y = ember.ones(3, 4, dtype=ember.float64).requires_grad_()
    expect = {
        "ClampBackward1": x.clamp(min=0.0), "ClampMinBackward0": x.clamp_min(0.0),
        "ClampMaxBackward0": x.clamp_max(0.0), "TBackward0": x.t(), "DivBackward0": x / y,
        "DivBackward2": x.div(y, rounding_mode="floor"), "RemainderBackward1": x.remainder(y),
        "FmodBackward1": x.fmod(y), "LerpBackward0": x.lerp(y, 0.5), "LerpBackward1": x.lerp(y, y),
        "Log1PBackward0": x.log1p(), "CopyBackwards": ember.zeros(3, 4, dtype=ember.float64).copy_(x),
        "FillBackward2": (x * 1).fill_(1.0), "ZeroBackward0": (x * 1).zero_(), "AsStridedBackward0":
        x.as_strided((2,), (1,)), "SliceBackward0": x.narrow(0, 0, 1), "PermuteBackward0": x.movedim(0, 1),
        "MulBackward0": x[0].outer(y[0]), "ToCopyBackward0": x.to(ember.float32), "CloneBackward0": x.t().contiguous(),
        "WhereBackward0": ember.where(x > 0, x, y), "NanToNumBackward0": x.nan_to_num(),
        "GeluBackward0": EF.gelu(x, approximate="tanh"), "SqueezeBackward1": x.squeeze(0),
        "UnsqueezeBackward0": x.unsqueeze(0), "BaddbmmBackward0":
        ember.zeros(1, 3, 3, dtype=ember.float64).baddbmm(x.unsqueeze(0), y.t().unsqueeze(0)),
    }
    for name, r in expect.items():
        assert r.grad_fn.name() == name
