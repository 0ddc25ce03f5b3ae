"""The Tensor object against PyTorch: attributes (shape, Size, dtype, device, ndim, strides, ...), conversions to
Python (item, tolist, bool/int/float/index, len, iteration), copies (clone, copy_ with dtype conversion and
broadcasting, contiguous, to(dtype), .float()/.long()/...), pickling, and their errors."""
import copy
import math
import pickle

import numpy as np
import pytest
import torch

import ember
from conftest import (ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, assert_raises_like, assert_same, check, dtype_name,
                      edtype, make_tensor, special_tensor, tdtype, to_torch, torch_like)


# ---------------------------------------------------------------------------------------------- attributes
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3), (2, 0, 4), (1, 1, 1, 5)], ids=str)
def test_shape_attributes(shape):
    x = make_tensor(shape, "float32")
    tx = to_torch(x)
    assert isinstance(x.shape, ember.Size) and isinstance(x.shape, tuple)
    assert x.shape == tx.shape and x.size() == tx.size()
    assert x.ndim == tx.ndim and x.dim() == tx.dim() and x.ndimension() == tx.ndimension()
    assert x.numel() == tx.numel() and x.nelement() == tx.nelement() and ember.numel(x) == torch.numel(tx)
    assert x.shape.numel() == tx.shape.numel()
    assert x.stride() == tx.stride() and x.is_contiguous() == tx.is_contiguous()
    for d in range(-len(shape), len(shape)):
        assert x.size(d) == tx.size(d) and x.stride(d) == tx.stride(d) and x.size(dim=d) == tx.size(dim=d)
        assert x.shape[d] == tx.shape[d]


def test_size_is_a_tuple():
    s = ember.Size([2, 3, 4])
    ts = torch.Size([2, 3, 4])
    assert s == (2, 3, 4) and s == ts
    assert isinstance(s[1:], ember.Size) and s[1:] == ts[1:]
    assert isinstance(s[0], int)
    assert len(s) == 3 and list(s) == [2, 3, 4]
    assert s.numel() == 24
    assert isinstance(s + (5,), ember.Size) and s + (5,) == ts + (5,)
    assert pickle.loads(pickle.dumps(s)) == s and type(pickle.loads(pickle.dumps(s))) is ember.Size
    assert ember.Size() == () and ember.Size().numel() == 1


def test_size_and_stride_dim_errors():
    x = make_tensor((2, 3), "float32")
    tx = to_torch(x)
    for f in [lambda t: t.size(2), lambda t: t.size(-3), lambda t: t.stride(5), lambda t: t.size(1.0),
              lambda t: t.size(0, 1), lambda t: t.shape[2]]:
        assert_raises_like(lambda: f(x), lambda: f(tx))
    # Deliberate difference: Ember has no named tensors, so a str dim is a TypeError (PyTorch looks the name up
    # and raises RuntimeError).
    with pytest.raises(TypeError):
        x.size("a")
    z, tz = make_tensor((), "float32"), torch.tensor(1.0)
    assert_raises_like(lambda: z.size(0), lambda: tz.size(0))
    assert z.size() == tz.size() == ()


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_dtype_device_and_type_attributes(dtype):
    x = make_tensor((2,), dtype)
    tx = to_torch(x)
    assert x.dtype is edtype(dtype)
    assert x.is_floating_point() == tx.is_floating_point() == ember.is_floating_point(x)
    assert x.is_signed() == tx.is_signed()
    assert x.element_size() == tx.element_size()
    assert x.itemsize == tx.element_size() and x.nbytes == tx.element_size() * 2
    assert x.type() == tx.type().replace("torch.", "ember.")
    assert x.device == ember.device("cpu") and str(x.device) == str(tx.device) and x.device.type == "cpu"
    assert x.is_cuda is False and tx.is_cuda is False
    assert ember.is_tensor(x) and not ember.is_tensor(1)
    assert x.cpu() is x


