#!/usr/bin/python3
"""Ember's main job: train a small CNN on the 60,000 Fashion-MNIST training images, test on the 10,000 test images.

    make demo                       (3 epochs; `make demo EPOCHS=5` for more)
    PYTHONPATH=python /usr/bin/python3 examples/fashion_mnist/train.py [--epochs 3] [--framework ember|torch]
        [--threads 2] [--out out/fashion_mnist] [--limit N] [--test-limit N] [--seed 0] [--no-progress]
        [--export PATH | --no-export] [--plain-ops]
    PYTHONPATH=python /usr/bin/python3 examples/fashion_mnist/train.py --eval-state-dict PATH [--framework ember|torch]
        [--threads 2] [--test-limit N]

The same code runs on Ember and on PyTorch 1.13: with --framework ember (the default) the script does
`import ember as torch`, with --framework torch it imports PyTorch itself, and everything after that is written
against the name `torch`. The recipe: two conv blocks (conv 3x3, BatchNorm, ReLU, 2x2 max pooling), dropout and a
linear head, trained with AdamW under a OneCycle learning-rate schedule in batches of 128. With the default seed it
reaches at least 90% test accuracy within 3 epochs on both frameworks (figures in
benchmarks/results/train_python.md).

The custom op: on Ember, each conv block's ReLU and 2x2 max pooling are one C++ op, fmnist::relu_max_pool2d
(FUSED_OP_SOURCE below: a forward that reads the input once, and its own backward through
ember::autograd::Function), compiled at run time with ember.utils.cpp_extension.load_inline into a shared library
(cached: only the first run compiles, in ~/.cache/ember_extensions or $EMBER_EXTENSIONS_DIR) and called as
ember.ops.fmnist.relu_max_pool2d. Its values and gradients are those of the plain ops, bit for bit, so the
training is the same as with --plain-ops (Ember's ReLU and max_pool2d; PyTorch always computes
F.max_pool2d(F.relu(x), 2) with its plain ops).

Threads: --threads sets the framework's intra-op thread count explicitly (default 2), so that runs on the two
frameworks compare at the same count and the figures do not depend on the machine's core count.

Data: the gzipped IDX files of Debian's `dataset-fashion-mnist` (/usr/share/datasets/fashion-mnist), read by the
small NumPy reader below so both frameworks get the same arrays; batches come from
`torch.utils.data.DataLoader` over a `TensorDataset`, shuffled by a seeded generator.

Output (in --out): the trained model's state dict (`model_<framework>.pt`, written with `torch.save`), a PNG plot
of the training loss and the test accuracy per epoch (`training_<framework>.png`), and the export step's files:
the model traced in eval mode with `torch.jit.trace` and saved with `torch.jit.save` (`model_<framework>_jit.pt`,
or --export PATH; frozen first with `torch.jit.freeze` where the framework has it), and the Python model's
predicted class of each test image, one per line (`predictions_<framework>.txt`). On Ember the traced graph calls
the custom op, the saved model records its library, and the export lists the library's path in `custom_ops.txt`
next to the saved model (empty with plain ops). Ember's exported model runs without Python in
examples/cpp/classify_fashion_mnist.cpp (`--library PATH` loads the op's library first), whose predictions equal
these (`make demo` runs both and compares them).

The same job in C++: examples/cpp/train_fashion_mnist.cpp trains this model with Ember's C++ frontend and saves its
state dict with ember::save (`model_cpp.pt`); `--eval-state-dict PATH` loads such a state dict (an ember.save
archive, from C++ or Python) into this script's model and prints its test accuracy, without training, on either
framework (on PyTorch the archive is read with ember.load and its tensors handed over through NumPy)."""
import argparse
import gzip
import os
import sys
import time

import numpy as np

DATA_DIR = "/usr/share/datasets/fashion-mnist"
FILES = {
    "train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
    "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"),
}
# Mean and standard deviation of the training images' pixels scaled to [0, 1].
PIXEL_MEAN, PIXEL_STD = 0.2860, 0.3530
CLASSES = ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot")

