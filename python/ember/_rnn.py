"""The recurrent networks of PyTorch's top-level namespace: ``ember.lstm``, ``ember.gru``, ``ember.rnn_tanh``,
``ember.rnn_relu`` (whole multi-layer, possibly bidirectional networks over a sequence) and their one-step cells
``ember.lstm_cell``, ``ember.gru_cell``, ``ember.rnn_tanh_cell``, ``ember.rnn_relu_cell``, with the signatures of
PyTorch's ``aten::lstm`` etc. ``ember.nn.LSTM``, ``GRU``, ``RNN`` and the cell modules call these, so a traced
model and eager Python run the same code: a trace records the ops below, unrolled over the time steps.

Note [recurrent loop]
A layer's input projection does not depend on the recurrence, so it is one matrix product for the whole
sequence per layer and direction: ``xw = x W_ih^T + b`` with x the (T*B, in) sequence (or the packed rows).
The per-step loop then does only ``h W_hh^T`` (one addmm onto the step's slice of xw) and the gate math. The
slices come from unbind (padded input) or split (packed input), whose backward is one stack / cat, not one
scatter per step. For LSTM and Elman RNNs the two biases are summed once into xw's bias; GRU keeps b_hh in the
recurrent product because its candidate gate scales ``h W_hn^T + b_hn`` by the reset gate.

Gate equations (PyTorch's documented ones, from Hochreiter & Schmidhuber 1997 with the forget gate of Gers et
al. 2000; Cho et al. 2014 for GRU; Sak et al. 2014 for the LSTM projection):
    LSTM: i, f, g, o = split(x W_ih^T + b_ih + h W_hh^T + b_hh) in that order (4 blocks of hidden_size)
          c' = sigmoid(f) * c + sigmoid(i) * tanh(g);  h' = sigmoid(o) * tanh(c')  [then h' W_hr^T with proj]
    GRU:  r, z, n blocks in that order; r = sigmoid(x_r + h_r), z = sigmoid(x_z + h_z),
          n = tanh(x_n + r * h_n) with h_n = h W_hn^T + b_hn;  h' = (1 - z) * n + z * h
    RNN:  h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)  (or relu)

Note [packed recurrence]
A packed sequence's data holds the rows of step t for the batch_sizes[t] longest sequences (sorted by length,
longest first; Note [packed layout] in ember/nn/utils/rnn.py), so from step to step the batch shrinks (forward
direction) or grows (reverse direction). Forward: before step t the rows b_t.. of the state have finished;
they are set aside and joined, lowest rows first, into the final state at the end. Reverse: the state starts
with the batch_sizes[-1] sequences that are long enough at the last step, and the initial state of the others
is appended as their last step comes.
"""
from . import _C
from ._tensor import Tensor

__all__ = ["gru", "gru_cell", "lstm", "lstm_cell", "rnn_relu", "rnn_relu_cell", "rnn_tanh", "rnn_tanh_cell"]

_ops = _C._functions
_cat = _ops["cat"]
_stack = _ops["stack"]
_addmm = _ops["addmm"]
_addcmul = _ops["addcmul"]
_dropout = _ops["dropout"]
_linear = _C._nn.linear


# ---------------------------------------------------------------------------------------------- one step
def _lstm_step(w_hh_t, w_hr_t):
    """The LSTM step (x_t, (h, c)) -> (h', c') for x_t the step's input projection (b, 4H) with both biases."""
    def step(x, state):
        h, c = state
        i, f, g, o = _addmm(x, h, w_hh_t).chunk(4, 1)
        c = _addcmul(f.sigmoid() * c, i.sigmoid(), g.tanh())
        h = o.sigmoid() * c.tanh()
        if w_hr_t is not None:
            h = h.mm(w_hr_t)
        return h, c
    return step


def _gru_step(w_hh_t, b_hh):
    """The GRU step (x_t, (h,)) -> (h',) for x_t the step's input projection (b, 3H) with b_ih."""
    def step(x, state):
        h = state[0]
        x_r, x_z, x_n = x.chunk(3, 1)
        h_r, h_z, h_n = (h.mm(w_hh_t) if b_hh is None else _addmm(b_hh, h, w_hh_t)).chunk(3, 1)
        r = (x_r + h_r).sigmoid()
        z = (x_z + h_z).sigmoid()
        n = _addcmul(x_n, r, h_n).tanh()
        return (_addcmul(n, z, h - n),)
    return step


def _rnn_step(w_hh_t, nonlinearity):
    """The Elman step (x_t, (h,)) -> (tanh or relu(x_t + h W_hh^T),) for x_t with both biases."""
    if nonlinearity == "tanh":
        def step(x, state):
            return (_addmm(x, state[0], w_hh_t).tanh(),)
    else:
        def step(x, state):
            return (_addmm(x, state[0], w_hh_t).relu(),)
    return step


