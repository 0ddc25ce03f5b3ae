"""View ops against PyTorch: values, shapes, strides and storage offsets of the view, storage sharing (a change
of the base is seen through the view and the other way round), non-contiguous and zero-size inputs, and the
errors (exception types) PyTorch raises."""
import pytest
import torch

import ember
from conftest import (ALL_DTYPES, assert_raises_like, assert_same, check, make_tensor, to_torch, torch_like)

# (id, input shape, layout, f(lib, x)): f is written once for both libraries (same API).
VIEW_CASES = [
    ("view", (3, 4), "contiguous", lambda L, x: x.view(2, 6)),
    ("view_tuple", (3, 4), "contiguous", lambda L, x: x.view((4, 3))),
    ("view_minus_one", (3, 4), "contiguous", lambda L, x: x.view(-1, 2)),
    ("view_0dim", (), "contiguous", lambda L, x: x.view(1, 1)),
    ("view_to_0dim", (1,), "contiguous", lambda L, x: x.view(())),
    ("view_flat", (2, 3, 2), "contiguous", lambda L, x: x.view(-1)),
    ("view_zero_size", (2, 0, 3), "contiguous", lambda L, x: x.view(0, 6)),
    ("view_zero_size_merge", (2, 0, 3), "contiguous", lambda L, x: x.view(2, 0)),
    ("view_zero_size_minus_one", (2, 0, 3), "contiguous", lambda L, x: x.view(-1, 3)),
    ("view_split_noncontig", (4, 6), "transposed", lambda L, x: x.view(3, 2, 4)),
    ("view_size", (3, 4), "contiguous", lambda L, x: x.view(L.Size([12]))),
    ("view_as", (3, 4), "contiguous", lambda L, x: x.view_as(L.empty(6, 2))),
    ("reshape_view", (3, 4), "contiguous", lambda L, x: x.reshape(4, 3)),
    ("reshape_copy", (3, 4), "transposed", lambda L, x: x.reshape(12)),
    ("reshape_function", (3, 4), "strided", lambda L, x: L.reshape(x, (2, -1))),
    ("reshape_as", (3, 4), "contiguous", lambda L, x: x.reshape_as(L.empty(2, 6))),
    ("reshape_0dim", (), "contiguous", lambda L, x: x.reshape(-1)),
    ("permute", (2, 3, 4), "contiguous", lambda L, x: x.permute(2, 0, 1)),
    ("permute_tuple", (2, 3, 4), "transposed", lambda L, x: x.permute((1, 2, 0))),
    ("permute_negative", (2, 3, 4), "contiguous", lambda L, x: L.permute(x, (-1, 0, 1))),
    ("permute_0dim", (), "contiguous", lambda L, x: x.permute()),
    ("transpose", (2, 3, 4), "contiguous", lambda L, x: x.transpose(0, 2)),
    ("transpose_negative", (2, 3, 4), "strided", lambda L, x: L.transpose(x, -1, -2)),
    ("transpose_same", (2, 3), "contiguous", lambda L, x: x.transpose(1, 1)),
    ("transpose_0dim", (), "contiguous", lambda L, x: x.transpose(0, -1)),
    ("t", (2, 3), "contiguous", lambda L, x: x.t()),
    ("t_1d", (5,), "contiguous", lambda L, x: L.t(x)),
    ("t_0dim", (), "contiguous", lambda L, x: x.t()),
    ("T", (2, 3), "transposed", lambda L, x: x.T),
    ("mT", (2, 3, 4), "contiguous", lambda L, x: x.mT),
    ("expand", (3, 1), "contiguous", lambda L, x: x.expand(3, 4)),
    ("expand_new_dims", (3, 1), "contiguous", lambda L, x: x.expand(2, 3, 5)),
    ("expand_minus_one", (3, 1), "contiguous", lambda L, x: x.expand(-1, 4)),
    ("expand_tuple", (1,), "contiguous", lambda L, x: x.expand((2, 3))),
    ("expand_0dim", (), "contiguous", lambda L, x: x.expand(4)),
    ("expand_to_zero", (3, 1), "contiguous", lambda L, x: x.expand(3, 0)),
    ("expand_as", (1, 4), "contiguous", lambda L, x: x.expand_as(L.empty(3, 4))),
    ("narrow", (4, 5), "contiguous", lambda L, x: x.narrow(1, 1, 3)),
    ("narrow_negative_start", (4, 5), "transposed", lambda L, x: L.narrow(x, 0, -3, 2)),
    ("narrow_empty", (4, 5), "contiguous", lambda L, x: x.narrow(0, 4, 0)),
    ("select", (3, 4), "contiguous", lambda L, x: x.select(0, 1)),
    ("select_negative", (3, 4), "strided", lambda L, x: L.select(x, -1, -2)),
    ("select_to_0dim", (3,), "contiguous", lambda L, x: x.select(0, 2)),
    ("squeeze", (1, 3, 1, 2), "contiguous", lambda L, x: x.squeeze()),
    ("squeeze_dim", (1, 3, 1, 2), "contiguous", lambda L, x: x.squeeze(2)),
    ("squeeze_not_one", (1, 3, 1, 2), "contiguous", lambda L, x: x.squeeze(1)),
    ("squeeze_negative", (1, 3, 1), "transposed", lambda L, x: L.squeeze(x, -1)),
    ("squeeze_0dim", (), "contiguous", lambda L, x: x.squeeze(0)),
    ("squeeze_zero_size", (1, 0, 1), "contiguous", lambda L, x: x.squeeze()),
    ("unsqueeze", (3, 4), "contiguous", lambda L, x: x.unsqueeze(1)),
    ("unsqueeze_end", (3, 4), "transposed", lambda L, x: x.unsqueeze(-1)),
    ("unsqueeze_negative", (3, 4), "contiguous", lambda L, x: L.unsqueeze(x, -3)),
    ("unsqueeze_0dim", (), "contiguous", lambda L, x: x.unsqueeze(0)),
    ("flatten", (2, 3, 4), "contiguous", lambda L, x: x.flatten()),
    ("flatten_range", (2, 3, 4, 5), "contiguous", lambda L, x: x.flatten(1, 2)),
    ("flatten_noncontig", (2, 3, 4), "transposed", lambda L, x: L.flatten(x, 0, 1)),
    ("flatten_0dim", (), "contiguous", lambda L, x: x.flatten()),
    ("flatten_negative", (2, 3, 4), "contiguous", lambda L, x: x.flatten(-2, -1)),
    ("flatten_one_dim", (2, 3), "contiguous", lambda L, x: x.flatten(1, 1)),
    ("unflatten", (2, 12), "contiguous", lambda L, x: x.unflatten(1, (3, 4))),
    ("unflatten_minus_one", (2, 12), "contiguous", lambda L, x: L.unflatten(x, -1, (2, -1, 3))),
    ("unflatten_noncontig", (6, 2), "transposed", lambda L, x: x.unflatten(1, (2, 3))),
    ("unfold", (7,), "contiguous", lambda L, x: x.unfold(0, 3, 2)),
    ("unfold_2d", (3, 8), "contiguous", lambda L, x: x.unfold(1, 4, 4)),
    ("unfold_noncontig", (4, 6), "transposed", lambda L, x: x.unfold(0, 2, 1)),
    ("unfold_whole", (5,), "contiguous", lambda L, x: x.unfold(0, 5, 1)),
    ("unfold_0dim", (), "contiguous", lambda L, x: x.unfold(0, 1, 1)),
    ("unfold_zero_size", (3, 0), "contiguous", lambda L, x: x.unfold(0, 2, 1)),
    ("diagonal", (3, 4), "contiguous", lambda L, x: x.diagonal()),
    ("diagonal_offset", (3, 4), "contiguous", lambda L, x: x.diagonal(1)),
    ("diagonal_negative_offset", (3, 4), "transposed", lambda L, x: L.diagonal(x, -1)),
    ("diagonal_out_of_range_offset", (3, 4), "contiguous", lambda L, x: x.diagonal(5)),
    ("diagonal_3d", (2, 3, 4), "contiguous", lambda L, x: x.diagonal(0, 0, 2)),
    ("diagonal_dims", (2, 3, 4), "contiguous", lambda L, x: L.diagonal(x, offset=1, dim1=-1, dim2=1)),
    ("movedim", (2, 3, 4), "contiguous", lambda L, x: x.movedim(0, 2)),
    ("movedim_negative", (2, 3, 4), "transposed", lambda L, x: L.movedim(x, -1, 0)),
    ("movedim_lists", (2, 3, 4, 5), "contiguous", lambda L, x: L.movedim(x, (0, 1), (3, 0))),
    ("movedim_0dim", (), "contiguous", lambda L, x: x.movedim(0, -1)),
    ("movedim_0dim_lists", (), "contiguous", lambda L, x: L.movedim(x, (0,), (-1,))),
    ("narrow_zero_size_negative_start", (0, 3), "contiguous", lambda L, x: x.narrow(0, -1, 0)),
    ("narrow_at_end", (4, 5), "contiguous", lambda L, x: x.narrow(1, 5, 0)),
    ("view_empty_keeps_strides", (2, 0), "strided", lambda L, x: x.view(2, 0)),
    ("flatten_0dim_dims", (), "contiguous", lambda L, x: x.flatten(-1, 0)),
    ("as_strided", (3, 4), "contiguous", lambda L, x: x.as_strided((2, 2), (1, 2))),
    ("as_strided_offset", (3, 4), "contiguous", lambda L, x: L.as_strided(x, (3,), (4,), 1)),
    ("as_strided_overlap", (3, 4), "contiguous", lambda L, x: x.as_strided((3, 3), (1, 1))),
    ("as_strided_of_view", (3, 4), "contiguous", lambda L, x: x[1:].as_strided((2,), (2,))),
    ("detach", (3, 4), "transposed", lambda L, x: x.detach()),
    ("detach_function", (2,), "contiguous", lambda L, x: L.detach(x)),
    ("slice_method", (5, 4), "contiguous", lambda L, x: x[1:4:2]),
    ("chained", (4, 6), "contiguous", lambda L, x: x.t()[1:5].unsqueeze(0).transpose(0, 2).narrow(0, 1, 2)),
]


