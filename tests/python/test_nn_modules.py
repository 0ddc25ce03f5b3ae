"""ember.nn modules against PyTorch 1.13's torch.nn: every layer's forward (and, where Ember has the derivative,
backward) with PyTorch's weights loaded through state_dict, reprs, state_dict keys and load errors, the Module
API (registration, traversal, modes, conversions, hooks), the containers, nn.init (bit-exact with the same
seed) and nn.utils."""
import copy
import math
import pickle
import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch

import ember
import ember.nn as nn
from conftest import assert_same, to_ember, to_torch


TOL = {"float32": (2e-5, 2e-6), "float64": (1e-10, 1e-12)}


def torch_repr(s):
    """PyTorch's repr text with Ember's names (torch.Size -> ember.Size, torch.FloatTensor -> ember...)."""
    return s.replace("torch.", "ember.")


def state_from_torch(tm):
    """The state dict of torch module tm as ember tensors (copies), in its order."""
    return OrderedDict((k, to_ember(v)) for k, v in tm.state_dict().items())


def pair(name, *args, **kwargs):
    """(ember module, torch module) of the same class and arguments, the ember one with torch's weights."""
    tm = getattr(torch.nn, name)(*args, **kwargs)
    em = getattr(nn, name)(*args, **kwargs)
    em.load_state_dict(state_from_torch(tm))
    return em, tm


def make_input(shape, dtype, seed=0, low=-2.0, high=2.0):
    a = np.random.RandomState(seed).uniform(low, high, size=shape)
    return ember.from_numpy(a.astype(dtype)), torch.from_numpy(a.astype(dtype))


# (id, class name, args, kwargs, input shape)
LAYERS = [
    ("linear", "Linear", (5, 3), {}, (4, 5)),
    ("linear-nobias-3d", "Linear", (5, 3), {"bias": False}, (2, 4, 5)),
    ("linear-1d-input", "Linear", (5, 3), {}, (5,)),
    ("identity", "Identity", (3,), {"x": 1}, (3, 4)),
    ("flatten", "Flatten", (), {}, (2, 3, 4, 5)),
    ("flatten-0-2", "Flatten", (0, 2), {}, (2, 3, 4, 5)),
    ("unflatten", "Unflatten", (1, (2, 6)), {}, (3, 12)),
    ("unflatten-neg", "Unflatten", (-1, [3, -1]), {}, (2, 3, 12)),
    ("conv1d", "Conv1d", (3, 4, 3), {}, (2, 3, 10)),
    ("conv1d-strided-groups", "Conv1d", (4, 6, 3), {"stride": 2, "padding": 1, "groups": 2, "dilation": 2},
     (2, 4, 11)),
    ("conv1d-same-circular", "Conv1d", (3, 4, 4), {"padding": "same", "padding_mode": "circular"}, (2, 3, 9)),
    ("conv1d-reflect", "Conv1d", (3, 2, 3), {"padding": 2, "padding_mode": "reflect"}, (2, 3, 9)),
    ("conv2d", "Conv2d", (3, 8, 3), {}, (2, 3, 7, 7)),
    ("conv2d-unbatched", "Conv2d", (3, 4, 3), {"padding": 1}, (3, 6, 5)),
    ("conv2d-same-reflect", "Conv2d", (3, 4, (3, 2)), {"padding": "same", "padding_mode": "reflect",
                                                       "dilation": (1, 2)}, (2, 3, 8, 8)),
    ("conv2d-replicate-nobias", "Conv2d", (3, 4, 3), {"padding": 1, "padding_mode": "replicate", "bias": False},
     (2, 3, 6, 7)),
    ("conv2d-circular-strided", "Conv2d", (3, 4, 3), {"padding": (1, 2), "padding_mode": "circular", "stride": 2},
     (2, 3, 7, 8)),
    ("conv2d-valid-depthwise", "Conv2d", (4, 4, 3), {"padding": "valid", "groups": 4}, (2, 4, 6, 6)),
    ("conv2d-same-even-kernel", "Conv2d", (3, 4, 4), {"padding": "same"}, (2, 3, 7, 6)),
    ("maxpool2d", "MaxPool2d", (2,), {}, (2, 3, 8, 8)),
    ("maxpool2d-ceil-pad", "MaxPool2d", (3,), {"stride": 2, "padding": 1, "ceil_mode": True}, (2, 3, 8, 9)),
    ("maxpool2d-dilation", "MaxPool2d", ((2, 3),), {"stride": 1, "dilation": 2}, (3, 9, 9)),
    ("avgpool2d", "AvgPool2d", (2,), {}, (2, 3, 8, 8)),
    ("avgpool2d-nopadcount", "AvgPool2d", (3,), {"stride": 2, "padding": 1, "count_include_pad": False},
     (2, 3, 8, 9)),
    ("avgpool2d-divisor-ceil", "AvgPool2d", (2,), {"divisor_override": 3, "ceil_mode": True}, (2, 3, 7, 7)),
    ("adaptiveavgpool2d", "AdaptiveAvgPool2d", (4,), {}, (2, 3, 7, 9)),
    ("adaptiveavgpool2d-none", "AdaptiveAvgPool2d", ((3),), {}, (2, 3, 7, 8)),
    ("layernorm", "LayerNorm", ((4, 5),), {}, (3, 4, 5)),
    ("layernorm-noaffine", "LayerNorm", (5,), {"elementwise_affine": False, "eps": 1e-3}, (3, 4, 5)),
    ("groupnorm", "GroupNorm", (2, 6), {}, (3, 6, 4, 4)),
    ("groupnorm-noaffine", "GroupNorm", (3, 6), {"affine": False, "eps": 1e-4}, (3, 6, 5)),
    ("relu", "ReLU", (), {}, (4, 5)),
    ("relu6", "ReLU6", (), {}, (4, 5)),
    ("leakyrelu", "LeakyReLU", (0.2,), {}, (4, 5)),
    ("elu", "ELU", (0.5,), {}, (4, 5)),
    ("selu", "SELU", (), {}, (4, 5)),
    ("celu", "CELU", (1.5,), {}, (4, 5)),
    ("gelu", "GELU", (), {}, (4, 5)),
    ("gelu-tanh", "GELU", (), {"approximate": "tanh"}, (4, 5)),
    ("silu", "SiLU", (), {}, (4, 5)),
    ("mish", "Mish", (), {}, (4, 5)),
    ("sigmoid", "Sigmoid", (), {}, (4, 5)),
    ("tanh", "Tanh", (), {}, (4, 5)),
    ("softplus", "Softplus", (2, 1.5), {}, (4, 5)),
    ("hardtanh", "Hardtanh", (-0.5, 0.7), {}, (4, 5)),
    ("hardsigmoid", "Hardsigmoid", (), {}, (4, 5)),
    ("hardswish", "Hardswish", (), {}, (4, 5)),
    ("logsigmoid", "LogSigmoid", (), {}, (4, 5)),
    ("glu", "GLU", (), {"dim": 1}, (4, 6)),
    ("threshold", "Threshold", (0.1, 20.0), {}, (4, 5)),
    ("softmax", "Softmax", (), {"dim": 1}, (4, 5)),
    ("logsoftmax", "LogSoftmax", (0,), {}, (4, 5)),
    ("softmin", "Softmin", (1,), {}, (4, 5)),
    ("softsign", "Softsign", (), {}, (4, 5)),
    ("tanhshrink", "Tanhshrink", (), {}, (4, 5)),
]


