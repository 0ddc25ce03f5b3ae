"""The Transformer of Vaswani et al., "Attention Is All You Need" (NeurIPS 2017), as PyTorch 1.13's
torch.nn.Transformer and its parts: encoder and decoder layers (self-attention, cross-attention, feed-forward,
each wrapped in dropout, a residual connection and layer normalization), their stacks, and the whole model.

Module trees, parameter names and initialisation are PyTorch's, so that its state dicts load and a seed gives
its initial weights.
"""
import copy

from .. import functional as F
from .. import init
from .activation import GELU, MultiheadAttention, ReLU
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = ["Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
           "TransformerDecoderLayer"]


def _ember():
    import ember
    return ember


def _get_clones(module, n):
    """n independent deep copies of module (the same initial weights in each)."""
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _get_activation_fn(activation):
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError("activation should be relu/gelu, not {}".format(activation))


def _check_padding_mask_dtype(mask):
    ember = _ember()
    if mask is not None and not (mask.dtype == ember.bool or mask.dtype.is_floating_point):
        raise AssertionError("only bool and floating types of key_padding_mask are supported")


class Transformer(Module):
    r"""An encoder-decoder Transformer (Vaswani et al., 2017).

    Args:
        d_model (int): the features of the inputs and output. Default: 512.
        nhead (int): the attention heads. Default: 8.
        num_encoder_layers, num_decoder_layers (int): the stack heights. Default: 6 each.
        dim_feedforward (int): the hidden features of the feed-forward blocks. Default: 2048.
        dropout (float): the dropout probability everywhere. Default: 0.1.
        activation (str or callable): the feed-forward activation, "relu", "gelu" or a unary callable.
        custom_encoder, custom_decoder (Module, optional): used instead of the built stacks.
        layer_norm_eps (float): the eps of every LayerNorm. Default: 1e-5.
        batch_first (bool): inputs and output are (N, seq, E) rather than (seq, N, E). Default: False.
        norm_first (bool): layer norm before each block (pre-LN) rather than after the residual sum.

    Every parameter of more than one dim is re-initialised with xavier_uniform_ after construction.

    Shape (forward(src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
    tgt_key_padding_mask=None, memory_key_padding_mask=None)):
        src (S, N, E), tgt (T, N, E) (batch first when batch_first; (S, E), (T, E) unbatched); src_mask (S, S) or
        (N * nhead, S, S); tgt_mask (T, T) or (N * nhead, T, T); memory_mask (T, S); key padding masks (N, S),
        (N, T), (N, S) or unbatched (S), (T), (S). Masks are bool (True: masked) or floating (added). Returns
        (T, N, E) (or as tgt's layout).

    Raises:
        RuntimeError: batched src and tgt of different batch sizes, or features other than d_model.
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation=F.relu, custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, device=None, dtype=None):
        super().__init__()
        factory = dict(device=device, dtype=dtype)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            encoder_layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    layer_norm_eps, batch_first, norm_first, **factory)
            encoder_norm = LayerNorm(d_model, eps=layer_norm_eps, **factory)
            self.encoder = TransformerEncoder(encoder_layer, num_encoder_layers, encoder_norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            decoder_layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    layer_norm_eps, batch_first, norm_first, **factory)
            decoder_norm = LayerNorm(d_model, eps=layer_norm_eps, **factory)
            self.decoder = TransformerDecoder(decoder_layer, num_decoder_layers, decoder_norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None):
        batched = src.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if batched and src.size(batch_dim) != tgt.size(batch_dim):
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask)

    @staticmethod
    def generate_square_subsequent_mask(sz, device="cpu"):
        r"""The (sz, sz) float causal mask: 0 on and below the diagonal, -inf above it (position i may attend
        positions j <= i)."""
        ember = _ember()
        return ember.triu(ember.full((sz, sz), float("-inf"), device=device), diagonal=1)

    def _reset_parameters(self):
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)


# Note [nested-tensor encoder]
# PyTorch 1.13's TransformerEncoder, when it may take its "sparsity fast path" (inference without autograd,
# batch_first, post-LN ReLU/GELU layers of an even head count, a left-aligned src_key_padding_mask and no
# src mask, enable_nested_tensor), packs the sequences into a nested tensor without their padding and pads the
# result back with zeros: the outputs at padding positions are 0 before the final norm, where the masked
# computation gives values that nothing attends to. The other positions equal the masked computation (a key
# padding mask removes exactly those keys, and the feed-forward blocks act per position). Ember computes the
# masked stack and writes the zeros under the same conditions, so outputs are PyTorch's in every mode.
def _left_aligned(keep):
    """keep (N, S) bool: True when every row is some Trues followed only by Falses."""
    ember = _ember()
    k = keep.to(ember.int64)
    return bool((k[:, 1:] <= k[:, :-1]).all().item()) if keep.size(1) > 1 else True


class TransformerEncoder(Module):
    r"""A stack of num_layers copies of encoder_layer, then the optional norm.

    Args:
        encoder_layer (TransformerEncoderLayer): the layer to copy (deep copies: equal initial weights).
        num_layers (int): the number of layers.
        norm (Module, optional): applied to the output of the last layer.
        enable_nested_tensor (bool): accepted as PyTorch's; see Note [nested-tensor encoder] for the one effect
            it has on values (zeros at padding positions in inference). Default: True.
        mask_check (bool): check that src_key_padding_mask is left-aligned before taking that path.

    forward(src, mask=None, src_key_padding_mask=None): shapes as Transformer's src, src_mask and
    src_key_padding_mask.
    """
    __constants__ = ["norm"]

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check

    def _zeroes_padding(self, src, mask, src_key_padding_mask):
        """Whether PyTorch's nested-tensor path applies (Note [nested-tensor encoder])."""
        ember = _ember()
        if src_key_padding_mask is None or mask is not None or src.dim() != 3 or not self.enable_nested_tensor:
            return False
        first = self.layers[0] if len(self.layers) else None
        if not isinstance(first, TransformerEncoderLayer) or first.norm_first or first.training:
            return False
        attn = first.self_attn
        if (not attn.batch_first or not attn._qkv_same_embed_dim or not first.activation_relu_or_gelu
                or first.norm1.eps != first.norm2.eps or attn.num_heads % 2 == 1):
            return False
        if getattr(self, "mask_check", True) and not _left_aligned(src_key_padding_mask.logical_not()):
            return False
        tensors = (src, attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight, attn.out_proj.bias,
                   first.norm1.weight, first.norm1.bias, first.norm2.weight, first.norm2.bias,
                   first.linear1.weight, first.linear1.bias, first.linear2.weight, first.linear2.bias)
        if ember.is_grad_enabled() and any(t is not None and t.requires_grad for t in tensors):
            return False
        return True

    def forward(self, src, mask=None, src_key_padding_mask=None):
        _check_padding_mask_dtype(src_key_padding_mask)
        zero_padding = self._zeroes_padding(src, mask, src_key_padding_mask)
        padding = src_key_padding_mask
        if zero_padding:
            # The nested path keeps the positions where logical_not(mask) is True: a floating mask's nonzero
            # entries remove their keys altogether, as a bool mask's True entries do.
            padding = src_key_padding_mask.to(_ember().bool)
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, src_key_padding_mask=padding)
        if zero_padding:
            output = output.masked_fill(padding.unsqueeze(-1), 0.0)
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoder(Module):
    r"""A stack of num_layers copies of decoder_layer, then the optional norm.

    forward(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None): shapes as Transformer's, memory being the encoder's output.
    """
    __constants__ = ["norm"]

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None):
        output = tgt
        for layer in self.layers:
            output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                           tgt_key_padding_mask=tgt_key_padding_mask,
                           memory_key_padding_mask=memory_key_padding_mask)
        if self.norm is not None:
            output = self.norm(output)
        return output


