"""DistributedSampler (torch.utils.data.distributed) against PyTorch 1.13: every replica's indices for the same
arguments, epochs, padding and drop_last, and the errors."""
import pytest
import torch
import torch.utils.data as tud

import ember
import ember.utils.data as eud


@pytest.mark.parametrize("n", [0, 1, 5, 10, 11, 16])
@pytest.mark.parametrize("replicas", [1, 3, 4])
@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("drop_last", [False, True])
def test_indices_match_pytorch(n, replicas, shuffle, drop_last):
    if n == 0 and not drop_last:
        pytest.skip("PyTorch divides by zero padding an empty dataset")
    data = list(range(n))
    for rank in range(replicas):
        mine = eud.DistributedSampler(data, replicas, rank, shuffle=shuffle, seed=7, drop_last=drop_last)
        theirs = tud.DistributedSampler(data, replicas, rank, shuffle=shuffle, seed=7, drop_last=drop_last)
        for epoch in (0, 3):
            mine.set_epoch(epoch)
            theirs.set_epoch(epoch)
            assert list(mine) == list(theirs)
            assert len(mine) == len(theirs)


def test_padding_longer_than_the_dataset():
    mine = eud.DistributedSampler([0, 1], num_replicas=5, rank=4, shuffle=False)
    theirs = tud.DistributedSampler([0, 1], num_replicas=5, rank=4, shuffle=False)
    assert list(mine) == list(theirs) == [0]


def test_with_a_dataloader():
    ds = eud.TensorDataset(ember.arange(10))
    sampler = eud.DistributedSampler(ds, num_replicas=2, rank=1, shuffle=True, seed=1)
    loader = eud.DataLoader(ds, batch_size=3, sampler=sampler)
    got = [b[0].tolist() for b in loader]
    tds = tud.TensorDataset(torch.arange(10))
    expected = [b[0].tolist() for b in tud.DataLoader(tds, batch_size=3, sampler=tud.DistributedSampler(
        tds, num_replicas=2, rank=1, shuffle=True, seed=1))]
    assert got == expected


def test_errors():
    with pytest.raises(ValueError, match="Invalid rank 2"):
        eud.DistributedSampler([1, 2], num_replicas=2, rank=2)
    with pytest.raises(ValueError):
        tud.DistributedSampler([1, 2], num_replicas=2, rank=2)
    with pytest.raises(ValueError):
        eud.DistributedSampler([1, 2], num_replicas=2, rank=-1)
    with pytest.raises(RuntimeError, match="Default process group has not been initialized"):
        eud.DistributedSampler([1, 2])
    with pytest.raises(RuntimeError, match="Default process group has not been initialized"):
        tud.DistributedSampler([1, 2])
