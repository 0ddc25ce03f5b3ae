"""The losses, distances and bag/bilinear layers that PyTorch keeps in its top-level namespace (torch.kl_div,
torch.ctc_loss, torch.embedding_bag, ...), written in Python over Ember's ops.

These take the reduction as an int (0 'none', 1 'mean', 2 'sum': see ember.nn._reduction) like PyTorch's
torch-level functions; ember.nn.functional wraps them with reduction strings and the legacy
size_average/reduce arguments. Each computes its element-wise loss with differentiable ops, so autograd
gives its gradient; ctc_loss alone has its own backward (the alpha-beta recursion, Note [CTC]).
"""
import math

from . import _C
from ._C import is_grad_enabled
from ._tensor import Tensor
from .autograd.function import Function
from .autograd.grad_mode import no_grad

__all__ = ["kl_div", "poisson_nll_loss", "cosine_embedding_loss", "margin_ranking_loss", "hinge_embedding_loss",
           "triplet_margin_loss", "ctc_loss", "embedding_bag", "bilinear", "pairwise_distance", "cosine_similarity"]

_ops = _C._functions
_INF = float("inf")


def _apply_reduction(loss, reduction):
    """loss as is (0), its mean (1) or its sum (2). The mean of no elements is nan, as PyTorch's."""
    if reduction == 1:
        return loss.mean()
    if reduction == 2:
        return loss.sum()
    return loss


def _check_floating(name, *tensors):
    for t in tensors:
        if not (t.is_floating_point() or t.is_complex()):
            raise RuntimeError("{}: Integral inputs not supported.".format(name))


def _zeros_like(t):
    return _ops["zeros_like"](t)


def _full_like(t, value):
    return _ops["full_like"](t, value)


# ---------------------------------------------------------------------------------------------- pointwise losses
def kl_div(input, target, reduction=1, *, log_target=False):
    r"""Kullback-Leibler divergence terms target * (log(target) - input), input being log-probabilities.

    With log_target the target is given as log-probabilities too: exp(target) * (target - input). A target
    of 0 contributes 0 (x log x is taken as xlogy(x, x)); a negative target gives nan.

    Args:
        input (Tensor): log-probabilities, any shape.
        target (Tensor): broadcastable to input.
        reduction (int): 0 none, 1 mean over all elements, 2 sum.
        log_target (bool): target holds log-probabilities.

    Raises:
        RuntimeError: integral input or target; shapes that do not broadcast.
    """
    _check_floating("kl_div", input, target)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = _ops["xlogy"](target, target) - target * input
    return _apply_reduction(loss, reduction)


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    r"""Negative log likelihood of target under a Poisson distribution of rate input.

    log_input: exp(input) - target * input (input is the log of the rate); else input - target * log(input +
    eps). full adds Stirling's approximation of log(target!), target * log(target) - target +
    0.5 * log(2 pi target), for the targets above 1 (0 for target <= 1).
    """
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _apply_reduction(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1):
    r"""max(0, -target * (input1 - input2) + margin): target 1 asks input1 to rank above input2 by margin,
    target -1 the reverse. The three tensors broadcast together."""
    loss = (-target * (input1 - input2) + margin).clamp_min(0)
    return _apply_reduction(loss, reduction)


