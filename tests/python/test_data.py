"""ember.utils.data against torch.utils.data (PyTorch 1.13): datasets, samplers (orders for seeded generators
and for the default generator, and how much of the random stream they use), random_split, collation (values,
dtypes, container types), DataLoader batches with and without worker processes, worker seeding, errors, and
that workers start safely after parallel ops in the parent and shut down when abandoned.

Each comparison builds the same pipeline twice, once over ``ember`` and once over ``torch`` (the framework
module ``m`` and its ``m.utils.data`` are parameters of the builders below).
"""
import collections
import gc
import os
import random
import subprocess
import sys
import textwrap
import threading
import warnings

import numpy as np
import pytest
import torch
import torch.utils.data as tdata

import ember
import ember.utils.data as edata
from conftest import assert_same

FRAMEWORKS = ((ember, edata), (torch, tdata))
Point = collections.namedtuple("Point", ["x", "y"])

# Note [tests that fork]
# Tests that fork worker processes (the DataLoader's, under 'fork') carry this marker, and the sanitizer stages of
# tools/sanitize.sh leave them out: clang 14's ASan does not hold its allocator's locks across fork (LLVM added
# that in version 18), so a child forked while another thread of the parent (an OpenMP worker, one of PyTorch's)
# is inside malloc waits forever on that lock. The plain build's run (`make test`) covers them; the C++
# DataLoader's worker threads run under TSan.
forks = pytest.mark.forks


def assert_same_tree(actual, expected, path="batch"):
    """actual (from Ember) has the structure of expected (from PyTorch, or from Ember): the same container types
    (dict, namedtuple, list, tuple), the same strings and numbers, and tensors with the same dtype, shape and
    values."""
    if isinstance(expected, torch.Tensor):
        assert_same(actual, expected, msg=f"{path}: ")
    elif isinstance(expected, ember.Tensor):  # Ember against Ember (e.g. workers against the main process)
        assert isinstance(actual, ember.Tensor) and actual.dtype == expected.dtype, path
        assert actual.shape == expected.shape and actual.equal(expected), path
    elif isinstance(expected, np.ndarray):
        assert isinstance(actual, np.ndarray) and actual.dtype == expected.dtype, path
        np.testing.assert_array_equal(actual, expected, err_msg=path)
    elif isinstance(expected, collections.abc.Mapping):
        assert type(actual) is type(expected), f"{path}: {type(actual)} != {type(expected)}"
        assert list(actual) == list(expected), path
        for key in expected:
            assert_same_tree(actual[key], expected[key], f"{path}[{key!r}]")
    elif isinstance(expected, (list, tuple)):
        assert type(actual) is type(expected), f"{path}: {type(actual)} != {type(expected)}"
        assert len(actual) == len(expected), f"{path}: length {len(actual)} != {len(expected)}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_same_tree(a, e, f"{path}[{i}]")
    else:
        assert type(actual) is type(expected), f"{path}: {type(actual)} != {type(expected)}"
        assert actual == expected, f"{path}: {actual!r} != {expected!r}"


def both(build):
    """build(m, data) for Ember and for PyTorch: (ember's result, torch's result)."""
    return build(ember, edata), build(torch, tdata)


def seeded(m, seed):
    g = m.Generator()
    g.manual_seed(seed)
    return g


def raises_like(build):
    """build(m, data) raises the same exception type for both frameworks; returns Ember's exception."""
    with pytest.raises(Exception) as tinfo:
        build(torch, tdata)
    with pytest.raises(Exception) as einfo:
        build(ember, edata)
    assert type(einfo.value) is type(tinfo.value), \
        f"PyTorch raised {type(tinfo.value).__name__}({tinfo.value}), " \
        f"Ember raised {type(einfo.value).__name__}({einfo.value})"
    return einfo.value


def test_reachable_as_attribute_and_by_import():
    import ember.utils.data as by_import
    assert ember.utils.data is by_import
    for name in ["DataLoader", "Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "ChainDataset",
                 "Subset", "random_split", "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
                 "WeightedRandomSampler", "BatchSampler", "default_collate", "default_convert", "get_worker_info"]:
        assert hasattr(edata, name), name
    assert edata.get_worker_info() is None  # in the main process


def test_attribute_access_after_import_ember():
    # In a fresh interpreter: `import ember` alone leaves ember.utils.data to its first use.
    out = run_script("""
        import sys
        import ember
        print("ember.utils.data" in sys.modules, ember.utils.data.DataLoader.__module__)
        from ember.utils import data
        print(data is ember.utils.data)
    """, timeout=60)
    assert out.split() == ["False", "ember.utils.data.dataloader", "True"]


# ---------------------------------------------------------------------------------------------------------
# Samplers


@pytest.mark.parametrize("n", [1, 7, 100])
@pytest.mark.parametrize("replacement, num_samples", [(False, None), (False, 5), (False, 250), (True, None),
                                                      (True, 5), (True, 33), (True, 64), (True, 250)])
