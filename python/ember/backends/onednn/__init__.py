"""oneDNN, the provider of float32 matrix products with more than one row and column (mm, bmm, addmm,
baddbmm, matmul, linear, and the GEMMs of convolutions); it ranks above OpenBLAS (Note [onednn gemm] in
ember/backends/onednn/OneDNN.h). It also runs float32 1-D and 2-D convolutions and their gradients with its
direct kernels where they beat im2col + GEMM (Note [onednn conv] in ember/backends/onednn/Convolution.cpp).

``ember.backends.onednn.enabled``      True by default; set it to False to run the next provider (OpenBLAS).
``ember.backends.onednn.flags(enabled=False)``  the same for a ``with`` block.
``ember.backends.onednn.config()``     oneDNN's version, CPU runtime and the path of the loaded library.
"""
from ... import _C
from .. import _install


def config():
    """oneDNN's version, its CPU threading runtime and the path of the loaded library."""
    return _C._onednn_config()


_install(__name__, "onednn")
