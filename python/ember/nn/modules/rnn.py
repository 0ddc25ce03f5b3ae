"""The recurrent layers RNN, LSTM, GRU (over whole sequences) and RNNCell, LSTMCell, GRUCell (one step), with
PyTorch's parameter names, shapes, gate order and initialisation so that state dicts interchange. The
computation is ember.lstm / ember.gru / ember.rnn_tanh / ember.rnn_relu and the *_cell functions
(ember/_rnn.py, Note [recurrent loop])."""
import math
import numbers
import warnings

from ... import _C
from ... import _rnn
from ..._rnn import _checking
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _new_param(shape, device, dtype):
    kwargs = {k: v for k, v in (("device", device), ("dtype", dtype)) if v is not None}
    return Parameter(_C._functions["empty"](shape, **kwargs))


def _reset(module):
    """PyTorch's initialisation of the recurrent layers: every parameter, in registration order, from
    U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) (U(0, 0) for hidden_size 0)."""
    bound = 1.0 / math.sqrt(module.hidden_size) if module.hidden_size > 0 else 0
    for weight in module.parameters():
        init.uniform_(weight, -bound, bound)


def _index_hidden(hx, permutation):
    """hx with its batch (dim 1) reordered by permutation (None: unchanged)."""
    return hx if permutation is None else hx.index_select(1, permutation)