# ---------------------------------------------------------------------------------------------- one direction
def _run(step, xs, state, reverse, batch_sizes):
    """Runs step over the per-step inputs xs (a sequence, in time order) from the state tuple (each (B, *));
    returns (outputs in time order: the first state entry after every step, final state tuple).
    batch_sizes: None for a padded batch, else the packed batch sizes as ints (Note [packed recurrence])."""
    outs = []
    if batch_sizes is None:
        for x in (reversed(xs) if reverse else xs):
            state = step(x, state)
            outs.append(state[0])
        if reverse:
            outs.reverse()
        return outs, state
    if not reverse:
        finished = []
        have = batch_sizes[0]
        for x, b in zip(xs, batch_sizes):
            if b < have:
                finished.append(tuple(s[b:] for s in state))
                state = tuple(s[:b] for s in state)
                have = b
            state = step(x, state)
            outs.append(state[0])
        if not finished:
            return outs, state
        finished.append(state)
        finished.reverse()
        return outs, tuple(_cat([f[k] for f in finished]) for k in range(len(state)))
    initial = state
    have = batch_sizes[-1]
    state = tuple(s[:have] for s in initial)
    for t in range(len(batch_sizes) - 1, -1, -1):
        b = batch_sizes[t]
        if b > have:
            state = tuple(_cat([s, s0[have:b]]) for s, s0 in zip(state, initial))
            have = b
        state = step(xs[t], state)
        outs.append(state[0])
    outs.reverse()
    return outs, state


# ---------------------------------------------------------------------------------------------- whole network
# Note [checks while tracing]
# The checks below compare sizes, and a size read while tracing is a traced tensor (Note [traced sizes] in
# ember/jit/frontend/Tracer.h): comparing it in Python would freeze a constant into nothing and warn. A check
# never becomes part of a graph, so while tracing they are skipped (the example inputs still meet the ops' own
# checks), and the structure of the network is decided from Python values only: the number of params (whether
# an LSTM has projections), the batch sizes of a packed sequence as a list. Sizes the ops need (the batch of a
# view, the initial states' zeros) stay traced, so a traced network follows the batch size of its input.
def _checking():
    return not _C._jit_is_tracing()


def _weight_groups(name, params, has_biases, num_layers, num_directions, lstm):
    """params as one (w_ih, w_hh, b_ih, b_hh, w_hr) tuple per layer and direction (missing ones None), in
    PyTorch's flat order: per layer, per direction, w_ih, w_hh[, b_ih, b_hh][, w_hr]. An LSTM has projections
    (w_hr) when params has one more per layer and direction than without."""
    params = list(params)
    if num_layers < 1:
        raise RuntimeError("{}: num_layers must be at least 1, got {}".format(name, num_layers))
    stride = 2 + 2 * bool(has_biases)
    groups = num_layers * num_directions
    has_proj = lstm and len(params) == (stride + 1) * groups
    stride += has_proj
    if len(params) != stride * groups:
        raise RuntimeError(
            "{}: got an incorrect number of RNN parameters: {} for num_layers={}, bidirectional={}, "
            "has_biases={}; expected {} (w_ih, w_hh{} per layer and direction{})".format(
                name, len(params), num_layers, num_directions == 2, bool(has_biases), stride * groups,
                ", b_ih, b_hh" if has_biases else "", ", and w_hr with projections" if lstm else ""))
    result = []
    for k in range(groups):
        p = params[k * stride:(k + 1) * stride]
        b_ih, b_hh = (p[2], p[3]) if has_biases else (None, None)
        result.append((p[0], p[1], b_ih, b_hh, p[-1] if has_proj else None))
    return result


