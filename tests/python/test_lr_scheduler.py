"""ember.optim.lr_scheduler's schedulers added for issue 20 (MultiplicativeLR, ConstantLR, LinearLR,
ExponentialLR, PolynomialLR, CosineAnnealingWarmRestarts, CyclicLR, SequentialLR, ChainedScheduler) against
PyTorch 1.13: the lrs (and momentums) of every step bit for bit, step(epoch)'s closed forms, state dicts and
argument errors. The schedulers of the earlier issues are tested in test_optim.py, whose helpers these reuse.
"""
import copy
import math
import warnings

import pytest

import ember
import torch

from test_optim import _id, group_values, lr_sched, make_optimizer, run_schedule


def chained(*makers):
    """A maker of ChainedScheduler over the schedulers the makers build."""
    def make(lib, opt):
        return lib.optim.lr_scheduler.ChainedScheduler([m(lib, opt) for m in makers])
    make.__name__ = "ChainedScheduler"
    return make


def sequential(makers, milestones):
    """A maker of SequentialLR over the schedulers the makers build."""
    def make(lib, opt):
        return lib.optim.lr_scheduler.SequentialLR(opt, [m(lib, opt) for m in makers], milestones=milestones)
    make.__name__ = "SequentialLR"
    return make


class Halving:
    """A picklable scale_fn / lr_lambda object with state."""

    def __init__(self, base):
        self.base = base

    def __call__(self, x):
        return self.base ** x


SCHEDULES = [
    ("MultiplicativeLR", lr_sched("MultiplicativeLR", lambda e: 0.9), "SGD"),
    ("MultiplicativeLR-per-group", lr_sched("MultiplicativeLR", [lambda e: 0.95, lambda e: 1.0 + 0.01 * e]), "Adam"),
    ("ConstantLR", lr_sched("ConstantLR"), "SGD"),
    ("ConstantLR-half-4", lr_sched("ConstantLR", factor=0.5, total_iters=4), "AdamW"),
    ("ConstantLR-0-iters", lr_sched("ConstantLR", factor=0.25, total_iters=0), "SGD"),
    ("LinearLR", lr_sched("LinearLR"), "SGD"),
    ("LinearLR-down", lr_sched("LinearLR", start_factor=1.0, end_factor=0.1, total_iters=7), "Adam"),
    ("LinearLR-partial", lr_sched("LinearLR", start_factor=0.25, end_factor=0.75, total_iters=10), "SGD"),
    ("ExponentialLR", lr_sched("ExponentialLR", gamma=0.9), "SGD"),
    ("ExponentialLR-grow", lr_sched("ExponentialLR", 1.05), "RMSprop"),
    ("PolynomialLR", lr_sched("PolynomialLR"), "SGD"),
    ("PolynomialLR-square", lr_sched("PolynomialLR", total_iters=12, power=2.0), "Adam"),
    ("PolynomialLR-sqrt", lr_sched("PolynomialLR", total_iters=20, power=0.5), "SGD"),
    ("CosineAnnealingWarmRestarts", lr_sched("CosineAnnealingWarmRestarts", T_0=5), "SGD"),
    ("CosineAnnealingWarmRestarts-mult", lr_sched("CosineAnnealingWarmRestarts", T_0=3, T_mult=2, eta_min=0.001),
     "AdamW"),
    ("CyclicLR", lr_sched("CyclicLR", base_lr=0.01, max_lr=0.1, step_size_up=4), "SGD"),
    ("CyclicLR-triangular2", lr_sched("CyclicLR", base_lr=[0.01, 0.02], max_lr=[0.1, 0.3], step_size_up=3,
                                      step_size_down=5, mode="triangular2", base_momentum=[0.7, 0.75],
                                      max_momentum=0.95), "SGD"),
    ("CyclicLR-exp-range", lr_sched("CyclicLR", base_lr=0.001, max_lr=0.1, step_size_up=2, mode="exp_range",
                                    gamma=0.9), "SGD"),
    ("CyclicLR-scale-fn-cycle", lr_sched("CyclicLR", base_lr=0.01, max_lr=0.1, step_size_up=4,
                                         scale_fn=Halving(0.5)), "SGD"),
    ("CyclicLR-scale-fn-iterations", lr_sched("CyclicLR", base_lr=0.01, max_lr=0.1, step_size_up=4,
                                              scale_fn=Halving(0.97), scale_mode="iterations"), "SGD"),
    ("CyclicLR-no-momentum-adam", lr_sched("CyclicLR", base_lr=0.01, max_lr=0.1, step_size_up=6,
                                           cycle_momentum=False), "Adam"),
    ("ChainedScheduler", chained(lr_sched("ConstantLR", factor=0.1, total_iters=2),
                                 lr_sched("ExponentialLR", gamma=0.9)), "SGD"),
    ("ChainedScheduler-three", chained(lr_sched("LinearLR", start_factor=0.5, total_iters=4),
                                       lr_sched("StepLR", 3, gamma=0.5),
                                       lr_sched("MultiplicativeLR", lambda e: 0.99)), "Adam"),
    ("SequentialLR", sequential([lr_sched("ConstantLR", factor=0.1, total_iters=2),
                                 lr_sched("ExponentialLR", gamma=0.9)], milestones=[2]), "SGD"),
    ("SequentialLR-warmup-cosine", sequential([lr_sched("LinearLR", start_factor=0.1, total_iters=5),
                                               lr_sched("CosineAnnealingLR", T_max=10, eta_min=0.001),
                                               lr_sched("StepLR", 4, gamma=0.5)], milestones=[5, 15]), "AdamW"),
]


