"""The main job's export step and C++ classifier (issues 6 and 7): train.py traces and saves the trained model
(ember.jit.save), writes the Python model's predictions and lists the library of the model's custom op
(fmnist::relu_max_pool2d) in custom_ops.txt; examples/cpp/classify_fashion_mnist loads that library
(--library) and the saved model with no Python and must predict the same class for every test image.

train.py runs as a user runs it, on a small subset of the real data (4 training steps on 512 images, 1,000
test images: a few seconds) — the weights need not be good, only the same on both sides. Skipped when Debian's
dataset-fashion-mnist is not installed or the C++ program is not built (`make` builds it into
build/examples/cpp; EMBER_BUILD_DIR names another build directory).
"""
import os
import re
import subprocess
import sys

import pytest

import ember

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "examples", "fashion_mnist", "train.py")
sys.path.insert(0, os.path.dirname(SCRIPT))
import train  # noqa: E402

BUILD = os.environ.get("EMBER_BUILD_DIR", os.path.join(ROOT, "build"))
CLASSIFY = os.path.join(BUILD, "examples", "cpp", "classify_fashion_mnist")

DATASET_MISSING = not all(os.path.exists(os.path.join(train.DATA_DIR, f)) for pair in train.FILES.values()
                          for f in pair)
needs_dataset = pytest.mark.skipif(DATASET_MISSING, reason=f"Fashion-MNIST is not installed in {train.DATA_DIR}")
needs_program = pytest.mark.skipif(not os.path.exists(CLASSIFY), reason=f"{CLASSIFY} is not built (run make)")

TEST_LIMIT = 1000


def run(cmd, timeout=600):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The directory of a short train.py run (Ember) with its export."""
    if DATASET_MISSING:
        pytest.skip("Fashion-MNIST is not installed")
    out = tmp_path_factory.mktemp("fashion_mnist")
    proc = run([sys.executable, SCRIPT, "--out", str(out), "--no-progress", "--limit", "512", "--test-limit",
                str(TEST_LIMIT), "--epochs", "1", "--seed", "1"])
    assert proc.returncode == 0, f"train.py failed:\n{proc.stdout}\n{proc.stderr}"
    return out, proc.stdout


def read_predictions(path):
    with open(path) as f:
        return [int(line) for line in f]


def library_args(out):
    """The classifier's --library arguments for the libraries the export listed in custom_ops.txt."""
    with open(out / "custom_ops.txt") as f:
        return [arg for line in f if line.strip() for arg in ("--library", line.rstrip("\n"))]


@needs_dataset
def test_export_writes_model_and_predictions(exported):
    out, stdout = exported
    assert f"its predictions equal the Python model's on {TEST_LIMIT} of {TEST_LIMIT} test images" in stdout, stdout
    predictions = read_predictions(out / "predictions_ember.txt")
    assert len(predictions) == TEST_LIMIT and all(0 <= p < 10 for p in predictions)
    # The file is a frozen ember.jit archive (BatchNorm folded into the convolutions, so no parameters and no
    # batch_norm node) whose forward gives the eager model's logits up to the rounding of the folded weights.
    model = train.build_model(ember.nn)
    model.load_state_dict(ember.load(str(out / "model_ember.pt")))
    model.eval()
    loaded = ember.jit.load(str(out / "model_ember_jit.pt"))
    x = ember.from_numpy(train.load_split("test", limit=8)[0])
    assert "batch_norm" not in str(loaded.graph) and len(list(loaded.parameters())) == 0
    with ember.no_grad():
        got, want = loaded(x), model(x)
    assert ((got - want).abs() <= 1e-5 + 1e-5 * want.abs()).all(), (got - want).abs().max()


@needs_dataset
def test_export_lists_the_custom_op_library(exported):
    """The model calls the fused custom op; the export lists its library next to the model (and prints it)."""
    out, stdout = exported
    args = library_args(out)
    assert len(args) == 2, args
    library = args[1]
    assert os.path.isabs(library) and os.path.isfile(library) and library.endswith("libfmnist.so"), library
    assert f"the model calls ops of 1 library {library}, listed in {out / 'custom_ops.txt'}" in stdout, stdout
    assert f"fused custom op fmnist::relu_max_pool2d ({library})" in stdout
    graph = str(ember.jit.load(str(out / "model_ember_jit.pt")).graph)
    assert graph.count("fmnist::relu_max_pool2d") == 2, graph


@needs_dataset
@needs_program
@pytest.mark.parametrize("batch_size, threads", [(1000, 2), (1000, 1)])
def test_cpp_predictions_equal_python(exported, tmp_path, batch_size, threads):
    out, _ = exported
    cpp = tmp_path / "cpp.txt"
    proc = run([CLASSIFY, "--model", str(out / "model_ember_jit.pt"), "--limit", str(TEST_LIMIT), "--batch-size",
                str(batch_size), "--threads", str(threads), "--predictions", str(cpp), *library_args(out)])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    python = read_predictions(out / "predictions_ember.txt")
    assert read_predictions(cpp) == python
    labels = train.load_split("test", limit=TEST_LIMIT)[1]
    accuracy = sum(int(p == t) for p, t in zip(python, labels)) / TEST_LIMIT
    m = re.search(r"(\d+) test images, accuracy (\d\.\d{4}) \((\d+) correct\)", proc.stdout)
    assert m, proc.stdout
    assert int(m.group(1)) == TEST_LIMIT and m.group(2) == f"{accuracy:.4f}", proc.stdout
    assert "images/s" in proc.stdout


