"""The parts of PyTorch's API that are plain Python over the ops (issue 19): Tensor attributes of device, layout and
storage, predicates, conjugate transposes, apply_/map_/map2_, sum_to_size, the legacy x.new(...), and the
top-level asarray / frombuffer / from_file, typename, deterministic-algorithm and matmul-precision settings —
each compared with PyTorch 1.13."""
import numpy as np
import pytest
import torch

import ember
from conftest import assert_same


def same(fn):
    """fn(ember) and fn(torch) give equal results (tensors compared by value, dtype and shape) or raise the same
    exception type."""
    try:
        want = fn(torch)
    except Exception as e:  # noqa: BLE001 - the type is compared
        with pytest.raises(type(e)):
            fn(ember)
        return None
    got = fn(ember)
    if isinstance(want, torch.Tensor):
        assert_same(got, want)
    elif isinstance(want, (torch.Size, tuple)):
        assert tuple(got) == tuple(want)
    else:
        assert got == want, (got, want)
    return got


CASES = {
    "is_cpu": lambda m: m.zeros(2).is_cpu,
    "get_device": lambda m: m.zeros(2).get_device(),
    "is_pinned": lambda m: m.zeros(2).is_pinned(),
    "is_shared": lambda m: m.zeros(2).is_shared(),
    "is_mkldnn": lambda m: m.zeros(2).is_mkldnn,
    "is_nested": lambda m: m.zeros(2).is_nested,
    "cuda": lambda m: m.zeros(2).cuda(),
    "to_dense": lambda m: m.arange(4.0).view(2, 2).to_dense(),
    "layout_repr": lambda m: repr(m.zeros(2).layout).split(".")[-1],
    "is_complex": lambda m: m.zeros(2).is_complex(),
    "is_signed_uint8": lambda m: m.zeros(2, dtype=m.uint8).is_signed(),
    "is_signed_int8": lambda m: m.zeros(2, dtype=m.int8).is_signed(),
    "is_signed_bool": lambda m: m.is_signed(m.zeros(2, dtype=m.bool)),
    "is_nonzero_one": lambda m: m.tensor([3.0]).is_nonzero(),
    "is_nonzero_many": lambda m: m.zeros(2).is_nonzero(),
    "is_same_size": lambda m: m.zeros(2, 3).is_same_size(m.ones(2, 3)),
    "is_same_size_fn": lambda m: m.is_same_size(m.zeros(2), m.zeros(2, 1)),
    "H": lambda m: m.arange(6.0).view(2, 3).H,
    "H_1d": lambda m: m.arange(6.0).H,
    "H_3d": lambda m: m.zeros(2, 2, 2).H,
    "mH": lambda m: m.arange(12.0).view(2, 2, 3).mH,
    "adjoint": lambda m: m.arange(12).view(2, 2, 3).adjoint(),
    "apply_": lambda m: m.arange(6.0).view(2, 3).apply_(lambda v: v * v + 1),
    "apply_int": lambda m: m.arange(6).apply_(lambda v: v // 2),
    "apply_transposed": lambda m: m.arange(6.0).view(2, 3).t().apply_(lambda v: v - 1),
    "map_": lambda m: m.arange(6.0).view(2, 3).map_(m.tensor([1.0, 2.0, 3.0]), lambda a, b: a * b),
    "map2_": lambda m: m.zeros(2, 2).map2_(m.ones(2, 2), m.tensor([2.0, 3.0]), lambda a, b, c: a + b * c),
    "sum_to_size": lambda m: m.arange(24.0).view(2, 3, 4).sum_to_size(3, 1),
    "sum_to_size_tuple": lambda m: m.arange(6.0).view(2, 3).sum_to_size((1, 3)),
    "sum_to_size_same": lambda m: m.arange(6.0).view(2, 3).sum_to_size(2, 3),
    "sum_to_size_keep_ones": lambda m: m.ones(2, 1, 3).sum_to_size(1, 1, 1),
    "sum_to_size_bad": lambda m: m.zeros(2, 3).sum_to_size(1, 4),
    "sum_to_size_too_long": lambda m: m.zeros(2, 3).sum_to_size(4, 2, 3),
    "sum_to_size_str": lambda m: m.zeros(2, 2).sum_to_size("a"),
    "mH_1d": lambda m: m.zeros(3).mH,
    "apply_returns_str": lambda m: m.ones(2).apply_(lambda v: "x"),
    "apply_returns_none": lambda m: m.ones(2).apply_(lambda v: None),
    "map_returns_none": lambda m: m.ones(2).map_(m.ones(2), lambda a, b: None),
    "adjoint_fn": lambda m: m.adjoint(m.arange(6.0).view(2, 3)),
    "get_device_fn": lambda m: m.get_device(m.zeros(1)),
    "new_empty_shape": lambda m: m.zeros(2, dtype=m.int32).new(2, 3).shape,
    "new_dtype": lambda m: m.zeros(2, dtype=m.int32).new(2, 3).dtype == m.int32,
    "new_size": lambda m: m.zeros(2).new(m.Size([4])).shape,
    "new_data": lambda m: m.zeros(2, dtype=m.float64).new([1, 2]),
    "new_nothing": lambda m: m.zeros(2).new(),
    "new_tensor_arg": lambda m: m.zeros(2).new(m.ones(2)),
    "new_tensor_arg_other_dtype": lambda m: m.zeros(2).new(m.ones(2, dtype=m.int64)),
    "new_empty_strided": lambda m: m.zeros(2).new_empty_strided((2, 3), (1, 2)).stride(),
    "asarray_list": lambda m: m.asarray([1, 2]),
    "asarray_scalar": lambda m: m.asarray(3.5),
    "asarray_list_nocopy": lambda m: m.asarray([1, 2], copy=False),
    "asarray_tensor_dtype": lambda m: m.asarray(m.arange(3), dtype=m.float32),
    "asarray_tensor_nocopy_dtype": lambda m: m.asarray(m.arange(3), dtype=m.float32, copy=False),
    "asarray_numpy": lambda m: m.asarray(np.arange(3)),
    "asarray_bytearray_uint8": lambda m: m.asarray(bytearray(b"abcd"), dtype=m.uint8),
    "asarray_bytearray_default": lambda m: m.asarray(bytearray(b"abcdabcd")),
    "asarray_requires_grad": lambda m: m.asarray([1.0, 2.0], requires_grad=True).requires_grad,
    "frombuffer": lambda m: m.frombuffer(bytearray(b"abcd"), dtype=m.uint8),
    "frombuffer_offset": lambda m: m.frombuffer(bytearray(b"abcdefgh"), dtype=m.int32, count=1, offset=4),
    "frombuffer_empty": lambda m: m.frombuffer(b"", dtype=m.uint8),
    "frombuffer_ragged": lambda m: m.frombuffer(bytearray(b"abc"), dtype=m.int32),
    "frombuffer_too_many": lambda m: m.frombuffer(bytearray(b"abcd"), dtype=m.uint8, count=5),
    "typename_tensor": lambda m: m.typename(m.zeros(2, dtype=m.int64)).split(".")[-1],
    "typename_int": lambda m: m.typename(1),
    "typename_class": lambda m: m.typename(int),
    "typename_module": lambda m: m.typename(m.nn.Linear(1, 1)).split(".", 1)[-1],
    "is_inference": lambda m: m.is_inference(m.zeros(1)),
    "is_complex_fn": lambda m: m.is_complex(m.zeros(1)),
    "is_storage": lambda m: m.is_storage(m.zeros(1)),
    "is_distributed": lambda m: m.is_distributed(m.zeros(1)),
    "is_vulkan_available": lambda m: m.is_vulkan_available(),
    "matmul_precision_default": lambda m: m.get_float32_matmul_precision(),
    "matmul_precision_bad": lambda m: (m.set_float32_matmul_precision("low"), m.get_float32_matmul_precision()),
    "deterministic_default": lambda m: m.are_deterministic_algorithms_enabled(),
    "warn_always_default": lambda m: m.is_warn_always_enabled(),
}


@pytest.mark.parametrize("name", CASES)
def test_matches_torch(name):
    same(CASES[name])


def test_apply_writes_in_place():
    for m in (ember, torch):
        x = m.arange(6.0).view(2, 3)
        y = x.t()
        assert y.apply_(lambda v: -v) is y
        assert x.tolist() == [[-0.0, -1.0, -2.0], [-3.0, -4.0, -5.0]]


def test_frombuffer_and_asarray_share_memory():
    buf = bytearray(b"\x01\x02\x03\x04")
    t = ember.frombuffer(buf, dtype=ember.uint8)
    t[0] = 9
    assert buf[0] == 9
    a = np.arange(3.0)
    ember.asarray(a)[1] = 7.0
    assert a[1] == 7.0
    assert ember.asarray(a, copy=True).tolist() == [0.0, 7.0, 2.0]


def test_from_file_reads_and_maps(tmp_path):
    f = tmp_path / "data.bin"
    f.write_bytes(np.arange(4, dtype=np.int32).tobytes())
    assert_same(ember.from_file(str(f), size=4, dtype=ember.int32), torch.from_file(str(f), size=4, dtype=torch.int32))
    m = ember.from_file(str(f), shared=True, size=4, dtype=ember.int32)
    m[0] = 42
    del m
    assert np.frombuffer(f.read_bytes(), dtype=np.int32)[0] == 42
    for lib in (ember, torch):
        with pytest.raises(RuntimeError, match="size is smaller than the required mapping size"):
            lib.from_file(str(f), size=5, dtype=lib.int32)
        with pytest.raises(RuntimeError, match="unable to open file"):
            lib.from_file(str(tmp_path / "missing.bin"), size=1)
        with pytest.raises(RuntimeError):
            lib.from_file(str(f), size=-1, dtype=lib.int32)


def test_settings_round_trip_and_refuse_bad_values():
    try:
        ember.use_deterministic_algorithms(True, warn_only=True)
        assert ember.are_deterministic_algorithms_enabled()
        assert ember.is_deterministic_algorithms_warn_only_enabled()
        ember.set_float32_matmul_precision("high")
        assert ember.get_float32_matmul_precision() == "high"
        ember.set_warn_always(True)
        assert ember.is_warn_always_enabled()
    finally:
        ember.use_deterministic_algorithms(False)
        ember.set_float32_matmul_precision("highest")
        ember.set_warn_always(False)
    with pytest.raises(TypeError):
        ember.use_deterministic_algorithms("yes")


def test_set_default_tensor_type():
    try:
        ember.set_default_tensor_type("torch.DoubleTensor")
        assert ember.get_default_dtype() == ember.float64 and ember.zeros(1).dtype == ember.float64
        with pytest.raises(TypeError, match="only floating-point types"):
            ember.set_default_tensor_type("torch.LongTensor")
    finally:
        ember.set_default_dtype(ember.float32)


def test_pin_memory_raises_without_an_accelerator():
    with pytest.raises(NotImplementedError):
        torch.zeros(2).pin_memory()
    with pytest.raises(NotImplementedError, match="pinned memory needs an accelerator"):
        ember.zeros(2).pin_memory()


def test_set_anomaly_enabled_as_torch():
    for lib in (ember, torch):
        try:
            lib.set_anomaly_enabled(True)
            assert lib.is_anomaly_enabled() and lib.is_anomaly_check_nan_enabled()
            lib.set_anomaly_enabled(True, False)
            assert lib.is_anomaly_enabled() and not lib.is_anomaly_check_nan_enabled()
        finally:
            lib.set_anomaly_enabled(False)
        assert not lib.is_anomaly_enabled()
