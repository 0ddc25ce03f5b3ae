"""The losses and distances of ember.nn.functional beyond issue 3's (PyTorch 1.13's torch.nn.functional):
KL divergence, Poisson and Gaussian NLL, the margin, hinge and triplet losses, CTC, cosine similarity,
pairwise distance, pdist, bilinear and embedding_bag.

Each function takes PyTorch's arguments: a reduction string ('none' / 'mean' / 'sum', see ember.nn._reduction)
and, where PyTorch has them, the legacy size_average/reduce booleans (with PyTorch's deprecation warning). The
ones PyTorch keeps at its top level call ember's (ember/_losses.py) with the reduction as an int; the others
are written here.
"""
import warnings

from .. import _C
from .. import _losses
from . import _reduction as _Reduction

__all__ = [
    "kl_div", "poisson_nll_loss", "gaussian_nll_loss", "margin_ranking_loss", "hinge_embedding_loss",
    "cosine_embedding_loss", "soft_margin_loss", "multilabel_margin_loss", "multilabel_soft_margin_loss",
    "multi_margin_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss", "ctc_loss",
    "cosine_similarity", "pairwise_distance", "pdist", "bilinear", "embedding_bag",
]

_ops = _C._functions


def _reduction_string(size_average, reduce, reduction):
    """reduction, or the one the legacy size_average/reduce stand for when either is given (with a warning)."""
    if size_average is not None or reduce is not None:
        return _Reduction.legacy_get_string(size_average, reduce)
    return reduction


