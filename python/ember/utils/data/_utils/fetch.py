"""Fetchers: turn what the DataLoader's index sampler yields into one collated result, for a map-style or an
iterable-style dataset. The same fetchers run in the main process and in worker processes.
"""


class _MapDatasetFetcher:
    """Looks indices up in a map-style dataset. With auto-collation the index is a list (a batch) and the
    samples go through collate_fn as a list; without, it is one key and the sample goes through collate_fn
    alone. A dataset with a truthy ``__getitems__`` gets the whole batch of indices at once."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last

    def fetch(self, index):
        if not self.auto_collation:
            return self.collate_fn(self.dataset[index])
        getitems = getattr(self.dataset, "__getitems__", None)
        samples = getitems(index) if getitems else [self.dataset[i] for i in index]
        return self.collate_fn(samples)


class _IterableDatasetFetcher:
    """Draws samples from an iterable-style dataset's iterator (made once, when the fetcher is made). With
    auto-collation, as many samples as the batch of (dummy) indices is long; a short last batch is returned,
    or ends the iteration under drop_last. Raises StopIteration once the dataset is exhausted."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.dataset_iter = iter(dataset)
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iter))
        samples = []
        for _ in index:
            try:
                samples.append(next(self.dataset_iter))
            except StopIteration:
                self.ended = True
                break
        if not samples or (self.drop_last and len(samples) < len(index)):
            raise StopIteration
        return self.collate_fn(samples)


def create_fetcher(is_iterable, dataset, auto_collation, collate_fn, drop_last):
    """The fetcher for dataset: _IterableDatasetFetcher when is_iterable, else _MapDatasetFetcher."""
    cls = _IterableDatasetFetcher if is_iterable else _MapDatasetFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)