def test_random_sampler_with_generator(n, replacement, num_samples):
    # Two epochs from one generator, then the generator's next number: the same orders and the same amount
    # of the stream used.
    def run(m, data):
        g = seeded(m, 1234)
        s = data.RandomSampler(range(n), replacement=replacement, num_samples=num_samples, generator=g)
        return list(s), list(s), len(s), m.randint(0, 1 << 30, (2,), generator=g).tolist()
    e, t = both(run)
    assert e == t


@pytest.mark.parametrize("replacement, num_samples", [(False, None), (False, 17), (True, None), (True, 40)])
def test_random_sampler_with_default_generator(replacement, num_samples):
    def run(m, data):
        m.manual_seed(7)
        s = data.RandomSampler(range(10), replacement=replacement, num_samples=num_samples)
        return list(s), list(s), m.rand(3).tolist()
    e, t = both(run)
    assert e == t


def test_random_sampler_draws_lazily():
    # Nothing is drawn before the first index is asked for, and an abandoned iteration draws no more.
    def run(m, data):
        m.manual_seed(3)
        s = data.RandomSampler(range(5))
        it = iter(s)
        before = m.rand(1).item()
        first = [next(it), next(it)]
        return before, first, m.rand(1).item()
    e, t = both(run)
    assert e == t


def test_random_sampler_length_follows_dataset():
    def run(m, data):
        items = list(range(4))
        s = data.RandomSampler(items, generator=seeded(m, 0))
        items.extend([4, 5])
        return len(s), sorted(s)
    e, t = both(run)
    assert e == t == (6, [0, 1, 2, 3, 4, 5])


@pytest.mark.parametrize("kwargs", [dict(replacement=1), dict(replacement="yes"), dict(num_samples=0),
                                    dict(num_samples=-3), dict(num_samples=2.5), dict(data=[])])
def test_random_sampler_errors(kwargs):
    def run(m, data):
        kw = dict(kwargs)
        return data.RandomSampler(kw.pop("data", range(5)), **kw)
    raises_like(run)


@pytest.mark.parametrize("indices", [[5, 3, 9, 1], list(range(20)), [], [7]])
def test_subset_random_sampler(indices):
    def run(m, data):
        m.manual_seed(11)
        with_gen = data.SubsetRandomSampler(indices, generator=seeded(m, 5))
        default = data.SubsetRandomSampler(indices)
        return list(with_gen), list(with_gen), list(default), len(default), m.rand(1).item()
    e, t = both(run)
    assert e == t


def test_sequential_sampler():
    def run(m, data):
        s = data.SequentialSampler("abcde")
        return list(s), len(s), list(data.SequentialSampler([]))
    e, t = both(run)
    assert e == t


WEIGHTS = {"uniform": [1.0] * 6, "skewed": [0.1, 0.9, 0.4, 0.7, 3.0, 0.6], "with_zeros": [0.0, 2.0, 0.0, 1.0, 5.0],
           "tiny": [1e-300, 1e-300, 1.0], "one": [2.5]}


@pytest.mark.parametrize("weights", sorted(WEIGHTS))
@pytest.mark.parametrize("replacement, num_samples", [(True, 1), (True, 5), (True, 40), (False, 1), (False, 2),
                                                      (False, "nonzero")])
def test_weighted_random_sampler(weights, replacement, num_samples):
    w = WEIGHTS[weights]
    k = sum(1 for v in w if v > 0) if num_samples == "nonzero" else num_samples
    if not replacement:
        k = min(k, len(w))  # at most one of each

    def run(m, data):
        m.manual_seed(9)
        s = data.WeightedRandomSampler(w, k, replacement=replacement, generator=seeded(m, 21))
        default = data.WeightedRandomSampler(m.tensor(w), k, replacement=replacement)
        return list(s), list(s), len(s), list(default), m.rand(1, generator=s.generator).item(), m.rand(1).item()
    e, t = both(run)
    assert e == t


@pytest.mark.parametrize("case", ["num_samples_0", "num_samples_bool", "num_samples_float", "replacement_int",
                                  "weights_2d", "negative", "inf", "nan", "zero_sum", "zero_sum_no_replacement",
                                  "too_many_without_replacement"])
def test_weighted_random_sampler_errors(case):
    def run(m, data):
        w, k, repl = [1.0, 2.0], 2, True
        if case == "num_samples_0":
            k = 0
        elif case == "num_samples_bool":
            k = True
        elif case == "num_samples_float":
            k = 2.0
        elif case == "replacement_int":
            repl = 1
        elif case == "weights_2d":
            w = [[1.0, 2.0]]
        elif case in ("negative", "inf", "nan"):
            w = [1.0, {"negative": -1.0, "inf": float("inf"), "nan": float("nan")}[case]]
        elif case.startswith("zero_sum"):
            w, repl = [0.0, 0.0], case == "zero_sum"
        elif case == "too_many_without_replacement":
            k, repl = 3, False
        return list(data.WeightedRandomSampler(w, k, replacement=repl))
    raises_like(run)


