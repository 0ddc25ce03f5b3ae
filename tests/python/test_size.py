"""ember.Size behaves as torch.Size in every tuple operation (issue 19): concatenation and repetition give a Size,
a list never mixes in (TypeError), slicing, hashing, comparison, construction from ints and __index__ objects, and
PyTorch's errors for anything else."""
import operator
import pickle

import numpy as np
import pytest
import torch

import ember


def same_result(fn):
    """Runs fn(ember) and fn(torch); both raise the same exception type, or give equal values of matching types
    (Size for Size, tuple for tuple)."""
    try:
        want = fn(torch)
    except Exception as e:  # noqa: BLE001 - any exception type is compared
        with pytest.raises(type(e)):
            fn(ember)
        return
    got = fn(ember)
    assert type(got).__name__ == type(want).__name__, (got, want)
    assert got == want


SIZE_OPS = {
    "concat_tuple": lambda m: m.Size([2, 3]) + (4,),
    "tuple_concat": lambda m: (4,) + m.Size([2, 3]),
    "concat_size": lambda m: m.Size([2, 3]) + m.Size([5]),
    "concat_list": lambda m: m.Size([2, 3]) + [4],
    "list_concat": lambda m: [4] + m.Size([2, 3]),
    "add_method_list": lambda m: m.Size([1]).__add__([3]),
    "repeat": lambda m: m.Size([2, 3]) * 2,
    "repeat_left": lambda m: 2 * m.Size([2, 3]),
    "repeat_zero": lambda m: m.Size([3]) * 0,
    "repeat_float": lambda m: m.Size([3]) * 2.0,
    "repeat_size": lambda m: m.Size([3]) * m.Size([1]),
    "slice": lambda m: m.Size([2, 3, 4])[1:],
    "slice_step": lambda m: m.Size([2, 3, 4])[::-1],
    "index": lambda m: m.Size([2, 3, 4])[-1],
    "index_out_of_range": lambda m: m.Size([2])[5],
    "eq_tuple": lambda m: m.Size([2, 3]) == (2, 3),
    "eq_list": lambda m: m.Size([2, 3]) == [2, 3],
    "lt": lambda m: m.Size([2, 3]) < (3,),
    "hash": lambda m: hash(m.Size([2, 3])) == hash((2, 3)),
    "count": lambda m: m.Size([2, 3, 2]).count(2),
    "index_of": lambda m: m.Size([2, 3]).index(3),
    "numel": lambda m: m.Size([2, 3, 4]).numel(),
    "numel_empty": lambda m: m.Size([]).numel(),
    "len": lambda m: len(m.Size([2, 0, 1])),
    "contains": lambda m: 3 in m.Size([2, 3]),
    "from_generator": lambda m: m.Size(i for i in range(3)),
    "from_bool": lambda m: m.Size([True, 2]),
    "from_numpy_int": lambda m: m.Size([np.int64(3)]),
    "from_int_tensor": lambda m: m.Size([m.tensor(3)]),
    "negative": lambda m: m.Size([-1, 2]),
    "empty": lambda m: m.Size(),
    "from_float": lambda m: m.Size([2.0]),
    "from_float_tensor": lambda m: m.Size([m.tensor(2.5)]),
    "from_vector_tensor": lambda m: m.Size([m.tensor([1, 2])]),
    "from_str": lambda m: m.Size("ab"),
    "from_none": lambda m: m.Size([None]),
    "from_int": lambda m: m.Size(5),
    "shape_plus_tuple": lambda m: m.zeros(2, 3).shape + (1,),
    "shape_slice": lambda m: m.zeros(2, 3, 4).shape[1:],
    "shape_repeat": lambda m: m.zeros(2).shape * 3,
}


@pytest.mark.parametrize("name", SIZE_OPS)
def test_size_matches_torch(name):
    same_result(SIZE_OPS[name])


def test_size_refuses_items_beyond_int64_when_built():
    # PyTorch 1.13 builds torch.Size([2**70]) and fails only when printing it; Ember refuses it at once.
    with pytest.raises(RuntimeError, match="Overflow when unpacking long"):
        ember.Size([2 ** 70])


def test_size_error_message_names_the_item():
    with pytest.raises(TypeError, match=r"ember.Size\(\) takes an iterable of 'int' \(item 1 is 'float'\)"):
        ember.Size([2, 3.5])


def test_size_repr_pickles_and_feeds_factories():
    s = ember.Size([2, 3])
    assert repr(s) == "ember.Size([2, 3])"
    assert pickle.loads(pickle.dumps(s)) == s and type(pickle.loads(pickle.dumps(s))) is ember.Size
    assert ember.zeros(s + (4,)).shape == (2, 3, 4)
    assert operator.concat(s, (1,)) == (2, 3, 1)
