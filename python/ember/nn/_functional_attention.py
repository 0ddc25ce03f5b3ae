"""The attention and activation part of ember.nn.functional: multi-head attention (PyTorch 1.13's
``multi_head_attention_forward``), scaled dot-product attention (PyTorch 2.x's ``scaled_dot_product_attention``),
and the activations and dropouts written over Ember's ops (prelu, rrelu, softshrink, gumbel_softmax,
alpha/feature/channel-wise dropout).

Attention follows Vaswani et al., "Attention Is All You Need" (2017): softmax(Q K^T / sqrt(d) + mask) V per
head, with PyTorch's conventions for masks and layouts (see Note [attention masks]).
"""
import math
import warnings

from .. import _C
from .. import _attention

_ops = dict(_C._functions)
_ops.update((name, fn) for name, fn in vars(_C._nn).items() if not name.startswith("__"))

__all__ = [
    "multi_head_attention_forward", "scaled_dot_product_attention",
    "prelu", "rrelu", "rrelu_", "softshrink", "gumbel_softmax",
    "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout",
]


def _ember():
    import ember
    return ember


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))


# ---------------------------------------------------------------------------------------------- activations
def prelu(input, weight):
    r"""``x`` where ``x > 0``, else ``weight * x``: weight holds 1 slope or one per channel (dim 1 of input).
    See ember.prelu."""
    return _attention.prelu(input, weight)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    r"""Randomized leaky ReLU: slopes drawn from U(lower, upper) per non-positive element in training, the
    slope (lower + upper) / 2 otherwise. See ember.rrelu."""
    if inplace:
        return _attention.rrelu_(input, lower, upper, training)
    return _attention.rrelu(input, lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """rrelu in place."""
    return _attention.rrelu_(input, lower, upper, training)


def softshrink(input, lambd=0.5):
    r"""Soft shrinkage: ``x - lambd`` where ``x > lambd``, ``x + lambd`` where ``x < -lambd``, else 0.

    Args:
        input (Tensor): floating, any shape.
        lambd (float): the threshold, >= 0. Default: 0.5.

    Returns:
        Tensor: input's shape and dtype (NaN gives 0, as PyTorch 1.13); the gradient is 1 outside
        [-lambd, lambd], else 0 (0 at NaN too, as PyTorch's vectorized kernel; its scalar loop gives 1).

    Raises:
        RuntimeError: a negative lambd, or a non-floating input.
    """
    if lambd < 0:
        raise RuntimeError("softshrink: lambda must be greater or equal to 0, but found to be {}.".format(lambd))
    if not input.dtype.is_floating_point:
        raise RuntimeError("softshrink: expected a floating-point input, but got {}".format(input.dtype))
    ember = _ember()
    zero = ember.zeros((), dtype=input.dtype)
    # NaN compares false both ways and gives 0, as PyTorch 1.13's kernel.
    return ember.where(input > lambd, input - lambd, ember.where(input < -lambd, input + lambd, zero))


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    r"""A sample of the Gumbel-softmax (concrete) distribution (Jang et al., "Categorical Reparameterization
    with Gumbel-Softmax", 2016; Maddison et al., "The Concrete Distribution", 2016):
    ``softmax((logits + g) / tau, dim)`` with g = -log(Exp(1)) drawn per element (Gumbel(0, 1)).

    Args:
        logits (Tensor): (..., num_features) unnormalized log-probabilities.
        tau (float): the temperature, > 0. Default: 1.
        hard (bool): return the one-hot vector of each argmax instead, differentiated as the soft sample
            (straight-through: ``y_hard - y_soft.detach() + y_soft``). Default: False.
        eps (float): deprecated, without effect (a warning when changed).
        dim (int): the dim of the categories. Default: -1.

    Returns:
        Tensor: logits' shape; each slice along dim sums to 1 (one-hot when hard). The exponential draws are
        PyTorch's under the same seed.
    """
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.")
    ember = _ember()
    gumbels = -ember.empty(tuple(logits.shape), dtype=logits.dtype).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = ember.zeros(tuple(logits.shape), dtype=logits.dtype).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


# ---------------------------------------------------------------------------------------------- dropout
def alpha_dropout(input, p=0.5, training=False, inplace=False):
    r"""Alpha dropout (for SELU networks): see ember.alpha_dropout. Raises ValueError for p outside [0, 1]."""
    _check_p(p)
    return (_attention.alpha_dropout_ if inplace else _attention.alpha_dropout)(input, p, training)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    r"""Channel-wise alpha dropout of (N, C, *) input: see ember.feature_alpha_dropout. Raises ValueError for
    p outside [0, 1]."""
    _check_p(p)
    return (_attention.feature_alpha_dropout_ if inplace else _attention.feature_alpha_dropout)(input, p, training)


def _feature_dropout(input, p, training, inplace, unbatched_dim):
    """feature_dropout of input, first given a batch dim of 1 when its rank is unbatched_dim."""
    unbatched = input.dim() == unbatched_dim
    if unbatched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    out = (_attention.feature_dropout_ if inplace else _attention.feature_dropout)(input, p, training)
    if unbatched:
        out = out.squeeze_(0) if inplace else out.squeeze(0)
    return out


def dropout1d(input, p=0.5, training=True, inplace=False):
    r"""Zeroes whole channels of (N, C, L) or (C, L) input with probability p (scaling the rest by
    1 / (1 - p)) in training.

    Raises:
        ValueError: p outside [0, 1].
        RuntimeError: an input that is not 2-D or 3-D.
    """
    _check_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError("dropout1d: Expected 2D or 3D input, but received a {}D input. Note that dropout1d "
                           "exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel "
                           "dimension, and an optional batch dimension (i.e. 2D or 3D inputs).".format(input.dim()))
    return _feature_dropout(input, p, training, inplace, unbatched_dim=2)


def dropout2d(input, p=0.5, training=True, inplace=False):
    r"""Zeroes whole channels of (N, C, H, W) input with probability p (scaling the rest by 1 / (1 - p)) in
    training. As PyTorch 1.13, a 3-D input is taken as (N, C, L) (with a warning), and other ranks warn that
    they are deprecated.

    Raises:
        ValueError: p outside [0, 1].
    """
    _check_p(p)
    if input.dim() not in (3, 4):
        warnings.warn("dropout2d: Received a {}-D input to dropout2d, which is deprecated and will result in an "
                      "error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout2d exists to provide channel-wise dropout on inputs with "
                      "2 spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D "
                      "inputs).".format(input.dim()))
    if input.dim() == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "This behavior will change in a future release to interpret the input as one without a "
                      "batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, "
                      "please switch to using dropout1d instead.")
    return (_attention.feature_dropout_ if inplace else _attention.feature_dropout)(input, p, training)


