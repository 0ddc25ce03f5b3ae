"""DataLoader: iterates a dataset in batches, in the main process or in worker processes, as PyTorch 1.13's
``torch.utils.data.DataLoader`` (same arguments, same errors, same orders and seeds for the same generator
state).
"""
import itertools
import math
import multiprocessing
import multiprocessing.context
import os
import pickle
import queue
import warnings

import ember

from . import _utils
from ._utils.collate import default_collate, default_convert
from ._utils.fetch import create_fetcher
from ._utils.worker import _IterableDatasetStopIteration, _ResumeIteration, _worker_loop, get_worker_info
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]


class _InfiniteConstantSampler(Sampler):
    """The index sampler of an iterable dataset: None forever (the fetcher ignores the indices)."""

    def __iter__(self):
        return itertools.repeat(None)


def _default_context():
    """Workers are forked where the platform can (cheap, and the dataset need not pickle), else the platform's
    default start method is used."""
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


class DataLoader:
    r"""Iterates over a dataset in (by default collated) batches.

    Args:
        dataset (Dataset or IterableDataset): where the samples come from.
        batch_size (int, optional): samples per batch; None turns automatic batching off (each sample goes
            through collate_fn alone). Default: 1.
        shuffle (bool, optional): visit a map-style dataset in a new random order every epoch (a
            RandomSampler with generator). Default: False.
        sampler (Sampler or iterable, optional): the order of the indices; excludes shuffle.
        batch_sampler (Sampler or iterable, optional): yields lists of indices; excludes batch_size,
            shuffle, sampler and drop_last.
        num_workers (int): worker processes loading batches; 0 loads in the main process. Default: 0.
        collate_fn (callable, optional): merges a list of samples into a batch. Default: default_collate,
            or default_convert when automatic batching is off.
        pin_memory (bool): accepted for compatibility; there is no accelerator to pin for.
        drop_last (bool): drop the last batch when it is incomplete. Default: False.
        timeout (float): with workers, seconds to wait for a batch before RuntimeError; 0 waits forever.
        worker_init_fn (callable, optional): called in each worker with its id, after seeding, before loading.
        multiprocessing_context (str or context, optional): the start method of the workers. Default: fork
            where available.
        generator (Generator, optional): the generator of the RandomSampler made for shuffle and of the
            workers' base seed. Default: the default generator.
        prefetch_factor (int, keyword-only): batches each worker loads ahead. Default: 2.
        persistent_workers (bool, keyword-only): keep the workers (and their dataset copies) between epochs.
        pin_memory_device (str, keyword-only): accepted for compatibility.

    Iterating gives one batch per entry of the index sampler (batch_sampler, or sampler when automatic
    batching is off), in the sampler's order also with workers; ``len()`` is the index sampler's length, or
    for an iterable dataset ``len(dataset) / batch_size`` rounded up (down with drop_last).

    Randomness (Note [DataLoader seeds]): every iterator draws a base seed (one int64 ``random_``) from the
    generator before the sampler draws anything; worker i seeds Python's ``random`` and Ember's default
    generator with ``base_seed + i``, and NumPy's global generator from it as PyTorch does. With persistent
    workers the seed is drawn once, when the workers start.

    Workers (Note [DataLoader workers]): processes that set Ember's and OpenBLAS's threads to 1 before any op
    (Note [threads after fork] in _utils/worker.py), fetch and collate the batches they are given, and send
    them back pickled. An exception in a worker is raised again in the main process with the worker's
    traceback in its message; a worker that dies raises RuntimeError. Workers stop when the iterator is
    exhausted or garbage-collected (or, persistent, with the DataLoader).

    Raises:
        ValueError: num_workers or timeout negative; prefetch_factor other than 2 without workers;
            persistent_workers without workers; sampler with shuffle; batch_sampler with batch_size,
            shuffle, sampler or drop_last; batch_size=None with drop_last; a bad batch_size (from
            BatchSampler); shuffle, sampler or batch_sampler with an IterableDataset; an unknown start
            method; multiprocessing_context without workers; setting batch_size, batch_sampler, sampler,
            drop_last, dataset or persistent_workers after construction.
        TypeError: multiprocessing_context neither a start method nor a context.
    """

    _initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=2, persistent_workers=False,
                 pin_memory_device=""):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor != 2:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers "
                             "> 0 to enable multiprocessing.")
        assert prefetch_factor > 0
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context

        self._is_iterable = isinstance(dataset, IterableDataset)
        if self._is_iterable:
            for name, value, unset in (("shuffle", shuffle, (False, None)), ("sampler", sampler, (None,)),
                                       ("batch_sampler", batch_sampler, (None,))):
                if not any(value is u for u in unset):
                    raise ValueError("DataLoader with IterableDataset: expected unspecified {0} option, but got "
                                     "{0}={1}".format(name, value))
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")

        if sampler is None:
            if self._is_iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._iterable_len = None  # len(dataset) of an iterable dataset, once len(self) has read it
        self._iterator = None  # the one iterator of persistent workers
        self._initialized = True
        self.check_worker_number_rationality()

    @property
    def multiprocessing_context(self):
        """The start method context of the workers (None: the default, fork where available)."""
        return self._multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context):
        if context is not None:
            if self.num_workers == 0:
                raise ValueError("multiprocessing_context can only be used with multi-process loading "
                                 "(num_workers > 0), but got num_workers={}".format(self.num_workers))
            if isinstance(context, str):
                methods = multiprocessing.get_all_start_methods()
                if context not in methods:
                    raise ValueError("multiprocessing_context option should specify a valid start method in {!r}, "
                                     "but got multiprocessing_context={!r}".format(methods, context))
                context = multiprocessing.get_context(context)
            if not isinstance(context, multiprocessing.context.BaseContext):
                raise TypeError("multiprocessing_context option should be a valid context object or a string "
                                "specifying the start method, but got multiprocessing_context={}".format(context))
        self._multiprocessing_context = context

    def __setattr__(self, name, value):
        if self._initialized and name in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                                          "persistent_workers"):
            raise ValueError("{} attribute should not be set after {} is initialized".format(
                name, type(self).__name__))
        super().__setattr__(name, value)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        """What the iterator draws one entry of per result: lists of indices, or single indices."""
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        if not self.persistent_workers:
            return _MultiProcessingDataLoaderIter(self)
        if self._iterator is None:
            self._iterator = _MultiProcessingDataLoaderIter(self)
        else:
            self._iterator._reset(self)
        return self._iterator

    def __len__(self):
        if not self._is_iterable:
            return len(self._index_sampler)
        # Only an estimate: the dataset's workers may split it so that batches end early.
        length = self._iterable_len = len(self.dataset)
        if self.batch_size is not None:
            length = length // self.batch_size if self.drop_last else math.ceil(length / self.batch_size)
        return length

    def check_worker_number_rationality(self):
        """Warns when num_workers exceeds the CPUs this process may run on."""
        if not self.num_workers:
            return
        try:
            cpus, cpuset = len(os.sched_getaffinity(0)), True
        except (AttributeError, OSError):
            cpus, cpuset = os.cpu_count(), False
        if cpus is not None and self.num_workers <= cpus:
            return
        if cpus is None:
            suggestion = "DataLoader is not able to compute a suggested max number of worker in current system."
        else:
            suggestion = ("Our suggested max number of worker in current system is {}{}, which is smaller than "
                          "what this DataLoader is going to create.").format(
                              cpus, "" if cpuset else " (`cpuset` is not taken into account)")
        warnings.warn("This DataLoader will create {} worker processes in total. {} Please be aware that excessive "
                      "worker creation might get DataLoader running slow or even freeze, lower the worker number "
                      "to avoid potential slowness/freeze if necessary.".format(self.num_workers, suggestion))