def test_version_counter_counts_in_place_ops():
    # Deliberate, documented: _version counts in-place modifications like PyTorch's; the exact numbers may
    # differ where an op is composed of several in-place steps, so only increments are tested.
    x = make_tensor((3,), "float32")
    v0 = x._version
    x.add_(1)
    assert x._version > v0
    v1 = x._version
    x.t()
    x + 1
    assert x._version == v1
    x[0] = 2
    assert x._version > v1


# ---------------------------------------------------------------------------------------------- to Python
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_item_and_tolist(dtype):
    for shape in [(), (1,), (1, 1)]:
        x = make_tensor(shape, dtype)
        assert_same(x.item(), to_torch(x).item())
    for shape in [(), (3,), (2, 3), (2, 0), (0,), (1, 2, 2)]:
        x = make_tensor(shape, dtype, layout="transposed")
        assert_same(x.tolist(), to_torch(x).tolist())
    s = special_tensor(dtype)
    assert_same(s.tolist(), to_torch(s).tolist())


def test_item_errors():
    for shape in [(2,), (0,), (2, 1)]:
        x = make_tensor(shape, "float32")
        assert_raises_like(lambda: x.item(), lambda: to_torch(x).item())


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_python_number_conversions(dtype):
    for values in [[0], [1], [-2.5], [3.7], [float("nan")], [float("inf")]]:
        if dtype not in FLOAT_DTYPES and not all(math.isfinite(v) for v in values):
            continue
        x = ember.tensor(values, dtype=edtype(dtype)) if dtype in FLOAT_DTYPES or values[0] >= 0 else \
            ember.tensor([int(v) for v in values], dtype=edtype(dtype))
        tx = to_torch(x)
        for conv in [bool, float]:
            assert_same(conv(x), conv(tx))
        assert_raises_or_same(int, x, tx)
        assert_raises_or_same(lambda t: t.__index__(), x, tx)
        assert_raises_or_same(lambda t: [10, 20, 30, 40][t], x, tx)
        assert_raises_or_same(complex, x, tx)


def assert_raises_or_same(f, x, tx):
    try:
        expected = f(tx)
    except Exception:  # noqa: BLE001
        assert_raises_like(lambda: f(x), lambda: f(tx))
        return
    assert_same(f(x), expected)


def test_conversions_need_one_element():
    for shape in [(2,), (0,)]:
        x = make_tensor(shape, "float32")
        tx = to_torch(x)
        for conv in [bool, int, float, lambda t: t.__index__()]:
            assert_raises_like(lambda: conv(x), lambda: conv(tx))
    assert bool(make_tensor((1, 1), "int32")) == bool(to_torch(make_tensor((1, 1), "int32")))


def test_len_and_iter():
    for shape, dtype in [((3,), "int64"), ((2, 3), "float32"), ((0, 2), "bool"), ((1,), "float16")]:
        x = make_tensor(shape, dtype)
        tx = to_torch(x)
        assert len(x) == len(tx)
        items = list(x)
        titems = list(tx)
        assert len(items) == len(titems)
        for a, b in zip(items, titems):
            assert_same(a, b)
    z = make_tensor((), "float32")
    assert_raises_like(lambda: len(z), lambda: len(to_torch(z)))
    assert_raises_like(lambda: iter(z), lambda: iter(to_torch(z)))
    # iteration gives views
    x = make_tensor((2, 3), "float32")
    for row in x:
        row.zero_()
    assert x.tolist() == [[0.0] * 3] * 2


def test_contains():
    x = make_tensor((2, 3), "int64")
    tx = to_torch(x)
    for v in [0, 3, 100]:
        assert (v in x) == (v in tx)


# ---------------------------------------------------------------------------------------------- copies
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_clone(dtype):
    for layout in ["contiguous", "transposed", "strided"]:
        x = make_tensor((3, 4), dtype, layout=layout)
        c = check(lambda a: a.clone(), lambda a: a.clone(), x)
        # preserve_format: a dense permuted input keeps its strides, others become contiguous
        assert c.stride() == torch_like(x).clone().stride() and c.data_ptr() != x.data_ptr()
        assert_same(ember.clone(x), to_torch(x))


