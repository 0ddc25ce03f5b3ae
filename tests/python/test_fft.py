"""ember.fft and stft/istft against PyTorch 1.13 (issue 19): every function of torch.fft with every norm, n/s
trimming and padding, dims (negative, tuples), 0-dim, empty and non-contiguous inputs, float32/float64/
complex64/complex128/integral inputs and the dtypes of the results, the errors PyTorch raises, gradients
(gradcheck on float64/complex128 inputs and the same gradients as PyTorch's autograd), fftfreq/rfftfreq,
fftshift/ifftshift, and stft/istft (values, options, round trip, errors). The generic per-op test
(test_ops_generic.py, samples in op_samples.py) runs the entries' batteries besides."""
import warnings

import numpy as np
import pytest
import torch

import ember
from conftest import dtype_name, make_tensor, to_numpy, torch_like

ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
TWO_D = [f + "2" for f in ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]]
N_D = [f + "n" for f in ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]]
NORMS = [None, "backward", "forward", "ortho"]
REAL_ONLY = {"rfft", "ihfft", "rfft2", "ihfft2", "rfftn", "ihfftn"}  # complex inputs raise


def _tol(dtype):
    return 1e-10 if dtype_name(dtype) in ("float64", "complex128") else 2e-5


def assert_close(e, t, msg=""):
    """Same dtype and shape; values within a tolerance relative to the largest magnitude of PyTorch's result
    (an FFT's rounding error grows with the values it sums)."""
    assert dtype_name(e.dtype) == dtype_name(t.dtype), f"{msg}dtype {e.dtype} != {t.dtype}"
    assert tuple(e.shape) == tuple(t.shape), f"{msg}shape {tuple(e.shape)} != {tuple(t.shape)}"
    a, b = to_numpy(e), to_numpy(t)
    scale = max(1.0, float(np.abs(b).max())) if b.size else 1.0
    np.testing.assert_allclose(a, b, rtol=_tol(t.dtype), atol=_tol(t.dtype) * scale, err_msg=msg)


def both(shape, dtype, layout="contiguous", seed=0):
    """The same tensor in Ember and PyTorch (non-contiguous layouts keep their strides in both)."""
    x = make_tensor(shape, dtype, layout=layout, seed=seed)
    return x, torch_like(x)


def same_outcome(fe, ft, msg=""):
    """fe() matches ft(): the same result, or an exception of the same type."""
    try:
        t = ft()
    except Exception as exc:  # noqa: BLE001
        with pytest.raises(Exception) as info:
            fe()
        assert isinstance(info.value, type(exc)), \
            f"{msg}PyTorch raised {type(exc).__name__}({exc}); Ember {type(info.value).__name__}({info.value})"
        return None
    e = fe()
    assert_close(e, t, msg)
    return e


def _input_dtype(name, dtype):
    return "float32" if name in REAL_ONLY and dtype.startswith("complex") else dtype


# ---------------------------------------------------------------------------------------------- 1-D

@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128", "int64", "bool"])
@pytest.mark.parametrize("norm", NORMS)
def test_1d_dtypes_and_norms(name, dtype, norm):
    x, tx = both((3, 10), _input_dtype(name, dtype))
    same_outcome(lambda: getattr(ember.fft, name)(x, norm=norm), lambda: getattr(torch.fft, name)(tx, norm=norm))


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 25, 49, 64])
def test_1d_n_pads_and_trims(name, n):
    for dtype in ("float64", "complex128"):
        x, tx = both((2, 12), _input_dtype(name, dtype))
        same_outcome(lambda: getattr(ember.fft, name)(x, n=n), lambda: getattr(torch.fft, name)(tx, n=n),
                     f"{dtype} n={n}: ")


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 6, 7, 8, 11, 13, 30, 64, 97, 128, 210, 1000])
def test_1d_sizes(name, size):
    # every KissFFT radix (4, 2, 3, 5 and the generic one), the packed real paths (even sizes >= 4) and the
    # complex ones (odd sizes, 2)
    x, tx = both((3, size), _input_dtype(name, "float64"))
    same_outcome(lambda: getattr(ember.fft, name)(x), lambda: getattr(torch.fft, name)(tx))
    x32, tx32 = both((3, size), _input_dtype(name, "complex64"))
    same_outcome(lambda: getattr(ember.fft, name)(x32), lambda: getattr(torch.fft, name)(tx32))


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("dim", [0, 1, 2, -1, -2, -3])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
def test_1d_dims_and_layouts(name, dim, layout):
    x, tx = both((4, 6, 5), _input_dtype(name, "complex128"), layout)
    same_outcome(lambda: getattr(ember.fft, name)(x, dim=dim), lambda: getattr(torch.fft, name)(tx, dim=dim))
    same_outcome(lambda: getattr(ember.fft, name)(x, n=7, dim=dim), lambda: getattr(torch.fft, name)(tx, n=7, dim=dim))