def hinge_embedding_loss(input, target, margin=1.0, reduction=1):
    r"""input where target is 1 and max(0, margin - input) where target is -1 (input is typically a distance);
    a target that is neither 1 nor -1 contributes both terms. input and target broadcast together."""
    zeros = _zeros_like(input)
    # computed in input's dtype, margin included (an integral input stays integral, as PyTorch's)
    margin_part = _ops["where"](target != 1, (_full_like(input, margin) - input).clamp_min(0), zeros)
    self_part = _ops["where"](target != -1, input, zeros)
    return _apply_reduction(margin_part + self_part, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1):
    r"""1 - cos(input1, input2) where target is 1, max(0, cos(input1, input2) - margin) where it is -1 (0 for
    other targets); the cosine is taken over the last dim with 1e-12 added to each squared norm.

    Shapes: input1, input2 (N, D) with target (N), or (D) with a 0-dim target; the result (N) or ().

    Raises:
        RuntimeError: a target of more than 1 dim, input dims that do not fit the target's, or sizes that do
            not broadcast.
    """
    tdim = target.dim()
    if tdim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if tdim == 1 and (input1.dim() != 2 or input2.dim() != 2):
        raise RuntimeError("1D target tensor expects 2D input tensors, but found inputs with sizes {} and {}."
                           .format(list(input1.shape), list(input2.shape)))
    if tdim == 0 and (input1.dim() != 1 or input2.dim() != 1):
        raise RuntimeError("0D target tensor expects 1D input tensors, but found inputs with sizes {} and {}."
                           .format(list(input1.shape), list(input2.shape)))
    eps = 1e-12
    prod_sum = (input1 * input2).sum(tdim)
    mag_square1 = (input1 * input1).sum(tdim) + eps
    mag_square2 = (input2 * input2).sum(tdim) + eps
    cos = prod_sum / (mag_square1 * mag_square2).sqrt()
    zeros = _zeros_like(cos)
    pos = _ops["where"](target == 1, 1 - cos, zeros)
    neg = _ops["where"](target == -1, (cos - margin).clamp_min(0), zeros)
    return _apply_reduction(pos + neg, reduction)


# ---------------------------------------------------------------------------------------------- distances
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    r"""The p-norm of x1 - x2 + eps over the last dim (of the broadcast of x1 and x2): (*, D) -> (*), or
    (*, 1) with keepdim. eps keeps the norm differentiable where x1 == x2. Integral inputs give the default
    float dtype (the eps makes the difference floating)."""
    dim = max(x1.dim(), x2.dim()) - 1  # -1 for 0-dim inputs: the norm of the single value
    return (x1 - x2 + eps).norm(p, dim, keepdim)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    r"""Cosine of the angle between x1 and x2 along dim: sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps))
    (PyTorch 1.13's formula: each norm clamped on its own). The clamp is outside the graph, as PyTorch's: the
    derivative of a norm is x / max(||x||, eps). x1 and x2 broadcast together; the result drops dim.

    Raises:
        RuntimeError: a common dtype that is not floating point, or shapes that do not broadcast.
        IndexError: dim out of range.
    """
    dtype = _C.result_type(x1, x2)
    if not dtype.is_floating_point:
        raise RuntimeError("cosine_similarity: expected common dtype to be floating point, yet common dtype is {}"
                           .format(str(dtype).replace("ember.", "")))
    from .functional import broadcast_shapes

    shape = broadcast_shapes(x1.shape, x2.shape)
    x1 = x1.to(dtype).expand(shape)
    x2 = x2.to(dtype).expand(shape)

    def norm(x):
        squared = x.pow(2).sum(dim, keepdim=True)
        with no_grad():
            squared.clamp_min_(eps * eps)
        return squared.sqrt()

    return ((x1 / norm(x1)) * (x2 / norm(x2))).sum(dim)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False, reduction=1):
    r"""max(0, margin + d(anchor, positive) - d(anchor, negative)) with d the pairwise_distance of norm p
    (eps added to the difference). swap uses min(d(anchor, negative), d(positive, negative)) as the negative
    distance (Balntas et al., "Learning local feature descriptors with triplets and shallow convolutional
    neural networks", BMVC 2016).

    Raises:
        RuntimeError: inputs of different numbers of dims.
    """
    if not (anchor.dim() == positive.dim() == negative.dim()):
        raise RuntimeError("triplet_margin_loss: All inputs should have same dimension but got {}D, {}D and {}D "
                           "inputs.".format(anchor.dim(), positive.dim(), negative.dim()))
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = _ops["min"](dist_neg, pairwise_distance(positive, negative, p, eps))
    loss = (margin + dist_pos - dist_neg).clamp_min(0)
    return _apply_reduction(loss, reduction)


