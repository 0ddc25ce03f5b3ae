"""ember.Size: the tuple subclass that Tensor.shape and Tensor.size() return."""


class Size(tuple):
    """Sizes of a tensor's dimensions; a tuple of ints, printed as ``ember.Size([2, 3])``."""

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
        return Size(r) if isinstance(item, slice) else r

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))

    def __reduce__(self):
        return (Size, (tuple(self),))