def _layer_params():
    return [pytest.param(case, dtype, id=case[0] + "-" + dtype) for case in LAYERS for dtype in ("float32", "float64")]


def _layer_pair(case, dtype):
    _, name, args, kwargs, shape = case
    torch.manual_seed(7)
    em, tm = pair(name, *args, **kwargs)
    if dtype == "float64":
        em.double()
        tm.double()
    return em, tm


@pytest.mark.parametrize("case,dtype", _layer_params())
def test_layer_forward(case, dtype):
    em, tm = _layer_pair(case, dtype)
    assert repr(em) == torch_repr(repr(tm))
    x, tx = make_input(case[4], dtype)
    rtol, atol = TOL[dtype]
    with ember.no_grad():
        assert_same(em(x), tm(tx).detach(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("case,dtype", _layer_params())
def test_layer_backward(case, dtype):
    em, tm = _layer_pair(case, dtype)
    x, tx = make_input(case[4], dtype)
    x.requires_grad_(True)
    tx.requires_grad_(True)
    ty = tm(tx)
    g = torch.from_numpy(np.random.RandomState(1).uniform(-1, 1, size=tuple(ty.shape)).astype(dtype))
    ty.backward(g)
    y = em(x)
    y.backward(to_ember(g))
    rtol, atol = TOL[dtype]
    assert_same(x.grad, tx.grad, rtol=rtol, atol=atol)
    tgrads = dict(tm.named_parameters())
    for name, p in em.named_parameters():
        assert_same(p.grad, tgrads[name].grad, rtol=rtol, atol=atol, msg=name + ": ")


# ---------------------------------------------------------------------------------------------- batch norm
@pytest.mark.parametrize("name,shape", [("BatchNorm1d", (6, 4)), ("BatchNorm1d", (5, 4, 3)),
                                        ("BatchNorm2d", (3, 4, 5, 2))])
@pytest.mark.parametrize("kwargs", [{}, {"momentum": None}, {"momentum": 0.3, "eps": 1e-3},
                                    {"affine": False}, {"track_running_stats": False}],
                         ids=["default", "cumulative", "momentum", "noaffine", "notrack"])
def test_batchnorm_running_stats(name, shape, kwargs):
    em, tm = pair(name, 4, **kwargs)
    assert repr(em) == torch_repr(repr(tm))
    assert list(em.state_dict()) == list(tm.state_dict())
    for step in range(3):
        x, tx = make_input(shape, "float32", seed=step)
        with ember.no_grad():
            assert_same(em(x), tm(tx).detach())
        for k, v in tm.state_dict().items():
            assert_same(em.state_dict()[k], v, msg=k + ": ")
    em.eval()
    tm.eval()
    x, tx = make_input(shape, "float32", seed=9)
    with ember.no_grad():
        assert_same(em(x), tm(tx).detach())
    assert_same(em.state_dict().get("num_batches_tracked", ember.tensor(0)),
                tm.state_dict().get("num_batches_tracked", torch.tensor(0)))


def test_batchnorm_errors_and_old_state_dict():
    em = nn.BatchNorm2d(3)
    with pytest.raises(ValueError, match="expected 4D input"):
        em(ember.zeros(2, 3, 4))
    with pytest.raises(ValueError, match="expected 2D or 3D input"):
        nn.BatchNorm1d(3)(ember.zeros(2, 3, 4, 5))
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        nn.BatchNorm1d(3)(ember.zeros(1, 3))
    # a version-1 state dict (no num_batches_tracked) loads; num_batches_tracked becomes 0
    sd = em.state_dict()
    em.num_batches_tracked.fill_(5)
    del sd["num_batches_tracked"]
    sd._metadata[""] = {"version": 1}
    assert repr(em.load_state_dict(sd)) == "<All keys matched successfully>"
    assert em.num_batches_tracked.item() == 0
    # without metadata (a plain dict) the version is unknown: treated as old, as PyTorch does
    tsd = {k: to_torch(v) for k, v in sd.items()}
    assert repr(nn.BatchNorm2d(3).load_state_dict(dict(sd))) == repr(torch.nn.BatchNorm2d(3).load_state_dict(tsd))
    # a current-version state dict without it: a missing key
    sd._metadata[""] = {"version": 2}
    tsd = OrderedDict(tsd)
    tsd._metadata = sd._metadata
    with pytest.raises(RuntimeError) as e:
        nn.BatchNorm2d(3).load_state_dict(sd)
    with pytest.raises(RuntimeError) as te:
        torch.nn.BatchNorm2d(3).load_state_dict(tsd)
    assert str(e.value) == str(te.value)


def test_batchnorm_backward():
    em, tm = pair("BatchNorm2d", 3)
    x, tx = make_input((4, 3, 2, 2), "float64")
    em.double()
    tm.double()
    x.requires_grad_(True)
    tx.requires_grad_(True)
    tm(tx).pow(2).sum().backward()
    em(x).pow(2).sum().backward()
    assert_same(x.grad, tx.grad)
    assert_same(em.weight.grad, tm.weight.grad)
    assert_same(em.bias.grad, tm.bias.grad)


# ---------------------------------------------------------------------------------------------- dropout
def test_dropout_train_eval_same_mask_as_torch():
    em, tm = nn.Dropout(0.3), torch.nn.Dropout(0.3)
    assert repr(em) == repr(tm) == "Dropout(p=0.3, inplace=False)"
    x, tx = make_input((8, 9), "float32")
    ember.manual_seed(3)
    torch.manual_seed(3)
    assert_same(em(x), tm(tx))
    em.eval()
    tm.eval()
    assert em(x) is x
    assert_same(em(x), tm(tx))
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        nn.Dropout(1.5)
    assert repr(nn.Dropout(inplace=True)) == repr(torch.nn.Dropout(inplace=True))


# ---------------------------------------------------------------------------------------------- embedding
@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 2}, {"padding_idx": -1}, {"max_norm": 1.0},
                                    {"norm_type": 1.0, "scale_grad_by_freq": True}, {"sparse": True}],
                         ids=["plain", "padding", "padding-neg", "max-norm", "norm-type", "sparse"])
def test_embedding(kwargs):
    torch.manual_seed(0)
    ember.manual_seed(0)
    tm = torch.nn.Embedding(10, 4, **kwargs)
    em = nn.Embedding(10, 4, **kwargs)
    assert repr(em) == repr(tm)
    # the default initialisation (normal_, the padding row zeroed) is PyTorch's, bit for bit
    assert np.array_equal(em.weight.detach().numpy(), tm.weight.detach().numpy())
    idx = [[1, 2, 3], [2, 9, 0]]
    with ember.no_grad():
        out = em(ember.tensor(idx))
    with torch.no_grad():
        tout = tm(torch.tensor(idx))
    assert_same(out, tout)
    assert_same(em.weight.detach(), tm.weight.detach())  # max_norm renormalises rows in place