def _relu_or_gelu(activation):
    """1 for ReLU, 2 for GELU, 0 for any other activation (PyTorch's activation_relu_or_gelu)."""
    if activation is F.relu or isinstance(activation, ReLU):
        return 1
    if activation is F.gelu or isinstance(activation, GELU):
        return 2
    return 0


class TransformerEncoderLayer(Module):
    r"""Self-attention then a feed-forward block, each with dropout, a residual connection and LayerNorm:
    ``x = norm1(x + sa(x)); x = norm2(x + ff(x))``, or with norm_first ``x = x + sa(norm1(x));
    x = x + ff(norm2(x))``, where ``ff(x) = dropout2(linear2(dropout(activation(linear1(x)))))`` and
    ``sa(x) = dropout1(self_attn(x, x, x))``.

    Args:
        d_model (int): the features of the input. nhead (int): the attention heads.
        dim_feedforward (int): the hidden features of ff. Default: 2048.
        dropout (float): every dropout's probability (the attention's too). Default: 0.1.
        activation (str or callable): "relu", "gelu" or a unary callable. Default: F.relu.
        layer_norm_eps (float): Default: 1e-5. batch_first (bool): Default: False. norm_first (bool): Default:
            False.

    forward(src, src_mask=None, src_key_padding_mask=None): src (S, N, E), (N, S, E) or (S, E); src_mask (S, S)
    or (N * nhead, S, S); src_key_padding_mask (N, S) or (S).

    Raises:
        RuntimeError: an activation string other than "relu" or "gelu".
        AssertionError: a key padding mask neither bool nor floating.
    """
    __constants__ = ["batch_first", "norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, device=None, dtype=None):
        super().__init__()
        factory = dict(device=device, dtype=dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, **factory)
        self.linear1 = Linear(d_model, dim_feedforward, **factory)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, **factory)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, **factory)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, **factory)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        self.activation_relu_or_gelu = _relu_or_gelu(activation)
        self.activation = activation

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "activation"):
            self.activation = F.relu

    def forward(self, src, src_mask=None, src_key_padding_mask=None):
        _check_padding_mask_dtype(src_key_padding_mask)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


class TransformerDecoderLayer(Module):
    r"""Self-attention, cross-attention over memory, then a feed-forward block, each with dropout, a residual
    connection and LayerNorm (norm1..norm3; before each block with norm_first, after the residual sum
    otherwise). Arguments as TransformerEncoderLayer's.

    forward(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None): tgt (T, N, E), memory (S, N, E) (batch first when batch_first; (T, E),
    (S, E) unbatched); tgt_mask (T, T) or (N * nhead, T, T); memory_mask (T, S) or (N * nhead, T, S); key
    padding masks (N, T) and (N, S).
    """
    __constants__ = ["batch_first", "norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, device=None, dtype=None):
        super().__init__()
        factory = dict(device=device, dtype=dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, **factory)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                                 **factory)
        self.linear1 = Linear(d_model, dim_feedforward, **factory)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, **factory)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, **factory)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, **factory)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, **factory)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _get_activation_fn(activation) if isinstance(activation, str) else activation

    def __setstate__(self, state):
        state.setdefault("activation", F.relu)
        super().__setstate__(state)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)