# The fused op of the conv blocks, compiled at run time on Ember (ember.utils.cpp_extension.load_inline; the
# build is cached, so only the first run compiles it). Under --framework torch the same computation is written
# with plain ops (relu_max_pool2d_plain).
#
# Note [fused relu + max pooling]
# relu(max(window)) = max(relu(window)) (relu is monotonic), so ReLU followed by 2x2 max pooling is one pass
# that reads the input once and writes a quarter-size output, instead of a full-size ReLU output that pooling
# reads again. The results are those of the two plain ops, bit for bit:
# - forward: the window's maximum is chosen as max_pool2d chooses it (scanning rows, a larger value or a NaN
#   replaces the current one, so a NaN wins), then relu keeps it when it is > 0 or NaN, else writes 0;
# - backward: the plain ops send the output's gradient to the window's maximum (max_pool2d's index) and keep it
#   where relu's output is not <= 0 (its threshold backward), i.e. exactly where the forward kept the maximum;
#   the positive maximum's index in the input equals its index in relu's output, so the forward saves, per
#   output element, the input index that receives the gradient, or -1 where nothing does.
# Windows do not overlap (stride 2), so every input element receives at most one gradient; an odd last row or
# column is outside every window (floor, as MaxPool2d(2)) and gets 0.
FUSED_OP_NAME = "fmnist"
# As Ember's own kernels: -O3, and no errno or traps from floating point, so the selects of the loops vectorize;
# -march=native since the library is compiled on the machine that runs it (the cache is per machine).
FUSED_OP_CFLAGS = ["-O3", "-fno-math-errno", "-fno-trapping-math", "-march=native"]
FUSED_OP_SOURCE = r"""
#include <algorithm>
#include <cmath>
#include <string>

namespace {

const char* const kOp = "fmnist::relu_max_pool2d";

std::string shape_of(const ember::Tensor& t) {
  std::string s = "[";
  for (int64_t d = 0; d < t.dim(); ++d) s += (d ? ", " : "") + std::to_string(t.size(d));
  return s + "]";
}

// Checks the input as max_pool2d does: float32/float64, 3-D (C, H, W) or 4-D (N, C, H, W) with only N allowed
// to be 0, and at least one 2x2 window.
void check_input(const ember::Tensor& x) {
  EMBER_CHECK(x.dtype() == ember::kFloat32 || x.dtype() == ember::kFloat64,
              "{}: expected a float32 or float64 tensor, got {}", kOp, x.dtype());
  bool sizes_ok = x.dim() == 3 || x.dim() == 4;
  for (int64_t d = x.dim() == 4 ? 1 : 0; sizes_ok && d < x.dim(); ++d) sizes_ok = x.size(d) > 0;
  EMBER_CHECK(sizes_ok, "{}: expected a 3-D (C, H, W) or 4-D (N, C, H, W) input with non-zero C, H and W, got {}",
              kOp, shape_of(x));
  EMBER_CHECK(x.size(-2) >= 2 && x.size(-1) >= 2, "{}: input of size {} is smaller than the 2x2 window", kOp,
              shape_of(x));
  EMBER_CHECK(x.size(-1) < (int64_t{1} << 31), "{}: input width {} is too large", kOp, x.size(-1));
}

// Planes per parallel task: about kGrainSize input elements.
int64_t plane_grain(int64_t plane_size) {
  return std::max<int64_t>(1, ember::cpu::kGrainSize / std::max<int64_t>(1, plane_size));
}

// out = relu(max of each 2x2 window) over `planes` contiguous (H, W) planes; when `index` is not null it gets
// the input index (within the plane) that receives the output's gradient, or -1 (Note [fused relu + max pooling]).
// Each output row is done in blocks of columns: every window element in the scan's order is compared with the
// whole block at once, with selects rather than branches (the comparisons are unpredictable on activations),
// so the loops vectorize (with FUSED_OP_CFLAGS).
template <class T>
void forward_planes(const T* in, T* out, int64_t* index, int64_t planes, int64_t H, int64_t W) {
  const int64_t OH = H / 2, OW = W / 2;
  const int32_t W32 = static_cast<int32_t>(W);  // check_input: W < 2^31
  constexpr int64_t kBlock = 64;
  ember::cpu::parallel_for(planes, plane_grain(H * W), [=](int64_t p0, int64_t p1) {
    T m[kBlock];
    int32_t best[kBlock];  // the winner's offset in its window: 0, 1, W or W + 1 (int32: vectorizes with floats)
    for (int64_t p = p0; p < p1; ++p) {
      const T* src = in + p * H * W;
      for (int64_t oh = 0; oh < OH; ++oh) {
        for (int64_t ow0 = 0; ow0 < OW; ow0 += kBlock) {
          const int64_t n = std::min(kBlock, OW - ow0);
          const int64_t first = 2 * oh * W + 2 * ow0;  // the block's first window's first element
          for (int64_t k = 0; k < n; ++k) m[k] = src[first + 2 * k], best[k] = 0;
          for (const int32_t e : {int32_t{1}, W32, W32 + 1}) {  // the other elements of each window, in order
            const T* col = src + first + e;
            for (int64_t k = 0; k < n; ++k) {
              const T v = col[2 * k];
              const bool take = v > m[k] || v != v;  // a larger value or a NaN
              m[k] = take ? v : m[k];
              best[k] = take ? e : best[k];
            }
          }
          const int64_t o = (p * OH + oh) * OW + ow0;
          for (int64_t k = 0; k < n; ++k) {
            const bool keep = !(m[k] <= T(0));  // > 0 or NaN: relu keeps it and passes its gradient
            out[o + k] = keep ? m[k] : T(0);
          }
          if (index)
            for (int64_t k = 0; k < n; ++k) index[o + k] = !(m[k] <= T(0)) ? first + 2 * k + best[k] : -1;
        }
      }
    }
  });
}

// The forward; `index` (an int64 tensor of the output's shape) is filled when given.
ember::Tensor relu_max_pool2d_forward(const ember::Tensor& self, ember::Tensor* index) {
  check_input(self);
  ember::Tensor x = self.contiguous();
  std::vector<int64_t> sizes(x.sizes().begin(), x.sizes().end());
  const int64_t H = sizes[sizes.size() - 2], W = sizes.back();
  sizes[sizes.size() - 2] = H / 2, sizes.back() = W / 2;
  ember::Tensor out = ember::empty(sizes, x.dtype());
  if (index) *index = ember::empty(sizes, ember::kInt64);
  int64_t* ix = index ? index->data_ptr<int64_t>() : nullptr;
  const int64_t planes = x.numel() / (H * W);  // H, W >= 2 (check_input)
  if (x.dtype() == ember::kFloat32)
    forward_planes(x.data_ptr<float>(), out.data_ptr<float>(), ix, planes, H, W);
  else
    forward_planes(x.data_ptr<double>(), out.data_ptr<double>(), ix, planes, H, W);
  return out;
}

// The gradient of the input: zeros except grad_output[o] at each output element's saved index.
template <class T>
void backward_planes(const T* grad_out, const int64_t* index, T* grad_in, int64_t planes, int64_t in_plane,
                     int64_t out_plane) {
  ember::cpu::parallel_for(planes, plane_grain(in_plane), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p)
      for (int64_t o = p * out_plane; o < (p + 1) * out_plane; ++o)
        if (index[o] >= 0) grad_in[p * in_plane + index[o]] = grad_out[o];
  });
}

ember::Tensor relu_max_pool2d_cpu(const ember::Tensor& x) { return relu_max_pool2d_forward(x, nullptr); }

// The Autograd kernel: the forward saves the gradient's indices (Note [fused relu + max pooling]).
struct ReluMaxPool2d : ember::autograd::Function<ReluMaxPool2d> {
  static ember::Tensor forward(ember::autograd::AutogradContext* ctx, const ember::Tensor& x) {
    ember::Tensor index;
    ember::Tensor out = relu_max_pool2d_forward(x, &index);
    ctx->saved_data["index"] = index;  // not an input or output: no version to check
    ctx->saved_data["sizes"] = std::vector<int64_t>(x.sizes().begin(), x.sizes().end());
    return out;
  }
  static ember::autograd::variable_list backward(ember::autograd::AutogradContext* ctx,
                                                 ember::autograd::variable_list grads) {
    const ember::Tensor index = ctx->saved_data["index"].to_tensor();
    const ember::IntArrayRef saved_sizes = ctx->saved_data["sizes"].to_int_list();
    const std::vector<int64_t> sizes(saved_sizes.begin(), saved_sizes.end());
    const ember::Tensor g = grads[0].contiguous();
    ember::Tensor grad_in = ember::zeros(sizes, g.dtype());
    const int64_t in_plane = sizes[sizes.size() - 2] * sizes.back();
    const int64_t out_plane = index.size(-2) * index.size(-1);
    const int64_t planes = grad_in.numel() / in_plane;
    if (g.dtype() == ember::kFloat32)
      backward_planes(g.data_ptr<float>(), index.data_ptr<int64_t>(), grad_in.data_ptr<float>(), planes, in_plane,
                      out_plane);
    else
      backward_planes(g.data_ptr<double>(), index.data_ptr<int64_t>(), grad_in.data_ptr<double>(), planes,
                      in_plane, out_plane);
    return {grad_in};
  }
};

ember::Tensor relu_max_pool2d_autograd(const ember::Tensor& x) { return ReluMaxPool2d::apply(x); }

}  // namespace

EMBER_LIBRARY(fmnist, m) { m.def("relu_max_pool2d(Tensor x) -> Tensor"); }
EMBER_LIBRARY_IMPL(fmnist, CPU, m) { m.impl("relu_max_pool2d", &relu_max_pool2d_cpu); }
EMBER_LIBRARY_IMPL(fmnist, Autograd, m) { m.impl("relu_max_pool2d", &relu_max_pool2d_autograd); }
"""


