"""ember.optim against PyTorch 1.13: optimizer step sequences (every option that changes the update), state and
state dicts, zero_grad, argument errors.

Both frameworks start from the same parameters and get the same gradients (seeded NumPy) at every step; the
parameters and every state entry are compared after each step, bit for bit: Ember's updates follow PyTorch's
single-tensor formulas operation by operation (Note [Adam's order of operations]).
"""
import copy
import itertools
import pickle
import warnings
import zlib

import numpy as np
import pytest

import ember
import torch

from conftest import dtype_name


# ---------------------------------------------------------------------------------------------------- helpers
# Shapes of the parameters of one test model: a matrix, a vector, a 0-dim tensor, an empty tensor.
SHAPES = [(3, 4), (5,), (), (0, 2)]


def _rng(*key):
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def make_arrays(shapes, dtype, seed, scale=1.0):
    """One deterministic array per shape (normal values times scale), of dtype name dtype."""
    rng = _rng(tuple(shapes), dtype, seed)
    return [np.asarray(rng.standard_normal(size=s) * scale, dtype=dtype) for s in shapes]


class Pair:
    """The same parameters in Ember and in PyTorch (leaf tensors requiring grad); layout "transposed" makes
    the 2-D ones non-contiguous (a transposed view detached into a leaf)."""

    def __init__(self, shapes, dtype, seed=0, layout="contiguous"):
        arrays = make_arrays(shapes, dtype, seed)
        self.e = [self._leaf(ember.from_numpy(a.copy()), layout) for a in arrays]
        self.t = [self._leaf(torch.from_numpy(a.copy()), layout) for a in arrays]

    @staticmethod
    def _leaf(x, layout):
        if layout == "transposed" and x.dim() == 2:
            x = x.t().contiguous().t()  # the same values, column-major
        return x.detach().requires_grad_(True)

    def set_grads(self, step, dtype, which=None, special=None):
        """Gradients of step (seeded) on the parameters selected by which (indices; default all); the others
        get grad None. special: values assigned to the first elements of the first gradient (NaN, inf)."""
        grads = make_arrays([tuple(p.shape) for p in self.e], dtype, ("grad", step))
        if special is not None and grads[0].size:
            flat = grads[0].reshape(-1)
            flat[:len(special)] = special
        for i, (pe, pt, g) in enumerate(zip(self.e, self.t, grads)):
            if which is not None and i not in which:
                pe.grad = None
                pt.grad = None
            else:
                pe.grad = ember.from_numpy(g.copy())
                pt.grad = torch.from_numpy(g.copy())


def groups_of(params, groups):
    """params arranged as groups: None gives the plain list; else a list of (indices, options) pairs."""
    if groups is None:
        return list(params)
    return [dict(params=[params[i] for i in idx], **opts) for idx, opts in groups]


# Note [addcmul and FMA]
# PyTorch 1.13 (Debian's build, AVX2) computes addcmul as fma(value * t1, t2, self): the compiler contracts its
# multiply-add into one rounding. Ember's addcmul rounds the product first, so the two differ by one ulp in a
# few elements per thousand. SGD has no addcmul and is compared bit for bit; the optimizers whose update goes
# through addcmul (Adam, AdamW, RMSprop) are compared to within a few ulps of the tensor's largest magnitude
# (every other operation of their updates rounds as PyTorch's; the bit-level tests of those ops are in
# test_binary.py and friends).
ULPS = 32  # centered RMSprop: sqrt(v - a * a) cancels, which amplifies the one-ulp differences


def assert_matches(e, t, what="", exact=True):
    """The ember tensor e has t's dtype, shape and values: bit for bit when exact (NaNs where t has them),
    else to within ULPS ulps of the largest magnitude in t (NaN and inf positions equal)."""
    assert dtype_name(e.dtype) == dtype_name(t.dtype), what
    assert tuple(e.shape) == tuple(t.shape), what
    a = np.array(e.detach().numpy(), copy=True)
    b = np.array(t.detach().numpy(), copy=True)
    if exact:
        assert a.tobytes() == b.tobytes() or np.array_equal(a, b, equal_nan=True), (
            what, a, b, np.max(np.abs(a - b)))
        return
    assert np.array_equal(np.isfinite(a), np.isfinite(b)), what
    finite = np.isfinite(b)
    np.testing.assert_array_equal(a[~finite], b[~finite], err_msg=what)
    if finite.any():
        scale = np.max(np.abs(b[finite]))
        np.testing.assert_allclose(a[finite], b[finite], rtol=0, atol=ULPS * np.finfo(b.dtype).eps * scale,
                                   err_msg=what)


def assert_bitwise(e, t, what=""):
    """The ember tensor e equals t bit for bit (dtype, shape, values, NaNs)."""
    assert_matches(e, t, what, exact=True)


def assert_same_state(value_e, value_t, what="", exact=True):
    """State entries (tensors, numbers, None, containers of them) equal; tensors as assert_matches."""
    if isinstance(value_t, torch.Tensor):
        assert isinstance(value_e, ember.Tensor), what
        assert_matches(value_e, value_t, what, exact)
    elif isinstance(value_t, dict):
        assert sorted(map(str, value_e)) == sorted(map(str, value_t)), (what, list(value_e), list(value_t))
        for k in value_t:
            assert_same_state(value_e[k], value_t[k], "{}[{!r}]".format(what, k), exact)
    elif isinstance(value_t, (list, tuple)):
        assert type(value_e) is type(value_t) and len(value_e) == len(value_t), what
        for i, (a, b) in enumerate(zip(value_e, value_t)):
            assert_same_state(a, b, "{}[{}]".format(what, i), exact)
    else:
        assert value_e == value_t and type(value_e) is type(value_t), (what, value_e, value_t)


# The optimizers whose updates have no addcmul of two non-trivial factors (Rprop's multiplies by a sign).
EXACT_OPTIMIZERS = {"SGD", "ASGD", "Rprop", "Adamax"}


def is_exact(opt):
    """Whether opt's update should agree bit for bit with PyTorch's (Note [addcmul and FMA])."""
    return type(opt).__name__ in EXACT_OPTIMIZERS


def assert_same_optimizer(oe, ot, pair):
    """Parameters, per-parameter state and groups' options of the two optimizers equal."""
    exact = is_exact(oe)
    for i, (pe, pt) in enumerate(zip(pair.e, pair.t)):
        assert_matches(pe, pt, "param {}".format(i), exact)
        assert (pe in oe.state) == (pt in ot.state), "state of param {}".format(i)
        if pt in ot.state:
            assert_same_state(oe.state[pe], ot.state[pt], "state of param {}".format(i), exact)
    assert len(oe.param_groups) == len(ot.param_groups)
    for ge, gt in zip(oe.param_groups, ot.param_groups):
        assert_same_state({k: v for k, v in ge.items() if k != "params"},
                          {k: v for k, v in gt.items() if k != "params"}, "param group")


def run_both(name, kwargs, dtype="float32", steps=6, groups=None, layout="contiguous", which=None,
             special=None):
    """Runs steps of optimizer name (with kwargs, over groups) in both frameworks on the same gradients,
    comparing after each step; returns (ember optimizer, torch optimizer, pair)."""
    pair = Pair(SHAPES, dtype, layout=layout)
    oe = getattr(ember.optim, name)(groups_of(pair.e, groups), **kwargs)
    ot = getattr(torch.optim, name)(groups_of(pair.t, groups), **kwargs)
    for step in range(steps):
        pair.set_grads(step, dtype, which=which(step) if which else None, special=special)
        assert oe.step() is None and ot.step() is None
        assert_same_optimizer(oe, ot, pair)
    return oe, ot, pair


def option_grid(**choices):
    """Every combination of the options' values, as kwargs dicts."""
    names = list(choices)
    return [dict(zip(names, values)) for values in itertools.product(*(choices[n] for n in names))]


def _id(kwargs):
    return ",".join("{}={}".format(k, v) for k, v in kwargs.items())


