"""Embedding and EmbeddingBag."""
from ...autograd import no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .linear import _empty
from .module import Module

__all__ = ["Embedding", "EmbeddingBag"]


class _EmbeddingTable(Module):
    """What Embedding and EmbeddingBag share: the (num_embeddings, embedding_dim) table weight ~ N(0, 1) (or
    _weight as given), and padding_idx (negative counts from the end) whose row is zero."""

    def _init_table(self, num_embeddings, embedding_dim, padding_idx, _weight, device, dtype, padding_name):
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        if padding_idx is not None:
            if padding_idx > 0:
                assert padding_idx < num_embeddings, "{} must be within num_embeddings".format(padding_name)
            elif padding_idx < 0:
                assert padding_idx >= -num_embeddings, "{} must be within num_embeddings".format(padding_name)
                padding_idx = num_embeddings + padding_idx
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = Parameter(_empty((num_embeddings, embedding_dim), device, dtype))
            self.reset_parameters()
        else:
            assert list(_weight.shape) == [num_embeddings, embedding_dim], \
                "Shape of weight does not match num_embeddings and embedding_dim"
            self.weight = Parameter(_weight)

    def reset_parameters(self):
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self):
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)


class Embedding(_EmbeddingTable):
    r"""A lookup table of num_embeddings vectors of size embedding_dim (weight ~ N(0, 1), the row padding_idx
    zero and without gradient).

    Args as PyTorch's: padding_idx (negative counts from the end), max_norm, norm_type, scale_grad_by_freq,
    sparse (Ember computes a dense gradient), _weight (the initial table, used as is).
    """

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, device=None, dtype=None):
        super().__init__()
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self._init_table(num_embeddings, embedding_dim, padding_idx, _weight, device, dtype, "Padding_idx")
        self.sparse = sparse

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = "{}, {}".format(self.num_embeddings, self.embedding_dim)
        if self.padding_idx is not None:
            s += ", padding_idx={}".format(self.padding_idx)
        if self.max_norm is not None:
            s += ", max_norm={}".format(self.max_norm)
        if self.norm_type != 2:
            s += ", norm_type={}".format(self.norm_type)
        if self.scale_grad_by_freq is not False:
            s += ", scale_grad_by_freq={}".format(self.scale_grad_by_freq)
        if self.sparse is not False:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, sparse=False):
        r"""An Embedding whose table is embeddings (2-D, shared, not copied); freeze turns its gradient off."""
        assert embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional"
        rows, cols = embeddings.shape
        embedding = cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, padding_idx=padding_idx,
                        max_norm=max_norm, norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq,
                        sparse=sparse)
        embedding.weight.requires_grad = not freeze
        return embedding


class EmbeddingBag(_EmbeddingTable):
    r"""Sums, means or maxima of bags of rows of a table of num_embeddings vectors of size embedding_dim
    (see F.embedding_bag), without building the per-entry lookups. weight ~ N(0, 1), the row padding_idx
    zero.

    forward(input, offsets=None, per_sample_weights=None): input (B, N) of fixed-size bags, or (L) with
    offsets (B) (or (B + 1) with include_last_offset); returns (B, embedding_dim).

    Args as PyTorch's: max_norm, norm_type, scale_grad_by_freq, mode ('sum', 'mean' or 'max'), sparse (Ember
    computes a dense gradient), _weight (the initial table, used as is), include_last_offset, padding_idx
    (negative counts from the end; left out of the bags).
    """

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                 mode="mean", sparse=False, _weight=None, include_last_offset=False, padding_idx=None, device=None,
                 dtype=None):
        super().__init__()
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self._init_table(num_embeddings, embedding_dim, padding_idx, _weight, device, dtype, "padding_idx")
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq,
                               self.mode, self.sparse, per_sample_weights, self.include_last_offset,
                               self.padding_idx)

    def extra_repr(self):
        s = "{}, {}".format(self.num_embeddings, self.embedding_dim)
        if self.max_norm is not None:
            s += ", max_norm={}".format(self.max_norm)
        if self.norm_type != 2:
            s += ", norm_type={}".format(self.norm_type)
        if self.scale_grad_by_freq is not False:
            s += ", scale_grad_by_freq={}".format(self.scale_grad_by_freq)
        s += ", mode={}".format(self.mode)
        if self.padding_idx is not None:
            s += ", padding_idx={}".format(self.padding_idx)
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                        mode="mean", sparse=False, include_last_offset=False, padding_idx=None):
        r"""An EmbeddingBag whose table is embeddings (2-D, shared, not copied); freeze turns its gradient off."""
        assert embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional"
        rows, cols = embeddings.shape
        bag = cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, max_norm=max_norm,
                  norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse,
                  include_last_offset=include_last_offset, padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag
