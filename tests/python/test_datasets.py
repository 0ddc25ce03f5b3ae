"""ember.datasets: read_idx against NumPy's reading of the same bytes (every IDX dtype, plain and gzip, and the
real Fashion-MNIST files), MNIST/FashionMNIST as torchvision's (len, getitem, transforms, attributes), and the
errors for missing, corrupt and mismatched files."""
import gzip
import os
import pathlib

import numpy as np
import pytest

import ember
from ember.datasets import MNIST, FashionMNIST, read_idx

FASHION = "/usr/share/datasets/fashion-mnist"
FILES = ["train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz",
         "t10k-labels-idx1-ubyte.gz"]
needs_fashion = pytest.mark.skipif(
    not all(os.path.exists(os.path.join(FASHION, f)) for f in FILES),
    reason=f"Fashion-MNIST is not installed in {FASHION} (apt-get install dataset-fashion-mnist)")

# IDX type code -> (NumPy big-endian dtype, ember dtype)
CODES = {0x08: (">u1", ember.uint8), 0x09: (">i1", ember.int8), 0x0B: (">i2", ember.int16),
         0x0C: (">i4", ember.int32), 0x0D: (">f4", ember.float32), 0x0E: (">f8", ember.float64)}


def idx_bytes(array, code):
    """An IDX file holding `array` with type code `code`."""
    header = bytes([0, 0, code, array.ndim]) + np.array(array.shape, dtype=">u4").tobytes()
    return header + np.ascontiguousarray(array, dtype=CODES[code][0]).tobytes()