# ---------------------------------------------------------------------------------------------- bilinear
def bilinear(input1, input2, weight, bias=None):
    r"""y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o].

    Shapes: input1 (*, in1), input2 (*, in2) with the same leading dims, weight (out, in1, in2),
    bias (out); the result (*, out).

    Raises:
        RuntimeError: inputs of different ranks or leading sizes, feature sizes that differ from weight's, a
            bias of the wrong size.
        IndexError: a weight that is not 3-D.
    """
    if input1.dim() != input2.dim():
        raise RuntimeError("bilinear(): input dimensions do not match: got {} and {}".format(input1.dim(),
                                                                                            input2.dim()))
    for i in range(input1.dim() - 1):
        if input1.size(i) != input2.size(i):
            raise RuntimeError("bilinear(): input batch dimensions do not match at dim {}: got {} and {}"
                               .format(i, input1.size(i), input2.size(i)))
    if input1.size(-1) != weight.size(1):
        raise RuntimeError("bilinear(): input1 size does not match weight size: got {} but expected {}"
                           .format(input1.size(-1), weight.size(1)))
    if input2.size(-1) != weight.size(2):
        raise RuntimeError("bilinear(): input2 size does not match weight size: got {} but expected {}"
                           .format(input2.size(-1), weight.size(2)))
    if bias is not None and bias.size(0) != weight.size(0):
        raise RuntimeError("bilinear(): bias size does not match weight size: got {} but expected {}"
                           .format(bias.size(0), weight.size(0)))
    out_features, in1, in2 = weight.shape
    batch = list(input1.shape[:-1])
    x1 = input1.reshape(-1, in1)
    x2 = input2.reshape(-1, in2)
    # (B, in1) @ (in1, out * in2) -> (B, out, in2), then contract in2 with input2.
    left = x1.matmul(weight.permute(1, 0, 2).reshape(in1, out_features * in2)).reshape(-1, out_features, in2)
    out = (left * x2.unsqueeze(1)).sum(-1)
    if bias is not None:
        out = out + bias
    return out.reshape(batch + [out_features])


# ---------------------------------------------------------------------------------------------- embedding_bag
_BAG_MODES = ("sum", "mean", "max")


