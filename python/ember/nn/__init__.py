"""ember.nn: neural-network building blocks (PyTorch's torch.nn). For now only the functional interface,
``ember.nn.functional``."""
from . import functional  # noqa: F401
