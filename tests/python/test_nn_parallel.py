"""ember.nn.parallel (DataParallel, data_parallel) against PyTorch 1.13 on a machine without accelerators."""
import pytest
import torch

import ember


def _linear_pair():
    torch.manual_seed(0)
    ember.manual_seed(0)
    return torch.nn.Linear(3, 2), ember.nn.Linear(3, 2)


def test_dataparallel_wraps_module_as_pytorch():
    tm, em = _linear_pair()
    tdp, edp = torch.nn.DataParallel(tm), ember.nn.DataParallel(em)
    assert ember.nn.parallel.DataParallel is ember.nn.DataParallel
    assert repr(edp) == repr(tdp)
    assert list(edp.state_dict()) == list(tdp.state_dict()) == ["module.weight", "module.bias"]
    assert edp.device_ids == tdp.device_ids == [] and edp.module is em
    x = torch.randn(4, 3)
    out = edp(ember.tensor(x.numpy()))
    expected = tdp(x)
    assert out.shape == tuple(expected.shape)
    assert ember.allclose(out, ember.tensor(expected.detach().numpy()), atol=1e-6)
    out.sum().backward()
    expected.sum().backward()
    assert ember.allclose(em.weight.grad, ember.tensor(tm.weight.grad.numpy()), atol=1e-6)


def test_dataparallel_state_dict_loads_from_pytorch():
    tm, em = _linear_pair()
    state = {k: ember.tensor(v.detach().numpy() + 1) for k, v in torch.nn.DataParallel(tm).state_dict().items()}
    edp = ember.nn.DataParallel(em)
    edp.load_state_dict(state)
    assert ember.equal(em.bias, state["module.bias"])


def test_data_parallel_function_runs_module():
    _, em = _linear_pair()
    x = ember.randn(5, 3)
    assert ember.equal(ember.nn.parallel.data_parallel(em, x), em(x))
    assert ember.equal(ember.nn.parallel.data_parallel(em, (x,), module_kwargs={}), em(x))


@pytest.mark.parametrize("kwargs", [{"device_ids": [0]}, {"output_device": 0}])
def test_device_ids_raise_without_accelerators(kwargs):
    _, em = _linear_pair()
    with pytest.raises(AssertionError, match="only cpu"):
        ember.nn.DataParallel(em, **kwargs)
    with pytest.raises(AssertionError, match="only cpu"):
        ember.nn.parallel.data_parallel(em, ember.randn(2, 3), **kwargs)