def test_embedding_backward_padding():
    em, tm = pair("Embedding", 10, 3, padding_idx=1)
    idx = [[1, 2, 3, 2], [0, 1, 9, 9]]
    tm(torch.tensor(idx)).sum().backward()
    em(ember.tensor(idx)).sum().backward()
    assert_same(em.weight.grad, tm.weight.grad)


def test_embedding_from_pretrained():
    w = torch.randn(5, 3)
    tm = torch.nn.Embedding.from_pretrained(w, padding_idx=1)
    ew = to_ember(w)
    em = nn.Embedding.from_pretrained(ew, padding_idx=1)
    assert repr(em) == repr(tm)
    assert em.weight.requires_grad is False
    assert em.weight.data_ptr() == ew.data_ptr()  # shared, and the padding row is not zeroed
    assert_same(em.weight.detach(), tm.weight.detach())
    assert nn.Embedding.from_pretrained(ew, freeze=False).weight.requires_grad is True
    with pytest.raises(AssertionError, match="2-dimensional"):
        nn.Embedding.from_pretrained(ember.zeros(3))
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(3, 2, padding_idx=3)


# ---------------------------------------------------------------------------------------------- losses
def _class_targets(shape, classes, seed=0):
    a = np.random.RandomState(seed).randint(0, classes, size=shape)
    return ember.from_numpy(a), torch.from_numpy(a)


LOSSES = [
    ("mse", "MSELoss", {}, "real"),
    ("mse-sum", "MSELoss", {"reduction": "sum"}, "real"),
    ("l1-none", "L1Loss", {"reduction": "none"}, "real"),
    ("smoothl1", "SmoothL1Loss", {"beta": 0.5}, "real"),
    ("huber", "HuberLoss", {"delta": 0.7, "reduction": "sum"}, "real"),
    ("bce", "BCELoss", {}, "prob"),
    ("bce-weight", "BCELoss", {"weight": [0.5, 1.0, 2.0, 1.5, 1.0]}, "prob"),
    ("bcelogits", "BCEWithLogitsLoss", {}, "logit"),
    ("bcelogits-posweight", "BCEWithLogitsLoss", {"pos_weight": [1.0, 2.0, 0.5, 1.0, 3.0], "reduction": "none"},
     "logit"),
    ("crossentropy", "CrossEntropyLoss", {}, "class"),
    ("crossentropy-options", "CrossEntropyLoss", {"weight": [1.0, 2.0, 0.5, 1.0, 1.0], "ignore_index": 1,
                                                  "label_smoothing": 0.1}, "class"),
    ("crossentropy-probs", "CrossEntropyLoss", {"reduction": "sum"}, "prob-target"),
    ("nll", "NLLLoss", {}, "logprob"),
    ("nll-weight-sum", "NLLLoss", {"weight": [1.0, 2.0, 0.5, 1.0, 1.0], "reduction": "sum"}, "logprob"),
]


def _loss_case(case):
    _, name, kwargs, kind = case
    ekw = {k: (ember.tensor(v, dtype=ember.float64) if isinstance(v, list) else v) for k, v in kwargs.items()}
    tkw = {k: (torch.tensor(v, dtype=torch.float64) if isinstance(v, list) else v) for k, v in kwargs.items()}
    em, tm = getattr(nn, name)(**ekw), getattr(torch.nn, name)(**tkw)
    x, tx = make_input((4, 5), "float64", seed=1)
    if kind == "prob":
        x, tx = x.sigmoid(), tx.sigmoid()
        t, tt = make_input((4, 5), "float64", seed=2, low=0.0, high=1.0)
    elif kind in ("real", "logit"):
        t, tt = make_input((4, 5), "float64", seed=2)
    elif kind == "prob-target":
        t, tt = make_input((4, 5), "float64", seed=2, low=0.0, high=1.0)
        t, tt = t.softmax(1), tt.softmax(1)
    elif kind == "logprob":
        x, tx = x.log_softmax(1), tx.log_softmax(1)
        t, tt = _class_targets((4,), 5)
    else:
        t, tt = _class_targets((4,), 5)
    return em, tm, x, tx, t, tt


@pytest.mark.parametrize("case", LOSSES, ids=[c[0] for c in LOSSES])
def test_loss_forward(case):
    em, tm, x, tx, t, tt = _loss_case(case)
    assert repr(em) == repr(tm)
    assert list(em.state_dict()) == list(tm.state_dict())
    with ember.no_grad():
        assert_same(em(x, t), tm(tx, tt))


@pytest.mark.parametrize("case", [pytest.param(c, id=c[0]) for c in LOSSES])
def test_loss_backward(case):
    em, tm, x, tx, t, tt = _loss_case(case)
    x = x.detach().requires_grad_(True)
    tx = tx.detach().requires_grad_(True)
    tm(tx, tt).sum().backward()
    em(x, t).sum().backward()
    assert_same(x.grad, tx.grad)


def test_loss_legacy_arguments():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert nn.MSELoss(size_average=False).reduction == torch.nn.MSELoss(size_average=False).reduction == "sum"
        assert nn.L1Loss(reduce=False).reduction == "none"
        assert nn.NLLLoss(size_average=True, reduce=True).reduction == "mean"
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        nn.MSELoss(reduction="avg")(ember.zeros(2), ember.zeros(2))


# ---------------------------------------------------------------------------------------------- Parameter
def test_parameter():
    t = ember.zeros(2, 3)
    p = nn.Parameter(t)
    tp = torch.nn.Parameter(torch.zeros(2, 3))
    assert isinstance(p, nn.Parameter) and isinstance(p, ember.Tensor)
    assert p.requires_grad is True and p.is_leaf and p.grad_fn is None
    assert p.data_ptr() == t.data_ptr()  # aliases the data
    assert repr(p) == repr(tp)
    assert repr(nn.Parameter(ember.ones(2, dtype=ember.float64), requires_grad=False)) == \
        torch_repr(repr(torch.nn.Parameter(torch.ones(2, dtype=torch.float64), requires_grad=False)))
    assert tuple(nn.Parameter().shape) == (0,)
    # ops on a Parameter give plain tensors
    assert type(p * 2) is ember.Tensor
    c = copy.deepcopy(p)
    assert isinstance(c, nn.Parameter) and c.data_ptr() != p.data_ptr() and c.requires_grad
    q = pickle.loads(pickle.dumps(nn.Parameter(ember.arange(3.0), requires_grad=False)))
    assert isinstance(q, nn.Parameter) and q.requires_grad is False and q.tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(RuntimeError):
        nn.Parameter(ember.zeros(2, dtype=ember.int64))  # integer tensors cannot require grad
    assert nn.Parameter(ember.zeros(2, dtype=ember.int64), requires_grad=False).dtype == ember.int64


