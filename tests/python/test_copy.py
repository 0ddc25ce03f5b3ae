"""Copies between layouts whose unit-stride dims differ (the tiled path of Note [transposed copy] in
ember/kernels/cpu/copy.cpp) against PyTorch 1.13: every element size, sizes that are not multiples of the
tile, zero-size, batched and 3-D permutations, non-contiguous destinations, and the small sizes that keep the
generic loop."""
import pytest

import ember
from conftest import ALL_DTYPES, assert_same, make_tensor, to_torch

# One dtype per element size (1, 2, 4, 8 bytes) plus bool and bfloat16, which share sizes with others.
SIZES_2D = [(64, 64), (33, 97), (1000, 3), (17, 16), (130, 257), (0, 50), (50, 0), (5, 7)]


@pytest.mark.parametrize("shape", SIZES_2D, ids=str)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_transposed_contiguous_matches_reference(shape, dtype):
    a = make_tensor(shape, dtype)
    assert_same(a.t().contiguous(), to_torch(a).t().contiguous())


@pytest.mark.parametrize("shape", SIZES_2D, ids=str)
@pytest.mark.parametrize("dtype", ["uint8", "int16", "float32", "float64"])
def test_copy_into_transposed_destination(shape, dtype):
    """dst.t().copy_(src): the destination is the transposed side, the source contiguous."""
    src = make_tensor(shape, dtype, seed=1)
    dst = ember.zeros(shape[::-1], dtype=src.dtype)
    dst.t().copy_(src)
    ref = to_torch(src).t().contiguous()
    assert_same(dst, ref)


@pytest.mark.parametrize("dtype", ["int8", "float16", "int32", "int64"])
@pytest.mark.parametrize("perm", [(0, 2, 1), (2, 1, 0), (1, 2, 0), (2, 0, 1), (1, 0, 2)], ids=str)
def test_permuted_3d_contiguous(perm, dtype):
    a = make_tensor((3, 45, 70), dtype)
    assert_same(a.permute(*perm).contiguous(), to_torch(a).permute(*perm).contiguous())


@pytest.mark.parametrize("dtype", ["uint8", "bfloat16", "float32", "float64"])
def test_batched_transpose_4d(dtype):
    a = make_tensor((2, 3, 40, 33), dtype)
    assert_same(a.transpose(-1, -2).contiguous(), to_torch(a).transpose(-1, -2).contiguous())


@pytest.mark.parametrize("dtype", ["int16", "float32", "float64"])
def test_non_contiguous_destination(dtype):
    """The destination is a column slice of a wider matrix (row stride larger than its width); the columns
    outside it stay untouched."""
    src = make_tensor((70, 90), dtype, seed=2)
    big = ember.zeros((90, 150), dtype=src.dtype)
    big[:, 10:80].copy_(src.t())
    ref = to_torch(ember.zeros((90, 150), dtype=src.dtype))
    ref[:, 10:80].copy_(to_torch(src).t())
    assert_same(big, ref)


def test_broadcast_source_and_dtype_change_keep_generic_path():
    src = make_tensor((1, 64), "float32")
    dst = ember.zeros((64, 64), dtype=ember.float32).t()
    dst.copy_(src)
    ref = to_torch(ember.zeros((64, 64), dtype=ember.float32)).t()
    ref.copy_(to_torch(src))
    assert_same(dst, ref)
    a = make_tensor((64, 80), "float32")
    assert_same(a.t().to(ember.float64).contiguous(), to_torch(a).t().to(__import__("torch").float64).contiguous())


@pytest.mark.parametrize("threads", [1, 2])
def test_transposed_copy_large_parallel(threads):
    ember.set_num_threads(threads)
    a = make_tensor((700, 530), "float32")
    assert_same(a.t().contiguous(), to_torch(a).t().contiguous())