@pytest.mark.parametrize("src", ALL_DTYPES)
@pytest.mark.parametrize("dst", ALL_DTYPES)
def test_copy_converts_dtype(src, dst):
    # copy_ converts every value as PyTorch does (floats to integers truncate; NaN/inf to integers are not
    # compared, C++ leaves them undefined).
    s = make_tensor((2, 3), src)
    d = make_tensor((2, 3), dst, seed=4, layout="transposed")
    td = torch_like(d)
    r = d.copy_(s)
    td.copy_(to_torch(s))
    assert r is d
    assert_same(d, td)
    if src in FLOAT_DTYPES:
        sp = special_tensor(src)
        if dst in INT_DTYPES:
            sp = ember.tensor([v for v in sp.tolist() if math.isfinite(v) and -100 < v < 100], dtype=edtype(src))
        d = ember.empty(sp.shape, dtype=edtype(dst))
        assert_same(d.copy_(sp), torch.empty(tuple(sp.shape), dtype=tdtype(dst)).copy_(to_torch(sp)))


@pytest.mark.parametrize("src_shape", [(), (1,), (3,), (2, 1), (1, 3)], ids=str)
def test_copy_broadcasts(src_shape):
    s = make_tensor(src_shape, "int32")
    d = make_tensor((2, 3), "float32")
    check(lambda a, b: a.copy_(b), lambda a, b: a.copy_(b), d, s)


def test_copy_errors():
    d = make_tensor((2, 3), "float32")
    for s in [make_tensor((3, 2), "float32"), make_tensor((2, 3, 1), "float32"), make_tensor((4,), "int64")]:
        assert_raises_like(lambda: d.copy_(s), lambda: to_torch(d).copy_(to_torch(s)))
    # (a number is fine: copy_(1.0) fills, as PyTorch)
    check(lambda a: a.copy_(1.5), lambda a: a.copy_(1.5), d)
    # A destination whose elements overlap (expanded) cannot be written.
    e = make_tensor((1, 3), "float32")
    assert_raises_like(lambda: e.expand(2, 3).copy_(d), lambda: to_torch(e).expand(2, 3).copy_(to_torch(d)))


def test_copy_between_overlapping_views():
    x = make_tensor((6,), "float32")
    tx = to_torch(x)
    x[:3].copy_(x[3:])
    tx[:3].copy_(tx[3:])
    assert_same(x, tx)
    # A source that partly overlaps the destination raises, as PyTorch's (Note [memory overlap]).
    x2 = make_tensor((3, 3), "float32")
    tx2 = to_torch(x2)
    with pytest.raises(RuntimeError, match="some elements of the input tensor"):
        tx2.copy_(tx2.t())
    with pytest.raises(RuntimeError, match="some elements of the input tensor"):
        x2.copy_(x2.t())
    assert_same(x2, tx2)  # nothing written


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_contiguous(dtype):
    x = make_tensor((3, 4), dtype)
    assert x.contiguous() is x
    for layout in ["transposed", "strided"]:
        y = make_tensor((3, 4), dtype, layout=layout)
        c = check(lambda a: a.contiguous(), lambda a: a.contiguous(), y)
        assert c.is_contiguous() and c.stride() == (4, 1)


@pytest.mark.parametrize("src", ALL_DTYPES)
@pytest.mark.parametrize("dst", ALL_DTYPES)
def test_to_dtype(src, dst):
    # (conversions exist for the 16-bit floats in PyTorch too: compared natively)
    x = make_tensor((2, 3), src, layout="transposed")
    r = check(lambda a: a.to(edtype(dst)), lambda a: a.to(tdtype(dst)), x, native_narrow=True)
    if src == dst:
        assert r is x
    check(lambda a: a.to(dtype=edtype(dst)), lambda a: a.to(dtype=tdtype(dst)), x, native_narrow=True)
    c = x.to(edtype(dst), copy=True)
    assert c is not x and c.data_ptr() != x.data_ptr()
    check(lambda a, b: a.to(b), lambda a, b: a.to(b), x, make_tensor((1,), dst), native_narrow=True)
    check(lambda a: a.type(edtype(dst)), lambda a: a.type(tdtype(dst)), x, native_narrow=True)
    check(lambda a: a.type_as(ember.empty(1, dtype=edtype(dst))),
          lambda a: a.type_as(torch.empty(1, dtype=tdtype(dst))), x, native_narrow=True)