def test_tensor_data():
    p = nn.Parameter(ember.ones(3))
    d = p.data
    assert type(d) is ember.Tensor and not d.requires_grad and d.data_ptr() == p.data_ptr()
    p.data = ember.zeros(2, 2, dtype=ember.float64)
    assert isinstance(p, nn.Parameter) and p.dtype == ember.float64 and tuple(p.shape) == (2, 2)
    assert p.requires_grad
    with pytest.raises(TypeError):
        p.data = 3


# ---------------------------------------------------------------------------------------------- a model
def _net_class(lib, T):
    """A model with nested modules, buffers (one non-persistent), containers and a direct parameter, built on
    lib (ember.nn or torch.nn) and the tensor library T."""
    class Block(lib.Module):
        def __init__(self):
            super().__init__()
            self.conv = lib.Conv2d(2, 3, 3, padding=1)
            self.bn = lib.BatchNorm2d(3)
            self.register_buffer("scale", T.ones(1))
            self.register_buffer("tmp", T.zeros(1), persistent=False)

    class Net(lib.Module):
        def __init__(self):
            super().__init__()
            self.block = Block()
            self.act = lib.ReLU()
            self.heads = lib.ModuleDict({"a": lib.Linear(3, 2), "b": lib.Sequential(lib.Flatten(), lib.Linear(3, 1))})
            self.extra = lib.ParameterList([lib.Parameter(T.zeros(2))])
            self.alpha = lib.Parameter(T.ones(1))

    return Net


Net = _net_class(nn, ember)
TorchNet = _net_class(torch.nn, torch)