def read_idx(path):
    """Reads a gzipped IDX file (unsigned-byte data only, as MNIST's) into a NumPy uint8 array of its shape.

    The format: two zero bytes, a type byte (0x08 = unsigned byte), the number of dimensions, one big-endian
    32-bit size per dimension, then the data in C order.
    """
    with gzip.open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0:
        raise ValueError(f"{path}: not an IDX file (bad magic number)")
    if raw[2] != 0x08:
        raise ValueError(f"{path}: IDX data type 0x{raw[2]:02x} is not unsigned byte (0x08)")
    ndim = raw[3]
    shape = tuple(int(s) for s in np.frombuffer(raw, dtype=">u4", count=ndim, offset=4))
    data = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim)
    if data.size != int(np.prod(shape)):
        raise ValueError(f"{path}: header says shape {shape} ({int(np.prod(shape))} bytes) but the file has "
                         f"{data.size} data bytes")
    return data.reshape(shape)


def load_split(split, data_dir=DATA_DIR, limit=None):
    """The images of a split as normalised float32 (N, 1, 28, 28) and the labels as int64 (N,), NumPy arrays."""
    image_file, label_file = (os.path.join(data_dir, name) for name in FILES[split])
    images, labels = read_idx(image_file), read_idx(label_file)
    if images.shape[0] != labels.shape[0]:
        raise ValueError(f"{image_file} has {images.shape[0]} images but {label_file} has {labels.shape[0]} labels")
    if limit is not None:
        images, labels = images[:limit], labels[:limit]
    images = (images.astype(np.float32) / 255.0 - PIXEL_MEAN) / PIXEL_STD
    return images[:, None, :, :], labels.astype(np.int64)