def test_to_device_and_errors():
    x = make_tensor((3,), "float32")
    tx = to_torch(x)
    assert x.to("cpu") is x and tx.to("cpu") is tx
    assert x.to(ember.device("cpu")) is x
    assert_same(x.to("cpu", ember.float64), tx.to("cpu", torch.float64))
    assert_same(x.to("cpu", dtype=ember.int32), tx.to("cpu", dtype=torch.int32))
    assert_raises_like(lambda: x.to("nonsense"), lambda: tx.to("nonsense"))
    # Deliberate difference: no CUDA in Ember: RuntimeError (PyTorch without CUDA fails an assert).
    with pytest.raises(RuntimeError):
        x.to("cuda")


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("method", ["float", "double", "half", "bfloat16", "long", "int", "short", "char", "byte",
                                    "bool"])
def test_type_conversion_methods(method, dtype):
    x = make_tensor((2, 3), dtype, layout="strided")
    r = check(lambda a: getattr(a, method)(), lambda a: getattr(a, method)(), x)
    if dtype_name(r.dtype) == dtype:
        assert r is x


def test_float_to_int_conversion_of_special_values():
    # In-range values truncate toward zero, as C++ and PyTorch do.
    x = ember.tensor([2.7, -2.7, 0.5, -0.5, 127.9, -128.9])
    assert_same(x.to(ember.int8), torch.tensor([2.7, -2.7, 0.5, -0.5, 127.9, -128.9]).to(torch.int8))
    assert_same(x.long(), torch.tensor([2.7, -2.7, 0.5, -0.5, 127.9, -128.9]).long())
    assert_same(x.bool(), torch.tensor([2.7, -2.7, 0.5, -0.5, 127.9, -128.9]).bool())
    y = ember.tensor([float("nan"), 0.0, -0.0, float("inf")])
    assert_same(y.bool(), torch.tensor([float("nan"), 0.0, -0.0, float("inf")]).bool())


# ---------------------------------------------------------------------------------------------- pickling
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_pickle_round_trip(dtype):
    for shape, layout in [((2, 3), "contiguous"), ((3, 4), "transposed"), ((), "contiguous"), ((0, 2), "contiguous")]:
        x = make_tensor(shape, dtype, layout=layout)
        y = pickle.loads(pickle.dumps(x))
        assert type(y) is ember.Tensor
        assert_same(y, to_torch(x))
        y2 = copy.deepcopy(x)
        assert_same(y2, to_torch(x))
        assert y2.data_ptr() != x.data_ptr() or x.numel() == 0


def test_pickle_keeps_a_copy():
    x = make_tensor((3,), "float32")
    data = pickle.dumps(x)
    x.zero_()
    assert pickle.loads(data).tolist() != [0.0, 0.0, 0.0]


def test_deepcopy_in_a_container():
    x = make_tensor((2,), "int32")
    d = copy.deepcopy({"a": x, "b": [x]})
    assert d["a"] is d["b"][0] and d["a"] is not x


def test_pickle_and_deepcopy_keep_requires_grad_as_pytorch():
    for lib in (torch, ember):
        a = lib.ones(2, requires_grad=True)
        b = a * 2
        pb = pickle.loads(pickle.dumps(b))  # a non-leaf pickles as a leaf that requires grad
        assert pb.requires_grad and pb.is_leaf and pb.tolist() == [2.0, 2.0]
        with pytest.raises(RuntimeError, match="graph leaves"):
            copy.deepcopy(b)
        a.grad = lib.full((2,), 3.0)
        c = copy.deepcopy(a)
        assert c.requires_grad and c.is_leaf and c.grad.tolist() == [3.0, 3.0]
        assert c.grad.data_ptr() != a.grad.data_ptr()
        p = lib.nn.Parameter(lib.ones(2), requires_grad=False)
        for q in (pickle.loads(pickle.dumps(p)), copy.deepcopy(p)):
            assert type(q) is lib.nn.Parameter and q.requires_grad is False
    bf = ember.tensor([1.5, -2.0], dtype=ember.bfloat16, requires_grad=True)
    r = pickle.loads(pickle.dumps(bf))
    assert r.dtype == ember.bfloat16 and r.requires_grad and r.tolist() == [1.5, -2.0]