def test_model_traversals_match_torch():
    em, tm = Net(), TorchNet()
    assert repr(em) == torch_repr(repr(tm))
    assert list(em.state_dict()) == list(tm.state_dict())
    assert "block.tmp" not in em.state_dict()
    assert [n for n, _ in em.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert [n for n, _ in em.named_buffers()] == [n for n, _ in tm.named_buffers()]
    assert [n for n, _ in em.named_modules()] == [n for n, _ in tm.named_modules()]
    assert [n for n, _ in em.named_children()] == [n for n, _ in tm.named_children()]
    assert [n for n, _ in em.named_parameters(prefix="m", recurse=False)] == \
        [n for n, _ in tm.named_parameters(prefix="m", recurse=False)]
    assert [n for n, _ in em.block.named_buffers(prefix="x")] == [n for n, _ in tm.block.named_buffers(prefix="x")]
    assert len(list(em.parameters())) == len(list(tm.parameters()))
    assert len(list(em.modules())) == len(list(tm.modules()))
    assert dict(em.state_dict()._metadata) == dict(tm.state_dict()._metadata)
    sd = em.state_dict()
    assert all(type(v) is ember.Tensor and not v.requires_grad for v in sd.values())
    assert isinstance(em.state_dict(keep_vars=True)["alpha"], nn.Parameter)
    assert list(em.state_dict(prefix="p.")) == list(tm.state_dict(prefix="p."))
    # the model's state loads into the torch model and back
    tm.load_state_dict({k: to_torch(v) for k, v in sd.items()})
    em2 = Net()
    em2.load_state_dict(state_from_torch(tm))
    for k, v in em2.state_dict().items():
        assert_same(v, to_torch(sd[k]))


def test_shared_modules_and_parameters():
    lin = nn.Linear(2, 2)
    seq = nn.Sequential(lin, nn.ReLU(), lin)
    tlin = torch.nn.Linear(2, 2)
    tseq = torch.nn.Sequential(tlin, torch.nn.ReLU(), tlin)
    assert [n for n, _ in seq.named_modules()] == [n for n, _ in tseq.named_modules()]
    assert [n for n, _ in seq.named_modules(remove_duplicate=False)] == \
        [n for n, _ in tseq.named_modules(remove_duplicate=False)]
    assert [n for n, _ in seq.named_parameters()] == ["0.weight", "0.bias"]
    assert [n for n, _ in seq.named_parameters(remove_duplicate=False)] == ["0.weight", "0.bias", "2.weight",
                                                                            "2.bias"]
    assert list(seq.state_dict()) == list(tseq.state_dict())
    assert len(list(seq.children())) == len(list(tseq.children())) == 2


def test_get_submodule_parameter_buffer():
    em, tm = Net(), TorchNet()
    assert em.get_submodule("heads.b.1") is em.heads["b"][1]
    assert em.get_submodule("") is em
    assert em.get_parameter("heads.a.weight") is em.heads["a"].weight
    assert em.get_buffer("block.bn.running_mean") is em.block.bn.running_mean
    for call, arg in [("get_submodule", "heads.c"), ("get_submodule", "block.scale"), ("get_parameter", "act.x"),
                      ("get_parameter", "block.scale"), ("get_buffer", "block.conv.weight"),
                      ("get_buffer", "heads.zz")]:
        with pytest.raises(AttributeError) as e:
            getattr(em, call)(arg)
        with pytest.raises(AttributeError) as te:
            getattr(tm, call)(arg)
        assert str(e.value) == str(te.value)


def _same_error(efn, tfn):
    """efn raises what tfn raises: the same exception type and message (torch names replaced by ember's)."""
    with pytest.raises(Exception) as te:
        tfn()
    with pytest.raises(type(te.value)) as e:
        efn()
    assert str(e.value) == str(te.value).replace("torch", "ember")


def test_registration_errors():
    em, tm = nn.Linear(2, 2), torch.nn.Linear(2, 2)
    _same_error(lambda: setattr(em, "weight", ember.zeros(2, 2)), lambda: setattr(tm, "weight", torch.zeros(2, 2)))
    _same_error(lambda: em.register_parameter("a.b", None), lambda: tm.register_parameter("a.b", None))
    _same_error(lambda: em.register_parameter("", None), lambda: tm.register_parameter("", None))
    _same_error(lambda: em.register_parameter(1, None), lambda: tm.register_parameter(1, None))
    _same_error(lambda: em.register_parameter("in_features", None), lambda: tm.register_parameter("in_features", None))
    _same_error(lambda: em.register_parameter("w", ember.zeros(1)), lambda: tm.register_parameter("w", torch.zeros(1)))
    _same_error(lambda: em.register_buffer("a.b", None), lambda: tm.register_buffer("a.b", None))
    _same_error(lambda: em.register_buffer("", None), lambda: tm.register_buffer("", None))
    _same_error(lambda: em.register_buffer("weight", None), lambda: tm.register_buffer("weight", None))
    _same_error(lambda: em.register_buffer("b", 3), lambda: tm.register_buffer("b", 3))
    _same_error(lambda: em.add_module("a.b", None), lambda: tm.add_module("a.b", None))
    _same_error(lambda: em.add_module("", None), lambda: tm.add_module("", None))
    _same_error(lambda: em.add_module("weight", None), lambda: tm.add_module("weight", None))
    _same_error(lambda: em.add_module("m", 3), lambda: tm.add_module("m", 3))
    em.register_buffer("buf", ember.zeros(1))
    tm.register_buffer("buf", torch.zeros(1))
    _same_error(lambda: setattr(em, "buf", 3), lambda: setattr(tm, "buf", 3))
    em.sub = nn.ReLU()
    tm.sub = torch.nn.ReLU()
    _same_error(lambda: setattr(em, "sub", 3), lambda: setattr(tm, "sub", 3))
    _same_error(lambda: em.missing, lambda: tm.missing)

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(ember.zeros(1))

    with pytest.raises(AttributeError, match="cannot assign parameters before Module.__init__\\(\\) call"):
        Early()


def test_setattr_routing_and_delattr_dir():
    m = nn.Module()
    m.w = nn.Parameter(ember.zeros(1))
    m.sub = nn.Linear(1, 1)
    m.register_buffer("b", ember.zeros(1))
    m.plain = 3
    assert list(m._parameters) == ["w"] and list(m._modules) == ["sub"] and list(m._buffers) == ["b"]
    m.w = None  # a registered parameter may become None
    assert m.w is None and "w" in m._parameters
    m.b = ember.ones(2)
    assert m.b.tolist() == [1.0, 1.0]
    m.sub = None
    assert m.sub is None
    for name in ("w", "sub", "b", "plain"):
        assert name in dir(m)
        delattr(m, name)
        assert not hasattr(m, name)
    # a module replacing a plain attribute of the same name
    m.x = 1
    m.x = nn.ReLU()
    assert "x" in m._modules and "x" not in m.__dict__


def test_load_state_dict_errors_match_torch():
    em, tm = Net(), TorchNet()
    sd = state_from_torch(tm)
    tsd = tm.state_dict()
    # missing and unexpected keys
    del sd["heads.a.bias"], tsd["heads.a.bias"]
    sd["heads.a.extra"] = ember.zeros(1)
    tsd["heads.a.extra"] = torch.zeros(1)
    sd["nothere"] = ember.zeros(1)
    tsd["nothere"] = torch.zeros(1)
    _same_error(lambda: em.load_state_dict(sd), lambda: tm.load_state_dict(tsd))
    r, tr = em.load_state_dict(sd, strict=False), tm.load_state_dict(tsd, strict=False)
    assert r == tuple(tr) and r.missing_keys == ["heads.a.bias"]
    assert repr(r) == repr(tr) and str(r) == str(tr)
    # size mismatch (also reported with strict=False)
    sd, tsd = state_from_torch(tm), tm.state_dict()
    sd["block.conv.weight"] = ember.zeros(3, 2, 2, 2)
    tsd["block.conv.weight"] = torch.zeros(3, 2, 2, 2)
    _same_error(lambda: em.load_state_dict(sd), lambda: tm.load_state_dict(tsd))
    _same_error(lambda: em.load_state_dict(sd, strict=False), lambda: tm.load_state_dict(tsd, strict=False))
    # not a tensor; not a mapping
    sd["block.conv.weight"] = 3
    tsd["block.conv.weight"] = 3
    _same_error(lambda: em.load_state_dict(sd), lambda: tm.load_state_dict(tsd))
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        em.load_state_dict([1, 2])
    ok = em.load_state_dict(state_from_torch(tm))
    assert repr(ok) == "<All keys matched successfully>" and ok.missing_keys == [] and ok.unexpected_keys == []


def test_load_state_dict_values_and_post_hook():
    tm = torch.nn.Linear(3, 2)
    em = nn.Linear(3, 2)
    w = em.weight
    em.load_state_dict(state_from_torch(tm))
    assert em.weight is w  # copied in place
    assert_same(em.weight.detach(), tm.weight.detach())
    seen = []
    em.register_load_state_dict_post_hook(lambda m, keys: seen.append((m, list(keys.unexpected_keys))))
    sd = em.state_dict()
    sd["zzz"] = ember.zeros(1)
    em.load_state_dict(sd, strict=False)
    assert seen == [(em, ["zzz"])]


# ---------------------------------------------------------------------------------------------- modes, grads
def test_train_eval_requires_grad_zero_grad_apply():
    em = Net()
    assert em.training and all(m.training for m in em.modules())
    assert em.eval() is em and not any(m.training for m in em.modules())
    em.train()
    assert all(m.training for m in em.modules())
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        em.train("yes")
    em.requires_grad_(False)
    assert not any(p.requires_grad for p in em.parameters())
    em.requires_grad_()
    for p in em.parameters():
        p.grad = ember.ones(p.shape)
    em.zero_grad()
    assert all(p.grad is not None and p.grad.abs().sum().item() == 0 for p in em.parameters())
    em.zero_grad(set_to_none=True)
    assert all(p.grad is None for p in em.parameters())
    names = []
    assert em.apply(lambda m: names.append(type(m).__name__)) is em
    tnames = []
    TorchNet().apply(lambda m: tnames.append(type(m).__name__))
    assert tnames == names


def test_zero_grad_of_real_backward():
    em = nn.Linear(3, 2)
    em(ember.ones(4, 3)).sum().backward()
    g = em.weight.grad
    em.zero_grad()
    assert em.weight.grad is g and g.abs().sum().item() == 0


def test_to_double_float_type_keep_parameter_identity():
    em = Net()
    w = em.heads["a"].weight
    w.grad = ember.ones(w.shape)
    assert em.double() is em
    assert em.heads["a"].weight is w and w.dtype == ember.float64 and isinstance(w, nn.Parameter)
    assert w.requires_grad and w.grad.dtype == ember.float64
    assert em.block.bn.running_mean.dtype == ember.float64
    assert em.block.bn.num_batches_tracked.dtype == ember.int64  # integer buffers keep their dtype
    assert em.block.tmp.dtype == ember.float64  # non-persistent buffers convert too
    em.to(ember.float32)
    assert w.dtype == ember.float32
    em.to("cpu", ember.float64)
    assert w.dtype == ember.float64
    em.to(ember.zeros(1))
    assert w.dtype == ember.float32
    em.to(dtype=ember.float64, device=ember.device("cpu"))
    assert w.dtype == ember.float64
    em.float()
    assert w.dtype == ember.float32
    em.half()
    assert w.dtype == ember.float16
    em.type(ember.float64)
    assert w.dtype == ember.float64 and em.block.bn.num_batches_tracked.dtype == ember.float64
    assert em.cpu() is em
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point"):
        em.to(ember.int32)


# ---------------------------------------------------------------------------------------------- hooks
def test_forward_hooks():
    em = nn.Linear(2, 2)
    calls = []

    def pre(m, inp):
        calls.append("pre")
        return inp[0] * 0  # a single value becomes the 1-tuple input

    def post(m, inp, out):
        calls.append(("post", tuple(inp[0].shape)))
        return out + 1

    h1 = em.register_forward_pre_hook(pre)
    h2 = em.register_forward_hook(post)
    with ember.no_grad():
        out = em(ember.ones(3, 2))
        assert_same(out, to_torch(em.bias.detach()).expand(3, 2) + 1)
        assert calls == ["pre", ("post", (3, 2))]
        h1.remove()
        h1.remove()  # removing twice is fine
        with h2:
            pass
        calls.clear()
        em(ember.ones(3, 2))
        assert calls == []
    # hooks returning None keep input and output; several run in registration order
    order = []
    em.register_forward_pre_hook(lambda m, i: order.append(1))
    em.register_forward_pre_hook(lambda m, i: order.append(2))
    em.register_forward_hook(lambda m, i, o: order.append(3))
    with ember.no_grad():
        em(ember.ones(1, 2))
    assert order == [1, 2, 3]


def test_forward_unimplemented_and_kwargs():
    with pytest.raises(NotImplementedError, match='Module \\[Module\\] is missing the required "forward" function'):
        nn.Module()(1)

    class KW(nn.Module):
        def forward(self, x, scale=1):
            return x * scale

    assert KW()(2, scale=3) == 6


# ---------------------------------------------------------------------------------------------- containers
def test_sequential():
    mods = [nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)]
    tmods = [torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1)]
    s, ts = nn.Sequential(*mods), torch.nn.Sequential(*tmods)
    assert repr(s) == repr(ts) and len(s) == 3
    assert s[0] is mods[0] and s[-1] is mods[2]
    assert isinstance(s[1:], nn.Sequential) and list(s[1:]) == mods[1:] and list(s[1:]._modules) == ["1", "2"]
    _same_error(lambda: s[3], lambda: ts[3])
    _same_error(lambda: s[-4], lambda: ts[-4])
    s.load_state_dict(state_from_torch(ts))
    x, tx = make_input((4, 2), "float32")
    with ember.no_grad():
        assert_same(s(x), ts(tx).detach())
    del s[0]
    del ts[0]
    assert list(s._modules) == list(ts._modules) == ["0", "1"]
    s.append(nn.Sigmoid())
    ts.append(torch.nn.Sigmoid())
    s.insert(0, nn.Tanh())
    ts.insert(0, torch.nn.Tanh())
    assert repr(s) == repr(ts)
    assert isinstance(s.pop(1), nn.ReLU)
    ts.pop(1)
    assert repr(s) == repr(ts)
    s[0] = nn.ELU()
    ts[0] = torch.nn.ELU()
    assert repr(s + s) == repr(ts + ts) and repr(s * 2) == repr(ts * 2) and repr(2 * s) == repr(2 * ts)
    s += nn.Sequential(nn.ReLU())
    ts += torch.nn.Sequential(torch.nn.ReLU())
    assert repr(s) == repr(ts)
    s.extend([nn.ReLU()])
    ts.extend([torch.nn.ReLU()])
    assert repr(s) == repr(ts)
    _same_error(lambda: s + 1, lambda: ts + 1)
    _same_error(lambda: s * 0, lambda: ts * 0)
    od = nn.Sequential(OrderedDict([("first", nn.ReLU()), ("second", nn.Tanh())]))
    tod = torch.nn.Sequential(OrderedDict([("first", torch.nn.ReLU()), ("second", torch.nn.Tanh())]))
    assert repr(od) == repr(tod) and od.first is od[0]
    assert "0" not in dir(s)


