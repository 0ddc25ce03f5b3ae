"""State dicts cross between Python's ember.nn and C++'s ember::nn (issue 8): a state dict saved from Python
with ember.save(model.state_dict(), path) loads into the same architecture built in C++, whose forward then
equals Python's, and C++'s ember::save(model, path) writes a state dict that Python's ember.load reads as an
OrderedDict and load_state_dict accepts. The C++ side is tests/nn/roundtrip/state_dict_roundtrip.cpp, built as
build/tests/nn_state_dict_roundtrip (EMBER_BUILD_DIR names another build directory); without it the tests are
skipped.
"""
import collections
import os
import subprocess

import pytest

import ember
import ember.nn as nn

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("EMBER_BUILD_DIR", os.path.join(ROOT, "build"))
PROGRAM = os.path.join(BUILD, "tests", "nn_state_dict_roundtrip")
pytestmark = pytest.mark.skipif(not os.path.exists(PROGRAM), reason=f"{PROGRAM} is not built (run make)")

KEYS = ["calls", "emb.weight", "body.1.weight", "body.1.bias", "body.3.weight", "body.3.bias"]


class Net(nn.Module):
    """The C++ program's Net: indices (N, 2) -> Embedding -> Flatten -> Linear -> Dropout -> Linear -> (N, 3)."""

    def __init__(self, hidden=5):
        super().__init__()
        self.emb = nn.Embedding(6, 4, padding_idx=0)
        self.body = nn.Sequential(nn.Flatten(), nn.Linear(8, hidden), nn.Dropout(0.2), nn.Linear(hidden, 3))
        self.register_buffer("calls", ember.zeros((), dtype=ember.int64))

    def forward(self, indices):
        return self.body(self.emb(indices))


def run_program(*args):
    proc = subprocess.run([PROGRAM, *map(str, args)], capture_output=True, text=True, timeout=60)
    return proc


def write_input(tmp_path):
    path = tmp_path / "input.ember"
    indices = ember.tensor([[0, 1], [2, 5], [4, 4]])
    ember.save(indices, str(path))
    return path, indices


def assert_same_state(a, b):
    assert list(a.keys()) == list(b.keys())
    for k in a:
        assert a[k].dtype == b[k].dtype, k
        assert ember.equal(a[k], b[k]), k


def test_python_state_dict_loads_into_cpp_model(tmp_path):
    ember.manual_seed(3)
    net = Net().eval()
    with ember.no_grad():
        net.calls.fill_(7)
        net.emb.weight[3].fill_(0.25)
    state_path = tmp_path / "py_state.ember"
    ember.save(net.state_dict(), str(state_path))
    input_path, indices = write_input(tmp_path)
    proc = run_program("load", state_path, input_path, tmp_path)
    assert proc.returncode == 0, proc.stderr

    with ember.no_grad():
        expected = net(indices)
    output = ember.load(str(tmp_path / "output.ember"))
    assert output.shape == (3, 3) and output.dtype == ember.float32
    assert ember.allclose(output, expected, rtol=1e-6, atol=1e-6)

    # What C++ saves back is the very state dict Python wrote.
    cpp_state = ember.load(str(tmp_path / "state.ember"))
    assert list(cpp_state.keys()) == KEYS
    assert_same_state(cpp_state, net.state_dict())


def test_cpp_state_dict_loads_into_python_model(tmp_path):
    input_path, indices = write_input(tmp_path)
    proc = run_program("init", 11, input_path, tmp_path)
    assert proc.returncode == 0, proc.stderr

    state = ember.load(str(tmp_path / "state.ember"))
    assert isinstance(state, collections.OrderedDict)
    assert list(state.keys()) == KEYS
    assert all(not t.requires_grad for t in state.values())

    # The C++ model was initialised under ember::manual_seed(11): the same values as Python's layers.
    ember.manual_seed(11)
    assert_same_state(state, Net().state_dict())

    net = Net()
    result = net.load_state_dict(state)
    assert result.missing_keys == [] and result.unexpected_keys == []
    net.eval()
    with ember.no_grad():
        expected = net(indices)
    assert ember.allclose(ember.load(str(tmp_path / "output.ember")), expected, rtol=1e-6, atol=1e-6)


def test_cpp_reports_a_python_state_dict_of_another_shape(tmp_path):
    state_path = tmp_path / "wide.ember"
    ember.save(Net(hidden=7).state_dict(), str(state_path))
    input_path, _ = write_input(tmp_path)
    proc = run_program("load", state_path, input_path, tmp_path)
    assert proc.returncode == 1
    assert "Error(s) in loading state_dict for Net" in proc.stderr
    assert ("size mismatch for body.1.weight: copying a param with shape [7, 8] from checkpoint, the shape in "
            "current model is [5, 8].") in proc.stderr
    assert "size mismatch for body.3.weight" in proc.stderr


def test_cpp_reports_missing_and_unexpected_keys(tmp_path):
    state = Net().state_dict()
    del state["calls"]
    state["body.9.weight"] = ember.ones(2)
    state_path = tmp_path / "renamed.ember"
    ember.save(state, str(state_path))
    input_path, _ = write_input(tmp_path)
    proc = run_program("load", state_path, input_path, tmp_path)
    assert proc.returncode == 1
    assert 'Missing key(s) in state_dict: "calls".' in proc.stderr
    assert 'Unexpected key(s) in state_dict: "body.9.weight".' in proc.stderr


def test_plain_dict_from_python_loads_too(tmp_path):
    ember.manual_seed(2)
    net = Net()
    state_path = tmp_path / "plain.ember"
    ember.save(dict(net.state_dict()), str(state_path))
    input_path, _ = write_input(tmp_path)
    proc = run_program("load", state_path, input_path, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert_same_state(ember.load(str(tmp_path / "state.ember")), net.state_dict())
