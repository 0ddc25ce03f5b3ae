"""ember.utils (PyTorch's torch.utils): hooks so far."""
from . import hooks  # noqa: F401
