"""The IDX file format of MNIST-style data sets (a thin wrapper over the C++ reader ember::data::read_idx)."""
import os

from .. import _C


def read_idx(path):
    """Reads an IDX file, plain or gzip-compressed (told apart by content, not by name), into a new contiguous
    tensor.

    The dtype follows the file's type code (0x08 uint8, 0x09 int8, 0x0B int16, 0x0C int32, 0x0D float32,
    0x0E float64) and the shape is the header's dimensions; values are converted from the file's big-endian
    order. ``path`` is a ``str`` or ``os.PathLike``.

    Raises RuntimeError naming the file and the fault: missing or unreadable file, truncated header, bad magic
    number, unknown type code, dimensions that overflow or that the file cannot hold, truncated data
    ("need N bytes, got M"), trailing bytes after the data, corrupt gzip stream.
    """
    return _C._read_idx(os.fspath(path))
