"""The padding layers of PyTorch 1.13 over F.pad: ConstantPad1d/2d/3d, ZeroPad2d, ReflectionPad1d/2d/3d and
ReplicationPad1d/2d/3d. padding is an int (every side) or a tuple (left, right[, top, bottom[, front, back]])."""
from .. import functional as F
from .module import Module
from .utils import _ntuple

__all__ = ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad2d", "ReflectionPad1d", "ReflectionPad2d",
           "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d"]


class _PadNd(Module):
    _dims = 1
    _mode = "constant"

    def __init__(self, padding, value=None):
        super().__init__()
        self.padding = _ntuple(2 * self._dims)(padding)
        if self._mode == "constant":
            self.value = value

    def forward(self, input):
        if self._mode == "constant":
            return F.pad(input, self.padding, "constant", self.value)
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        if self._mode == "constant":
            return "padding={}, value={}".format(self.padding, self.value)
        return "{}".format(self.padding)


class ConstantPad1d(_PadNd):
    r"""Pads the last dim of (C, W) or (N, C, W) input with `value`: padding int or (left, right)."""
    _dims = 1

    def __init__(self, padding, value):
        super().__init__(padding, value)


class ConstantPad2d(_PadNd):
    r"""Pads the last two dims with `value`: padding int or (left, right, top, bottom)."""
    _dims = 2

    def __init__(self, padding, value):
        super().__init__(padding, value)


class ConstantPad3d(_PadNd):
    r"""Pads the last three dims with `value`: padding int or (left, right, top, bottom, front, back)."""
    _dims = 3

    def __init__(self, padding, value):
        super().__init__(padding, value)


class ZeroPad2d(ConstantPad2d):
    r"""Pads the last two dims with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return "{}".format(self.padding)


class ReflectionPad1d(_PadNd):
    r"""Reflection padding of (C, W) or (N, C, W) input (the edge not repeated); each pad below W."""
    _dims, _mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    r"""Reflection padding of (C, H, W) or (N, C, H, W) input."""
    _dims, _mode = 2, "reflect"


class ReflectionPad3d(_PadNd):
    r"""Reflection padding of (C, D, H, W) or (N, C, D, H, W) input."""
    _dims, _mode = 3, "reflect"


class ReplicationPad1d(_PadNd):
    r"""Replication padding (the edge repeated) of (C, W) or (N, C, W) input."""
    _dims, _mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    r"""Replication padding of (C, H, W) or (N, C, H, W) input."""
    _dims, _mode = 2, "replicate"


class ReplicationPad3d(_PadNd):
    r"""Replication padding of (C, D, H, W) or (N, C, D, H, W) input."""
    _dims, _mode = 3, "replicate"
