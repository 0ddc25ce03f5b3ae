"""ember.utils (PyTorch's torch.utils): hooks, and data (datasets, samplers, DataLoader)."""
import importlib

from . import hooks  # noqa: F401


def __getattr__(name):
    # ember.utils.data is imported on first use (it brings in NumPy and multiprocessing, a quarter of a second
    # that `import ember` need not pay); `ember.utils.data` after `import ember` still works.
    if name == "data":
        return importlib.import_module(".data", __name__)
    raise AttributeError("module {!r} has no attribute {!r}".format(__name__, name))
