"""Dropout."""
from .. import functional as F
from .module import Module

__all__ = ["Dropout"]


class Dropout(Module):
    r"""Zeroes elements with probability p and scales the rest by 1 / (1 - p) in training mode; the identity in
    eval mode. Raises ValueError for p outside [0, 1]."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return "p={}, inplace={}".format(self.p, self.inplace)