@needs_dataset
@needs_program
def test_cpp_small_batches_agree(exported, tmp_path):
    """Other batch sizes (with a last, partial batch) give the same classes on these images."""
    out, _ = exported
    proc = run([CLASSIFY, "--model", str(out / "model_ember_jit.pt"), "--limit", "100", "--batch-size", "33",
                "--predictions", str(tmp_path / "cpp.txt"), *library_args(out)])
    assert proc.returncode == 0, proc.stderr
    assert read_predictions(tmp_path / "cpp.txt") == read_predictions(out / "predictions_ember.txt")[:100]


@needs_dataset
@needs_program
def test_cpp_without_library_names_it(exported, tmp_path):
    """Without --library, loading the model fails naming the op and its library, and says how to pass it."""
    out, _ = exported
    library = library_args(out)[1]
    proc = run([CLASSIFY, "--model", str(out / "model_ember_jit.pt"), "--limit", "10"])
    assert proc.returncode == 1, proc.stdout
    assert "fmnist::relu_max_pool2d" in proc.stderr and f"'{library}'" in proc.stderr, proc.stderr
    assert "custom_ops.txt" in proc.stderr and "--library PATH" in proc.stderr, proc.stderr
    # A library that does not exist is named too.
    proc = run([CLASSIFY, "--model", str(out / "model_ember_jit.pt"), "--library", str(tmp_path / "nope.so")])
    assert proc.returncode == 1 and str(tmp_path / "nope.so") in proc.stderr, proc.stderr


@needs_program
@pytest.mark.parametrize("args, message", [
    (["--model", "/nonexistent/model.pt"], "'/nonexistent/model.pt' does not exist"),
    (["--batch-size", "0"], "--batch-size must be at least 1"),
    (["--threads", "two"], "--threads expects an integer"),
    (["--frobnicate"], "unknown argument '--frobnicate'"),
    (["--model"], "--model needs a value"),
    (["--library"], "--library needs a value"),
])
def test_cpp_bad_arguments(args, message):
    proc = run([CLASSIFY, *args])
    assert proc.returncode != 0
    assert message in proc.stderr


@needs_program
def test_cpp_missing_data_and_bad_model(tmp_path):
    bad = tmp_path / "model.pt"
    bad.write_bytes(b"not a zip")
    proc = run([CLASSIFY, "--model", str(bad), "--data-dir", str(tmp_path)])
    assert proc.returncode == 1
    assert "t10k-images-idx3-ubyte.gz" in proc.stderr and "dataset-fashion-mnist" in proc.stderr
    if not DATASET_MISSING:
        proc = run([CLASSIFY, "--model", str(bad)])
        assert proc.returncode == 1 and str(bad) in proc.stderr and "classify_fashion_mnist:" in proc.stderr


@needs_program
def test_cpp_predictions_folder_is_checked_first(tmp_path):
    """A --predictions path in a missing folder (or a folder itself) fails before the model is even loaded: the
    model here does not exist and the error is about the predictions' folder, not the model."""
    missing = tmp_path / "no_such_folder" / "p.txt"
    proc = run([CLASSIFY, "--model", str(tmp_path / "absent.pt"), "--predictions", str(missing)])
    assert proc.returncode == 1
    assert f"the folder '{tmp_path / 'no_such_folder'}' does not exist" in proc.stderr, proc.stderr
    assert "absent.pt" not in proc.stderr
    proc = run([CLASSIFY, "--model", str(tmp_path / "absent.pt"), "--predictions", str(tmp_path)])
    assert proc.returncode == 1 and "is a directory" in proc.stderr, proc.stderr


def test_torch_export(tmp_path):
    """Under --framework torch the export is TorchScript (torch.jit.trace + freeze), with the same check."""
    if DATASET_MISSING:
        pytest.skip("Fashion-MNIST is not installed")
    proc = run([sys.executable, SCRIPT, "--framework", "torch", "--out", str(tmp_path), "--no-progress", "--limit",
                "256", "--test-limit", "200", "--epochs", "1"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "its predictions equal the Python model's on 200 of 200 test images" in proc.stdout
    import torch
    loaded = torch.jit.load(str(tmp_path / "model_torch_jit.pt"))
    assert loaded(torch.zeros(2, 1, 28, 28)).shape == (2, 10)
    assert len(read_predictions(tmp_path / "predictions_torch.txt")) == 200
    assert (tmp_path / "custom_ops.txt").read_text() == ""  # plain ops: no library