@pytest.mark.parametrize("n, batch_size", [(10, 3), (9, 3), (2, 5), (0, 2), (7, 1)])
@pytest.mark.parametrize("drop_last", [False, True])
def test_batch_sampler(n, batch_size, drop_last):
    def run(m, data):
        s = data.BatchSampler(data.SequentialSampler(range(n)), batch_size, drop_last)
        r = data.BatchSampler(data.RandomSampler(range(n), generator=seeded(m, 2)) if n else [], batch_size,
                              drop_last)
        return list(s), len(s), list(r), len(r)
    e, t = both(run)
    assert e == t


def test_batch_sampler_over_any_iterable():
    def run(m, data):
        return list(data.BatchSampler(iter("abcdefg"), 3, False))
    e, t = both(run)
    assert e == t == [["a", "b", "c"], ["d", "e", "f"], ["g"]]


@pytest.mark.parametrize("batch_size, drop_last", [(0, False), (-1, False), (True, False), (2.0, False),
                                                   (None, False), (2, 1), (2, "no")])
def test_batch_sampler_errors(batch_size, drop_last):
    raises_like(lambda m, data: data.BatchSampler(range(4), batch_size, drop_last))


def test_sampler_without_len_raises_type_error():
    class Endless(edata.Sampler):
        def __iter__(self):
            return iter(range(3))
    with pytest.raises(TypeError):
        len(Endless(None))
    assert list(Endless(None)) == [0, 1, 2]


# ---------------------------------------------------------------------------------------------------------
# Datasets and random_split


def test_tensor_dataset():
    def run(m, data):
        x, y = m.arange(12.).reshape(4, 3), m.tensor([1, 0, 1, 1])
        ds = data.TensorDataset(x, y)
        return len(ds), ds[2], ds[-1], ds[1:3], ds[m.tensor([0, 3])]
    e, t = both(run)
    assert_same_tree(e, t)


@pytest.mark.parametrize("case", ["size_mismatch", "zero_dim"])
def test_tensor_dataset_errors(case):
    def run(m, data):
        if case == "size_mismatch":
            return data.TensorDataset(m.zeros(3, 2), m.zeros(4))
        return data.TensorDataset(m.tensor(1.0))
    raises_like(run)


def test_concat_dataset_and_add():
    def run(m, data):
        a, b, c = data.TensorDataset(m.arange(3)), data.TensorDataset(m.arange(10, 12)), \
            data.TensorDataset(m.arange(20, 24))
        cat = data.ConcatDataset([a, b, c])
        added = a + b
        items = [cat[i][0].item() for i in range(-len(cat), len(cat))]
        return len(cat), cat.cumulative_sizes, items, type(added).__name__, [x[0].item() for x in added]
    e, t = both(run)
    assert e == t


@pytest.mark.parametrize("case", ["empty", "iterable", "index_too_negative", "index_too_large"])
def test_concat_dataset_errors(case):
    def run(m, data):
        class Stream(data.IterableDataset):
            def __iter__(self):
                return iter([1])
        if case == "empty":
            return data.ConcatDataset([])
        if case == "iterable":
            return data.ConcatDataset([Stream()])
        cat = data.ConcatDataset([[1, 2], [3]])
        return cat[-4] if case == "index_too_negative" else cat[3]
    raises_like(run)


def test_chain_dataset_and_subset():
    def run(m, data):
        class Stream(data.IterableDataset):
            def __init__(self, items):
                self.items = items

            def __iter__(self):
                return iter(self.items)

            def __len__(self):
                return len(self.items)
        chained = Stream([1, 2]) + Stream([3])
        sub = data.Subset(list("abcdefg"), [6, 0, 3])
        return type(chained).__name__, list(chained), len(chained), len(sub), [sub[i] for i in range(3)], sub[-1]
    e, t = both(run)
    assert e == t


def test_subset_with_list_index_fetches_once():
    def run(m, data):
        calls = []

        class Batched:
            def __getitem__(self, idx):
                calls.append(idx)
                return [i * 10 for i in idx]
        return data.Subset(Batched(), [4, 5, 6])[[2, 0]], calls
    e, t = both(run)
    assert e == t == ([60, 40], [[6, 4]])


@pytest.mark.parametrize("n, lengths", [(10, [3, 7]), (10, [10, 0]), (30, [0.3, 0.3, 0.4]), (11, [0.5, 0.5]),
                                        (7, [0.2, 0.2, 0.2, 0.2, 0.2]), (5, [1.0]), (1, [1])])
def test_random_split(n, lengths):
    # Also the same warnings (about splits of size 0).
    def run(m, data):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with_gen = data.random_split(range(n), lengths, generator=seeded(m, 42))
            m.manual_seed(5)
            default = data.random_split(list(range(n)), lengths)
        return ([list(s) for s in with_gen], [s.indices for s in default], m.rand(1).item(),
                [str(w.message) for w in caught])
    e, t = both(run)
    assert e == t


@pytest.mark.parametrize("lengths", [[3, 3], [5, 6], [0.5, 0.6], [-0.5, 1.5], [1.2, -0.2]])
def test_random_split_errors(lengths):
    raises_like(lambda m, data: data.random_split(range(10), lengths, generator=seeded(m, 0)))


