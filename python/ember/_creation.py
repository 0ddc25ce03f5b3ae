"""Tensors from memory that already exists: ``asarray``, ``frombuffer`` and ``from_file`` (PyTorch's names and
arguments). Memory is shared through NumPy's array interface (``from_numpy``) wherever PyTorch shares it."""
import builtins

from . import _C
from ._C import from_numpy, tensor

__all__ = ["asarray", "frombuffer", "from_file"]


def _numpy_dtype(dtype, op):
    import numpy as np

    name = repr(dtype).split(".")[-1]
    if name == "bfloat16":
        raise TypeError(f"{op}: bfloat16 has no NumPy type to read the buffer with; read it as int16 and convert")
    return np.dtype("bool" if name == "bool" else name)


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor sharing the memory of an object with Python's buffer protocol (bytearray, memoryview, array,
    mmap), read as ``dtype`` from byte ``offset``, ``count`` elements (all that remain when -1). A read-only buffer
    (bytes) gives a tensor whose writes raise, where PyTorch only warns.

    Raises:
        ValueError: an empty request (both the buffer's length and count 0), a count larger than what remains, or
            a remaining length that is not a multiple of the element size (PyTorch's messages).
    """
    import numpy as np

    np_dtype = _numpy_dtype(dtype, "frombuffer")
    view = memoryview(buffer).cast("B")
    length, size = view.nbytes, np_dtype.itemsize
    if length == 0 and count == 0 or length == 0 and count == -1:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset <= length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length ({length} "
                         "bytes) minus 1")
    if count < 0:
        if (length - offset) % size:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a "
                             f"multiple of element size ({size})")
        count = (length - offset) // size
    elif offset + count * size > length:
        raise ValueError(f"requested buffer length ({count} * {size} bytes) after offset ({offset} bytes) must not "
                         f"be greater than actual buffer length ({length} bytes)")
    t = from_numpy(np.frombuffer(view, dtype=np_dtype, count=count, offset=offset))
    return t.requires_grad_() if requires_grad else t


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """obj as a tensor, sharing memory when it can and copy is not True (PyTorch's torch.asarray).

    A tensor comes back as it is (converted when dtype differs); a NumPy array or an object with the buffer
    protocol shares its memory (a buffer is read as dtype, by default the default float dtype, as PyTorch);
    numbers and nested sequences are copied. ``copy=True`` always copies, ``copy=False`` never does.

    Raises:
        ValueError: ``copy=False`` where sharing is impossible (a sequence, a dtype conversion).
    """
    import numpy as np

    if isinstance(obj, _C._TensorBase):
        if dtype is not None and obj.dtype != dtype:
            if copy is False:
                raise ValueError(f"can't alias tensor with dtype '{obj.dtype}' into dtype '{dtype}'.")
            r = obj.to(dtype)
        else:
            r = obj.clone() if copy else obj
    elif isinstance(obj, np.ndarray):
        r = from_numpy(obj)
        if dtype is not None and r.dtype != dtype:
            if copy is False:
                raise ValueError(f"can't alias array with dtype '{obj.dtype}' into dtype '{dtype}'.")
            r = r.to(dtype)
        elif copy:
            r = r.clone()
    elif isinstance(obj, (bytes, bytearray, memoryview)):
        r = frombuffer(obj, dtype=_C.get_default_dtype() if dtype is None else dtype)
        if copy:
            r = r.clone()
    else:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        r = tensor(obj, dtype=dtype)
    if requires_grad and not r.requires_grad:
        r = r.requires_grad_() if r.is_leaf else r
    return r


def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None, pin_memory=False,
              requires_grad=False):
    """A 1-D tensor of ``size`` elements of dtype (default: the default float dtype) read from the start of a
    file. With ``shared=True`` the file is mapped: writes to the tensor go to the file; otherwise the bytes are
    read into private memory.

    Raises:
        RuntimeError: the file cannot be opened, or holds fewer than size elements (PyTorch's messages).
    """
    import os

    import numpy as np

    np_dtype = _numpy_dtype(_C.get_default_dtype() if dtype is None else dtype, "from_file")
    need = size * np_dtype.itemsize
    if size < 0:
        raise RuntimeError(f"from_file: size must be non-negative, got {size} (unable to map {need} bytes)")
    try:
        have = os.path.getsize(filename)
    except OSError as e:
        mode = "read-write" if shared else "read-only"
        raise RuntimeError(f"unable to open file <{filename}> in {mode} mode: {e.strerror} ({e.errno})") from None
    if have < need:
        raise RuntimeError(f"file <{filename}> size is smaller than the required mapping size <{need}>")
    if size == 0:
        a = np.empty(0, dtype=np_dtype)
    elif shared:
        a = np.memmap(filename, dtype=np_dtype, mode="r+", shape=(size,))
    else:
        a = np.fromfile(filename, dtype=np_dtype, count=size)
    t = from_numpy(a)
    return t.requires_grad_() if requires_grad else t
