"""ember.special: PyTorch 1.13's torch.special.

Every function is an op of the database that PyTorch keeps in ``torch._C._special`` as ``special_<name>``
(declared with ``python_module: special``, so it lives in ``ember._C._special``); this module gives them their
public names, as ``torch.special`` does. Many are aliases of ``ember`` functions (``expit`` of ``sigmoid``,
``gammaln`` of ``lgamma``, ``psi`` of ``digamma``, ...; Note [aliases] in tools/opgen/model.py). The formulas
and their sources are in ember/kernels/cpu/SpecialFunctions.h.
"""
from .. import _C
from .._tensor import Tensor  # noqa: F401  (torch.special.Tensor: the tensor type, as PyTorch's module re-exports)

_special = _C._special

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t",
           "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w", "digamma", "entr", "erf",
           "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln",
           "hermite_polynomial_h", "hermite_polynomial_he", "i0", "i0e", "i1", "i1e", "laguerre_polynomial_l",
           "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp", "modified_bessel_i0",
           "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1", "multigammaln", "ndtr", "ndtri",
           "polygamma", "psi", "round", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
           "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "scaled_modified_bessel_k0",
           "scaled_modified_bessel_k1", "sinc", "softmax", "spherical_bessel_j0", "xlog1py", "xlogy", "zeta"]

globals().update({_name: getattr(_special, "special_" + _name) for _name in __all__})
