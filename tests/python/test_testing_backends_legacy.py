"""ember.testing (assert_close, make_tensor), ember.backends.cudnn/mps and the legacy tensor types
(ember.FloatTensor, ...) against PyTorch 1.13: results, messages and exception types side by side."""
import numpy as np
import pytest
import torch

import ember


def outcome(fn):
    """('ok', value) or (exception type name, message with the module names replaced)."""
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001  (the exception is the result compared)
        return type(e).__name__, str(e).replace("torch", "X").replace("ember", "X")
    return "ok", repr(r).replace("torch", "X").replace("ember", "X")


def same_outcome(make):
    """make(module) run with ember and with torch gives the same outcome."""
    assert outcome(lambda: make(ember)) == outcome(lambda: make(torch))


NAN = float("nan")
ASSERT_CLOSE_CASES = {
    "close_float32": lambda T: T.testing.assert_close(T.tensor([1., 2., 3.]), T.tensor([1., 2., 3.000001])),
    "mismatch_report": lambda T: T.testing.assert_close(T.tensor([1., 2., 3.]), T.tensor([1., 2.5, 3.0001])),
    "exact_2d": lambda T: T.testing.assert_close(T.tensor([[1., 2.], [3., 4.]]), T.tensor([[1., 2.], [3., 5.]]),
                                                 rtol=0, atol=0),
    "int_exact": lambda T: T.testing.assert_close(T.tensor([1, 2, 3]), T.tensor([1, 2, 4])),
    "dtype_mismatch": lambda T: T.testing.assert_close(T.tensor([1, 2, 3]), T.tensor([1., 2., 3.])),
    "dtype_unchecked": lambda T: T.testing.assert_close(T.tensor([1, 2, 3]), T.tensor([1., 2., 3.]),
                                                        check_dtype=False),
    "nan_unequal": lambda T: T.testing.assert_close(T.tensor([1., NAN]), T.tensor([1., NAN])),
    "nan_equal": lambda T: T.testing.assert_close(T.tensor([1., NAN]), T.tensor([1., NAN]), equal_nan=True),
    "scalar_tensor": lambda T: T.testing.assert_close(T.tensor(1.), T.tensor(2.)),
    "shape": lambda T: T.testing.assert_close(T.tensor([1.]), T.tensor([1., 2.])),
    "stride": lambda T: T.testing.assert_close(T.ones(2, 3), T.ones(3, 2).t(), check_stride=True),
    "one_tolerance": lambda T: T.testing.assert_close(T.ones(2), T.ones(2), rtol=1e-3),
    "tensor_vs_number": lambda T: T.testing.assert_close(T.ones(2), 1.0),
    "int_vs_float": lambda T: T.testing.assert_close(1, 1.0),
    "floats_close": lambda T: T.testing.assert_close(1.0, 1.0 + 1e-8),
    "floats_far": lambda T: T.testing.assert_close(1.0, 1.1),
    "nested": lambda T: T.testing.assert_close([T.ones(2), {"a": T.zeros(1), "b": 2}],
                                               [T.ones(2), {"a": T.zeros(1), "b": 3}]),
    "keys": lambda T: T.testing.assert_close({"a": 1}, {"b": 1}),
    "lengths": lambda T: T.testing.assert_close([1, 2], [1, 2, 3]),
    "none": lambda T: T.testing.assert_close(None, 1),
    "bools": lambda T: T.testing.assert_close(True, False),
    "numpy": lambda T: T.testing.assert_close(np.ones(3), np.ones(3) + 1),
    "msg_str": lambda T: T.testing.assert_close(T.tensor([1., 2.]), T.tensor([1., 3.]), msg="custom"),
    "msg_callable": lambda T: T.testing.assert_close([T.tensor([1., 2.])], [T.tensor([1., 3.])],
                                                     msg=lambda m: "Header\n" + m),
    "float16_default_tol": lambda T: T.testing.assert_close(T.tensor([1., 2.], dtype=T.float16),
                                                            T.tensor([1., 2.001], dtype=T.float16)),
    "relative_inf": lambda T: T.testing.assert_close(T.tensor([0., 2.]), T.tensor([1e-4, 0.])),
    "bool_tensors": lambda T: T.testing.assert_close(T.tensor([True, False]), T.tensor([True, True])),
    "empty": lambda T: T.testing.assert_close(T.empty(0), T.empty(0)),
    "float64_edge": lambda T: T.testing.assert_close(T.tensor([1.0], dtype=T.float64),
                                                     T.tensor([1.0 + 2e-7], dtype=T.float64)),
}


@pytest.mark.parametrize("case", sorted(ASSERT_CLOSE_CASES))
def test_assert_close_matches_torch(case):
    same_outcome(ASSERT_CLOSE_CASES[case])


def test_assert_close_message_lists_mismatches():
    with pytest.raises(AssertionError) as info:
        ember.testing.assert_close(ember.tensor([[1., 2.], [3., 4.]]), ember.tensor([[1., 2.5], [3., 4.]]))
    text = str(info.value)
    assert "Mismatched elements: 1 / 4 (25.0%)" in text
    assert "Greatest absolute difference: 0.5 at index (0, 1)" in text
    assert "Greatest relative difference: 0.2 at index (0, 1)" in text


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int32", "int64", "float16", "bfloat16", "float32",
                                   "float64"])
