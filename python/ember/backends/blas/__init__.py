"""OpenBLAS, the provider of float32/float64 matrix products (mm, bmm, mv, dot, addmm, baddbmm, matmul,
linear).

``ember.backends.blas.enabled``      True by default; set it to False to run the reference kernel instead.
``ember.backends.blas.flags(enabled=False)``  the same for a ``with`` block.
``ember.backends.blas.config()``     OpenBLAS's build configuration, its chosen core and the library path.
"""
from ... import _C
from .. import _install


def config():
    """OpenBLAS's build configuration, the core it chose and the path of the loaded library."""
    return _C._blas_config()


_install(__name__, "blas")
