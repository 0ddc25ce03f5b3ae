"""ember.safetensors: the safetensors format with the API of ``safetensors.torch`` (save_file, load_file, save,
load, safe_open), read and written by Ember's C++ library (ember/serialize/Safetensors.h; Note [safetensors
format] says how strictly files are checked). Reading from a path maps the file: tensors share its pages
(copy-on-write; the file is never changed) unless their data is misaligned for their dtype, then they are copied.

    from ember.safetensors import save_file, safe_open
    save_file({"w": ember.ones(2, 3)}, "model.safetensors", metadata={"format": "pt"})
    with safe_open("model.safetensors", framework="pt") as f:
        w = f.get_tensor("w")
"""
import os

from . import _C

__all__ = ["save_file", "load_file", "save", "load", "safe_open"]


def _items(tensors):
    if not isinstance(tensors, dict):
        raise TypeError(f"safetensors: expected a dict of str -> Tensor, got {type(tensors).__name__}")
    for k in tensors:
        if not isinstance(k, str):
            raise TypeError(f"safetensors: keys must be str, got {type(k).__name__}")
    return list(tensors.items())


def _metadata(metadata):
    if metadata is None:
        return {}
    for k, v in metadata.items():
        if not isinstance(k, str) or not isinstance(v, str):
            raise TypeError("safetensors: metadata must map str to str")
    return dict(metadata)


def save_file(tensors, filename, metadata=None):
    """Writes tensors (a dict of str -> contiguous CPU tensor) and metadata (str -> str) to filename.

    Raises:
        ValueError: a non-contiguous tensor (naming it; call ``.contiguous()``), an empty name.
        TypeError: a key or value of the wrong type.
    """
    _C._safetensors_save(_items(tensors), _metadata(metadata), os.fsdecode(os.fspath(filename)))


def save(tensors, metadata=None):
    """The bytes of a safetensors file holding tensors and metadata (see save_file)."""
    return _C._safetensors_save(_items(tensors), _metadata(metadata), None)


def load_file(filename, device="cpu"):
    """Every tensor of the file, as a dict name -> tensor (memory-mapped). device: only "cpu".

    Raises:
        RuntimeError: a file that breaks the format (naming the file and the problem).
    """
    with safe_open(filename, framework="pt", device=device) as f:
        return {k: f.get_tensor(k) for k in f.keys()}


def load(data):
    """Every tensor of a safetensors file held in bytes, as a dict name -> tensor."""
    f = _C._safetensors_open(bytes(data), "<bytes>")
    return {k: f.get_tensor(k) for k in f.keys()}


class safe_open:
    """Opens a safetensors file lazily: ``keys()``, ``get_tensor(name)`` (read on demand from the mapped file),
    ``metadata()``. A context manager, as safetensors' safe_open. framework: "pt" (or "ember", "torch");
    device: "cpu"."""

    def __init__(self, filename, framework="pt", device="cpu"):
        if framework not in ("pt", "torch", "ember", "numpy", "np"):
            raise ValueError(f"safetensors: framework {framework!r} is not supported (use 'pt')")
        if str(device) not in ("cpu", "cpu:0"):
            raise RuntimeError(f"safetensors: device {device!r}: Ember has only the CPU device")
        path = os.fsdecode(os.fspath(filename))
        self._file = _C._safetensors_open(path, path)
        self._numpy = framework in ("numpy", "np")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def keys(self):
        """The tensor names, sorted."""
        return self._file.keys()

    def metadata(self):
        """The header's ``__metadata__`` (a dict of str -> str; None when the file has none, as safetensors)."""
        return self._file.metadata() or None

    def get_tensor(self, name):
        """The tensor ``name``. Raises RuntimeError when there is none."""
        t = self._file.get_tensor(name)
        return t.numpy() if self._numpy else t
