"""DLPack exchange (``torch.from_dlpack``, ``torch.utils.dlpack``): tensors shared without a copy with any library
that speaks DLPack (NumPy, PyTorch, JAX, CuPy, ...).

The DLPack structures are NumPy's (``numpy.from_dlpack`` and ``ndarray.__dlpack__``, NumPy >= 1.22), so Ember
carries no DLPack code of its own: a tensor goes out as a NumPy view of its memory, and comes in as a NumPy
view of the producer's memory turned into a tensor by ``from_numpy``; both share memory with the producer. Only
CPU memory can be exchanged (Ember has no other device).
"""
__all__ = ["from_dlpack", "to_dlpack"]

_CPU = 1  # DLPack's kDLCPU


class _Capsule:
    """A bare DLPack capsule (``to_dlpack``'s result) dressed as the protocol's producer, for numpy.from_dlpack."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, stream=None):
        return self.capsule

    def __dlpack_device__(self):
        return (_CPU, 0)


def to_dlpack(tensor):
    """A DLPack capsule ("dltensor") sharing ``tensor``'s memory, for one ``from_dlpack`` of another library.
    RuntimeError for bool tensors (as PyTorch 1.13) and for dtypes DLPack's NumPy exporter lacks (bfloat16)."""
    from ._tensor import Tensor

    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_dlpack: expected a Tensor, got {type(tensor).__name__}")
    if tensor.dtype.is_complex is False and str(tensor.dtype) == "ember.bool":
        raise RuntimeError("Bool type is not supported by dlpack")
    try:
        array = tensor.detach().numpy()
    except TypeError as e:
        raise RuntimeError(f"to_dlpack: {tensor.dtype} cannot be exchanged through DLPack ({e})") from None
    return array.__dlpack__()


def from_dlpack(ext_tensor):
    """A tensor sharing the memory of ``ext_tensor``: an object with ``__dlpack__`` (a NumPy array, a PyTorch
    tensor, ...) or a DLPack capsule from a ``to_dlpack``. The data must be in CPU memory (RuntimeError
    otherwise); a capsule can be consumed only once."""
    import numpy as np

    from ._tensor import Tensor
    from . import from_numpy

    if isinstance(ext_tensor, Tensor):
        return ext_tensor
    if hasattr(ext_tensor, "__dlpack__"):
        if hasattr(ext_tensor, "__dlpack_device__"):
            device_type, device_id = ext_tensor.__dlpack_device__()
            if int(device_type) != _CPU:
                raise RuntimeError(f"from_dlpack: the data is on DLPack device type {int(device_type)} "
                                   f"(id {device_id}); Ember takes only CPU memory (type {_CPU})")
        producer = ext_tensor
    elif type(ext_tensor).__name__ == "PyCapsule":
        producer = _Capsule(ext_tensor)
    else:
        raise TypeError(f"from_dlpack: expected an object with __dlpack__ or a DLPack capsule, got "
                        f"{type(ext_tensor).__name__}")
    try:
        array = np.from_dlpack(producer)
    except (BufferError, ValueError) as e:
        raise RuntimeError(f"from_dlpack: {e}") from None
    if not array.flags.writeable:
        # NumPy (1.24) marks every imported array read-only although DLPack's memory is the producer's own,
        # writable memory (PyTorch's from_dlpack writes through it): a writable view of the same memory, whose
        # base keeps the imported array (and so the producer's memory) alive.
        array = np.asarray(_WritableView(array))
    return from_numpy(array)


class _WritableView:
    """The array interface of an array with its read-only flag dropped (the memory stays the array's)."""

    def __init__(self, array):
        self.base = array
        interface = dict(array.__array_interface__)
        interface["data"] = (interface["data"][0], False)
        self.__array_interface__ = interface