def _geometry(t):
    return tuple(t.shape), tuple(t.stride()), t.storage_offset(), t.is_contiguous()


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "bfloat16"])
@pytest.mark.parametrize("case", VIEW_CASES, ids=[c[0] for c in VIEW_CASES])
def test_view_matches_reference(case, dtype):
    # Values, dtype, shape, strides, storage offset; then the view aliases the base: a change of the base
    # in place is seen through the view (for a view; a reshape that had to copy does not see it).
    _, shape, layout, f = case
    x = make_tensor(shape, dtype, layout=layout)
    tx = torch_like(x)
    assert x.stride() == tx.stride()
    r = check(lambda a: f(ember, a), lambda a: f(torch, a), x)
    if r is None:
        return
    tr = f(torch, tx)
    assert _geometry(r) == _geometry(tr), f"{_geometry(r)} != {_geometry(tr)}"
    if dtype == "bool":
        x.logical_not_()
        tx.logical_not_()
    else:
        x.add_(1)
        tx.add_(1)
    assert_same(r, tr)


def test_reshape_copies_only_when_needed():
    x = make_tensor((3, 4), "float32")
    assert x.reshape(12).data_ptr() == x.data_ptr()
    y = x.t().reshape(12)
    assert y.data_ptr() != x.data_ptr()
    assert_same(y, to_torch(x).t().reshape(12))


