"""Datasets, samplers and the DataLoader, as PyTorch 1.13's ``torch.utils.data``:
``from ember.utils.data import DataLoader, TensorDataset``.

- dataset.py     Dataset, IterableDataset, TensorDataset, ConcatDataset, ChainDataset, Subset, random_split
- sampler.py     Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler, WeightedRandomSampler,
                 BatchSampler
- dataloader.py  DataLoader (in the main process or in worker processes), default_collate, default_convert,
                 get_worker_info
- distributed.py DistributedSampler (each process's share of the indices)
- _utils/        fetching, collation and the worker processes

Orders and seeds match PyTorch's for the same generator state (Note [sampler random streams] in sampler.py,
Note [DataLoader seeds] in dataloader.py).
"""
from .dataloader import DataLoader, default_collate, default_convert, get_worker_info
from .distributed import DistributedSampler
from .dataset import ChainDataset, ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset, random_split
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "DistributedSampler",
           "IterableDataset",
           "RandomSampler", "Sampler", "SequentialSampler", "Subset", "SubsetRandomSampler", "TensorDataset",
           "WeightedRandomSampler", "default_collate", "default_convert", "get_worker_info", "random_split"]
