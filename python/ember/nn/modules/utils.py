"""_single/_pair/_triple: an int repeated to a tuple of a layer's spatial dims (a tuple passes through)."""
import collections.abc
from itertools import repeat


def _ntuple(n):
    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))
    return parse


_single = _ntuple(1)
_pair = _ntuple(2)
_triple = _ntuple(3)


def _reverse_repeat_tuple(t, n):
    """(t[-1],) * n + (t[-2],) * n + ...: per-dim padding in F.pad's last-dim-first order."""
    return tuple(x for x in reversed(t) for _ in range(n))
