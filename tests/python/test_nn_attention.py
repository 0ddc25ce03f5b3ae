"""Attention, transformers and the activations/dropouts written in Python, against PyTorch 1.13:
MultiheadAttention and F.multi_head_attention_forward (every option, every kind of mask, forward and input and
parameter gradients), the Transformer classes (eval and train modes, PyTorch's state dicts, seeded init, repr),
F.scaled_dot_product_attention (PyTorch 2.x's; against a float64 composite and 1.13's private
torch._C._nn._scaled_dot_product_attention), PReLU/RReLU/Softshrink/Hardshrink/Softmax2d/gumbel_softmax and the
dropout family (masks equal to PyTorch's under the same seed), and the errors on bad shapes."""
import copy
import math
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.nn as enn
import ember.nn.functional as EF

TF = torch.nn.functional


# ---------------------------------------------------------------------------------------------- helpers
def to_torch(t):
    return torch.from_numpy(np.array(t.detach().numpy()))


def to_ember(t, requires_grad=False):
    return ember.tensor(t.detach().numpy().copy(), requires_grad=requires_grad)


def close(a, b, atol=1e-5, rtol=1e-4):
    a = a.detach().numpy() if isinstance(a, ember.Tensor) else np.asarray(a)
    b = b.detach().numpy() if isinstance(b, torch.Tensor) else np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, atol=atol, rtol=rtol)


def same(a, b):
    """Bit-equal values (NaN equal to NaN), dtype name and shape (bfloat16 compared through float32, which holds
    it exactly)."""
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], (a.dtype, b.dtype)
    if str(b.dtype) == "torch.bfloat16":
        a, b = a.float(), b.float()
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def pair(shape, seed=0, dtype=np.float64, requires_grad=True):
    x = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return ember.tensor(x, requires_grad=requires_grad), torch.tensor(x, requires_grad=requires_grad)


def copy_params(em, tm):
    """Loads Ember module em's state into PyTorch module tm (names must match)."""
    missing = tm.load_state_dict({k: to_torch(v) for k, v in em.state_dict().items()}, strict=True)
    assert not missing.missing_keys and not missing.unexpected_keys


def check_grads(em, tm, atol):
    names_e = [n for n, _ in em.named_parameters()]
    names_t = [n for n, _ in tm.named_parameters()]
    assert names_e == names_t
    for (n, pe), (_, pt) in zip(em.named_parameters(), tm.named_parameters()):
        if pt.grad is None:
            assert pe.grad is None or not pe.grad.detach().numpy().any(), n
        else:
            close(pe.grad, pt.grad, atol=atol, rtol=1e-5)


# ---------------------------------------------------------------------------------------------- MultiheadAttention
E, H, L, S, N = 8, 2, 4, 5, 3


def masks(kind, bsz, S, dtype=np.float64):
    """(ember_attn_mask, torch_attn_mask, ember_kpm, torch_kpm) for a mask kind; shapes for batch bsz, target
    length L and source length S."""
    rng = np.random.default_rng(7)
    am = kpm = None
    keep_cols = np.zeros((L, S), dtype=bool)
    keep_cols[:, 0] = True  # every query keeps key 0, so no row is fully masked
    if kind.startswith("attn2_bool"):
        am = (rng.random((L, S)) < 0.4) & ~keep_cols
    elif kind.startswith("attn2_float"):
        am = rng.standard_normal((L, S)).astype(dtype)
        am[0, 2] = -np.inf
    elif kind.startswith("attn3_bool"):
        am = (rng.random((bsz * H, L, S)) < 0.4) & ~keep_cols
    elif kind.startswith("attn3_float"):
        am = rng.standard_normal((bsz * H, L, S)).astype(dtype)
    elif kind.startswith("attn2_uint8"):
        am = ((rng.random((L, S)) < 0.4) & ~keep_cols).astype(np.uint8)
    if kind.endswith("kpm_bool"):
        kpm = rng.random((bsz, S)) < 0.4
        kpm[:, 0] = False
    elif kind.endswith("kpm_float"):
        kpm = rng.standard_normal((bsz, S)).astype(dtype)
    conv = lambda a: (None, None) if a is None else (ember.tensor(a), torch.tensor(a))  # noqa: E731
    (ea, ta), (ek, tk) = conv(am), conv(kpm)
    return ea, ta, ek, tk


MASK_KINDS = ["none", "attn2_bool", "attn2_float", "attn3_bool", "attn3_float", "attn2_uint8", "kpm_bool",
              "kpm_float", "attn2_bool+kpm_bool", "attn3_float+kpm_bool", "attn2_float+kpm_bool"]

# (constructor kwargs, the attention kind: self / kv (key is value) / qkv (all distinct))
MHA_CONFIGS = [
    (dict(), "self"),
    (dict(), "kv"),
    (dict(), "qkv"),
    (dict(bias=False), "self"),
    (dict(add_bias_kv=True), "self"),
    (dict(add_zero_attn=True), "qkv"),
    (dict(add_bias_kv=True, add_zero_attn=True), "kv"),
    (dict(kdim=5, vdim=3), "qkv"),
    (dict(kdim=6, vdim=6), "kv"),
    (dict(kdim=5, vdim=3, bias=False, add_bias_kv=True), "qkv"),
    (dict(batch_first=True), "self"),
    (dict(batch_first=True), "kv"),
    (dict(batch_first=True, kdim=5, vdim=3, add_zero_attn=True), "qkv"),
]


def mha_inputs(cfg, kind, batch_first, batched=True, seed=1):
    kdim = cfg.get("kdim", E)
    shp = (lambda length, e: (N, length, e) if batch_first else (length, N, e)) if batched else \
        (lambda length, e: (length, e))
    qe, qt = pair(shp(L, E), seed)
    if kind == "self":
        return (qe, qe, qe), (qt, qt, qt)
    ke, kt = pair(shp(S, kdim), seed + 1)
    if kind == "kv":
        return (qe, ke, ke), (qt, kt, kt)
    ve, vt = pair(shp(S, cfg.get("vdim", E)), seed + 2)
    return (qe, ke, ve), (qt, kt, vt)


def run_mha(cfg, kind, mask_kind, need_weights=True, average=True, batched=True, train=True):
    ember.manual_seed(0)
    em = enn.MultiheadAttention(E, H, dtype=ember.float64, **cfg)
    tm = torch.nn.MultiheadAttention(E, H, dtype=torch.float64, **cfg)
    copy_params(em, tm)
    em.train(train)
    tm.train(train)
    batch_first = cfg.get("batch_first", False)
    (qe, ke, ve), (qt, kt, vt) = mha_inputs(cfg, kind, batch_first, batched)
    ea, ta, ek, tk = masks(mask_kind, N, L if kind == "self" else S)
    if not batched:
        ek = None if ek is None else ek[0]
        tk = None if tk is None else tk[0]
        if ea is not None and ea.dim() == 3:
            ea, ta = ea[:H], ta[:H]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        oe, we = em(qe, ke, ve, key_padding_mask=ek, need_weights=need_weights, attn_mask=ea,
                    average_attn_weights=average)
        ot, wt = tm(qt, kt, vt, key_padding_mask=tk, need_weights=need_weights, attn_mask=ta,
                    average_attn_weights=average)
    close(oe, ot, atol=1e-10, rtol=1e-9)
    if need_weights:
        close(we, wt, atol=1e-10, rtol=1e-9)
    else:
        assert we is None and wt is None
    ge, gt = pair(tuple(ot.shape), 99, requires_grad=False)
    loss_e = (oe * ge).sum() + (we.sum() * 0.5 if need_weights else 0)
    loss_t = (ot * gt).sum() + (wt.sum() * 0.5 if need_weights else 0)
    loss_e.backward()
    loss_t.backward()
    for xe, xt in {id(x): (x, y) for x, y in zip((qe, ke, ve), (qt, kt, vt))}.values():
        close(xe.grad, xt.grad, atol=1e-9, rtol=1e-8)
    check_grads(em, tm, atol=1e-9)


