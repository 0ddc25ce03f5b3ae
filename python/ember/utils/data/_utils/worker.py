"""The worker processes of a multi-process DataLoader: their main loop, their seeding and
``get_worker_info()``.

Protocol (Note [DataLoader worker protocol]): each worker has its own index queue and all share one result
queue. The main process puts ``(task_id, index)`` on a worker's index queue; the worker answers
``(task_id, pickle of data)`` on the result queue, where data is the collated batch, an ExceptionWrapper, or
``_IterableDatasetStopIteration`` once its copy of an iterable dataset is exhausted. ``None`` on the index
queue stops the worker; ``_ResumeIteration`` (persistent workers) starts a new epoch with a fresh fetcher and
is acknowledged on the result queue. A worker also stops when its parent process dies.

The worker pickles data itself: a queue that fails to pickle an item drops it in a background thread, which
would leave the main process waiting forever; a batch that cannot be pickled is answered with the pickling
error instead.
"""
import dataclasses
import os
import pickle
import queue
import random

import ember

from . import STATUS_CHECK_INTERVAL, ExceptionWrapper
from .fetch import create_fetcher

try:
    import numpy as _np
except ImportError:
    _np = None

__all__ = ["WorkerInfo", "get_worker_info"]

_worker_info = None  # set in a worker process, before worker_init_fn runs


class WorkerInfo:
    """What ``get_worker_info()`` returns in a worker process (read-only).

    Attributes:
        id (int): this worker's id, in ``[0, num_workers)``.
        num_workers (int): the number of workers of the DataLoader.
        seed (int): the seed of this worker's generators: the iterator's base seed plus id.
        dataset: this process's copy of the dataset.

    Raises:
        RuntimeError: on assigning an attribute.
    """

    __frozen = False

    def __init__(self, **fields):
        for key, value in fields.items():
            setattr(self, key, value)
        self.__keys = tuple(fields)
        self.__frozen = True

    def __setattr__(self, key, value):
        if self.__frozen:
            raise RuntimeError("Cannot assign attributes to {} objects".format(type(self).__name__))
        super().__setattr__(key, value)

    def __repr__(self):
        fields = ", ".join("{}={}".format(k, getattr(self, k)) for k in self.__keys)
        return "{}({})".format(type(self).__name__, fields)


def get_worker_info():
    """Information about the DataLoader worker process this is called in (id, num_workers, seed, dataset, see
    WorkerInfo), or None in the main process. Useful in an IterableDataset's ``__iter__`` or in a
    worker_init_fn to give each worker its own share of the data."""
    return _worker_info


@dataclasses.dataclass(frozen=True)
class _IterableDatasetStopIteration:
    """A worker's answer once its copy of an iterable dataset is exhausted."""
    worker_id: int


@dataclasses.dataclass(frozen=True)
class _ResumeIteration:
    """Sent to persistent workers at the start of every epoch after the first; echoed back as acknowledgement."""


def _numpy_seed_words(base_seed, worker_id):
    """Four 32-bit words that seed NumPy's legacy global RandomState in a worker from (base_seed, worker_id).

    PyTorch derives them with the hashing and mixing of NumPy's SeedSequence over the entropy words
    ``[worker_id, low 32 bits of base_seed, high 32 bits, 0]`` (a pool of four words, each mixed into every
    other, then four output words); reproducing it keeps ``np.random`` in Ember's workers the same as in
    PyTorch's for the same base seed.
    """
    mask = 0xFFFFFFFF
    half = 16  # SeedSequence's xorshift: half of a 32-bit word

    def hasher(multiplier, constant):
        # A hash whose constant advances (times multiplier) at every call, as SeedSequence's hashmix.
        state = {"k": constant}

        def h(value):
            value = (value ^ state["k"]) & mask
            state["k"] = (state["k"] * multiplier) & mask
            value = (value * state["k"]) & mask
            return value ^ (value >> half)
        return h

    def mix(x, y):
        r = ((0xCA01F9DD * x) - (0x4973F715 * y)) & mask
        return r ^ (r >> half)

    pool_hash = hasher(0x931E8875, 0x43B0D7E5)
    pool = [pool_hash(word) for word in (worker_id, base_seed & mask, base_seed >> 32, 0)]
    for src in range(4):
        for dst in range(4):
            if src != dst:
                pool[dst] = mix(pool[dst], pool_hash(pool[src]))
    out_hash = hasher(0x58F38DED, 0x8B51F9DD)
    return [out_hash(word) for word in pool]


def _put_result(result_queue, task_id, data, worker_id):
    """Sends (task_id, pickle of data), or the error of pickling data (see the module doc)."""
    try:
        payload = pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        error = ExceptionWrapper(where="in DataLoader worker process {} (sending a batch)".format(worker_id))
        payload = pickle.dumps(error, protocol=pickle.HIGHEST_PROTOCOL)
    result_queue.put((task_id, payload))


def _worker_loop(is_iterable, dataset, index_queue, result_queue, done_event, auto_collation, collate_fn,
                 drop_last, base_seed, init_fn, worker_id, num_workers):
    """The main function of worker process worker_id (see the module doc for the protocol)."""
    try:
        # Note [threads after fork]: the OpenMP runtime (and OpenBLAS's OpenMP build) keeps a thread pool that a
        # forked child inherits only as bookkeeping, without its threads: a parallel region in the child waits
        # forever for them. One thread runs every op inline, so it must be set before any op runs here.
        # ember.set_num_threads also sets OpenBLAS's thread count.
        ember.set_num_threads(1)
        seed = base_seed + worker_id
        random.seed(seed)
        ember.manual_seed(seed)
        if _np is not None:
            _np.random.seed(_numpy_seed_words(base_seed, worker_id))

        global _worker_info
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)

        init_error = None  # an error of worker_init_fn is the answer to the first task
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = create_fetcher(is_iterable, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_error = ExceptionWrapper(where="in DataLoader worker process {}".format(worker_id))

        exhausted = False
        parent = os.getppid()
        while os.getppid() == parent:  # the parent died when this process was re-parented
            try:
                message = index_queue.get(timeout=STATUS_CHECK_INTERVAL)
            except queue.Empty:
                continue
            if message is None:
                break
            if isinstance(message, _ResumeIteration):
                _put_result(result_queue, message, None, worker_id)
                exhausted = False
                fetcher = create_fetcher(is_iterable, dataset, auto_collation, collate_fn, drop_last)
                continue
            if done_event.is_set() or exhausted:
                continue  # shutting down, or nothing left to give: tasks are dropped until None arrives
            task_id, index = message
            if init_error is not None:
                data, init_error = init_error, None
            else:
                try:
                    data = fetcher.fetch(index)
                except StopIteration:
                    if not is_iterable:
                        data = ExceptionWrapper(where="in DataLoader worker process {}".format(worker_id))
                    else:
                        data = _IterableDatasetStopIteration(worker_id)
                        exhausted = True
                except Exception:
                    data = ExceptionWrapper(where="in DataLoader worker process {}".format(worker_id))
            _put_result(result_queue, task_id, data, worker_id)
            del data, message, index  # do not hold a batch while waiting for the next task
    except KeyboardInterrupt:
        pass  # the main process gets the interrupt too and shuts the workers down
    if done_event.is_set():
        # Results nobody will read must not keep this process alive in the queue's feeder thread.
        result_queue.cancel_join_thread()
        result_queue.close()
