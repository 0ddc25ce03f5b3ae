"""ember.testing: comparing results and making test inputs (PyTorch's torch.testing)."""
from ._comparison import assert_close
from ._creation import make_tensor

__all__ = ["assert_close", "make_tensor"]