SGD_OPTIONS = [kw for kw in option_grid(lr=[0.1], momentum=[0.0, 0.9], dampening=[0.0, 0.25],
                                        weight_decay=[0.0, 0.05], nesterov=[False, True], maximize=[False, True])
               if not (kw["nesterov"] and (kw["momentum"] == 0 or kw["dampening"] != 0))]
ADAM_OPTIONS = option_grid(lr=[0.01], betas=[(0.9, 0.999), (0.5, 0.9)], weight_decay=[0.0, 0.1],
                           amsgrad=[False, True], maximize=[False, True]) + [dict(lr=0.2, eps=1e-3)]
ADAMW_OPTIONS = option_grid(lr=[0.01], betas=[(0.9, 0.999), (0.5, 0.9)], weight_decay=[0.0, 0.01, 0.5],
                            amsgrad=[False, True], maximize=[False, True]) + [dict()]
RMSPROP_OPTIONS = option_grid(lr=[0.01], alpha=[0.99, 0.5], weight_decay=[0.0, 0.1], momentum=[0.0, 0.9],
                              centered=[False, True], maximize=[False, True]) + [dict(eps=1e-2), dict()]

ADAGRAD_OPTIONS = option_grid(lr=[0.1], lr_decay=[0, 0.05], weight_decay=[0, 0.1],
                              initial_accumulator_value=[0, 0.5], maximize=[False, True]) + [dict(eps=1e-3), dict()]
ADADELTA_OPTIONS = option_grid(lr=[1.0, 0.5], rho=[0.9, 0.5], weight_decay=[0, 0.1], maximize=[False, True]) + [
    dict(eps=1e-3), dict(rho=1.0), dict(rho=0.0)]
ADAMAX_OPTIONS = option_grid(lr=[0.01], betas=[(0.9, 0.999), (0.5, 0.9)], weight_decay=[0, 0.1],
                             maximize=[False, True]) + [dict(eps=1e-3), dict()]
NADAM_OPTIONS = option_grid(lr=[0.01], betas=[(0.9, 0.999), (0.5, 0.9)], weight_decay=[0, 0.1],
                            momentum_decay=[4e-3, 0.1]) + [dict(), dict(eps=1e-3)]
# rho_t exceeds 5 (the rectified update) from step 6 with beta2 0.999 or 0.9; with beta2 0.5 never.
RADAM_OPTIONS = option_grid(lr=[0.01], betas=[(0.9, 0.999), (0.5, 0.9), (0.9, 0.5)], weight_decay=[0, 0.1]) + [
    dict(eps=1e-3), dict()]
# t0=2: the average starts at the third step (mu < 1 from then on).
ASGD_OPTIONS = option_grid(lr=[0.01, 0.1], lambd=[1e-4, 0.1], t0=[1e6, 2.0], weight_decay=[0, 0.1],
                           maximize=[False, True]) + [dict(alpha=0.5, t0=1.0), dict()]
RPROP_OPTIONS = option_grid(lr=[0.01, 0.1], etas=[(0.5, 1.2), (0.3, 1.5)], step_sizes=[(1e-6, 50), (1e-3, 0.05)],
                            maximize=[False, True]) + [dict()]

ALL_OPTIONS = ([("SGD", kw) for kw in SGD_OPTIONS] + [("Adam", kw) for kw in ADAM_OPTIONS]
               + [("AdamW", kw) for kw in ADAMW_OPTIONS] + [("RMSprop", kw) for kw in RMSPROP_OPTIONS]
               + [("Adagrad", kw) for kw in ADAGRAD_OPTIONS] + [("Adadelta", kw) for kw in ADADELTA_OPTIONS]
               + [("Adamax", kw) for kw in ADAMAX_OPTIONS] + [("NAdam", kw) for kw in NADAM_OPTIONS]
               + [("RAdam", kw) for kw in RADAM_OPTIONS] + [("ASGD", kw) for kw in ASGD_OPTIONS]
               + [("Rprop", kw) for kw in RPROP_OPTIONS])


# ---------------------------------------------------------------------------------------------- step sequences
@pytest.mark.parametrize("name, kwargs", ALL_OPTIONS, ids=["{}-{}".format(n, _id(k)) for n, k in ALL_OPTIONS])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_step_sequence_matches_torch(name, kwargs, dtype):
    run_both(name, kwargs, dtype=dtype, steps=8)


# One option set per optimizer that exercises most of its update, for the tests of other aspects.
RICH = {"SGD": dict(lr=0.1, momentum=0.9, weight_decay=0.05, nesterov=True),
        "Adam": dict(lr=0.01, weight_decay=0.1, amsgrad=True),
        "AdamW": dict(lr=0.01, weight_decay=0.1, amsgrad=True),
        "RMSprop": dict(lr=0.01, momentum=0.9, centered=True, weight_decay=0.1),
        "Adagrad": dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.1),
        "Adadelta": dict(lr=0.5, rho=0.8, weight_decay=0.1),
        "Adamax": dict(lr=0.01, betas=(0.8, 0.9), weight_decay=0.1),
        "NAdam": dict(lr=0.01, weight_decay=0.1, momentum_decay=0.01),
        "RAdam": dict(lr=0.01, betas=(0.5, 0.9), weight_decay=0.1),
        "ASGD": dict(lr=0.05, lambd=0.01, t0=2.0, weight_decay=0.1),
        "Rprop": dict(lr=0.05, etas=(0.4, 1.3), step_sizes=(1e-4, 1.0))}


@pytest.mark.parametrize("name", sorted(RICH))
def test_param_groups_with_their_own_options(name):
    # Group 0 takes the defaults, group 1 overrides lr and another option.
    extra = {"SGD": dict(momentum=0.5, dampening=0.1, nesterov=False), "Adam": dict(betas=(0.8, 0.99)),
             "AdamW": dict(weight_decay=0.0), "RMSprop": dict(alpha=0.9, centered=False),
             "Adagrad": dict(lr_decay=0.0, initial_accumulator_value=0.0), "Adadelta": dict(rho=0.5),
             "Adamax": dict(betas=(0.9, 0.999)), "NAdam": dict(momentum_decay=0.1), "RAdam": dict(weight_decay=0),
             "ASGD": dict(t0=1e6, lambd=1e-4), "Rprop": dict(etas=(0.5, 1.2))}[name]
    groups = [([0, 2], {}), ([1, 3], dict(lr=0.003, **extra))]
    oe, ot, _ = run_both(name, RICH[name], groups=groups)
    assert [len(g["params"]) for g in oe.param_groups] == [2, 2]


@pytest.mark.parametrize("name", sorted(RICH))
def test_params_without_grad_are_skipped(name):
    # Parameter 1 gets a gradient only from step 2 on (its state starts then), parameter 0 misses step 3.
    def which(step):
        return [i for i in range(len(SHAPES)) if not (i == 1 and step < 2) and not (i == 0 and step == 3)]
    run_both(name, RICH[name], which=which, steps=6)


@pytest.mark.parametrize("name", sorted(RICH))
def test_non_contiguous_params(name):
    oe, _, pair = run_both(name, RICH[name], layout="transposed", steps=4)
    assert not pair.e[0].is_contiguous()


@pytest.mark.parametrize("name, kwargs", [("Adam", dict(amsgrad=True)), ("Adam", {}), ("SGD", dict(lr=0.1,
                                          momentum=0.9)), ("RMSprop", dict(centered=True)), ("AdamW", {}),
                                          ("Adagrad", {}), ("Adadelta", {}), ("Adamax", {}), ("NAdam", {}),
                                          ("RAdam", {}), ("ASGD", dict(t0=1.0)), ("Rprop", {})])
def test_nan_and_inf_gradients_propagate_as_torch(name, kwargs):
    run_both(name, kwargs, special=[float("nan"), float("inf"), -float("inf")], steps=3)


