"""Activation modules: each calls its ember.nn.functional function with the settings given to the
constructor, and prints them as PyTorch's extra_repr does."""
import warnings

from .. import functional as F
from .. import init as _init
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear, _empty
from .module import Module

__all__ = ["Threshold", "ReLU", "ReLU6", "Hardtanh", "LeakyReLU", "ELU", "CELU", "SELU", "GELU", "SiLU", "Mish",
           "Sigmoid", "Tanh", "Softplus", "Hardsigmoid", "Hardswish", "LogSigmoid", "GLU", "Softmax", "LogSoftmax",
           "Softmin", "Softsign", "Tanhshrink"]
__all__ += ["PReLU", "RReLU", "Hardshrink", "Softshrink", "Softmax2d", "MultiheadAttention"]


def _inplace_str(inplace, sep=", "):
    return sep + "inplace=True" if inplace else ""


class _InplaceActivation(Module):
    """An activation whose only setting is inplace (ReLU, SELU, SiLU, Mish, Hardsigmoid, Hardswish);
    subclasses name their function in _fn and whether their repr shows inplace."""

    _fn = None
    _repr_inplace = True

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return type(self)._fn(input, inplace=self.inplace)

    def extra_repr(self):
        return _inplace_str(self.inplace, "") if self._repr_inplace else ""


class ReLU(_InplaceActivation):
    """max(x, 0)."""
    _fn = F.relu


class SELU(_InplaceActivation):
    """scale * elu(x, alpha) with SELU's constants."""
    _fn = F.selu


class SiLU(_InplaceActivation):
    """x * sigmoid(x)."""
    _fn = F.silu


class Mish(_InplaceActivation):
    """x * tanh(softplus(x))."""
    _fn = F.mish


class Hardsigmoid(_InplaceActivation):
    """min(max(x + 3, 0), 6) / 6."""
    _fn = F.hardsigmoid
    _repr_inplace = False


class Hardswish(_InplaceActivation):
    """x * min(max(x + 3, 0), 6) / 6."""
    _fn = F.hardswish
    _repr_inplace = False


class Threshold(Module):
    """x where x > threshold, else value."""

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return "threshold={}, value={}{}".format(self.threshold, self.value, _inplace_str(self.inplace))


class Hardtanh(Module):
    """min(max(x, min_val), max_val) (min_value/max_value: deprecated names)."""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None):
        super().__init__()
        if min_value is not None:
            warnings.warn("keyword argument min_value is deprecated and rename to min_val")
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument max_value is deprecated and rename to max_val")
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        assert self.max_val > self.min_val

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return "min_val={}, max_val={}{}".format(self.min_val, self.max_val, _inplace_str(self.inplace))


class ReLU6(Hardtanh):
    """min(max(x, 0), 6)."""

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return _inplace_str(self.inplace, "")