def test_make_tensor_ranges(dtype):
    d = getattr(ember, dtype)
    t = ember.testing.make_tensor(4, 5, dtype=d)
    assert t.dtype == d and tuple(t.shape) == (4, 5)
    values = t.double()
    if dtype == "bool":
        return
    low, high = {"uint8": (0, 10)}.get(dtype, (-9, 10) if not d.is_floating_point else (-9, 9))
    assert values.min().item() >= low and values.max().item() < high + (0 if d.is_floating_point else 1)
    nz = ember.testing.make_tensor((30,), dtype=d, low=-2, high=2, exclude_zero=True, noncontiguous=True)
    assert (nz == 0).sum().item() == 0 and not nz.is_contiguous()


def test_make_tensor_errors_match_torch():
    for kwargs in [dict(dtype="int32", requires_grad=True), dict(dtype="float32", low=2, high=1),
                   dict(dtype="float32", low=float("nan"))]:
        def make(T, kwargs=kwargs):
            kw = dict(kwargs, dtype=getattr(T, kwargs["dtype"]))
            return T.testing.make_tensor(3, device="cpu", **kw).shape
        same_outcome(make)
    t = ember.testing.make_tensor(2, dtype=ember.float64, requires_grad=True)
    assert t.requires_grad and t.is_leaf


# ---------------------------------------------------------------------------------------------- backends
def test_cudnn_and_mps_flags():
    cudnn = ember.backends.cudnn
    assert cudnn.is_available() is torch.backends.cudnn.is_available() is False
    assert ember.backends.mps.is_available() is False and ember.backends.mps.is_built() is False
    assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic) == \
        (torch.backends.cudnn.enabled, torch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic)
    cudnn.benchmark = True
    cudnn.deterministic = True
    try:
        assert cudnn.benchmark and cudnn.deterministic
        with cudnn.flags(enabled=False, deterministic=False):
            assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic) == (False, False, False)
        assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic) == (True, True, True)
    finally:
        cudnn.benchmark = False
        cudnn.deterministic = False
    same_outcome(lambda T: setattr(T.backends.cudnn, "benchmark", "yes"))
    same_outcome(lambda T: setattr(T.backends.cudnn, "deterministic", 1))
    assert cudnn.benchmark is False


def test_deterministic_algorithms_switch():
    assert ember.are_deterministic_algorithms_enabled() is False
    ember.use_deterministic_algorithms(True)
    try:
        assert ember.are_deterministic_algorithms_enabled() is True
    finally:
        ember.use_deterministic_algorithms(False)
    assert ember.are_deterministic_algorithms_enabled() is False


# ---------------------------------------------------------------------------------------------- legacy types
LEGACY_CASES = {
    "name": lambda T: T.FloatTensor.__name__,
    "dtype": lambda T: T.FloatTensor.dtype,
    "sizes": lambda T: (T.FloatTensor(2, 3).shape, T.FloatTensor(2, 3).dtype),
    "data": lambda T: T.FloatTensor([1, 2]),
    "empty": lambda T: T.FloatTensor(),
    "size_object": lambda T: T.FloatTensor(T.Size([2])).shape,
    "long_truncates": lambda T: T.LongTensor([1.7, 2]),
    "bool": lambda T: T.BoolTensor([1, 0]),
    "byte": lambda T: T.ByteTensor(2).dtype,
    "half": lambda T: T.HalfTensor([1]).dtype,
    "char": lambda T: T.CharTensor([1]).dtype,
    "short": lambda T: T.ShortTensor([1]).dtype,
    "int": lambda T: T.IntTensor([[1, 2]]),
    "bfloat16": lambda T: T.BFloat16Tensor([1]).dtype,
    "double": lambda T: T.DoubleTensor([1]).dtype,
    "alias": lambda T: (lambda t: (T.FloatTensor(t) is t, T.FloatTensor(t).data_ptr() == t.data_ptr()))(T.ones(2)),
    "other_dtype": lambda T: outcome(lambda: T.FloatTensor(T.ones(2, dtype=T.int64)))[0],  # TypeError
    "string": lambda T: T.FloatTensor("a"),
    "bad_size": lambda T: T.FloatTensor(2, "x"),
    "negative": lambda T: T.FloatTensor(-1),
    "isinstance": lambda T: (isinstance(T.ones(2), T.FloatTensor), isinstance(T.ones(2).double(), T.FloatTensor),
                             isinstance(T.ones(2, dtype=T.int64), T.LongTensor), isinstance(3, T.FloatTensor)),
    "type_to_class": lambda T: T.ones(2).type(T.DoubleTensor).dtype,
    "type_to_name": lambda T: T.ones(2).type("torch.IntTensor").dtype,
    "type_name": lambda T: T.ones(2).type(),
    "type_bad_name": lambda T: T.ones(2).type("foo"),
    "device_kwarg": lambda T: T.FloatTensor(2, device="cpu").shape,
}


@pytest.mark.parametrize("case", sorted(LEGACY_CASES))
def test_legacy_tensor_types_match_torch(case):
    same_outcome(LEGACY_CASES[case])
