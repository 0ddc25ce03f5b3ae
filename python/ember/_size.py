"""ember.Size: the tuple subclass that Tensor.shape and Tensor.size() return."""
import operator

from . import _C

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


class Size(tuple):
    """Sizes of a tensor's dimensions; a tuple of ints, printed as ``ember.Size([2, 3])``.

    Behaves as PyTorch's ``torch.Size`` in every tuple operation: concatenation with another tuple, repetition and
    slicing return a Size; concatenating a list raises TypeError, as for any tuple; hashing and comparison are
    tuple's. ``Size(iterable)`` takes ints or objects with ``__index__`` (a 0-dim integer tensor, a NumPy integer).

    Raises:
        TypeError: an item is not an integer ("ember.Size() takes an iterable of 'int' (item 0 is 'float')").
        RuntimeError: an item does not fit in int64 (PyTorch's "Overflow when unpacking long").
    """

    def __new__(cls, sizes=()):
        items = tuple(sizes)
        if all(type(s) is int and _INT64_MIN <= s <= _INT64_MAX for s in items):
            return super().__new__(cls, items)
        checked = []
        for i, s in enumerate(items):
            if isinstance(s, _C._TensorBase) and _C._jit_is_tracing():
                checked.append(s)  # a traced size stays a tensor while tracing, as in PyTorch's tracer
                continue
            try:
                v = operator.index(s)
            except TypeError:
                raise TypeError(f"ember.Size() takes an iterable of 'int' (item {i} is '{type(s).__name__}')") \
                    from None
            if not _INT64_MIN <= v <= _INT64_MAX:
                raise RuntimeError("Overflow when unpacking long")
            checked.append(v)
        return super().__new__(cls, checked)

    def __repr__(self):
        return f"ember.Size([{', '.join(str(s) for s in self)}])"

    def numel(self):
        """Product of the sizes (1 for an empty Size)."""
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, item):
        r = super().__getitem__(item)
        return tuple.__new__(Size, r) if isinstance(item, slice) else r

    def __add__(self, other):
        r = super().__add__(other)  # a tuple, or TypeError for a list, as tuple's
        return tuple.__new__(Size, r) if isinstance(r, tuple) else r

    def __mul__(self, n):
        r = super().__mul__(n)
        return tuple.__new__(Size, r) if isinstance(r, tuple) else r

    __rmul__ = __mul__

    def __reduce__(self):
        return (Size, (tuple(self),))