def test_1d_expanded_and_offset_inputs():
    base = make_tensor((1, 8), "float64")
    x = base.expand(3, 8)
    tx = torch.from_numpy(to_numpy(base)).expand(3, 8)
    assert_close(ember.fft.fft(x), torch.fft.fft(tx))
    assert_close(ember.fft.fft(x, dim=0), torch.fft.fft(tx, dim=0))
    y = make_tensor((5, 8), "complex64")[1:, 2:]
    ty = torch.from_numpy(to_numpy(make_tensor((5, 8), "complex64")))[1:, 2:]
    assert_close(ember.fft.ifft(y), torch.fft.ifft(ty))


@pytest.mark.parametrize("name", ONE_D)
def test_1d_errors(name):
    fe, ft = getattr(ember.fft, name), getattr(torch.fft, name)
    x, tx = both((3, 8), "float32")
    c, tc = both((3, 8), "complex64")
    cases = [
        (lambda: fe(x, n=0), lambda: ft(tx, n=0)),
        (lambda: fe(x, n=-3), lambda: ft(tx, n=-3)),
        (lambda: fe(x, dim=2), lambda: ft(tx, dim=2)),
        (lambda: fe(x, dim=-3), lambda: ft(tx, dim=-3)),
        (lambda: fe(x, norm="bad"), lambda: ft(tx, norm="bad")),
        (lambda: fe(x.to(ember.float16)), lambda: ft(tx.half())),
        (lambda: fe(x.to(ember.bfloat16)), lambda: ft(tx.bfloat16())),
        (lambda: fe(c.to(ember.complex64)), lambda: ft(tc)),
        (lambda: fe(ember.tensor(2.0)), lambda: ft(torch.tensor(2.0))),
        (lambda: fe(ember.tensor(2.0), dim=1), lambda: ft(torch.tensor(2.0), dim=1)),
        (lambda: fe(ember.zeros(0, 3), dim=0), lambda: ft(torch.zeros(0, 3), dim=0)),
        (lambda: fe(ember.ones(1)), lambda: ft(torch.ones(1))),
    ]
    for i, (a, b) in enumerate(cases):
        same_outcome(a, b, f"case {i}: ")