def numpy_idx(path):
    """The reference reader: NumPy over the (gunzipped) bytes."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    assert raw[:2] == b"\0\0"
    ndim = raw[3]
    shape = tuple(int(d) for d in np.frombuffer(raw, ">u4", ndim, 4))
    return np.frombuffer(raw, CODES[raw[2]][0], offset=4 + 4 * ndim).reshape(shape)


def write(path, data, compress):
    path = str(path) + (".gz" if compress else "")
    with (gzip.open if compress else open)(path, "wb") as f:
        f.write(data)
    return path


def same(tensor, array):
    """Identical values (bit for bit, so NaN and -0.0 count), dtype and shape."""
    got = tensor.numpy()
    assert got.dtype == array.dtype.newbyteorder("=")
    assert got.shape == array.shape
    assert got.tobytes() == array.astype(got.dtype).tobytes()


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gz"])
@pytest.mark.parametrize("code", sorted(CODES), ids=lambda c: CODES[c][0][1:])
def test_read_idx_dtypes(tmp_path, code, compress):
    rng = np.random.default_rng(code)
    kind = np.dtype(CODES[code][0])
    if kind.kind == "f":
        a = rng.standard_normal((3, 4, 5)).astype(kind)
        a.flat[:4] = [np.nan, np.inf, -np.inf, -0.0]
    else:
        info = np.iinfo(kind)
        a = rng.integers(info.min, info.max, (3, 4, 5), endpoint=True).astype(kind)
        a.flat[:2] = [info.min, info.max]
    path = write(tmp_path / "a.idx", idx_bytes(a, code), compress)
    t = read_idx(path)
    assert t.dtype == CODES[code][1]
    assert t.is_contiguous()
    same(t, a)
    same(read_idx(pathlib.Path(path)), a)  # os.PathLike


@pytest.mark.parametrize("shape", [(), (0,), (7,), (0, 28, 28), (2, 1, 3, 1)])
def test_read_idx_shapes(tmp_path, shape):
    a = np.arange(int(np.prod(shape)), dtype=">i4").reshape(shape)
    t = read_idx(write(tmp_path / "s.idx", idx_bytes(a, 0x0C), True))
    assert tuple(t.shape) == shape
    same(t, a)


def corrupt_cases():
    good = idx_bytes(np.arange(12, dtype=np.uint8).reshape(3, 4), 0x08)
    return {
        "empty file": (b"", "truncated header: expected 4 bytes of magic number, got 0"),
        "truncated header": (good[:10], "truncated header: 2 dimensions need 8 bytes, got 6"),
        "truncated data": (good[:-5], "truncated data: dimensions [3, 4] of uint8 need 12 bytes, got 7"),
        "trailing garbage": (good + b"xyz", "3 bytes of trailing data after the 12 bytes"),
        "bad magic": (b"\x01" + good[1:], "bad magic number 0x01000802"),
        "unknown type": (good[:2] + b"\x0a" + good[3:], "unknown type code 0x0A"),
        "overflow": (bytes([0, 0, 0x0E, 3]) + b"\xff" * 12, "overflow the size of a tensor"),
        "absurd dims": (bytes([0, 0, 8, 3]) + np.array([65536] * 3, ">u4").tobytes() + b"\0" * 100,
                        "need 281474976710656 bytes"),
    }


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gz"])
@pytest.mark.parametrize("case", list(corrupt_cases()))
def test_read_idx_errors(tmp_path, case, compress):
    data, message = corrupt_cases()[case]
    path = write(tmp_path / "bad.idx", data, compress)
    with pytest.raises(RuntimeError) as e:
        read_idx(path)
    assert f"'{path}'" in str(e.value)
    assert message in str(e.value)


def test_read_idx_gzip_errors(tmp_path):
    a = (np.arange(30000) % 7).astype(np.uint8)
    z = gzip.compress(idx_bytes(a, 0x08))
    bad = bytearray(z)
    bad[len(z) // 2] ^= 0x5A
    path = write(tmp_path / "corrupt.gz", bytes(bad), False)
    with pytest.raises(RuntimeError, match=r"corrupt\.gz': corrupt gzip stream"):
        read_idx(path)
    path = write(tmp_path / "cut.gz", z[: len(z) // 2], False)
    with pytest.raises(RuntimeError, match=r"truncated data: .* \(the gzip stream ends early\)"):
        read_idx(path)
    missing = str(tmp_path / "missing.idx")
    with pytest.raises(RuntimeError, match=f"read_idx: cannot open '{missing}': No such file or directory"):
        read_idx(missing)
    with pytest.raises(RuntimeError, match="Is a directory"):
        read_idx(tmp_path)


# What may follow a gzip stream (Note [gzip members] in ember/data/Idx.cpp): Python's gzip module is the
# reference for which files are valid gzip, NumPy for the values.
@pytest.mark.parametrize("tail", [b"", b"junk", b"\0\0\0", b"\0\0x", b"\x1f", b"\x1f\x8b", b"\n",
                                  gzip.compress(b""), gzip.compress(b"") + b"\0" + gzip.compress(b""),
                                  gzip.compress(b"") + b"junk", b"\0" * 70000 + b"!"],
                         ids=["none", "junk", "zeros", "zeros-junk", "half-magic", "magic-only", "newline",
                              "empty-member", "members-padded", "member-junk", "long-padding-junk"])
def test_read_idx_after_the_gzip_stream(tmp_path, tail):
    a = np.arange(12, dtype=np.int16).reshape(3, 4) * 1000
    data = gzip.compress(idx_bytes(a, 0x0B)) + tail
    path = write(tmp_path / "t.idx.gz", data, False)
    try:
        gzip.decompress(data)
    except (OSError, EOFError):  # BadGzipFile is an OSError
        with pytest.raises(RuntimeError) as e:
            read_idx(path)
        assert f"'{path}'" in str(e.value)
        assert "trailing garbage after the end of the gzip stream" in str(e.value) or "ends early" in str(e.value)
        return
    same(read_idx(path), a)


@pytest.mark.parametrize("cuts", [[1], [7], [20, 21], [5, 10, 15, 28]])
def test_read_idx_concatenated_gzip_members(tmp_path, cuts):
    a = np.arange(6, dtype=np.float64).reshape(2, 3) - 2.5
    raw = idx_bytes(a, 0x0E)
    bounds = [0] + cuts + [len(raw)]
    data = b"".join(gzip.compress(raw[i:j]) for i, j in zip(bounds, bounds[1:]))
    assert gzip.decompress(data) == raw  # valid gzip, as gzip -d reads it
    same(read_idx(write(tmp_path / "m.idx.gz", data, False)), a)
    # Values beyond the header's in a later member are trailing data, not ignored.
    with pytest.raises(RuntimeError, match="8 bytes of trailing data after the 48 bytes"):
        read_idx(write(tmp_path / "x.idx.gz", data + gzip.compress(bytes(8)), False))


@needs_fashion
@pytest.mark.parametrize("name", FILES)
def test_read_idx_fashion_mnist_files(name):
    path = os.path.join(FASHION, name)
    same(read_idx(path), numpy_idx(path))


def fake_mnist(folder, n_images, n_labels, compress, prefix="train"):
    """A small MNIST-layout data set in `folder`; returns (images, labels) as NumPy arrays."""
    rng = np.random.default_rng(n_images)
    images = rng.integers(0, 256, (n_images, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, n_labels, dtype=np.uint8)
    os.makedirs(folder, exist_ok=True)
    write(os.path.join(folder, f"{prefix}-images-idx3-ubyte"), idx_bytes(images, 0x08), compress)
    write(os.path.join(folder, f"{prefix}-labels-idx1-ubyte"), idx_bytes(labels, 0x08), compress)
    return images, labels


def check_dataset(ds, images, labels):
    assert len(ds) == len(images)
    assert ds.data.dtype == ember.uint8 and tuple(ds.data.shape) == images.shape
    assert ds.targets.dtype == ember.int64
    same(ds.data, images)
    same(ds.targets, labels.astype(np.int64))
    for i in [0, len(images) // 2, len(images) - 1, -1]:
        image, target = ds[i]
        assert image.dtype == ember.float32 and tuple(image.shape) == (1, 28, 28)
        # What torchvision's ToTensor makes of the PIL image: float32 pixel / 255.
        same(image, (images[i].astype(np.float32) / np.float32(255))[None])
        assert type(target) is int and target == labels[i]


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gz"])
def test_mnist_folder(tmp_path, compress):
    images, labels = fake_mnist(tmp_path, 5, 5, compress)
    test_images, test_labels = fake_mnist(tmp_path, 3, 3, compress, prefix="t10k")
    check_dataset(MNIST(tmp_path), images, labels)
    check_dataset(MNIST(str(tmp_path), train=False), test_images, test_labels)
    assert MNIST.classes[3] == "3 - three"


def test_mnist_torchvision_layout(tmp_path):
    images, labels = fake_mnist(tmp_path / "MNIST" / "raw", 4, 4, False)
    check_dataset(MNIST(tmp_path), images, labels)


def test_transforms(tmp_path):
    images, labels = fake_mnist(tmp_path, 4, 4, True)
    seen = []
    ds = MNIST(tmp_path, transform=lambda x: (seen.append(x.shape), (x - 0.5) / 0.25)[1],
               target_transform=lambda y: ("label", y))
    image, target = ds[2]
    assert seen == [ember.Size([1, 28, 28])]
    same(image, ((images[2].astype(np.float32) / np.float32(255) - np.float32(0.5)) / np.float32(0.25))[None])
    assert target == ("label", int(labels[2]))
    assert "Transform:" in repr(ds) and "Number of datapoints: 4" in repr(ds)


def test_mnist_errors(tmp_path):
    with pytest.raises(ValueError, match="root is required"):
        MNIST()
    with pytest.raises(RuntimeError, match=r"MNIST: dataset file train-images-idx3-ubyte\[\.gz\] not found"):
        MNIST(tmp_path)
    fake_mnist(tmp_path, 5, 4, True)
    with pytest.raises(RuntimeError, match="5 images in .*train-images-idx3-ubyte.gz but 4 labels in"):
        MNIST(tmp_path)
    with pytest.raises(RuntimeError, match="FashionMNIST: dataset file t10k-images-idx3-ubyte.*"
                                           "apt-get install dataset-fashion-mnist"):
        FashionMNIST(tmp_path, train=False)
    # Labels where images belong.
    write(tmp_path / "train-images-idx3-ubyte", idx_bytes(np.zeros(4, np.uint8), 0x08), False)
    with pytest.raises(RuntimeError, match=r"expected uint8 images of shape \(N, H, W\), got ember.uint8 of shape"):
        MNIST(tmp_path)
    # A corrupt file: read_idx's error, naming it.
    write(tmp_path / "train-images-idx3-ubyte", b"\0\0\x08\x03junk", False)
    with pytest.raises(RuntimeError, match="train-images-idx3-ubyte': truncated header"):
        MNIST(tmp_path)


@needs_fashion
@pytest.mark.parametrize("train", [True, False], ids=["train", "test"])
def test_fashion_mnist(train):
    prefix = "train" if train else "t10k"
    images = numpy_idx(os.path.join(FASHION, f"{prefix}-images-idx3-ubyte.gz"))
    labels = numpy_idx(os.path.join(FASHION, f"{prefix}-labels-idx1-ubyte.gz"))
    ds = FashionMNIST(train=train)
    assert ds.root == FASHION
    check_dataset(ds, images, labels)
    assert len(ds) == (60000 if train else 10000)
    assert np.bincount(ds.targets.numpy()).tolist() == [len(ds) // 10] * 10
    assert ds.classes == ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker",
                          "Bag", "Ankle boot"]
    assert ds.class_to_idx["Ankle boot"] == 9
    assert ds.classes[ds[0][1]] == "Ankle boot"  # the first image of both splits


def test_datasets_reachable_by_attribute_after_import_ember():
    # `import ember as torch` then attribute access, the supported style: ember.datasets loads on first use.
    import subprocess
    import sys

    code = "import ember, sys; assert 'ember.datasets' not in sys.modules; print(ember.datasets.MNIST.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"PYTHONPATH": os.path.join(os.path.dirname(__file__), "..", "..", "python")})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "MNIST"
    with pytest.raises(AttributeError, match="no attribute 'not_a_module'"):
        ember.not_a_module
