"""In-place and out= writes whose destination overlaps a source raise as PyTorch 1.13's do (Note [memory overlap],
ember/kernels/cpu/MemoryOverlap.h): a partial overlap of dense views ("some elements of the input tensor and the
written-to tensor refer to a single memory location"), an expanded output ("more than one element of the
written-to tensor refers to a single memory location"), slice assignment between overlapping views included;
writes PyTorch allows (in place, fill_ of an expanded tensor, interleaved views) give PyTorch's values."""
import warnings

import pytest
import torch

import ember

CASES = {
    # copy_ and slice assignment
    "copy_transposed": "x = m.arange(4.).view(2, 2); x.copy_(x.t())",
    "copy_shifted": "x = m.arange(6.); x[1:].copy_(x[:-1])",
    "setitem_shifted": "x = m.arange(6.); x[1:] = x[:-1]",
    "setitem_shifted_2d": "x = m.arange(12.).view(3, 4); x[1:] = x[:-1]",
    "setitem_same": "x = m.arange(6.); x[:] = x",
    "copy_interleaved": "x = m.arange(6.); x[::2].copy_(x[1::2])",
    "copy_from_expanded_self": "x = m.arange(3.); x.copy_(x[:1].expand(3))",
    "copy_to_expanded": "x = m.zeros(1, 3).expand(2, 3); x.copy_(m.ones(2, 3))",
    # elementwise out= and in place
    "add_out_partial": "x = m.arange(6.); m.add(x[:4], 1, out=x[2:])",
    "add_out_same": "x = m.arange(6.); m.add(x, 1, out=x)",
    "add_inplace_shifted_other": "x = m.arange(6.); x[1:].add_(x[:-1])",
    "exp_out_shifted": "x = m.arange(6.); m.exp(x[:4], out=x[1:5])",
    "neg_out_transposed": "x = m.arange(4.).view(2, 2); m.neg(x, out=x.t())",
    "mul_inplace_expanded": "x = m.zeros(1, 3).expand(2, 3); x.mul_(2)",
    "clamp_inplace_expanded": "x = m.zeros(1, 3).expand(2, 3); x.clamp_(0, 1)",
    "relu_inplace_expanded": "x = m.zeros(1, 3).expand(2, 3); m.relu_(x)",
    "addcmul_out_self": "x = m.arange(6.); m.addcmul(x, x, x, out=x)",
    "addcmul_inplace_shifted": "x = m.arange(6.); x[1:].addcmul_(x[:-1], x[:-1])",
    "lerp_inplace_shifted": "x = m.arange(6.); x[1:].lerp_(x[:-1], 0.5)",
    "pow_out_shifted": "x = m.arange(6.); m.pow(x[:5], 2, out=x[1:])",
    "clamp_out_shifted": "x = m.arange(6.); m.clamp(x[:5], 0, 3, out=x[1:])",
    # fills of one value: expanded outputs are allowed
    "fill_expanded": "x = m.zeros(1, 3).expand(2, 3); x.fill_(1)",
    "zero_expanded": "x = m.zeros(1, 3).expand(2, 3); x.zero_()",
    "masked_fill_expanded": "x = m.zeros(1, 3).expand(2, 3); x.masked_fill_(m.ones(2, 3, dtype=m.bool), 1)",
    "normal_expanded": "x = m.zeros(1, 3).expand(2, 3); x.normal_()",
    "uniform_expanded": "x = m.zeros(1, 3).expand(2, 3); x.uniform_()",
    # indexing ops read other positions than they write: any overlap raises
    "index_select_out_self": "x = m.arange(6.); m.index_select(x, 0, m.tensor([0, 1]), out=x[:2])",
    "index_select_out_index": "i = m.zeros(4, dtype=m.int64); m.index_select(m.arange(4), 0, i, out=i)",
    "gather_out_self": "x = m.arange(6.); m.gather(x, 0, m.tensor([0, 1]), out=x[:2])",
    "gather_out_index_same": "i = m.zeros(4, dtype=m.int64); m.gather(m.arange(4), 0, i, out=i)",
    "masked_select_out_self": "x = m.arange(6.); m.masked_select(x, x > 2, out=x[:3])",
    "scatter_src_shifted": "x = m.arange(6.); x[1:].scatter_(0, m.tensor([0, 1]), x[:2])",
    "scatter_src_self": "x = m.arange(6.); x.scatter_(0, m.arange(6), x)",
    "scatter_expanded": "x = m.zeros(1, 3).expand(2, 3); x.scatter_(1, m.tensor([[0], [1]]), 1.)",
    "scatter_add_shifted": "x = m.arange(6.); x[1:].scatter_add_(0, m.tensor([0, 1]), x[:2])",
    "index_add_shifted": "x = m.arange(6.); x[1:].index_add_(0, m.tensor([0, 1]), x[:2])",
    "index_add_self": "x = m.arange(6.); x.index_add_(0, m.arange(6), x)",
    "index_put_shifted": "x = m.arange(6.); x[1:].index_put_((m.tensor([0, 1]),), x[:2])",
    "index_put_accumulate_shifted": "x = m.arange(6.); x[1:].index_put_((m.tensor([0, 1]),), x[:2], accumulate=True)",
    "index_put_self": "x = m.arange(6.); x.index_put_((m.arange(6),), x)",
    # joining and scans
    "cat_out_over_inputs": "x = m.arange(4.); m.cat([x[:2], x[2:]], out=x)",
    "cat_out_partial": "x = m.arange(6.); m.cat([x[:2], x[2:4]], out=x[:4])",
    "stack_out_over_inputs": "x = m.arange(6.); m.stack([x[:2], x[2:4]], out=x[:4].view(2, 2))",
    "cumsum_out_shifted": "x = m.arange(6.); m.cumsum(x[:5], 0, out=x[1:])",
    "cumsum_out_self": "x = m.arange(6.); m.cumsum(x, 0, out=x)",
    "cumsum_out_disjoint": "x = m.arange(6.); m.cumsum(x[:3], 0, out=x[3:])",
    "cumprod_out_shifted": "x = m.arange(6.); m.cumprod(x[:5], 0, out=x[1:])",
    "addmm_out_self": "x = m.ones(2, 2); m.addmm(x, x, x, out=x)",
}


