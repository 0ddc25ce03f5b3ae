"""ember.utils (PyTorch's torch.utils): hooks, and data (datasets, samplers, DataLoader)."""
from . import hooks  # noqa: F401
from . import data  # noqa: F401