def test_1d_error_messages():
    x = ember.ones(3, 8)
    with pytest.raises(RuntimeError, match=r"Invalid number of data points \(0\) specified"):
        ember.fft.fft(x, n=0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        ember.fft.fft(x, dim=2)
    with pytest.raises(RuntimeError, match='Invalid normalization mode: "bad"'):
        ember.fft.fft(x, norm="bad")
    with pytest.raises(RuntimeError, match="Unsupported dtype Half"):
        ember.fft.fft(x.to(ember.float16))
    with pytest.raises(RuntimeError, match="rfft expects a real input tensor, but got ComplexFloat"):
        ember.fft.rfft(x.to(ember.complex64))
    with pytest.raises(RuntimeError, match="ihfft expects a real input tensor"):
        ember.fft.ihfft(x.to(ember.complex64))


def test_empty_batches():
    for name in ONE_D:
        x, tx = both((0, 8), _input_dtype(name, "complex64"))
        assert_close(getattr(ember.fft, name)(x), getattr(torch.fft, name)(tx), name)
    x, tx = both((0, 4, 6), "float64")
    for name in ["fft2", "rfft2", "irfft2", "hfft2", "ihfft2"]:
        assert_close(getattr(ember.fft, name)(x), getattr(torch.fft, name)(tx), name)


# ---------------------------------------------------------------------------------------------- 2-D and n-D

@pytest.mark.parametrize("name", TWO_D + N_D)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128", "int32"])
@pytest.mark.parametrize("norm", NORMS)
def test_nd_dtypes_and_norms(name, dtype, norm):
    x, tx = both((3, 4, 6), _input_dtype(name, dtype))
    same_outcome(lambda: getattr(ember.fft, name)(x, norm=norm), lambda: getattr(torch.fft, name)(tx, norm=norm))


ND_ARGS = [dict(), dict(s=(3, 5)), dict(s=(8, 2)), dict(s=(-1, 7)), dict(s=(1, 1)), dict(dim=(0, 2)),
           dict(dim=(-1, 0)), dict(dim=(2, 1)), dict(s=(5, 3), dim=(0, -1)), dict(s=(4,), dim=(1,)), dict(dim=(1,)),
           dict(s=(2, 3, 4)), dict(dim=(0, 1, 2)), dict(dim=(2, 0, 1)), dict(s=(-1, -1))]


@pytest.mark.parametrize("name", N_D)
@pytest.mark.parametrize("args", ND_ARGS, ids=repr)
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_nd_s_and_dim(name, args, layout):
    x, tx = both((4, 5, 6), _input_dtype(name, "complex128"), layout)
    same_outcome(lambda: getattr(ember.fft, name)(x, **args), lambda: getattr(torch.fft, name)(tx, **args))
    if len(args.get("s", args.get("dim", (0, 0)))) == 2:
        name2 = name[:-1] + "2"
        same_outcome(lambda: getattr(ember.fft, name2)(x, **args), lambda: getattr(torch.fft, name2)(tx, **args),
                     f"{name2}: ")


@pytest.mark.parametrize("name", TWO_D + N_D)
def test_nd_errors(name):
    fe, ft = getattr(ember.fft, name), getattr(torch.fft, name)
    x, tx = both((3, 4), "float32")
    c, tc = both((3, 4), "complex64")
    cases = [
        (lambda: fe(x, s=(0, 2)), lambda: ft(tx, s=(0, 2))),
        (lambda: fe(x, s=(1, 2, 3)), lambda: ft(tx, s=(1, 2, 3))),
        (lambda: fe(x, s=(2, 2), dim=(0,)), lambda: ft(tx, s=(2, 2), dim=(0,))),
        (lambda: fe(x, dim=(0, 0)), lambda: ft(tx, dim=(0, 0))),
        (lambda: fe(x, dim=(0, -2)), lambda: ft(tx, dim=(0, -2))),
        (lambda: fe(x, dim=(0, 5)), lambda: ft(tx, dim=(0, 5))),
        (lambda: fe(x, norm="nope"), lambda: ft(tx, norm="nope")),
        (lambda: fe(x.to(ember.float16)), lambda: ft(tx.half())),
        (lambda: fe(c), lambda: ft(tc)),
        (lambda: fe(ember.tensor(1.5)), lambda: ft(torch.tensor(1.5))),
        (lambda: fe(x, s=(-2, 3)), lambda: ft(tx, s=(-2, 3))),
    ]
    if name in ("rfftn", "irfftn", "hfftn", "ihfftn"):
        cases += [(lambda: fe(x, dim=()), lambda: ft(tx, dim=())), (lambda: fe(x, s=()), lambda: ft(tx, s=()))]
    for i, (a, b) in enumerate(cases):
        same_outcome(a, b, f"case {i}: ")


def test_nd_messages():
    x = ember.ones(3, 4)
    with pytest.raises(RuntimeError, match="FFT dims must be unique"):
        ember.fft.fftn(x, dim=(0, 0))
    with pytest.raises(RuntimeError, match="dim and shape arguments must have the same length"):
        ember.fft.fftn(x, s=(2, 2), dim=(0,))
    with pytest.raises(RuntimeError, match="Got shape with 3 values but input tensor only has 2 dimensions"):
        ember.fft.fftn(x, s=(1, 2, 3))
    with pytest.raises(RuntimeError, match="rfftn must transform at least one axis"):
        ember.fft.rfftn(x, dim=())
    with pytest.raises(RuntimeError, match="rfftn expects a real-valued input tensor"):
        ember.fft.rfftn(x.to(ember.complex64))


def test_fftn_of_no_dims_is_a_copy():
    # PyTorch 1.13 returns uninitialised memory here (its c2c kernel transforms no dim into an empty tensor of the
    # right shape); Ember returns the promoted input, the identity transform
    x, _ = both((3, 4), "float32")
    e = ember.fft.fftn(x, dim=())
    np.testing.assert_array_equal(to_numpy(e), to_numpy(x).astype(np.complex64))
    e[0, 0] = 100
    assert x[0, 0].item() != 100


# ---------------------------------------------------------------------------------------------- out=

@pytest.mark.parametrize("name", ONE_D + TWO_D + N_D)
def test_out(name):
    x, tx = both((3, 4, 6), _input_dtype(name, "complex64" if name.startswith(("fft", "ifft")) else "float32"))
    t = getattr(torch.fft, name)(tx)
    out = ember.empty(0, dtype=getattr(ember, dtype_name(t.dtype)))
    r = getattr(ember.fft, name)(x, out=out)
    assert r is out
    assert_close(out, t)


def test_out_dtype_errors():
    x, tx = both((3, 8), "float32")
    same_outcome(lambda: ember.fft.rfft(x, out=ember.empty(0)), lambda: torch.fft.rfft(tx, out=torch.empty(0)))
    c, tc = both((3, 5), "complex64")
    same_outcome(lambda: ember.fft.irfft(c, out=ember.empty(0, dtype=ember.complex64)),
                 lambda: torch.fft.irfft(tc, out=torch.empty(0, dtype=torch.complex64)))
    with pytest.raises(RuntimeError, match="rfft expects a complex output tensor, but got Float"):
        ember.fft.rfft(x, out=ember.empty(0))


# ---------------------------------------------------------------------------------------------- inverses

@pytest.mark.parametrize("norm", NORMS)
def test_round_trips(norm):
    x, _ = both((4, 10), "float64")
    c, _ = both((4, 10), "complex128")
    f = ember.fft
    np.testing.assert_allclose(to_numpy(f.ifft(f.fft(c, norm=norm), norm=norm)), to_numpy(c), atol=1e-12)
    np.testing.assert_allclose(to_numpy(f.irfft(f.rfft(x, norm=norm), n=10, norm=norm)), to_numpy(x), atol=1e-12)
    np.testing.assert_allclose(to_numpy(f.hfft(f.ihfft(x, norm=norm), n=10, norm=norm)), to_numpy(x), atol=1e-12)
    np.testing.assert_allclose(to_numpy(f.irfftn(f.rfftn(x, norm=norm), s=(4, 10), norm=norm)), to_numpy(x),
                               atol=1e-12)
    np.testing.assert_allclose(to_numpy(f.ifftn(f.fftn(c, norm=norm), norm=norm)), to_numpy(c), atol=1e-12)


def test_against_numpy_large():
    rng = np.random.default_rng(0)
    for n in (1024, 4096, 3 * 5 * 7 * 11):
        a = rng.standard_normal(n)
        np.testing.assert_allclose(to_numpy(ember.fft.rfft(ember.from_numpy(a))), np.fft.rfft(a), atol=1e-9)
        np.testing.assert_allclose(to_numpy(ember.fft.fft(ember.from_numpy(a))), np.fft.fft(a), atol=1e-9)
        spec = np.fft.rfft(a)
        np.testing.assert_allclose(to_numpy(ember.fft.irfft(ember.from_numpy(spec), n=n)), a, atol=1e-12)


def test_threads_agree():
    x = make_tensor((64, 256), "complex128")
    old = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        one = to_numpy(ember.fft.fft(x, dim=0))
        ember.set_num_threads(2)
        two = to_numpy(ember.fft.fft(x, dim=0))
    finally:
        ember.set_num_threads(old)
    np.testing.assert_array_equal(one, two)


# ---------------------------------------------------------------------------------------------- gradients

GRAD_CASES = [
    ("fft", "complex128", dict()), ("fft", "float64", dict()), ("fft", "float64", dict(n=5)),
    ("fft", "complex128", dict(n=9, norm="ortho")), ("ifft", "complex128", dict(norm="forward")),
    ("ifft", "float64", dict(n=4)), ("rfft", "float64", dict()), ("rfft", "float64", dict(n=7, norm="ortho")),
    ("irfft", "complex128", dict()), ("irfft", "complex128", dict(n=5)), ("irfft", "complex128", dict(n=8)),
    ("irfft", "float64", dict(n=6, norm="forward")), ("hfft", "complex128", dict()), ("hfft", "complex128", dict(n=7)),
    ("ihfft", "float64", dict()), ("ihfft", "float64", dict(n=5, norm="ortho")),
    ("fft2", "complex128", dict()), ("ifft2", "float64", dict(s=(3, 5))), ("rfft2", "float64", dict()),
    ("irfft2", "complex128", dict()), ("irfft2", "complex128", dict(s=(4, 7))), ("hfft2", "complex128", dict()),
    ("ihfft2", "float64", dict()), ("fftn", "complex128", dict(dim=(0,))), ("rfftn", "float64", dict(norm="ortho")),
    ("irfftn", "complex128", dict(s=(2, 6))), ("hfftn", "complex128", dict(s=(3, 5))),
    ("ihfftn", "float64", dict(dim=(1, 0))),
]


@pytest.mark.parametrize("name, dtype, kwargs", GRAD_CASES, ids=lambda v: repr(v))
def test_gradcheck(name, dtype, kwargs):
    x = make_tensor((3, 6), dtype, low=-1.0, high=1.0).requires_grad_()
    fn = getattr(ember.fft, name)
    assert ember.autograd.gradcheck(lambda t: fn(t, **kwargs), (x,))


@pytest.mark.parametrize("name, dtype, kwargs", GRAD_CASES, ids=lambda v: repr(v))
def test_gradients_match_torch(name, dtype, kwargs):
    x = make_tensor((3, 6), dtype, low=-1.0, high=1.0, seed=3)
    tx = torch.from_numpy(to_numpy(x)).requires_grad_()
    x.requires_grad_()
    te = getattr(torch.fft, name)(tx, **kwargs)
    ee = getattr(ember.fft, name)(x, **kwargs)
    g = make_tensor(tuple(te.shape), dtype_name(te.dtype), seed=5)
    te.backward(torch.from_numpy(to_numpy(g)))
    ee.backward(g)
    assert_close(x.grad, tx.grad)


def test_gradgradcheck():
    x = make_tensor((3, 6), "complex128", low=-1.0, high=1.0).requires_grad_()
    assert ember.autograd.gradgradcheck(lambda t: ember.fft.irfft(t, n=7), (x,))
    y = make_tensor((3, 6), "float64", low=-1.0, high=1.0).requires_grad_()
    assert ember.autograd.gradgradcheck(lambda t: ember.fft.rfft2(t), (y,))


def test_grad_fn_names():
    x = make_tensor((4,), "float64").requires_grad_()
    assert ember.fft.rfft(x).grad_fn.name() == "FftR2CBackward0"
    assert ember.fft.irfft(ember.fft.rfft(x)).grad_fn.name() == "FftC2RBackward0"
    assert ember.fft.fft(x.to(ember.complex128)).grad_fn.name() == "FftC2CBackward0"


# ---------------------------------------------------------------------------------------------- helpers

@pytest.mark.parametrize("n", [0, 1, 2, 5, 8, 11])
@pytest.mark.parametrize("d", [1.0, 0.5, 3])
def test_fftfreq(n, d):
    assert_close(ember.fft.fftfreq(n, d), torch.fft.fftfreq(n, d))
    assert_close(ember.fft.rfftfreq(n, d), torch.fft.rfftfreq(n, d))
    assert_close(ember.fft.fftfreq(n, d, dtype=ember.float64), torch.fft.fftfreq(n, d, dtype=torch.float64))
    assert_close(ember.fft.rfftfreq(n, d=d, dtype=ember.float16), torch.fft.rfftfreq(n, d=d, dtype=torch.float16))


def test_fftfreq_options_and_errors():
    same_outcome(lambda: ember.fft.fftfreq(5, dtype=ember.int64), lambda: torch.fft.fftfreq(5, dtype=torch.int64))
    same_outcome(lambda: ember.fft.fftfreq(-1), lambda: torch.fft.fftfreq(-1))
    same_outcome(lambda: ember.fft.rfftfreq(4, 0.0), lambda: torch.fft.rfftfreq(4, 0.0))
    out = ember.empty(0, dtype=ember.float64)
    assert ember.fft.fftfreq(6, 0.1, out=out) is out
    assert_close(out, torch.fft.fftfreq(6, 0.1, dtype=torch.float64))
    same_outcome(lambda: ember.fft.fftfreq(5, out=ember.empty(0, dtype=ember.int64)),
                 lambda: torch.fft.fftfreq(5, out=torch.empty(0, dtype=torch.int64)))
    assert ember.fft.fftfreq(4, requires_grad=True).requires_grad


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
@pytest.mark.parametrize("dim", [None, 0, 1, -1, (0, 1), (1, 0), (0, 0), (2,)])
@pytest.mark.parametrize("shape", [(5, 6), (4, 7), (0, 3), (1, 1)])
def test_shifts(name, dim, shape):
    x, tx = both(shape, "int64")
    same_outcome(lambda: getattr(ember.fft, name)(x, dim=dim), lambda: getattr(torch.fft, name)(tx, dim=dim))
    c, tc = both(shape, "complex64", "transposed")
    same_outcome(lambda: getattr(ember.fft, name)(c, dim=dim), lambda: getattr(torch.fft, name)(tc, dim=dim))


def test_shifts_inverse_and_grad():
    x = make_tensor((5, 6), "float64").requires_grad_()
    np.testing.assert_array_equal(to_numpy(ember.fft.ifftshift(ember.fft.fftshift(x))), to_numpy(x))
    assert ember.autograd.gradcheck(lambda t: ember.fft.fftshift(t, dim=1), (x,))
    same_outcome(lambda: ember.fft.fftshift(ember.tensor(2.0)), lambda: torch.fft.fftshift(torch.tensor(2.0)))


def test_module_surface():
    assert set(torch.fft.__all__) <= set(ember.fft.__all__)  # (PyTorch's list lacks hfft2, ihfft2, hfftn, ihfftn)
    for name in ember.fft.__all__:
        assert callable(getattr(ember.fft, name)) and hasattr(torch.fft, name)
    assert ember.fft.Tensor is ember.Tensor


# ---------------------------------------------------------------------------------------------- stft / istft

def _stft_both(shape, dtype, seed=0, **kwargs):
    x, tx = both(shape, dtype, seed=seed)
    ekw = {k: (to_e(v) if isinstance(v, torch.Tensor) else v) for k, v in kwargs.items()}
    return (lambda: ember.stft(x, **ekw)), (lambda: torch.stft(tx, **kwargs))


def to_e(t):
    return ember.from_numpy(to_numpy(t).copy())


STFT_CASES = [
    dict(n_fft=16, return_complex=True),
    dict(n_fft=16, hop_length=3, return_complex=True),
    dict(n_fft=16, win_length=10, return_complex=True),
    dict(n_fft=16, window=torch.hann_window(16, dtype=torch.float64), return_complex=True),
    dict(n_fft=15, win_length=8, window=torch.hamming_window(8, dtype=torch.float64), hop_length=5,
         return_complex=True),
    dict(n_fft=16, center=False, return_complex=True),
    dict(n_fft=16, pad_mode="constant", return_complex=True),
    dict(n_fft=16, pad_mode="replicate", return_complex=True),
    dict(n_fft=16, pad_mode="circular", return_complex=True),
    dict(n_fft=16, normalized=True, return_complex=True),
    dict(n_fft=16, onesided=False, return_complex=True),
    dict(n_fft=16, return_complex=False),
    dict(n_fft=64, return_complex=True),
    dict(n_fft=16, window=torch.hann_window(16, dtype=torch.float64).to(torch.complex128) * (1 + 0.5j),
         return_complex=True),
]


@pytest.mark.parametrize("kwargs", STFT_CASES, ids=lambda v: repr({k: v[k] for k in v if k != "window"}))
@pytest.mark.parametrize("shape", [(64,), (3, 50)])
def test_stft_matches_torch(kwargs, shape):
    fe, ft = _stft_both(shape, "float64", **kwargs)
    same_outcome(fe, ft)


@pytest.mark.parametrize("dtype", ["float32", "complex64", "complex128"])
def test_stft_dtypes(dtype):
    kw = dict(n_fft=8, return_complex=True)
    if dtype.startswith("complex"):
        kw["onesided"] = False
    fe, ft = _stft_both((40,), dtype, **kw)
    same_outcome(fe, ft)
    fe, ft = _stft_both((40,), dtype, n_fft=8, return_complex=True, pad_mode="constant")
    same_outcome(fe, ft)


def test_stft_method_and_warning():
    x, tx = both((32,), "float32")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_close(x.stft(8, return_complex=True), tx.stft(8, return_complex=True))
    with pytest.warns(UserWarning, match="return_complex"):
        r = ember.stft(x, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_close(r, torch.stft(tx, 8))
    assert r.dtype == ember.float32 and tuple(r.shape) == (5, 17, 2)


STFT_ERRORS = [
    dict(n_fft=100, center=False, return_complex=True), dict(n_fft=0, return_complex=True),
    dict(n_fft=16, hop_length=0, return_complex=True), dict(n_fft=16, win_length=20, return_complex=True),
    dict(n_fft=16, window=torch.ones(3), return_complex=True), dict(n_fft=16, window=torch.ones(4, 4),
                                                                    return_complex=True),
    dict(n_fft=16, onesided=True, window=torch.ones(16, dtype=torch.complex64), return_complex=True),
]


@pytest.mark.parametrize("kwargs", STFT_ERRORS, ids=lambda v: repr({k: v[k] for k in v if k != "window"}))
def test_stft_errors(kwargs):
    fe, ft = _stft_both((64,), "float32", **kwargs)
    same_outcome(fe, ft)


def test_stft_rank_errors():
    same_outcome(lambda: ember.stft(ember.ones(2, 2, 64), 16, return_complex=True),
                 lambda: torch.stft(torch.ones(2, 2, 64), 16, return_complex=True))
    same_outcome(lambda: ember.stft(ember.ones(64, dtype=ember.int32), 16, return_complex=True, pad_mode="constant"),
                 lambda: torch.stft(torch.ones(64, dtype=torch.int32), 16, return_complex=True, pad_mode="constant"))
    with pytest.raises(RuntimeError, match="expected a 1D or 2D tensor"):
        ember.stft(ember.ones(2, 2, 64), 16, return_complex=True)


ISTFT_CASES = [
    dict(n_fft=16), dict(n_fft=16, hop_length=3), dict(n_fft=16, win_length=12, hop_length=4),
    dict(n_fft=16, window="hann"), dict(n_fft=16, window="hann", normalized=True),
    dict(n_fft=16, center=False, window="hann"), dict(n_fft=16, length=50), dict(n_fft=16, length=80),
    dict(n_fft=15, hop_length=5),
]


def _window(kw, lib, dtype):
    kw = dict(kw)
    if kw.get("window") == "hann":
        kw["window"] = lib.hann_window(kw.get("win_length", kw["n_fft"]), dtype=dtype)
    return kw


@pytest.mark.parametrize("kwargs", ISTFT_CASES, ids=repr)
@pytest.mark.parametrize("shape", [(64,), (2, 60)])
def test_istft_matches_torch_and_round_trips(kwargs, shape):
    x, tx = both(shape, "float64")
    skw = {k: v for k, v in kwargs.items() if k not in ("length",)}
    te_kw, tt_kw = _window(skw, ember, ember.float64), _window(skw, torch, torch.float64)
    spec_t = torch.stft(tx, return_complex=True, **tt_kw)
    spec_e = ember.stft(x, return_complex=True, **te_kw)
    assert_close(spec_e, spec_t)
    ekw, tkw = _window(kwargs, ember, ember.float64), _window(kwargs, torch, torch.float64)
    r = same_outcome(lambda: ember.istft(spec_e, **ekw), lambda: torch.istft(spec_t, **tkw))
    if r is not None and "length" not in kwargs and kwargs.get("center", True):
        np.testing.assert_allclose(to_numpy(r), to_numpy(x)[..., :r.shape[-1]], atol=1e-9)


def test_istft_options():
    x, tx = both((64,), "float64")
    spec_e = ember.stft(x, 16, return_complex=True, onesided=False)
    spec_t = torch.stft(tx, 16, return_complex=True, onesided=False)
    same_outcome(lambda: ember.istft(spec_e, 16, onesided=False), lambda: torch.istft(spec_t, 16, onesided=False))
    same_outcome(lambda: ember.istft(spec_e, 16, return_complex=True),
                 lambda: torch.istft(spec_t, 16, return_complex=True))
    same_outcome(lambda: spec_e.istft(16), lambda: spec_t.istft(16))
    # the old real format (view_as_real's last dim of 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_outcome(lambda: ember.istft(ember.view_as_real(spec_e), 16),
                     lambda: torch.istft(torch.view_as_real(spec_t), 16))


def test_istft_errors():
    x, tx = both((64,), "float32")
    se = ember.stft(x, 16, return_complex=True)
    st = torch.stft(tx, 16, return_complex=True)
    cases = [dict(n_fft=16, window=ember.zeros(16)), dict(n_fft=15), dict(n_fft=16, hop_length=20),
             dict(n_fft=16, win_length=20), dict(n_fft=16, window=ember.ones(5)),
             dict(n_fft=16, return_complex=True)]
    for kw in cases:
        tkw = {k: (torch.from_numpy(to_numpy(v)) if isinstance(v, ember.Tensor) else v) for k, v in kw.items()}
        same_outcome(lambda: ember.istft(se, **kw), lambda: torch.istft(st, **tkw), f"{kw}: ")
    same_outcome(lambda: ember.istft(se[:0], 16), lambda: torch.istft(st[:0], 16))
    same_outcome(lambda: ember.istft(se[0], 16), lambda: torch.istft(st[0], 16))
    with pytest.raises(RuntimeError, match="window overlap add min"):
        ember.istft(se, 16, window=ember.zeros(16))


def test_stft_istft_gradients():
    x = make_tensor((40,), "float64", low=-1.0, high=1.0).requires_grad_()
    w = ember.hann_window(8, dtype=ember.float64)
    assert ember.autograd.gradcheck(lambda t: ember.stft(t, 8, window=w, return_complex=True), (x,))
    spec = ember.stft(x.detach(), 8, window=w, return_complex=True).requires_grad_()
    assert ember.autograd.gradcheck(lambda s: ember.istft(s, 8, window=w), (spec,))
    win = ember.hann_window(8, dtype=ember.float64).add(0.1).requires_grad_()
    assert ember.autograd.gradcheck(lambda v: ember.stft(x.detach(), 8, window=v, return_complex=True), (win,))