# ---------------------------------------------------------------------------------------------- new_* and misc
@pytest.mark.parametrize("dtype", ["int16", "float64", "bool"])
def test_new_factories_take_dtype_from_self(dtype):
    for lib in (torch, ember):
        x = lib.ones(2, dtype=getattr(lib, dtype))
        cases = [x.new_zeros(2, 3), x.new_zeros((2, 3)), x.new_ones(3), x.new_empty(()), x.new_full((2,), 1),
                 x.new_tensor([1, 0]), x.new_zeros([2], dtype=lib.float32), x.new_ones(1, requires_grad=False)]
        got = [(tuple(t.shape), dtype_name(t.dtype)) for t in cases]
        values = [t.tolist() for t in cases if t.numel() and t is not cases[3]]
        if lib is torch:
            expected = (got, values)
        else:
            assert (got, values) == expected
    r = ember.ones(1).new_zeros(2, requires_grad=True)
    assert r.requires_grad and r.is_leaf


def test_as_tensor_shares_memory_as_pytorch():
    n = np.ones(3)
    e, t = ember.as_tensor(n), torch.as_tensor(n)
    n[0] = 5
    assert e.tolist() == t.tolist() == [5.0, 1.0, 1.0] and dtype_name(e.dtype) == dtype_name(t.dtype)
    x = ember.ones(2)
    assert ember.as_tensor(x) is x and ember.as_tensor(x, dtype=ember.float64).dtype == ember.float64
    assert_same(ember.as_tensor([1, 2]), torch.as_tensor([1, 2]))
    assert_same(ember.as_tensor(3.5), torch.as_tensor(3.5))
    assert_same(ember.as_tensor(n, dtype=ember.float32), torch.as_tensor(n, dtype=torch.float32))


@pytest.mark.parametrize("values", [[1], [0.0], [], [1, 2]], ids=str)
def test_is_nonzero(values):
    check(lambda: ember.is_nonzero(ember.tensor(values)), lambda: torch.is_nonzero(torch.tensor(values)))


@pytest.mark.parametrize("value", [None, [1], 1.0], ids=["None", "list", "float"])
def test_is_nonzero_of_no_tensor_raises(value):
    # Found by tools/random_calls.py: is_nonzero(None) was False.
    assert_raises_like(lambda: ember.is_nonzero(value), lambda: torch.is_nonzero(value))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_finfo(dtype):
    e, t = ember.finfo(getattr(ember, dtype)), torch.finfo(getattr(torch, dtype))
    for attr in ["bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"]:
        assert getattr(e, attr) == getattr(t, attr), attr
    assert repr(e) == repr(t)
    assert ember.finfo() == ember.finfo(ember.float32)


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_iinfo(dtype):
    e, t = ember.iinfo(getattr(ember, dtype)), torch.iinfo(getattr(torch, dtype))
    assert (e.bits, e.min, e.max, e.dtype) == (t.bits, t.min, t.max, t.dtype)
    assert repr(e) == repr(t)


def test_finfo_iinfo_errors():
    for efn, tfn in [(lambda: ember.finfo(ember.int32), lambda: torch.finfo(torch.int32)),
                     (lambda: ember.iinfo(ember.float32), lambda: torch.iinfo(torch.float32)),
                     (lambda: ember.iinfo(ember.bool), lambda: torch.iinfo(torch.bool)),
                     (lambda: ember.finfo(3), lambda: torch.finfo(3))]:
        check(efn, tfn)


