"""Every op's shape/dtype rule (the database's `shape:`, Note [shape rules] in ember/ops/meta.h) agrees with what
its kernel actually returns, over a grid of inputs: dtypes, broadcasting, 0-dim, empty, numbers."""
import itertools

import pytest

import ember

# Every op function: ember.<name>, and those PyTorch keeps in torch._C._nn / torch._C._linalg.
F = {**ember._C._functions, **{n: f for m in (ember._C._nn, ember._C._linalg) for n, f in vars(m).items()
                                if not n.startswith("__")}}


def _inputs():
    x = ember.arange(6.0).reshape(2, 3)
    return {
        "f32": x,
        "i64": ember.arange(6).reshape(2, 3),
        "bool": ember.arange(6).reshape(2, 3) > 2,
        "f16": x.to(ember.float16),
        "u8_col": ember.arange(2).reshape(2, 1).to(ember.uint8),
        "f64_0d": ember.tensor(2.0, dtype=ember.float64),
        "i32_row": ember.arange(3).to(ember.int32),
        "empty": ember.zeros(0, 3),
        "t": x.t(),
        "int": 2,
        "float": 2.5,
        "True": True,
    }


INPUTS = _inputs()
ARGS = [(a,) for a in INPUTS] + list(itertools.product(INPUTS, repeat=2)) + [("bool", "f32", "i64")]


def _call_or_none(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except (RuntimeError, TypeError, ValueError, IndexError, NotImplementedError):
        return None


@pytest.mark.parametrize("name", sorted(F))
def test_rule_matches_kernel(name):
    op = F[name]
    checked = 0
    for keys in ARGS:
        args = [INPUTS[k] for k in keys]
        meta = _call_or_none(ember._C._meta, op, *args)
        if meta is None:
            continue
        result = _call_or_none(op, *args)
        if not isinstance(result, ember.Tensor):
            continue
        checked += 1
        assert (tuple(result.shape), result.dtype) == meta, (name, keys)
    # Ops without a rule (or taking other argument kinds) are exercised by their own tests.


@pytest.mark.parametrize("name", ["add", "mul", "exp", "eq", "where", "clamp"])
def test_rule_for_out_is_out_dtype(name):
    x = ember.arange(6.0).reshape(2, 3)
    # clamp with a tensor bound: with number bounds out= must have the result dtype (as PyTorch, test_binary.py)
    default = (x, x) if name in ("add", "mul", "eq") else (x,)
    args = {"where": (x > 1, x, x), "clamp": (x, ember.tensor(1.0))}.get(name, default)
    out = ember.empty(0, dtype=ember.float64)
    meta = ember._C._meta(F[name], *args, out=out) if name != "where" else ember._C._meta(F[name], *args)
    result = F[name](*args, out=out) if name != "where" else F[name](*args)
    assert (tuple(result.shape), result.dtype) == meta


def test_in_place_rule_is_self():
    x = ember.arange(6.0).reshape(2, 3)
    assert ember._C._meta(F["exp_"], x) == ((2, 3), ember.float32)


def test_factory_rules():
    assert ember._C._meta(F["zeros"], (2, 3)) == ((2, 3), ember.float32)
    assert ember._C._meta(F["full"], (2,), 7) == ((2,), ember.int64)
    assert ember._C._meta(F["full"], (2,), True) == ((2,), ember.bool)
    assert ember._C._meta(F["eye"], 3, 4, dtype=ember.int32) == ((3, 4), ember.int32)
    assert ember._C._meta(F["linspace"], 0, 1, 5) == ((5,), ember.float32)
    assert ember._C._meta(F["zeros_like"], ember.ones(2, dtype=ember.int8)) == ((2,), ember.int8)


def test_broadcast_error_raised_by_rule():
    with pytest.raises(RuntimeError, match="must match"):
        ember._C._meta(F["add"], ember.ones(3), ember.ones(4))


def test_ops_without_rule_give_none():
    assert ember._C._meta(F["arange"], 5) is None