def _check_index_dtype(t, arg, pos):
    if t.dtype not in (_C.int64, _C.int32):
        raise RuntimeError("embedding_bag: expected tensor for argument #{} '{}' to have one of the following "
                           "scalar types: Long, Int; but got {} instead".format(pos, arg, t.dtype))


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    r"""Sums, means or maxima of bags of rows of weight.

    The bags are the slices indices[offsets[b]:offsets[b + 1]] of the 1-D indices (the last one running to
    the end, or, with include_last_offset, offsets holding B + 1 boundaries). Entries equal to padding_idx
    are left out of their bag (and of the mean's count); an empty bag gives zeros. per_sample_weights
    (mode sum only) scales each looked-up row.

    Args:
        weight (Tensor): (num_embeddings, D), floating.
        indices (Tensor): (L,) int64 or int32.
        offsets (Tensor): (B,) or (B + 1,) with include_last_offset; int64 or int32, starting at 0,
            non-decreasing, at most L.
        mode (int): 0 sum, 1 mean, 2 max.
        padding_idx (int, optional): a row index (negative counts from the end) left out of the bags.

    Returns:
        (output, offset2bag, bag_size, max_indices): output (B, D); offset2bag (L,) the bag of each entry;
        bag_size (B,) the count of non-padding entries per bag; max_indices (B, D) the row each maximum
        came from in max mode (0 for empty bags), otherwise bag_size.

    Raises:
        RuntimeError: index dtypes other than int64/int32, a non-floating weight, per_sample_weights of
            another dtype, offsets[0] != 0, decreasing offsets or offsets past L, an index out of range, a
            padding_idx out of range.
    """
    from .nn import functional as F

    _check_index_dtype(indices, "indices", 1)
    _check_index_dtype(offsets, "offsets", 1)
    if not weight.is_floating_point():
        raise RuntimeError("embedding_bag: expected tensor for argument #1 'weight' to have one of the following "
                           "scalar types: Half, Float, Double; but got {} instead".format(weight.dtype))
    if per_sample_weights is not None and per_sample_weights.dtype != weight.dtype:
        raise RuntimeError("embedding_bag: expected tensor for argument #1 'weight' to have the same type as "
                           "tensor for argument #1 'per_sample_weights'; but type {} does not equal {}"
                           .format(weight.dtype, per_sample_weights.dtype))
    num_weights = weight.size(0)
    if padding_idx is not None:
        if not -num_weights <= padding_idx < num_weights:
            raise RuntimeError("padding_idx must be within the number of embeddings, {} through {}, but got {}"
                               .format(-num_weights, num_weights - 1, padding_idx))
        if padding_idx < 0:
            padding_idx += num_weights
    indices = indices.reshape(-1).long()
    offsets = offsets.long()
    length = indices.numel()
    n_bags = offsets.numel() - 1 if include_last_offset else offsets.numel()
    n_bags = max(n_bags, 0)
    if offsets.numel():
        first, last = offsets[0].item(), offsets[-1].item()
        if first != 0:
            raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
                               "from position 0. However, got {}".format(first))
        if last > length:
            raise RuntimeError("offsets[-1] can not be greater than input's length {} but got offsets[-1] of {}"
                               .format(length, last))
        if (offsets[1:] < offsets[:-1]).any():
            raise RuntimeError("embedding_bag: offsets must be non-decreasing, got {}".format(offsets.tolist()))
    if length:
        lo, hi = indices.min().item(), indices.max().item()
        if lo < 0 or hi >= num_weights:
            raise RuntimeError("embedding_bag: index {} is out of bounds for a weight of {} rows"
                               .format(lo if lo < 0 else hi, num_weights))
    # bag b holds the entries [starts[b], starts[b] + lengths[b])
    starts = offsets[:n_bags]
    ends = offsets[1:n_bags + 1] if include_last_offset else \
        _ops["cat"]([offsets[1:n_bags], _C.tensor([length], dtype=_C.int64)])[:n_bags]
    lengths = ends - starts
    used = int(lengths.sum().item())
    bag_of = _ops["arange"](n_bags).repeat_interleave(lengths)  # (used,): the bag of each entry
    offset2bag = bag_of
    if used < length:  # entries past the last boundary (include_last_offset) belong to no bag
        offset2bag = _ops["cat"]([bag_of, _ops["full"]((length - used,), n_bags, dtype=_C.int64)])
    used_indices = indices[:used]
    keep = used_indices != padding_idx if padding_idx is not None else _ops["ones"](used, dtype=_C.bool)
    bag_size = _ops["zeros"](n_bags, dtype=_C.int64).index_add(0, bag_of, keep.long())

    # (used, D); the gradient is dense whatever sparse says
    rows = F.embedding(used_indices, weight, padding_idx, None, 2.0, scale_grad_by_freq, False)
    if mode in (0, 1):
        if per_sample_weights is not None:
            rows = rows * per_sample_weights.reshape(-1)[:used].unsqueeze(1)
        rows = _ops["where"](keep.unsqueeze(1), rows, _zeros_like(rows))
        out = _ops["zeros"]((n_bags, weight.size(1)), dtype=weight.dtype).index_add(0, bag_of, rows)
        if mode == 1:
            out = out / bag_size.clamp_min(1).unsqueeze(1).to(weight.dtype)
        return out, offset2bag, bag_size, bag_size.clone()
    # max: arrange the rows of each bag in a (B, longest, D) block padded with -inf, then take the maxima.
    longest = int(lengths.max().item()) if n_bags else 0
    pos = _ops["arange"](longest)
    valid = pos.unsqueeze(0) < lengths.unsqueeze(1)  # (B, longest)
    where_from = _ops["where"](valid, starts.unsqueeze(1) + pos.unsqueeze(0), _full_like(pos.unsqueeze(0), used))
    padded_rows = _ops["cat"]([rows, _ops["zeros"]((1, weight.size(1)), dtype=weight.dtype)])
    block = padded_rows.index_select(0, where_from.reshape(-1)).reshape(n_bags, longest, weight.size(1))
    padded_keep = _ops["cat"]([keep, _ops["zeros"](1, dtype=_C.bool)])
    block_keep = padded_keep.index_select(0, where_from.reshape(-1)).reshape(n_bags, longest, 1)
    block = _ops["where"](block_keep, block, _full_like(block, -_INF))
    if longest == 0:  # every bag empty: zeros (the sum of no rows, still part of the graph)
        out = rows.sum(0).unsqueeze(0).expand(n_bags, weight.size(1)).contiguous()
        return out, offset2bag, bag_size, _ops["zeros"]((n_bags, weight.size(1)), dtype=_C.int64)
    values, argpos = block.max(1)  # (B, D)
    empty = (bag_size == 0).unsqueeze(1)
    out = _ops["where"](empty, _zeros_like(values), values)
    padded_indices = _ops["cat"]([used_indices, _ops["zeros"](1, dtype=_C.int64)])
    row_of = padded_indices.index_select(0, where_from.reshape(-1)).reshape(n_bags, longest)
    max_indices = row_of.gather(1, argpos)
    max_indices = _ops["where"](empty, _zeros_like(max_indices), max_indices)
    return out, offset2bag, bag_size, max_indices