@pytest.mark.parametrize("name", sorted(RICH))
def test_closure_is_evaluated_with_grad_and_its_loss_returned(name):
    pair = Pair([(4,), (2, 3)], "float64")
    oe = getattr(ember.optim, name)(pair.e, **RICH[name])
    ot = getattr(torch.optim, name)(pair.t, **RICH[name])

    def closure_of(lib, params, opt):
        def closure():
            opt.zero_grad()
            loss = (params[0] * params[0]).sum() + (params[1] * 3.0).sum()
            assert lib.is_grad_enabled()
            loss.backward()
            return loss
        return closure

    for _ in range(3):
        with ember.no_grad(), torch.no_grad():
            le = oe.step(closure_of(ember, pair.e, oe))
            lt = ot.step(closure_of(torch, pair.t, ot))
        assert le.item() == pytest.approx(lt.item(), rel=1e-14)  # sums may add in another order
        for pe, pt in zip(pair.e, pair.t):
            assert_matches(pe, pt, exact=is_exact(oe))
            assert pe.grad_fn is None and pe.is_leaf


def test_step_does_not_record_a_graph():
    p = ember.ones(3).requires_grad_()
    p.grad = ember.ones(3)
    opt = ember.optim.Adam([p])
    opt.step()
    assert p.is_leaf and p.grad_fn is None and p.requires_grad
    assert not opt.state[p]["exp_avg"].requires_grad
    assert ember.is_grad_enabled()


# -------------------------------------------------------------------------------------------------- state dicts
def _state_dict_equal(sde, sdt, exact):
    assert sorted(sde) == ["param_groups", "state"]
    assert sorted(sde["state"]) == sorted(sdt["state"])
    for k in sdt["state"]:
        assert_same_state(sde["state"][k], sdt["state"][k], "state[{}]".format(k), exact)
    assert_same_state(sde["param_groups"], sdt["param_groups"], "param_groups")


@pytest.mark.parametrize("name", sorted(RICH))
def test_state_dict_has_torch_layout_and_round_trips(name):
    groups = [([0, 2], {}), ([3, 1], dict(lr=0.02))]
    oe, ot, pair = run_both(name, RICH[name], groups=groups, steps=3)
    sde, sdt = oe.state_dict(), ot.state_dict()
    _state_dict_equal(sde, sdt, is_exact(oe))
    assert [g["params"] for g in sde["param_groups"]] == [[0, 1], [2, 3]]
    # A fresh optimizer over copies of the parameters continues exactly where the first one was.
    fresh = [p.detach().clone().requires_grad_(True) for p in pair.e]
    oe2 = getattr(ember.optim, name)(groups_of(fresh, groups), **RICH[name])
    oe2.load_state_dict(sde)
    pair.e = fresh
    for step in range(3, 6):
        pair.set_grads(step, "float32")
        oe2.step()
        ot.step()
        assert_same_optimizer(oe2, ot, pair)
    # The loaded state is a copy of the saved one, not the same tensors.
    assert all(t is not oe2.state[fresh[0]].get(k) for k, t in sde["state"][0].items()
               if isinstance(t, ember.Tensor))


def test_state_dict_loads_torch_saved_state_structure():
    # The state dict of PyTorch's optimizer, converted tensor by tensor, loads into Ember's and gives the
    # same continuation (the formats agree).
    oe, ot, pair = run_both("Adam", dict(lr=0.01, amsgrad=True), steps=2)
    sdt = ot.state_dict()
    converted = {"param_groups": copy.deepcopy(sdt["param_groups"]),
                 "state": {k: {n: ember.from_numpy(v.numpy().copy()) if isinstance(v, torch.Tensor) else v
                               for n, v in s.items()} for k, s in sdt["state"].items()}}
    fresh = [p.detach().clone().requires_grad_(True) for p in pair.e]
    oe2 = ember.optim.Adam(fresh, lr=0.5)
    oe2.load_state_dict(converted)
    pair.e = fresh
    for step in range(2, 4):
        pair.set_grads(step, "float32")
        oe2.step()
        ot.step()
        assert_same_optimizer(oe2, ot, pair)


def test_load_state_dict_casts_state_to_the_param_dtype_except_step():
    results = {}
    for lib in (ember, torch):
        p64 = lib.ones(3, dtype=lib.float64).requires_grad_()
        p64.grad = lib.full((3,), 0.5, dtype=lib.float64)
        o64 = lib.optim.Adam([p64])
        o64.step()
        p32 = lib.ones(3).requires_grad_()
        o32 = lib.optim.Adam([p32])
        o32.load_state_dict(o64.state_dict())
        results[lib] = o32.state[p32]
    for key in ("step", "exp_avg", "exp_avg_sq"):
        assert_bitwise(results[ember][key], results[torch][key], key)
    assert results[ember]["exp_avg"].dtype == ember.float32 and results[ember]["step"].dtype == ember.float32


@pytest.mark.parametrize("sizes, loaded", [([2, 2], [4]), ([2, 2], [2, 1, 1]), ([3, 1], [2, 2])])
def test_load_state_dict_rejects_other_group_sizes(sizes, loaded):
    def make(lib, counts):
        params = [lib.zeros(2).requires_grad_() for _ in range(sum(counts))]
        it = iter(params)
        return lib.optim.SGD([{"params": [next(it) for _ in range(c)]} for c in counts], lr=0.1)
    errors = []
    for lib in (torch, ember):
        with pytest.raises(ValueError) as info:
            make(lib, sizes).load_state_dict(make(lib, loaded).state_dict())
        errors.append(str(info.value))
    assert errors[0] == errors[1]


def test_state_dict_numbers_duplicated_params_as_torch():
    results = []
    for lib in (torch, ember):
        a, b = lib.zeros(2).requires_grad_(), lib.zeros(2).requires_grad_()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            opt = lib.optim.SGD([a, b, a], lr=0.1)
        assert any("duplicate parameters" in str(x.message) for x in w)
        results.append([g["params"] for g in opt.state_dict()["param_groups"]])
    assert results[0] == results[1] == [[2, 1, 2]]


def test_optimizer_pickles_and_deepcopies():
    oe, ot, pair = run_both("SGD", RICH["SGD"], steps=2)
    for clone in (pickle.loads(pickle.dumps(oe)), copy.deepcopy(oe)):
        assert type(clone) is ember.optim.SGD
        assert clone.param_groups[0]["lr"] == 0.1 and len(clone.state) == len(oe.state)


def test_repr_matches_torch():
    for name in sorted(RICH):
        pe, pt = ember.zeros(2).requires_grad_(), torch.zeros(2).requires_grad_()
        re = repr(getattr(ember.optim, name)([pe], **RICH[name]))
        rt = repr(getattr(torch.optim, name)([pt], **RICH[name]))
        assert re == rt


# ---------------------------------------------------------------------------------------------------- zero_grad
@pytest.mark.parametrize("set_to_none", [None, False, True])
def test_zero_grad(set_to_none):
    out = []
    for lib in (ember, torch):
        a, b = lib.ones(3).requires_grad_(), lib.ones(2).requires_grad_()
        a.grad = lib.full((3,), 2.0)
        opt = lib.optim.SGD([a, b], lr=0.1)
        opt.zero_grad() if set_to_none is None else opt.zero_grad(set_to_none=set_to_none)
        out.append((None if a.grad is None else a.grad.tolist(), b.grad))
    assert out[0] == out[1]
    assert out[0][0] == (None if set_to_none else [0.0, 0.0, 0.0])  # 1.13's default: zeros


def test_zero_grad_keeps_the_grad_tensor_and_detaches_it():
    p = ember.ones(3).requires_grad_()
    x = ember.ones(3).requires_grad_()
    (p * p * x).sum().backward(create_graph=True)  # p.grad has a graph (depends on x)
    g = p.grad
    assert g.grad_fn is not None
    ember.optim.SGD([p], lr=0.1).zero_grad()
    assert p.grad is g and g.grad_fn is None and not g.requires_grad and g.tolist() == [0.0, 0.0, 0.0]


def test_zero_grad_versus_none_in_a_step():
    # A zero grad still takes part in the update (weight decay moves the parameter); a None grad skips it.
    for set_to_none, moved in ((False, True), (True, False)):
        p = ember.ones(2).requires_grad_()
        p.grad = ember.ones(2)
        opt = ember.optim.SGD([p], lr=0.1, weight_decay=0.5)
        opt.zero_grad(set_to_none=set_to_none)
        opt.step()
        assert (p.tolist() != [1.0, 1.0]) == moved


