"""The recurrent layers of ember.nn (RNN, LSTM, GRU, RNNCell, LSTMCell, GRUCell), the network functions
ember.lstm / gru / rnn_tanh / rnn_relu and their cells, and ember.nn.utils.rnn, against PyTorch 1.13: outputs
and final states, input / initial-state / parameter gradients, initial values under the same seed (bit-exact),
state dicts loaded from PyTorch's modules, repr, and errors (type and message)."""
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.nn as enn
from ember.nn.utils import rnn as ernn
from torch.nn.utils import rnn as trnn


def to_torch(t, requires_grad=False):
    return torch.from_numpy(np.array(t.detach().numpy())).requires_grad_(requires_grad)


def to_ember(t, requires_grad=False):
    return ember.tensor(t.detach().numpy(), requires_grad=requires_grad)


def close(a, b, atol=1e-5, rtol=1e-4):
    a = a.detach().numpy()
    b = b.detach().numpy()
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, atol=atol, rtol=rtol)


def randn(shape, seed, dtype=np.float32, requires_grad=True):
    """The same random values as an (ember, torch) pair of leaves."""
    x = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return ember.tensor(x, requires_grad=requires_grad), torch.tensor(x, requires_grad=requires_grad)


def seeded(name, *args, seed=0, **kwargs):
    """The layer `name` built by both frameworks right after the same manual_seed; a name ending in '_relu' is
    RNN with nonlinearity='relu'."""
    if name.endswith("_relu"):
        name, kwargs = name[:-5], dict(kwargs, nonlinearity="relu")
    tkwargs = dict(kwargs)
    if "dtype" in kwargs:
        tkwargs["dtype"] = getattr(torch, str(kwargs["dtype"]).split(".")[-1])
    ember.manual_seed(seed)
    em = getattr(enn, name)(*args, **kwargs)
    torch.manual_seed(seed)
    tm = getattr(torch.nn, name)(*args, **tkwargs)
    return em, tm


def raises_like(efn, tfn, match_message=True):
    """Both raise the same exception type (and, with match_message, message)."""
    with pytest.raises(Exception) as tinfo:
        tfn()
    with pytest.raises(Exception) as einfo:
        efn()
    assert type(einfo.value) is type(tinfo.value), (einfo.value, tinfo.value)
    if match_message:
        assert str(einfo.value) == str(tinfo.value)


def flat_states(h):
    return list(h) if isinstance(h, tuple) else [h]


# ---------------------------------------------------------------------------------------------- layers
MODES = ["RNN", "RNN_relu", "GRU", "LSTM"]
CONFIGS = [
    dict(),
    dict(num_layers=2),
    dict(bidirectional=True),
    dict(num_layers=2, bidirectional=True, batch_first=True),
    dict(num_layers=2, bias=False),
    dict(num_layers=2, dropout=0.4),  # compared in eval mode: no dropout
]
LSTM_PROJ = [dict(proj_size=3), dict(proj_size=2, num_layers=2, bidirectional=True, batch_first=True)]
CASES = [(m, c) for m in MODES for c in CONFIGS] + [("LSTM", c) for c in LSTM_PROJ]
T, B, IN, H = 5, 3, 4, 6


def _case_id(case):
    mode, cfg = case
    return mode + "-" + ("-".join("{}={}".format(k, v) for k, v in cfg.items()) or "default")


def initial_states(mode, cfg, batch, seed, batched=True):
    """Random (h0,) or (h0, c0) pairs for the layer, as (ember list, torch list)."""
    layers = cfg.get("num_layers", 1) * (2 if cfg.get("bidirectional") else 1)
    sizes = [cfg.get("proj_size") or H] + ([H] if mode == "LSTM" else [])
    pairs = [randn((layers, batch, s) if batched else (layers, s), seed + k) for k, s in enumerate(sizes)]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def pack_states(mode, states):
    return tuple(states) if mode == "LSTM" else states[0]


def compare_grads(em, tm, tensors, atol=1e-4):
    for (ne, pe), (nt, pt) in zip(em.named_parameters(), tm.named_parameters()):
        assert ne == nt
        close(pe.grad, pt.grad, atol=atol)
    for e, t in tensors:
        close(e.grad, t.grad, atol=atol)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
@pytest.mark.parametrize("with_h0", [False, True])
def test_layer_padded_matches_reference(case, with_h0):
    mode, cfg = case
    em, tm = seeded(mode, IN, H, **cfg)
    em.eval(), tm.eval()
    # the same initial values under the same seed, bit for bit, under PyTorch's names and in its order
    te = em.state_dict()
    assert list(te) == list(tm.state_dict())
    for k, v in tm.state_dict().items():
        assert np.array_equal(te[k].numpy(), v.numpy()), k
    assert repr(em) == repr(tm)
    batch_first = cfg.get("batch_first", False)
    xe, xt = randn((B, T, IN) if batch_first else (T, B, IN), 1)
    se, st = initial_states(mode, cfg, B, 10)
    ye, he = em(xe, pack_states(mode, se)) if with_h0 else em(xe)
    yt, ht = tm(xt, pack_states(mode, st)) if with_h0 else tm(xt)
    close(ye, yt)
    he, ht = flat_states(he), flat_states(ht)
    assert len(he) == len(ht)
    for a, b in zip(he, ht):
        close(a, b)
    # gradients of a loss on the output and every final state
    ge, gt = randn(tuple(yt.shape), 20, requires_grad=False)
    loss_e = (ye * ge).sum()
    loss_t = (yt * gt).sum()
    for k, (a, b) in enumerate(zip(he, ht)):
        we, wt = randn(tuple(b.shape), 30 + k, requires_grad=False)
        loss_e = loss_e + (a * we).sum()
        loss_t = loss_t + (b * wt).sum()
    loss_e.backward()
    loss_t.backward()
    compare_grads(em, tm, [(xe, xt)] + (list(zip(se, st)) if with_h0 else []))


