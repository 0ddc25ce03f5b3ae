"""ember.autograd.functional (jacobian, hessian, vjp, jvp, vhp, hvp) against PyTorch 1.13's: values, shapes and
nesting of the results, create_graph, strict mode and the errors."""
import pytest
import torch

import ember
from conftest import assert_same


def data(T):
    x = T.tensor([[0.5, -1.0], [2.0, 0.3]], dtype=T.float64)
    y = T.tensor([1.5, -0.5], dtype=T.float64)
    return x, y


def ones(T, *shape):
    return T.ones(*shape, dtype=T.float64)


CASES = {
    "jacobian_one": lambda T, F, x, y: F.jacobian(lambda a: (a.exp() * a).sum(1), x),
    "jacobian_tuples": lambda T, F, x, y: F.jacobian(lambda a, b: ((a @ b).sin(), a.sum() * b), (x, y)),
    "hessian_one": lambda T, F, x, y: F.hessian(lambda a: (a ** 3).sum(), x),
    "hessian_tuple": lambda T, F, x, y: F.hessian(lambda a, b: (a.pow(2) @ b).prod(), (x, y)),
    "vjp": lambda T, F, x, y: F.vjp(lambda a: (a.exp() * a).sum(1), x, T.tensor([1., 2.], dtype=T.float64)),
    "vjp_scalar": lambda T, F, x, y: F.vjp(lambda a: (a ** 3).sum(), x),
    "jvp": lambda T, F, x, y: F.jvp(lambda a: (a.exp() * a).sum(1), x, ones(T, 2, 2)),
    "jvp_tuples": lambda T, F, x, y: F.jvp(lambda a, b: ((a @ b).sin(), a.sum() * b), (x, y),
                                           (ones(T, 2, 2), ones(T, 2))),
    "vhp": lambda T, F, x, y: F.vhp(lambda a, b: (a.pow(2) @ b).prod(), (x, y), (ones(T, 2, 2), ones(T, 2))),
    "hvp": lambda T, F, x, y: F.hvp(lambda a, b: (a.pow(2) @ b).prod(), (x, y), (ones(T, 2, 2), ones(T, 2))),
    "hvp_create_graph": lambda T, F, x, y: F.hvp(lambda a: (a ** 3).sum(), x, ones(T, 2, 2), create_graph=True),
    "independent_output": lambda T, F, x, y: F.jacobian(lambda a: T.zeros(2, dtype=T.float64) + 1.0, x),
}


def to_lists(r):
    if isinstance(r, tuple):
        return tuple(to_lists(v) for v in r)
    return r


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_torch(case):
    got = CASES[case](ember, ember.autograd.functional, *data(ember))
    expected = CASES[case](torch, torch.autograd.functional, *data(torch))

    def compare(a, b):
        if isinstance(b, tuple):
            assert isinstance(a, tuple) and len(a) == len(b)
            for u, v in zip(a, b):
                compare(u, v)
        else:
            assert_same(a, b.detach(), rtol=1e-12, atol=1e-12)
            assert a.requires_grad == b.requires_grad

    compare(got, expected)


def test_create_graph_jacobian_is_differentiable():
    xe, _ = data(ember)
    xt, _ = data(torch)
    xe.requires_grad_(True)
    xt.requires_grad_(True)
    je = ember.autograd.functional.jacobian(lambda a: (a.exp() * a).sum(1), xe, create_graph=True)
    jt = torch.autograd.functional.jacobian(lambda a: (a.exp() * a).sum(1), xt, create_graph=True)
    assert_same(ember.autograd.grad(je.sum(), xe)[0], torch.autograd.grad(jt.sum(), xt)[0])


ERRORS = {
    "strict_independent": lambda T, F, x, y: F.jacobian(lambda a, b: a.sum(), (x, y), strict=True),
    "v_missing": lambda T, F, x, y: F.vjp(lambda a: a * 2, x),
    "v_shape": lambda T, F, x, y: F.vjp(lambda a: a.sum(1), x, ones(T, 3)),
    "v_count": lambda T, F, x, y: F.jvp(lambda a, b: a.sum() * b, (x, y), (ones(T, 2, 2),)),
    "hessian_not_scalar": lambda T, F, x, y: F.hessian(lambda a: a.sum(1), x),
    "input_list": lambda T, F, x, y: F.jacobian(lambda a: a, [x]),
    "vhp_v_missing": lambda T, F, x, y: F.vhp(lambda a: (a ** 3).sum(), x),
    "strict_linear_hessian": lambda T, F, x, y: F.hessian(lambda a: a.sum() * 2, x, strict=True),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(case):
    def outcome(T):
        try:
            ERRORS[case](T, T.autograd.functional, *data(T))
        except Exception as e:  # noqa: BLE001  (the error is the result compared)
            return type(e).__name__, str(e).replace("torch", "X").replace("ember", "X")
        return None

    assert outcome(ember) == outcome(torch) is not None


def test_variable_is_a_detached_alias():
    def outcome(T):
        from importlib import import_module

        Variable = import_module(T.__name__ + ".autograd").Variable
        x = T.ones(2)
        v = Variable(x)
        w = Variable(x, requires_grad=True)
        z = (T.ones(2, requires_grad=True) * 2)
        try:
            Variable(3)
        except TypeError as e:
            err = str(e)
        return [v is x, v.data_ptr() == x.data_ptr(), v.requires_grad, w.requires_grad, w.is_leaf, x.requires_grad,
                Variable(z).grad_fn is None, isinstance(x, Variable), isinstance(3, Variable), err,
                tuple(Variable().shape)]

    assert outcome(ember) == outcome(torch)
