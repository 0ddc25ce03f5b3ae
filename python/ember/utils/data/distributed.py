"""DistributedSampler, as PyTorch 1.13's ``torch.utils.data.distributed``."""
import math

from .sampler import Sampler


class DistributedSampler(Sampler):
    """Gives each of ``num_replicas`` processes its own share of a dataset's indices (rank ``r`` takes every
    ``num_replicas``-th index from position ``r``), for data-parallel training.

    Args: ``dataset`` (sized), ``num_replicas`` and ``rank`` (default: the world size and rank of the default
    process group of ``ember.distributed``), ``shuffle`` (a permutation drawn from a generator
    seeded with ``seed + epoch``, the same on every process: call ``set_epoch`` each epoch), ``seed``,
    ``drop_last`` (drop the tail so every replica gets ``len(dataset) // num_replicas`` indices; otherwise the
    indices are padded by repeating the first ones so that every replica gets ``ceil(len / num_replicas)``).
    Each replica yields ``len(self)`` indices, in PyTorch's order for the same arguments.

    Raises RuntimeError when ``num_replicas`` or ``rank`` is left out before ``init_process_group``, ValueError for
    a rank outside ``[0, num_replicas - 1]``.
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None or rank is None:
            from ... import distributed as dist
            if num_replicas is None:
                num_replicas = dist.get_world_size()
            if rank is None:
                rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            # The largest share every replica can have without repeating an index.
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        import ember

        n = len(self.dataset)
        if self.shuffle:
            g = ember.Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = ember.randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            else:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[:self.total_size]
        assert len(indices) == self.total_size
        indices = indices[self.rank:self.total_size:self.num_replicas]
        assert len(indices) == self.num_samples
        return iter(indices)

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Sets the epoch, which seeds the shuffle (``seed + epoch``): call it before each epoch's iterator."""
        self.epoch = epoch
