"""C++ -> Python: what a C++ program writes with ember::save(tensor) and ember::save(std::vector<Tensor>) loads in
Python with ember.load as the same tensor / list of tensors (the reverse direction is tests/api/save_load_test.cpp,
reading files Python wrote). The C++ side is the gtest CppWritesForPython.Files of build/tests/ember_api_tests,
run here with EMBER_API_SAVE_DIR set; skipped when that program is not built (`make`; EMBER_BUILD_DIR names
another build directory).
"""
import os
import subprocess

import pytest
import torch

import ember

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("EMBER_BUILD_DIR", os.path.join(ROOT, "build"))
PROGRAM = os.path.join(BUILD, "tests", "ember_api_tests")


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    if not os.path.exists(PROGRAM):
        pytest.skip(f"{PROGRAM} is not built (run make)")
    out = tmp_path_factory.mktemp("cpp_save")
    env = dict(os.environ, EMBER_API_SAVE_DIR=str(out))
    r = subprocess.run([PROGRAM, "--gtest_filter=CppWritesForPython.*"], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return out


def test_tensor_written_by_cpp(written):
    w = ember.load(str(written / "cpp_tensor.ember"))
    assert isinstance(w, ember.Tensor)
    assert w.dtype == ember.float32 and w.requires_grad and w.is_leaf
    expected = torch.arange(6, dtype=torch.float32).reshape(2, 3).mul(0.5)
    assert torch.equal(torch.from_numpy(w.detach().numpy()), expected)


def test_list_written_by_cpp(written):
    items = ember.load(str(written / "cpp_list.ember"))
    assert isinstance(items, list) and len(items) == 3
    base = torch.arange(8).reshape(2, 4)
    assert items[0].dtype == ember.int64 and items[0].tolist() == base.tolist()
    assert items[1].shape == (2, 2) and items[1].stride() == base[:, 1:3].stride()
    assert items[1].tolist() == base[:, 1:3].tolist()
    items[1][0, 0] = 100  # the view loads sharing the first tensor's storage, as it was saved
    assert items[0][0, 1].item() == 100
    assert items[2].dim() == 0 and items[2].dtype == ember.float64 and items[2].item() == -3.5
    assert not items[0].requires_grad


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    program = os.path.join(BUILD, "tests", "ember_nn_tests")
    if not os.path.exists(program):
        pytest.skip(f"{program} is not built (run make)")
    out = tmp_path_factory.mktemp("cpp_checkpoint")
    env = dict(os.environ, EMBER_API_SAVE_DIR=str(out))
    r = subprocess.run([program, "--gtest_filter=CppWritesCheckpointForPython.*"], capture_output=True, text=True,
                       env=env, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return ember.load(str(out / "cpp_checkpoint.ember"))


def test_checkpoint_archive_written_by_cpp(checkpoint):
    # serialize::OutputArchive: a dict of the written keys in order; a nested archive is a nested dict, and
    # Module::save writes the state dict's entries, which load into the same Python model.
    assert isinstance(checkpoint, dict)
    assert list(checkpoint) == ["epoch", "model", "weight", "bias"]
    assert checkpoint["epoch"].item() == 3 and checkpoint["epoch"].dtype == ember.int64
    assert list(checkpoint["model"]) == ["weight", "bias"]
    fc = ember.nn.Linear(3, 2)
    fc.load_state_dict(checkpoint["model"])
    assert fc.weight.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and fc.bias.tolist() == [-1.0, 1.0]
    assert ember.equal(checkpoint["weight"], fc.weight.detach())