# ------------------------------------------------------------------------------------------------------- errors
INVALID = [
    ("SGD", dict(lr=-0.1)), ("SGD", dict(lr=0.1, momentum=-0.5)), ("SGD", dict(lr=0.1, weight_decay=-1e-3)),
    ("SGD", dict(lr=0.1, nesterov=True)), ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, nesterov=True)),
    ("SGD", dict()),
    ("Adam", dict(lr=-1.0)), ("Adam", dict(eps=-1e-8)), ("Adam", dict(betas=(1.0, 0.999))),
    ("Adam", dict(betas=(-0.1, 0.999))), ("Adam", dict(betas=(0.9, 1.0))), ("Adam", dict(weight_decay=-0.1)),
    ("Adam", dict(fused=True)),
    ("AdamW", dict(lr=-1.0)), ("AdamW", dict(eps=-1.0)), ("AdamW", dict(betas=(0.9, -0.5))),
    ("AdamW", dict(weight_decay=-1.0)),
    ("RMSprop", dict(lr=-1.0)), ("RMSprop", dict(eps=-1.0)), ("RMSprop", dict(momentum=-0.1)),
    ("RMSprop", dict(weight_decay=-1.0)), ("RMSprop", dict(alpha=-0.5)),
    ("Adagrad", dict(lr=-1.0)), ("Adagrad", dict(lr_decay=-0.1)), ("Adagrad", dict(weight_decay=-1.0)),
    ("Adagrad", dict(initial_accumulator_value=-0.5)), ("Adagrad", dict(eps=-1e-10)),
    ("Adadelta", dict(lr=-1.0)), ("Adadelta", dict(rho=1.5)), ("Adadelta", dict(rho=-0.1)),
    ("Adadelta", dict(eps=-1.0)), ("Adadelta", dict(weight_decay=-1.0)),
    ("Adamax", dict(lr=-1.0)), ("Adamax", dict(eps=-1.0)), ("Adamax", dict(betas=(1.0, 0.999))),
    ("Adamax", dict(betas=(0.9, -0.1))), ("Adamax", dict(weight_decay=-1.0)),
    ("NAdam", dict(lr=-1.0)), ("NAdam", dict(eps=-1.0)), ("NAdam", dict(betas=(0.9, 1.0))),
    ("NAdam", dict(weight_decay=-1.0)), ("NAdam", dict(momentum_decay=-0.1)),
    ("RAdam", dict(lr=-1.0)), ("RAdam", dict(eps=-1.0)), ("RAdam", dict(betas=(-0.5, 0.9))),
    ("RAdam", dict(weight_decay=-1.0)),
    ("ASGD", dict(lr=-1.0)), ("ASGD", dict(weight_decay=-1.0)),
    ("Rprop", dict(lr=-1.0)), ("Rprop", dict(etas=(1.0, 1.2))), ("Rprop", dict(etas=(0.5, 1.0))),
    ("Rprop", dict(etas=(0.0, 1.2))),
    ("LBFGS", dict(lr=0.1, params_as_groups=True)),
]


@pytest.mark.parametrize("name, kwargs", INVALID, ids=["{}-{}".format(n, _id(k)) for n, k in INVALID])
def test_invalid_options_raise_as_torch(name, kwargs):
    kwargs = dict(kwargs)
    as_groups = kwargs.pop("params_as_groups", False)  # two parameter groups

    def params(lib):
        ps = [lib.zeros(2).requires_grad_(), lib.zeros(1).requires_grad_()]
        return [{"params": [p]} for p in ps] if as_groups else ps[:1]
    with pytest.raises(Exception) as expected:
        getattr(torch.optim, name)(params(torch), **kwargs)
    with pytest.raises(expected.type) as actual:
        getattr(ember.optim, name)(params(ember), **kwargs)
    assert str(actual.value) == str(expected.value)


def _bad_params(lib):
    a = lib.zeros(2).requires_grad_()
    return {
        "single tensor": a,
        "empty": [],
        "not a tensor": [a, 1.5],
        "non-leaf": [a * 2],
        "set": [{"params": {a}}],
        "in two groups": [{"params": [a]}, {"params": [lib.zeros(1).requires_grad_(), a]}],
        "group without lr": [{"params": [a]}],
    }


@pytest.mark.parametrize("case", sorted(_bad_params(torch)))
def test_invalid_params_raise_as_torch(case):
    with pytest.raises(Exception) as expected:
        torch.optim.SGD(_bad_params(torch)[case], **({} if case == "group without lr" else dict(lr=0.1)))
    with pytest.raises(expected.type) as actual:
        ember.optim.SGD(_bad_params(ember)[case], **({} if case == "group without lr" else dict(lr=0.1)))
    # the messages name the type; Ember's type names read 'ember.FloatTensor' for torch's 'torch.FloatTensor'
    assert str(actual.value) == str(expected.value).replace("torch.", "ember.")


def test_add_param_group_later():
    pair = Pair([(2,), (3,), (1,)], "float32")
    oe = ember.optim.SGD(pair.e[:1], lr=0.1, momentum=0.9)
    ot = torch.optim.SGD(pair.t[:1], lr=0.1, momentum=0.9)
    oe.add_param_group({"params": pair.e[1], "lr": 0.5})
    ot.add_param_group({"params": pair.t[1], "lr": 0.5})
    oe.add_param_group({"params": pair.e[2:]})
    ot.add_param_group({"params": pair.t[2:]})
    for step in range(3):
        pair.set_grads(step, "float32")
        oe.step()
        ot.step()
        assert_same_optimizer(oe, ot, pair)
    with pytest.raises(ValueError, match="more than one parameter group"):
        oe.add_param_group({"params": [pair.e[0]]})


def test_unsupported_options_are_rejected_clearly():
    p = ember.zeros(2).requires_grad_()
    with pytest.raises(RuntimeError, match="capturable"):
        ember.optim.Adam([p], capturable=True)
    with pytest.raises(NotImplementedError, match="differentiable"):
        ember.optim.SGD([p], lr=0.1, differentiable=True)
    # foreach is accepted (the single-tensor update runs) and recorded in the groups as in PyTorch.
    opt = ember.optim.AdamW([p], foreach=True)
    assert opt.param_groups[0]["foreach"] is True


def test_optimizer_base_is_extensible():
    class Sign(ember.optim.Optimizer):
        def __init__(self, params, lr=0.1):
            super().__init__(params, dict(lr=lr))

        @ember.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    p.add_(p.grad.sign(), alpha=-group["lr"])

    p = ember.zeros(2).requires_grad_()
    p.grad = ember.tensor([1.0, -2.0])
    opt = Sign([p])
    opt.step()
    assert p.tolist() == pytest.approx([-0.1, 0.1])
    with pytest.raises(NotImplementedError):
        ember.optim.Optimizer([p], {}).step(None)


# ================================================================================================= lr_scheduler
def make_optimizer(lib, name="SGD", lrs=(0.1, 0.05), **kwargs):
    """An optimizer of lib with one group per lr (each over a parameter with a gradient)."""
    groups = []
    for lr in lrs:
        p = lib.zeros(2).requires_grad_()
        p.grad = lib.ones(2)
        groups.append({"params": [p], "lr": lr})
    if name == "SGD":
        kwargs.setdefault("momentum", 0.9)
    return getattr(lib.optim, name)(groups, **kwargs)


def group_values(opt):
    """What a schedule sets in each group: lr and the momentum or betas when present."""
    return [(g["lr"], g.get("momentum"), g.get("betas")) for g in opt.param_groups]