def test_modulelist():
    ml = nn.ModuleList([nn.ReLU(), nn.Tanh()])
    tml = torch.nn.ModuleList([torch.nn.ReLU(), torch.nn.Tanh()])
    assert repr(ml) == repr(tml) and len(ml) == 2
    ml.append(nn.Linear(1, 1))
    tml.append(torch.nn.Linear(1, 1))
    ml.extend([nn.Sigmoid()])
    tml.extend([torch.nn.Sigmoid()])
    ml.insert(1, nn.ELU())
    tml.insert(1, torch.nn.ELU())
    assert repr(ml) == repr(tml)
    assert isinstance(ml[1:3], nn.ModuleList) and repr(ml[1:3]) == repr(tml[1:3])
    assert isinstance(ml[-1], nn.Sigmoid)
    del ml[0]
    del tml[0]
    assert repr(ml) == repr(tml)
    del ml[::2]
    del tml[::2]
    assert repr(ml) == repr(tml)
    ml[0] = nn.ReLU()
    tml[0] = torch.nn.ReLU()
    ml += [nn.Tanh()]
    tml += [torch.nn.Tanh()]
    assert repr(ml) == repr(tml) and repr(ml + ml) == repr(tml + tml)
    assert [n for n, _ in ml.named_parameters()] == [n for n, _ in tml.named_parameters()]
    _same_error(lambda: ml[10], lambda: tml[10])
    _same_error(lambda: ml.extend(1), lambda: tml.extend(1))
    assert isinstance(ml.pop(0), nn.ReLU)


def test_moduledict():
    md = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Tanh()})
    tmd = torch.nn.ModuleDict({"b": torch.nn.ReLU(), "a": torch.nn.Tanh()})
    assert repr(md) == repr(tmd) and list(md) == list(tmd) == ["b", "a"]
    md.update([("c", nn.ELU())])
    tmd.update([("c", torch.nn.ELU())])
    md["d"] = nn.Linear(1, 1)
    tmd["d"] = torch.nn.Linear(1, 1)
    assert repr(md) == repr(tmd) and "c" in md and len(md) == 4
    assert list(md.keys()) == list(tmd.keys())
    assert [type(v).__name__ for v in md.values()] == [type(v).__name__ for v in tmd.values()]
    assert isinstance(md.pop("b"), nn.ReLU)
    del md["a"]
    assert list(md) == ["c", "d"]
    _same_error(lambda: md.update(1), lambda: tmd.update(1))
    _same_error(lambda: md.update([1]), lambda: tmd.update([1]))
    _same_error(lambda: md.update([("x", nn.ReLU(), 3)]), lambda: tmd.update([("x", torch.nn.ReLU(), 3)]))
    md.clear()
    assert len(md) == 0