def dropout3d(input, p=0.5, training=True, inplace=False):
    r"""Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) input with probability p (scaling the rest by
    1 / (1 - p)) in training. Other ranks warn that they are deprecated (a 4-D input is unbatched).

    Raises:
        ValueError: p outside [0, 1].
    """
    _check_p(p)
    if input.dim() not in (4, 5):
        warnings.warn("dropout3d: Received a {}-D input to dropout3d, which is deprecated and will result in an "
                      "error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout3d exists to provide channel-wise dropout on inputs with "
                      "3 spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D "
                      "inputs).".format(input.dim()))
    unbatched = input.dim() != 5
    if unbatched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    out = (_attention.feature_dropout_ if inplace else _attention.feature_dropout)(input, p, training)
    if unbatched:
        out = out.squeeze_(0) if inplace else out.squeeze(0)
    return out


# ---------------------------------------------------------------------------------------------- SDPA
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *,
                                 scale=None):
    r"""Scaled dot-product attention, ``softmax(query @ key^T * scale + bias) @ value`` (PyTorch 2.x's
    ``torch.nn.functional.scaled_dot_product_attention``; PyTorch 1.13 has no public form).

    Args:
        query (Tensor): (..., L, E).
        key (Tensor): (..., S, E).
        value (Tensor): (..., S, Ev). The leading dims of the three broadcast together.
        attn_mask (Tensor, optional): broadcastable to (..., L, S). A bool mask keeps the positions where it
            is True (the others get -inf); a floating mask is added to the scores.
        dropout_p (float): dropout probability applied to the attention weights (always, when > 0).
        is_causal (bool): a lower-triangular mask: query i attends keys j <= i (top-left aligned when L != S).
        scale (float, optional): the factor of the scores; 1 / sqrt(E) when None.

    Returns:
        Tensor: (..., L, Ev). A query row whose keys are all masked gives NaN, as PyTorch 2.x's reference.

    Raises:
        RuntimeError: both attn_mask and is_causal; query, key and value of different dtypes or of fewer
            than 2 dims; key and value of different lengths S; a mask of another dtype than bool or query's.
    """
    ember = _ember()
    for name, t in (("query", query), ("key", key), ("value", value)):
        if t.dim() < 2:
            raise RuntimeError("scaled_dot_product_attention: expected {} of at least 2 dims (..., seq, "
                               "features), but got shape {}".format(name, tuple(t.shape)))
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError("scaled_dot_product_attention: Expected query, key, and value to have the same dtype, "
                           "but got query.dtype: {}, key.dtype: {} and value.dtype: {} instead.".format(
                               query.dtype, key.dtype, value.dtype))
    if key.size(-2) != value.size(-2):
        raise RuntimeError("scaled_dot_product_attention: key and value must have the same sequence length S, but "
                           "got key of shape {} and value of shape {}".format(tuple(key.shape), tuple(value.shape)))
    if is_causal and attn_mask is not None:
        raise RuntimeError("scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    L, S = query.size(-2), key.size(-2)
    if scale is None:
        scale = 1.0 / math.sqrt(query.size(-1))
    if is_causal:
        attn_mask = ember.ones((L, S), dtype=ember.bool).tril()
    bias = None
    if attn_mask is not None:
        if attn_mask.dtype == ember.bool:
            bias = ember.zeros(tuple(attn_mask.shape), dtype=query.dtype).masked_fill_(attn_mask.logical_not(),
                                                                                       float("-inf"))
        elif attn_mask.dtype == query.dtype:
            bias = attn_mask
        else:
            raise RuntimeError("scaled_dot_product_attention: Expected attn_mask dtype to be bool or to match "
                               "query dtype ({}), but got {}".format(query.dtype, attn_mask.dtype))
    scores = query.matmul(key.transpose(-2, -1)) * scale
    if bias is not None:
        scores = scores + bias
    weights = scores.softmax(-1)
    if dropout_p > 0.0:
        weights = _ops["dropout"](weights, dropout_p, True)
    return weights.matmul(value)


# ---------------------------------------------------------------------------------------------- multi-head attention
# Note [attention masks]
# MultiheadAttention takes two masks, both in PyTorch 1.13's "True = masked" convention (the opposite of
# scaled_dot_product_attention's bool mask):
# - attn_mask (L, S) or (N * num_heads, L, S): bool (True: may not attend), uint8 (deprecated, as bool) or
#   floating (added to the scores);
# - key_padding_mask (N, S) (or (S) unbatched): bool (True: a padding key, ignored) or floating (added).
# Both become one additive float mask (N * num_heads, L or 1, S): two bool masks are or-ed, a bool key padding
# mask fills -inf into a float attn_mask, and a float key padding mask is added (to the float form of a bool
# attn_mask). That is what PyTorch 1.13 documents ("a float mask is added") and what PyTorch 2.x does; 1.13
# itself departs from it when a float key_padding_mask meets an attn_mask (with a bool attn_mask it counts
# every nonzero entry as masked, with a float one its masked_fill reads the float mask's bytes as bools) and
# in its fused inference kernels (MultiheadAttention and TransformerEncoderLayer without autograd, in eval
# mode, batch first), which also count a nonzero float key padding entry as masked. The usual float masks,
# 0 and -inf, mean the same under every reading.
# bias_k/bias_v and add_zero_attn append one key each, so each mask is padded with one column that masks
# nothing.
def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """True for batched (3-D) input, False for unbatched (2-D); AssertionError naming the mismatch otherwise."""
    if query.dim() == 3:
        if not (key.dim() == 3 and value.dim() == 3):
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D but found {}-D "
                                 "and {}-D tensors respectively".format(key.dim(), value.dim()))
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                                 "found {}-D tensor instead".format(key_padding_mask.dim()))
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 "found {}-D tensor instead".format(attn_mask.dim()))
        return True
    if query.dim() == 2:
        if not (key.dim() == 2 and value.dim() == 2):
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                 "{}-D and {}-D tensors respectively".format(key.dim(), value.dim()))
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D "
                                 "but found {}-D tensor instead".format(key_padding_mask.dim()))
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                                     "but found {}-D tensor instead".format(attn_mask.dim()))
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
                raise AssertionError("Expected `attn_mask` shape to be {} but got {}".format(
                    expected, tuple(attn_mask.shape)))
        return False
    raise AssertionError("query should be unbatched 2D or batched 3D tensor but received {}-D query "
                         "tensor".format(query.dim()))