# ---------------------------------------------------------------------------------------------------------
# Collation


def collate_cases(m):
    """Batches (lists of samples) of every kind default_collate handles, built with framework m."""
    return {
        "tensors": [m.tensor([1.0, 2.0]), m.tensor([3.0, 4.0]), m.tensor([5.0, 6.0])],
        "int_tensors_0d": [m.tensor(3, dtype=m.int16), m.tensor(-1, dtype=m.int16)],
        "ints": [1, 2, 3],
        "floats": [1.5, 2.0],
        "bools": [True, False],
        "mixed_bool_int": [True, 2],
        "strings": ["a", "bc"],
        "bytes": [b"x", b"y"],
        "dicts": [{"img": m.ones(2, 2), "label": 1, "name": "p"}, {"img": m.zeros(2, 2), "label": 0, "name": "q"}],
        "ordered_dicts": [collections.OrderedDict(b=1.0, a=2), collections.OrderedDict(b=3.0, a=4)],
        "tuples": [(m.tensor([1]), 2, "s"), (m.tensor([3]), 4, "t")],
        "lists": [[1, 2.5], [3, 4.5]],
        "namedtuples": [Point(1, m.tensor(2.0)), Point(3, m.tensor(4.0))],
        "nested": [{"a": [(1, 2.0)], "b": Point([1], "x")}, {"a": [(3, 4.0)], "b": Point([2], "y")}],
        "numpy_float32": [np.arange(3, dtype=np.float32), np.ones(3, dtype=np.float32)],
        "numpy_int16_2d": [np.arange(4, dtype=np.int16).reshape(2, 2)] * 2,
        "numpy_uint8": [np.array([1, 255], dtype=np.uint8), np.array([0, 7], dtype=np.uint8)],
        "numpy_bool": [np.array([True]), np.array([False])],
        "numpy_0d": [np.array(1.5), np.array(2.5)],
        "numpy_scalars_float32": [np.float32(1.5), np.float32(2.0)],
        "numpy_scalars_int64": [np.int64(1), np.int64(2)],
        "numpy_scalars_bool": [np.bool_(True), np.bool_(False)],
        "numpy_scalars_float64": [np.float64(0.5)],
        "numpy_strided": [np.arange(6.0)[::2], np.arange(6.0)[1::2]],
    }


# PyTorch's as_tensor of NumPy bools warns in NumPy's index conversion.
@pytest.mark.filterwarnings("ignore:In future, it will be an error for 'np.bool_'")
@pytest.mark.parametrize("case", sorted(collate_cases(ember)))
def test_default_collate(case):
    e, t = both(lambda m, data: data.default_collate(collate_cases(m)[case]))
    assert_same_tree(e, t)


@pytest.mark.filterwarnings("ignore:In future, it will be an error for 'np.bool_'")
@pytest.mark.parametrize("case", sorted(collate_cases(ember)))
def test_default_convert(case):
    def run(m, data):
        return [data.default_convert(sample) for sample in collate_cases(m)[case]]
    e, t = both(run)
    assert_same_tree(e, t)


def test_default_convert_leaves_string_arrays_and_numpy_strings():
    for value in [np.array(["a", "b"]), np.array([object()], dtype=object), np.str_("s")]:
        assert edata.default_convert(value) is value


@pytest.mark.parametrize("case", ["shape_mismatch", "uneven_lists", "object", "numpy_strings", "none"])
def test_default_collate_errors(case):
    def run(m, data):
        batch = {"shape_mismatch": [m.ones(2), m.ones(3)], "uneven_lists": [[1, 2], [3]], "object": [object()],
                 "numpy_strings": [np.array(["a"]), np.array(["b"])], "none": [None, None]}[case]
        return data.default_collate(batch)
    raises_like(run)


def test_collate_fn_map_extends_default_collate():
    class Box:
        def __init__(self, v):
            self.v = v
    edata._utils.collate.default_collate_fn_map[Box] = lambda batch, *, collate_fn_map: sum(b.v for b in batch)
    try:
        assert edata.default_collate([(Box(1), 2), (Box(3), 4)])[0] == 4
    finally:
        del edata._utils.collate.default_collate_fn_map[Box]


# ---------------------------------------------------------------------------------------------------------
# DataLoader in the main process


class SampleDataset:
    """A map-style dataset (by duck typing, valid for both frameworks) of dict samples built with m."""

    def __init__(self, m, n=11):
        self.m, self.n = m, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        m = self.m
        return {"x": m.arange(3, dtype=m.float32) + i, "y": i % 3, "w": i / 4, "name": f"s{i}",
                "pair": (np.full((2,), i, dtype=np.int32), m.tensor(i % 2 == 0))}


def loader_batches(m, data, n=11, **kwargs):
    loader = data.DataLoader(SampleDataset(m, n), **kwargs)
    return len(loader), list(loader)