def test_parameterlist_parameterdict():
    pl = nn.ParameterList([nn.Parameter(ember.zeros(2, 3)), ember.ones(4)])
    tpl = torch.nn.ParameterList([torch.nn.Parameter(torch.zeros(2, 3)), torch.ones(4)])
    assert repr(pl) == torch_repr(repr(tpl))
    assert isinstance(pl[1], nn.Parameter)  # a plain tensor becomes a Parameter
    pl.append(nn.Parameter(ember.zeros(1, dtype=ember.float64)))
    tpl.append(torch.nn.Parameter(torch.zeros(1, dtype=torch.float64)))
    assert repr(pl) == torch_repr(repr(tpl)) and len(pl) == 3
    assert [n for n, _ in pl.named_parameters()] == [n for n, _ in tpl.named_parameters()]
    assert list(pl.state_dict()) == list(tpl.state_dict())
    assert len(pl[1:]) == 2 and pl[1:][0] is pl[1]
    _same_error(lambda: pl[5], lambda: tpl[5])
    _same_error(lambda: pl.extend(ember.zeros(2)), lambda: tpl.extend(torch.zeros(2)))
    with pytest.raises(RuntimeError, match="ParameterList should not be called."):
        pl()
    pd = nn.ParameterDict({"b": nn.Parameter(ember.zeros(2)), "a": ember.ones(3)})
    tpd = torch.nn.ParameterDict({"b": torch.nn.Parameter(torch.zeros(2)), "a": torch.ones(3)})
    assert torch_repr(repr(tpd)) == repr(pd) and list(pd) == list(tpd)
    pd["c"] = nn.Parameter(ember.zeros(1))
    tpd["c"] = torch.nn.Parameter(torch.zeros(1))
    assert list(pd.state_dict()) == list(tpd.state_dict())
    assert list(pd.keys()) == list(tpd.keys()) and "c" in pd and len(pd) == 3
    assert pd.get("zz") is None and pd.get("a") is pd["a"]
    assert isinstance(pd.pop("b"), nn.Parameter) and list(pd) == ["a", "c"]
    assert pd.setdefault("d", nn.Parameter(ember.zeros(1))) is pd["d"]
    k, v = pd.popitem()
    assert k == "d" and isinstance(v, nn.Parameter)
    assert list(pd.copy()) == ["a", "c"]
    pd.update([("e", ember.zeros(2))])
    assert [k for k, _ in pd.items()] == ["a", "c", "e"]
    pd.clear()
    assert len(pd) == 0
    _same_error(lambda: pd.update(1), lambda: tpd.update(1))
    with pytest.raises(RuntimeError, match="ParameterDict should not be called."):
        pd(1)


# ---------------------------------------------------------------------------------------------- init
INIT_CASES = [
    ("uniform_", (), {"a": -0.5, "b": 2.0}),
    ("normal_", (), {"mean": 1.0, "std": 0.3}),
    ("constant_", (0.7,), {}),
    ("ones_", (), {}),
    ("zeros_", (), {}),
    ("eye_", (), {}),
    ("xavier_uniform_", (), {"gain": 2.0}),
    ("xavier_normal_", (), {}),
    ("kaiming_uniform_", (), {}),
    ("kaiming_uniform_", (), {"a": math.sqrt(5)}),
    ("kaiming_uniform_", (), {"mode": "fan_out", "nonlinearity": "relu"}),
    ("kaiming_normal_", (), {"a": 0.1, "mode": "fan_in"}),
    ("kaiming_normal_", (), {"mode": "FAN_OUT", "nonlinearity": "tanh"}),
]


@pytest.mark.parametrize("shape", [(5, 3), (8, 3, 3, 3), (4, 2, 5)], ids=["2d", "4d", "3d"])
@pytest.mark.parametrize("name,args,kwargs", INIT_CASES, ids=[c[0] + str(i) for i, c in enumerate(INIT_CASES)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_init_bit_exact(name, args, kwargs, shape, dtype):
    if name == "eye_" and len(shape) != 2:
        _same_error(lambda: nn.init.eye_(ember.empty(shape)), lambda: torch.nn.init.eye_(torch.empty(shape)))
        return
    e = ember.empty(shape, dtype=getattr(ember, dtype))
    t = torch.empty(shape, dtype=getattr(torch, dtype))
    ember.manual_seed(11)
    torch.manual_seed(11)
    r = getattr(nn.init, name)(e, *args, **kwargs)
    getattr(torch.nn.init, name)(t, *args, **kwargs)
    assert r is e
    assert np.array_equal(e.numpy(), t.numpy())


def test_init_on_parameter_keeps_graph_clean():
    p = nn.Parameter(ember.empty(3, 4))
    nn.init.kaiming_uniform_(p)
    assert p.is_leaf and p.grad_fn is None and p.requires_grad


def test_init_helpers_and_errors():
    for nl in ["linear", "conv1d", "conv2d", "conv_transpose2d", "sigmoid", "tanh", "relu", "selu", "leaky_relu"]:
        assert nn.init.calculate_gain(nl) == torch.nn.init.calculate_gain(nl)
    for slope in [0, 0.2, 3]:
        assert nn.init.calculate_gain("leaky_relu", slope) == torch.nn.init.calculate_gain("leaky_relu", slope)
    _same_error(lambda: nn.init.calculate_gain("leaky_relu", True), lambda: torch.nn.init.calculate_gain("leaky_relu",
                                                                                                          True))
    _same_error(lambda: nn.init.calculate_gain("swish"), lambda: torch.nn.init.calculate_gain("swish"))
    for shape in [(3, 4), (5, 4, 3), (6, 2, 3, 3), (0, 3)]:
        assert nn.init._calculate_fan_in_and_fan_out(ember.empty(shape)) == \
            torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))
    _same_error(lambda: nn.init._calculate_fan_in_and_fan_out(ember.empty(3)),
                lambda: torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(3)))
    _same_error(lambda: nn.init.kaiming_uniform_(ember.empty(3, 3), mode="fan"),
                lambda: torch.nn.init.kaiming_uniform_(torch.empty(3, 3), mode="fan"))
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        nn.init.kaiming_normal_(ember.empty(0, 3))


@pytest.mark.parametrize("name,args,kwargs", [
    ("Linear", (5, 3), {}), ("Linear", (7, 2), {"bias": False}), ("Conv2d", (3, 8, 3), {}),
    ("Conv2d", (4, 6, (3, 2)), {"groups": 2, "padding_mode": "reflect"}), ("Conv1d", (2, 5, 4), {}),
    ("Embedding", (10, 4), {}), ("BatchNorm2d", (3,), {}), ("LayerNorm", (4,), {}), ("GroupNorm", (2, 4), {}),
    ("Linear", (0, 3), {}), ("Conv2d", (3, 0, 2), {}),
], ids=lambda x: str(x) if not isinstance(x, (tuple, dict)) else "")
@pytest.mark.parametrize("seed", [0, 1234])
def test_default_initialisation_bit_exact(name, args, kwargs, seed):
    ember.manual_seed(seed)
    torch.manual_seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        em = getattr(nn, name)(*args, **kwargs)
        tm = getattr(torch.nn, name)(*args, **kwargs)
    for k, v in tm.state_dict().items():
        assert np.array_equal(em.state_dict()[k].numpy(), v.numpy()), k
    # the generators stay in step afterwards
    assert np.array_equal(ember.rand(3).numpy(), torch.rand(3).numpy())