def test_constants_and_cuda():
    assert (ember.pi, ember.e) == (torch.pi, torch.e) and ember.inf == torch.inf and math.isnan(ember.nan)
    assert ember.cuda.is_available() is False and ember.cuda.device_count() == 0


def test_hash_and_identity():
    x = make_tensor((2,), "float32")
    assert hash(x) == hash(x) and {x: 1}[x] == 1
    assert ember.equal(x, x.clone()) == torch.equal(to_torch(x), to_torch(x))
    assert ember.equal(x, x[:1]) is False and x.equal(x) is True


def test_numpy_of_conversions_share_memory():
    x = make_tensor((3,), "float32")
    assert np.shares_memory(x.numpy(), x.float().numpy())
    assert not np.shares_memory(x.numpy(), x.double().numpy())


# ---------------------------------------------------------------------------------------------- keywords
# Calls by keyword use PyTorch's Python names (a Tensor `self` is `input`): (id, f(lib, x, y, c))
KEYWORD_CALLS = [
    ("add", lambda L, x, y, c: L.add(input=x, other=y, alpha=2)),
    ("sub", lambda L, x, y, c: L.sub(x, other=y)),
    ("mul_number", lambda L, x, y, c: L.mul(input=x, other=3)),
    ("div_floor", lambda L, x, y, c: L.div(x, y, rounding_mode="floor")),
    ("div_none", lambda L, x, y, c: L.div(input=x, other=y, rounding_mode=None)),
    ("pow_number", lambda L, x, y, c: L.pow(x, exponent=2)),
    ("pow_tensor", lambda L, x, y, c: L.pow(input=x, exponent=y)),
    ("pow_scalar_self", lambda L, x, y, c: L.pow(self=2, exponent=y)),
    ("where", lambda L, x, y, c: L.where(c, input=x, other=y)),
    ("where_all", lambda L, x, y, c: L.where(condition=c, input=x, other=y)),
    ("where_method", lambda L, x, y, c: x.where(c, y)),
    ("where_method_kw", lambda L, x, y, c: x.where(condition=c, other=y)),
    ("clamp", lambda L, x, y, c: L.clamp(x, min=0, max=1)),
    ("clamp_tensor", lambda L, x, y, c: L.clamp(x, min=y)),
    ("lerp", lambda L, x, y, c: L.lerp(x, end=y, weight=0.5)),
    ("addcmul", lambda L, x, y, c: L.addcmul(x, tensor1=y, tensor2=y, value=2)),
    ("atan2", lambda L, x, y, c: L.atan2(input=x, other=y)),
    ("exp", lambda L, x, y, c: L.exp(input=x)),
    ("eq", lambda L, x, y, c: L.eq(x, other=y)),
    ("nan_to_num", lambda L, x, y, c: L.nan_to_num(x, nan=0.0, posinf=1.0, neginf=-1.0)),
    ("isnan", lambda L, x, y, c: L.isnan(input=x)),
    ("method_add", lambda L, x, y, c: x.add(other=y, alpha=-1)),
    ("method_pow", lambda L, x, y, c: x.pow(exponent=3)),
    ("method_clamp", lambda L, x, y, c: x.clamp(max=0.5)),
    ("method_lerp", lambda L, x, y, c: x.lerp(end=y, weight=y)),
    ("method_div", lambda L, x, y, c: x.div(other=y, rounding_mode="trunc")),
    ("view", lambda L, x, y, c: x.view(size=(4,))),
    ("reshape", lambda L, x, y, c: L.reshape(x, shape=(4,))),
    ("permute", lambda L, x, y, c: x.permute(dims=(1, 0))),
    ("transpose", lambda L, x, y, c: x.transpose(dim0=0, dim1=1)),
    ("narrow", lambda L, x, y, c: x.narrow(dim=0, start=0, length=1)),
    ("select", lambda L, x, y, c: x.select(dim=1, index=0)),
    ("squeeze", lambda L, x, y, c: x.unsqueeze(0).squeeze(dim=0)),
    ("unsqueeze", lambda L, x, y, c: x.unsqueeze(dim=1)),
    ("flatten", lambda L, x, y, c: x.flatten(start_dim=0, end_dim=1)),
    ("unflatten", lambda L, x, y, c: x.unflatten(dim=1, sizes=(2, 1))),
    ("unfold", lambda L, x, y, c: x.unfold(dimension=1, size=1, step=1)),
    ("diagonal", lambda L, x, y, c: x.diagonal(offset=0, dim1=0, dim2=1)),
    ("movedim", lambda L, x, y, c: x.movedim(source=0, destination=1)),
    ("expand", lambda L, x, y, c: y.expand(size=(3, 2))),
    ("full", lambda L, x, y, c: L.full(size=(2,), fill_value=3)),
    ("arange", lambda L, x, y, c: L.arange(end=3)),
    ("linspace", lambda L, x, y, c: L.linspace(start=0, end=1, steps=3)),
    ("logspace", lambda L, x, y, c: L.logspace(start=0, end=1, steps=2, base=2.0)),
    ("zeros", lambda L, x, y, c: L.zeros(size=(2,))),
    ("eye", lambda L, x, y, c: L.eye(n=2, m=3)),
    ("full_like", lambda L, x, y, c: L.full_like(x, fill_value=2)),
    ("to", lambda L, x, y, c: x.to(dtype=L.float64, copy=True)),
    ("clone", lambda L, x, y, c: x.clone(memory_format=L.contiguous_format)),
    ("as_strided", lambda L, x, y, c: x.as_strided(size=(2,), stride=(1,), storage_offset=1)),
    ("fill_", lambda L, x, y, c: x.clone().fill_(value=2)),
    ("size", lambda L, x, y, c: x.size(dim=1)),
]