def _linear(x, w, b):
    return _ops["linear"](x, w, b)


def _in_projection_packed(q, k, v, w, b):
    """q, k, v projected by the rows [0, E), [E, 2E), [2E, 3E) of the packed (3E, E) weight w (and bias b).
    Self-attention (q is k is v) and encoder-decoder attention (k is v) share one matrix product."""
    E = q.size(-1)
    if k is v:
        if q is k:
            return tuple(_linear(q, w, b).chunk(3, -1))
        w_q, w_kv = w.split([E, 2 * E])
        b_q, b_kv = (None, None) if b is None else b.split([E, 2 * E])
        return (_linear(q, w_q, b_q),) + tuple(_linear(k, w_kv, b_kv).chunk(2, -1))
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return _linear(q, w_q, b_q), _linear(k, w_k, b_k), _linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q, b_k, b_v):
    """q, k, v projected by separate weights (E, E), (E, kdim), (E, vdim) and biases (E)."""
    Eq, Ek, Ev = q.size(-1), k.size(-1), v.size(-1)
    for what, t, shape in (("query weights", w_q, (Eq, Eq)), ("key weights", w_k, (Eq, Ek)),
                           ("value weights", w_v, (Eq, Ev))):
        if tuple(t.shape) != shape:
            raise AssertionError("expecting {} shape of {}, but got {}".format(what, shape, tuple(t.shape)))
    for what, t in (("query bias", b_q), ("key bias", b_k), ("value bias", b_v)):
        if t is not None and tuple(t.shape) != (Eq,):
            raise AssertionError("expecting {} shape of {}, but got {}".format(what, (Eq,), tuple(t.shape)))
    return _linear(q, w_q, b_q), _linear(k, w_k, b_k), _linear(v, w_v, b_v)