@pytest.mark.parametrize("mode", MODES + ["LSTM_proj"])
def test_layer_float64_and_unbatched(mode):
    cfg = dict(num_layers=2, bidirectional=True)
    if mode == "LSTM_proj":
        mode, cfg = "LSTM", dict(cfg, proj_size=4)
    em, tm = seeded(mode, IN, H, dtype=ember.float64, **cfg)
    for k, v in tm.state_dict().items():
        assert np.array_equal(em.state_dict()[k].numpy(), v.numpy()), k
    assert all(p.dtype == ember.float64 for p in em.parameters())
    xe, xt = randn((T, IN), 2, dtype=np.float64)
    se, st = initial_states(mode, cfg, None, 40, batched=False)
    se = [ember.tensor(s.detach().numpy().astype(np.float64), requires_grad=True) for s in se]
    st = [torch.tensor(s.detach().numpy().astype(np.float64), requires_grad=True) for s in st]
    for states in (False, True):
        ye, he = em(xe, pack_states(mode, se)) if states else em(xe)
        yt, ht = tm(xt, pack_states(mode, st)) if states else tm(xt)
        assert ye.dtype == ember.float64 and tuple(ye.shape) == tuple(yt.shape)
        close(ye, yt, atol=1e-12, rtol=1e-10)
        for a, b in zip(flat_states(he), flat_states(ht)):
            assert tuple(a.shape) == tuple(b.shape)
            close(a, b, atol=1e-12, rtol=1e-10)
    (ye.sum() + sum(s.sum() for s in flat_states(he))).backward()
    (yt.sum() + sum(s.sum() for s in flat_states(ht))).backward()
    compare_grads(em, tm, [(xe, xt)] + list(zip(se, st)), atol=1e-10)


@pytest.mark.parametrize("case", [c for c in CASES if "dropout" not in c[1]], ids=_case_id)
def test_layer_packed_unsorted_matches_reference(case):
    mode, cfg = case
    em, tm = seeded(mode, IN, H, **cfg)
    batch_first = cfg.get("batch_first", False)
    lengths = [3, 5, 1, 5]
    xe, xt = randn((4, 5, IN) if batch_first else (5, 4, IN), 3)
    pe = ernn.pack_padded_sequence(xe, lengths, batch_first=batch_first, enforce_sorted=False)
    pt = trnn.pack_padded_sequence(xt, lengths, batch_first=batch_first, enforce_sorted=False)
    se, st = initial_states(mode, cfg, 4, 50)
    ye, he = em(pe, pack_states(mode, se))
    yt, ht = tm(pt, pack_states(mode, st))
    assert isinstance(ye, ernn.PackedSequence)
    close(ye.data, yt.data)
    for name in ("batch_sizes", "sorted_indices", "unsorted_indices"):
        assert getattr(ye, name).tolist() == getattr(yt, name).tolist()
    for a, b in zip(flat_states(he), flat_states(ht)):  # in the caller's batch order
        close(a, b)
    oe, le = ernn.pad_packed_sequence(ye, batch_first=batch_first)
    ot, lt = trnn.pad_packed_sequence(yt, batch_first=batch_first)
    close(oe, ot)
    assert le.tolist() == lt.tolist()
    ge, gt = randn(tuple(ot.shape), 60, requires_grad=False)
    ((oe * ge).sum() + sum(s.sum() for s in flat_states(he))).backward()
    ((ot * gt).sum() + sum(s.sum() for s in flat_states(ht))).backward()
    compare_grads(em, tm, [(xe, xt)] + list(zip(se, st)))