class RNNBase(Module):
    r"""What RNN, LSTM and GRU share: the weights of every layer and direction under PyTorch's names and the
    checks of input and hidden state.

    Args:
        mode (str): 'LSTM', 'GRU', 'RNN_TANH' or 'RNN_RELU'.
        input_size (int): features of the input x.
        hidden_size (int): features of the hidden state h (and the LSTM cell state c).
        num_layers (int): stacked layers, each taking the previous one's output. Default: 1.
        bias (bool): whether the layers have b_ih and b_hh. Default: True.
        batch_first (bool): input and output as (batch, seq, feature) rather than (seq, batch, feature); the
            hidden states keep (layers * directions, batch, hidden). Default: False.
        dropout (float): the probability of dropout on the outputs of every layer but the last, in training
            mode. Default: 0.
        bidirectional (bool): a second pass over the reversed sequence per layer, its outputs concatenated
            after the forward pass's. Default: False.
        proj_size (int): LSTM only: project h to this many features with weight_hr (Sak et al., 2014).
            Default: 0 (none).

    Parameters, for layer k and the suffix '' or '_reverse' of the direction (G = 4, 3 or 1 blocks of
    hidden_size for LSTM (i, f, g, o), GRU (r, z, n), RNN; H_out = proj_size or hidden_size):
        weight_ih_l{k}: (G * hidden_size, input_size) for k = 0, else (G * hidden_size, D * H_out)
        weight_hh_l{k}: (G * hidden_size, H_out)
        bias_ih_l{k}, bias_hh_l{k}: (G * hidden_size) when bias
        weight_hr_l{k}: (proj_size, hidden_size) when proj_size > 0
    All drawn from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) in this order, as PyTorch does.

    Raises:
        ValueError: dropout not a number in [0, 1]; proj_size negative or not below hidden_size (also for
            hidden_size 0); an unknown mode.
        IndexError: num_layers below 1 (the layer has no weights), as PyTorch 1.13.
    """
    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
                     "bidirectional", "proj_size"]

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          "expects num_layers greater than 1, but got dropout={} and num_layers={}".format(
                              dropout, num_layers))
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + str(mode))
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        out_size = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(directions):
                suffix = "_reverse" if direction == 1 else ""
                in_size = input_size if layer == 0 else out_size * directions
                shapes = [("weight_ih", (gate_size, in_size)), ("weight_hh", (gate_size, out_size))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                names = []
                for kind, shape in shapes:
                    name = "{}_l{}{}".format(kind, layer, suffix)
                    setattr(self, name, _new_param(shape, device, dtype))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        if not self._flat_weights_names:
            raise IndexError("{}: num_layers must be at least 1, got {} (the layer would have no weights)".format(
                type(self).__name__, num_layers))
        self.reset_parameters()

    @property
    def _flat_weights(self):
        """The parameters in PyTorch's flat order (per layer, per direction: w_ih, w_hh, b_ih, b_hh, w_hr), read
        at each access so that reassigned or parametrized weights are seen."""
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        """The parameters per layer and direction: [[w_ih, w_hh, b_ih, b_hh, w_hr], ...] (as present)."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self):
        """Accepted for PyTorch compatibility: PyTorch packs the weights into one buffer for cuDNN; Ember's CPU
        layers use the parameters as they are, so there is nothing to do."""

    def reset_parameters(self):
        _reset(self)

    def check_input(self, input, batch_sizes):
        """RuntimeError unless input is 3-D (2-D packed data) with input_size features."""
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError("input must have {} dimensions, got {}".format(expected, input.dim()))
        if self.input_size != input.size(-1):
            raise RuntimeError("input.size(-1) must be equal to input_size. Expected {}, got {}".format(
                self.input_size, input.size(-1)))

    def get_expected_hidden_size(self, input, batch_sizes):
        """(num_layers * num_directions, batch, proj_size or hidden_size)."""
        if batch_sizes is not None:
            batch = int(batch_sizes[0])
        else:
            batch = input.size(0) if self.batch_first else input.size(1)
        out_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * (2 if self.bidirectional else 1), batch, out_size)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if hx.size() != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        return _index_hidden(hx, permutation)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _prepare(self, input, hx, state_dims):
        """The shared start of forward: unpacks a PackedSequence, makes unbatched (2-D) input a batch of one
        (checking hx's rank against the input's: state_dims gives the ranks for the error message), and
        returns (input, batch_sizes, sorted_indices, unsorted_indices, hx, batched)."""
        if isinstance(input, PackedSequence):
            data, batch_sizes, sorted_indices, unsorted_indices = input
            return data, batch_sizes, sorted_indices, unsorted_indices, hx, True
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
            if hx is not None:
                if any(d != 2 for d in state_dims(hx)):
                    raise RuntimeError(self._rank_message("unbatched 2-D", 2, state_dims(hx)))
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1)) if self.mode == "LSTM" else hx.unsqueeze(1)
        elif hx is not None and any(d != 3 for d in state_dims(hx)):
            raise RuntimeError(self._rank_message("batched 3-D", 3, state_dims(hx)))
        return input, None, None, None, hx, batched

    def _batch_size(self, input, batch_sizes):
        if batch_sizes is not None:
            return int(batch_sizes[0])
        return input.size(0) if self.batch_first else input.size(1)

    def _zeros(self, input, batch, size):
        return _C._functions["zeros"]((self.num_layers * (2 if self.bidirectional else 1), batch, size),
                                      dtype=input.dtype, device=input.device)

    def _finish(self, output, hidden, batch_sizes, sorted_indices, unsorted_indices, batched):
        """output and hidden back in the caller's form: a PackedSequence with the states in the caller's batch
        order, or unbatched when the input was."""
        if batch_sizes is not None:
            output = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
            return output, self.permute_hidden(hidden, unsorted_indices)
        if not batched:
            output = output.squeeze(0 if self.batch_first else 1)
            hidden = tuple(h.squeeze(1) for h in hidden) if isinstance(hidden, tuple) else hidden.squeeze(1)
        return output, hidden

    def _run(self, fn, input, batch_sizes, hx):
        """fn (ember.lstm, ...) over the padded or packed input with the initial states hx (a list)."""
        if batch_sizes is None:
            return fn(input, hx, self._flat_weights, self.bias, self.num_layers, self.dropout, self.training,
                      self.bidirectional, self.batch_first)
        return fn(input, batch_sizes, hx, self._flat_weights, self.bias, self.num_layers, self.dropout,
                  self.training, self.bidirectional)


class _SingleStateRNN(RNNBase):
    """RNN and GRU: one hidden state h."""

    def _rank_message(self, kind, rank, dims):
        return "For {} input, hx should also be {}-D but got {}-D tensor".format(kind, rank, dims[0])

    def forward(self, input, hx=None):
        input, batch_sizes, sorted_indices, unsorted_indices, hx, batched = self._prepare(
            input, hx, lambda h: (h.dim(),))
        if hx is None:
            hx = self._zeros(input, self._batch_size(input, batch_sizes), self.hidden_size)
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        if _checking():  # Note [checks while tracing] (ember/_rnn.py)
            self.check_forward_args(input, hx, batch_sizes)
        fn = {"GRU": _rnn.gru, "RNN_TANH": _rnn.rnn_tanh, "RNN_RELU": _rnn.rnn_relu}[self.mode]
        output, hidden = self._run(fn, input, batch_sizes, hx)
        return self._finish(output, hidden, batch_sizes, sorted_indices, unsorted_indices, batched)


class RNN(_SingleStateRNN):
    r"""A multi-layer Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu), computed by
    ember.rnn_tanh / ember.rnn_relu.

    Args:
        input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0., bidirectional=False,
        device=None, dtype=None: as :class:`RNNBase` (positional in this order, as PyTorch 1.13).
        nonlinearity (str, keyword): 'tanh' (default) or 'relu'.

    Inputs: input, h_0
        input: (L, N, H_in), (N, L, H_in) with batch_first, (L, H_in) unbatched, or a PackedSequence.
        h_0: (D * num_layers, N, H_out), or (D * num_layers, H_out) unbatched; zeros when omitted.

    Outputs: output, h_n
        output: (L, N, D * H_out) (batch first: (N, L, D * H_out); unbatched (L, D * H_out); packed input gives
        a PackedSequence); h_n: (D * num_layers, N, H_out), the last step of each layer and direction.

    Raises:
        ValueError: proj_size given; an unknown nonlinearity; the arguments RNNBase rejects.
        RuntimeError: input not 3-D (or 2-D unbatched), a wrong feature size, an h_0 of the wrong shape or rank.
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError("Unknown nonlinearity '{}'".format(self.nonlinearity))
        super().__init__(mode, *args, **kwargs)


