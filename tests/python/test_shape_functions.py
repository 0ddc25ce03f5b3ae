"""What the generic per-op test (test_ops_generic.py) cannot reach of the NumPy-style shape functions:
broadcast_shapes (Python-level in PyTorch too: no op), meshgrid's warning without indexing=, the aliasing of
the views broadcast_to, broadcast_tensors, meshgrid and tensor_split return, and aliases seen by autograd as
their target."""
import warnings

import pytest
import torch

import ember
from conftest import assert_same


@pytest.mark.parametrize("shapes", [((2, 1), (3,)), ((), (4,)), (3, (2, 1)), ([1, 4], (3, 1), 4), ((0, 1), (5,)),
                                    ((2, 0), (1,)), ((1,), ()), ()])
def test_broadcast_shapes_matches_reference(shapes):
    got = ember.broadcast_shapes(*shapes)
    assert isinstance(got, ember.Size)
    assert tuple(got) == tuple(torch.broadcast_shapes(*shapes))


@pytest.mark.parametrize("shapes", [((2,), (3,)), ((-1,), (3,)), ((2, 3), (3, 2)), ("ab", (2,))])
def test_broadcast_shapes_errors_match_reference(shapes):
    with pytest.raises(Exception) as t:
        torch.broadcast_shapes(*shapes)
    with pytest.raises(type(t.value)):
        ember.broadcast_shapes(*shapes)


def test_meshgrid_warns_without_indexing_as_pytorch():
    a, b = ember.arange(3), ember.arange(2)
    with pytest.warns(UserWarning, match="indexing argument"):
        ember.meshgrid(a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ember.meshgrid(a, b, indexing="xy")


def test_views_share_storage_and_writes_show_through():
    x = ember.arange(6.0).reshape(2, 3)
    assert ember.broadcast_to(x, (4, 2, 3))._is_view()
    a, b = ember.broadcast_tensors(x, ember.zeros(4, 1, 1))
    assert tuple(a.shape) == (4, 2, 3) and tuple(b.shape) == (4, 2, 3)
    x[1, 2] = 50.0
    assert a[3, 1, 2].item() == 50.0  # an expanded view of x
    pieces = ember.tensor_split(x, 2, 1)
    pieces[0][0, 0] = 100.0
    assert x[0, 0].item() == 100.0
    flat = ember.ravel(x)
    flat[1] = -1.0
    assert x[0, 1].item() == -1.0  # contiguous self: ravel is a view, as PyTorch's


def test_alias_gradient_is_its_targets():
    x = ember.tensor([0.25, -0.5], requires_grad=True)
    y = ember.arccos(x)
    assert "Acos" in type(y.grad_fn).__name__ or "acos" in y.grad_fn.name().lower()
    y.sum().backward()
    t = torch.tensor([0.25, -0.5], requires_grad=True)
    torch.arccos(t).sum().backward()
    assert_same(x.grad, t.grad)
