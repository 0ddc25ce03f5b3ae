"""ember.nn.utils: gradient clipping, parameter/vector conversion, weight and spectral normalization,
parametrizations, stateless calls, BatchNorm fusion and skip_init (PyTorch's torch.nn.utils; its rnn part is
ember.nn.utils.rnn)."""
from . import parametrizations, parametrize, stateless  # noqa: F401
from . import rnn  # noqa: F401
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_  # noqa: F401
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights  # noqa
from .init import skip_init  # noqa: F401
from .memory_format import convert_conv2d_weight_memory_format  # noqa: F401
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401
from .weight_norm import remove_weight_norm, weight_norm  # noqa: F401

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "convert_conv2d_weight_memory_format",
           "fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights",
           "parameters_to_vector", "parametrizations", "parametrize", "remove_spectral_norm", "remove_weight_norm",
           "rnn", "skip_init", "spectral_norm", "stateless", "vector_to_parameters", "weight_norm"]
