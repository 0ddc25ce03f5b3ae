"""ember.fft: PyTorch 1.13's torch.fft, the discrete Fourier transforms.

Every function is an op of the database that PyTorch keeps in ``torch._C._fft`` as ``fft_<name>`` (declared
with ``python_module: fft`` in ember/ops/ops_fft.yaml, so it lives in ``ember._C._fft``); this module gives them
their public names, as ``torch.fft`` does. The transforms run on KissFFT (ember/kernels/cpu/fft.cpp) for
float32/float64 and complex64/complex128 inputs (integral and bool inputs promote to the default dtype; float16
and bfloat16 raise RuntimeError, as PyTorch's CPU transforms do), with ``norm`` "backward" (the default),
"forward" or "ortho", and are differentiable (the adjoint transforms, as PyTorch's).
"""
from .. import _C
from .._tensor import Tensor  # noqa: F401  (torch.fft.Tensor: the tensor type, as PyTorch's module re-exports)

_fft = _C._fft

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn", "irfftn",
           "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

globals().update({_name: getattr(_fft, "fft_" + _name) for _name in __all__})
__all__ = __all__ + ["Tensor"]
