"""Samplers: the order in which a DataLoader visits a map-style dataset's indices (``SequentialSampler``,
``RandomSampler``, ``SubsetRandomSampler``) and their grouping into batches (``BatchSampler``), as PyTorch
1.13's ``torch.utils.data``.

Note [sampler random streams]: Ember's CPU generator and its randperm/randint/random_ reproduce PyTorch's
numbers exactly, so a sampler gives PyTorch's order when it draws the same numbers in the same order: a
RandomSampler without a generator draws one int64 seed from the default generator (``random_`` of a 0-dim
int64 tensor) when an iteration starts and permutes with a private generator seeded by it; one with a
generator permutes with it directly. Without replacement it draws ``num_samples // n`` full permutations and
then one more (even when none of it is used), lazily as iteration reaches them; with replacement it draws
randint in chunks of 32 and then the ``num_samples % 32`` rest.
"""
import bisect
import itertools
import math
from typing import Generic, TypeVar

import ember

__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler", "SubsetRandomSampler",
           "WeightedRandomSampler"]

T_co = TypeVar("T_co", covariant=True)


class Sampler(Generic[T_co]):
    """Base class of samplers: ``__iter__`` yields indices (or keys) of a dataset; ``__len__``, when defined,
    is how many (the DataLoader's ``len`` needs it). There is no default ``__len__`` (Note [no default
    __len__] in dataset.py).

    Args:
        data_source (Dataset, optional): unused; subclasses take what they sample from.
    """

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """Yields ``0, 1, ..., len(data_source) - 1``.

    Args:
        data_source (Sized): the dataset (its length is read at every iteration).
    """

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """Yields indices of data_source in random order: a random permutation (several, concatenated and cut to
    num_samples, when num_samples exceeds the length), or with ``replacement`` num_samples independent
    uniform draws. The order is PyTorch's for the same generator state (Note [sampler random streams]).

    Args:
        data_source (Sized): the dataset (its length is read at every iteration).
        replacement (bool): draw with replacement. Default: False.
        num_samples (int, optional): how many indices per iteration. Default: ``len(data_source)``.
        generator (Generator, optional): the generator to draw from. Default: a new generator per iteration,
            seeded from the default generator.

    Raises:
        TypeError: replacement not a bool.
        ValueError: num_samples (or the dataset's length, when it is not given) not a positive int.
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got replacement={}".format(self.replacement))
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got num_samples={}".format(
                self.num_samples))

    @property
    def num_samples(self):
        """num_samples as given, else the current length of data_source."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def _iteration_generator(self):
        if self.generator is not None:
            return self.generator
        seed = int(ember.empty((), dtype=ember.int64).random_().item())
        generator = ember.Generator()
        generator.manual_seed(seed)
        return generator

    def __iter__(self):
        # A generator function: nothing is drawn until the first index is asked for.
        n = len(self.data_source)
        generator = self._iteration_generator()
        if self.replacement:
            full_chunks, rest = divmod(self.num_samples, 32)
            for size in [32] * full_chunks + [rest]:
                yield from ember.randint(high=n, size=(size,), dtype=ember.int64, generator=generator).tolist()
        else:
            full_perms, rest = divmod(self.num_samples, n)
            for _ in range(full_perms):
                yield from ember.randperm(n, generator=generator).tolist()
            yield from ember.randperm(n, generator=generator).tolist()[:rest]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """Yields the given indices in a random order (``indices[p]`` for a permutation p of their positions).

    Args:
        indices (sequence): the indices to sample from.
        generator (Generator, optional): the generator of the permutation. Default: the default generator.
    """

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for position in ember.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[position]

    def __len__(self):
        return len(self.indices)


def _multinomial(weights, num_samples, replacement, generator):
    """num_samples category indices drawn with probabilities proportional to the 1-D float64 tensor weights,
    as a list, drawing the random numbers PyTorch 1.13's CPU ``torch.multinomial`` draws (Ember has no
    multinomial op yet).

    Note [multinomial streams]: without replacement, PyTorch draws one Exp(1) number per category
    (``exponential_``) and takes the categories of the largest ``weight / e`` (argmax for one sample, else
    topk in descending order). With replacement it draws one uniform double per sample
    (``rand``) and picks the first category whose normalised running sum of weights (summed in order, divided
    by the total) is not below it.

    Raises:
        RuntimeError: num_samples <= 0; more samples than categories without replacement; a negative,
            infinite or NaN weight; weights summing to 0.
    """
    n = weights.numel()
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > n:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    values = weights.tolist()
    if not replacement:
        if not all(0 <= v < math.inf for v in values):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if sum(values) == 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        keys = weights / ember.empty_like(weights).exponential_(1, generator=generator)
        if num_samples == 1:
            return [int(keys.argmax())]
        return keys.topk(num_samples).indices.tolist()
    for v in values:
        if v < 0:
            raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
        if not math.isfinite(v):
            raise RuntimeError("invalid multinomial distribution (encountering probability entry = infinity or NaN)")
    running = list(itertools.accumulate(values))
    total = running[-1]
    if not total > 0:
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    running = [r / total for r in running]
    uniforms = ember.rand(num_samples, dtype=ember.float64, generator=generator).tolist()
    return [bisect.bisect_left(running, u) for u in uniforms]


class WeightedRandomSampler(Sampler[int]):
    """Yields num_samples indices of ``[0, len(weights))`` drawn with probabilities proportional to weights,
    the same as PyTorch for the same generator state (Note [multinomial streams]).

    Args:
        weights (sequence of float or Tensor): non-negative weights, not necessarily summing to 1 (1-D).
        num_samples (int): how many indices per iteration (positive).
        replacement (bool): draw with replacement; without, an index is drawn at most once. Default: True.
        generator (Generator, optional): the generator to draw from. Default: the default generator.

    Raises:
        ValueError: num_samples not a positive int (a bool is not), replacement not a bool, or weights not 1-D.
        RuntimeError: when iterating, weights that are negative, infinite or NaN or sum to 0, or more samples
            than weights without replacement.
    """

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got num_samples={}".format(
                num_samples))
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got replacement={}".format(replacement))
        if isinstance(weights, ember.Tensor):
            weights_tensor = weights.to(ember.float64)
        else:
            weights_tensor = ember.tensor(weights, dtype=ember.float64)
        if weights_tensor.dim() != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape {}".format(
                tuple(weights_tensor.shape)))
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        yield from _multinomial(self.weights, self.num_samples, self.replacement, self.generator)

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler[list]):
    """Groups the indices of another sampler into lists of batch_size (the last one shorter, or dropped with
    drop_last).

    Args:
        sampler (Sampler or iterable): the indices to group.
        batch_size (int): the size of a batch, positive.
        drop_last (bool): drop a last batch shorter than batch_size.

    Raises:
        ValueError: batch_size not a positive int (a bool is not), or drop_last not a bool.

    Example::

        >>> list(BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=False))
        [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    """

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, but got batch_size={}".format(batch_size))
        if not isinstance(drop_last, bool):
            raise ValueError("drop_last should be a boolean value, but got drop_last={}".format(drop_last))
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
