"""Dropout layers: element-wise (Dropout, AlphaDropout) and channel-wise (Dropout1d/2d/3d, FeatureAlphaDropout).
Each draws its mask in training mode only, as PyTorch's does under the same seed (Note [dropout family],
ember/_attention.py), and is the identity in eval mode."""
from .. import functional as F
from .module import Module

__all__ = ["Dropout"]
__all__ += ["Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    """The settings shared by the dropout layers: p (the probability of dropping) and inplace."""

    __constants__ = ["p", "inplace"]

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        return "p={}, inplace={}".format(self.p, self.inplace)


class Dropout(_DropoutNd):
    r"""Zeroes elements with probability p and scales the rest by 1 / (1 - p) in training mode; the identity in
    eval mode. Raises ValueError for p outside [0, 1]."""

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    r"""Zeroes whole channels of (N, C, L) or (C, L) input with probability p in training (scaling the others
    by 1 / (1 - p)). Raises ValueError for p outside [0, 1]; RuntimeError for another rank."""

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    r"""Zeroes whole channels of (N, C, H, W) or (C, H, W) input with probability p in training (scaling the
    others by 1 / (1 - p)); a 3-D input is taken as (N, C, L) with PyTorch 1.13's warning."""

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    r"""Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) input with probability p in training (scaling
    the others by 1 / (1 - p))."""

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    r"""Alpha dropout for SELU networks (Klambauer et al., 2017): in training, elements are set to SELU's
    negative saturation with probability p and the result is mapped affinely so that a zero-mean,
    unit-variance input keeps its mean and variance. inplace is stored but, as in PyTorch, not used."""

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    r"""Channel-wise alpha dropout of (N, C, *) input: whole channels are set to SELU's negative saturation
    with probability p in training, then mapped as AlphaDropout does. inplace is stored but not used."""

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)
