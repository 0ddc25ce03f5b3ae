"""Ready-made data sets, as ``torchvision.datasets``: ``MNIST`` and ``FashionMNIST``, read from IDX files by
Ember's C++ reader (``read_idx``), plain or gzip-compressed.

    from ember.datasets import FashionMNIST
    train = FashionMNIST(train=True)        # Debian's dataset-fashion-mnist, /usr/share/datasets/fashion-mnist
    image, target = train[0]                # float32 (1, 28, 28) in [0, 1], int

Nothing is downloaded: the files come from a Debian package or a folder the caller names.
"""
from .idx import read_idx
from .mnist import MNIST, FashionMNIST

__all__ = ["read_idx", "MNIST", "FashionMNIST"]