class _BaseDataLoaderIter:
    """What both iterators share: the index sampler's iterator, the base seed and the count of results."""

    def __init__(self, loader):
        self._dataset = loader.dataset
        self._is_iterable = loader._is_iterable
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._prefetch_factor = loader.prefetch_factor
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._persistent_workers = loader.persistent_workers
        self._iterable_len = loader._iterable_len
        # iter() of a sampler that is a generator function draws nothing yet; the base seed comes first
        # (Note [DataLoader seeds]).
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = ember.empty((), dtype=ember.int64).random_(generator=loader.generator).item()
        self._num_yielded = 0

    def __iter__(self):
        return self

    def _reset(self, loader):
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._iterable_len = loader._iterable_len

    def _next_index(self):
        return next(self._sampler_iter)  # StopIteration ends the epoch

    def _next_data(self):
        raise NotImplementedError

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        if self._is_iterable and self._iterable_len is not None and self._num_yielded > self._iterable_len:
            message = ("Length of IterableDataset {} was reported to be {} (when accessing len(dataloader)), but {} "
                       "samples have been fetched. ").format(self._dataset, self._iterable_len, self._num_yielded)
            if self._num_workers > 0:
                message += ("For multiprocessing data-loading, this could be caused by not properly configuring the "
                            "IterableDataset replica at each worker.")
            warnings.warn(message)
        return data

    def __len__(self):
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError("{} cannot be pickled".format(type(self).__name__))


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    """Loads every batch in the calling process."""

    def __init__(self, loader):
        super().__init__(loader)
        self._fetcher = create_fetcher(self._is_iterable, self._dataset, self._auto_collation, self._collate_fn,
                                       self._drop_last)

    def _next_data(self):
        return self._fetcher.fetch(self._next_index())


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Loads batches in num_workers processes and returns them in the sampler's order.

    Note [in-order delivery]: task t (the t-th entry of the index sampler) goes to the next live worker in
    round-robin; at most prefetch_factor * num_workers tasks are in flight. Results that arrive before their
    turn wait in self._early; ``self._task_worker[t]`` remembers who has task t until it is returned, so that a
    task given to an iterable dataset's worker after it ran dry (which will never be answered) is skipped.
    """

    def __init__(self, loader):
        super().__init__(loader)
        context = loader.multiprocessing_context or _default_context()
        self._shutdown = False  # set first: __del__ runs even when starting the workers fails
        self._workers = []
        self._index_queues = []
        self._worker_stopped = []  # per worker: None was sent on its index queue
        self._result_queue = context.Queue()
        self._done_event = context.Event()
        for worker_id in range(self._num_workers):
            index_queue = context.Queue()
            index_queue.cancel_join_thread()  # exiting must not wait for tasks no worker will read
            worker = context.Process(
                target=_worker_loop, daemon=True,
                args=(self._is_iterable, self._dataset, index_queue, self._result_queue, self._done_event,
                      self._auto_collation, self._collate_fn, self._drop_last, self._base_seed,
                      loader.worker_init_fn, worker_id, self._num_workers))
            self._index_queues.append(index_queue)
            self._workers.append(worker)
            self._worker_stopped.append(False)
            worker.start()
        self._start_epoch(resume=False)

    def _reset(self, loader):
        super()._reset(loader)
        self._start_epoch(resume=True)

    def _start_epoch(self, resume):
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_worker = {}
        self._early = {}
        self._active = [True] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        if resume:
            # Persistent workers: every worker acknowledges the new epoch; what is left of the last one (an
            # abandoned iteration) is dropped on the way.
            for index_queue in self._index_queues:
                index_queue.put(_ResumeIteration())
            pending = self._num_workers
            while pending:
                task_id, _ = self._get_data()
                if isinstance(task_id, _ResumeIteration):
                    pending -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self):
        """Sends the sampler's next entry to the next active worker; nothing when either has run out."""
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):
            worker_id = next(self._worker_cycle)
            if self._active[worker_id]:
                break
        else:
            return
        self._index_queues[worker_id].put((self._send_idx, index))
        self._task_worker[self._send_idx] = worker_id
        self._send_idx += 1

    def _get_data(self):
        """The next (task_id, data) from the result queue. Raises RuntimeError on timeout or when an active
        worker died."""
        # Without a timeout, wait in slices to notice dead workers; with one, wait it once.
        wait = self._timeout if self._timeout > 0 else _utils.STATUS_CHECK_INTERVAL
        while True:
            try:
                task_id, payload = self._result_queue.get(timeout=wait)
                return task_id, pickle.loads(payload)
            except queue.Empty:
                dead = [w for i, w in enumerate(self._workers) if self._active[i] and not w.is_alive()]
                if dead:
                    for w in dead:
                        self._retire_worker(self._workers.index(w))
                    raise RuntimeError("DataLoader worker (pid(s) {}) exited unexpectedly".format(
                        ", ".join(str(w.pid) for w in dead))) from None
                if self._timeout > 0:
                    raise RuntimeError("DataLoader timed out after {} seconds".format(self._timeout)) from None

    def _retire_worker(self, worker_id):
        """Gives worker_id no more tasks; a non-persistent worker is also told to exit."""
        self._active[worker_id] = False
        if not self._persistent_workers:
            self._stop_worker(worker_id)

    def _stop_worker(self, worker_id):
        if not self._worker_stopped[worker_id]:
            self._worker_stopped[worker_id] = True
            self._index_queues[worker_id].put(None)

    def _next_data(self):
        while True:
            # Skip tasks that will never be answered (Note [in-order delivery]).
            while (self._rcvd_idx < self._send_idx and self._rcvd_idx not in self._early
                   and not self._active[self._task_worker[self._rcvd_idx]]):
                del self._task_worker[self._rcvd_idx]
                self._rcvd_idx += 1
            if self._rcvd_idx == self._send_idx:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            if self._rcvd_idx in self._early:
                return self._deliver(self._early.pop(self._rcvd_idx))
            task_id, data = self._get_data()
            if isinstance(data, _IterableDatasetStopIteration):
                self._retire_worker(data.worker_id)
                self._try_put_index()
            elif task_id == self._rcvd_idx:
                return self._deliver(data)
            elif isinstance(task_id, int):
                self._early[task_id] = data
            # else a stale acknowledgement: nothing to do

    def _deliver(self, data):
        """Returns the result of task self._rcvd_idx (raising a worker's exception) and sends a new task."""
        del self._task_worker[self._rcvd_idx]
        self._rcvd_idx += 1
        self._try_put_index()
        if isinstance(data, _utils.ExceptionWrapper):
            data.reraise()
        return data

    def _shutdown_workers(self):
        """Stops every worker: asks them to exit, waits a little, then terminates those still running."""
        if self._shutdown or _utils.python_exiting:
            return
        self._shutdown = True
        try:
            self._done_event.set()  # workers drop queued tasks and may exit with unread results
            for worker_id in range(len(self._workers)):
                self._stop_worker(worker_id)
            started = [w for w in self._workers if w.pid is not None]  # all of them unless a start failed
            for worker in started:
                worker.join(timeout=_utils.STATUS_CHECK_INTERVAL)
            for index_queue in self._index_queues:
                index_queue.close()
        finally:
            for worker in self._workers:
                if worker.pid is not None and worker.is_alive():
                    worker.terminate()
                    worker.join()

    def __del__(self):
        if getattr(self, "_shutdown", True) is False:
            self._shutdown_workers()