@pytest.mark.parametrize("case, make, opt_name", SCHEDULES, ids=[c for c, _, _ in SCHEDULES])
def test_schedule_matches_torch(case, make, opt_name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SequentialLR's step(0) warns about the epoch argument, in both
        expected, st = run_schedule(torch, make, 30, opt_name)
        actual, se = run_schedule(ember, make, 30, opt_name)
    assert actual == expected  # the same floats, bit for bit
    assert se.get_last_lr() == st.get_last_lr()
    assert getattr(se, "last_epoch", None) == getattr(st, "last_epoch", None)  # ChainedScheduler has none


def test_first_steps_without_optimizer_step_warn_as_torch():
    # The new schedulers share the base's warning when scheduler.step() comes before optimizer.step().
    for lib in (torch, ember):
        opt = make_optimizer(lib)
        sched = lib.optim.lr_scheduler.LinearLR(opt)
        with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
            sched.step()


CLOSED_FORM = [lr_sched("ConstantLR", factor=0.5, total_iters=4), lr_sched("LinearLR", start_factor=0.2,
                                                                             total_iters=6),
               lr_sched("ExponentialLR", gamma=0.8), lr_sched("PolynomialLR", total_iters=8, power=1.5)]


@pytest.mark.parametrize("make", CLOSED_FORM, ids=[m.__name__ for m in CLOSED_FORM])
def test_step_with_epoch_uses_the_closed_form(make):
    epochs = [3, 7, 1, 4, 12, 5, 10, 0]
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


@pytest.mark.parametrize("T_mult", [1, 2, 3])
def test_warm_restarts_with_fractional_and_interleaved_epochs(T_mult):
    # step(epoch) takes fractional epochs (a position within an epoch) and may be interleaved with step().
    calls = [0.5, 1.25, None, None, 4.75, 9.0, None, 26, None, 2.0, 14.5, None]
    out = []
    for lib in (torch, ember):
        opt = make_optimizer(lib)
        sched = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=4, T_mult=T_mult, eta_min=0.005)
        values = []
        for e in calls:
            opt.step()
            sched.step() if e is None else sched.step(e)
            values.append((group_values(opt), sched.T_cur, sched.T_i, sched.last_epoch))
        out.append(values)
    assert out[0] == out[1]


def _roundtrip_cases():
    return [c for c in SCHEDULES if not c[0].startswith("CyclicLR-scale-fn")]


@pytest.mark.parametrize("case, make, opt_name", _roundtrip_cases(), ids=[c for c, _, _ in _roundtrip_cases()])
def test_state_dict_round_trip(case, make, opt_name):
    # Save optimizer and scheduler after 11 steps, load both into fresh ones, continue: the same values as an
    # uninterrupted PyTorch run.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected, _ = run_schedule(torch, make, 30, opt_name)
        opt = make_optimizer(ember, opt_name)
        sched = make(ember, opt)
        for _ in range(11):
            opt.step()
            sched.step()
        opt_state, sched_state = copy.deepcopy(opt.state_dict()), copy.deepcopy(sched.state_dict())
        assert "optimizer" not in sched_state
        opt2 = make_optimizer(ember, opt_name)
        sched2 = make(ember, opt2)
        opt2.load_state_dict(opt_state)
        sched2.load_state_dict(sched_state)
        actual = []
        for _ in range(11, 30):
            opt2.step()
            sched2.step()
            actual.append(group_values(opt2))
    assert actual == expected[12:]


