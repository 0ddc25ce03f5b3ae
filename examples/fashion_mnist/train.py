#!/usr/bin/python3
"""Ember's main job: train a small CNN on the 60,000 Fashion-MNIST training images, test on the 10,000 test images.

    make demo                       (3 epochs; `make demo EPOCHS=5` for more)
    PYTHONPATH=python /usr/bin/python3 examples/fashion_mnist/train.py [--epochs 3] [--framework ember|torch]
        [--threads 2] [--out out/fashion_mnist] [--limit N] [--test-limit N] [--seed 0] [--no-progress]
        [--export PATH | --no-export]

The same code runs on Ember and on PyTorch 1.13: with --framework ember (the default) the script does
`import ember as torch`, with --framework torch it imports PyTorch itself, and everything after that is written
against the name `torch`. The recipe: two conv blocks (conv 3x3, BatchNorm, ReLU, 2x2 max pooling), dropout and a
linear head, trained with AdamW under a OneCycle learning-rate schedule in batches of 128. With the default seed it
reaches at least 90% test accuracy within 3 epochs on both frameworks (figures in BENCHMARKS.md, section
"Fashion-MNIST epoch time").

Threads: --threads sets the framework's intra-op thread count explicitly (default 2), so that runs on the two
frameworks compare at the same count and the figures do not depend on the machine's core count.

Data: the gzipped IDX files of Debian's `dataset-fashion-mnist` (/usr/share/datasets/fashion-mnist), read by the
small NumPy reader below so both frameworks get the same arrays; batches come from
`torch.utils.data.DataLoader` over a `TensorDataset`, shuffled by a seeded generator.

Output (in --out): the trained model's state dict (`model_<framework>.pt`, written with `torch.save`), a PNG plot
of the training loss and the test accuracy per epoch (`training_<framework>.png`), and the export step's files:
the model traced in eval mode with `torch.jit.trace` and saved with `torch.jit.save` (`model_<framework>_jit.pt`,
or --export PATH; frozen first with `torch.jit.freeze` where the framework has it), and the Python model's
predicted class of each test image, one per line (`predictions_<framework>.txt`). Ember's exported model runs
without Python in examples/cpp/classify_fashion_mnist.cpp, whose predictions equal these (`make demo` runs both
and compares them).
"""
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


def build_model(nn):
    """The CNN: 28x28 -> conv block (32 channels) -> 14x14 -> conv block (64 channels) -> 7x7 -> dropout -> linear."""
    def conv_block(in_channels, out_channels):
        # The conv's bias would be cancelled by the BatchNorm that follows, so it has none.
        return [nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1, bias=False),
                nn.BatchNorm2d(out_channels), nn.ReLU(inplace=True), nn.MaxPool2d(2)]

    return nn.Sequential(*conv_block(1, 32), *conv_block(32, 64), nn.Flatten(), nn.Dropout(0.25),
                         nn.Linear(64 * 7 * 7, len(CLASSES)))


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


def export(torch, model, test_x, predictions, path, predictions_path):
    """Traces the model in eval mode on one test image, freezes it where the framework can (PyTorch's
    torch.jit.freeze; Ember's once its ember.jit.freeze exists) and saves it with jit.save; writes the Python
    model's predicted class of each test image (`predictions`, from predict()) to predictions_path, one per line
    (the format of the C++ classifier's --predictions, so the two files compare with `cmp`). Then loads the saved
    model back and counts the test images on which it predicts the same class as the Python model. Returns that
    count."""
    model.eval()
    with torch.no_grad():
        traced = torch.jit.trace(model, test_x[:1])
        if hasattr(torch.jit, "freeze"):
            traced = torch.jit.freeze(traced)
        torch.jit.save(traced, path)
    with open(predictions_path, "w") as f:
        f.write("".join(f"{p}\n" for p in predictions.tolist()))
    loaded = torch.jit.load(path)
    loaded.eval()
    agree = (predict(torch, loaded, test_x) == predictions).sum().item()
    model.train()
    return agree


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

    missing = [name for pair in FILES.values() for name in pair
               if not os.path.exists(os.path.join(args.data_dir, name))]
    if missing:
        sys.exit(f"train.py: {', '.join(missing)} not found in {args.data_dir}; install Debian's "
                 "dataset-fashion-mnist (scripts/setup.sh does) or pass --data-dir")

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    train_x, train_y = load_split("train", args.data_dir, args.limit)
    test_x, test_y = load_split("test", args.data_dir, args.test_limit)
    train_set = torch.utils.data.TensorDataset(torch.from_numpy(train_x), torch.from_numpy(train_y))
    test_x, test_y = torch.from_numpy(test_x), torch.from_numpy(test_y)
    loader = torch.utils.data.DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                                         generator=torch.Generator().manual_seed(args.seed))

    model = build_model(torch.nn)
    optimizer, scheduler = make_optimizer(torch, model, args.epochs, len(loader))
    print(f"{args.framework} {torch.__version__}, {args.threads} threads: {len(train_set)} training images, "
          f"{test_x.shape[0]} test images, {args.epochs} epochs of {len(loader)} batches of {args.batch_size}")

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
        agree = export(torch, model, test_x, predictions, path, predictions_file)
        print(f"exported the traced model to {path} (its predictions equal the Python model's on {agree} of "
              f"{test_x.shape[0]} test images) and the Python model's predictions to {predictions_file}")
    return accuracies


if __name__ == "__main__":
    main()
