"""End to end: examples/fashion_mnist/train.py (the main job) trains on a subset of the real Fashion-MNIST data.

The script runs in a subprocess, as a user runs it, on the first 6,000 training images for one epoch (47 steps,
a few seconds), and is tested on the first 2,000 test images: its accuracy must rise well above chance (0.1;
this recipe reaches about 0.8 there on both frameworks). The state dict it saves must load back into the same
model, and the plot must be a PNG. Skipped when Debian's dataset-fashion-mnist is not installed.
"""
import gzip
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
import train  # noqa: E402  (the example's IDX reader and model)

DATASET_MISSING = not all(os.path.exists(os.path.join(train.DATA_DIR, f)) for pair in train.FILES.values()
                          for f in pair)
needs_dataset = pytest.mark.skipif(DATASET_MISSING, reason=f"Fashion-MNIST is not installed in {train.DATA_DIR} "
                                   "(Debian package dataset-fashion-mnist; scripts/setup.sh installs it)")


def run_train(tmp_path, *args):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    proc = subprocess.run([sys.executable, SCRIPT, "--out", str(tmp_path), "--no-progress", *args],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, f"train.py failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


@needs_dataset
def test_train_subset_learns(tmp_path):
    out = run_train(tmp_path, "--framework", "ember", "--limit", "6000", "--test-limit", "2000", "--epochs", "1",
                    "--threads", "2", "--seed", "0")
    accuracies = [float(a) for a in re.findall(r"test accuracy (\d\.\d{4})", out)]
    assert len(accuracies) == 1, out
    assert accuracies[0] > 0.6, out
    assert "6000 training images, 2000 test images" in out
    # The saved state dict loads back, strictly, into the example's model.
    state = ember.load(str(tmp_path / "model_ember.pt"))
    model = train.build_model(ember.nn)
    model.load_state_dict(state)
    assert set(state) == set(model.state_dict())
    assert state["1.num_batches_tracked"].item() == 47  # one BatchNorm update per step: ceil(6000 / 128)
    with open(tmp_path / "training_ember.png", "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


@needs_dataset
def test_fused_op_trains_as_plain_ops(tmp_path):
    """The fused custom op (fmnist::relu_max_pool2d) gives the same training, loss for loss, as ReLU + max_pool2d
    written with plain ops (--plain-ops): its values and gradients are the plain ops', bit for bit."""
    args = ("--limit", "768", "--test-limit", "500", "--epochs", "1", "--batch-size", "128", "--no-export")
    fused = run_train(tmp_path / "fused", *args)
    plain = run_train(tmp_path / "plain", *args, "--plain-ops")
    assert "fused custom op fmnist::relu_max_pool2d" in fused and "ReLU + max pooling: plain ops" in plain
    result = re.compile(r"train loss (\S+),.*test accuracy (\S+)")
    assert result.findall(fused) == result.findall(plain) != [], (fused, plain)
    fused_state, plain_state = (ember.load(str(tmp_path / d / "model_ember.pt")) for d in ("fused", "plain"))
    assert all(ember.equal(fused_state[k], plain_state[k]) for k in fused_state)


def write_gz(path, data):
    with gzip.open(path, "wb") as f:
        f.write(data)


def idx_bytes(array):
    header = bytes([0, 0, 0x08, array.ndim]) + b"".join(int(s).to_bytes(4, "big") for s in array.shape)
    return header + array.astype(np.uint8).tobytes()


def test_read_idx(tmp_path):
    a = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
    write_gz(tmp_path / "ok.gz", idx_bytes(a))
    got = train.read_idx(tmp_path / "ok.gz")
    assert got.dtype == np.uint8 and got.shape == (2, 3, 4) and (got == a).all()


@pytest.mark.parametrize("data, message", [
    (b"\x01\x00\x08\x01\x00\x00\x00\x01\x00", "bad magic number"),
    (b"\x00\x00\x0d\x01\x00\x00\x00\x01\x00\x00\x00\x00", "is not unsigned byte"),
    (b"\x00\x00\x08\x01\x00\x00\x00\x05\x01\x02", r"shape \(5,\) \(5 bytes\) but the file has 2 data bytes"),
])
def test_read_idx_corrupt(tmp_path, data, message):
    path = tmp_path / "bad.gz"
    write_gz(path, data)
    with pytest.raises(ValueError, match=message) as info:
        train.read_idx(path)
    assert str(path) in str(info.value)


def test_missing_dataset_is_reported(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    proc = subprocess.run([sys.executable, SCRIPT, "--data-dir", str(tmp_path), "--out", str(tmp_path)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode != 0
    assert "train-images-idx3-ubyte.gz" in proc.stderr and "dataset-fashion-mnist" in proc.stderr
