"""ember.utils.gguf: GGUF files (ggml's format for llama.cpp and friends) read by Ember's C++ library
(ember/serialize/Gguf.h, Note [gguf format]): the metadata and the tensors, ggml's block-quantized types (Q4_0,
Q4_1, Q5_0, Q5_1, Q8_0, Q8_1, the K-quants Q2_K-Q8_K, IQ4_NL, IQ4_XS; Note [ggml block types]) dequantized to
float32, F32/F16/BF16/F64 and integer tensors as they are (memory-mapped).

    metadata, state_dict = ember.utils.gguf.load("model.gguf")
"""
import collections

from .. import _C

__all__ = ["load", "GGUFFile"]


class GGUFFile:
    """An opened GGUF file: ``version``, ``metadata`` (a dict: int, float, bool, str or lists of them),
    ``tensor_names()``, ``tensor_type(name)`` (the ggml type, e.g. ``"Q8_0"``), ``get_tensor(name)``.

    ``f`` is a path (the file is memory-mapped) or a binary file-like object (read whole).

    Raises:
        FileNotFoundError, IsADirectoryError: a path with no file.
        RuntimeError: a file that breaks the format (naming the file, the byte offset and the problem).
    """

    def __init__(self, f):
        from ..serialization import _classes, _source
        source, name = _source(f)
        self._file = _C._gguf_open(source, name)
        self.version = self._file.version
        self.metadata = self._file.metadata(_classes())

    def tensor_names(self):
        return self._file.tensor_names()

    def tensor_type(self, name):
        return self._file.tensor_type(name)

    def get_tensor(self, name):
        return self._file.get_tensor(name)


def load(f):
    """(metadata, state_dict) of a GGUF file (a path or a binary file-like object): the metadata dict and an
    OrderedDict name -> tensor in file order, quantized tensors dequantized to float32. A tensor's shape is
    GGUF's ``ne`` reversed (row-major, as PyTorch's)."""
    g = GGUFFile(f)
    return g.metadata, collections.OrderedDict((k, g.get_tensor(k)) for k in g.tensor_names())