def run_schedule(lib, make, steps=30, opt_name="SGD", metrics=None, opt_kwargs=None):
    """The groups' values after construction and after each of steps (optimizer step, then scheduler step with
    the metric of the step when given), with get_last_lr() for epoch-based schedulers."""
    opt = make_optimizer(lib, opt_name, **(opt_kwargs or {}))
    sched = make(lib, opt)
    record = [group_values(opt)]
    for i in range(steps):
        opt.step()
        if metrics is None:
            sched.step()
            assert sched.get_last_lr() == [g["lr"] for g in opt.param_groups]
        else:
            sched.step(metrics[i])
        record.append(group_values(opt))
    return record, sched


def lr_sched(name, *args, **kwargs):
    """A maker of scheduler name of either library, with the given arguments."""
    def make(lib, opt):
        return getattr(lib.optim.lr_scheduler, name)(opt, *args, **kwargs)
    make.__name__ = name
    return make


SCHEDULES = [
    ("LambdaLR", lr_sched("LambdaLR", lambda e: 0.95 ** e), "SGD"),
    ("LambdaLR-per-group", lr_sched("LambdaLR", [lambda e: 1.0 / (e + 1), lambda e: 0.5 + 0.1 * (e % 3)]), "SGD"),
    ("StepLR", lr_sched("StepLR", step_size=3, gamma=0.5), "SGD"),
    ("StepLR-every-step", lr_sched("StepLR", 1, gamma=0.9), "Adam"),
    ("MultiStepLR", lr_sched("MultiStepLR", milestones=[2, 5, 5, 9, 20], gamma=0.3), "SGD"),
    ("CosineAnnealingLR", lr_sched("CosineAnnealingLR", T_max=10, eta_min=0.001), "SGD"),
    ("CosineAnnealingLR-7", lr_sched("CosineAnnealingLR", 7), "AdamW"),
    ("OneCycleLR", lr_sched("OneCycleLR", max_lr=1.0, total_steps=30), "SGD"),
    ("OneCycleLR-adam-betas", lr_sched("OneCycleLR", max_lr=[0.01, 0.02], total_steps=30), "Adam"),
    ("OneCycleLR-adamw-options", lr_sched("OneCycleLR", max_lr=0.01, epochs=3, steps_per_epoch=10, pct_start=0.25,
                                          anneal_strategy="linear", div_factor=10.0, final_div_factor=100.0,
                                          base_momentum=[0.8, 0.7], max_momentum=0.99), "AdamW"),
    ("OneCycleLR-three-phase", lr_sched("OneCycleLR", max_lr=0.5, total_steps=30, three_phase=True), "SGD"),
    ("OneCycleLR-three-phase-linear", lr_sched("OneCycleLR", max_lr=0.5, total_steps=31, three_phase=True,
                                               anneal_strategy="linear", pct_start=0.4), "RMSprop"),
    ("OneCycleLR-no-momentum", lr_sched("OneCycleLR", max_lr=0.3, total_steps=30, cycle_momentum=False), "Adam"),
]


@pytest.mark.parametrize("case, make, opt_name", SCHEDULES, ids=[c for c, _, _ in SCHEDULES])
def test_schedule_matches_torch(case, make, opt_name):
    steps = 30
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # optimizer step before scheduler step: no warning
        expected, _ = run_schedule(torch, make, steps, opt_name)
        actual, _ = run_schedule(ember, make, steps, opt_name)
    assert actual == expected  # the same floats, bit for bit


def test_one_cycle_rejects_steps_past_the_total():
    for lib in (torch, ember):
        opt = make_optimizer(lib)
        sched = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=3)
        for _ in range(3):
            opt.step()
            sched.step()
        with pytest.raises(ValueError, match="Tried to step 5 times"):
            sched.step()


PLATEAU_LOSSES = [1.0, 0.9, 0.9, 0.91, 0.95, 0.89, 0.9, 0.9, 0.9, 0.9, 0.5, 0.5, 0.4999, 0.49999, 0.6, 0.6, 0.6,
                  0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2]
PLATEAUS = [
    dict(), dict(patience=5), dict(patience=1), dict(patience=2, factor=0.5), dict(mode="max", patience=1),
    dict(threshold_mode="abs", threshold=0.05, patience=1), dict(mode="max", threshold_mode="abs", patience=0),
    dict(patience=0, cooldown=2, factor=0.5), dict(patience=0, min_lr=[0.02, 0.001], factor=0.5),
    dict(patience=0, min_lr=0.01), dict(patience=0, factor=0.9, eps=0.006), dict(threshold=0.1, patience=1),
]


@pytest.mark.parametrize("kwargs", PLATEAUS, ids=[_id(k) or "defaults" for k in PLATEAUS])
def test_reduce_lr_on_plateau_matches_torch(kwargs):
    make = lr_sched("ReduceLROnPlateau", **kwargs)
    # Every other metric is a 0-dim (float32) tensor of the library.
    expected, st = run_schedule(torch, make, metrics=[torch.tensor(x) if i % 2 else x
                                                      for i, x in enumerate(PLATEAU_LOSSES)])
    actual, se = run_schedule(ember, make, metrics=[ember.tensor(x) if i % 2 else x
                                                    for i, x in enumerate(PLATEAU_LOSSES)])
    assert actual == expected
    assert (se.best, se.num_bad_epochs, se.cooldown_counter, se.last_epoch) == (
        st.best, st.num_bad_epochs, st.cooldown_counter, st.last_epoch)


def test_reduce_lr_on_plateau_state_dict_round_trip():
    make = lr_sched("ReduceLROnPlateau", patience=1, cooldown=1, factor=0.5)
    expected, _ = run_schedule(torch, make, metrics=PLATEAU_LOSSES)
    opt = make_optimizer(ember)
    sched = make(ember, opt)
    for x in PLATEAU_LOSSES[:12]:
        sched.step(x)
    opt2 = make_optimizer(ember)
    opt2.load_state_dict(opt.state_dict())
    sched2 = make(ember, opt2)
    sched2.load_state_dict(copy.deepcopy(sched.state_dict()))
    assert "optimizer" not in sched.state_dict()
    actual = []
    for x in PLATEAU_LOSSES[12:]:
        sched2.step(x)
        actual.append(group_values(opt2))
    assert actual == expected[13:]


STATEFUL = [c for c in SCHEDULES if c[0] in ("StepLR", "MultiStepLR", "CosineAnnealingLR", "OneCycleLR",
                                             "OneCycleLR-adam-betas", "LambdaLR")]


@pytest.mark.parametrize("case, make, opt_name", STATEFUL, ids=[c for c, _, _ in STATEFUL])
def test_scheduler_state_dict_round_trip(case, make, opt_name):
    # Save optimizer and scheduler after 12 steps, load both into fresh ones, continue: the same lrs as an
    # uninterrupted PyTorch run.
    expected, _ = run_schedule(torch, make, 30, opt_name)
    opt = make_optimizer(ember, opt_name)
    sched = make(ember, opt)
    for _ in range(12):
        opt.step()
        sched.step()
    opt_state, sched_state = opt.state_dict(), sched.state_dict()
    assert "optimizer" not in sched_state and sched_state["last_epoch"] == 12
    opt2 = make_optimizer(ember, opt_name)
    sched2 = make(ember, opt2)
    opt2.load_state_dict(opt_state)
    sched2.load_state_dict(sched_state)
    actual = []
    for _ in range(12, 30):
        opt2.step()
        sched2.step()
        actual.append(group_values(opt2))
    assert actual == expected[13:]


def test_lambda_lr_state_dict_keeps_callable_objects_only():
    class Decay:
        def __init__(self, rate):
            self.rate = rate

        def __call__(self, epoch):
            return self.rate ** epoch

    out = []
    for lib in (torch, ember):
        opt = make_optimizer(lib)
        sched = lib.optim.lr_scheduler.LambdaLR(opt, [Decay(0.5), lambda e: 1.0])
        state = sched.state_dict()
        out.append(state["lr_lambdas"])
        target = Decay(0.9)
        sched2 = lib.optim.lr_scheduler.LambdaLR(make_optimizer(lib), [target, lambda e: 2.0])
        sched2.load_state_dict(state)
        assert target.rate == 0.5 and "lr_lambdas" in state
    assert out[0] == out[1] == [{"rate": 0.5}, None]


