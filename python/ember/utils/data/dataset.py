"""Datasets: map-style (``Dataset``: ``dataset[key]`` and usually ``len``) and iterable-style
(``IterableDataset``: a stream), the ready-made ``TensorDataset``, ``ConcatDataset``, ``ChainDataset`` and
``Subset``, and ``random_split``, as PyTorch 1.13's ``torch.utils.data``.
"""
import bisect
import itertools
import math
import warnings
from typing import Generic, TypeVar

import ember

from ... import default_generator

__all__ = ["ChainDataset", "ConcatDataset", "Dataset", "IterableDataset", "Subset", "TensorDataset",
           "random_split"]

T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """Base class of map-style datasets: a map from keys (usually the ints ``0 .. len - 1``) to samples.

    Subclasses define ``__getitem__(key)`` and, for the DataLoader's default samplers, ``__len__``. They may
    define ``__getitems__(keys)`` to fetch a whole batch of keys at once. ``a + b`` is ``ConcatDataset([a, b])``.
    """

    def __getitem__(self, index):
        raise NotImplementedError

    def __add__(self, other):
        return ConcatDataset([self, other])

    # No default __len__ (see Note [no default __len__]).


# Note [no default __len__]: Dataset, IterableDataset and Sampler define no __len__, so that len() of an
# instance without one raises TypeError, and list() and friends (which try len() first) fall back to
# iteration; a __len__ raising NotImplementedError would break both.


class IterableDataset(Dataset[T_co]):
    """Base class of iterable-style datasets: a stream of samples from ``__iter__``.

    With ``num_workers > 0`` every worker process iterates its own copy; use ``get_worker_info()`` in
    ``__iter__`` or in the DataLoader's ``worker_init_fn`` to give each worker a different part, or every
    sample comes once per worker. ``a + b`` is ``ChainDataset([a, b])``.
    """

    def __iter__(self):
        raise NotImplementedError

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """A dataset of tensors indexed along their first dimension: sample i is ``tuple(t[i] for t in tensors)``.

    Args:
        *tensors (Tensor): tensors of at least one dim, with the same size of dim 0.

    Raises:
        AssertionError: the tensors' first dimensions differ (as PyTorch).
        IndexError: a 0-dim tensor; ``len`` or indexing of a TensorDataset made of no tensors.
    """

    def __init__(self, *tensors):
        assert all(tensors[0].size(0) == t.size(0) for t in tensors), "Size mismatch between tensors"
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class ConcatDataset(Dataset):
    """The concatenation of map-style datasets: indices ``0 .. len(d0) - 1`` go to the first, the next
    ``len(d1)`` to the second, and so on. Negative indices count from the end.

    Args:
        datasets (iterable of Dataset): at least one, none of them an IterableDataset.

    Attributes:
        cumulative_sizes (list of int): the running totals of the lengths.

    Raises:
        AssertionError: no datasets, or an IterableDataset among them (as PyTorch).
        ValueError: a negative index beyond the length.
    """

    @staticmethod
    def cumsum(sequence):
        """The running totals of the lengths of sequence's datasets."""
        return list(itertools.accumulate(len(d) for d in sequence))

    def __init__(self, datasets):
        super().__init__()
        self.datasets = list(datasets)
        assert len(self.datasets) > 0, "datasets should not be an empty iterable"
        for d in self.datasets:
            assert not isinstance(d, IterableDataset), "ConcatDataset does not support IterableDataset"
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which > 0 else 0
        return self.datasets[which][idx - start]

    @property
    def cummulative_sizes(self):
        """Deprecated misspelling of cumulative_sizes."""
        warnings.warn("cummulative_sizes attribute is renamed to cumulative_sizes", DeprecationWarning,
                      stacklevel=2)
        return self.cumulative_sizes


class ChainDataset(IterableDataset):
    """The chain of iterable datasets: all samples of the first, then of the second, ... (lazily).

    Args:
        datasets (iterable of IterableDataset): the datasets; checked when iterated.

    Raises:
        AssertionError: when iterating or taking len(), a dataset that is not an IterableDataset.
    """

    def __init__(self, datasets):
        super().__init__()
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            assert isinstance(d, IterableDataset), "ChainDataset only supports IterableDataset"
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            assert isinstance(d, IterableDataset), "ChainDataset only supports IterableDataset"
            total += len(d)
        return total


class Subset(Dataset):
    """The samples of dataset at the given indices: ``Subset(d, idx)[i]`` is ``d[idx[i]]``; a list of
    positions fetches ``d[[idx[i] for i in positions]]`` in one call.

    Args:
        dataset (Dataset): the whole dataset.
        indices (sequence of int): the indices of dataset in the subset, in order.
    """

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


def _lengths_from_fractions(fractions, total):
    """Split sizes for fractions of total: ``floor(total * f)`` each, then the remainder handed out one by
    one, round-robin from the first split. Warns about empty splits."""
    sizes = []
    for i, frac in enumerate(fractions):
        if frac < 0 or frac > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        sizes.append(int(math.floor(total * frac)))
    for i in range(total - sum(sizes)):
        sizes[i % len(sizes)] += 1
    for i, size in enumerate(sizes):
        if size == 0:
            warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.")
    return sizes


def random_split(dataset, lengths, generator=default_generator):
    """Splits dataset into non-overlapping random Subsets of the given lengths.

    The indices come from one ``ember.randperm(len(dataset), generator=generator)``: the first split gets its
    first ``lengths[0]`` entries, and so on, so the same generator state gives PyTorch's split.

    Args:
        dataset (Dataset): the dataset to split (needs ``len``).
        lengths (sequence of int or float): the sizes of the splits, summing to ``len(dataset)``; or fractions
            summing to 1, turned into sizes with ``floor(len * f)`` and the remainder given one by one to the
            splits in order.
        generator (Generator): the generator of the permutation. Default: ``ember.default_generator``.

    Returns:
        list of Subset.

    Raises:
        ValueError: lengths that do not sum to the length of dataset, or a fraction outside [0, 1].
    """
    total = sum(lengths)
    if math.isclose(total, 1) and total <= 1:
        lengths = _lengths_from_fractions(lengths, len(dataset))
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = ember.randperm(sum(lengths), generator=generator).tolist()
    ends = itertools.accumulate(lengths)
    return [Subset(dataset, indices[end - length:end]) for end, length in zip(ends, lengths)]
