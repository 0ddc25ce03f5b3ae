"""The layers of ember.nn, in files named like PyTorch's torch/nn/modules."""
from .module import Module  # noqa: F401
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict  # noqa: F401
from .linear import Identity, Linear  # noqa: F401
from .conv import Conv1d, Conv2d  # noqa: F401
from .pooling import MaxPool2d, AvgPool2d, AdaptiveAvgPool2d  # noqa: F401
from .batchnorm import BatchNorm1d, BatchNorm2d  # noqa: F401
from .normalization import LayerNorm, GroupNorm  # noqa: F401
from .dropout import Dropout  # noqa: F401
from .sparse import Embedding  # noqa: F401
from .flatten import Flatten, Unflatten  # noqa: F401
from .activation import (  # noqa: F401
    Threshold, ReLU, ReLU6, Hardtanh, LeakyReLU, ELU, CELU, SELU, GELU, SiLU, Mish, Sigmoid, Tanh, Softplus,
    Hardsigmoid, Hardswish, LogSigmoid, GLU, Softmax, LogSoftmax, Softmin, Softsign, Tanhshrink)
from .loss import (  # noqa: F401
    L1Loss, MSELoss, NLLLoss, CrossEntropyLoss, BCELoss, BCEWithLogitsLoss, SmoothL1Loss, HuberLoss)

__all__ = [name for name in dir() if name[0].isupper()]
