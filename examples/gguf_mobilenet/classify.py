#!/usr/bin/python3
"""A real GGUF file run by Ember: the MobileNetV3-Small 3-class image classifier of npm's
@qvac/classification-ggml 0.26.3, loaded with `ember.utils.gguf` into an `ember.nn` model and run on the six test
images the package ships.

    scripts/fetch_npm_data.sh       # once (scripts/setup.sh and so `make test` run it): the file and the images
    PYTHONPATH=python /usr/bin/python3 examples/gguf_mobilenet/classify.py [--framework ember|torch]
        [--data DIR] [--list-tensors] [--threads N] [IMAGE ...]

The file (weights/mobilenetv3_3class_v3_fp16.gguf, 3.1 MB, GGUF version 3) holds a fine-tuned
torchvision-style MobileNetV3-Small (Howard et al., "Searching for MobileNetV3", arXiv:1905.02244, 2019) in FP16:
- metadata: `mobilenet.class_0..2` = food, report, other (the label order), `mobilenet.mean_r/g/b` and
  `mobilenet.std_r/g/b` (ImageNet's mean and std), `mobilenet.image_size` = 224, `mobilenet.bn_eps` = 0.001;
- 244 tensors under torchvision's own state-dict names (`features.0.0.weight`, `features.1.block.1.fc1.bias`,
  `classifier.3.weight`, ...): conv, BatchNorm (with running stats; `num_batches_tracked` as an F32 scalar) and
  linear weights. No renaming is needed: `mobilenet_v3_small` below builds the modules under the same names, so
  `load_state_dict(strict=True)` takes the file's tensors as they are (FP16 copied into float32 parameters, the
  F32 `num_batches_tracked` into the int64 buffer). `--list-tensors` prints every name, GGML type and shape.

Preprocessing follows the package's C++ (addon/src/model-interface/ImagePreprocessor.cpp): decode to 8-bit RGB
(here with Pillow, Debian's python3-pil, which python3-matplotlib depends on; the package uses stb_image, so a few
pixel values can differ by one step), resize the whole image to 224x224 without keeping the aspect ratio with
stb_image_resize2's `stbir_resize_uint8_linear` -- the package's README calls it bilinear, but stb's default
filters are Mitchell-Netravali (B = C = 1/3) when shrinking and Catmull-Rom when enlarging, reproduced by
`resize_like_stb` below --, then scale to [0, 1] and normalise with the mean and std of the file's metadata.
The output is softmax probabilities over the three classes, as the package returns them.

The images are named by class (meal_* = food, report_*, other_*); the script prints each image's probabilities
and top class, and the accuracy over the named images. `--framework torch` builds the same model code on PyTorch
(the weights handed over as NumPy arrays) for comparison; tests/python/test_gguf_mobilenet.py checks that the two
give the same logits.
"""
import argparse
import functools
import os
import subprocess
import sys
import time

import numpy as np

PACKAGE = "qvac-classification-ggml-0.26.3"
WEIGHTS = "weights/mobilenetv3_3class_v3_fp16.gguf"
# The images' file-name prefixes and the class each one names.
PREFIX_CLASS = {"meal": "food", "report": "report", "other": "other"}
HERE = os.path.dirname(os.path.abspath(__file__))