# ---------------------------------------------------------------------------------------------- CTC
# Note [CTC]
# Connectionist temporal classification (Graves, Fernandez, Gomez and Schmidhuber, "Connectionist Temporal
# Classification: Labelling Unsegmented Sequence Data with Recurrent Neural Networks", ICML 2006). A target
# l of length L is extended with blanks to l' = (b, l1, b, l2, ..., lL, b) of length 2L + 1. In log space
#   alpha_0(0) = y_0(b),  alpha_0(1) = y_0(l1),
#   alpha_t(s) = y_t(l'_s) + logsumexp(alpha_{t-1}(s), alpha_{t-1}(s-1), alpha_{t-1}(s-2) if l'_s != l'_{s-2}
#                                      at a label position s),
#   -log p(l | x) = -logsumexp(alpha_{T-1}(2L), alpha_{T-1}(2L-1)),
# and beta (the same recursion run backwards from the end, y_t(l'_s) included) gives the gradient
#   d(-log p) / d log y_t(c) = -sum_{s: l'_s = c} exp(alpha_t(s) + beta_t(s) - log y_t(c) + log p),
# each term in [0, 1]. The recursions loop over time only: every step is a few tensor ops over the whole
# (batch, 2L + 1) state. Unlike PyTorch's CPU kernel, whose gradient adds exp(log y_t(c)) (a term that
# vanishes through a preceding log_softmax), this is the exact gradient of the loss with respect to the
# log-probabilities given, so it passes gradcheck; through log_softmax both agree.
def _logaddexp3(a, b, c):
    """log(exp(a) + exp(b) + exp(c)), -inf where all three are -inf (no nan)."""
    m = _ops["maximum"](_ops["maximum"](a, b), c)
    m = _ops["where"](m == -_INF, _zeros_like(m), m)
    return m + ((a - m).exp() + (b - m).exp() + (c - m).exp()).log()


def _shift(x, k, fill):
    """x (N, S) moved |k| states along dim 1, to the right for k > 0 and to the left for k < 0, fill taking the
    states vacated."""
    n, size = x.shape
    pad = _ops["full"]((n, min(abs(k), size)), fill, dtype=x.dtype)
    if k > 0:
        return _ops["cat"]([pad, x[:, :max(size - k, 0)]], 1)
    return _ops["cat"]([x[:, min(-k, size):], pad], 1)