@pytest.mark.parametrize("case, make, opt_name", SCHEDULES, ids=[c for c, _, _ in SCHEDULES])
def test_state_dict_keys_match_torch(case, make, opt_name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, st = run_schedule(torch, make, 3, opt_name)
        _, se = run_schedule(ember, make, 3, opt_name)
    # CyclicLR: PyTorch keeps a weak reference to its policy method, Ember the policy's name (mode).
    keys_t = set(st.state_dict()) - {"_scale_fn_ref"}
    assert set(se.state_dict()) == keys_t
    for key in keys_t - {"_schedulers", "lr_lambdas", "_scale_fn_custom", "_last_lr", "base_lrs"}:
        assert se.state_dict()[key] == st.state_dict()[key], key
    if "_schedulers" in keys_t:
        for a, b in zip(se.state_dict()["_schedulers"], st.state_dict()["_schedulers"]):
            assert set(a) == set(b)


def test_multiplicative_lr_saves_callable_objects_only():
    out = []
    for lib in (torch, ember):
        opt = make_optimizer(lib)
        sched = lib.optim.lr_scheduler.MultiplicativeLR(opt, [Halving(0.5), lambda e: 1.0])
        state = sched.state_dict()
        target = Halving(0.9)
        lib.optim.lr_scheduler.MultiplicativeLR(make_optimizer(lib), [target, lambda e: 2.0]).load_state_dict(state)
        assert target.base == 0.5 and "lr_lambdas" in state
        out.append(state["lr_lambdas"])
    assert out[0] == out[1] == [{"base": 0.5}, None]


def _other_optimizer_schedulers(lib):
    opt, other = make_optimizer(lib), make_optimizer(lib)
    return opt, [lib.optim.lr_scheduler.ConstantLR(opt), lib.optim.lr_scheduler.ExponentialLR(other, 0.9)]


SCHEDULER_ERRORS = [
    ("ConstantLR", lambda lib, opt: dict(factor=1.5)), ("ConstantLR", lambda lib, opt: dict(factor=-0.1)),
    ("LinearLR", lambda lib, opt: dict(start_factor=1.5)), ("LinearLR", lambda lib, opt: dict(end_factor=-1.0)),
    ("MultiplicativeLR", lambda lib, opt: dict(lr_lambda=[lambda e: 1.0])),
    ("CosineAnnealingWarmRestarts", lambda lib, opt: dict(T_0=0)),
    ("CosineAnnealingWarmRestarts", lambda lib, opt: dict(T_0=2.5)),
    ("CosineAnnealingWarmRestarts", lambda lib, opt: dict(T_0=2, T_mult=0)),
    ("CosineAnnealingWarmRestarts", lambda lib, opt: dict(T_0=2, T_mult=1.5)),
    ("CyclicLR", lambda lib, opt: dict(base_lr=0.1, max_lr=1.0, mode="sine")),
    ("CyclicLR", lambda lib, opt: dict(base_lr=[0.1], max_lr=1.0)),
    ("CyclicLR", lambda lib, opt: dict(base_lr=0.1, max_lr=[1.0, 2.0, 3.0])),
    ("CyclicLR", lambda lib, opt: dict(base_lr=0.1, max_lr=1.0, base_momentum=[0.1])),
    ("SequentialLR", lambda lib, opt: dict(schedulers=[lib.optim.lr_scheduler.ConstantLR(opt)], milestones=[3])),
    ("SequentialLR", lambda lib, opt: dict(schedulers=[lib.optim.lr_scheduler.ExponentialLR(make_optimizer(lib),
                                                                                            0.9)], milestones=[])),
]


@pytest.mark.parametrize("name, kwargs", SCHEDULER_ERRORS, ids=["{}-{}".format(n, i)
                                                                 for i, (n, _) in enumerate(SCHEDULER_ERRORS)])
def test_scheduler_errors_as_torch(name, kwargs):
    errors = []
    for lib in (torch, ember):
        opt = make_optimizer(lib)
        with pytest.raises(Exception) as info:
            getattr(lib.optim.lr_scheduler, name)(opt, **kwargs(lib, opt))
        errors.append((info.type.__name__, str(info.value)))
    assert errors[0] == errors[1]


def test_composite_scheduler_errors_as_torch():
    errors = []
    for lib in (torch, ember):
        opt, schedulers = _other_optimizer_schedulers(lib)
        with pytest.raises(ValueError) as chained_error:
            lib.optim.lr_scheduler.ChainedScheduler(schedulers)
        with pytest.raises(ValueError) as sequential_error:
            lib.optim.lr_scheduler.SequentialLR(opt, schedulers, milestones=[2])
        opt = make_optimizer(lib)
        with pytest.raises(ValueError) as negative_epoch:
            lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3).step(-1)
        with pytest.raises(ValueError) as adam_momentum:
            lib.optim.lr_scheduler.CyclicLR(make_optimizer(lib, "Adam"), base_lr=0.1, max_lr=1.0)
        errors.append([str(e.value) for e in (chained_error, sequential_error, negative_epoch, adam_momentum)])
    assert errors[0] == errors[1]


def test_scheduler_classes_are_exported():
    names = ["LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR",
             "SequentialLR", "PolynomialLR", "CosineAnnealingLR", "ChainedScheduler", "ReduceLROnPlateau",
             "CyclicLR", "CosineAnnealingWarmRestarts", "OneCycleLR"]
    for name in names:
        cls = getattr(ember.optim.lr_scheduler, name)
        assert name in ember.optim.lr_scheduler.__all__
        if name != "ReduceLROnPlateau":
            assert issubclass(cls, ember.optim.lr_scheduler.LRScheduler), name
    assert math.isclose(ember.optim.lr_scheduler.PolynomialLR(make_optimizer(ember)).get_last_lr()[0], 0.1)