def run(m, code):
    scope = {"m": m}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's deprecation warning for masked_fill_ on expanded tensors
        exec(code, scope)
    return {k: v for k, v in scope.items() if k in ("x", "i")}


@pytest.mark.parametrize("name", CASES)
def test_overlapping_writes_match_torch(name):
    code = CASES[name]
    try:
        want = run(torch, code)
    except RuntimeError as e:
        message = "more than one element" if "more than one element" in str(e) else "some elements of the input"
        with pytest.raises(RuntimeError, match=f"unsupported operation: {message}"):
            run(ember, code)
        return
    got = run(ember, code)
    for k, t in want.items():
        if "normal" in name or "uniform" in name:
            assert got[k].shape == tuple(t.shape)
        else:
            assert got[k].tolist() == t.tolist(), (k, got[k], t)


def test_the_error_names_the_op():
    x = ember.arange(6.0)
    with pytest.raises(RuntimeError, match=r"^copy_: unsupported operation: some elements"):
        x[1:] = x[:-1]
    with pytest.raises(RuntimeError, match=r"^index_select: unsupported operation"):
        ember.index_select(x, 0, ember.tensor([0, 1]), out=x[:2])


def test_matrix_products_and_reductions_read_their_inputs_before_writing():
    # PyTorch 1.13 gives order-dependent values here (mm: zeros; sum: [3, 4, 5]); Ember reads first and gives the
    # values of the same call on a copy of the input.
    x = ember.ones(2, 2)
    ember.mm(x, x, out=x)
    assert x.tolist() == [[2.0, 2.0], [2.0, 2.0]]
    x = ember.arange(6.0)
    ember.sum(x.view(2, 3), 0, out=x[:3])
    assert x.tolist() == [3.0, 5.0, 7.0, 3.0, 4.0, 5.0]