# ---------------------------------------------------------------------------------------------- utils
@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, math.inf])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm(norm_type, max_norm):
    grads = [np.random.RandomState(i).uniform(-2, 2, size=s) for i, s in enumerate([(3, 4), (5,), ()])]
    eps = [nn.Parameter(ember.zeros(g.shape)) for g in grads] + [nn.Parameter(ember.zeros(2))]
    tps = [torch.nn.Parameter(torch.zeros(g.shape)) for g in grads] + [torch.nn.Parameter(torch.zeros(2))]
    for p, tp, g in zip(eps, tps, grads):
        p.grad = ember.from_numpy(g.astype("float32"))
        tp.grad = torch.from_numpy(g.astype("float32"))
    total = nn.utils.clip_grad_norm_(eps, max_norm, norm_type)
    ttotal = torch.nn.utils.clip_grad_norm_(tps, max_norm, norm_type)
    assert_same(total, ttotal)
    for p, tp in zip(eps[:3], tps[:3]):
        assert_same(p.grad, tp.grad)
    assert eps[3].grad is None


def test_clip_grad_norm_edge_cases():
    assert_same(nn.utils.clip_grad_norm_([nn.Parameter(ember.zeros(2))], 1.0),
                torch.nn.utils.clip_grad_norm_([torch.nn.Parameter(torch.zeros(2))], 1.0))
    p = nn.Parameter(ember.zeros(2))
    p.grad = ember.tensor([float("inf"), 1.0])
    tp = torch.nn.Parameter(torch.zeros(2))
    tp.grad = torch.tensor([float("inf"), 1.0])
    _same_error(lambda: nn.utils.clip_grad_norm_(p, 1.0, error_if_nonfinite=True),
                lambda: torch.nn.utils.clip_grad_norm_(tp, 1.0, error_if_nonfinite=True))
    assert_same(nn.utils.clip_grad_norm_(p, 1.0), torch.nn.utils.clip_grad_norm_(tp, 1.0))
    assert_same(p.grad, tp.grad)


def test_clip_grad_value_and_vector_conversion():
    g = np.random.RandomState(0).uniform(-2, 2, size=(3, 4)).astype("float32")
    p = nn.Parameter(ember.zeros(3, 4))
    p.grad = ember.from_numpy(g.copy())
    tp = torch.nn.Parameter(torch.zeros(3, 4))
    tp.grad = torch.from_numpy(g.copy())
    nn.utils.clip_grad_value_([p], 0.5)
    torch.nn.utils.clip_grad_value_([tp], 0.5)
    assert_same(p.grad, tp.grad)
    em, tm = pair("Linear", 3, 2)
    v, tv = nn.utils.parameters_to_vector(em.parameters()), torch.nn.utils.parameters_to_vector(tm.parameters())
    assert_same(v.detach(), tv.detach())
    nn.utils.vector_to_parameters(ember.arange(8.0), em.parameters())
    torch.nn.utils.vector_to_parameters(torch.arange(8.0), tm.parameters())
    assert_same(em.weight.detach(), tm.weight.detach())
    assert_same(em.bias.detach(), tm.bias.detach())
    with pytest.raises(TypeError):
        nn.utils.vector_to_parameters([1.0], em.parameters())


# ---------------------------------------------------------------------------------------------- layer options
def test_layer_argument_errors_match_torch():
    for name, args, kwargs in [
        ("Conv2d", (3, 4, 3), {"groups": 0}), ("Conv2d", (3, 4, 3), {"groups": 2}),
        ("Conv2d", (4, 3, 3), {"groups": 2}), ("Conv2d", (3, 4, 3), {"padding": "full"}),
        ("Conv2d", (3, 4, 3), {"padding": "same", "stride": 2}),
        ("GroupNorm", (4, 6), {}), ("Unflatten", (1, 3), {}), ("Unflatten", (1, (2, 1.5)), {}),
        ("Unflatten", (1.0, (2, 2)), {}),
    ]:
        _same_error(lambda: getattr(nn, name)(*args, **kwargs), lambda: getattr(torch.nn, name)(*args, **kwargs))
    # (the valid modes are printed as a set, in an order that varies between runs)
    with pytest.raises(ValueError, match="padding_mode must be one of .*, but got padding_mode='edge'"):
        nn.Conv1d(3, 4, 3, padding_mode="edge")


@pytest.mark.parametrize("name,args,kwargs", [
    ("Conv2d", (3, 4, 3), {"stride": 2, "padding": 1, "dilation": 2, "groups": 1, "bias": False,
                           "padding_mode": "circular"}),
    ("Conv2d", (4, 4, 2), {"padding": "same", "groups": 2}), ("Conv1d", (2, 4, 3), {"padding": "valid"}),
    ("MaxPool2d", (3, 1, 1, 2), {"return_indices": True, "ceil_mode": True}),
    ("AvgPool2d", ((2, 3),), {"divisor_override": 2}), ("AdaptiveAvgPool2d", ((None, 2),), {}),
    ("Hardtanh", (), {"inplace": True}), ("ReLU", (True,), {}), ("ReLU6", (True,), {}), ("ELU", (), {"inplace": True}),
    ("LeakyReLU", (), {}), ("Threshold", (0.5, 1, True), {}), ("Softmax", (), {}), ("Softplus", (), {}),
    ("Embedding", (5, 2), {"max_norm": 2.0, "norm_type": 1.0, "scale_grad_by_freq": True, "sparse": True}),
    ("CrossEntropyLoss", (), {"label_smoothing": 0.2}), ("Identity", (), {}), ("GLU", (), {}),
], ids=lambda x: str(x) if not isinstance(x, (tuple, dict)) else "")
def test_reprs(name, args, kwargs):
    assert repr(getattr(nn, name)(*args, **kwargs)) == torch_repr(repr(getattr(torch.nn, name)(*args, **kwargs)))


def test_inplace_activation_and_maxpool_indices():
    x, tx = make_input((3, 4), "float32")
    with ember.no_grad():
        r = nn.ReLU(inplace=True)(x)
    assert r is x and r.min().item() >= 0
    em, tm = nn.MaxPool2d(2, return_indices=True), torch.nn.MaxPool2d(2, return_indices=True)
    x, tx = make_input((1, 2, 4, 4), "float32")
    out, idx = em(x)
    tout, tidx = tm(tx)
    assert_same(out, tout)
    assert_same(idx, tidx)


def test_softmax_implicit_dim_warns():
    x, tx = make_input((2, 3), "float32")
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        out = nn.Softmax()(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(out, torch.nn.Softmax()(tx))


def test_deepcopy_and_pickle_of_a_model():
    # (Net is a local class, which pickle cannot find: the pickled model is made of ember.nn's classes)
    em = Net()
    seq = nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.ModuleDict({"a": nn.Linear(2, 2)}),
                        nn.ParameterList([nn.Parameter(ember.zeros(2), requires_grad=False)]))
    for em, clone in ((em, copy.deepcopy(em)), (seq, pickle.loads(pickle.dumps(seq)))):
        assert repr(clone) == repr(em) and list(clone.state_dict()) == list(em.state_dict())
        for (k, v), (k2, v2) in zip(clone.state_dict(keep_vars=True).items(), em.state_dict(keep_vars=True).items()):
            assert k == k2 and type(v) is type(v2) and v.data_ptr() != v2.data_ptr()
            assert np.array_equal(v.detach().numpy(), v2.detach().numpy())
            assert v.requires_grad == v2.requires_grad
