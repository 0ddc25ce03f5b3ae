"""Optimizer state crosses between Python's ember.optim and the C++ ember::optim, both ways, through ember.save
archives: a state saved by Python loads into the C++ optimizer and continues exactly as Python continues, and a
state saved by C++ (ember::save(optimizer, path)) loads into Python's optimizer and continues exactly as an
uninterrupted Python run.

The C++ side is build/tests/ember_optim_state (tests/optim_state/optim_state.cpp; EMBER_BUILD_DIR names another
build directory).
"""
import os
import subprocess

import numpy as np
import pytest

import ember
import ember.optim

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("EMBER_BUILD_DIR", os.path.join(ROOT, "build"))
TOOL = os.path.join(BUILD, "tests", "ember_optim_state")

pytestmark = pytest.mark.skipif(not os.path.exists(TOOL), reason="ember_optim_state is not built (EMBER_BUILD_TESTS)")

STEPS = 5
SPLIT = 2  # steps before the state changes sides

# (optimizer, Python keyword arguments, lr of a second group or None, attach a StepLR first)
CASES = [
    ("SGD", dict(lr=0.1), None, False),
    ("SGD", dict(lr=0.05, momentum=0.9, weight_decay=0.01, nesterov=True), 0.02, True),
    ("Adam", dict(lr=0.01), None, False),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.9), weight_decay=0.1, amsgrad=True, maximize=True), 0.005, True),
    ("AdamW", dict(lr=0.01, amsgrad=True), None, False),
    ("RMSprop", dict(lr=0.01, momentum=0.9, centered=True), 0.02, False),
    ("RMSprop", dict(lr=0.01, weight_decay=0.1), None, True),
    ("Adagrad", dict(lr=0.1), None, False),
    ("Adagrad", dict(lr=0.1, lr_decay=0.05, weight_decay=0.1, initial_accumulator_value=0.5, maximize=True), 0.02,
     True),
]


def case_id(case):
    return "{}-{}".format(case[0], "-".join(k for k in case[1] if k != "lr") or "plain")


def make_data(dtype):
    rng = np.random.default_rng(7)
    shapes = [(3, 4), (5,), (2,)]
    init = [rng.standard_normal(s).astype(dtype) for s in shapes]
    grads = []
    for step in range(STEPS):
        g = [rng.standard_normal(s).astype(dtype) for s in shapes]
        if step == 1:
            g[2] = None  # skipped by this step
        if step == 3:
            g[0] = None
        grads.append(g)
    return init, grads


def python_optimizer(name, options, group1_lr, params):
    groups = list(params) if group1_lr is None else [{"params": params[:1]}, {"params": params[1:], "lr": group1_lr}]
    return getattr(ember.optim, name)(groups, **options)


def leaves(arrays):
    return [ember.from_numpy(np.array(a, copy=True)).requires_grad_() for a in arrays]


def run_python(opt, params, grads):
    for gs in grads:
        for p, g in zip(params, gs):
            p.grad = None if g is None else ember.from_numpy(np.array(g, copy=True))
        opt.step()


def float_options(options):
    # Numbers as floats: the C++ options are doubles (an int would load the same; this keeps the kinds equal).
    return {k: (tuple(map(float, v)) if isinstance(v, tuple) else v if isinstance(v, bool) else float(v))
            for k, v in options.items()}