_fused_op_module = None


def load_fused_op(verbose=False):
    """Compiles the fused op's library with Ember's load_inline (or finds it in the compile cache, Note [extension
    build cache] in ember/utils/cpp_extension.py) and loads it, once per process (another build of it, from
    another cache folder, would define the op a second time); returns the extension module, whose __file__ is
    the library's path (the C++ classifier loads it with --library)."""
    global _fused_op_module
    if _fused_op_module is None:
        from ember.utils import cpp_extension
        _fused_op_module = cpp_extension.load_inline(FUSED_OP_NAME, FUSED_OP_SOURCE, extra_cflags=FUSED_OP_CFLAGS,
                                                     verbose=verbose)
    return _fused_op_module


def relu_max_pool2d_plain(torch):
    """max_pool2d(relu(x), 2) written with the framework's plain ops (--framework torch)."""
    functional = torch.nn.functional
    return lambda x: functional.max_pool2d(functional.relu(x), 2)


def relu_max_pool2d_op(nn):
    """The conv blocks' ReLU + 2x2 max pooling for the framework whose `torch.nn` is `nn`: Ember's fused C++ op
    fmnist::relu_max_pool2d (compiled on first use), PyTorch's plain ops."""
    if nn.__name__.split(".")[0] == "ember":
        load_fused_op()
        import ember
        return ember.ops.fmnist.relu_max_pool2d
    import torch
    return relu_max_pool2d_plain(torch)


