"""DLPack exchange (ember.from_dlpack, ember.to_dlpack, Tensor.__dlpack__) with NumPy and PyTorch 1.13: memory is
shared both ways, shapes, strides and dtypes survive, bad inputs raise PyTorch's error types."""
import numpy as np
import pytest
import torch

import ember

DTYPES = ["float32", "float64", "float16", "int8", "uint8", "int16", "int32", "int64", "complex64", "complex128"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_tensors_come_in_sharing_memory(dtype):
    src = torch.arange(12).reshape(3, 4).to(getattr(torch, dtype))[:, 1::2]
    got = ember.from_dlpack(src)
    assert got.dtype == getattr(ember, dtype) and tuple(got.shape) == (3, 2) and got.stride() == src.stride()
    np.testing.assert_array_equal(got.numpy(), src.numpy())
    got[0, 0] = 42  # the same memory
    assert src[0, 0].item() == 42


@pytest.mark.parametrize("dtype", DTYPES)
def test_ember_tensors_go_out_sharing_memory(dtype):
    src = ember.arange(12).reshape(3, 4).to(getattr(ember, dtype)).t()
    for out in (torch.from_dlpack(src), torch.utils.dlpack.from_dlpack(ember.to_dlpack(src))):
        assert out.dtype == getattr(torch, dtype) and out.stride() == src.stride()
        np.testing.assert_array_equal(out.numpy(), src.numpy())
    out[1, 1] = 9
    assert src[1, 1].item() == 9


def test_capsules_and_numpy_round_trip():
    a = np.arange(6.0).reshape(2, 3)
    t = ember.from_dlpack(a)
    t[1, 2] = -1
    assert a[1, 2] == -1
    back = np.from_dlpack(t)
    assert np.shares_memory(back, a)
    capsule = ember.utils.dlpack.to_dlpack(ember.ones(2))
    assert ember.utils.dlpack.from_dlpack(capsule).tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError):  # a capsule is consumed once, by either library
        ember.from_dlpack(capsule)


def test_edge_shapes_and_grad():
    assert ember.from_dlpack(torch.zeros(0, 3)).shape == (0, 3)
    scalar = ember.from_dlpack(torch.tensor(2.5))
    assert scalar.dim() == 0 and scalar.item() == 2.5
    x = ember.ones(3, requires_grad=True)  # as PyTorch: the data goes out, detached from the graph
    assert torch.from_dlpack(x).tolist() == [1.0, 1.0, 1.0]
    assert x.__dlpack_device__() == torch.ones(1).__dlpack_device__()


def test_errors_match_pytorch():
    with pytest.raises(RuntimeError, match="Bool type is not supported by dlpack"):
        ember.to_dlpack(ember.tensor([True]))
    with pytest.raises(RuntimeError):
        torch.to_dlpack(torch.tensor([True]))
    with pytest.raises(TypeError):
        ember.from_dlpack([1, 2, 3])

    class OnGpu:
        def __dlpack__(self, stream=None):
            raise AssertionError("not reached")

        def __dlpack_device__(self):
            return (2, 0)  # kDLCUDA

    with pytest.raises(RuntimeError, match="CPU"):
        ember.from_dlpack(OnGpu())