class _CTCLossFunction(Function):
    """-log p(target | log_probs) per sample, with the alpha-beta gradient (Note [CTC]).

    Inputs: log_probs (T, N, C); targets (N, S) int64 padded (entries past target_lengths unused);
    input_lengths, target_lengths (N,) int64; blank; zero_infinity (infinite losses get a zero gradient).
    """

    @staticmethod
    def forward(ctx, log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
        T, N, _ = log_probs.shape
        S = targets.size(1)
        states = 2 * S + 1
        dtype = log_probs.dtype
        s_idx = _ops["arange"](states)
        # l' (N, 2S+1): blank at even states, the targets at odd ones
        ext = _ops["full"]((N, states), blank, dtype=_C.int64)
        if S:
            ext[:, 1::2] = targets
        two_l = (2 * target_lengths).unsqueeze(1)
        valid = s_idx.unsqueeze(0) <= two_l
        skip = (s_idx % 2 == 1) & (s_idx >= 3)
        skip = skip.unsqueeze(0) & (ext != _shift(ext, 2, -1))
        neg_inf = _ops["full"]((N, states), -_INF, dtype=dtype)
        lp_ext = log_probs.gather(2, ext.unsqueeze(0).expand(T, N, states))  # (T, N, 2S+1)
        log_alpha = _ops["full"]((T, N, states), -_INF, dtype=dtype)
        if T:
            start = (s_idx.unsqueeze(0) == 0) | ((s_idx.unsqueeze(0) == 1) & (target_lengths.unsqueeze(1) > 0))
            log_alpha[0] = _ops["where"](start, lp_ext[0], neg_inf)
        for t in range(1, T):
            prev = log_alpha[t - 1]
            skipped = _ops["where"](skip, _shift(prev, 2, -_INF), neg_inf)
            step = _logaddexp3(prev, _shift(prev, 1, -_INF), skipped) + lp_ext[t]
            log_alpha[t] = _ops["where"](valid, step, neg_inf)
        # the end: alpha at t = input_length - 1, states 2L and 2L - 1
        last_t = (input_lengths - 1).clamp_min(0)
        batch = _ops["arange"](N)
        if T:
            final = log_alpha[last_t, batch]  # (N, 2S+1)
        else:
            final = neg_inf
        end_blank = final.gather(1, two_l).squeeze(1)
        end_label = final.gather(1, (two_l - 1).clamp_min(0)).squeeze(1)
        end_label = _ops["where"](target_lengths > 0, end_label, _full_like(end_label, -_INF))
        nll = -_ops["logaddexp"](end_blank, end_label)
        # no frames: the empty target has probability 1, any other 0
        nll = _ops["where"](input_lengths == 0,
                            _ops["where"](target_lengths == 0, _zeros_like(nll), _full_like(nll, _INF)), nll)
        ctx.save_for_backward(log_probs, ext, input_lengths, target_lengths, log_alpha, lp_ext, nll)
        ctx.skip, ctx.valid, ctx.zero_infinity = skip, valid, zero_infinity
        return nll

    @staticmethod
    def backward(ctx, grad_nll):
        log_probs = ctx.saved_tensors[0]
        with no_grad():
            grad = _CTCLossFunction._gradient(ctx, grad_nll)
        if is_grad_enabled():
            # create_graph: the gradient itself has no derivative (as PyTorch's _ctc_loss_backward)
            grad, = _C._delayed_error("ctc_loss: the derivative of its gradient (double backward) is not "
                                      "implemented", [t for t in (grad_nll, log_probs) if t.requires_grad], [grad])
        return grad, None, None, None, None, None

    @staticmethod
    def _gradient(ctx, grad_nll):
        """d(nll) / d(log_probs) * grad_nll by the beta recursion (Note [CTC])."""
        log_probs, ext, input_lengths, target_lengths, log_alpha, lp_ext, nll = ctx.saved_tensors
        T, N, C = log_probs.shape
        states = ext.size(1)
        dtype = log_probs.dtype
        neg_inf = _ops["full"]((N, states), -_INF, dtype=dtype)
        s_idx = _ops["arange"](states).unsqueeze(0)
        two_l = (2 * target_lengths).unsqueeze(1)
        end = (s_idx == two_l) | ((s_idx == two_l - 1) & (target_lengths.unsqueeze(1) > 0))
        skip_from = _shift(ctx.skip, -2, False)  # s may jump to s + 2
        log_beta = _ops["full"]((T, N, states), -_INF, dtype=dtype)
        nxt = neg_inf
        for t in range(T - 1, -1, -1):
            skipped = _ops["where"](skip_from, _shift(nxt, -2, -_INF), neg_inf)
            step = _logaddexp3(nxt, _shift(nxt, -1, -_INF), skipped) + lp_ext[t]
            step = _ops["where"](ctx.valid, step, neg_inf)
            first = _ops["where"](end, lp_ext[t], neg_inf)
            at_end = (input_lengths == t + 1).unsqueeze(1)
            inside = (input_lengths > t + 1).unsqueeze(1)
            nxt = _ops["where"](at_end, first, _ops["where"](inside, step, neg_inf))
            log_beta[t] = nxt
        # each state's share of the posterior, gathered onto its class
        share = (log_alpha + log_beta - lp_ext + nll.view(1, N, 1)).exp()
        in_time = _ops["arange"](T).view(T, 1, 1) < input_lengths.view(1, N, 1)
        share = _ops["where"](in_time, share, _zeros_like(share))
        if ctx.zero_infinity:
            share = _ops["where"]((nll == _INF).view(1, N, 1), _zeros_like(share), share)
        grad = _ops["zeros"]((T, N, C), dtype=dtype).scatter_add(2, ext.unsqueeze(0).expand(T, N, states), share)
        return -grad * grad_nll.view(1, N, 1)


def _lengths_tensor(lengths, name):
    if isinstance(lengths, Tensor):
        if lengths.is_floating_point() or lengths.is_complex() or lengths.dtype == _C.bool:
            raise RuntimeError("{} must be integral".format(name))
        return lengths.reshape(-1).long()
    if isinstance(lengths, (list, tuple)):
        return _C.tensor(list(lengths), dtype=_C.int64).reshape(-1)
    raise TypeError("ctc_loss(): {} must be a tensor or a tuple of ints, not {}".format(name, type(lengths).__name__))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1, zero_infinity=False):
    r"""Connectionist temporal classification loss (Note [CTC]): -log p(target | log_probs) per sample,
    summed over every alignment of the target to the input frames.

    Args:
        log_probs (Tensor): (T, N, C) or unbatched (T, C) log-probabilities (float32 or float64), e.g. the
            output of log_softmax over C.
        targets (Tensor): (N, S) padded targets or the concatenation of the N targets (sum(target_lengths),);
            unbatched (S,) or (1, S). Values in [0, C), not blank.
        input_lengths, target_lengths (Tensor or tuple of ints): (N,) lengths, each input length <= T; each
            padded target at least as long as its length.
        blank (int): the blank class, in [0, C).
        reduction (int): 0 none (the (N,) losses), 1 mean (each loss divided by its target length, at least
            1, then the mean over the batch), 2 sum.
        zero_infinity (bool): infinite losses (inputs too short for their targets) and their gradients
            become zero.

    Raises:
        RuntimeError: log_probs not 3-D (or 2-D unbatched) or not float32/float64; blank out of range;
            lengths of the wrong size, negative, non-integral, or input lengths above T; targets of the wrong
            size, rank or values.
        TypeError: lengths that are neither tensors nor sequences.
    """
    unbatched = log_probs.dim() == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        if targets.dim() == 1:
            targets = targets.unsqueeze(0)
    if log_probs.dim() != 3:
        raise RuntimeError("ctc_loss: Expected 3-dimensional tensor, but got {}-dimensional tensor for argument "
                           "#1 'log_probs'".format(log_probs.dim()))
    if log_probs.dtype not in (_C.float32, _C.float64):
        raise RuntimeError("ctc_loss: expected log_probs of dtype float32 or float64, but got {}"
                           .format(log_probs.dtype))
    T, N, C = log_probs.shape
    if not 0 <= blank < C:
        raise RuntimeError("ctc_loss: blank must be in label range")
    input_lengths = _lengths_tensor(input_lengths, "input_lengths")
    target_lengths = _lengths_tensor(target_lengths, "target_lengths")
    if input_lengths.numel() != N:
        raise RuntimeError("ctc_loss: input_lengths must be of size batch_size")
    if target_lengths.numel() != N:
        raise RuntimeError("ctc_loss: target_lengths must be of size batch_size")
    for name, lengths in (("input_lengths", input_lengths), ("target_lengths", target_lengths)):
        if (lengths < 0).any():
            raise RuntimeError("ctc_loss: {} must be non-negative, got {}".format(name, lengths.tolist()))
    if N and input_lengths.max().item() > T:
        raise RuntimeError("ctc_loss: Expected input_lengths to have value at most {}, but got value {}"
                           .format(T, input_lengths.max().item()))
    if targets.is_floating_point():
        targets = targets.long()
    longest = target_lengths.max().item() if N else 0
    total = target_lengths.sum().item()
    if targets.dim() == 2:
        if targets.size(0) != N:
            raise RuntimeError("ctc_loss: Expected tensor to have size {} at dimension 0, but got size {} for "
                               "argument #2 'targets'".format(N, targets.size(0)))
        if targets.size(1) < longest:
            raise RuntimeError("ctc_loss: Expected tensor to have size at least {} at dimension 1, but got size {} "
                               "for argument #2 'targets'".format(longest, targets.size(1)))
        padded = targets[:, :longest].long()
    elif targets.dim() == 1:
        if targets.size(0) != total:
            raise RuntimeError("ctc_loss: Expected tensor to have size {} at dimension 0, but got size {} for "
                               "argument #2 'targets'".format(total, targets.size(0)))
        # the concatenated targets as (N, longest); positions past a target's length read the appended blank
        starts = target_lengths.cumsum(0) - target_lengths
        pos = _ops["arange"](longest).unsqueeze(0)
        where_from = _ops["where"](pos < target_lengths.unsqueeze(1), starts.unsqueeze(1) + pos,
                                   _ops["full"]((N, longest), total, dtype=_C.int64))
        flat = _ops["cat"]([targets.long(), _ops["full"]((1,), blank, dtype=_C.int64)])
        padded = flat.index_select(0, where_from.reshape(-1)).reshape(N, longest)
    else:
        raise RuntimeError("ctc_loss: Expected 1 to 2 dimensions, but got {}-dimensional tensor for argument #2 "
                           "'targets'".format(targets.dim()))
    used = _ops["arange"](longest).unsqueeze(0) < target_lengths.unsqueeze(1)
    if used.any() and ((padded < 0) | (padded >= C))[used].any():
        raise RuntimeError("ctc_loss: target values must be in [0, {}), got {}".format(C, padded[used].tolist()))
    padded = _ops["where"](used, padded, _full_like(padded, blank))
    nll = _CTCLossFunction.apply(log_probs, padded, input_lengths, target_lengths, blank, zero_infinity)
    if zero_infinity:
        nll = _ops["where"](nll == _INF, _zeros_like(nll), nll)
    if reduction == 1:
        return (nll / target_lengths.clamp_min(1).to(nll.dtype)).mean()
    if reduction == 2:
        return nll.sum()
    return nll.squeeze(0) if unbatched else nll