@pytest.mark.parametrize("name, f", [
    ("select", lambda x: x.select(1, 2)),
    ("slice", lambda x: x[:, 1::2]),
    ("view", lambda x: x.view(12)),
    ("transpose", lambda x: x.t()),
    ("narrow", lambda x: x.narrow(0, 1, 2)),
    ("diagonal", lambda x: x.diagonal()),
    ("unsqueeze_squeeze", lambda x: x.unsqueeze(0).squeeze(0)),
    ("unfold", lambda x: x.unfold(1, 2, 2)),
    ("as_strided", lambda x: x.as_strided((2, 2), (4, 1), 1)),
    ("detach", lambda x: x.detach()),
    ("movedim", lambda x: x.movedim(1, 0)),
    ("flatten", lambda x: x.flatten()),
    ("unflatten", lambda x: x.unflatten(1, (2, 2))),
])
def test_write_through_view_is_seen_by_base(name, f):
    # In-place ops through the view change the base's storage, and the version counter is shared.
    x = make_tensor((3, 4), "float32")
    tx = to_torch(x)
    v, tv = f(x), f(tx)
    before = x._version
    v.mul_(-2)
    tv.mul_(-2)
    assert_same(x, tx)
    assert x._version > before and v._version == x._version
    v.zero_()
    tv.zero_()
    assert_same(x, tx)