CLOSED_FORM = [lr_sched("StepLR", step_size=3, gamma=0.5), lr_sched("MultiStepLR", [2, 4, 4], gamma=0.1),
               lr_sched("CosineAnnealingLR", T_max=5, eta_min=0.01), lr_sched("LambdaLR", lambda e: 1.0 / (1 + e))]


@pytest.mark.parametrize("make", CLOSED_FORM, ids=[m.__name__ for m in CLOSED_FORM])
def test_step_with_epoch_uses_the_closed_form_and_warns(make):
    epochs = [3, 7, 1, 4, 12, 5, 10]
    out = []
    for lib in (torch, ember):
        opt = make_optimizer(lib)
        sched = make(lib, opt)
        values = []
        for e in epochs:
            opt.step()
            with pytest.warns(UserWarning, match="epoch parameter"):
                sched.step(e)
            values.append(group_values(opt))
        out.append(values)
    assert out[0] == out[1]


def test_cosine_resumed_with_last_epoch_matches_torch():
    out = []
    for lib in (torch, ember):
        opt = make_optimizer(lib)
        for g in opt.param_groups:
            g["initial_lr"] = g["lr"] * 2
        sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=6, eta_min=0.001, last_epoch=4)
        values = [group_values(opt)]
        for _ in range(10):
            opt.step()
            sched.step()
            values.append(group_values(opt))
        out.append((values, sched.last_epoch, sched.base_lrs))
    assert out[0] == out[1]


def test_scheduler_warnings_as_torch():
    for lib in (torch, ember):
        opt = make_optimizer(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, 2)
        with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
            sched.step()
        with pytest.warns(UserWarning, match="get_last_lr"):
            sched.get_lr()
        # the counter wraps the optimizer's step once, even for a second scheduler
        lib.optim.lr_scheduler.StepLR(opt, 3)
        opt.step()
        assert opt._step_count == 1


class _NoMomentum:
    """Makes an optimizer of lib without momentum or betas (for OneCycleLR's cycle_momentum check)."""

    def __call__(self, lib):
        class Plain(lib.optim.Optimizer):
            def __init__(self, params):
                super().__init__(params, dict(lr=0.1))
        return Plain([lib.zeros(1).requires_grad_()])


SCHEDULER_ERRORS = [
    ("OneCycleLR", dict(max_lr=0.1)), ("OneCycleLR", dict(max_lr=0.1, total_steps=0)),
    ("OneCycleLR", dict(max_lr=0.1, total_steps=2.5)), ("OneCycleLR", dict(max_lr=0.1, epochs=0, steps_per_epoch=3)),
    ("OneCycleLR", dict(max_lr=0.1, epochs=2, steps_per_epoch=-1)),
    ("OneCycleLR", dict(max_lr=0.1, total_steps=10, pct_start=1.5)),
    ("OneCycleLR", dict(max_lr=0.1, total_steps=10, pct_start=1)),
    ("OneCycleLR", dict(max_lr=0.1, total_steps=10, anneal_strategy="exp")),
    ("OneCycleLR", dict(max_lr=[0.1, 0.2, 0.3], total_steps=10)),
    ("OneCycleLR", dict(max_lr=0.1, total_steps=10, base_momentum=[0.8])),
    ("ReduceLROnPlateau", dict(factor=1.0)), ("ReduceLROnPlateau", dict(mode="average")),
    ("ReduceLROnPlateau", dict(threshold_mode="pct")), ("ReduceLROnPlateau", dict(min_lr=[0.1, 0.2, 0.3])),
    ("LambdaLR", dict(lr_lambda=[lambda e: 1.0])), ("StepLR", dict(step_size=2, last_epoch=3)),
]


@pytest.mark.parametrize("name, kwargs", SCHEDULER_ERRORS, ids=["{}-{}".format(n, _id(k))
                                                                 for n, k in SCHEDULER_ERRORS])
def test_scheduler_errors_as_torch(name, kwargs):
    with pytest.raises(Exception) as expected:
        getattr(torch.optim.lr_scheduler, name)(make_optimizer(torch), **kwargs)
    with pytest.raises(expected.type) as actual:
        getattr(ember.optim.lr_scheduler, name)(make_optimizer(ember), **kwargs)
    assert str(actual.value) == str(expected.value)


@pytest.mark.parametrize("name, kwargs", [("StepLR", dict(step_size=1)), ("ReduceLROnPlateau", {}),
                                          ("OneCycleLR", dict(max_lr=0.1, total_steps=5))])
def test_scheduler_needs_an_optimizer(name, kwargs):
    for lib in (torch, ember):
        with pytest.raises(TypeError, match="is not an Optimizer"):
            getattr(lib.optim.lr_scheduler, name)(object(), **kwargs)
    with pytest.raises(ValueError, match="optimizer must support momentum"):
        ember.optim.lr_scheduler.OneCycleLR(_NoMomentum()(ember), max_lr=0.1, total_steps=5)
    with pytest.raises(ValueError, match="optimizer must support momentum"):
        torch.optim.lr_scheduler.OneCycleLR(_NoMomentum()(torch), max_lr=0.1, total_steps=5)


def test_lr_scheduler_names():
    assert ember.optim.lr_scheduler._LRScheduler is ember.optim.lr_scheduler.LRScheduler
    assert isinstance(ember.optim.lr_scheduler.StepLR(make_optimizer(ember), 2),
                      ember.optim.lr_scheduler._LRScheduler)


# =================================================================================================== end to end
@pytest.mark.parametrize("name, kwargs", [("AdamW", dict(lr=0.05)), ("SGD", dict(lr=0.05, momentum=0.9,
                                                                                   nesterov=True))])