@pytest.mark.parametrize("cfg, kind", MHA_CONFIGS, ids=lambda x: str(x))
def test_mha_configs_match_reference(cfg, kind):
    run_mha(cfg, kind, "none")
    run_mha(cfg, kind, "attn2_bool+kpm_bool", need_weights=True, average=False)


@pytest.mark.parametrize("mask_kind", MASK_KINDS)
@pytest.mark.parametrize("kind", ["self", "qkv"])
def test_mha_masks_match_reference(mask_kind, kind):
    run_mha(dict(), kind, mask_kind)
    run_mha(dict(add_bias_kv=True, add_zero_attn=True), kind, mask_kind, average=False)


@pytest.mark.parametrize("need_weights, average", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("batched", [True, False])
def test_mha_weights_options_and_unbatched(need_weights, average, batched):
    for cfg, kind in [(dict(), "self"), (dict(batch_first=True, kdim=5, vdim=3), "qkv"),
                      (dict(add_bias_kv=True), "kv")]:
        for mask_kind in ["none", "attn2_float+kpm_bool", "attn3_bool"]:
            run_mha(cfg, kind, mask_kind, need_weights, average, batched)


@pytest.mark.parametrize("mask_kind", ["none", "kpm_bool", "attn2_bool"])
def test_mha_eval_mode_matches_reference(mask_kind):
    # In eval mode without autograd, PyTorch takes its fused path for batch-first self-attention: same values.
    for cfg in [dict(batch_first=True), dict(), dict(dropout=0.3, batch_first=True)]:
        ember.manual_seed(0)
        em = enn.MultiheadAttention(E, H, **cfg).eval()
        tm = torch.nn.MultiheadAttention(E, H, **cfg).eval()
        copy_params(em, tm)
        xe, xt = pair((N, L, E) if cfg.get("batch_first") else (L, N, E), 3, np.float32, requires_grad=False)
        ea, ta, ek, tk = masks(mask_kind, N, L, np.float32)
        with torch.no_grad(), ember.no_grad():
            oe, we = em(xe, xe, xe, key_padding_mask=ek, attn_mask=ea)
            ot, wt = tm(xt, xt, xt, key_padding_mask=tk, attn_mask=ta)
        close(oe, ot, atol=1e-5)
        close(we, wt, atol=1e-6)


def test_mha_float_key_padding_mask_is_added():
    # A float key_padding_mask is added to the scores (PyTorch's documented rule), also on top of an attn_mask;
    # PyTorch 1.13 itself departs from its documentation there (Note [attention masks]), so the reference is
    # the float64 composite: the float masks summed.
    ember.manual_seed(0)
    em = enn.MultiheadAttention(E, H, dtype=ember.float64)
    (qe, ke, ve), _ = mha_inputs({}, "qkv", False)
    rng = np.random.default_rng(3)
    kpm = rng.standard_normal((N, S))
    am = rng.standard_normal((L, S))
    amb = rng.random((L, S)) < 0.3
    amb[:, 0] = False
    for attn_mask, add in [(am, am), (amb, np.where(amb, -np.inf, 0.0))]:
        out, w = em(qe, ke, ve, key_padding_mask=ember.tensor(kpm), attn_mask=ember.tensor(attn_mask),
                    average_attn_weights=False)
        ref_w, ref_out = mha_reference(em, qe, ke, ve, add[None, None] + kpm[:, None, None, :])
        close(w, ref_w, atol=1e-12)
        close(out, ref_out, atol=1e-12)


def mha_reference(em, q, k, v, additive):
    """float64 NumPy multi-head attention of module em (packed or separate weights), additive mask broadcast
    to (N, H, L, S)."""
    p = {n: t.detach().numpy() for n, t in em.named_parameters()}
    b = p.get("in_proj_bias", np.zeros(3 * E))
    if "in_proj_weight" in p:
        wq, wk, wv = np.split(p["in_proj_weight"], 3)
    else:
        wq, wk, wv = p["q_proj_weight"], p["k_proj_weight"], p["v_proj_weight"]
    bq, bk, bv = np.split(b, 3)
    q, k, v = (t.detach().numpy().transpose(1, 0, 2) for t in (q, k, v))  # (N, len, e)
    d = E // H
    heads = lambda x: x.reshape(x.shape[0], x.shape[1], H, d).transpose(0, 2, 1, 3)  # noqa: E731
    qh, kh, vh = heads(q @ wq.T + bq), heads(k @ wk.T + bk), heads(v @ wv.T + bv)
    s = qh @ kh.transpose(0, 1, 3, 2) / math.sqrt(d) + additive
    w = np.exp(s - s.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    o = (w @ vh).transpose(0, 2, 1, 3).reshape(q.shape[0], q.shape[1], E)
    o = o @ p["out_proj.weight"].T + p.get("out_proj.bias", 0)
    return w, o.transpose(1, 0, 2)


def test_mha_dropout_in_training_matches_reference_under_seed():
    # Dropout on the attention weights draws as PyTorch's (one Bernoulli per weight), so seeded runs agree.
    for cfg in [dict(dropout=0.4), dict(dropout=0.4, batch_first=True, add_zero_attn=True)]:
        em = enn.MultiheadAttention(E, H, dtype=ember.float64, **cfg)
        tm = torch.nn.MultiheadAttention(E, H, dtype=torch.float64, **cfg)
        copy_params(em, tm)
        (qe, ke, ve), (qt, kt, vt) = mha_inputs(cfg, "kv", cfg.get("batch_first", False))
        ember.manual_seed(5)
        torch.manual_seed(5)
        oe, we = em(qe, ke, ve, average_attn_weights=False)
        ot, wt = tm(qt, kt, vt, average_attn_weights=False)
        close(we, wt, atol=1e-12)
        close(oe, ot, atol=1e-12)
        assert (wt == 0).any()
        oe.sum().backward()
        ot.sum().backward()
        check_grads(em, tm, atol=1e-10)


def test_mha_functional_static_kv_and_separate_weights():
    rng = np.random.default_rng(11)
    d = E // H
    arr = lambda *s: rng.standard_normal(s)  # noqa: E731
    q = arr(L, N, E)
    w_in, b_in, w_out, b_out = arr(3 * E, E), arr(3 * E), arr(E, E), arr(E)
    sk, sv = arr(N * H, S, d), arr(N * H, S, d)
    args_np = [q, q, q, E, H, w_in, b_in, None, None, False, 0.0, w_out, b_out]
    conv_e = lambda a: ember.tensor(a, requires_grad=True) if isinstance(a, np.ndarray) else a  # noqa: E731
    conv_t = lambda a: torch.tensor(a, requires_grad=True) if isinstance(a, np.ndarray) else a  # noqa: E731
    ae, at = [conv_e(a) for a in args_np], [conv_t(a) for a in args_np]
    ae[1] = ae[2] = ae[0]
    at[1] = at[2] = at[0]
    oe, we = EF.multi_head_attention_forward(*ae, static_k=conv_e(sk), static_v=conv_e(sv))
    ot, wt = TF.multi_head_attention_forward(*at, static_k=conv_t(sk), static_v=conv_t(sv))
    close(oe, ot, atol=1e-12)
    close(we, wt, atol=1e-12)
    # separate projections with kdim/vdim and no packed weight
    k, v = arr(S, N, 5), arr(S, N, 3)
    wq, wk, wv = arr(E, E), arr(E, 5), arr(E, 3)
    kw = dict(use_separate_proj_weight=True, training=False, need_weights=True, average_attn_weights=False)
    oe, we = EF.multi_head_attention_forward(conv_e(q), conv_e(k), conv_e(v), E, H, None, conv_e(b_in), None,
                                             None, False, 0.0, conv_e(w_out), None, q_proj_weight=conv_e(wq),
                                             k_proj_weight=conv_e(wk), v_proj_weight=conv_e(wv), **kw)
    ot, wt = TF.multi_head_attention_forward(conv_t(q), conv_t(k), conv_t(v), E, H, None, conv_t(b_in), None,
                                             None, False, 0.0, conv_t(w_out), None, q_proj_weight=conv_t(wq),
                                             k_proj_weight=conv_t(wk), v_proj_weight=conv_t(wv), **kw)
    close(oe, ot, atol=1e-12)
    close(we, wt, atol=1e-12)


def test_mha_uint8_mask_warns():
    em = enn.MultiheadAttention(E, H)
    x = ember.randn(L, N, E)
    with pytest.warns(UserWarning, match="Byte tensor for attn_mask"):
        em(x, x, x, attn_mask=ember.zeros((L, L), dtype=ember.uint8))


def test_mha_parameters_init_and_repr():
    for cfg in [dict(), dict(kdim=5, vdim=3, add_bias_kv=True), dict(bias=False), dict(add_bias_kv=True)]:
        ember.manual_seed(3)
        torch.manual_seed(3)
        em = enn.MultiheadAttention(E, H, **cfg)
        tm = torch.nn.MultiheadAttention(E, H, **cfg)
        assert [n for n, _ in em.named_parameters()] == [n for n, _ in tm.named_parameters()]
        assert list(em.state_dict()) == list(tm.state_dict())
        for (n, pe), (_, pt) in zip(em.named_parameters(), tm.named_parameters()):
            same(pe, pt)
        assert repr(em) == repr(tm)
        assert em._qkv_same_embed_dim == tm._qkv_same_embed_dim and em.head_dim == tm.head_dim
        assert (em.in_proj_weight is None) == (tm.in_proj_weight is None)
        assert (em.bias_k is None) == (tm.bias_k is None)
    assert type(enn.MultiheadAttention(4, 2).out_proj).__name__ == "NonDynamicallyQuantizableLinear"
    from ember.nn.modules.linear import NonDynamicallyQuantizableLinear, Linear
    assert issubclass(NonDynamicallyQuantizableLinear, Linear)
    assert not hasattr(enn, "NonDynamicallyQuantizableLinear")


def test_mha_loads_pytorch_state_dict():
    torch.manual_seed(4)
    tm = torch.nn.MultiheadAttention(E, H, kdim=5, vdim=3, add_bias_kv=True, batch_first=True)
    em = enn.MultiheadAttention(E, H, kdim=5, vdim=3, add_bias_kv=True, batch_first=True)
    em.load_state_dict({k: to_ember(v) for k, v in tm.state_dict().items()})
    q, k, v = torch.randn(N, L, E), torch.randn(N, S, 5), torch.randn(N, S, 3)
    oe, we = em(to_ember(q), to_ember(k), to_ember(v))
    ot, wt = tm(q, k, v)
    close(oe, ot)
    close(we, wt)


MHA_ERRORS = [
    # (query shape, key shape, value shape, kwargs of forward, exception)
    ((L, N, E), (S, E), (S, E), {}, AssertionError),                        # batched query, unbatched key
    ((L, E), (S, N, E), (S, N, E), {}, AssertionError),                     # unbatched query, batched key
    ((N, L, N, E), (S, N, E), (S, N, E), {}, AssertionError),               # 4-D query
    ((L, N, E), (S, N, E), (S + 1, N, E), {}, AssertionError),              # key and value shapes differ
    ((L, N, E + 1), (S, N, E + 1), (S, N, E + 1), {}, AssertionError),      # embed_dim mismatch
    ((L, N, E), (S, N, E), (S, N, E), dict(attn_mask=(L, S + 1)), RuntimeError),
    ((L, N, E), (S, N, E), (S, N, E), dict(attn_mask=(N, L, S)), RuntimeError),  # 3-D must be N*H first
    ((L, N, E), (S, N, E), (S, N, E), dict(attn_mask=(1, 1, L, S)), AssertionError),
    ((L, N, E), (S, N, E), (S, N, E), dict(key_padding_mask=(N, S + 1)), AssertionError),
    ((L, N, E), (S, N, E), (S, N, E), dict(key_padding_mask=(S,)), AssertionError),
    ((L, E), (S, E), (S, E), dict(key_padding_mask=(N, S)), AssertionError),
    ((L, E), (S, E), (S, E), dict(attn_mask=(N * H, L, S)), AssertionError),
]


@pytest.mark.parametrize("qs, ks, vs, kwargs, exc", MHA_ERRORS)
def test_mha_errors_match_reference(qs, ks, vs, kwargs, exc):
    em = enn.MultiheadAttention(E, H)
    tm = torch.nn.MultiheadAttention(E, H)
    kw_e = {k: ember.zeros(v, dtype=ember.bool) for k, v in kwargs.items()}
    kw_t = {k: torch.zeros(v, dtype=torch.bool) for k, v in kwargs.items()}
    with pytest.raises(exc):
        tm(torch.randn(qs), torch.randn(ks), torch.randn(vs), **kw_t)
    with pytest.raises(exc):
        em(ember.randn(qs), ember.randn(ks), ember.randn(vs), **kw_e)


def test_mha_constructor_and_mask_dtype_errors():
    with pytest.raises(AssertionError):
        torch.nn.MultiheadAttention(6, 4)
    with pytest.raises(AssertionError):
        enn.MultiheadAttention(6, 4)
    em = enn.MultiheadAttention(E, H)
    x = ember.randn(L, N, E)
    with pytest.raises(AssertionError):
        em(x, x, x, key_padding_mask=ember.zeros((N, L), dtype=ember.int64))
    with pytest.raises(AssertionError):
        em(x, x, x, attn_mask=ember.zeros((L, L), dtype=ember.int32))


# ---------------------------------------------------------------------------------------------- transformers
D, NH, FF = 8, 2, 16


def build_pair(name, **kw):
    """An Ember and a PyTorch module of class name with equal weights (PyTorch's, loaded into Ember)."""
    torch.manual_seed(1)
    if name == "TransformerEncoder":
        layer_kw = kw.pop("layer")
        tl = torch.nn.TransformerEncoderLayer(D, NH, FF, **translate(layer_kw))
        tm = torch.nn.TransformerEncoder(tl, 2, norm=torch.nn.LayerNorm(D), **kw)
        el = enn.TransformerEncoderLayer(D, NH, FF, **layer_kw)
        em = enn.TransformerEncoder(el, 2, norm=enn.LayerNorm(D), **kw)
    elif name == "TransformerDecoder":
        layer_kw = kw.pop("layer")
        tl = torch.nn.TransformerDecoderLayer(D, NH, FF, **translate(layer_kw))
        tm = torch.nn.TransformerDecoder(tl, 2, norm=torch.nn.LayerNorm(D))
        em = enn.TransformerDecoder(enn.TransformerDecoderLayer(D, NH, FF, **layer_kw), 2, norm=enn.LayerNorm(D))
    elif name == "Transformer":
        tm = torch.nn.Transformer(D, NH, 2, 2, FF, **translate(kw))
        em = enn.Transformer(D, NH, 2, 2, FF, **kw)
    else:
        tm = getattr(torch.nn, name)(D, NH, FF, **translate(kw))
        em = getattr(enn, name)(D, NH, FF, **kw)
    em.load_state_dict({k: to_ember(v) for k, v in tm.state_dict().items()})
    return em, tm


def translate(kw):
    """Ember constructor kwargs -> PyTorch's (activation callables mapped by name)."""
    out = dict(kw)
    act = kw.get("activation")
    if act is EF.relu:
        out["activation"] = TF.relu
    elif act is EF.gelu:
        out["activation"] = TF.gelu
    elif isinstance(act, enn.Module):
        out["activation"] = getattr(torch.nn, type(act).__name__)()
    elif callable(act):
        out["activation"] = lambda x: x.tanh() * 2
    return out


LAYER_CFGS = [
    dict(dropout=0.0),
    dict(dropout=0.0, norm_first=True),
    dict(dropout=0.0, activation="gelu", batch_first=True),
    dict(dropout=0.0, activation=EF.gelu, layer_norm_eps=1e-3),
    dict(dropout=0.0, activation=lambda x: x.tanh() * 2, norm_first=True, batch_first=True),
    dict(dropout=0.0, activation=enn.GELU()),
]


def seq(length, batch_first, batched=True, seed=0, dtype=np.float32):
    shape = ((N, length, D) if batch_first else (length, N, D)) if batched else (length, D)
    return pair(shape, seed, dtype)


def causal(sz):
    return enn.Transformer.generate_square_subsequent_mask(sz), torch.nn.Transformer.generate_square_subsequent_mask(sz)


def kpm_pair(length, seed=5):
    m = np.random.default_rng(seed).random((N, length)) < 0.3
    m[:, 0] = False
    return ember.tensor(m), torch.tensor(m)


def compare_forward_backward(em, tm, inputs_e, inputs_t, kwargs_e, kwargs_t, atol=1e-5):
    oe = em(*inputs_e, **kwargs_e)
    ot = tm(*inputs_t, **kwargs_t)
    close(oe, ot, atol=atol)
    if ot.requires_grad:
        ge, gt = pair(tuple(ot.shape), 42, np.float32, requires_grad=False)
        (oe * ge).sum().backward()
        (ot * gt).sum().backward()
        for xe, xt in zip(inputs_e, inputs_t):
            close(xe.grad, xt.grad, atol=10 * atol)
        check_grads(em, tm, atol=20 * atol)


@pytest.mark.parametrize("cfg", LAYER_CFGS, ids=str)
@pytest.mark.parametrize("train", [True, False])
def test_encoder_layer_matches_reference(cfg, train):
    em, tm = build_pair("TransformerEncoderLayer", **cfg)
    em.train(train)
    tm.train(train)
    bf = cfg.get("batch_first", False)
    xe, xt = seq(L, bf)
    me, mt = causal(L)
    ke, kt = kpm_pair(L)
    compare_forward_backward(em, tm, (xe,), (xt,), {}, {})
    xe, xt = seq(L, bf, seed=1)
    compare_forward_backward(em, tm, (xe,), (xt,), dict(src_mask=me, src_key_padding_mask=ke),
                             dict(src_mask=mt, src_key_padding_mask=kt))
    xe, xt = seq(L, bf, batched=False, seed=2)
    compare_forward_backward(em, tm, (xe,), (xt,), dict(src_mask=me, src_key_padding_mask=ke[0]),
                             dict(src_mask=mt, src_key_padding_mask=kt[0]))


@pytest.mark.parametrize("cfg", LAYER_CFGS[:4], ids=str)
@pytest.mark.parametrize("train", [True, False])
def test_decoder_layer_matches_reference(cfg, train):
    em, tm = build_pair("TransformerDecoderLayer", **cfg)
    em.train(train)
    tm.train(train)
    bf = cfg.get("batch_first", False)
    te, tt = seq(L, bf)
    me_, mt_ = seq(S, bf, seed=3)
    cm_e, cm_t = causal(L)
    ke, kt = kpm_pair(L)
    se, st = kpm_pair(S, 6)
    mm = np.random.default_rng(2).random((L, S)) < 0.3
    mm[:, 0] = False
    compare_forward_backward(em, tm, (te, me_), (tt, mt_), {}, {})
    te, tt = seq(L, bf, seed=4)
    me_, mt_ = seq(S, bf, seed=5)
    compare_forward_backward(
        em, tm, (te, me_), (tt, mt_),
        dict(tgt_mask=cm_e, memory_mask=ember.tensor(mm), tgt_key_padding_mask=ke, memory_key_padding_mask=se),
        dict(tgt_mask=cm_t, memory_mask=torch.tensor(mm), tgt_key_padding_mask=kt, memory_key_padding_mask=st))


@pytest.mark.parametrize("cfg", [dict(dropout=0.0), dict(dropout=0.0, batch_first=True, norm_first=True),
                                 dict(dropout=0.0, activation="gelu", batch_first=True)], ids=str)
def test_transformer_matches_reference(cfg):
    em, tm = build_pair("Transformer", **cfg)
    bf = cfg.get("batch_first", False)
    assert list(em.state_dict()) == list(tm.state_dict())
    assert "encoder.layers.0.self_attn.in_proj_weight" in em.state_dict()
    for train in (True, False):
        em.train(train)
        tm.train(train)
        se, st = seq(S, bf, seed=train)
        te, tt = seq(L, bf, seed=2 + train)
        cm_e, cm_t = causal(L)
        ke, kt = kpm_pair(S)
        compare_forward_backward(em, tm, (se, te), (st, tt),
                                 dict(tgt_mask=cm_e, src_key_padding_mask=ke, memory_key_padding_mask=ke),
                                 dict(tgt_mask=cm_t, src_key_padding_mask=kt, memory_key_padding_mask=kt),
                                 atol=2e-5)


def test_transformer_unbatched_and_errors():
    em, tm = build_pair("Transformer", dropout=0.0)
    se, st = seq(S, False, batched=False)
    te, tt = seq(L, False, batched=False, seed=1)
    close(em(se, te), tm(st, tt))
    for s_shape, t_shape in [((S, N, D), (L, N + 1, D)), ((S, N, D + 1), (L, N, D + 1))]:
        with pytest.raises(RuntimeError):
            tm(torch.randn(s_shape), torch.randn(t_shape))
        with pytest.raises(RuntimeError):
            em(ember.randn(s_shape), ember.randn(t_shape))
    with pytest.raises(RuntimeError):
        torch.nn.TransformerEncoderLayer(D, NH, activation="tanh")
    with pytest.raises(RuntimeError):
        enn.TransformerEncoderLayer(D, NH, activation="tanh")


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")
@pytest.mark.filterwarnings("ignore:Converting mask without torch.bool dtype")
@pytest.mark.parametrize("enable_nested", [True, False])
@pytest.mark.parametrize("left_aligned", [True, False])
def test_encoder_stack_matches_reference_in_inference(enable_nested, left_aligned):
    # PyTorch's nested-tensor path (inference, batch first, even heads, a left-aligned padding mask) gives
    # zeros at the padding positions before the final norm (Note [nested-tensor encoder]).
    em, tm = build_pair("TransformerEncoder", layer=dict(dropout=0.1, batch_first=True),
                        enable_nested_tensor=enable_nested)
    em.eval()
    tm.eval()
    xe, xt = seq(L, True)
    pad = np.zeros((N, L), dtype=bool)
    pad[0, 2:] = True
    pad[1, 3:] = True
    if not left_aligned:
        pad[2, 1] = True
    masks_ = [pad, np.where(pad, -np.inf, 0.0)]
    if enable_nested and left_aligned:
        masks_.append(np.where(pad, -1.0, 0.0))  # the nested path drops the key of every nonzero entry
    with torch.no_grad(), ember.no_grad():
        for m in masks_:
            ke, kt = ember.tensor(m), torch.tensor(m)
            if m.dtype != bool:
                ke, kt = ke.float(), kt.float()
            close(em(xe, src_key_padding_mask=ke), tm(xt, src_key_padding_mask=kt))
        close(em(xe), tm(xt))
    ke, kt = ember.tensor(pad), torch.tensor(pad)
    # with autograd on (parameters require grad) PyTorch keeps the masked computation everywhere
    close(em(xe, src_key_padding_mask=ke), tm(xt, src_key_padding_mask=kt))


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")
@pytest.mark.filterwarnings("ignore:Converting mask without torch.bool dtype")
@pytest.mark.parametrize("activation", ["relu", "gelu"])
@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_layer_inference_matches_reference(activation, norm_first):
    # without autograd, in eval mode and batch first, PyTorch runs its fused encoder layer: the same values
    em, tm = build_pair("TransformerEncoderLayer", activation=activation, norm_first=norm_first, batch_first=True)
    em.eval()
    tm.eval()
    xe, xt = seq(L, True)
    pad = np.zeros((N, L), dtype=bool)
    pad[0, 2:] = True
    pad[2, 1] = True
    me, mt = causal(L)
    with torch.no_grad(), ember.no_grad():
        for m in [None, pad, np.where(pad, -np.inf, 0.0).astype(np.float32)]:
            ke, kt = (None, None) if m is None else (ember.tensor(m), torch.tensor(m))
            close(em(xe, src_key_padding_mask=ke), tm(xt, src_key_padding_mask=kt))
        close(em(xe, src_mask=me), tm(xt, src_mask=mt))


@pytest.mark.parametrize("train", [True, False])
def test_encoder_decoder_stacks_match_reference(train):
    for name, layer in [("TransformerEncoder", dict(dropout=0.0)),
                        ("TransformerEncoder", dict(dropout=0.0, norm_first=True, batch_first=True)),
                        ("TransformerDecoder", dict(dropout=0.0, batch_first=True))]:
        em, tm = build_pair(name, layer=layer)
        em.train(train)
        tm.train(train)
        bf = layer.get("batch_first", False)
        xe, xt = seq(L, bf)
        ke, kt = kpm_pair(L)
        if name == "TransformerEncoder":
            me, mt = causal(L)
            compare_forward_backward(em, tm, (xe,), (xt,), dict(mask=me, src_key_padding_mask=ke),
                                     dict(mask=mt, src_key_padding_mask=kt))
        else:
            mem_e, mem_t = seq(S, bf, seed=8)
            compare_forward_backward(em, tm, (xe, mem_e), (xt, mem_t), dict(tgt_key_padding_mask=ke),
                                     dict(tgt_key_padding_mask=kt))


def test_transformer_dropout_training_matches_reference_under_seed():
    # Every dropout (attention weights, the blocks, the feed-forward) draws as PyTorch's in the same order.
    em, tm = build_pair("TransformerEncoderLayer", dropout=0.3)
    xe, xt = seq(L, False)
    ember.manual_seed(8)
    torch.manual_seed(8)
    compare_forward_backward(em, tm, (xe,), (xt,), {}, {})


def test_transformer_seeded_init_matches_reference():
    for ctor in [lambda nn_: nn_.Transformer(D, NH, 2, 1, FF),
                 lambda nn_: nn_.TransformerEncoderLayer(D, NH, FF),
                 lambda nn_: nn_.TransformerDecoderLayer(D, NH, FF, norm_first=True),
                 lambda nn_: nn_.TransformerEncoder(nn_.TransformerEncoderLayer(D, NH, FF), 3)]:
        ember.manual_seed(12)
        torch.manual_seed(12)
        em, tm = ctor(enn), ctor(torch.nn)
        se, st = em.state_dict(), tm.state_dict()
        assert list(se) == list(st)
        for k in st:
            same(se[k], st[k])
        assert repr(em) == repr(tm)


def test_transformer_attributes_and_mask():
    me, mt = causal(5)
    same(me, mt)
    assert isinstance(enn.Transformer.__dict__["generate_square_subsequent_mask"], staticmethod)
    layer = enn.TransformerEncoderLayer(D, NH, activation="gelu")
    assert layer.activation is EF.gelu and layer.activation_relu_or_gelu == 2
    assert enn.TransformerEncoderLayer(D, NH).activation_relu_or_gelu == 1
    assert enn.TransformerEncoderLayer(D, NH, activation=lambda x: x).activation_relu_or_gelu == 0
    enc = enn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    assert enc.enable_nested_tensor is False and enc.num_layers == 2 and enc.mask_check is True
    assert enc.layers[0] is not enc.layers[1] and enc.layers[0].linear1.weight is not layer.linear1.weight
    t = enn.Transformer(D, NH, 1, 1, FF, batch_first=True)
    assert (t.d_model, t.nhead, t.batch_first) == (D, NH, True)


# ---------------------------------------------------------------------------------------------- SDPA
def sdpa_reference(q, k, v, mask=None, is_causal=False, scale=None):
    """float64 NumPy attention with PyTorch 2.x's mask rules."""
    q, k, v = (np.asarray(t, dtype=np.float64) for t in (q, k, v))
    L_, S_ = q.shape[-2], k.shape[-2]
    s = (q @ np.swapaxes(k, -1, -2)) * (1 / math.sqrt(q.shape[-1]) if scale is None else scale)
    if is_causal:
        s = s + np.where(np.tril(np.ones((L_, S_), dtype=bool)), 0.0, -np.inf)
    if mask is not None:
        s = s + (np.where(mask, 0.0, -np.inf) if mask.dtype == bool else mask)
    w = np.exp(s - s.max(-1, keepdims=True))
    return (w / w.sum(-1, keepdims=True)) @ v


SDPA_SHAPES = [((3, 4), (5, 4), (5, 6)), ((2, 3, 4), (2, 5, 4), (2, 5, 4)), ((2, 3, 3, 4), (2, 3, 5, 4), (2, 3, 5, 2)),
               ((2, 1, 3, 4), (1, 4, 5, 4), (1, 4, 5, 4)), ((1, 2, 2, 6, 8), (1, 2, 2, 6, 8), (1, 2, 2, 6, 8))]


@pytest.mark.parametrize("qs, ks, vs", SDPA_SHAPES)
@pytest.mark.parametrize("mask_kind", ["none", "bool", "float", "causal", "bool_batched"])
def test_sdpa_matches_composite(qs, ks, vs, mask_kind):
    rng = np.random.default_rng(0)
    q, k, v = rng.standard_normal(qs), rng.standard_normal(ks), rng.standard_normal(vs)
    Lq, Sk = qs[-2], ks[-2]
    mask = None
    if mask_kind == "bool":
        mask = rng.random((Lq, Sk)) < 0.6
        mask[:, 0] = True
    elif mask_kind == "bool_batched":
        mask = rng.random(qs[:-2] + (1, Sk)) < 0.6
        mask[..., 0] = True
    elif mask_kind == "float":
        mask = rng.standard_normal((Lq, Sk))
    is_causal = mask_kind == "causal"
    qe, ke, ve = (ember.tensor(a, requires_grad=True) for a in (q, k, v))
    me = None if mask is None else ember.tensor(mask)
    out = EF.scaled_dot_product_attention(qe, ke, ve, me, is_causal=is_causal)
    close(out, sdpa_reference(q, k, v, mask, is_causal), atol=1e-12, rtol=1e-10)
    # against PyTorch 1.13's private math kernel: values and gradients (float64)
    qt, kt, vt = (torch.tensor(a, requires_grad=True) for a in (q, k, v))
    mt = None if mask is None else torch.tensor(mask)
    ot, _ = torch._C._nn._scaled_dot_product_attention(qt, kt, vt, mt, 0.0, False, is_causal)
    close(out, ot, atol=1e-12, rtol=1e-10)
    g = rng.standard_normal(tuple(ot.shape))
    (out * ember.tensor(g)).sum().backward()
    (ot * torch.tensor(g)).sum().backward()
    for xe, xt in zip((qe, ke, ve), (qt, kt, vt)):
        close(xe.grad, xt.grad, atol=1e-11, rtol=1e-9)


def test_sdpa_float32_scale_and_dropout():
    rng = np.random.default_rng(1)
    q, k, v = (rng.standard_normal((2, 3, 4, 8)).astype(np.float32) for _ in range(3))
    qe, ke, ve = (ember.tensor(a) for a in (q, k, v))
    close(EF.scaled_dot_product_attention(qe, ke, ve, scale=0.3), sdpa_reference(q, k, v, scale=0.3), atol=1e-5)
    # causal with L != S: top-left aligned
    close(EF.scaled_dot_product_attention(qe, ke[..., :3, :], ve[..., :3, :], is_causal=True),
          sdpa_reference(q, k[..., :3, :], v[..., :3, :], is_causal=True), atol=1e-5)
    # dropout on the weights draws as torch.dropout does: the same result under the same seed
    qt, kt, vt = (torch.tensor(a) for a in (q, k, v))
    ember.manual_seed(3)
    torch.manual_seed(3)
    oe = EF.scaled_dot_product_attention(qe, ke, ve, dropout_p=0.5)
    wt = torch.dropout(((qt @ kt.transpose(-2, -1)) / math.sqrt(8)).softmax(-1), 0.5, True)
    close(oe, wt @ vt, atol=1e-5)
    # a fully masked row gives NaN (softmax over -inf only), as PyTorch 2.x's reference
    m = np.ones((4, 4), dtype=bool)
    m[1] = False
    out = EF.scaled_dot_product_attention(qe, ke, ve, ember.tensor(m)).numpy()
    assert np.isnan(out[:, :, 1]).all() and not np.isnan(out[:, :, 0]).any()
    assert "scaled_dot_product_attention" in EF.__all__ and not hasattr(ember, "scaled_dot_product_attention")


def test_sdpa_errors():
    q = ember.randn(2, 3, 4)
    with pytest.raises(RuntimeError):
        EF.scaled_dot_product_attention(q, q, q, ember.ones((3, 3), dtype=ember.bool), is_causal=True)
    with pytest.raises(RuntimeError):
        EF.scaled_dot_product_attention(q, q.double(), q)
    with pytest.raises(RuntimeError):
        EF.scaled_dot_product_attention(q, q, q[:, :2])
    with pytest.raises(RuntimeError):
        EF.scaled_dot_product_attention(ember.randn(4), q, q)
    with pytest.raises(RuntimeError):
        EF.scaled_dot_product_attention(q, ember.randn(2, 3, 5), ember.randn(2, 3, 5))
    with pytest.raises(RuntimeError):
        EF.scaled_dot_product_attention(q, q, q, ember.zeros((3, 3), dtype=ember.int64))


# ---------------------------------------------------------------------------------------------- activations
def test_prelu_matches_reference():
    for shape, n in [((2, 3, 4), 3), ((2, 3, 4), 1), ((4, 3), 3), ((5,), 1), ((), 1), ((2, 3, 2, 2), 3),
                     ((0, 3), 3)]:
        xe, xt = pair(shape, 1)
        ember.manual_seed(0)
        torch.manual_seed(0)
        em, tm = enn.PReLU(n, init=0.3, dtype=ember.float64), torch.nn.PReLU(n, init=0.3, dtype=torch.float64)
        with torch.no_grad():
            tm.weight.copy_(torch.linspace(-0.5, 0.5, n, dtype=torch.float64))
        em.load_state_dict({"weight": to_ember(tm.weight)})
        ye, yt = em(xe), tm(xt)
        close(ye, yt, atol=1e-12)
        ye.sum().backward()
        yt.sum().backward()
        close(xe.grad, xt.grad, atol=1e-12)
        close(em.weight.grad, tm.weight.grad, atol=1e-12)
        same(ember.prelu(xe.detach(), em.weight.detach()), torch.prelu(xt.detach(), tm.weight.detach()))
    x = ember.tensor([float("nan"), -float("inf"), float("inf"), -0.0, -2.0])
    same(EF.prelu(x, ember.tensor([0.25])), TF.prelu(to_torch(x), torch.tensor([0.25])))
    assert repr(enn.PReLU(3)) == repr(torch.nn.PReLU(3)) == "PReLU(num_parameters=3)"
    same(enn.PReLU(4, init=0.1).weight, torch.nn.PReLU(4, init=0.1).weight)


@pytest.mark.parametrize("x_shape, w", [((3,), [0.1, 0.2, 0.3]), ((), [0.1, 0.2]), ((2, 3), [0.1, 0.2]),
                                        ((2, 3), [[0.1], [0.2], [0.3]])])
def test_prelu_errors(x_shape, w):
    with pytest.raises(RuntimeError):
        torch.prelu(torch.ones(x_shape), torch.tensor(w))
    with pytest.raises(RuntimeError):
        ember.prelu(ember.ones(x_shape), ember.tensor(w))
    with pytest.raises(RuntimeError):
        EF.prelu(ember.ones(2, 3), ember.ones(3, dtype=ember.float64))


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_rrelu_training_draws_as_reference(dtype):
    x = np.random.default_rng(2).standard_normal((3, 7, 5)).astype(np.float32)
    x[0, 0, :3] = [0.0, -0.0, np.nan]
    for lower, upper in [(1 / 8, 1 / 3), (0.05, 0.9), (0.2, 0.2)]:
        xe = ember.tensor(x).to(getattr(ember, dtype)).requires_grad_()
        xt = torch.tensor(x).to(getattr(torch, dtype)).requires_grad_()
        ember.manual_seed(6)
        torch.manual_seed(6)
        ye = EF.rrelu(xe, lower, upper, training=True)
        yt = TF.rrelu(xt, lower, upper, training=True)
        same(ye, yt)
        # the generator is left in the same state: the next draws agree too
        same(ember.rand(4), torch.rand(4))
        ye.sum().backward()
        yt.sum().backward()
        close(xe.grad.float(), xt.grad.float(), atol=0, rtol=1e-2 if dtype == "bfloat16" else 1e-6)
    # the module, in place, and the torch-level functions
    ember.manual_seed(1)
    torch.manual_seed(1)
    xe, xt = ember.tensor(x).to(getattr(ember, dtype)), torch.tensor(x).to(getattr(torch, dtype))
    same(enn.RReLU(0.1, 0.3, inplace=True)(xe), torch.nn.RReLU(0.1, 0.3, inplace=True)(xt))
    same(xe, xt)
    same(ember.rrelu(xe, training=True), torch.rrelu(xt, training=True))
    same(ember.rrelu_(xe, 0.1, 0.4, True), torch.rrelu_(xt, 0.1, 0.4, True))
    g = ember.Generator().manual_seed(3)
    gt = torch.Generator().manual_seed(3)
    same(ember.rrelu(xe, 0.1, 0.4, True, g), torch.rrelu(xt, 0.1, 0.4, True, gt))


def test_rrelu_eval_and_errors():
    xe, xt = pair((4, 5), 3)
    same(EF.rrelu(xe), TF.rrelu(xt))
    same(enn.RReLU().eval()(xe), torch.nn.RReLU().eval()(xt))
    ye, yt = EF.rrelu(xe, 0.1, 0.5), TF.rrelu(xt, 0.1, 0.5)
    ye.sum().backward()
    yt.sum().backward()
    same(xe.grad, xt.grad)
    assert repr(enn.RReLU(0.1, 0.3, True)) == repr(torch.nn.RReLU(0.1, 0.3, True))
    assert repr(enn.RReLU()) == repr(torch.nn.RReLU())
    for training in (True, False):
        with pytest.raises(RuntimeError):
            torch.rrelu(torch.ones(3), 0.5, 0.1, training)
        with pytest.raises(RuntimeError):
            ember.rrelu(ember.ones(3), 0.5, 0.1, training)
    with pytest.raises(RuntimeError):
        torch.rrelu(torch.ones(3, dtype=torch.float16), training=True)
    with pytest.raises(RuntimeError):
        ember.rrelu(ember.ones(3, dtype=ember.float16), training=True)


def test_shrinks_and_softmax2d_match_reference():
    vals = [float("nan"), float("inf"), -float("inf"), 0.0, 0.5, -0.5, 0.7, -0.7, 2.0, -3.0, 0.2]
    for lambd in [0.5, 0.0, 1.5]:
        for dtype in ["float32", "float64"]:
            xe = ember.tensor(vals, dtype=getattr(ember, dtype), requires_grad=True)
            xt = torch.tensor(vals, dtype=getattr(torch, dtype), requires_grad=True)
            for me, mt in [(enn.Softshrink(lambd), torch.nn.Softshrink(lambd)),
                           (enn.Hardshrink(lambd), torch.nn.Hardshrink(lambd))]:
                ye, yt = me(xe), mt(xt)
                same(ye, yt)
                assert repr(me) == repr(mt)
                # (no NaN here: PyTorch's gradient at NaN differs between its scalar and vector loops)
                ge, = ember.autograd.grad(ye[1:].sum(), xe)
                gt, = torch.autograd.grad(yt[1:].sum(), xt)
                same(ge[1:], gt[1:])
    with pytest.raises(RuntimeError):
        TF.softshrink(torch.ones(2), -1.0)
    with pytest.raises(RuntimeError):
        EF.softshrink(ember.ones(2), -1.0)
    for shape in [(2, 3, 4, 5), (3, 4, 5)]:
        xe, xt = pair(shape, 4)
        ye, yt = enn.Softmax2d()(xe), torch.nn.Softmax2d()(xt)
        close(ye, yt, atol=1e-12)
        (ye * ye).sum().backward()
        (yt * yt).sum().backward()
        close(xe.grad, xt.grad, atol=1e-12)
    assert repr(enn.Softmax2d()) == repr(torch.nn.Softmax2d())
    for shape in [(2, 3), (1, 2, 3, 4, 5)]:
        with pytest.raises(AssertionError):
            torch.nn.Softmax2d()(torch.ones(shape))
        with pytest.raises(AssertionError):
            enn.Softmax2d()(ember.ones(shape))


@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("dim", [-1, 0])
def test_gumbel_softmax_draws_as_reference(hard, dim):
    le, lt = pair((4, 6), 5, np.float32)
    ember.manual_seed(9)
    torch.manual_seed(9)
    ye = EF.gumbel_softmax(le, tau=0.7, hard=hard, dim=dim)
    yt = TF.gumbel_softmax(lt, tau=0.7, hard=hard, dim=dim)
    close(ye, yt, atol=1e-6)
    if hard:
        assert set(np.unique(ye.detach().numpy())) <= {0.0, 1.0}
    w = np.random.default_rng(1).standard_normal((4, 6)).astype(np.float32)
    (ye * ember.tensor(w)).sum().backward()
    (yt * torch.tensor(w)).sum().backward()
    close(le.grad, lt.grad, atol=1e-5)
    with pytest.warns(UserWarning, match="eps"):
        EF.gumbel_softmax(le, eps=1e-5)


# ---------------------------------------------------------------------------------------------- dropout family
DROPOUT_MODULES = [
    ("Dropout1d", (3, 4, 5)), ("Dropout1d", (4, 5)), ("Dropout2d", (3, 4, 2, 5)), ("Dropout2d", (4, 2, 5)),
    ("Dropout3d", (2, 3, 2, 2, 3)), ("Dropout3d", (3, 2, 2, 3)), ("AlphaDropout", (4, 6)),
    ("AlphaDropout", (3, 4, 5)), ("FeatureAlphaDropout", (3, 4, 5)), ("FeatureAlphaDropout", (3, 4, 2, 2)),
    ("Dropout", (5, 7)),
]


@pytest.mark.parametrize("name, shape", DROPOUT_MODULES)
@pytest.mark.parametrize("p", [0.3, 0.0, 1.0])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dropout_modules_draw_as_reference(name, shape, p, dtype):
    x = np.random.default_rng(3).standard_normal(shape)
    x.reshape(-1)[:2] = [np.nan, np.inf]
    xe = ember.tensor(x).to(getattr(ember, dtype)).requires_grad_()
    xt = torch.tensor(x).to(getattr(torch, dtype)).requires_grad_()
    em, tm = getattr(enn, name)(p), getattr(torch.nn, name)(p)
    assert repr(em) == repr(tm)
    ember.manual_seed(21)
    torch.manual_seed(21)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ye, yt = em(xe), tm(xt)
    same(ye, yt)
    same(ember.rand(3), torch.rand(3))  # the same number of draws
    g = np.random.default_rng(4).standard_normal(shape)
    (ye * ember.tensor(g).to(ye.dtype)).sum().backward()
    (yt * torch.tensor(g).to(yt.dtype)).sum().backward()
    same(xe.grad, xt.grad)
    em.eval()
    tm.eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ye, yt = em(xe), tm(xt)
    same(ye, yt)
    assert (ye is xe) == (yt is xt)  # the input itself, unless an unbatched input was given a batch dim


@pytest.mark.parametrize("name", ["alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d", "dropout3d"])
def test_functional_dropouts_inplace_and_errors(name):
    shape = {"dropout1d": (3, 4, 6), "dropout3d": (2, 3, 2, 2, 2)}.get(name, (3, 4, 2, 3))
    x = np.random.default_rng(5).standard_normal(shape).astype(np.float32)
    xe, xt = ember.tensor(x), torch.tensor(x)
    ember.manual_seed(2)
    torch.manual_seed(2)
    re = getattr(EF, name)(xe, 0.4, training=True, inplace=True)
    rt = getattr(TF, name)(xt, 0.4, training=True, inplace=True)
    assert re is xe
    same(xe, xt)
    same(re, rt)
    # not training: the input itself
    assert getattr(EF, name)(xe, 0.4, training=False) is xe
    for p in (-0.1, 1.5):
        with pytest.raises(ValueError):
            getattr(TF, name)(xt, p)
        with pytest.raises(ValueError):
            getattr(EF, name)(xe, p)


def test_dropout_rank_rules():
    for bad in [(4,), (2, 3, 4, 5)]:
        with pytest.raises(RuntimeError):
            TF.dropout1d(torch.ones(bad))
        with pytest.raises(RuntimeError):
            EF.dropout1d(ember.ones(bad))
    # dropout2d/3d warn on other ranks, as PyTorch 1.13
    with pytest.warns(UserWarning, match="dropout2d: Received a 3D input"):
        EF.dropout2d(ember.ones(2, 3, 4))
    with pytest.warns(UserWarning, match="deprecated"):
        EF.dropout2d(ember.ones(2, 3, 4, 5, 6))
    with pytest.warns(UserWarning, match="deprecated"):
        EF.dropout3d(ember.ones(2, 3, 4))
    # feature dropout needs 2 dims once it draws
    for fn in ["feature_dropout", "feature_alpha_dropout"]:
        with pytest.raises(RuntimeError):
            getattr(torch, fn)(torch.ones(4), 0.5, True)
        with pytest.raises(RuntimeError):
            getattr(ember, fn)(ember.ones(4), 0.5, True)
        with pytest.raises(RuntimeError):
            getattr(ember, fn)(ember.ones(2, 4), 1.5, True)
    with pytest.raises(ValueError):
        enn.AlphaDropout(2.0)


@pytest.mark.parametrize("fn", ["alpha_dropout", "feature_dropout", "feature_alpha_dropout"])
def test_torch_level_dropouts_match_reference(fn):
    x = np.random.default_rng(6).standard_normal((4, 3, 5)).astype(np.float32)
    for p, train in [(0.2, True), (0.7, True), (0.5, False), (0.0, True), (1.0, True)]:
        xe, xt = ember.tensor(x), torch.tensor(x)
        ember.manual_seed(4)
        torch.manual_seed(4)
        same(getattr(ember, fn)(xe, p, train), getattr(torch, fn)(xt, p, train))
        same(getattr(ember, fn + "_")(xe, p, train), getattr(torch, fn + "_")(xt, p, train))
        same(xe, xt)
    # alpha dropout keeps a standard normal input standard (Klambauer et al.)
    ember.manual_seed(0)
    y = ember.alpha_dropout(ember.randn(200000), 0.3, True).numpy()
    assert abs(y.mean()) < 0.01 and abs(y.std() - 1) < 0.01
    # empty input: returned as is, no draws
    e = ember.ones(0, 3)
    assert ember.feature_alpha_dropout(e, 0.5, True) is e


def test_names_are_where_pytorch_has_them():
    for name in ["prelu", "rrelu", "rrelu_", "alpha_dropout", "alpha_dropout_", "feature_dropout",
                 "feature_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_"]:
        assert hasattr(torch, name) and hasattr(ember, name) and name in ember.__all__, name
    for name in ["multi_head_attention_forward", "prelu", "rrelu", "rrelu_", "softshrink", "gumbel_softmax",
                 "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout", "hardshrink",
                 "threshold_"]:
        assert hasattr(TF, name) and hasattr(EF, name), name
    for name in ["softshrink", "gumbel_softmax", "multi_head_attention_forward", "dropout1d"]:
        assert not hasattr(torch, name) and not hasattr(ember, name), name
    for name in ["PReLU", "RReLU", "Softshrink", "Hardshrink", "Softmax2d", "MultiheadAttention", "Dropout1d",
                 "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout", "Transformer",
                 "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer", "TransformerDecoderLayer"]:
        assert getattr(enn, name).__module__.replace("ember", "torch") == getattr(torch.nn, name).__module__, name


def test_modules_deepcopy_and_state_dict_roundtrip():
    em = enn.Transformer(D, NH, 1, 1, FF, dropout=0.0)
    c = copy.deepcopy(em)
    for (n, a), (_, b) in zip(em.state_dict().items(), c.state_dict().items()):
        same(a, b)
    tm = torch.nn.Transformer(D, NH, 1, 1, FF, dropout=0.0)
    tm.load_state_dict({k: to_torch(v) for k, v in em.state_dict().items()})
    se, st = seq(S, False)
    te, tt = seq(L, False, seed=1)
    close(em(se, te), tm(st, tt))


@pytest.mark.parametrize("qs, ks", [((0, 2, E), (3, 2, E)), ((4, 0, E), (3, 0, E)), ((4, 2, E), (0, 2, E)),
                                    ((0, E), (0, E))])
def test_mha_zero_size_inputs_match_reference(qs, ks):
    em, tm = enn.MultiheadAttention(E, H), torch.nn.MultiheadAttention(E, H)
    copy_params(em, tm)
    (qe, qt), (ke, kt) = pair(qs, 1, np.float32), pair(ks, 2, np.float32)
    oe, we = em(qe, ke, ke)
    ot, wt = tm(qt, kt, kt)
    close(oe, ot)
    close(we, wt)


def test_mha_non_contiguous_inputs_and_gradcheck():
    em = enn.MultiheadAttention(E, H, dtype=ember.float64, add_bias_kv=True)
    tm = torch.nn.MultiheadAttention(E, H, dtype=torch.float64, add_bias_kv=True)
    copy_params(em, tm)
    (qe, qt), (ke, kt) = pair((N, L, E), 1), pair((E, S, N), 2)
    args_e = (qe.transpose(0, 1), ke.permute(1, 2, 0), ke.permute(1, 2, 0)[:, :, ::1])
    args_t = (qt.transpose(0, 1), kt.permute(1, 2, 0), kt.permute(1, 2, 0)[:, :, ::1])
    close(em(*args_e)[0], tm(*args_t)[0], atol=1e-12)
    # gradcheck of the function in float64 (the attention weights and the output)
    q = ember.tensor(np.random.default_rng(0).standard_normal((3, 2, 4)), requires_grad=True)
    w_in = ember.tensor(np.random.default_rng(1).standard_normal((12, 4)), requires_grad=True)
    w_out = ember.tensor(np.random.default_rng(2).standard_normal((4, 4)), requires_grad=True)
    mask = ember.tensor(np.random.default_rng(3).standard_normal((3, 3)))

    def f(q, w_in, w_out):
        return EF.multi_head_attention_forward(q, q, q, 4, 2, w_in, None, None, None, True, 0.0, w_out, None,
                                               attn_mask=mask)
    assert ember.autograd.gradcheck(f, (q, w_in, w_out))
    k = ember.tensor(np.random.default_rng(4).standard_normal((3, 5, 4)), requires_grad=True)
    assert ember.autograd.gradcheck(
        lambda q, k: EF.scaled_dot_product_attention(q, k, k, is_causal=True), (q.detach().requires_grad_(), k))


def test_tensor_prelu_method():
    xe, xt = pair((2, 3, 4), 0)
    we, wt = ember.tensor([0.1, -0.2, 0.3], dtype=ember.float64), torch.tensor([0.1, -0.2, 0.3], dtype=torch.float64)
    same(xe.prelu(we), xt.prelu(wt))