def build_model(nn, relu_max_pool2d=None):
    """The CNN: 28x28 -> conv block (32 channels) -> 14x14 -> conv block (64 channels) -> 7x7 -> dropout -> linear.

    A conv block is conv 3x3, BatchNorm and ReLU + 2x2 max pooling as one op, `relu_max_pool2d` (x -> Tensor;
    default relu_max_pool2d_op(nn): the fused custom op on Ember, the plain ops on PyTorch). The parameters and
    the state dict's keys do not depend on it."""
    fused = relu_max_pool2d if relu_max_pool2d is not None else relu_max_pool2d_op(nn)

    class ReLUMaxPool2d(nn.Module):
        """max_pool2d(relu(x), 2) by `fused`."""

        def forward(self, x):
            return fused(x)

    def conv_block(in_channels, out_channels):
        # The conv's bias would be cancelled by the BatchNorm that follows, so it has none.
        return [nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1, bias=False),
                nn.BatchNorm2d(out_channels), ReLUMaxPool2d()]

    return nn.Sequential(*conv_block(1, 32), *conv_block(32, 64), nn.Flatten(), nn.Dropout(0.25),
                         nn.Linear(64 * 7 * 7, len(CLASSES)))


def load_state_dict_file(torch, path):
    """The state dict in an ember.save archive (written by ember.save in Python or ember::save in C++), as a dict
    of the framework's tensors: Ember's as loaded, PyTorch's converted through NumPy."""
    import ember
    state = ember.load(path)
    if not isinstance(state, dict):
        raise ValueError(f"{path} holds a {type(state).__name__}, not a state dict")
    if torch is ember:
        return state
    return {name: torch.from_numpy(value.numpy().copy()) for name, value in state.items()}


def evaluate_state_dict(torch, args):
    """--eval-state-dict: the test accuracy of the model with the state dict in args.eval_state_dict (ReLU + max
    pooling by the plain ops, whose values the fused op equals)."""
    model = build_model(torch.nn, relu_max_pool2d_plain(torch))
    try:
        state = load_state_dict_file(torch, args.eval_state_dict)
        model.load_state_dict(state)
    except (RuntimeError, ValueError, OSError) as error:  # not an archive, not a state dict, or another model's
        sys.exit(f"train.py: --eval-state-dict {args.eval_state_dict}: {str(error).splitlines()[0]}")
    test_x, test_y = load_split("test", args.data_dir, args.test_limit)
    accuracy = evaluate(torch, model, torch.from_numpy(test_x), torch.from_numpy(test_y))
    print(f"{args.eval_state_dict}: test accuracy {accuracy:.4f} on {test_x.shape[0]} test images "
          f"({args.framework} {torch.__version__}, {args.threads} threads)")
    return accuracy


def make_optimizer(torch, model, epochs, steps_per_epoch, max_lr=0.01, weight_decay=5e-4):
    """AdamW with a OneCycle schedule stepped after every batch."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=max_lr, weight_decay=weight_decay)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=max_lr, epochs=epochs,
                                                    steps_per_epoch=steps_per_epoch)
    return optimizer, scheduler


def train_step(torch, model, optimizer, scheduler, images, labels):
    """One optimisation step on a batch; returns the batch's mean loss as a Python float."""
    optimizer.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(images), labels)
    loss.backward()
    optimizer.step()
    scheduler.step()
    return loss.item()


def predict(torch, model, images, batch_size=1000):
    """The predicted class of each image (int64 tensor), by the model in eval mode without autograd, in batches
    of batch_size (the C++ classifier's default, so both run the same ops on the same batches)."""
    was_training = model.training
    model.eval()
    with torch.no_grad():
        predictions = torch.cat([model(images[start:start + batch_size]).argmax(dim=1)
                                 for start in range(0, images.shape[0], batch_size)])
    model.train(was_training)
    return predictions


def evaluate(torch, model, images, labels, batch_size=1000):
    """Accuracy of the model (in eval mode, without autograd) on the given tensors."""
    return (predict(torch, model, images, batch_size) == labels).sum().item() / images.shape[0]