class GRU(_SingleStateRNN):
    r"""A multi-layer gated recurrent unit (Cho et al., 2014), computed by ember.gru:
        r = sigmoid(W_ir x + b_ir + W_hr h + b_hr),  z = sigmoid(W_iz x + b_iz + W_hz h + b_hz)
        n = tanh(W_in x + b_in + r * (W_hn h + b_hn)),  h' = (1 - z) * n + z * h
    Weights stack the gates in the order r, z, n.

    Args: as :class:`RNN` without nonlinearity. Inputs and outputs as :class:`RNN`.

    Raises:
        ValueError: proj_size given; the arguments RNNBase rejects.
        RuntimeError: as :class:`RNN`.
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


class LSTM(RNNBase):
    r"""A multi-layer long short-term memory network (Hochreiter & Schmidhuber, 1997, with the forget gate of
    Gers et al., 2000), computed by ember.lstm:
        i, f, g, o = sigmoid, sigmoid, tanh, sigmoid of (W_i* x + b_i* + W_h* h + b_h*)
        c' = f * c + i * g,  h' = o * tanh(c')  (then h' = h' W_hr^T when proj_size > 0, Sak et al., 2014)
    Weights stack the gates in the order i, f, g, o.

    Args: input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.,
        bidirectional=False, proj_size=0, device=None, dtype=None (see :class:`RNNBase`).

    Inputs: input, (h_0, c_0)
        input: (L, N, H_in), (N, L, H_in) with batch_first, (L, H_in) unbatched, or a PackedSequence.
        h_0: (D * num_layers, N, H_out), c_0: (D * num_layers, N, hidden_size) (without N when unbatched);
        zeros when omitted. H_out = proj_size or hidden_size.

    Outputs: output, (h_n, c_n)
        output: (L, N, D * H_out) (as RNN's); h_n, c_n: the last step's states of each layer and direction.

    Raises:
        RuntimeError: input not 3-D (or 2-D unbatched), a wrong feature size, states of the wrong shape or
            rank.
    """

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def _rank_message(self, kind, rank, dims):
        return "For {} input, hx and cx should also be {}-D but got ({}-D, {}-D) tensors".format(kind, rank, *dims)

    def get_expected_cell_size(self, input, batch_sizes):
        """(num_layers * num_directions, batch, hidden_size)."""
        return (self.num_layers * (2 if self.bidirectional else 1), self._batch_size(input, batch_sizes),
                self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _index_hidden(hx[0], permutation), _index_hidden(hx[1], permutation)

    def forward(self, input, hx=None):
        input, batch_sizes, sorted_indices, unsorted_indices, hx, batched = self._prepare(
            input, hx, lambda h: (h[0].dim(), h[1].dim()))
        if hx is None:
            batch = self._batch_size(input, batch_sizes)
            hx = (self._zeros(input, batch, self.proj_size if self.proj_size > 0 else self.hidden_size),
                  self._zeros(input, batch, self.hidden_size))
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        if _checking():  # Note [checks while tracing] (ember/_rnn.py)
            self.check_forward_args(input, hx, batch_sizes)
        output, h, c = self._run(_rnn.lstm, input, batch_sizes, [hx[0], hx[1]])
        return self._finish(output, (h, c), batch_sizes, sorted_indices, unsorted_indices, batched)


# ---------------------------------------------------------------------------------------------- cells
class RNNCellBase(Module):
    r"""What RNNCell, LSTMCell and GRUCell share: weight_ih (num_chunks * hidden_size, input_size), weight_hh
    (num_chunks * hidden_size, hidden_size) and, with bias, bias_ih and bias_hh (num_chunks * hidden_size), all
    drawn from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) in this order, as PyTorch does."""
    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = _new_param((num_chunks * hidden_size, input_size), device, dtype)
        self.weight_hh = _new_param((num_chunks * hidden_size, hidden_size), device, dtype)
        if bias:
            self.bias_ih = _new_param((num_chunks * hidden_size,), device, dtype)
            self.bias_hh = _new_param((num_chunks * hidden_size,), device, dtype)
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        _reset(self)

    def _batch(self, input, hx, name):
        """input as (N, H_in) and hx with a batch dim; AssertionError for input not 1-D or 2-D."""
        assert input.dim() in (1, 2), \
            "{}: Expected input to be 1-D or 2-D but received {}-D tensor".format(name, input.dim())
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
            if hx is not None:
                hx = tuple(h.unsqueeze(0) for h in hx) if isinstance(hx, tuple) else hx.unsqueeze(0)
        return input, hx, batched

    def _zeros(self, input):
        return _C._functions["zeros"]((input.size(0), self.hidden_size), dtype=input.dtype, device=input.device)


class RNNCell(RNNCellBase):
    r"""One step of an Elman RNN: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu), by
    ember.rnn_tanh_cell / ember.rnn_relu_cell.

    Args:
        input_size, hidden_size (int); bias (bool) = True; nonlinearity (str) = 'tanh' or 'relu'.

    Inputs: input (N, H_in) or (H_in); hidden (N, H) or (H), zeros when omitted. Output: h' of hidden's shape.

    Raises:
        AssertionError: input not 1-D or 2-D.
        RuntimeError: sizes that disagree with the weights or each other; an unknown nonlinearity.
    """
    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, hx, batched = self._batch(input, hx, "RNNCell")
        if hx is None:
            hx = self._zeros(input)
        if self.nonlinearity == "tanh":
            ret = _rnn.rnn_tanh_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        elif self.nonlinearity == "relu":
            ret = _rnn.rnn_relu_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        else:
            raise RuntimeError("Unknown nonlinearity: {}".format(self.nonlinearity))
        return ret if batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    r"""One LSTM step (gates i, f, g, o; see :class:`LSTM`), by ember.lstm_cell.

    Args:
        input_size, hidden_size (int); bias (bool) = True.

    Inputs: input (N, H_in) or (H_in); (h, c), each (N, H) or (H), zeros when omitted. Output: (h', c').

    Raises:
        AssertionError: input not 1-D or 2-D.
        RuntimeError: sizes that disagree with the weights or each other.
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, hx, batched = self._batch(input, hx if hx is None else tuple(hx), "LSTMCell")
        if hx is None:
            zeros = self._zeros(input)
            hx = (zeros, zeros)
        h, c = _rnn.lstm_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    r"""One GRU step (gates r, z, n; see :class:`GRU`), by ember.gru_cell.

    Args:
        input_size, hidden_size (int); bias (bool) = True.

    Inputs: input (N, H_in) or (H_in); hidden (N, H) or (H), zeros when omitted. Output: h'.

    Raises:
        AssertionError: input not 1-D or 2-D.
        RuntimeError: sizes that disagree with the weights or each other.
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, hx, batched = self._batch(input, hx, "GRUCell")
        if hx is None:
            hx = self._zeros(input)
        ret = _rnn.gru_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return ret if batched else ret.squeeze(0)