@pytest.mark.parametrize("case", KEYWORD_CALLS, ids=[c[0] for c in KEYWORD_CALLS])
def test_keyword_arguments(case):
    f = case[1]
    x = ember.tensor([[1.5, -2.0], [0.5, 3.0]])
    y = ember.tensor([2.0, 4.0])
    check(lambda a, b: f(ember, a, b, a > 0), lambda a, b: f(torch, a, b, a > 0), x, y)


@pytest.mark.parametrize("values", [[1, 2], [], [[True, False]]], ids=str)
def test_bool_of_several_or_no_values_is_pytorchs_error(values):
    e = assert_raises_like(lambda: bool(ember.tensor(values)), lambda: bool(torch.tensor(values)))
    assert str(e) == str(torch_error(lambda: bool(torch.tensor(values))))


def torch_error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the reference's exception, whatever it is
        return e
    raise AssertionError("PyTorch raised nothing")


@pytest.mark.parametrize("call", [lambda m: m.ones(2, requires_grad=True).numpy(),
                                  lambda m: np.asarray(m.ones(2, requires_grad=True)),
                                  lambda m: m.ones(2, requires_grad=True).__array__()],
                         ids=["numpy", "asarray", "__array__"])
def test_numpy_of_a_tensor_that_requires_grad_raises(call):
    # Found by tools/random_calls.py: the array let the tensor be changed behind autograd's back.
    e = assert_raises_like(lambda: call(ember), lambda: call(torch))
    assert "Use tensor.detach().numpy() instead" in str(e)
    assert np.array_equal(ember.ones(2, requires_grad=True).detach().numpy(), np.ones(2, dtype=np.float32))


# Note [tensors as numbers] (python/csrc/arg_parser.cpp): a Number or int parameter takes a 0-dim tensor that does
# not require grad, nothing else. Found by tools/random_calls.py: clamp_min(x, t) with t of shape (1, 1, 1) returned
# x's shape, x.max(t) with an int tensor t of shape (1, 1) reduced over dim t.
@pytest.mark.parametrize("call", [
    lambda m: m.nn.functional.leaky_relu(m.ones(3), m.ones(1)),
    lambda m: m.nn.functional.leaky_relu(m.ones(3), m.tensor(0.5, requires_grad=True)),
    lambda m: m.add(m.ones(2), 1, alpha=m.ones(1)),
    lambda m: m.ones(2, 3).sum(m.tensor([1])),
], ids=["one_element", "requires_grad", "alpha", "int_dim"])
def test_only_0_dim_tensors_are_numbers(call):
    assert_raises_like(lambda: call(ember), lambda: call(torch))


