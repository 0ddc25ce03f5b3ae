"""The main job trained from C++ (issue 8): examples/cpp/train_fashion_mnist trains train.py's CNN with Ember's C++
frontend and saves its state dict with ember::save; train.py --eval-state-dict loads that file into the Python
model (on Ember and on PyTorch) and must score the test accuracy the C++ program printed.

The C++ program runs as a user runs it, on a subset of the real data (100 training steps on 12,800 images,
2,000 test images: ten to twenty seconds). Skipped when Debian's dataset-fashion-mnist is not installed or the
program is not built (`make` builds it into build/examples/cpp; EMBER_BUILD_DIR names another build directory).
"""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import ember

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "examples", "fashion_mnist", "train.py")
sys.path.insert(0, os.path.dirname(SCRIPT))
import train  # noqa: E402

BUILD = os.environ.get("EMBER_BUILD_DIR", os.path.join(ROOT, "build"))
PROGRAM = os.path.join(BUILD, "examples", "cpp", "train_fashion_mnist")

DATASET_MISSING = not all(os.path.exists(os.path.join(train.DATA_DIR, f)) for pair in train.FILES.values()
                          for f in pair)
needs_dataset = pytest.mark.skipif(DATASET_MISSING, reason=f"Fashion-MNIST is not installed in {train.DATA_DIR}")
needs_program = pytest.mark.skipif(not os.path.exists(PROGRAM), reason=f"{PROGRAM} is not built (run make)")

LIMIT, TEST_LIMIT, BATCH = 12800, 2000, 128
EPOCH_LINE = re.compile(r"epoch (\d+): train loss (\d+\.\d{4}), .* images/s\), eval .* s, test accuracy (\d\.\d{4})")


def run(cmd, timeout=900):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """The output directory and stdout of a short C++ training run (1 epoch of 100 steps)."""
    if DATASET_MISSING or not os.path.exists(PROGRAM):
        pytest.skip("Fashion-MNIST or the C++ program is missing")
    out = tmp_path_factory.mktemp("cpp_train")
    proc = run([PROGRAM, "--out", str(out), "--limit", str(LIMIT), "--test-limit", str(TEST_LIMIT), "--epochs", "1",
                "--threads", "2"])
    assert proc.returncode == 0, f"train_fashion_mnist failed:\n{proc.stdout}\n{proc.stderr}"
    return out, proc.stdout


@needs_dataset
@needs_program
def test_cpp_training_learns_and_reports(trained):
    """One summary line per epoch (stdout is not a terminal: no progress updates), and the model learned."""
    out, stdout = trained
    assert f"{LIMIT} training images, {TEST_LIMIT} test images, 1 epoch of {LIMIT // BATCH} batches of {BATCH}" \
        in stdout, stdout
    assert "\r" not in stdout and len(stdout.splitlines()) <= 4, stdout
    m = EPOCH_LINE.search(stdout)
    assert m and m.group(1) == "1", stdout
    assert float(m.group(2)) < 1.2 and float(m.group(3)) > 0.7, stdout  # chance is 0.1 and loss 2.3
    assert f"saved the state dict to {out / 'model_cpp.pt'}" in stdout


@needs_dataset
@needs_program
def test_state_dict_has_the_python_models_keys(trained):
    out, _ = trained
    state = ember.load(str(out / "model_cpp.pt"))
    want = train.build_model(ember.nn, train.relu_max_pool2d_plain(ember)).state_dict()
    assert list(state.keys()) == list(want.keys())
    for name, value in want.items():
        assert state[name].shape == value.shape and state[name].dtype == value.dtype, name
    assert state["1.num_batches_tracked"].item() == LIMIT // BATCH  # BatchNorm counted every training step


@needs_dataset
@needs_program
@pytest.mark.parametrize("framework", ["ember", "torch"])
def test_python_evaluates_the_cpp_state_dict(trained, framework):
    """train.py --eval-state-dict scores the C++ model's state dict: on Ember exactly the C++ accuracy (the same
    kernels on bit-identical inputs), on PyTorch the same up to the rounding of other kernels (a few images whose
    top two logits are nearly tied)."""
    out, stdout = trained
    cpp_accuracy = float(EPOCH_LINE.search(stdout).group(3))
    path = out / "model_cpp.pt"
    proc = run([sys.executable, SCRIPT, "--framework", framework, "--eval-state-dict", str(path), "--test-limit",
                str(TEST_LIMIT)])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    m = re.search(rf"{re.escape(str(path))}: test accuracy (\d\.\d{{4}}) on {TEST_LIMIT} test images \({framework} ",
                  proc.stdout)
    assert m, proc.stdout
    tolerance = 0 if framework == "ember" else 3 / TEST_LIMIT
    assert abs(float(m.group(1)) - cpp_accuracy) <= tolerance + 1e-9, (m.group(1), cpp_accuracy)


