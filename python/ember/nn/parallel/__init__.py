"""ember.nn.parallel: PyTorch's torch.nn.parallel for a CPU-only library (see data_parallel.py)."""
from .data_parallel import DataParallel, data_parallel

__all__ = ["DataParallel", "data_parallel"]