@pytest.mark.parametrize("kwargs", [dict(), dict(batch_size=4), dict(batch_size=4, drop_last=True),
                                    dict(batch_size=11), dict(batch_size=20), dict(batch_size=20, drop_last=True),
                                    dict(batch_size=None)])
def test_dataloader_batches(kwargs):
    e, t = both(lambda m, data: loader_batches(m, data, **kwargs))
    assert_same_tree(e, t)


@pytest.mark.parametrize("batch_size, drop_last", [(3, False), (3, True), (None, False)])
def test_dataloader_shuffle_with_generator(batch_size, drop_last):
    # Two epochs from one generator (each draws the base seed, then the permutation) and the generator's state
    # afterwards.
    def run(m, data):
        g = seeded(m, 99)
        loader = data.DataLoader(SampleDataset(m), batch_size=batch_size, drop_last=drop_last, shuffle=True,
                                 generator=g)
        return list(loader), list(loader), m.rand(2, generator=g)
    e, t = both(run)
    assert_same_tree(e, t)


def test_dataloader_shuffle_with_default_generator():
    def run(m, data):
        m.manual_seed(2024)
        x = m.arange(40.).reshape(20, 2)
        loader = data.DataLoader(data.TensorDataset(x, m.arange(20)), batch_size=6, shuffle=True)
        return list(loader), list(loader), m.rand(2)
    e, t = both(run)
    assert_same_tree(e, t)


def test_dataloader_samplers_and_collate_fn():
    def run(m, data):
        ds = SampleDataset(m, 9)
        by_sampler = list(data.DataLoader(ds, batch_size=2, sampler=data.SubsetRandomSampler([8, 1, 4, 2],
                                                                                          generator=seeded(m, 1))))
        batch_sampler = data.BatchSampler(data.SequentialSampler(ds), 4, True)
        by_batch_sampler = data.DataLoader(ds, batch_sampler=batch_sampler)
        custom = data.DataLoader(ds, batch_size=3, collate_fn=lambda b: [s["y"] for s in b])
        return by_sampler, list(by_batch_sampler), len(by_batch_sampler), list(custom)
    e, t = both(run)
    assert_same_tree(e, t)


def test_dataloader_getitems_fetches_whole_batches():
    def run(m, data):
        class Batched:
            def __len__(self):
                return 5

            def __getitem__(self, i):
                raise AssertionError("__getitems__ is used")

            def __getitems__(self, indices):
                return [i * 2 for i in indices]
        return list(data.DataLoader(Batched(), batch_size=2))
    e, t = both(run)
    assert_same_tree(e, t)


def make_stream(data, n, shard=False):
    """An IterableDataset of 0..n-1; with shard, each worker yields every num_workers-th item."""
    class Stream(data.IterableDataset):
        def __iter__(self):
            info = data.get_worker_info()
            if not shard or info is None:
                return iter(range(n))
            return iter(range(info.id, n, info.num_workers))

        def __len__(self):
            return n
    return Stream()


@pytest.mark.parametrize("kwargs", [dict(), dict(batch_size=3), dict(batch_size=3, drop_last=True),
                                    dict(batch_size=None),
                                    pytest.param(dict(batch_size=3, num_workers=2), marks=forks),
                                    pytest.param(dict(batch_size=None, num_workers=2), marks=forks),
                                    pytest.param(dict(batch_size=2, num_workers=2, drop_last=True), marks=forks)])
def test_iterable_dataset_loader(kwargs):
    def run(m, data):
        loader = data.DataLoader(make_stream(data, 8, shard=True), **kwargs)
        return len(loader), list(loader)
    e, t = both(run)
    assert_same_tree(e, t)


def test_iterable_dataset_longer_than_its_len_warns():
    class Liar(edata.IterableDataset):
        def __iter__(self):
            return iter(range(3))

        def __len__(self):
            return 2
    loader = edata.DataLoader(Liar())
    assert len(loader) == 2
    with pytest.warns(UserWarning, match="Length of IterableDataset"):
        assert len(list(loader)) == 3


def stream_of(data):
    return make_stream(data, 3)


@pytest.mark.parametrize("case", [
    "batch_size_0", "batch_size_negative", "sampler_and_shuffle", "batch_sampler_and_batch_size",
    "batch_sampler_and_shuffle", "batch_sampler_and_sampler", "batch_sampler_and_drop_last",
    "no_batch_size_and_drop_last", "negative_workers", "negative_timeout", "prefetch_without_workers",
    "persistent_without_workers", "iterable_with_shuffle", "iterable_with_sampler", "iterable_with_batch_sampler",
    "bad_start_method", "context_without_workers", "context_of_wrong_type", "set_batch_size_after_init",
    "set_sampler_after_init", "shuffle_empty_dataset", "len_of_dataset_without_len"])
