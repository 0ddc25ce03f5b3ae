"""How ``ember.multiprocessing`` pickles tensors for another process: by shared memory, not by value.

A tensor (or Parameter) pickled by ``multiprocessing``'s ForkingPickler — a Process argument under the 'spawn'
or 'forkserver' start methods, an object put on a Queue or Pipe — is first moved to shared memory
(``Tensor.share_memory_``) unless it is there already, and travels as the file descriptor of its segment
(``multiprocessing.reduction.DupFd``) with its dtype, storage offset, sizes, strides and requires_grad. The
receiver maps the same pages, so writes on either side are seen by the other (see Note [shared memory segments]
in ember/_shared_memory.py). Under 'fork' nothing is pickled: the child inherits the mappings.

Gradients do not travel (as in PyTorch): the receiver's tensor has requires_grad and no grad. A non-leaf tensor
that requires grad is refused, since autograd graphs cannot cross processes.
"""
from multiprocessing.reduction import DupFd, ForkingPickler

from .. import _C
from .._dtype_info import _dtype_name
from .._shared_memory import segment_from_fd, segment_of, share_, view_of_segment
from .._tensor import Tensor


def reduce_tensor(tensor):
    """The (rebuild function, arguments) that send tensor to another process through its shared memory (moved
    there first if it is private). Raises RuntimeError for a non-leaf tensor that requires grad."""
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError("Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd does "
                           "not support crossing process boundaries.  If you just want to transfer the data, call "
                           "detach() on the tensor before serializing (e.g., putting it on the queue).")
    share_(tensor)
    segment = segment_of(tensor)
    metadata = (_dtype_name(tensor.dtype), tensor.storage_offset(), tuple(tensor.shape), tuple(tensor.stride()))
    return (rebuild_tensor, (type(tensor), DupFd(segment.fd), metadata, tensor.requires_grad))


def rebuild_tensor(cls, dup_fd, metadata, requires_grad):
    """The tensor of a received segment descriptor: a view of the same memory as the sender's, of class cls
    (Tensor or Parameter) with the given requires_grad."""
    dtype_name, offset, size, stride = metadata
    segment = segment_from_fd(dup_fd.detach())
    tensor = view_of_segment(segment, getattr(_C, dtype_name), offset, size, stride)
    from ..nn.parameter import Parameter

    if issubclass(cls, Parameter):
        return cls(tensor, requires_grad)
    if requires_grad:
        tensor.requires_grad_(True)
    return tensor


def init_reductions():
    """Registers the tensor reducers with multiprocessing's ForkingPickler (done when ember.multiprocessing is
    imported; calling it again changes nothing)."""
    from ..nn.parameter import Parameter

    for cls in (Tensor, Parameter):
        ForkingPickler.register(cls, reduce_tensor)