def _reduction_int(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        return _Reduction.legacy_get_enum(size_average, reduce)
    return _Reduction.get_enum(reduction)


# ---------------------------------------------------------------------------------------------- distances
cosine_similarity = _losses.cosine_similarity
pairwise_distance = _losses.pairwise_distance
bilinear = _losses.bilinear


def pdist(input, p=2):
    r"""The p-norm distances between the rows of input (N, M): the upper triangle of cdist(input, input),
    row by row, shape (N * (N - 1) / 2,). See ember.pdist.

    Raises:
        RuntimeError: input not 2-D or not floating point; p negative.
    """
    return _ops["pdist"](input, p)


# ---------------------------------------------------------------------------------------------- losses
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    r"""Kullback-Leibler divergence loss of log-probabilities input against target (probabilities, or
    log-probabilities with log_target): target * (log(target) - input) element-wise, see ember.kl_div.

    reduction: 'none', 'sum', 'mean' (over all elements; PyTorch warns that this is not the KL divergence,
    which 'batchmean' gives: the sum divided by the batch size input.size(0)).

    Raises:
        ValueError: an unknown reduction. RuntimeError: integral inputs.
    """
    if size_average is not None or reduce is not None:
        reduction_enum = _Reduction.legacy_get_enum(size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                          "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                          "'mean' will be changed to behave the same as 'batchmean' in the next major release.")
        reduction_enum = _Reduction.get_enum("sum" if reduction == "batchmean" else reduction)
    reduced = _losses.kl_div(input, target, reduction_enum, log_target=log_target)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size(0)
    return reduced


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    r"""Negative log likelihood of target under Poisson(input): exp(input) - target * input when log_input
    (input is the log rate), else input - target * log(input + eps); full adds Stirling's term for targets
    above 1. See ember.poisson_nll_loss.

    Raises:
        ValueError: an unknown reduction.
    """
    reduction = _reduction_string(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    return _losses.poisson_nll_loss(input, target, log_input, full, eps, _Reduction.get_enum(reduction))


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    r"""Negative log likelihood of target under N(input, var):
    0.5 * (log(max(var, eps)) + (input - target)^2 / max(var, eps)) (+ 0.5 * log(2 pi) with full).

    The clamp of var at eps is invisible to autograd (the gradient is that of the unclamped var).

    Shapes: input (N, *) or (*); target broadcastable to input; var of input's shape, or of it with the last
    dim 1 or missing (one variance for all of a sample's features: homoscedastic).

    Raises:
        ValueError: var of another size, a negative var, an unknown reduction.
    """
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = var.unsqueeze(-1)
        elif not (input.size()[:-1] == var.size()[:-1] and var.size(-1) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if (var < 0).any():
        raise ValueError("var has negative entry/entries")
    var = var.clone()
    from ..autograd import no_grad
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * _LOG_2PI
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


_LOG_2PI = 1.8378770664093453  # log(2 pi)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    r"""max(0, -target * (input1 - input2) + margin), see ember.margin_ranking_loss.

    Raises:
        RuntimeError: inputs and target of different numbers of dims.
    """
    reduction_enum = _reduction_int(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError("margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           "input1: {}, input2: {}, target: {} ".format(input1.size(), input2.size(), target.size()))
    return _losses.margin_ranking_loss(input1, input2, target, margin, reduction_enum)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    r"""input where target is 1, max(0, margin - input) where it is -1; see ember.hinge_embedding_loss."""
    return _losses.hinge_embedding_loss(input, target, margin, _reduction_int(size_average, reduce, reduction))


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    r"""1 - cos(input1, input2) for target 1, max(0, cos - margin) for target -1, over the last dim of (N, D)
    or (D) inputs; see ember.cosine_embedding_loss."""
    return _losses.cosine_embedding_loss(input1, input2, target, margin,
                                         _reduction_int(size_average, reduce, reduction))


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    r"""log(1 + exp(-target * input)) element-wise (a two-class logistic loss with targets 1 / -1), reduced
    over all elements. input and target broadcast together.

    Raises:
        RuntimeError: an integral input.
    """
    reduction_enum = _reduction_int(size_average, reduce, reduction)
    if not input.is_floating_point():
        raise RuntimeError("soft_margin_loss: expected a floating-point input, but got {}".format(input.dtype))
    return _losses._apply_reduction((-input * target).exp().log1p(), reduction_enum)


def _margin_shapes(name, input, target):
    """(N, C) of a margin loss' (C), (N, C) or 0-dim input, with PyTorch's checks."""
    if input.dim() > 2 or input.dim() == 1 and input.numel() == 0 or input.dim() == 2 and input.size(1) == 0:
        raise RuntimeError("{}: Expected non-empty vector or matrix with optional 0-dim batch size, but got: {}"
                           .format(name, list(input.shape)))
    if not input.is_floating_point():
        raise RuntimeError("{}: expected a floating-point input, but got {}".format(name, input.dtype))
    if target.dtype != _C.int64:
        raise RuntimeError("{}: expected scalar type Long but found {}".format(name, _type_name(target.dtype)))
    if input.dim() == 2:
        return input.size(0), input.size(1)
    return 1, 1 if input.dim() == 0 else input.size(0)


def _type_name(dtype):
    return {_C.float32: "Float", _C.float64: "Double", _C.float16: "Half", _C.bfloat16: "BFloat16",
            _C.int32: "Int", _C.int16: "Short", _C.int8: "Char", _C.uint8: "Byte", _C.bool: "Bool",
            _C.int64: "Long"}.get(dtype, str(dtype))


def _positive_part(z):
    """z where z > 0, else 0 (the gradient is 0 at z == 0, as the margin kernels of PyTorch)."""
    return _ops["where"](z > 0, z, _ops["zeros_like"](z))


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    r"""Multi-class multi-label hinge loss: for each sample,
    sum over its target classes j and its non-target classes i of max(0, 1 - (x[j] - x[i])) / C.

    A sample's target classes are the leading entries of its target row, up to the first -1.

    Shapes: input (C) or (N, C) (also 0-dim, as C = 1); target int64 of input's shape. The result is
    (N) for 2-D input with reduction 'none', else 0-dim.

    Raises:
        RuntimeError: input of more than 2 dims or with no classes, a non-floating input, a target that is not
            int64 or of another size, a target class out of [0, C).
    """
    reduction_enum = _reduction_int(size_average, reduce, reduction)
    name = "multilabel_margin_loss"
    n, c = _margin_shapes(name, input, target)
    if input.dim() <= 1 and not (target.dim() <= 1 and target.numel() == c) or \
            input.dim() == 2 and tuple(target.shape) != tuple(input.shape):
        raise RuntimeError("{}: inconsistent size {} for argument #2 'target'".format(name, list(target.shape)))
    x = input.reshape(n, c)
    y = target.reshape(n, c)
    # the target classes of each row: its entries before the first -1
    listed = (y != -1).long().cumprod(1).bool()
    if (listed & ((y < 0) | (y >= c))).any():
        raise RuntimeError("{}: argument #2 'target' is out of range".format(name))
    y_safe = _ops["where"](listed, y, _ops["zeros_like"](y))
    is_target = _ops["zeros"]((n, c), dtype=_C.int64).scatter_add(1, y_safe, listed.long()) > 0
    x_target = x.gather(1, y_safe)  # (N, C): x at the j-th listed class
    hinge = _positive_part(1 - x_target.unsqueeze(2) + x.unsqueeze(1))  # (N, j, i)
    counted = listed.unsqueeze(2) & ~is_target.unsqueeze(1)
    per_sample = _ops["where"](counted, hinge, _ops["zeros_like"](hinge)).sum((1, 2)) / c
    if reduction_enum == 0:
        return per_sample if input.dim() == 2 else per_sample.reshape(())
    return _losses._apply_reduction(per_sample, reduction_enum)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    r"""Multi-label one-versus-all logistic loss: for each sample, the mean over its C classes (the last dim)
    of -(y log(sigmoid(x)) + (1 - y) log(sigmoid(-x))), each class scaled by weight.

    Shapes: input (N, C) or (*, C); target of input's shape (0 / 1); weight (C); the result drops the class
    dim with reduction 'none'.

    Raises:
        ValueError: an unknown reduction. IndexError: a 0-dim input.
    """
    from . import functional as F

    reduction = _reduction_string(size_average, reduce, reduction)
    loss = -(target * F.logsigmoid(input) + (1 - target) * F.logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    classes = input.size(class_dim)
    loss = loss.sum(class_dim) / classes
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    r"""Multi-class hinge loss: for each sample with class y,
    sum over the classes i != y of weight[y] * max(0, margin - x[y] + x[i])^p / C.

    Shapes: input (C) or (N, C) (also 0-dim); target int64 (N) (or () / (1) for one sample); weight (C).
    With reduction 'none' the result has target's shape.

    Raises:
        ValueError: p other than 1 and 2, a weight that is not 1-D, an unknown reduction.
        RuntimeError: input of more than 2 dims or with no classes, a non-floating input, a target that is not
            int64 or of another size, a target out of [0, C), a weight of another size than C.
    """
    reduction_enum = _reduction_int(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    name = "multi_margin_loss"
    n, c = _margin_shapes(name, input, target)
    if target.dim() > 1 or target.numel() != n:
        raise RuntimeError("{}: inconsistent target size, got: {}".format(name, list(target.shape)))
    if weight is not None and weight.numel() != c:
        raise RuntimeError("{}: inconsistent weight size, expected {} but got {}".format(name, c,
                                                                                         list(weight.shape)))
    x = input.reshape(n, c)
    y = target.reshape(n, 1)
    if ((y < 0) | (y >= c)).any():
        raise RuntimeError("{}: target out of range".format(name))
    h = _positive_part(margin - x.gather(1, y) + x)
    if p == 2:
        h = h * h
    if weight is not None:
        h = h * weight.gather(0, y.reshape(-1)).unsqueeze(1)
    others = _ops["arange"](c).unsqueeze(0) != y
    per_sample = _ops["where"](others, h, _ops["zeros_like"](h)).sum(1) / c
    if reduction_enum == 0:
        return per_sample.reshape(target.shape)
    return _losses._apply_reduction(per_sample, reduction_enum)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    r"""max(0, margin + d(anchor, positive) - d(anchor, negative)) with the p-norm pairwise_distance d; see
    ember.triplet_margin_loss.

    Raises:
        RuntimeError: inputs of different numbers of dims. ValueError: an unknown reduction.
    """
    reduction_enum = _reduction_int(size_average, reduce, reduction)
    return _losses.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction_enum)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    r"""max(0, d(anchor, positive) - d(anchor, negative) + margin) for any distance_function d (a callable of
    two tensors returning a tensor of non-negative distances; default pairwise_distance). swap takes the
    negative distance as min(d(anchor, negative), d(positive, negative)).

    Raises:
        ValueError: an unknown reduction.
    """
    distance = distance_function if distance_function is not None else pairwise_distance
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = _ops["min"](dist_neg, distance(positive, negative))
    loss = (dist_pos - dist_neg + margin).clamp(min=0.0)
    return _losses._apply_reduction(loss, _Reduction.get_enum(reduction))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    r"""Connectionist temporal classification loss (Graves et al., ICML 2006); see ember.ctc_loss for the
    shapes, the errors and the gradient.

    Args:
        log_probs (Tensor): (T, N, C) or (T, C) log-probabilities.
        targets (Tensor): (N, S) padded or (sum(target_lengths)) concatenated class indices.
        input_lengths, target_lengths (Tensor or tuple of ints): (N) lengths.
        blank (int): the blank class. Default 0.
        reduction (str): 'none', 'mean' (each loss divided by its target length, then averaged), 'sum'.
        zero_infinity (bool): zero the infinite losses and their gradients.
    """
    return _losses.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                            _Reduction.get_enum(reduction), zero_infinity)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    r"""Sums, means or maxima of bags of embeddings, without building the (bag, length, D) lookups.

    Args:
        input (Tensor): int64/int32 indices: (B, N) fixed-length bags, or (L) with offsets.
        weight (Tensor): (num_embeddings, D).
        offsets (Tensor, optional): (B) start of each bag in a 1-D input (B + 1 boundaries with
            include_last_offset); must be None for a 2-D input.
        max_norm (float, optional): rows looked up whose norm_type-norm exceeds it are first rescaled to it,
            in weight, in place.
        scale_grad_by_freq (bool): divide the gradient of each row by its count in input.
        mode (str): 'sum', 'mean' (default) or 'max'.
        sparse (bool): accepted; Ember computes a dense gradient.
        per_sample_weights (Tensor, optional): of input's shape, scales each looked-up row (mode 'sum').
        include_last_offset (bool): offsets has B + 1 entries, the last one the end of the last bag.
        padding_idx (int, optional): entries equal to it are left out of their bag and get no gradient.

    Returns:
        Tensor: (B, D); an empty bag gives zeros.

    Raises:
        ValueError: offsets with a 2-D input or missing for a 1-D one, input of another rank, an unknown
            mode, max mode with scale_grad_by_freq or sparse, per_sample_weights of another shape.
        NotImplementedError: per_sample_weights with a mode other than 'sum'.
        RuntimeError: see ember.embedding_bag.
    """
    if weight.dtype == _C.int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, "
                      "input, ...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.")
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError("embedding_bag: If per_sample_weights ({}) is not None, then it must have the same shape "
                         "as the input ({})".format(per_sample_weights.shape, input.shape))
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             "fixed length sequences. However, found offsets of type {}".format(type(offsets)))
        if input.size(1) == 0:
            raise RuntimeError("embedding_bag: a 2-D input of {} has bags of no entries (step must be nonzero)"
                               .format(list(input.shape)))
        offsets = _ops["arange"](0, input.numel(), input.size(1), dtype=input.dtype)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError("input has to be 1D or 2D Tensor, but got Tensor of dimension {}".format(input.dim()))
    if mode == "sum":
        mode_enum = 0
    elif mode == "mean":
        mode_enum = 1
    elif mode == "max":
        mode_enum = 2
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    else:
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:
        # rescale the rows looked up, in place and outside the graph (as F.embedding does)
        from ..autograd import no_grad
        with no_grad():
            _ops["embedding_renorm_"](weight, input.contiguous(), max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  "supported for mode='sum' (got mode='{}'). Please open a feature request on "
                                  "GitHub.".format(mode))
    return _losses.embedding_bag(weight, input, offsets, scale_grad_by_freq, mode_enum, sparse, per_sample_weights,
                                 include_last_offset, padding_idx)[0]
