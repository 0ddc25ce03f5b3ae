"""AdaptiveLogSoftmaxWithLoss: the adaptive softmax of Grave, Joulin, Cisse, Grangier and Jegou, "Efficient
softmax approximation for GPUs" (ICML 2017)."""
from collections import namedtuple

from ... import _C
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])

_ops = _C._functions


class AdaptiveLogSoftmaxWithLoss(Module):
    r"""Adaptive softmax: the classes, sorted by frequency, are split by cutoffs into a shortlist
    [0, cutoffs[0]) and clusters [cutoffs[i], cutoffs[i + 1]) (the last ending at n_classes). The head, a
    Linear(in_features, cutoffs[0] + n_clusters, bias=head_bias), scores the shortlist classes and one
    entry per cluster; cluster i has its own two-layer projection, Linear(in_features, in_features //
    div_value ** (i + 1), bias=False) then Linear(that, cluster size, bias=False), scoring the classes inside
    it. log p(class) = log p_head(class) in the shortlist, else log p_head(cluster) + log p_cluster(class).

    forward(input, target): input (N, in_features) or (in_features), target (N) or () class indices;
    returns ``_ASMoutput(output, loss)``: output (N) or () the log-probability of each target, loss the mean
    of -output.

    Raises:
        ValueError (constructor): cutoffs not unique, increasing and within [1, n_classes - 1].
        RuntimeError (forward): target of more than 1 dim, input of a rank that does not fit target's, batch
            sizes that differ, a target outside [0, n_classes - 1].
    """

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False, device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if (cutoffs != sorted(cutoffs)) or (min(cutoffs) <= 0) or (max(cutoffs) > (n_classes - 1)) or \
                (len(set(cutoffs)) != len(cutoffs)) or any(int(c) != c for c in cutoffs):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        factory = {"device": device, "dtype": dtype}
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **factory)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, **factory),
                                        Linear(hidden, size, bias=False, **factory)))

    def reset_parameters(self):
        self.head.reset_parameters()
        for projection in self.tail:
            for layer in projection:
                layer.reset_parameters()

    def forward(self, input_, target_):
        tdim = target_.dim()
        if tdim == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input_.dim() != 2:
                raise RuntimeError("1D target tensor expects 2D input tensors, but found inputs with size {}"
                                   .format(input_.size()))
        elif tdim == 0:
            if input_.dim() != 1:
                raise RuntimeError("0D target tensor expects 1D input tensors, but found inputs with size {}"
                                   .format(input_.size()))
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = tdim > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        if target.numel():
            lo, hi = target.min().item(), target.max().item()
            if lo < 0 or hi > self.n_classes - 1:
                raise RuntimeError("Target values should be in [0, {}], but values in range [{}, {}] were found. "
                                   .format(self.n_classes - 1, lo, hi))
        # the head entry of each target: itself in the shortlist, else its cluster's
        cluster = _ops["zeros_like"](target)
        for bound in self.cutoffs[:-1]:
            cluster = cluster + (target >= bound).long()
        head_index = _ops["where"](cluster == 0, target, cluster + (self.shortlist_size - 1))
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output = head_logprob.gather(1, head_index.unsqueeze(1)).squeeze(1)
        for i in range(self.n_clusters):
            rows = (cluster == i + 1).nonzero().reshape(-1)
            if rows.numel() == 0:
                continue
            local = target.index_select(0, rows) - self.cutoffs[i]
            cluster_logprob = F.log_softmax(self.tail[i](input.index_select(0, rows)), dim=1)
            output = output.index_add(0, rows, cluster_logprob.gather(1, local.unsqueeze(1)).squeeze(1))
        loss = (-output).mean()
        if not batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _get_full_log_prob(self, input, head_output):
        """log p of every class, (N, n_classes), from the head's scores (N, head_size)."""
        head_logprob = F.log_softmax(head_output, dim=1)
        parts = [head_logprob[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            parts.append(cluster_logprob + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return _ops["cat"](parts, 1)

    def log_prob(self, input):
        r"""log p of every class: input (N, in_features) -> (N, n_classes)."""
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input):
        r"""The most likely class of each row of input (N, in_features): (N) int64. Rows whose head prefers
        a shortlist class need no cluster computation (that class beats every cluster's total)."""
        head_output = self.head(input)
        output = head_output.argmax(1)
        outside = output >= self.shortlist_size
        if not outside.any():
            return output
        rows = outside.nonzero().reshape(-1)
        full = self._get_full_log_prob(input.index_select(0, rows), head_output.index_select(0, rows))
        return output.index_put((rows,), full.argmax(1))
