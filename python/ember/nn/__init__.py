"""ember.nn: neural-network building blocks (PyTorch's torch.nn): Module and the layers (ember.nn.modules),
Parameter, the containers, ``ember.nn.functional`` (the stateless functions over the ops of the database),
``ember.nn.init`` and ``ember.nn.utils``."""
from . import functional  # noqa: F401
from .parameter import Parameter  # noqa: F401
from .parameter import UninitializedParameter, UninitializedBuffer  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from . import init  # noqa: F401
from . import utils  # noqa: F401
from . import parallel  # noqa: F401
from .parallel import DataParallel  # noqa: F401

__all__ = ["Parameter", "UninitializedParameter", "UninitializedBuffer", "functional", "init", "utils", "parallel",
           "DataParallel"] + \
    list(_modules_all)