def _pad_last(mask):
    """mask with one more entry at the end of its last dim: 0 / False, which masks nothing."""
    return _C._nn.pad(mask, [0, 1], "constant", None)


def _canonical_attn_mask(attn_mask, bsz, num_heads, tgt_len, src_len):
    """attn_mask as bool or floating (1 or N * num_heads, L, S); RuntimeError for a wrong shape or rank."""
    ember = _ember()
    if attn_mask.dtype == ember.uint8:
        warnings.warn("Byte tensor for attn_mask in nn.MultiheadAttention is deprecated. Use bool tensor instead.")
        attn_mask = attn_mask.to(ember.bool)
    elif not (attn_mask.dtype.is_floating_point or attn_mask.dtype == ember.bool):
        raise AssertionError("Only float, byte, and bool types are supported for attn_mask, not {}".format(
            attn_mask.dtype))
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError("The shape of the 2D attn_mask is {}, but should be {}.".format(
                attn_mask.shape, (tgt_len, src_len)))
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError("The shape of the 3D attn_mask is {}, but should be {}.".format(
                attn_mask.shape, (bsz * num_heads, tgt_len, src_len)))
        return attn_mask
    raise RuntimeError("attn_mask's dimension {} is not supported".format(attn_mask.dim()))


def _additive(mask, dtype):
    """A bool mask (True: masked) as the float mask of dtype that adds -inf there and 0 elsewhere."""
    ember = _ember()
    return ember.zeros(tuple(mask.shape), dtype=dtype).masked_fill_(mask, float("-inf"))