def export(torch, model, test_x, predictions, path, predictions_path, libraries=()):
    """Traces the model in eval mode on one test image, freezes it where the framework can (PyTorch's
    torch.jit.freeze; Ember's once its ember.jit.freeze exists) and saves it with jit.save; writes the Python
    model's predicted class of each test image (`predictions`, from predict()) to predictions_path, one per line
    (the format of the C++ classifier's --predictions, so the two files compare with `cmp`); writes the paths of
    the op libraries the model calls (`libraries`: the fused op's, on Ember), one per line, to custom_ops.txt
    next to the saved model, for the C++ classifier's --library. Then loads the saved model back and counts the
    test images on which it predicts the same class as the Python model. Returns that count."""
    model.eval()
    with torch.no_grad():
        traced = torch.jit.trace(model, test_x[:1])
        if hasattr(torch.jit, "freeze"):
            traced = torch.jit.freeze(traced)
        torch.jit.save(traced, path)
    with open(predictions_path, "w") as f:
        f.write("".join(f"{p}\n" for p in predictions.tolist()))
    with open(custom_ops_file(path), "w") as f:
        f.write("".join(f"{lib}\n" for lib in libraries))
    loaded = torch.jit.load(path)
    loaded.eval()
    agree = (predict(torch, loaded, test_x) == predictions).sum().item()
    model.train()
    return agree


def custom_ops_file(model_path):
    """The file next to a saved model listing the op libraries it needs, one path per line."""
    return os.path.join(os.path.dirname(os.path.abspath(model_path)), "custom_ops.txt")


