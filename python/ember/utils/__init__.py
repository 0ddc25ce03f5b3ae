"""ember.utils (PyTorch's torch.utils): hooks, data (datasets, samplers, DataLoader), dlpack, and
checkpoint_tensors (the tensors of a torch.save file, read without running anything)."""
import importlib

from . import hooks  # noqa: F401
from ..serialization import checkpoint_tensors  # noqa: F401  (the migration path for pickled checkpoints)


def __getattr__(name):
    # ember.utils.data is imported on first use (it brings in NumPy and multiprocessing, a quarter of a second
    # that `import ember` need not pay); `ember.utils.data` after `import ember` still works.
    if name in ("data", "dlpack"):
        return importlib.import_module("." + name, __name__)
    raise AttributeError("module {!r} has no attribute {!r}".format(__name__, name))