def test_dataloader_errors(case):
    def run(m, data):
        ds = SampleDataset(m, 4)
        DL = data.DataLoader
        if case == "batch_size_0":
            return DL(ds, batch_size=0)
        if case == "batch_size_negative":
            return DL(ds, batch_size=-2)
        if case == "sampler_and_shuffle":
            return DL(ds, sampler=data.SequentialSampler(ds), shuffle=True)
        if case.startswith("batch_sampler_and_"):
            extra = {"batch_size": dict(batch_size=2), "shuffle": dict(shuffle=True), "sampler": dict(sampler=[0, 1]),
                     "drop_last": dict(drop_last=True)}[case[len("batch_sampler_and_"):]]
            return DL(ds, batch_sampler=[[0, 1]], **extra)
        if case == "no_batch_size_and_drop_last":
            return DL(ds, batch_size=None, drop_last=True)
        if case == "negative_workers":
            return DL(ds, num_workers=-1)
        if case == "negative_timeout":
            return DL(ds, timeout=-1)
        if case == "prefetch_without_workers":
            return DL(ds, prefetch_factor=4)
        if case == "persistent_without_workers":
            return DL(ds, persistent_workers=True)
        if case == "iterable_with_shuffle":
            return DL(stream_of(data), shuffle=True)
        if case == "iterable_with_sampler":
            return DL(stream_of(data), sampler=[0, 1])
        if case == "iterable_with_batch_sampler":
            return DL(stream_of(data), batch_sampler=[[0]])
        if case == "bad_start_method":
            return DL(ds, num_workers=1, multiprocessing_context="teleport")
        if case == "context_without_workers":
            return DL(ds, multiprocessing_context="fork")
        if case == "context_of_wrong_type":
            return DL(ds, num_workers=1, multiprocessing_context=42)
        if case == "set_batch_size_after_init":
            DL(ds).batch_size = 3
        if case == "set_sampler_after_init":
            DL(ds).sampler = [0]
        if case == "shuffle_empty_dataset":
            return DL([], shuffle=True)
        if case == "len_of_dataset_without_len":
            return len(DL(stream_of(data).__iter__()))
        raise AssertionError("unknown case")
    raises_like(run)


def test_more_workers_than_cpus_warns():
    cpus = len(os.sched_getaffinity(0))

    def run(m, data):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            data.DataLoader([1], num_workers=cpus + 1)
            data.DataLoader([1], num_workers=cpus)
        return [str(w.message) for w in caught]
    e, t = both(run)
    assert e == t and len(e) == 1 and f"will create {cpus + 1} worker processes" in e[0]


def test_settable_attributes_after_init():
    loader = edata.DataLoader(SampleDataset(ember, 4), batch_size=2)
    loader.num_workers = 0
    loader.collate_fn = lambda b: len(b)
    assert list(loader) == [2, 2]


# ---------------------------------------------------------------------------------------------------------
# DataLoader with worker processes


@forks
@pytest.mark.filterwarnings("ignore:This DataLoader will create 3 worker processes")  # on 2 CPUs
@pytest.mark.parametrize("kwargs", [dict(batch_size=4, shuffle=True), dict(batch_size=3, drop_last=True),
                                    dict(batch_size=None, shuffle=True), dict(batch_size=2, prefetch_factor=1),
                                    dict(batch_size=1, shuffle=True, num_workers=3)])
def test_workers_give_the_batches_of_the_main_process(kwargs):
    kwargs = dict(kwargs)
    workers = kwargs.pop("num_workers", 2)

    def run(m, data, num_workers):
        kw = {k: v for k, v in kwargs.items() if num_workers or k != "prefetch_factor"}
        loader = data.DataLoader(SampleDataset(m, 13), num_workers=num_workers, generator=seeded(m, 8), **kw)
        return len(loader), list(loader), list(loader)
    in_process = run(ember, edata, 0)
    with_workers = run(ember, edata, workers)
    assert_same_tree(with_workers, run(torch, tdata, workers))
    assert len(in_process[1]) == len(with_workers[1])
    for a, b in zip(in_process[1] + in_process[2], with_workers[1] + with_workers[2]):
        assert_same_tree(a, b)


def probe_worker(m):
    """What a worker's dataset sees: its info and the first numbers of every generator it was seeded."""
    info = m.utils.data.get_worker_info()
    return [info.id, info.num_workers, info.seed, m.initial_seed(), random.random(), int(np.random.randint(1 << 30)),
            m.randint(0, 1 << 30, (2,)).tolist()]


class ProbeDataset:
    def __init__(self, m):
        self.m = m

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return probe_worker(self.m)


@forks
@pytest.mark.parametrize("use_generator", [False, True])
def test_worker_seeds_match_pytorch(use_generator):
    # The base seed comes from the loader's generator (or the default one); worker i seeds Python's random,
    # the framework's default generator and NumPy's global generator from base_seed + i as PyTorch does.
    def run(m, data):
        m.manual_seed(77)
        generator = seeded(m, 5) if use_generator else None
        loader = data.DataLoader(ProbeDataset(m), batch_size=None, num_workers=2, generator=generator)
        return list(loader), m.rand(1).item()
    e, t = both(run)
    assert e == t
    assert [b[0] for b in e[0]] == [0, 1, 0, 1]