class LeakyReLU(Module):
    """x if x > 0 else negative_slope * x."""

    def __init__(self, negative_slope=1e-2, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return "negative_slope={}{}".format(self.negative_slope, _inplace_str(self.inplace))


class ELU(Module):
    """x if x > 0 else alpha * (exp(x) - 1)."""
    _fn = F.elu

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return type(self)._fn(input, self.alpha, self.inplace)

    def extra_repr(self):
        return "alpha={}{}".format(self.alpha, _inplace_str(self.inplace))


class CELU(ELU):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    _fn = F.celu


class GELU(Module):
    """x * Phi(x), or its tanh approximation (approximate='tanh')."""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return "approximate={}".format(repr(self.approximate))


class Sigmoid(Module):
    """1 / (1 + exp(-x))."""

    def forward(self, input):
        return input.sigmoid()


class Tanh(Module):
    """tanh(x)."""

    def forward(self, input):
        return input.tanh()


class Softsign(Module):
    """x / (1 + |x|)."""

    def forward(self, input):
        return F.softsign(input)


class Tanhshrink(Module):
    """x - tanh(x)."""

    def forward(self, input):
        return F.tanhshrink(input)


class LogSigmoid(Module):
    """log(sigmoid(x))."""

    def forward(self, input):
        return F.logsigmoid(input)


class Softplus(Module):
    """log(1 + exp(beta * x)) / beta (x where beta * x > threshold)."""

    def __init__(self, beta=1, threshold=20):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return "beta={}, threshold={}".format(self.beta, self.threshold)


class GLU(Module):
    """a * sigmoid(b) for the halves a, b of the input along dim."""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return "dim={}".format(self.dim)


class _SoftmaxBase(Module):
    """Softmax, LogSoftmax and Softmin: the function _fn along dim (None: PyTorch's deprecated implicit
    choice, with its warning)."""

    _fn = None

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def forward(self, input):
        return type(self)._fn(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return "dim={dim}".format(dim=self.dim)


class Softmax(_SoftmaxBase):
    """exp(x) / sum(exp(x)) along dim."""
    _fn = F.softmax


class LogSoftmax(_SoftmaxBase):
    """log(softmax(x)) along dim."""
    _fn = F.log_softmax


class Softmin(_SoftmaxBase):
    """softmax(-x) along dim."""
    _fn = F.softmin


# ---------------------------------------------------------------------------------------------- more activations
class Hardshrink(Module):
    """0 where -lambd <= x <= lambd, else x."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return "{}".format(self.lambd)


class Softshrink(Module):
    """x - lambd where x > lambd, x + lambd where x < -lambd, else 0."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.softshrink(input, self.lambd)

    def extra_repr(self):
        return str(self.lambd)


class PReLU(Module):
    r"""Parametric ReLU (He et al., 2015): x where x > 0, else a * x, with a learnt slope a shared by all
    channels (num_parameters=1) or one per channel (num_parameters = the size of dim 1 of the input).

    Args:
        num_parameters (int): 1 or the number of channels. Default: 1.
        init (float): the initial slope. Default: 0.25.

    Attributes:
        weight (Parameter): (num_parameters), filled with init.
    """

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(_empty(num_parameters, device, dtype))
        self.reset_parameters()

    def reset_parameters(self):
        _init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return "num_parameters={}".format(self.num_parameters)


class RReLU(Module):
    r"""Randomized leaky ReLU (Xu et al., 2015): x where x > 0, else a * x with a drawn from U(lower, upper)
    per element in training and a = (lower + upper) / 2 in evaluation. See ember.nn.functional.rrelu."""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return "lower={}, upper={}{}".format(self.lower, self.upper, _inplace_str(self.inplace))


class Softmax2d(Module):
    """Softmax over the channels (dim -3) of (N, C, H, W) or (C, H, W) input, at each location.

    Raises:
        AssertionError: an input that is not 3-D or 4-D (as PyTorch's assert).
    """

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise AssertionError("Softmax2d: expected input to be 3D or 4D, got {}D instead".format(input.dim()))
        return F.softmax(input, -3, _stacklevel=5)


# ---------------------------------------------------------------------------------------------- attention
class MultiheadAttention(Module):
    r"""Multi-head attention (Vaswani et al., "Attention Is All You Need", 2017):
    ``out_proj(concat(head_1, ..., head_h))`` with ``head_i = softmax(q W_i^Q (k W_i^K)^T / sqrt(d) + mask)
    v W_i^V`` and d = embed_dim / num_heads. See ember.nn.functional.multi_head_attention_forward.

    Args:
        embed_dim (int): E, the query's features and the output's.
        num_heads (int): the number of heads; E must be divisible by it.
        dropout (float): dropout probability on the attention weights in training. Default: 0.
        bias (bool): the input and output projections have biases. Default: True.
        add_bias_kv (bool): learn one more key and value (bias_k, bias_v) appended to the sequence.
        add_zero_attn (bool): append one more key and value of zeros.
        kdim, vdim (int, optional): the key's and value's features (E when None). When either differs from E,
            the projections are the separate q_proj_weight (E, E), k_proj_weight (E, kdim) and v_proj_weight
            (E, vdim) instead of in_proj_weight (3E, E).
        batch_first (bool): inputs and output are (N, L, E) rather than (L, N, E). Default: False.

    Attributes (PyTorch's names, so that its state dicts load):
        in_proj_weight (3E, E) or q_proj_weight, k_proj_weight, v_proj_weight; in_proj_bias (3E);
        out_proj (NonDynamicallyQuantizableLinear E -> E); bias_k, bias_v (1, 1, E).
        Initialised as PyTorch's: xavier_uniform_ on the projection weights (after out_proj's own Linear
        initialisation), zeros on in_proj_bias and out_proj.bias, xavier_normal_ on bias_k and bias_v.

    Shape (forward(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True)):
        query (L, N, E), key (S, N, kdim), value (S, N, vdim) (batch first when batch_first; (L, E), (S, kdim),
        (S, vdim) unbatched, whatever batch_first); key_padding_mask (N, S) or (S); attn_mask (L, S) or
        (N * num_heads, L, S). Returns (attn_output (L, N, E), attn_weights (N, L, S) averaged over the heads
        or (N, num_heads, L, S), or None when not need_weights).

    Raises:
        AssertionError: embed_dim not divisible by num_heads (and the input checks of the function).
    """
    __constants__ = ["batch_first"]

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")

        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(_empty((3 * embed_dim, embed_dim), device, dtype))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        else:
            self.q_proj_weight = Parameter(_empty((embed_dim, embed_dim), device, dtype))
            self.k_proj_weight = Parameter(_empty((embed_dim, self.kdim), device, dtype))
            self.v_proj_weight = Parameter(_empty((embed_dim, self.vdim), device, dtype))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_empty(3 * embed_dim, device, dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, device=device, dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(_empty((1, 1, embed_dim), device, dtype))
            self.bias_v = Parameter(_empty((1, 1, embed_dim), device, dtype))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            _init.xavier_uniform_(self.in_proj_weight)
        else:
            _init.xavier_uniform_(self.q_proj_weight)
            _init.xavier_uniform_(self.k_proj_weight)
            _init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            _init.constant_(self.in_proj_bias, 0.0)
            _init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            _init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            _init.xavier_normal_(self.bias_v)

    def __setstate__(self, state):
        state.setdefault("_qkv_same_embed_dim", True)
        super().__setstate__(state)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True):
        if key_padding_mask is not None and not (key_padding_mask.dtype.is_floating_point
                                                 or key_padding_mask.dtype == _bool_dtype()):
            raise AssertionError("only bool and floating types of key_padding_mask are supported")
        batched = query.dim() == 3
        if self.batch_first and batched:
            # Keep the identities q is k is v / k is v: the function shares the projection products then.
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = [x.transpose(1, 0) for x in (query, key)]
                    value = key
            else:
                query, key, value = [x.transpose(1, 0) for x in (query, key, value)]
        separate = not self._qkv_same_embed_dim
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
            self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=separate, q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights)
        if self.batch_first and batched:
            return out.transpose(1, 0), weights
        return out, weights


def _bool_dtype():
    from ... import bool as bool_
    return bool_
