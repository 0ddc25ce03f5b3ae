"""PixelShuffle, PixelUnshuffle and ChannelShuffle over their ops."""
from .. import functional as F
from .module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle", "ChannelShuffle"]


class PixelShuffle(Module):
    r"""(*, C*r*r, H, W) -> (*, C, H*r, W*r) (Shi et al., 2016)."""

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return "upscale_factor={}".format(self.upscale_factor)


class PixelUnshuffle(Module):
    r"""(*, C, H*r, W*r) -> (*, C*r*r, H, W), the inverse of PixelShuffle."""

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return "downscale_factor={}".format(self.downscale_factor)


class ChannelShuffle(Module):
    r"""(N, C, *) with the channels as (groups, C / groups) transposed (ShuffleNet)."""

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return "groups={}".format(self.groups)