def test_views_share_storage_with_the_base():
    x = make_tensor((3, 4), "float32")
    for v in [x.view(12), x.t(), x[1], x[:, ::2], x.unsqueeze(0), x.expand(2, 3, 4), x.diagonal(), x.detach()]:
        assert v.data_ptr() == x.data_ptr() + v.storage_offset() * 4


def test_clone_and_contiguous_do_not_alias():
    x = make_tensor((3, 4), "float32")
    c = x.clone()
    c.add_(1)
    assert not ember.equal(c, x)
    assert x.contiguous() is x
    y = x.t().contiguous()
    assert y.is_contiguous() and y.data_ptr() != x.data_ptr()
    assert_same(y, to_torch(x).t().contiguous())


# Errors: (id, input shape, f(lib, x))
VIEW_ERRORS = [
    ("view_wrong_numel", (3, 4), lambda L, x: x.view(5, 2)),
    ("view_two_minus_ones", (3, 4), lambda L, x: x.view(-1, -1)),
    ("view_negative_size", (3, 4), lambda L, x: x.view(-2, 6)),
    ("view_minus_one_zero", (2, 0), lambda L, x: x.view(-1, 0)),
    ("view_incompatible_strides", (3, 4), lambda L, x: x.t().view(12)),
    ("view_not_ints", (3, 4), lambda L, x: x.view(2.0, 6)),
    ("reshape_wrong_numel", (3, 4), lambda L, x: x.reshape(5, -1)),
    ("permute_too_few", (2, 3, 4), lambda L, x: x.permute(0, 1)),
    ("permute_repeated", (2, 3, 4), lambda L, x: x.permute(0, 0, 1)),
    ("permute_out_of_range", (2, 3), lambda L, x: x.permute(0, 2)),
    ("transpose_out_of_range", (2, 3), lambda L, x: x.transpose(0, 2)),
    ("transpose_negative_out_of_range", (2, 3), lambda L, x: x.transpose(-3, 0)),
    ("t_3d", (2, 3, 4), lambda L, x: x.t()),
    ("mT_1d", (3,), lambda L, x: x.mT),
    ("expand_smaller", (3, 2), lambda L, x: x.expand(3, 1)),
    ("expand_fewer_dims", (3, 2), lambda L, x: x.expand(2)),
    ("expand_minus_one_new_dim", (3,), lambda L, x: x.expand(-1, 3)),
    ("expand_not_one", (3, 2), lambda L, x: x.expand(3, 4)),
    ("narrow_out_of_range", (4, 5), lambda L, x: x.narrow(1, 3, 3)),
    ("narrow_bad_dim", (4, 5), lambda L, x: x.narrow(2, 0, 1)),
    ("narrow_negative_length", (4, 5), lambda L, x: x.narrow(0, 0, -1)),
    ("narrow_start_past_end", (4, 5), lambda L, x: x.narrow(0, 5, 0)),
    ("narrow_0dim", (), lambda L, x: x.narrow(0, 0, 1)),
    ("select_out_of_range", (3, 4), lambda L, x: x.select(1, 4)),
    ("select_negative_out_of_range", (3, 4), lambda L, x: x.select(0, -4)),
    ("select_bad_dim", (3, 4), lambda L, x: x.select(2, 0)),
    ("select_0dim", (), lambda L, x: x.select(0, 0)),
    ("squeeze_bad_dim", (1, 3), lambda L, x: x.squeeze(2)),
    ("unsqueeze_bad_dim", (3, 4), lambda L, x: x.unsqueeze(3)),
    ("unsqueeze_bad_negative_dim", (3, 4), lambda L, x: x.unsqueeze(-4)),
    ("flatten_start_after_end", (2, 3, 4), lambda L, x: x.flatten(2, 1)),
    ("flatten_bad_dim", (2, 3), lambda L, x: x.flatten(0, 2)),
    ("unflatten_wrong_product", (2, 12), lambda L, x: x.unflatten(1, (5, 2))),
    ("unflatten_two_minus_ones", (2, 12), lambda L, x: x.unflatten(1, (-1, -1))),
    ("unflatten_empty_sizes", (2, 12), lambda L, x: x.unflatten(1, ())),
    ("unflatten_bad_dim", (2, 12), lambda L, x: x.unflatten(2, (3, 4))),
    ("unfold_too_big", (5,), lambda L, x: x.unfold(0, 6, 1)),
    ("unfold_zero_step", (5,), lambda L, x: x.unfold(0, 2, 0)),
    ("unfold_bad_dim", (5,), lambda L, x: x.unfold(1, 2, 1)),
    ("unfold_negative_size", (5,), lambda L, x: x.unfold(0, -1, 1)),
    ("diagonal_same_dims", (3, 4), lambda L, x: x.diagonal(0, 1, 1)),
    ("diagonal_1d", (3,), lambda L, x: x.diagonal()),
    ("diagonal_bad_dim", (3, 4), lambda L, x: x.diagonal(0, 0, 2)),
    ("movedim_repeated", (2, 3, 4), lambda L, x: x.movedim((0, 0), (1, 2))),
    ("movedim_length_mismatch", (2, 3, 4), lambda L, x: x.movedim((0, 1), (1,))),
    ("movedim_out_of_range", (2, 3), lambda L, x: x.movedim(0, 2)),
    ("movedim_0dim_out_of_range", (), lambda L, x: x.movedim(1, 0)),
    ("movedim_0dim_repeated", (), lambda L, x: x.movedim((0, 0), (0, -1))),
    ("flatten_0dim_bad_dim", (), lambda L, x: x.flatten(0, 1)),
    ("unflatten_0dim", (), lambda L, x: x.unflatten(0, (1, 1))),
    ("narrow_zero_size_too_long", (0, 3), lambda L, x: x.narrow(0, -1, 2)),
    ("as_strided_outside_storage", (3, 4), lambda L, x: x.as_strided((4, 4), (4, 1))),
    ("as_strided_negative_stride", (3, 4), lambda L, x: x.as_strided((2,), (-1,), 3)),
    ("as_strided_negative_offset", (3, 4), lambda L, x: x.as_strided((2,), (1,), -1)),
    ("as_strided_length_mismatch", (3, 4), lambda L, x: x.as_strided((2, 2), (1,))),
]


@pytest.mark.parametrize("case", VIEW_ERRORS, ids=[c[0] for c in VIEW_ERRORS])
def test_view_errors(case):
    _, shape, f = case
    x = make_tensor(shape, "float32")
    assert_raises_like(lambda: f(ember, x), lambda: f(torch, to_torch(x)))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_views_keep_dtype(dtype):
    x = make_tensor((2, 3), dtype)
    for f in [lambda t: t.t(), lambda t: t.view(6), lambda t: t[0], lambda t: t.unsqueeze(0),
              lambda t: t.expand(2, 2, 3)]:
        check(f, f, x)


def test_expand_is_read_only_aliasing():
    # An expanded view repeats memory: in-place writes to it raise (see Note [memory overlap]) but reads work.
    x = make_tensor((3, 1), "float32")
    e = x.expand(3, 4)
    assert e.stride() == (1, 0)
    assert_raises_like(lambda: e.add_(1), lambda: to_torch(x).expand(3, 4).add_(1))
    x.add_(1)
    assert_same(e, (to_torch(x)).expand(3, 4))
