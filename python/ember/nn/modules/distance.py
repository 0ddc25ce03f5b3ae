"""PairwiseDistance and CosineSimilarity."""
from .. import functional as F
from .module import Module

__all__ = ["PairwiseDistance", "CosineSimilarity"]


class PairwiseDistance(Module):
    r"""The p-norm of x1 - x2 + eps over the last dim (see F.pairwise_distance): (N, D) or (D) inputs,
    broadcast together, give (N) or () (with a kept dim of 1 when keepdim). The norm degree is the attribute
    ``norm``, as PyTorch's."""

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    r"""Cosine similarity of x1 and x2 along dim, each norm clamped below at eps (see F.cosine_similarity)."""

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