def plot(path, losses, steps_per_epoch, accuracies, title):
    """Training loss per step and test accuracy per epoch, side by side, as a PNG."""
    import matplotlib
    matplotlib.use("Agg")  # no display needed
    import matplotlib.pyplot as plt

    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(10, 4))
    steps = np.arange(1, len(losses) + 1) / steps_per_epoch
    ax_loss.plot(steps, losses, linewidth=0.5, alpha=0.4, label="per batch")
    window = min(50, len(losses))
    if window > 1:
        smooth = np.convolve(losses, np.ones(window) / window, mode="valid")
        ax_loss.plot(steps[window - 1:], smooth, label=f"mean of {window}")
    ax_loss.set(xlabel="epoch", ylabel="training loss", title="training loss")
    ax_loss.legend()
    epochs = np.arange(1, len(accuracies) + 1)
    ax_acc.plot(epochs, accuracies, marker="o")
    ax_acc.set(xlabel="epoch", ylabel="test accuracy", title="test accuracy", xticks=epochs)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=3, help="number of epochs (default 3)")
    parser.add_argument("--framework", choices=("ember", "torch"), default="ember",
                        help="run on Ember (`import ember as torch`, the default) or on PyTorch itself")
    parser.add_argument("--threads", type=int, default=2, help="intra-op threads, set explicitly (default 2)")
    parser.add_argument("--out", default="out/fashion_mnist", help="directory for the state dict and the plot")
    parser.add_argument("--limit", type=int, default=None, help="train on the first N training images only")
    parser.add_argument("--test-limit", type=int, default=None, help="test on the first N test images only")
    parser.add_argument("--seed", type=int, default=0, help="seed of the weights, dropout and shuffling")
    parser.add_argument("--batch-size", type=int, default=128, help="training batch size (default 128)")
    parser.add_argument("--data-dir", default=DATA_DIR, help=f"where the IDX files are (default {DATA_DIR})")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (for logs)")
    parser.add_argument("--export", metavar="PATH", default=None,
                        help="where to save the traced model (default <out>/model_<framework>_jit.pt)")
    parser.add_argument("--no-export", action="store_true", help="do not trace and save the trained model")
    parser.add_argument("--plain-ops", action="store_true",
                        help="on Ember, compute ReLU + max pooling with the plain ops instead of the fused custom op "
                             "(for comparison; PyTorch always uses the plain ops)")
    parser.add_argument("--eval-state-dict", metavar="PATH", default=None,
                        help="do not train: load this state dict (an ember.save archive, e.g. the one "
                             "examples/cpp/train_fashion_mnist writes) into the model and print its test accuracy")
    args = parser.parse_args(argv)
    for name in ("epochs", "threads", "limit", "test_limit", "batch_size"):
        value = getattr(args, name)
        if value is not None and value < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, got {value}")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.framework == "ember":
        try:
            import ember as torch
        except ImportError as e:
            sys.exit(f"train.py: cannot import ember ({e}); build with `make` and run from the repository root "
                     "with PYTHONPATH=python")
    else:
        import torch
    from tqdm import tqdm

    if args.eval_state_dict and not os.path.isfile(args.eval_state_dict):
        # One line, not a traceback: the usual mistake is a wrong path.
        sys.exit(f"train.py: --eval-state-dict {args.eval_state_dict}: no such file (write one with ember::save in "
                 "C++, e.g. examples/cpp/train_fashion_mnist, or ember.save(model.state_dict(), path) in Python)")
    missing = [name for pair in FILES.values() for name in pair
               if not os.path.exists(os.path.join(args.data_dir, name))]
    if missing:
        sys.exit(f"train.py: {', '.join(missing)} not found in {args.data_dir}; install Debian's "
                 "dataset-fashion-mnist (scripts/setup.sh does) or pass --data-dir")

    torch.set_num_threads(args.threads)
    if args.eval_state_dict:
        return [evaluate_state_dict(torch, args)]
    torch.manual_seed(args.seed)
    train_x, train_y = load_split("train", args.data_dir, args.limit)
    test_x, test_y = load_split("test", args.data_dir, args.test_limit)
    train_set = torch.utils.data.TensorDataset(torch.from_numpy(train_x), torch.from_numpy(train_y))
    test_x, test_y = torch.from_numpy(test_x), torch.from_numpy(test_y)
    loader = torch.utils.data.DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                                         generator=torch.Generator().manual_seed(args.seed))

    fused_library = None  # the fused op's library (Ember only)
    if args.framework == "ember" and not args.plain_ops:
        fused_library = load_fused_op().__file__
        model = build_model(torch.nn, torch.ops.fmnist.relu_max_pool2d)
    else:
        model = build_model(torch.nn, relu_max_pool2d_plain(torch))
    optimizer, scheduler = make_optimizer(torch, model, args.epochs, len(loader))
    print(f"{args.framework} {torch.__version__}, {args.threads} threads: {len(train_set)} training images, "
          f"{test_x.shape[0]} test images, {args.epochs} epochs of {len(loader)} batches of {args.batch_size}")
    print("ReLU + max pooling: " + (f"the fused custom op fmnist::relu_max_pool2d ({fused_library})" if fused_library
                                    else "plain ops"))

    losses, accuracies = [], []
    for epoch in range(1, args.epochs + 1):
        start = time.perf_counter()
        bar = tqdm(loader, desc=f"epoch {epoch}/{args.epochs}", unit="batch", disable=args.no_progress,
                   dynamic_ncols=True)
        seen = 0
        for images, labels in bar:
            losses.append(train_step(torch, model, optimizer, scheduler, images, labels))
            seen += images.shape[0]
            bar.set_postfix(loss=f"{losses[-1]:.4f}", images_per_s=f"{seen / (time.perf_counter() - start):.0f}")
        train_time = time.perf_counter() - start
        eval_start = time.perf_counter()
        predictions = predict(torch, model, test_x)  # kept for the export step
        accuracies.append((predictions == test_y).sum().item() / test_x.shape[0])
        eval_time = time.perf_counter() - eval_start
        epoch_loss = float(np.mean(losses[-len(loader):]))
        print(f"epoch {epoch}: train loss {epoch_loss:.4f}, {train_time:.1f} s ({seen / train_time:.0f} images/s), "
              f"eval {eval_time:.1f} s, test accuracy {accuracies[-1]:.4f}", flush=True)

    os.makedirs(args.out, exist_ok=True)
    weights = os.path.join(args.out, f"model_{args.framework}.pt")
    torch.save(model.state_dict(), weights)
    figure = os.path.join(args.out, f"training_{args.framework}.png")
    epochs = f"{args.epochs} epoch" + ("s" if args.epochs != 1 else "")
    plot(figure, losses, len(loader), accuracies,
         f"Fashion-MNIST CNN on {args.framework}: test accuracy {accuracies[-1]:.4f} after {epochs}")
    print(f"saved the state dict to {weights} and the plot to {figure}")
    if not args.no_export:
        path = args.export or os.path.join(args.out, f"model_{args.framework}_jit.pt")
        predictions_file = os.path.join(args.out, f"predictions_{args.framework}.txt")
        libraries = [fused_library] if fused_library else []
        agree = export(torch, model, test_x, predictions, path, predictions_file, libraries)
        print(f"exported the traced model to {path} (its predictions equal the Python model's on {agree} of "
              f"{test_x.shape[0]} test images) and the Python model's predictions to {predictions_file}")
        print(f"the model calls ops of {len(libraries)} librar{'y' if len(libraries) == 1 else 'ies'}"
              + "".join(f" {lib}" for lib in libraries) + f", listed in {custom_ops_file(path)}")
    return accuracies


if __name__ == "__main__":
    main()