@forks
def test_worker_init_fn_and_worker_info():
    def init(worker_id):
        info = edata.get_worker_info()
        assert info.id == worker_id
        info.dataset.tag = f"w{worker_id}"
        with pytest.raises(RuntimeError):
            info.id = 5

    class Tagged:
        tag = "main"

        def __len__(self):
            return 4

        def __getitem__(self, i):
            info = edata.get_worker_info()
            return f"{self.tag}:{info.id}/{info.num_workers}:{i}:{info.dataset is self}"
    loader = edata.DataLoader(Tagged(), batch_size=None, num_workers=2, worker_init_fn=init)
    assert list(loader) == ["w0:0/2:0:True", "w1:1/2:1:True", "w0:0/2:2:True", "w1:1/2:3:True"]
    assert Tagged.tag == "main"  # the workers changed their own copies
    assert "WorkerInfo(id=" in repr(edata._utils.worker.WorkerInfo(id=0, num_workers=1, seed=3, dataset=None))


@forks
def test_workers_run_ops_with_one_thread():
    class Threads:
        def __len__(self):
            return 2

        def __getitem__(self, i):
            return ember.get_num_threads()
    ember.set_num_threads(2)
    assert list(edata.DataLoader(Threads(), batch_size=None, num_workers=2)) == [1, 1]
    assert ember.get_num_threads() == 2


class Failing:
    def __init__(self, bad_index, exc_type):
        self.bad_index, self.exc_type = bad_index, exc_type

    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == self.bad_index:
            raise self.exc_type(f"sample {i} is broken")
        return i


@forks
@pytest.mark.parametrize("exc_type", [ValueError, KeyError, IndexError])
@pytest.mark.parametrize("num_workers", [0, 2])
def test_dataset_exception_propagates(exc_type, num_workers):
    loader = edata.DataLoader(Failing(3, exc_type), batch_size=None, num_workers=num_workers)
    it = iter(loader)
    assert [next(it) for _ in range(3)] == [0, 1, 2]
    with pytest.raises(exc_type) as info:
        next(it)
    if num_workers:
        text = str(info.value)
        assert "Caught {} in DataLoader worker process 1.".format(exc_type.__name__) in text
        assert "Original Traceback (most recent call last):" in text
        assert "in __getitem__" in text and "sample 3 is broken" in text
    # The iterator goes on after an error, as PyTorch's does.
    assert list(it) == [4, 5]


class TwoArgs(Exception):
    def __init__(self, a, b):
        super().__init__(a, b)


class Raises:
    """A dataset whose every sample raises make_error()."""

    def __init__(self, make_error):
        self.make_error = make_error

    def __len__(self):
        return 2

    def __getitem__(self, i):
        raise self.make_error()


@forks
def test_exception_needing_more_arguments_becomes_runtime_error():
    with pytest.raises(RuntimeError, match="Caught TwoArgs in DataLoader worker process 0"):
        list(edata.DataLoader(Raises(lambda: TwoArgs(1, 2)), num_workers=1))


@forks
def test_exception_of_a_local_class_becomes_runtime_error():
    # Its class cannot be pickled to the main process; the error still arrives (no hang).
    class Local(Exception):
        pass
    with pytest.raises(RuntimeError, match="(?s)Caught Local in DataLoader worker process 0.*local failure"):
        list(edata.DataLoader(Raises(lambda: Local("local failure")), num_workers=1))


@forks
def test_unpicklable_batch_raises_instead_of_hanging():
    loader = edata.DataLoader([0, 1], batch_size=None, num_workers=1, collate_fn=lambda x: (lambda: x))
    with pytest.raises(AttributeError, match="(?s)in DataLoader worker process 0 \\(sending a batch\\).*pickle"):
        list(loader)


@forks
def test_worker_init_fn_exception_propagates():
    def init(worker_id):
        if worker_id == 1:
            raise ZeroDivisionError("init failed")
    with pytest.raises(ZeroDivisionError, match="init failed"):
        list(edata.DataLoader(list(range(6)), num_workers=2, worker_init_fn=init))


@forks
def test_collate_exception_propagates_from_worker():
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        list(edata.DataLoader([ember.ones(2), ember.ones(3)], batch_size=2, num_workers=1))


@forks
def test_dead_worker_is_reported():
    class Crash:
        def __len__(self):
            return 4

        def __getitem__(self, i):
            if edata.get_worker_info().id == 1:
                os._exit(3)
            return i
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly"):
        list(edata.DataLoader(Crash(), batch_size=None, num_workers=2))


@forks
def test_timeout():
    blocked = threading.Event()  # never set: in the worker, the first fetch blocks for good

    class Stuck:
        def __len__(self):
            return 2

        def __getitem__(self, i):
            blocked.wait()
    it = iter(edata.DataLoader(Stuck(), num_workers=1, timeout=0.3))
    workers = it._workers
    with pytest.raises(RuntimeError, match=r"DataLoader timed out after 0.3 seconds"):
        next(it)
    del it
    gc.collect()
    assert not any(w.is_alive() for w in workers)