def _heads_first(x, length, bsz, num_heads, head_dim):
    """(length, N, num_heads * head_dim) -> (N * num_heads, length, head_dim)."""
    return x.contiguous().view(length, bsz * num_heads, head_dim).transpose(0, 1)


def _static_kv(t, name, bsz, num_heads, head_dim):
    if t.size(0) != bsz * num_heads:
        raise AssertionError("expecting {}.size(0) of {}, but got {}".format(name, bsz * num_heads, t.size(0)))
    if t.size(2) != head_dim:
        raise AssertionError("expecting {}.size(2) of {}, but got {}".format(name, head_dim, t.size(2)))
    return t


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True):
    r"""Multi-head attention (Vaswani et al., 2017) in PyTorch 1.13's sequence-first layout:
    ``out_proj(concat_h(softmax(Q_h K_h^T / sqrt(head_dim) + mask) V_h))`` with Q, K, V the input projections.

    Args:
        query (Tensor): (L, N, E) or unbatched (L, E).
        key (Tensor): (S, N, E_k) or (S, E_k); value (Tensor): (S, N, E_v) or (S, E_v). E_k and E_v may differ
            from E only with use_separate_proj_weight.
        embed_dim_to_check (int): E, checked against query.
        num_heads (int): the number of heads; E must be divisible by it (head_dim = E / num_heads).
        in_proj_weight (Tensor): (3E, E), the rows of the q, k and v projections (unless
            use_separate_proj_weight); in_proj_bias (Tensor, optional): (3E).
        bias_k, bias_v (Tensor, optional): (1, 1, E) each, appended as one more key and value.
        add_zero_attn (bool): append one more key and value of zeros (after the projections).
        dropout_p (float): dropout probability on the attention weights, when training.
        out_proj_weight (Tensor): (E, E); out_proj_bias (Tensor, optional): (E).
        training (bool): apply dropout.
        key_padding_mask (Tensor, optional): (N, S) or (S): bool (True: ignore that key) or floating (added).
        need_weights (bool): also return the attention weights.
        attn_mask (Tensor, optional): (L, S) or (N * num_heads, L, S): bool (True: may not attend), uint8
            (deprecated) or floating (added). See Note [attention masks].
        use_separate_proj_weight (bool): project with q_proj_weight (E, E), k_proj_weight (E, E_k) and
            v_proj_weight (E, E_v) instead of in_proj_weight.
        static_k, static_v (Tensor, optional): (N * num_heads, S, head_dim) keys/values used instead of the
            projected ones.
        average_attn_weights (bool): average the returned weights over the heads.

    Returns:
        (attn_output, attn_weights): attn_output (L, N, E) or (L, E); attn_weights (N, L, S') averaged,
        (N, num_heads, L, S') per head (without N when unbatched), or None when not need_weights, where S'
        counts the keys added by bias_k and add_zero_attn.

    Raises:
        AssertionError: inconsistent ranks or shapes of the inputs, weights or key_padding_mask, E not divisible
            by num_heads, a key_padding_mask neither bool nor floating, bias_k without bias_v (or either with
            static keys) — the checks PyTorch makes with assert.
        RuntimeError: an attn_mask of the wrong shape or rank.
    """
    ember = _ember()
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)

    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    if key_padding_mask is not None and not (key_padding_mask.dtype == ember.bool
                                             or key_padding_mask.dtype.is_floating_point):
        raise AssertionError("only bool and floating types of key_padding_mask are supported")
    if embed_dim != embed_dim_to_check:
        raise AssertionError("was expecting embedding dimension of {}, but got {}".format(embed_dim_to_check,
                                                                                        embed_dim))
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError("embed_dim {} not divisible by num_heads {}".format(embed_dim, num_heads))
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError("key's sequence and batch dims {} do not match value's {}".format(
                tuple(key.shape[:2]), tuple(value.shape[:2])))
    elif tuple(key.shape) != tuple(value.shape):
        raise AssertionError("key shape {} does not match value shape {}".format(key.shape, value.shape))

    # input projections
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, w in (("q_proj_weight", q_proj_weight), ("k_proj_weight", k_proj_weight),
                        ("v_proj_weight", v_proj_weight)):
            if w is None:
                raise AssertionError("use_separate_proj_weight is True but {} is None".format(name))
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v)

    if attn_mask is not None:
        attn_mask = _canonical_attn_mask(attn_mask, bsz, num_heads, tgt_len, src_len)

    # one more key and value from bias_k / bias_v
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = ember.cat([k, bias_k.repeat(1, bsz, 1)])
        v = ember.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    elif bias_k is not None or bias_v is not None:
        raise AssertionError("bias_k and bias_v must both be given or both be None")

    # (length, N, E) -> (N * num_heads, length, head_dim)
    q = _heads_first(q, tgt_len, bsz, num_heads, head_dim)
    if static_k is None:
        k = _heads_first(k, k.shape[0], bsz, num_heads, head_dim)
    else:
        k = _static_kv(static_k, "static_k", bsz, num_heads, head_dim)
    if static_v is None:
        v = _heads_first(v, v.shape[0], bsz, num_heads, head_dim)
    else:
        v = _static_kv(static_v, "static_v", bsz, num_heads, head_dim)

    if add_zero_attn:
        zeros = ember.zeros((bsz * num_heads, 1, head_dim), dtype=k.dtype)
        k = ember.cat([k, zeros], 1)
        v = ember.cat([v, zeros.to(v.dtype)], 1)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    src_len = k.size(1)

    # one additive mask (Note [attention masks])
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError("expecting key_padding_mask shape of {}, but got {}".format(
                (bsz, src_len), key_padding_mask.shape))
        key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1).reshape(
            bsz * num_heads, 1, src_len)
        if attn_mask is None:
            attn_mask = key_padding_mask
        elif key_padding_mask.dtype == ember.bool:
            if attn_mask.dtype == ember.bool:
                attn_mask = attn_mask.logical_or(key_padding_mask)
            else:
                attn_mask = attn_mask.masked_fill(key_padding_mask, float("-inf"))
        else:
            if attn_mask.dtype == ember.bool:
                attn_mask = _additive(attn_mask, q.dtype)
            attn_mask = attn_mask + key_padding_mask
    if attn_mask is not None and attn_mask.dtype == ember.bool:
        attn_mask = _additive(attn_mask, q.dtype)

    if not training:
        dropout_p = 0.0

    # attention: (N * num_heads, L, S) weights, (N * num_heads, L, head_dim) output
    q_scaled = q / math.sqrt(q.size(-1))
    if attn_mask is not None:
        weights = ember.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
    else:
        weights = ember.bmm(q_scaled, k.transpose(-2, -1))
    weights = weights.softmax(-1)
    if dropout_p > 0.0:
        weights = _ops["dropout"](weights, dropout_p, True)
    out = ember.bmm(weights, v)
    out = out.transpose(0, 1).contiguous().view(tgt_len * bsz, embed_dim)
    out = _linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.size(1))

    if not need_weights:
        return (out if is_batched else out.squeeze(1)), None
    weights = weights.view(bsz, num_heads, tgt_len, src_len)
    if average_attn_weights:
        weights = weights.sum(1) / num_heads
    if not is_batched:
        out, weights = out.squeeze(1), weights.squeeze(0)
    return out, weights