def test_training_loop_with_one_cycle_matches_torch(name, kwargs):
    # A linear least-squares fit, trained the usual way: zero_grad, forward, backward, step, scheduler step.
    rng = np.random.default_rng(7)
    x = rng.standard_normal((32, 4)).astype(np.float32)
    y = (x @ np.array([[1.5], [-2.0], [0.5], [3.0]], dtype=np.float32) + 0.25).astype(np.float32)
    w0 = rng.standard_normal((4, 1)).astype(np.float32)
    runs = []
    for lib in (torch, ember):
        w = lib.from_numpy(w0.copy()).requires_grad_()
        b = lib.zeros(1).requires_grad_()
        opt = getattr(lib.optim, name)([w, b], **kwargs)
        sched = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.5, total_steps=40)
        xs, ys = lib.from_numpy(x.copy()), lib.from_numpy(y.copy())
        losses = []
        for _ in range(40):
            opt.zero_grad()
            loss = ((xs.matmul(w) + b - ys) ** 2).mean()
            loss.backward()
            opt.step()
            sched.step()
            losses.append(loss.item())
        runs.append((losses, w.detach().numpy().copy(), b.detach().numpy().copy()))
    (lt, wt, bt), (le, we, be) = runs
    assert le[-1] < 0.05 * le[0]  # it trains
    np.testing.assert_allclose(le, lt, rtol=1e-4, atol=1e-6)  # reductions may add in another order
    np.testing.assert_allclose(we, wt, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(be, bt, rtol=1e-4, atol=1e-5)


def test_load_state_dict_of_another_optimizer_type_raises_at_load():
    # PyTorch loads Adam's state into SGD and fails at step(); Ember raises at load time, with the same message as
    # the C++ side (tests/optim/optimizer_test.cpp), and leaves the optimizer as it was.
    a, b = ember.zeros(2, 3, requires_grad=True), ember.zeros(4, requires_grad=True)
    a.grad, b.grad = ember.ones(2, 3), ember.ones(4)
    adam = ember.optim.Adam([a, b])
    adam.step()
    sgd = ember.optim.SGD([a, b], lr=0.1, momentum=0.9)
    with pytest.raises(ValueError, match=r"the state dict is not the state of a SGD optimizer \(it looks like the "
                                         r"state of Adam or AdamW\): parameter group 0 has options 'betas', 'eps'"):
        sgd.load_state_dict(adam.state_dict())
    assert sgd.param_groups[0]["momentum"] == 0.9 and not sgd.state
    sgd.step()
    with pytest.raises(ValueError, match="not the state of a Adam optimizer .it looks like the state of SGD"):
        adam.load_state_dict(sgd.state_dict())
    ember.optim.AdamW([a, b]).load_state_dict(adam.state_dict())  # the same layout: loads
    # Extras such as a scheduler's initial_lr are not another optimizer's options.
    ember.optim.lr_scheduler.StepLR(adam, 1)
    ember.optim.Adam([a, b]).load_state_dict(adam.state_dict())


def test_load_state_dict_rejects_state_of_other_shapes():
    a, b = ember.zeros(2, 3, requires_grad=True), ember.zeros(4, requires_grad=True)
    a.grad, b.grad = ember.ones(2, 3), ember.ones(4)
    adam = ember.optim.Adam([a, b])
    adam.step()
    other = ember.optim.Adam([ember.zeros(3, 2, requires_grad=True), ember.zeros(4, requires_grad=True)])
    with pytest.raises(ValueError, match=r"the state 'exp_avg' of parameter 0 in group 0 has shape \[2, 3\] but "
                                         r"the parameter has shape \[3, 2\]"):
        other.load_state_dict(adam.state_dict())
    assert not other.state
    sgd = ember.optim.SGD([{"params": [a]}, {"params": [b]}], lr=0.1, momentum=0.9)
    sgd.step()
    sgd2 = ember.optim.SGD([{"params": [ember.zeros(2, 3, requires_grad=True)]},
                            {"params": [ember.zeros(5, requires_grad=True)]}], lr=0.1, momentum=0.9)
    with pytest.raises(ValueError, match=r"the state 'momentum_buffer' of parameter 0 in group 1 has shape \[4\]"):
        sgd2.load_state_dict(sgd.state_dict())


# ======================================================================================== more optimizers' details
@pytest.mark.parametrize("name", sorted(RICH))
def test_torch_state_dict_loads_and_continues(name):
    # PyTorch's state dict, converted tensor by tensor, loads into Ember's optimizer (every state entry and
    # option has PyTorch's key and kind) and the two continue identically.
    groups = [([0, 2], {}), ([3, 1], dict(lr=0.02))]
    oe, ot, pair = run_both(name, RICH[name], groups=groups, steps=3)
    sdt = ot.state_dict()

    def convert(v):
        if isinstance(v, torch.Tensor):
            return ember.from_numpy(v.numpy().copy())
        return v
    converted = {"param_groups": copy.deepcopy(sdt["param_groups"]),
                 "state": {k: {n: convert(v) for n, v in s.items()} for k, s in sdt["state"].items()}}
    fresh = [p.detach().clone().requires_grad_(True) for p in pair.e]
    oe2 = getattr(ember.optim, name)(groups_of(fresh, groups), **RICH[name])
    oe2.load_state_dict(converted)
    pair.e = fresh
    for step in range(3, 6):
        pair.set_grads(step, "float32")
        oe2.step()
        ot.step()
        assert_same_optimizer(oe2, ot, pair)


def test_adagrad_state_exists_from_construction_as_torch():
    pair = Pair([(2,), (3,)], "float32")
    oe = ember.optim.Adagrad(pair.e, initial_accumulator_value=0.25)
    ot = torch.optim.Adagrad(pair.t, initial_accumulator_value=0.25)
    _state_dict_equal(oe.state_dict(), ot.state_dict(), exact=True)
    assert oe.state[pair.e[1]]["sum"].tolist() == [0.25] * 3
    # A parameter added later (PyTorch 1.13 then fails at step() with KeyError 'sum') gets its state at its
    # first step in Ember.
    extra = ember.ones(2).requires_grad_()
    oe.add_param_group({"params": [extra]})
    extra.grad = ember.ones(2)
    oe.step()
    assert oe.state[extra]["step"].item() == 1.0


def test_old_number_steps_load_as_tensors():
    # State dicts of PyTorch < 1.12 hold "step" (and ASGD's eta and mu, NAdam's mu_product) as numbers.
    for name, extra in [("Adagrad", {}), ("Adamax", {}), ("RAdam", {}), ("NAdam", {"mu_product": 0.5}),
                        ("ASGD", {"eta": 0.01, "mu": 1.0})]:
        p = ember.zeros(2).requires_grad_()
        p.grad = ember.ones(2)
        opt = getattr(ember.optim, name)([p])
        opt.step()
        sd = opt.state_dict()
        sd["state"][0]["step"] = 3
        sd["state"][0].update(extra)
        opt.load_state_dict(sd)
        assert isinstance(opt.state[p]["step"], ember.Tensor) and opt.state[p]["step"].item() == 3.0, name
        for key in extra:
            assert isinstance(opt.state[p][key], ember.Tensor), (name, key)


# ------------------------------------------------------------------------------------------------------ LBFGS
def _rosenbrock_pair(dtype, shapes=((3,), (2, 2))):
    pair = Pair(list(shapes), dtype, seed=5)
    for pe, pt in zip(pair.e, pair.t):  # start near the valley, away from the minimum at 1
        with ember.no_grad(), torch.no_grad():
            pe.mul_(0.5)
            pt.mul_(0.5)
    return pair


def _rosenbrock_closure(lib, params, opt, calls):
    def closure():
        opt.zero_grad()
        x = lib.cat([p.reshape(-1) for p in params])
        loss = (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()
        loss.backward()
        calls.append(loss.item())
        return loss
    return closure


LBFGS_OPTIONS = [dict(), dict(lr=0.5, max_iter=5), dict(history_size=3, max_iter=30),
                 dict(line_search_fn="strong_wolfe"), dict(line_search_fn="strong_wolfe", history_size=2, max_iter=7),
                 dict(lr=0.1, max_iter=4, max_eval=6, tolerance_change=1e-5), dict(tolerance_grad=1e-2)]


@pytest.mark.parametrize("kwargs", LBFGS_OPTIONS, ids=[_id(k) or "defaults" for k in LBFGS_OPTIONS])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_lbfgs_matches_torch(kwargs, dtype):
    pair = _rosenbrock_pair(dtype)
    oe, ot = ember.optim.LBFGS(pair.e, **kwargs), torch.optim.LBFGS(pair.t, **kwargs)
    ce, ct = [], []
    # Reductions (the loss, dot products) may add in another order, so the runs agree to rounding: closely in
    # float64, where both take the same path (the same evaluations and iterations); in float32 the rounding
    # differences grow near the minimum, where the gradients are tiny, so the paths agree to float32's
    # precision on the parameters (which approach 1) and the loss (which approaches 0).
    float64 = dtype == "float64"
    rtol, atol = (1e-9, 1e-12) if float64 else (2e-3, 1e-2)
    for _ in range(4):
        le = oe.step(_rosenbrock_closure(ember, pair.e, oe, ce))
        lt = ot.step(_rosenbrock_closure(torch, pair.t, ot, ct))
        assert le.item() == pytest.approx(lt.item(), rel=rtol, abs=atol)
        for pe, pt in zip(pair.e, pair.t):
            np.testing.assert_allclose(pe.detach().numpy(), pt.detach().numpy(), rtol=rtol, atol=atol)
        se, st = oe.state[pair.e[0]], ot.state[pair.t[0]]
        assert list(se) == list(st)  # the same entries, in the same order
        assert isinstance(se["t"], ember.Tensor) == isinstance(st["t"], torch.Tensor)  # float or 0-dim tensor
        assert oe.state_dict()["param_groups"] == ot.state_dict()["param_groups"]  # max_eval resolved as torch
        if not float64:
            continue
        assert len(ce) == len(ct)  # the same number of evaluations: the same path
        assert (se["func_evals"], se["n_iter"]) == (st["func_evals"], st["n_iter"])
        assert len(se["old_dirs"]) == len(st["old_dirs"]) and len(se["ro"]) == len(st["ro"])
        np.testing.assert_allclose(se["d"].numpy(), st["d"].numpy(), rtol=1e-8, atol=1e-12)
        assert float(se["t"]) == pytest.approx(float(st["t"]), rel=1e-8)
    assert ce[-1] < ce[0]  # it minimizes


def test_lbfgs_converges_on_rosenbrock_with_strong_wolfe():
    pair = _rosenbrock_pair("float64", shapes=((2,),))
    opt = ember.optim.LBFGS(pair.e, line_search_fn="strong_wolfe", max_iter=100, tolerance_grad=1e-12,
                            tolerance_change=1e-14)
    calls = []
    for _ in range(3):
        opt.step(_rosenbrock_closure(ember, pair.e, opt, calls))
    np.testing.assert_allclose(pair.e[0].detach().numpy(), [1.0, 1.0], atol=1e-6)


def test_lbfgs_state_dict_round_trip_continues_identically():
    pair = _rosenbrock_pair("float64")
    opt = ember.optim.LBFGS(pair.e, history_size=4, max_iter=6, line_search_fn="strong_wolfe")
    calls = []
    opt.step(_rosenbrock_closure(ember, pair.e, opt, calls))
    sd = copy.deepcopy(opt.state_dict())
    assert sorted(sd["state"]) == [0] and sd["param_groups"][0]["max_eval"] == 7
    fresh = [p.detach().clone().requires_grad_(True) for p in pair.e]
    opt2 = ember.optim.LBFGS(fresh, history_size=4, max_iter=6, line_search_fn="strong_wolfe")
    opt2.load_state_dict(sd)
    for _ in range(2):
        opt.step(_rosenbrock_closure(ember, pair.e, opt, []))
        opt2.step(_rosenbrock_closure(ember, fresh, opt2, []))
        for a, b in zip(pair.e, fresh):
            assert a.tolist() == b.tolist()


def test_lbfgs_rejects_unknown_line_search_at_step_as_torch():
    for lib in (torch, ember):
        p = lib.zeros(2).requires_grad_()
        opt = lib.optim.LBFGS([p], line_search_fn="backtracking")
        with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
            opt.step(_rosenbrock_closure(lib, [p], opt, []))


# -------------------------------------------------------------------------------------------------- swa_utils
def _swa_model(lib, seed):
    lib.manual_seed(seed)
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU(), lib.nn.Linear(4, 2))


def _copy_weights(src, dst):
    with torch.no_grad(), ember.no_grad():
        for (ne, pe), (nt, pt) in zip(src.state_dict().items(), dst.state_dict().items()):
            pt.copy_(torch.from_numpy(np.array(pe.numpy(), copy=True)))


@pytest.mark.parametrize("use_buffers", [False, True])
@pytest.mark.parametrize("ema", [False, True])
def test_averaged_model_matches_torch(use_buffers, ema):
    me, mt = _swa_model(ember, 0), _swa_model(torch, 0)
    _copy_weights(me, mt)

    def avg_fn(lib):
        if not ema:
            return None
        return lambda averaged, current, n: 0.9 * averaged + 0.1 * current
    ae = ember.optim.swa_utils.AveragedModel(me, avg_fn=avg_fn(ember), use_buffers=use_buffers)
    at = torch.optim.swa_utils.AveragedModel(mt, avg_fn=avg_fn(torch), use_buffers=use_buffers)
    rng = np.random.default_rng(3)
    for step in range(4):
        x = rng.standard_normal((5, 3)).astype(np.float32)
        with torch.no_grad(), ember.no_grad():
            for pe, pt in zip(me.parameters(), mt.parameters()):
                delta = rng.standard_normal(tuple(pt.shape)).astype(np.float32)
                pe.add_(ember.from_numpy(delta.copy()))
                pt.add_(torch.from_numpy(delta.copy()))
        me(ember.from_numpy(x.copy()))  # moves the batch-norm statistics (buffers)
        mt(torch.from_numpy(x.copy()))
        ae.update_parameters(me)
        at.update_parameters(mt)
        assert int(ae.n_averaged) == int(at.n_averaged) == step + 1
        for (ke, ve), (kt, vt) in zip(ae.state_dict().items(), at.state_dict().items()):
            assert ke == kt
            np.testing.assert_allclose(ve.numpy(), vt.numpy(), rtol=1e-6, atol=1e-6, err_msg=ke)
    x = rng.standard_normal((2, 3)).astype(np.float32)
    ae.eval(), at.eval()
    np.testing.assert_allclose(ae(ember.from_numpy(x.copy())).detach().numpy(),
                               at(torch.from_numpy(x.copy())).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_update_bn_matches_torch():
    me, mt = _swa_model(ember, 1), _swa_model(torch, 1)
    _copy_weights(me, mt)
    me.eval(), mt.eval()
    rng = np.random.default_rng(4)
    batches = [rng.standard_normal((6, 3)).astype(np.float32) for _ in range(3)]
    ember.optim.swa_utils.update_bn([(ember.from_numpy(b.copy()), 0) for b in batches], me)
    torch.optim.swa_utils.update_bn([(torch.from_numpy(b.copy()), 0) for b in batches], mt)
    assert not me.training and me[1].momentum == mt[1].momentum == 0.1
    for (ke, ve), (kt, vt) in zip(me.state_dict().items(), mt.state_dict().items()):
        np.testing.assert_allclose(ve.numpy(), vt.numpy(), rtol=1e-5, atol=1e-6, err_msg=ke)
    # Without batch norm: nothing to do.
    plain = ember.nn.Linear(2, 2)
    ember.optim.swa_utils.update_bn([ember.zeros(1, 2)], plain)


SWALR_CASES = [dict(swa_lr=0.01), dict(swa_lr=[0.5, 0.01], anneal_epochs=3, anneal_strategy="linear"),
               dict(swa_lr=0.2, anneal_epochs=0), dict(swa_lr=0.05, anneal_epochs=1, anneal_strategy="cos")]


@pytest.mark.parametrize("kwargs", SWALR_CASES, ids=[_id(k) for k in SWALR_CASES])
def test_swalr_matches_torch(kwargs):
    out = []
    for lib in (torch, ember):
        opt = make_optimizer(lib)
        sched = lib.optim.swa_utils.SWALR(opt, **kwargs)
        values = [group_values(opt)]
        for _ in range(15):
            opt.step()
            sched.step()
            values.append(group_values(opt))
        out.append((values, sched.get_last_lr()))
    assert out[0] == out[1]


@pytest.mark.parametrize("kwargs", [dict(swa_lr=[0.1]), dict(swa_lr=0.1, anneal_strategy="exp"),
                                    dict(swa_lr=0.1, anneal_epochs=-1), dict(swa_lr=0.1, anneal_epochs=2.0)])
def test_swalr_errors_as_torch(kwargs):
    with pytest.raises(Exception) as expected:
        torch.optim.swa_utils.SWALR(make_optimizer(torch), **kwargs)
    with pytest.raises(expected.type) as actual:
        ember.optim.swa_utils.SWALR(make_optimizer(ember), **kwargs)
    assert str(actual.value) == str(expected.value)


@pytest.mark.parametrize("saved, loading, guess", [("ASGD", "RMSprop", "ASGD"), ("Adagrad", "SGD", "Adagrad"),
                                                   ("Rprop", "Adam", "Rprop"), ("Adadelta", "Adamax", "Adadelta"),
                                                   ("NAdam", "SGD", "NAdam")])
def test_load_state_dict_names_the_new_optimizers(saved, loading, guess):
    # Note [loading another optimizer's state]: the new optimizers' options count as foreign, and the guess
    # names them.
    a = ember.zeros(2, 3, requires_grad=True)
    a.grad = ember.ones(2, 3)
    src = getattr(ember.optim, saved)([a], **({"lr": 0.1} if saved == "SGD" else {}))
    src.step()
    dst = getattr(ember.optim, loading)([a], **({"lr": 0.1} if loading == "SGD" else {}))
    with pytest.raises(ValueError, match=r"it looks like the state of {}\)".format(guess)):
        dst.load_state_dict(src.state_dict())