@forks
@pytest.mark.parametrize("consumed", [0, 1, 5])
def test_abandoned_iterator_stops_its_workers(consumed):
    it = iter(edata.DataLoader(list(range(40)), batch_size=2, num_workers=2))
    for _ in range(consumed):
        next(it)
    workers = it._workers
    assert all(w.is_alive() for w in workers)
    del it
    gc.collect()
    assert not any(w.is_alive() for w in workers)


@forks
def test_exhausted_iterator_stops_its_workers():
    it = iter(edata.DataLoader(list(range(5)), batch_size=2, num_workers=2))
    assert len(list(it)) == 3
    assert not any(w.is_alive() for w in it._workers)
    with pytest.raises(StopIteration):
        next(it)


@forks
def test_persistent_workers():
    class Pids:
        def __len__(self):
            return 6

        def __getitem__(self, i):
            return os.getpid(), i

    def run(m, data, persistent):
        loader = data.DataLoader(SampleDataset(m, 9), batch_size=2, shuffle=True, num_workers=2,
                                 persistent_workers=persistent, generator=seeded(m, 4))
        first = list(loader)
        it = iter(loader)
        next(it)  # an epoch abandoned after one batch
        return first, list(loader), m.rand(2, generator=loader.generator)
    e, t = run(ember, edata, True), run(torch, tdata, True)
    assert_same_tree(e, t)
    loader = edata.DataLoader(Pids(), batch_size=None, num_workers=2, persistent_workers=True)
    epochs = [list(loader) for _ in range(3)]
    assert [[i for _, i in epoch] for epoch in epochs] == [list(range(6))] * 3
    assert len({pid for epoch in epochs for pid, _ in epoch}) == 2  # the same two processes every epoch
    workers = loader._iterator._workers
    del loader, epochs
    gc.collect()
    assert not any(w.is_alive() for w in workers)


@forks
def test_persistent_workers_with_iterable_dataset():
    # Workers that ran dry are given work again in the next epoch, also after an abandoned one.
    def run(m, data):
        loader = data.DataLoader(make_stream(data, 7, shard=True), batch_size=2, num_workers=2,
                                 persistent_workers=True)
        epochs = [list(loader), list(loader)]
        next(iter(loader))
        return epochs + [list(loader)]
    e, t = both(run)
    assert_same_tree(e, t)


@forks
@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_multiprocessing_context_by_name(method):
    # spawn pickles the dataset to fresh interpreters (a TensorDataset pickles with its tensors).
    ds = edata.TensorDataset(ember.arange(10.).reshape(5, 2), ember.arange(5))
    loader = edata.DataLoader(ds, batch_size=2, num_workers=2, multiprocessing_context=method)
    assert loader.multiprocessing_context.get_start_method() == method
    assert [b[1].tolist() for b in loader] == [[0, 1], [2, 3], [4]]


def run_script(code, timeout=120):
    """Runs code in a fresh interpreter (with this checkout's ember first on the path); returns its stdout.
    Fails when it does not finish within timeout seconds (a hang) or exits with an error."""
    python_dir = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "python"))
    env = dict(os.environ, PYTHONPATH=python_dir + os.pathsep + os.environ.get("PYTHONPATH", ""))
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                            timeout=timeout)
    assert result.returncode == 0, result.stderr
    return result.stdout


@forks
def test_workers_after_parallel_ops_in_the_parent():
    # The parent runs OpenMP-parallel kernels and a multi-threaded OpenBLAS product first; forked workers then
    # run both kinds of ops themselves. Without one thread in the workers (Note [threads after fork]) the
    # first parallel region in a worker waits forever.
    out = run_script("""
        import ember
        from ember.utils.data import DataLoader
        ember.set_num_threads(2)
        a = ember.randn(512, 512)
        parent = float((a @ a).sum()) + float((ember.randn(2000000) * 2).sum())

        class Work:
            def __len__(self):
                return 6

            def __getitem__(self, i):
                b = ember.randn(256, 256)
                c = ember.randn(1000000)
                return ember.stack([(b @ b).sum(), (c * c).sum(), ember.tensor(float(ember.get_num_threads()))])

        batches = list(DataLoader(Work(), batch_size=2, num_workers=2))
        threads = ember.cat([b[:, 2] for b in batches]).tolist()
        print(len(batches), threads, (a @ a).shape)
    """)
    assert out.split() == ["3", "[1.0,", "1.0,", "1.0,", "1.0,", "1.0,", "1.0]", "ember.Size([512,", "512])"]


@forks
def test_interpreter_exits_with_live_workers():
    # Iterators still running at exit (one abandoned mid-epoch, one with persistent workers) do not hold up
    # the interpreter's exit.
    out = run_script("""
        from ember.utils.data import DataLoader
        it = iter(DataLoader(list(range(100)), batch_size=2, num_workers=2))
        print(next(it).tolist())
        persistent = DataLoader(list(range(10)), batch_size=5, num_workers=2, persistent_workers=True)
        print(len(list(persistent)))
    """, timeout=60)
    assert out.split() == ["[0,", "1]", "2"]