@pytest.mark.parametrize("mode", MODES)
def test_layer_state_dict_from_torch(mode):
    """A state dict saved by PyTorch's module (converted through NumPy) loads and gives PyTorch's outputs."""
    cfg = dict(num_layers=2, bidirectional=True) if mode != "LSTM" else dict(num_layers=2, proj_size=3)
    torch.manual_seed(7)
    tm = getattr(torch.nn, mode.replace("_relu", ""))(IN, H, **cfg, **(
        {"nonlinearity": "relu"} if mode.endswith("_relu") else {}))
    ember.manual_seed(8)  # other initial values, replaced by the load
    em = getattr(enn, mode.replace("_relu", ""))(IN, H, **cfg, **(
        {"nonlinearity": "relu"} if mode.endswith("_relu") else {}))
    em.load_state_dict({k: ember.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    xe, xt = randn((T, B, IN), 4, requires_grad=False)
    ye, he = em(xe)
    yt, ht = tm(xt)
    close(ye, yt)
    for a, b in zip(flat_states(he), flat_states(ht)):
        close(a, b)
    # _flat_weights follows the load; the names and shapes are PyTorch's
    assert em._flat_weights_names == tm._flat_weights_names
    assert em._all_weights == tm._all_weights
    for a, b in zip(em._flat_weights, tm._flat_weights):
        close(a, b, atol=0, rtol=0)
    assert [[tuple(w.shape) for w in ws] for ws in em.all_weights] == \
        [[tuple(w.shape) for w in ws] for ws in tm.all_weights]


def test_layer_dropout_between_layers():
    # p = 1 zeroes every output of the first layer (deterministically), only in training mode
    em, tm = seeded("GRU", IN, H, num_layers=2, dropout=1.0)
    xe, xt = randn((T, B, IN), 5)
    em.train(), tm.train()
    ye, he = em(xe)
    yt, ht = tm(xt)
    close(ye, yt)
    close(he, ht)
    ye.sum().backward()
    yt.sum().backward()
    compare_grads(em, tm, [(xe, xt)])
    # a probability in (0, 1): the second layer sees a scaled, partly zeroed input, unlike eval mode
    em2, _ = seeded("LSTM", IN, H, num_layers=2, dropout=0.5)
    xe2 = ember.randn(T, B, IN)
    train_out = em2(xe2)[0]
    em2.eval()
    eval_out, eval_again = em2(xe2)[0], em2(xe2)[0]
    assert ember.equal(eval_out, eval_again)
    assert not ember.allclose(train_out, eval_out)
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        enn.LSTM(IN, H, dropout=0.5)


def test_layer_zero_batch_and_repr_variants():
    em, tm = seeded("LSTM", IN, H, num_layers=2)
    ye, (he, ce) = em(ember.zeros(T, 0, IN))
    yt, (ht, ct) = tm(torch.zeros(T, 0, IN))
    assert tuple(ye.shape) == tuple(yt.shape) and tuple(he.shape) == tuple(ht.shape) == (2, 0, H)
    for args, kwargs in [((3, 4, 2), dict(nonlinearity="relu", bias=False, batch_first=True, dropout=0.5,
                                         bidirectional=True)),
                         ((3, 4), dict(dropout=1))]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert repr(enn.RNN(*args, **kwargs)) == repr(torch.nn.RNN(*args, **kwargs))
    # 1.13 takes a fourth positional argument of RNN as bias (nonlinearity is keyword-only in effect)
    assert repr(enn.RNN(3, 4, 2, False)) == repr(torch.nn.RNN(3, 4, 2, False))
    assert repr(enn.LSTM(3, 4, proj_size=2)) == repr(torch.nn.LSTM(3, 4, proj_size=2))
    em.flatten_parameters()  # accepted, nothing to do
    assert enn.LSTM.__constants__ == torch.nn.LSTM.__constants__


def test_layer_reassigned_weight_is_used():
    em, tm = seeded("RNN", IN, H)
    em.weight_hh_l0 = enn.Parameter(ember.zeros(H, H))
    tm.weight_hh_l0 = torch.nn.Parameter(torch.zeros(H, H))
    xe, xt = randn((T, B, IN), 6, requires_grad=False)
    close(em(xe)[0], tm(xt)[0])
    em.double(), tm.double()
    xe, xt = randn((T, B, IN), 6, dtype=np.float64, requires_grad=False)
    assert em(xe)[0].dtype == ember.float64
    close(em(xe)[0], tm(xt)[0])


def _both(mode, cfg=None):
    return seeded(mode, IN, H, **(cfg or {}))


LAYER_ERRORS = [
    ("LSTM", lambda m, lib: m(lib.zeros(5, 2, 5))),  # input_size
    ("LSTM", lambda m, lib: m(lib.zeros(5))),  # 1-D: unbatched of 1-D -> "must have 3 dimensions, got 2"
    ("GRU", lambda m, lib: m(lib.zeros(5, 2, 4, 1))),
    ("LSTM", lambda m, lib: m(lib.zeros(5, 2, 4), (lib.zeros(1, 2, 6), lib.zeros(2, 2, 6)))),
    ("LSTM", lambda m, lib: m(lib.zeros(5, 2, 4), (lib.zeros(1, 3, 6), lib.zeros(1, 2, 6)))),
    ("LSTM", lambda m, lib: m(lib.zeros(5, 2, 4), (lib.zeros(1, 2, 6), lib.zeros(1, 2, 5)))),
    ("LSTM", lambda m, lib: m(lib.zeros(5, 2, 4), (lib.zeros(2, 6), lib.zeros(2, 6)))),
    ("LSTM", lambda m, lib: m(lib.zeros(5, 4), (lib.zeros(1, 2, 6), lib.zeros(1, 2, 6)))),
    ("LSTM", lambda m, lib: m(lib.zeros(5, 2, 4), lib.zeros(1, 2, 6))),  # a tensor, not a pair
    ("GRU", lambda m, lib: m(lib.zeros(5, 2, 4), lib.zeros(1, 3, 6))),
    ("GRU", lambda m, lib: m(lib.zeros(5, 2, 4), lib.zeros(2, 6))),
    ("RNN", lambda m, lib: m(lib.zeros(5, 4), lib.zeros(1, 1, 6))),
    ("RNN", lambda m, lib: m(lib.zeros(5, 4), lib.zeros(2, 6))),
    ("RNN", lambda m, lib: m(lib.zeros(0, 2, 4))),  # an empty sequence
    ("GRU", lambda m, lib: m(lib.zeros(0, 4))),
]


@pytest.mark.parametrize("k", range(len(LAYER_ERRORS)))
def test_layer_errors_match_reference(k):
    mode, call = LAYER_ERRORS[k]
    em, tm = _both(mode)
    raises_like(lambda: call(em, ember), lambda: call(tm, torch))


@pytest.mark.parametrize("make", [
    lambda nn: nn.LSTM(3, 4, dropout=1.5), lambda nn: nn.LSTM(3, 4, dropout=True),
    lambda nn: nn.LSTM(3, 4, dropout="x"), lambda nn: nn.LSTM(3, 4, proj_size=-1),
    lambda nn: nn.LSTM(3, 4, proj_size=4), lambda nn: nn.GRU(3, 4, proj_size=2),
    lambda nn: nn.RNN(3, 4, proj_size=2), lambda nn: nn.RNN(3, 4, nonlinearity="foo"),
    lambda nn: nn.GRU(3, 0), lambda nn: nn.GRU(3, 2, num_layers=0), lambda nn: nn.RNNBase("LSTX", 3, 4),
])
def test_constructor_errors_match_reference(make):
    raises_like(lambda: make(enn), lambda: make(torch.nn), match_message=False)


def test_constructor_error_messages():
    for make in [lambda nn: nn.LSTM(3, 4, dropout=1.5), lambda nn: nn.LSTM(3, 4, proj_size=-1),
                 lambda nn: nn.LSTM(3, 4, proj_size=4), lambda nn: nn.GRU(3, 4, proj_size=2),
                 lambda nn: nn.RNN(3, 4, nonlinearity="foo")]:
        raises_like(lambda: make(enn), lambda: make(torch.nn))


# ---------------------------------------------------------------------------------------------- cells
CELLS = [("RNNCell", {}), ("RNNCell", dict(nonlinearity="relu")), ("RNNCell", dict(bias=False)),
         ("GRUCell", {}), ("GRUCell", dict(bias=False)), ("LSTMCell", {}), ("LSTMCell", dict(bias=False))]


@pytest.mark.parametrize("name, kwargs", CELLS)
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("with_h", [True, False])
def test_cell_matches_reference(name, kwargs, batched, with_h):
    em, tm = seeded(name, IN, H, **kwargs)
    for k, v in tm.state_dict().items():
        assert np.array_equal(em.state_dict()[k].numpy(), v.numpy()), k
    assert list(em.state_dict()) == list(tm.state_dict())
    assert repr(em) == repr(tm)
    shape = (B, IN) if batched else (IN,)
    xe, xt = randn(shape, 1)
    hshape = (B, H) if batched else (H,)
    states = [randn(hshape, 2 + k) for k in range(2 if name == "LSTMCell" else 1)]
    se, st = [s[0] for s in states], [s[1] for s in states]
    if with_h:
        ye = em(xe, tuple(se) if name == "LSTMCell" else se[0])
        yt = tm(xt, tuple(st) if name == "LSTMCell" else st[0])
    else:
        ye, yt = em(xe), tm(xt)
    ye, yt = flat_states(ye), flat_states(yt)
    for a, b in zip(ye, yt):
        close(a, b)
    sum((a * (k + 1)).sum() for k, a in enumerate(ye)).backward()
    sum((b * (k + 1)).sum() for k, b in enumerate(yt)).backward()
    compare_grads(em, tm, [(xe, xt)] + (list(zip(se, st)) if with_h else []))


CELL_ERRORS = [
    ("LSTMCell", lambda m, lib: m(lib.zeros(2, 5))),
    ("LSTMCell", lambda m, lib: m(lib.zeros(1, 2, 4))),
    ("GRUCell", lambda m, lib: m(lib.zeros(1, 2, 4))),
    ("RNNCell", lambda m, lib: m(lib.zeros(1, 2, 4))),
    ("LSTMCell", lambda m, lib: m(lib.zeros(2, 4), (lib.zeros(3, 6), lib.zeros(2, 6)))),
    ("LSTMCell", lambda m, lib: m(lib.zeros(2, 4), (lib.zeros(2, 5), lib.zeros(2, 6)))),
    ("GRUCell", lambda m, lib: m(lib.zeros(2, 4), lib.zeros(3, 6))),
    ("GRUCell", lambda m, lib: m(lib.zeros(2, 4), lib.zeros(2, 5))),
    ("GRUCell", lambda m, lib: m(lib.zeros(4), lib.zeros(2, 6))),
    ("RNNCell", lambda m, lib: m(lib.zeros(2, 4), lib.zeros(6))),
]


@pytest.mark.parametrize("k", range(len(CELL_ERRORS)))
def test_cell_errors_match_reference(k):
    name, call = CELL_ERRORS[k]
    em, tm = seeded(name, IN, H)
    raises_like(lambda: call(em, ember), lambda: call(tm, torch))


def test_cell_unknown_nonlinearity_and_zero_hidden():
    em, tm = seeded("RNNCell", 3, 4)
    em.nonlinearity = tm.nonlinearity = "foo"
    raises_like(lambda: em(ember.zeros(2, 3)), lambda: tm(torch.zeros(2, 3)))
    em, tm = seeded("RNNCell", 3, 0)
    assert tuple(em(ember.zeros(2, 3)).shape) == tuple(tm(torch.zeros(2, 3)).shape) == (2, 0)


# ---------------------------------------------------------------------------------------------- functions
def _network_args(mode, cfg, seed):
    """(ember, torch) flat weights of a seeded layer and its initial states."""
    em, tm = seeded(mode, IN, H, seed=seed, **cfg)
    se, st = initial_states("LSTM" if mode == "LSTM" else "x", cfg, B, seed + 100)
    return [p.detach() for p in em._flat_weights], [p.detach() for p in tm._flat_weights], se, st


@pytest.mark.parametrize("fn, mode", [("lstm", "LSTM"), ("gru", "GRU"), ("rnn_tanh", "RNN"),
                                      ("rnn_relu", "RNN_relu")])
@pytest.mark.parametrize("batch_first", [False, True])
def test_network_functions_both_overloads(fn, mode, batch_first):
    cfg = dict(num_layers=2, bidirectional=True)
    pe, pt, se, st = _network_args(mode, cfg, 3)
    hx_e = se if mode == "LSTM" else se[0]
    hx_t = st if mode == "LSTM" else st[0]
    xe, xt = randn((B, T, IN) if batch_first else (T, B, IN), 4)
    re = getattr(ember, fn)(xe, hx_e, pe, True, 2, 0.0, False, True, batch_first)
    rt = getattr(torch, fn)(xt, hx_t, pt, True, 2, 0.0, False, True, batch_first)
    assert len(re) == len(rt)
    for a, b in zip(re, rt):
        close(a, b)
    # keyword arguments
    re = getattr(ember, fn)(input=xe, hx=hx_e, params=pe, has_biases=True, num_layers=2, dropout=0.0,
                            train=False, bidirectional=True, batch_first=batch_first)
    for a, b in zip(re, rt):
        close(a, b)
    # the packed overload: data, batch_sizes
    lengths = [5, 4, 2]
    pke = ernn.pack_padded_sequence(xe, lengths, batch_first=batch_first)
    pkt = trnn.pack_padded_sequence(xt, lengths, batch_first=batch_first)
    re = getattr(ember, fn)(pke.data, pke.batch_sizes, hx_e, pe, True, 2, 0.0, False, True)
    rt = getattr(torch, fn)(pkt.data, pkt.batch_sizes, hx_t, pt, True, 2, 0.0, False, True)
    for a, b in zip(re, rt):
        close(a, b)
    re = getattr(ember, fn)(data=pke.data, batch_sizes=pke.batch_sizes, hx=hx_e, params=pe, has_biases=True,
                            num_layers=2, dropout=0.0, train=False, bidirectional=True)
    for a, b in zip(re, rt):
        close(a, b)


def test_network_function_errors():
    pe, pt, se, st = _network_args("LSTM", dict(num_layers=2), 5)
    xe, xt = randn((T, B, IN), 6, requires_grad=False)
    raises_like(lambda: ember.lstm(xe, se[:1], pe, True, 2, 0.0, False, False, False),
                lambda: torch.lstm(xt, st[:1], pt, True, 2, 0.0, False, False, False), match_message=False)
    raises_like(lambda: ember.lstm(xe, se, pe[:-1], True, 2, 0.0, False, False, False),
                lambda: torch.lstm(xt, st, pt[:-1], True, 2, 0.0, False, False, False), match_message=False)
    raises_like(lambda: ember.lstm(xe, se, pe, True, 1, 0.0, False, False, False),
                lambda: torch.lstm(xt, st, pt, True, 1, 0.0, False, False, False), match_message=False)
    raises_like(lambda: ember.lstm(xe[:0], se, pe, True, 2, 0.0, False, False, False),
                lambda: torch.lstm(xt[:0], st, pt, True, 2, 0.0, False, False, False))
    with pytest.raises(TypeError):  # neither overload's arguments
        ember.lstm(xe, se, pe, True, 2, 0.0, False, False)
    with pytest.raises(RuntimeError, match="lstm expects two hidden states"):
        ember.lstm(xe, se[:1], pe, True, 2, 0.0, False, False, False)


@pytest.mark.parametrize("fn, chunks", [("lstm_cell", 4), ("gru_cell", 3), ("rnn_tanh_cell", 1),
                                        ("rnn_relu_cell", 1)])
def test_cell_functions(fn, chunks):
    xe, xt = randn((B, IN), 1)
    we, wt = randn((chunks * H, IN), 2)
    ve, vt = randn((chunks * H, H), 3)
    be, bt = randn((chunks * H,), 4)
    he, ht = randn((B, H), 5)
    ce, ct = randn((B, H), 6)
    hx_e = [he, ce] if fn == "lstm_cell" else he
    hx_t = [ht, ct] if fn == "lstm_cell" else ht
    for biases in [(), (be,), (None, be), (be, be)]:
        tb = tuple(None if b is None else bt for b in biases)
        re = getattr(ember, fn)(xe, hx_e, we, ve, *biases)
        rt = getattr(torch, fn)(xt, hx_t, wt, vt, *tb)
        for a, b in zip(flat_states(re), flat_states(rt)):
            close(a, b)
    sum(a.sum() for a in flat_states(re)).backward()
    sum(b.sum() for b in flat_states(rt)).backward()
    for a, b in [(xe, xt), (we, wt), (ve, vt), (be, bt), (he, ht)] + ([(ce, ct)] if fn == "lstm_cell" else []):
        close(a.grad, b.grad)
    # the checks: input size, batch, hidden size
    raises_like(lambda: getattr(ember, fn)(xe[:, :2], hx_e, we, ve),
                lambda: getattr(torch, fn)(xt[:, :2], hx_t, wt, vt))
    if fn == "lstm_cell":
        raises_like(lambda: ember.lstm_cell(xe, [he], we, ve), lambda: torch.lstm_cell(xt, [ht], wt, vt))
    else:
        raises_like(lambda: getattr(ember, fn)(xe, he[:2], we, ve), lambda: getattr(torch, fn)(xt, ht[:2], wt, vt))
        raises_like(lambda: getattr(ember, fn)(xe, he[:, :2], we, ve),
                    lambda: getattr(torch, fn)(xt, ht[:, :2], wt, vt))


def test_gradcheck_float64():
    ember.manual_seed(0)
    m = enn.LSTM(2, 3, num_layers=2, bidirectional=True, proj_size=2, dtype=ember.float64)
    x = ember.randn(3, 2, 2, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda x: m(x)[0], (x,))
    g = enn.GRU(2, 3, dtype=ember.float64)
    assert ember.autograd.gradcheck(lambda x: g(x)[0], (x,))
    packed = ernn.pack_padded_sequence(x, [3, 1])
    assert ember.autograd.gradcheck(lambda d: m(ernn.PackedSequence(d, packed.batch_sizes))[0].data,
                                    (packed.data.detach().requires_grad_(),))


# ---------------------------------------------------------------------------------------------- tracing
def test_trace_lstm_model():
    class Tagger(enn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = enn.LSTM(IN, H, num_layers=2, batch_first=True, bidirectional=True)
            self.out = enn.Linear(2 * H, 3)

        def forward(self, x):
            y, (h, c) = self.lstm(x)
            return self.out(y), h

    ember.manual_seed(0)
    model = Tagger().eval()
    x = ember.randn(B, T, IN)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        traced = ember.jit.trace(model, (x,))
    assert not [w for w in caught if issubclass(w.category, ember.jit.TracerWarning)], \
        [str(w.message) for w in caught]
    for shape in [(B, T, IN), (B + 2, T, IN)]:  # the initial states follow the batch size of the input
        x2 = ember.randn(*shape)
        for a, b in zip(traced(x2), model(x2)):
            close(a, b, atol=1e-6)
    assert "aten::addmm" in str(traced.graph)


# ---------------------------------------------------------------------------------------------- nn.utils.rnn
def both_packed(e, t):
    close(e.data, t.data, atol=0, rtol=0)
    for name in ("batch_sizes", "sorted_indices", "unsorted_indices"):
        a, b = getattr(e, name), getattr(t, name)
        assert (a is None) == (b is None), name
        if a is not None:
            assert a.tolist() == b.tolist() and a.dtype == ember.int64, name


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths, enforce_sorted", [([4, 2, 1], True), ([4, 4, 4], True), ([2, 4, 1], False),
                                                     ([1, 3, 3, 2], False), ([3], True)])
@pytest.mark.parametrize("as_tensor", [False, True])
def test_pack_padded_sequence_matches_reference(batch_first, lengths, enforce_sorted, as_tensor):
    b, t = len(lengths), 4
    xe, xt = randn((b, t, 2) if batch_first else (t, b, 2), 7)
    le = ember.tensor(lengths) if as_tensor else lengths
    lt = torch.tensor(lengths) if as_tensor else lengths
    pe = ernn.pack_padded_sequence(xe, le, batch_first=batch_first, enforce_sorted=enforce_sorted)
    pt = trnn.pack_padded_sequence(xt, lt, batch_first=batch_first, enforce_sorted=enforce_sorted)
    both_packed(pe, pt)
    for kwargs in [dict(), dict(padding_value=-2.5), dict(total_length=6)]:
        oe, lo_e = ernn.pad_packed_sequence(pe, batch_first=batch_first, **kwargs)
        ot, lo_t = trnn.pad_packed_sequence(pt, batch_first=batch_first, **kwargs)
        close(oe, ot, atol=0, rtol=0)
        assert lo_e.tolist() == lo_t.tolist() and lo_e.dtype == ember.int64
    ge, gt = randn(tuple(ot.shape), 8, requires_grad=False)
    (oe * ge).sum().backward()
    (ot * gt).sum().backward()
    close(xe.grad, xt.grad, atol=0, rtol=0)


def test_pack_padded_sequence_lengths_forms():
    xe, xt = randn((4, 3, 2), 9, requires_grad=False)
    for le, lt in [(ember.tensor([4.0, 2.0, 1.0]), torch.tensor([4.0, 2.0, 1.0])),
                   (ember.tensor([4, 2, 1], dtype=ember.int32), torch.tensor([4, 2, 1], dtype=torch.int32)),
                   ((4, 2, 1), (4, 2, 1))]:
        both_packed(ernn.pack_padded_sequence(xe, le), trnn.pack_padded_sequence(xt, lt))
    # no feature dims: (T, B)
    both_packed(ernn.pack_padded_sequence(xe[..., 0], [3, 2, 2]), trnn.pack_padded_sequence(xt[..., 0], [3, 2, 2]))


PACK_ERRORS = [
    lambda r, lib: r.pack_padded_sequence(lib.zeros(4, 3), [2, 4, 1]),  # not sorted
    lambda r, lib: r.pack_padded_sequence(lib.zeros(4, 3), [4, 2, 0]),  # a length 0
    lambda r, lib: r.pack_padded_sequence(lib.zeros(4, 3), [4, 2, 0], enforce_sorted=False),
    lambda r, lib: r.pack_padded_sequence(lib.zeros(4, 3), [4, 2, -1]),
    lambda r, lib: r.pack_padded_sequence(lib.zeros(4, 3), [4, 2]),  # not one per sequence
    lambda r, lib: r.pack_padded_sequence(lib.zeros(4, 3), [4, 2, 1, 1]),
    lambda r, lib: r.pack_padded_sequence(lib.zeros(4, 3), lib.tensor([[4, 2, 1]])),
    lambda r, lib: r.pack_padded_sequence(lib.zeros(4, 3), 3),
    lambda r, lib: r.pack_padded_sequence(lib.zeros(3, 0, 2), []),
    lambda r, lib: r.pack_padded_sequence(lib.zeros(3), [1]),
    lambda r, lib: r.pad_packed_sequence(r.pack_padded_sequence(lib.zeros(4, 3), [4, 2, 1]), total_length=3),
    lambda r, lib: r.pad_sequence([]),
    lambda r, lib: r.pad_sequence([lib.ones(2, 3), lib.ones(4, 2)]),
    lambda r, lib: r.pad_sequence([lib.tensor(1.0), lib.tensor(2.0)]),
    lambda r, lib: r.pack_sequence([lib.ones(2), lib.ones(3)]),
    lambda r, lib: r.PackedSequence(lib.ones(3)),
    lambda r, lib: r.PackedSequence(lib.ones(3), [2, 1]),
]


@pytest.mark.parametrize("k", range(len(PACK_ERRORS)))
def test_packing_errors_match_reference(k):
    call = PACK_ERRORS[k]
    # the messages are PyTorch's where they come from its Python or checks, not from its tensor internals
    exact = k not in (9, 12, 13, 15, 16)
    raises_like(lambda: call(ernn, ember), lambda: call(trnn, torch), match_message=exact)


def test_pack_padded_sequence_longer_than_input_is_an_error():
    # PyTorch 1.13 reads past the input here; Ember says what is wrong
    with pytest.raises(RuntimeError, match="exceeds the 4 padded time steps"):
        ernn.pack_padded_sequence(ember.zeros(4, 3), [5, 2, 1])


@pytest.mark.parametrize("batch_first", [False, True])
def test_pad_sequence_matches_reference(batch_first):
    shapes = [(2, 3), (4, 3), (0, 3), (1, 1)]  # the last broadcasts to the first's trailing shape
    pairs = [randn(s, 10 + k) for k, s in enumerate(shapes)]
    for pv in (0.0, -1.0, float("nan")):
        oe = ernn.pad_sequence([p[0] for p in pairs], batch_first=batch_first, padding_value=pv)
        ot = trnn.pad_sequence([p[1] for p in pairs], batch_first=batch_first, padding_value=pv)
        np.testing.assert_array_equal(oe.detach().numpy(), ot.detach().numpy())
    ge, gt = randn(tuple(ot.shape), 20, requires_grad=False)
    (oe.nan_to_num() * ge).sum().backward()
    (ot.nan_to_num() * gt).sum().backward()
    for e, t in pairs:
        close(e.grad, t.grad, atol=0, rtol=0)
    # dtype of the first sequence; a tensor is its list of slices
    mixed_e = ernn.pad_sequence([ember.ones(2, 3, dtype=ember.int32), ember.ones(4, 3) * 1.5])
    mixed_t = trnn.pad_sequence([torch.ones(2, 3, dtype=torch.int32), torch.ones(4, 3) * 1.5])
    assert mixed_e.dtype == ember.int32 and mixed_e.tolist() == mixed_t.tolist()
    te, tt = randn((3, 4), 30, requires_grad=False)
    close(ernn.pad_sequence(te), trnn.pad_sequence(tt), atol=0, rtol=0)


def test_pack_unpack_sequence_roundtrip():
    pairs = [randn((n, 2), 40 + n) for n in (2, 5, 1, 3)]
    pe = ernn.pack_sequence([p[0] for p in pairs], enforce_sorted=False)
    pt = trnn.pack_sequence([p[1] for p in pairs], enforce_sorted=False)
    both_packed(pe, pt)
    ue, ut = ernn.unpack_sequence(pe), trnn.unpack_sequence(pt)
    assert len(ue) == len(ut) == 4
    for a, b, (x, _) in zip(ue, ut, pairs):
        close(a, b, atol=0, rtol=0)
        close(a, x, atol=0, rtol=0)
    sorted_pairs = sorted(pairs, key=lambda p: -p[0].shape[0])
    both_packed(ernn.pack_sequence([p[0] for p in sorted_pairs]), trnn.pack_sequence([p[1] for p in sorted_pairs]))
    sum((a * (k + 1)).sum() for k, a in enumerate(ue)).backward()
    sum((b * (k + 1)).sum() for k, b in enumerate(ut)).backward()
    for e, t in pairs:
        close(e.grad, t.grad, atol=0, rtol=0)


@pytest.mark.parametrize("batch_first", [False, True])
def test_unpad_sequence_matches_reference(batch_first):
    xe, xt = randn((3, 4, 2) if batch_first else (4, 3, 2), 50, requires_grad=False)
    for lengths in ([4, 1, 2], ember.tensor([4, 1, 2])):
        tl = lengths if isinstance(lengths, list) else torch.tensor(lengths.tolist())
        ue = ernn.unpad_sequence(xe, lengths, batch_first=batch_first)
        ut = trnn.unpad_sequence(xt.clone(), tl, batch_first=batch_first)  # 1.13 transposes its input in place
        for a, b in zip(ue, ut):
            close(a, b, atol=0, rtol=0)
            assert a.is_contiguous()
        ue[0].add_(1)  # new tensors, not views of the padded batch
        close(ernn.unpad_sequence(xe, lengths, batch_first=batch_first)[0], ut[0], atol=0, rtol=0)


def test_invert_permutation_and_packed_sequence_methods():
    assert ernn.invert_permutation(ember.tensor([2, 0, 3, 1])).tolist() == \
        trnn.invert_permutation(torch.tensor([2, 0, 3, 1])).tolist()
    assert ernn.invert_permutation(None) is None
    pe = ernn.pack_sequence([ember.ones(2), ember.ones(3) * 2, ember.ones(1) * 3], enforce_sorted=False)
    pt = trnn.pack_sequence([torch.ones(2), torch.ones(3) * 2, torch.ones(1) * 3], enforce_sorted=False)
    assert ernn.PackedSequence._fields == trnn.PackedSequence._fields
    assert isinstance(pe, tuple) and len(pe) == 4
    data, batch_sizes, sorted_indices, unsorted_indices = pe
    assert data is pe.data and batch_sizes.tolist() == [3, 2, 1]
    for method in ("double", "float", "half", "long", "int", "short", "char", "byte"):
        de, dt = getattr(pe, method)(), getattr(pt, method)()
        assert str(de.data.dtype).split(".")[-1] == str(dt.data.dtype).split(".")[-1], method
        assert de.data.tolist() == dt.data.tolist()
        assert de.batch_sizes.dtype == ember.int64 and de.sorted_indices.tolist() == dt.sorted_indices.tolist()
    assert pe.to(ember.float32) is pe and pe.cpu() is pe and pe.to("cpu") is pe
    assert pe.to(ember.float64).data.dtype == ember.float64
    assert pe.is_cuda is False and pe.is_pinned() is False
    raises_like(lambda: pe.cuda(), lambda: pt.cuda(), match_message=False)  # no CUDA in either
    raises_like(lambda: pe.pin_memory(), lambda: pt.pin_memory(), match_message=False)
    # unsorted_indices derives from sorted_indices when not given; the (data, batch_sizes) pair form
    made = ernn.PackedSequence(pe.data, pe.batch_sizes, pe.sorted_indices)
    assert made.unsorted_indices.tolist() == pt.unsorted_indices.tolist()
    pair = ernn.PackedSequence((pe.data, pe.batch_sizes))
    assert pair.batch_sizes.tolist() == [3, 2, 1] and pair.sorted_indices is None
    assert repr(ernn.PackedSequence(ember.ones(3), ember.tensor([2, 1]))).startswith("PackedSequence(data=")
    assert ember.nn.utils.rnn is ernn


@pytest.mark.parametrize("name", ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"])
def test_classes_have_pytorch_methods(name):
    def own(cls, base):
        return {n for n in dir(cls) if not n.startswith("_") and n not in dir(base)}
    assert own(getattr(torch.nn, name), torch.nn.Module) <= own(getattr(enn, name), enn.Module)
    assert getattr(enn, name) is getattr(ember.nn.modules.rnn, name)