@needs_dataset
@needs_program
@pytest.mark.parametrize("seed", [0, 3])
def test_initial_weights_equal_python(tmp_path, seed):
    """--init-only saves the freshly initialised model: under the same seed, train.py's model (built by Ember's
    Python layers, and by PyTorch's) starts from the same values."""
    proc = run([PROGRAM, "--init-only", "--seed", str(seed), "--out", str(tmp_path)])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    state = ember.load(str(tmp_path / "model_cpp.pt"))
    ember.manual_seed(seed)
    python = train.build_model(ember.nn, train.relu_max_pool2d_plain(ember)).state_dict()
    import torch
    torch.manual_seed(seed)
    reference = train.build_model(torch.nn, train.relu_max_pool2d_plain(torch)).state_dict()
    assert list(state.keys()) == list(python.keys()) == list(reference.keys())
    for name in python:
        assert np.array_equal(state[name].numpy(), python[name].numpy()), name
        np.testing.assert_allclose(state[name].numpy(), reference[name].numpy(), rtol=1e-6, atol=1e-7,
                                   err_msg=name)


@needs_dataset
@needs_program
def test_progress_line_on_a_terminal(tmp_path):
    """On a terminal the progress is one line per epoch rewritten in place (carriage returns, no newline per
    step), showing the step, the loss and images/s."""
    import pty
    leader, follower = pty.openpty()
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    proc = subprocess.Popen([PROGRAM, "--out", str(tmp_path), "--limit", "1280", "--test-limit", "100", "--epochs",
                             "2", "--threads", "1"], stdout=follower, stderr=subprocess.PIPE, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 4096)
        except OSError:  # the follower side closed: the program ended
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    assert proc.wait(timeout=300) == 0, proc.stderr.read()
    text = b"".join(chunks).decode().replace("\r\n", "\n")
    lines = text.split("\n")
    progress = [line for line in lines if "\r" in line]
    assert len(progress) == 2, text  # one rewritten line per epoch
    for epoch, line in enumerate(progress, 1):
        last = line.split("\r")[-1]
        assert re.fullmatch(rf"epoch {epoch}/2  step 10/10  loss \d+\.\d{{4}}  \d+ images/s ", last), repr(last)
    assert len(lines) <= 7, text


@needs_program
@pytest.mark.parametrize("args, message", [
    (["--epochs", "0"], "--epochs must be at least 1"),
    (["--threads", "two"], "--threads expects an integer"),
    (["--batch-size"], "--batch-size needs a value"),
    (["--frobnicate"], "unknown argument '--frobnicate'"),
    (["--no-progress=1"], "--no-progress takes no value, got '1'"),
    (["--init-only=no"], "--init-only takes no value, got 'no'"),
])
def test_bad_arguments(args, message):
    proc = run([PROGRAM, *args])
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr


@needs_program
def test_missing_data_names_the_file(tmp_path):
    proc = run([PROGRAM, "--data-dir", str(tmp_path), "--out", str(tmp_path)])
    assert proc.returncode == 1
    assert "t10k-images-idx3-ubyte.gz" in proc.stderr and "dataset-fashion-mnist" in proc.stderr, proc.stderr


@pytest.mark.parametrize("make, message", [
    (None, "no such file"),
    (lambda path: ember.save(ember.ones(2), path), "holds a Tensor, not a state dict"),
    (lambda path: ember.save({"fc.weight": ember.ones(2)}, path), "Error(s) in loading state_dict"),
    (lambda path: open(path, "wb").write(b"not an archive"), ""),
])
def test_eval_state_dict_with_a_bad_file_is_one_error_line(tmp_path, make, message):
    """--eval-state-dict with a missing file, or one that holds no state dict of the model: one clear line on
    stderr naming the file, exit status 1, no traceback."""
    path = tmp_path / "state.ember"
    if make is not None:
        make(str(path))
    proc = run([sys.executable, SCRIPT, "--eval-state-dict", str(path), "--test-limit", "10"], timeout=300)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert lines[0].startswith(f"train.py: --eval-state-dict {path}: ") and message in lines[0], lines[0]
