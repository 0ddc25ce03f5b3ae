"""Tensor memory shared between processes: the segments behind ``Tensor.share_memory_`` and ``is_shared``, and what
``ember.multiprocessing``'s reducers send and rebuild.

Note [shared memory segments]
A segment is a file in /dev/shm made with a temporary name, sized with ftruncate and mapped MAP_SHARED; its name
is unlinked at once, so only open descriptors and mappings keep the memory alive and nothing is left behind, even
after ``kill -9``. The segment keeps its file descriptor: it is what travels to another process (PyTorch's
'file_descriptor' strategy), which maps the same pages. The mapping is a NumPy array turned into a tensor with
``from_numpy`` (the tensor's storage holds the mapping alive); a tensor moves onto a segment with ``set_``, so the
Python object (a module's Parameter, say) stays the same. A storage cannot be moved in place from Python, so views
made before the move keep the old private memory (PyTorch moves the storage itself, and its views with it).

A registry maps a segment's base address to the segment, weakly: an entry lives as long as the mapping, and a
live mapping's address cannot be reused, so a tensor is shared exactly when its storage starts at a registered
address. A second registry, by the file's (device, inode), lets a process that receives the same segment twice
(or gets its own segment back) reuse one mapping, so views stay views of one memory.
"""
import mmap
import os
import tempfile
import weakref

import numpy as np

from . import _C

_SHM_DIR = "/dev/shm"
_by_address = weakref.WeakValueDictionary()  # base address of the mapping -> _Segment
_by_inode = weakref.WeakValueDictionary()  # (st_dev, st_ino) of the file -> _Segment


class _Segment(mmap.mmap):
    """A MAP_SHARED mapping of a whole unlinked file, with the file's descriptor (``fd``, closed when the mapping
    is collected), its identity (``inode``) and the base address of the mapping (``address``)."""

    def __new__(cls, fd):
        size = os.fstat(fd).st_size
        self = super().__new__(cls, fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        self.fd = fd
        stat = os.fstat(fd)
        self.inode = (stat.st_dev, stat.st_ino)
        self.address = self.as_bytes().data_ptr()  # (no tensor is kept here: it would hold self alive forever)
        weakref.finalize(self, os.close, fd)
        _by_address[self.address] = self
        _by_inode[self.inode] = self
        return self

    def as_bytes(self):
        """A uint8 tensor over the whole segment (its storage holds the mapping alive)."""
        return _C.from_numpy(np.frombuffer(self, dtype=np.uint8))


def new_segment(nbytes):
    """A new zero-filled segment of nbytes (at least one) bytes. Raises OSError when /dev/shm (or the temporary
    directory, where there is no /dev/shm) cannot hold it."""
    fd, name = tempfile.mkstemp(prefix="ember_shm_", dir=_SHM_DIR if os.path.isdir(_SHM_DIR) else None)
    try:
        os.unlink(name)
        os.ftruncate(fd, max(int(nbytes), 1))
        return _Segment(fd)
    except BaseException:
        os.close(fd)
        raise


def segment_from_fd(fd):
    """The segment of a received file descriptor (which this function owns from then on): the mapping this
    process already has of that file, or a new one."""
    stat = os.fstat(fd)
    seg = _by_inode.get((stat.st_dev, stat.st_ino))
    if seg is not None:
        os.close(fd)
        return seg
    return _Segment(fd)


def _storage_address(t):
    """The address where t's storage starts (0 for a storage of no bytes)."""
    _, nbytes = _C._storage_info(t)
    itemsize = t.element_size()
    if nbytes < itemsize:
        return 0
    if t.numel() > 0:
        return t.data_ptr() - t.storage_offset() * itemsize
    probe = _C._functions["empty"]((0,), dtype=t.dtype)  # an empty tensor has no data pointer: look at element 0
    probe.set_(t.detach(), 0, (1,), (1,))
    return probe.data_ptr()


def segment_of(t):
    """The segment holding t's storage, or None when t's memory is private to this process."""
    return _by_address.get(_storage_address(t))


def storage_extent(offset, size, stride):
    """How many elements of its storage a tensor of this offset, size and stride reaches."""
    if any(s == 0 for s in size):
        return offset
    return offset + sum((s - 1) * st for s, st in zip(size, stride)) + 1


def view_of_segment(seg, dtype, offset, size, stride):
    """A tensor of dtype, with these storage offset, size and stride, over segment seg (a copy of nothing)."""
    from .autograd import no_grad

    itemsize = _C._functions["empty"]((0,), dtype=dtype).element_size()
    whole = seg.as_bytes()[:len(seg) // itemsize * itemsize].view(dtype)
    t = _C._functions["empty"]((0,), dtype=dtype)
    with no_grad():
        t.set_(whole, offset, tuple(size), tuple(stride))
    return t


def share_(t):
    """Moves t's values into a new segment and points t at it (same offset, sizes and strides); see Note [shared
    memory segments]. Does nothing when t is already shared. Returns t."""
    from .autograd import no_grad

    if segment_of(t) is not None:
        return t
    offset, size, stride = t.storage_offset(), tuple(t.shape), tuple(t.stride())
    itemsize = t.element_size()
    # at least one element, so that an empty tensor also has a storage address that names its segment
    seg = new_segment(max(storage_extent(offset, size, stride), 1) * itemsize)
    shared = view_of_segment(seg, t.dtype, offset, size, stride)
    with no_grad():
        shared.copy_(t)
        t.set_(shared, offset, size, stride)
    return t