def _check_network(name, x, batch_sizes, states, groups, num_layers, num_directions):
    """The sizes of input and initial states against the weights (Note [checks while tracing])."""
    if batch_sizes is None:
        if x.dim() != 3:
            raise RuntimeError("{}: input must be 3-D (seq_len, batch, input_size), got {}-D".format(name, x.dim()))
        if x.size(0) == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        batch = x.size(1)
    else:
        if x.dim() != 2:
            raise RuntimeError("{}: packed data must be 2-D (sum of batch_sizes, input_size), got {}-D".format(
                name, x.dim()))
        if sum(batch_sizes) != x.size(0):
            raise RuntimeError("{}: packed data has {} rows but batch_sizes sum to {}".format(
                name, x.size(0), sum(batch_sizes)))
        batch = batch_sizes[0]
    w_ih, w_hh, _, _, w_hr = groups[0]
    if x.size(-1) != w_ih.size(1):
        raise RuntimeError("{}: input has {} features but weight_ih_l0 is {} (gates * hidden, input_size)".format(
            name, x.size(-1), list(w_ih.size())))
    sizes = [w_hh.size(1)] + ([w_hh.size(0) // 4] if len(states) == 2 else [])  # h: H_out; LSTM's c: H
    for k, (s, size) in enumerate(zip(states, sizes)):
        expected = [num_layers * num_directions, batch, size]
        if list(s.size()) != expected:
            raise RuntimeError("{}: initial {} has size {}, expected {} (num_layers * num_directions, batch, "
                               "{})".format(name, "hx" if k == 0 else "cx", list(s.size()), expected,
                                            "hidden_size" if k or w_hr is None else "proj_size"))


def _network(mode, x, batch_sizes, states, params, has_biases, num_layers, dropout, train, bidirectional):
    """The whole network over x: (T, B, in) when batch_sizes is None, else packed rows (N, in) with the batch
    sizes as a list of ints. states: tuple of initial states (L * D, B, *). Returns (output, final states)."""
    num_directions = 2 if bidirectional else 1
    name = mode if mode in ("lstm", "gru") else "rnn_" + mode
    if batch_sizes is not None:
        if not batch_sizes:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        if any(b <= 0 for b in batch_sizes) or any(a < b for a, b in zip(batch_sizes, batch_sizes[1:])):
            raise RuntimeError("{}: batch_sizes must be positive and non-increasing, got {}".format(
                name, batch_sizes))
    groups = _weight_groups(name, params, has_biases, num_layers, num_directions, mode == "lstm")
    if _checking():
        _check_network(name, x, batch_sizes, states, groups, num_layers, num_directions)
    if batch_sizes is None:
        seq_len, batch = x.size(0), x.size(1)
    finals = [[] for _ in states]
    layer_input = x
    for layer in range(num_layers):
        flat = layer_input if batch_sizes is not None else layer_input.flatten(0, 1)
        outputs = []
        for direction in range(num_directions):
            k = layer * num_directions + direction
            w_ih, w_hh, b_ih, b_hh, w_hr = groups[k]
            w_hh_t = w_hh.t()
            # Note [recurrent loop]: the input projection of every step at once
            if mode == "gru":
                bias, step = b_ih, _gru_step(w_hh_t, b_hh)
            else:
                bias = None if b_ih is None else b_ih + b_hh
                step = (_lstm_step(w_hh_t, None if w_hr is None else w_hr.t()) if mode == "lstm"
                        else _rnn_step(w_hh_t, mode))
            xw = flat.mm(w_ih.t()) if bias is None else _addmm(bias, flat, w_ih.t())
            xs = xw.view(seq_len, batch, xw.size(1)).unbind(0) if batch_sizes is None else xw.split(batch_sizes, 0)
            outs, final = _run(step, xs, tuple(s[k] for s in states), direction == 1, batch_sizes)
            outputs.append(_stack(outs) if batch_sizes is None else _cat(outs))
            for f, s in zip(finals, final):
                f.append(s)
        layer_output = outputs[0] if num_directions == 1 else _cat(outputs, -1)
        if dropout > 0 and train and layer < num_layers - 1:
            layer_output = _dropout(layer_output, dropout, True)
        layer_input = layer_output
    return layer_input, tuple(_stack(f) for f in finals)


def _padded(mode, input, states, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    if batch_first:
        input = input.transpose(0, 1)
    out, finals = _network(mode, input, None, states, params, has_biases, num_layers, dropout, train,
                           bidirectional)
    return (out.transpose(0, 1) if batch_first else out,) + finals


def _packed(mode, data, batch_sizes, states, params, has_biases, num_layers, dropout, train, bidirectional):
    if not isinstance(batch_sizes, Tensor) or batch_sizes.dim() != 1:
        raise RuntimeError("{}: batch_sizes must be a 1-D int64 tensor, got {}".format(
            mode, type(batch_sizes).__name__ if not isinstance(batch_sizes, Tensor)
            else "{}-D {}".format(batch_sizes.dim(), batch_sizes.dtype)))
    sizes = [int(b) for b in batch_sizes.tolist()]
    out, finals = _network(mode, data, sizes, states, params, has_biases, num_layers, dropout, train,
                           bidirectional)
    return (out,) + finals


_PADDED = ("input", "hx", "params", "has_biases", "num_layers", "dropout", "train", "bidirectional", "batch_first")
_PACKED = ("data", "batch_sizes", "hx", "params", "has_biases", "num_layers", "dropout", "train", "bidirectional")
_TYPES = {"input": "Tensor", "data": "Tensor", "batch_sizes": "Tensor", "params": "Tensor[]", "has_biases": "bool",
          "num_layers": "int", "dropout": "float", "train": "bool", "bidirectional": "bool", "batch_first": "bool"}


def _bind(name, args, kwargs):
    """(packed, the nine arguments in order) of a call of lstm / gru / rnn_tanh / rnn_relu. The packed overload
    (data, batch_sizes, hx, ...) is the one whose argument at the padded overload's list position (hx for lstm,
    params for the others) is a tensor, or that names data or batch_sizes. TypeError, listing both overloads,
    for arguments that fit neither."""
    position = 1 if name == "lstm" else 2
    packed = "batch_sizes" in kwargs or "data" in kwargs or (len(args) > position and isinstance(args[position],
                                                                                                 Tensor))
    names = _PACKED if packed else _PADDED
    if len(args) > len(names) or set(kwargs) - set(names[len(args):]) or len(args) + len(kwargs) != len(names):
        hx = "Tensor[]" if name == "lstm" else "Tensor"
        raise TypeError("{}() received an invalid combination of arguments, expected one of:\n{}".format(
            name, "\n".join(" * ({})".format(", ".join("{} {}".format(_TYPES.get(n, hx), n) for n in overload))
                            for overload in (_PACKED, _PADDED))))
    given = dict(zip(names, args))
    given.update(kwargs)
    return packed, [given[n] for n in names]


def _call(mode, packed, a, states):
    if packed:
        data, batch_sizes, _, params, has_biases, num_layers, dropout, train, bidirectional = a
        return _packed(mode, data, batch_sizes, states, params, has_biases, num_layers, dropout, train,
                       bidirectional)
    input, _, params, has_biases, num_layers, dropout, train, bidirectional, batch_first = a
    return _padded(mode, input, states, params, has_biases, num_layers, dropout, train, bidirectional, batch_first)


def lstm(*args, **kwargs):
    """A multi-layer LSTM over a sequence (Note [recurrent loop] for the equations), PyTorch's ``aten::lstm``.

    Two overloads, as PyTorch's:
        lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first)
        lstm(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional)

    Args:
        input: (T, B, input_size), or (B, T, input_size) with batch_first.
        data, batch_sizes: a packed sequence's rows (N, input_size) and its int64 batch sizes (T,)
            (``ember.nn.utils.rnn.PackedSequence``).
        hx: [h0, c0], h0 (L * D, B, H_out) and c0 (L * D, B, H), D = 2 if bidirectional else 1, H_out the
            projection size with projections, else H.
        params: the flat weights in PyTorch's order: for each layer, for each direction, w_ih (4H, in),
            w_hh (4H, H_out), then b_ih, b_hh (4H) when has_biases, then w_hr (H_out, H) with projections (which
            params has when it holds one more tensor per layer and direction). Gates in the order i, f, g, o.
        dropout, train: dropout with probability dropout on the outputs of all layers but the last, in
            training only.

    Returns:
        (output, h_n, c_n): output (T, B, D * H_out) (batch first: (B, T, ...); packed: (N, D * H_out)),
        h_n (L * D, B, H_out), c_n (L * D, B, H).

    Raises:
        TypeError: arguments that fit neither overload.
        RuntimeError: hx not of two states; a wrong number of params; states of the wrong sizes; an empty
            sequence; input sizes that do not match the weights.
    """
    packed, a = _bind("lstm", args, kwargs)
    hx = a[2 if packed else 1]
    if len(hx) != 2:
        raise RuntimeError("lstm expects two hidden states (h0, c0), got {}".format(len(hx)))
    return _call("lstm", packed, a, (hx[0], hx[1]))


def _single_state_network(mode, name):
    def network(*args, **kwargs):
        packed, a = _bind(name, args, kwargs)
        hx = a[2 if packed else 1]
        if not isinstance(hx, Tensor):
            raise TypeError("{}: hx must be a Tensor, got {}".format(name, type(hx).__name__))
        return _call(mode, packed, a, (hx,))

    network.__name__ = network.__qualname__ = name
    return network


gru = _single_state_network("gru", "gru")
gru.__doc__ = """A multi-layer GRU over a sequence (Note [recurrent loop] for the equations), PyTorch's ``aten::gru``.

    Two overloads, as PyTorch's:
        gru(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first)
        gru(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional)

    input (T, B, in) or (B, T, in) with batch_first, or a packed sequence's rows (N, in) with its batch sizes;
    hx (L * D, B, H); params for each layer and direction: w_ih (3H, in), w_hh (3H, H), then b_ih, b_hh (3H)
    when has_biases, gates in the order r, z, n. dropout applies to all layers' outputs but the last when train.

    Returns (output, h_n): output (T, B, D * H) (or (B, T, D * H), or packed (N, D * H)), h_n (L * D, B, H).

    Raises TypeError for arguments that fit neither overload, RuntimeError for a wrong number of params, an
    hx of the wrong size, an empty sequence, or input sizes that do not match the weights.
    """

rnn_tanh = _single_state_network("tanh", "rnn_tanh")
rnn_tanh.__doc__ = """A multi-layer Elman RNN with tanh, h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh), over a
    sequence: PyTorch's ``aten::rnn_tanh``, with gru's two overloads and arguments (weights (H, in), (H, H),
    biases (H)). Returns (output, h_n). Raises TypeError and RuntimeError as gru."""

rnn_relu = _single_state_network("relu", "rnn_relu")
rnn_relu.__doc__ = """A multi-layer Elman RNN with relu, h' = relu(x W_ih^T + b_ih + h W_hh^T + b_hh), over a
    sequence: PyTorch's ``aten::rnn_relu``, with gru's two overloads and arguments. Returns (output, h_n).
    Raises TypeError and RuntimeError as gru."""


# ---------------------------------------------------------------------------------------------- cells
def _check_cell(input, hx, w_ih, w_hh, index):
    """PyTorch's checks of a cell's input (B, in) and state (B, H) against w_ih (G, in) and w_hh (G, H)."""
    if input.size(1) != w_ih.size(1):
        raise RuntimeError("input has inconsistent input_size: got {} expected {}".format(input.size(1),
                                                                                       w_ih.size(1)))
    if input.size(0) != hx.size(0):
        raise RuntimeError("Input batch size {} doesn't match hidden{} batch size {}".format(input.size(0), index,
                                                                                           hx.size(0)))
    if hx.size(1) != w_hh.size(1):
        raise RuntimeError("hidden{} has inconsistent hidden_size: got {}, expected {}".format(index, hx.size(1),
                                                                                           w_hh.size(1)))


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step (PyTorch's ``aten::lstm_cell``): input (B, in), hx = [h (B, H), c (B, H)], w_ih (4H, in),
    w_hh (4H, H), optional biases (4H); gates i, f, g, o. Returns (h', c'), each (B, H).

    Raises RuntimeError when hx is not two tensors or the sizes of input, h, c and the weights disagree.
    """
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    h, c = hx
    _check_cell(input, h, w_ih, w_hh, 0)
    _check_cell(input, c, w_ih, w_hh, 1)
    i, f, g, o = (_linear(input, w_ih, b_ih) + _linear(h, w_hh, b_hh)).chunk(4, 1)
    c = _addcmul(f.sigmoid() * c, i.sigmoid(), g.tanh())
    return o.sigmoid() * c.tanh(), c


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step (PyTorch's ``aten::gru_cell``): input (B, in), hx (B, H), w_ih (3H, in), w_hh (3H, H),
    optional biases (3H); gates r, z, n (Note [recurrent loop]). Returns h' (B, H).

    Raises RuntimeError when the sizes of input, hx and the weights disagree.
    """
    _check_cell(input, hx, w_ih, w_hh, 0)
    x_r, x_z, x_n = _linear(input, w_ih, b_ih).chunk(3, 1)
    h_r, h_z, h_n = _linear(hx, w_hh, b_hh).chunk(3, 1)
    r = (x_r + h_r).sigmoid()
    z = (x_z + h_z).sigmoid()
    n = _addcmul(x_n, r, h_n).tanh()
    return _addcmul(n, z, hx - n)


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman step with tanh (PyTorch's ``aten::rnn_tanh_cell``): tanh(input W_ih^T + b_ih + hx W_hh^T +
    b_hh), input (B, in), hx (B, H), w_ih (H, in), w_hh (H, H), optional biases (H). Returns (B, H).

    Raises RuntimeError when the sizes of input, hx and the weights disagree.
    """
    _check_cell(input, hx, w_ih, w_hh, 0)
    return (_linear(input, w_ih, b_ih) + _linear(hx, w_hh, b_hh)).tanh()


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman step with relu (PyTorch's ``aten::rnn_relu_cell``): relu(input W_ih^T + b_ih + hx W_hh^T +
    b_hh), with rnn_tanh_cell's shapes and errors."""
    _check_cell(input, hx, w_ih, w_hh, 0)
    return (_linear(input, w_ih, b_ih) + _linear(hx, w_hh, b_hh)).relu()