def run_cpp(tmp_path, name, options, group1_lr, params, grads, state_dict):
    """Runs the C++ optimizer over params (numpy arrays) for grads, after loading state_dict (or none);
    returns its parameters and its state dict as Python's ember.load reads them."""
    src, out = str(tmp_path / "in.ember"), str(tmp_path / "out.ember")
    ember.save({"optimizer": name, "options": float_options(options), "group1_lr": group1_lr,
                "params": [ember.from_numpy(np.array(p, copy=True)) for p in params],
                "grads": [[None if g is None else ember.from_numpy(g) for g in gs] for gs in grads],
                "state_dict": state_dict}, src)
    result = subprocess.run([TOOL, src, out], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return ember.load(out), ember.load(out + ".optim")


def assert_same_bits(a, b):
    a, b = a.detach().numpy(), b.detach().numpy()
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes(), np.max(np.abs(a - b))


def assert_same_state(a, b, where="state_dict"):
    """Two state dicts equal: keys in the same order, the same kinds, tensors bit for bit. A group's option may
    be an int on one side and the same float on the other: Python's defaults are ints (momentum=0), the C++
    options doubles (Note [option fields] in ember/optim/Optimizer.h)."""
    numbers = (int, float)
    if ("param_groups" in where and isinstance(a, numbers) and isinstance(b, numbers)
            and not isinstance(a, bool) and not isinstance(b, bool)):
        assert a == b, (where, a, b)
        return
    assert type(a) is type(b), (where, a, b)
    if isinstance(a, ember.Tensor):
        assert_same_bits(a, b)
    elif isinstance(a, dict):
        assert list(a) == list(b), (where, list(a), list(b))
        for k in a:
            assert_same_state(a[k], b[k], "{}[{!r}]".format(where, k))
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same_state(x, y, "{}[{}]".format(where, i))
    else:
        assert a == b, (where, a, b)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_python_state_continues_in_cpp(tmp_path, case, dtype):
    name, options, group1_lr, scheduler = case
    options = float_options(options)
    init, grads = make_data(dtype)
    params = leaves(init)
    opt = python_optimizer(name, options, group1_lr, params)
    if scheduler:  # adds "initial_lr" to the groups: keys that are not options travel too
        ember.optim.lr_scheduler.StepLR(opt, step_size=2)
    run_python(opt, params, grads[:SPLIT])
    saved = opt.state_dict()
    ember.save(saved, str(tmp_path / "python_state.ember"))
    cpp_params, cpp_state = run_cpp(tmp_path, name, options, group1_lr, [p.detach().numpy() for p in params],
                                    grads[SPLIT:], ember.load(str(tmp_path / "python_state.ember")))
    run_python(opt, params, grads[SPLIT:])
    for a, b in zip(cpp_params, params):
        assert_same_bits(a, b)
    assert_same_state(cpp_state, opt.state_dict())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_cpp_state_continues_in_python(tmp_path, case, dtype):
    name, options, group1_lr, _ = case
    options = float_options(options)
    init, grads = make_data(dtype)
    # The reference: Python alone, all steps.
    ref_params = leaves(init)
    ref = python_optimizer(name, options, group1_lr, ref_params)
    run_python(ref, ref_params, grads[:SPLIT])
    ref_mid_state = ref.state_dict()
    cpp_params, cpp_state = run_cpp(tmp_path, name, options, group1_lr, init, grads[:SPLIT], None)
    assert_same_state(cpp_state, ref_mid_state)
    # Python continues from the C++ state.
    params = [p.detach().clone().requires_grad_() for p in cpp_params]
    opt = python_optimizer(name, options, group1_lr, params)
    opt.load_state_dict(cpp_state)
    run_python(opt, params, grads[SPLIT:])
    run_python(ref, ref_params, grads[SPLIT:])
    for a, b in zip(params, ref_params):
        assert_same_bits(a, b)
    assert_same_state(opt.state_dict(), ref.state_dict())


def test_cpp_reports_a_state_dict_of_another_optimizer(tmp_path):
    init, grads = make_data("float32")
    params = leaves(init)
    opt = python_optimizer("SGD", dict(lr=0.1), 0.2, params)  # two groups
    src, out = str(tmp_path / "in.ember"), str(tmp_path / "out.ember")
    ember.save({"optimizer": "SGD", "options": {"lr": 0.1}, "group1_lr": None,
                "params": [p.detach() for p in params], "grads": [], "state_dict": opt.state_dict()}, src)
    result = subprocess.run([TOOL, src, out], capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert "loaded state dict has a different number of parameter groups" in result.stderr