@pytest.mark.parametrize("call", [
    lambda m: m.nn.functional.leaky_relu(m.arange(-2.0, 2.0), m.tensor(0.5)),
    lambda m: m.add(m.ones(2), 1, alpha=m.tensor(3)),
    lambda m: m.ones(2, 3).max(m.ones(1, 1, dtype=m.int32)),
    lambda m: m.clamp_min(m.arange(-2.0, 2.0), m.tensor(0.5)),
], ids=["leaky_relu", "alpha", "max_other", "clamp_min"])
def test_0_dim_tensors_are_numbers(call):
    check(lambda: call(ember), lambda: call(torch))


@pytest.mark.parametrize("call", [
    lambda m: m.from_numpy(np.float64(2.0)),
    lambda m: m.finfo(None),
    lambda m: m.empty(2, memory_format=m.preserve_format),
    lambda m: m.ones(2, 3).t().contiguous(memory_format=m.preserve_format),
], ids=["from_numpy_scalar", "finfo_None", "empty_preserve", "contiguous_preserve"])
def test_arguments_pytorch_refuses(call):
    # Found by tools/random_calls.py: each returned something where PyTorch raises.
    assert_raises_like(lambda: call(ember), lambda: call(torch))
    assert ember.finfo().eps == torch.finfo().eps  # no argument: the default dtype's


# Note [a single int for int[]] (python/csrc/arg_parser.cpp); found by tools/random_calls.py, as out= numbers were.
@pytest.mark.parametrize("call", [
    lambda m: m.as_strided(m.ones(4), (2,), 1),
    lambda m: m.ones(4).as_strided((2,), 1),
    lambda m: m.empty_strided((2,), 1),
    lambda m: m.ge(m.ones(2), m.ones(2), out=2.5),
], ids=["as_strided", "as_strided_method", "empty_strided", "out_number"])
def test_an_int_is_no_int_list_and_a_number_no_out_tensor(call):
    assert_raises_like(lambda: call(ember), lambda: call(torch))


@pytest.mark.parametrize("call", [
    lambda m: m.arange(6.0).view(6),
    lambda m: m.arange(6.0).reshape(2, 3).permute(1, 0),
    lambda m: m.arange(6.0).reshape(2, 3).sum(1),
    lambda m: m.nn.functional.max_pool2d(m.arange(16.0).reshape(1, 1, 4, 4), 2),
    lambda m: m.zeros(3),
    lambda m: m.arange(6.0).reshape(2, 3).repeat(2),
], ids=["view", "permute", "sum_dim", "kernel_size", "zeros", "repeat"])
def test_an_int_still_stands_for_a_fixed_size_or_varargs_list(call):
    check(lambda: call(ember), lambda: call(torch))


def test_as_subclass_keeps_data_and_graph():
    # PyTorch's Tensor.as_subclass: an object of the subclass sharing the data, attached to the autograd graph.
    class Sub(ember.Tensor):
        pass

    class TSub(torch.Tensor):
        pass

    x, tx = ember.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
    y, ty = (x * 2).as_subclass(Sub), (tx * 2).as_subclass(TSub)
    assert type(y) is Sub and y.requires_grad and type(y.grad_fn).__name__ == type(ty.grad_fn).__name__
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    assert x.grad.tolist() == tx.grad.tolist()
    plain = ember.zeros(2)
    z = plain.as_subclass(Sub)
    z[0] = 5
    assert plain[0].item() == 5 and not z.requires_grad
    with pytest.raises(RuntimeError):
        plain.as_subclass(int)
    with pytest.raises(RuntimeError):
        torch.zeros(2).as_subclass(int)