# ---------------------------------------------------------------------------------------------- the files
def data_dir():
    """The folder scripts/fetch_npm_data.sh unpacks the package into ($EMBER_DATA_DIR or ~/.cache/ember-data,
    subfolder qvac-classification-ggml-0.26.3), or None when the files are not there (nothing is fetched)."""
    cache = os.environ.get("EMBER_DATA_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "ember-data")
    folder = os.path.join(cache, PACKAGE)
    return folder if os.path.isfile(os.path.join(folder, WEIGHTS)) else None


def fetch():
    """Runs scripts/fetch_npm_data.sh and returns the folder it printed; raises FileNotFoundError saying why when
    the files cannot be fetched."""
    script = os.path.join(HERE, "..", "..", "scripts", "fetch_npm_data.sh")
    done = subprocess.run([script], capture_output=True, text=True)
    if done.returncode != 0:
        raise FileNotFoundError(f"{PACKAGE} is not cached and could not be fetched from the npm registry:\n"
                                f"{done.stderr.strip()}")
    return done.stdout.strip().splitlines()[-1]


def expected_class(path):
    """The class an image's file name announces (`meal_1.jpg` -> 'food'), or None."""
    prefix = os.path.basename(path).split("_", 1)[0]
    return PREFIX_CLASS.get(prefix)


# ---------------------------------------------------------------------------------------------- preprocessing
def _mitchell(x):
    """Mitchell-Netravali cubic with B = C = 1/3 (Mitchell & Netravali, "Reconstruction filters in computer
    graphics", SIGGRAPH 1988); support [-2, 2]."""
    x = np.abs(x)
    return np.where(x < 1, (16 + x * x * (21 * x - 36)) / 18,
                    np.where(x < 2, (32 + x * (-60 + x * (36 - 7 * x))) / 18, 0.0))


def _catmull_rom(x):
    """Catmull-Rom cubic (B = 0, C = 1/2); support [-2, 2]."""
    x = np.abs(x)
    return np.where(x < 1, 1 + x * x * (1.5 * x - 2.5), np.where(x < 2, 2 + x * (-4 + x * (2.5 - 0.5 * x)), 0.0))


def _resize_matrix(n_in, n_out):
    """(n_out, n_in) weights of a 1-D resize as stb_image_resize2 makes it by default: pixel i covers [i, i + 1];
    output pixel o samples the input at (o + 1/2) * n_in / n_out; Mitchell when shrinking (stretched by
    n_in / n_out, so it also averages away what the smaller grid cannot hold), Catmull-Rom when enlarging;
    samples past an edge take the edge pixel (clamp); each row's weights sum to 1."""
    scale = n_out / n_in
    kernel, stretch = (_mitchell, scale) if scale < 1 else (_catmull_rom, 1.0)
    radius = 2 / stretch
    centers = (np.arange(n_out) + 0.5) / scale
    taps = np.arange(-int(np.ceil(radius)) - 1, int(np.ceil(radius)) + 2)
    first = np.floor(centers).astype(np.int64)[:, None] + taps[None, :]  # (n_out, taps) input pixel indices
    weights = kernel((first + 0.5 - centers[:, None]) * stretch)
    weights /= weights.sum(axis=1, keepdims=True)
    matrix = np.zeros((n_out, n_in))
    np.add.at(matrix, (np.repeat(np.arange(n_out), len(taps)), np.clip(first, 0, n_in - 1).ravel()),
              weights.ravel())
    return matrix


def resize_like_stb(rgb, size):
    """An (H, W, 3) uint8 image resized to (size, size, 3) uint8 as stbir_resize_uint8_linear does by default:
    separable (see _resize_matrix), in linear [0, 1] floats, rounded back to 8 bits."""
    rows = _resize_matrix(rgb.shape[0], size)
    cols = _resize_matrix(rgb.shape[1], size)
    pixels = rgb.astype(np.float64) / 255
    out = np.tensordot(rows, pixels, axes=(1, 0))  # (size, W, 3)
    out = np.tensordot(cols, out, axes=(1, 1)).transpose(1, 0, 2)  # (size, size, 3)
    return (np.clip(out, 0, 1) * 255 + 0.5).astype(np.uint8)


def read_rgb(path):
    """An image file as (H, W, 3) uint8 RGB, decoded by Pillow (grey or RGBA images are converted to RGB)."""
    from PIL import Image
    with Image.open(path) as image:
        return np.asarray(image.convert("RGB"))


def preprocess(path, size, mean, std):
    """The network's input for one image file: (3, size, size) float32, normalised as (x / 255 - mean) / std per
    channel after resize_like_stb."""
    pixels = resize_like_stb(read_rgb(path), size).astype(np.float32) / np.float32(255)
    normalised = (pixels - np.asarray(mean, np.float32)) / np.asarray(std, np.float32)
    return np.ascontiguousarray(normalised.transpose(2, 0, 1))


# ---------------------------------------------------------------------------------------------- the model
# torchvision's MobileNetV3-Small, one row per InvertedResidual block (features.1 .. features.11): input channels,
# depthwise kernel, expanded channels, output channels, squeeze-and-excitation, activation (ReLU or hard-swish),
# stride.
SMALL_BLOCKS = [
    (16, 3, 16, 16, True, "RE", 2),
    (16, 3, 72, 24, False, "RE", 2),
    (24, 3, 88, 24, False, "RE", 1),
    (24, 5, 96, 40, True, "HS", 2),
    (40, 5, 240, 40, True, "HS", 1),
    (40, 5, 240, 40, True, "HS", 1),
    (40, 5, 120, 48, True, "HS", 1),
    (48, 5, 144, 48, True, "HS", 1),
    (48, 5, 288, 96, True, "HS", 2),
    (96, 5, 576, 96, True, "HS", 1),
    (96, 5, 576, 96, True, "HS", 1),
]


def _make_divisible(value, divisor=8):
    """value rounded to the nearest multiple of divisor, at least divisor and never below 90 % of value (the
    MobileNet papers' channel rounding)."""
    rounded = max(divisor, int(value + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * value else rounded


@functools.lru_cache(maxsize=None)
def model_classes(torch):
    """The module classes of MobileNetV3 written against the framework `torch` (Ember or PyTorch), with
    torchvision's submodule names so that its state dicts -- and this GGUF file -- load by name."""
    nn = torch.nn

    def conv_bn(c_in, c_out, kernel, stride=1, groups=1, activation=None, eps=0.001):
        """Conv2d (no bias, 'same'-style padding) -> BatchNorm2d -> activation: children 0, 1, 2."""
        layers = [nn.Conv2d(c_in, c_out, kernel, stride, (kernel - 1) // 2, groups=groups, bias=False),
                  nn.BatchNorm2d(c_out, eps=eps, momentum=0.01)]
        if activation is not None:
            layers.append(activation(inplace=True))
        return nn.Sequential(*layers)

    class SqueezeExcitation(nn.Module):
        """x * hardsigmoid(fc2(relu(fc1(mean of x over H, W)))), fc1/fc2 1x1 convolutions (Hu et al.,
        "Squeeze-and-Excitation Networks", 2018). x: (N, C, H, W) -> (N, C, H, W)."""

        def __init__(self, channels, squeezed):
            super().__init__()
            self.avgpool = nn.AdaptiveAvgPool2d(1)
            self.fc1 = nn.Conv2d(channels, squeezed, 1)
            self.fc2 = nn.Conv2d(squeezed, channels, 1)
            self.activation = nn.ReLU()
            self.scale_activation = nn.Hardsigmoid()

        def forward(self, x):
            scale = self.scale_activation(self.fc2(self.activation(self.fc1(self.avgpool(x)))))
            return scale * x

    class InvertedResidual(nn.Module):
        """1x1 expansion (when the width changes) -> depthwise kxk -> squeeze-excitation (optional) -> 1x1
        projection without activation; the input is added back when stride is 1 and the widths agree."""

        def __init__(self, c_in, kernel, expanded, c_out, use_se, act, stride, eps):
            super().__init__()
            activation = nn.Hardswish if act == "HS" else nn.ReLU
            layers = []
            if expanded != c_in:
                layers.append(conv_bn(c_in, expanded, 1, activation=activation, eps=eps))
            layers.append(conv_bn(expanded, expanded, kernel, stride, groups=expanded, activation=activation,
                                  eps=eps))
            if use_se:
                layers.append(SqueezeExcitation(expanded, _make_divisible(expanded // 4)))
            layers.append(conv_bn(expanded, c_out, 1, eps=eps))
            self.block = nn.Sequential(*layers)
            self.use_res_connect = stride == 1 and c_in == c_out

        def forward(self, x):
            out = self.block(x)
            return out + x if self.use_res_connect else out

    class MobileNetV3(nn.Module):
        """MobileNetV3-Small: (N, 3, H, W) images -> (N, num_classes) logits. Children: features (stem conv,
        11 InvertedResidual blocks, last 1x1 conv to 576), avgpool, classifier (Linear 576->1024, Hardswish,
        Dropout, Linear 1024->num_classes)."""

        def __init__(self, num_classes=1000, dropout=0.2, eps=0.001):
            super().__init__()
            layers = [conv_bn(3, 16, 3, 2, activation=nn.Hardswish, eps=eps)]
            layers += [InvertedResidual(*row, eps=eps) for row in SMALL_BLOCKS]
            layers.append(conv_bn(96, 576, 1, activation=nn.Hardswish, eps=eps))
            self.features = nn.Sequential(*layers)
            self.avgpool = nn.AdaptiveAvgPool2d(1)
            self.classifier = nn.Sequential(nn.Linear(576, 1024), nn.Hardswish(inplace=True),
                                            nn.Dropout(dropout, inplace=True), nn.Linear(1024, num_classes))

        def forward(self, x):
            x = self.avgpool(self.features(x))
            return self.classifier(torch.flatten(x, 1))

    return MobileNetV3


def mobilenet_v3_small(torch, num_classes=1000, eps=0.001):
    """A MobileNetV3-Small on the framework `torch`, in training mode with fresh weights (as constructed)."""
    return model_classes(torch)(num_classes=num_classes, eps=eps)


def read_gguf(path):
    """(metadata, state_dict of NumPy arrays) of the GGUF file, read by ember.utils.gguf."""
    from ember.utils import gguf
    metadata, tensors = gguf.load(path)
    return metadata, {name: t.numpy() for name, t in tensors.items()}


def class_names(metadata):
    """The labels in logit order, from the metadata keys mobilenet.class_0, class_1, ..."""
    return [metadata[f"mobilenet.class_{i}"] for i in range(metadata["mobilenet.num_classes"])]


def load_model(torch, metadata, arrays):
    """The model for the framework `torch` holding the file's weights (arrays: name -> NumPy array), in eval
    mode. Raises RuntimeError (from load_state_dict) when a name or shape does not match."""
    model = mobilenet_v3_small(torch, num_classes=metadata["mobilenet.num_classes"],
                               eps=metadata.get("mobilenet.bn_eps", 0.001))
    model.load_state_dict({name: torch.from_numpy(a) for name, a in arrays.items()}, strict=True)
    return model.eval()


def classify(torch, model, batch):
    """(logits, probabilities) as float32 NumPy arrays (N, classes) for a (N, 3, H, W) float32 NumPy batch."""
    with torch.no_grad():
        logits = model(torch.from_numpy(batch))
        probabilities = torch.softmax(logits, dim=1)
    return logits.numpy(), probabilities.numpy()


# ---------------------------------------------------------------------------------------------- main
def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("images", nargs="*", help="image files (default: the package's six test images)")
    parser.add_argument("--framework", choices=("ember", "torch"), default="ember")
    parser.add_argument("--data", help="the unpacked package folder (default: scripts/fetch_npm_data.sh's cache, "
                                       "fetched into it when missing; a folder given here is used as it is)")
    parser.add_argument("--list-tensors", action="store_true", help="print the GGUF metadata and tensors first")
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args(argv)

    try:  # ember.utils.gguf reads the file for either framework
        import ember
    except ImportError:  # run from a checkout without PYTHONPATH=python
        sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
        import ember
    if args.framework == "torch":
        import torch
    else:
        torch = ember
    if args.threads:
        torch.set_num_threads(args.threads)

    folder = args.data or data_dir() or fetch()
    weights = os.path.join(folder, WEIGHTS)
    metadata, arrays = read_gguf(weights)
    if args.list_tensors:
        for key, value in metadata.items():
            print(f"{key} = {value!r}")
        from ember.utils import gguf
        f = gguf.GGUFFile(weights)
        for name in f.tensor_names():
            print(f"{name:45s} {f.tensor_type(name):4s} {tuple(arrays[name].shape)}")
    labels = class_names(metadata)
    size = metadata["mobilenet.image_size"]
    mean = [metadata[f"mobilenet.mean_{c}"] for c in "rgb"]
    std = [metadata[f"mobilenet.std_{c}"] for c in "rgb"]

    images = args.images or sorted(os.path.join(folder, "test", "images", name)
                                   for name in os.listdir(os.path.join(folder, "test", "images")))
    model = load_model(torch, metadata, arrays)
    batch = np.stack([preprocess(path, size, mean, std) for path in images])
    start = time.perf_counter()
    _, probabilities = classify(torch, model, batch)
    seconds = time.perf_counter() - start

    print(f"{args.framework}: {os.path.basename(weights)} ({metadata.get('general.description', '')}), "
          f"{len(images)} images in {seconds * 1000:.0f} ms")
    print(f"{'image':16s} {'top class':10s} " + " ".join(f"{label:>7s}" for label in labels) + "  expected")
    right = named = 0
    for path, p in zip(images, probabilities):
        top = labels[int(p.argmax())]
        expected = expected_class(path)
        if expected is not None:
            named += 1
            right += top == expected
        print(f"{os.path.basename(path):16s} {top:10s} " + " ".join(f"{v:7.4f}" for v in p) +
              f"  {expected or '-'}{'' if expected in (None, top) else '  (wrong)'}")
    if named:
        print(f"accuracy: {right}/{named} = {right / named:.0%}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (OSError, RuntimeError, ValueError, KeyError) as e:  # a missing or bad file: one line, not a traceback
        sys.exit(f"classify.py: error: {e}")
