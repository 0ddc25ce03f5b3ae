"""Packed sequences for the recurrent layers (PyTorch's torch.nn.utils.rnn): a batch of sequences of different
lengths stored without padding, and the conversions between packed, padded and listed forms.

Note [packed layout]
A PackedSequence of B sequences sorted by length (longest first) holds, for each time step t, the rows of step t
of the batch_sizes[t] sequences at least t + 1 long, one step after the other: data (sum(batch_sizes), *).
batch_sizes is an int64 CPU tensor of length max(lengths), non-increasing. When the sequences were not given in
sorted order, sorted_indices[k] is the original batch index of the k-th longest and unsorted_indices its
inverse, so the recurrent layers can return states in the caller's batch order. Packing and unpacking are one
gather (index_select) and one scatter (index_copy) over the (T * B, *) rows with the positions t * B + b for
b < batch_sizes[t]: differentiable, and a handful of ops however long the sequences are.
"""
from collections import namedtuple

from ... import _C
from ..._tensor import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]

_ops = _C._functions


class PackedSequence(namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    r"""A batch of variable-length sequences in the packed layout (Note [packed layout]), as the recurrent
    layers take and return it. Make one with :func:`pack_padded_sequence` or :func:`pack_sequence` rather than
    by hand.

    Attributes:
        data (Tensor): the packed rows, (sum(batch_sizes), *).
        batch_sizes (Tensor): int64 on the CPU, the batch size of each time step.
        sorted_indices (Tensor, optional): the original batch index of each sequence in length order.
        unsorted_indices (Tensor, optional): the inverse permutation (computed from sorted_indices when None).

    ``PackedSequence((data, batch_sizes))`` (one pair) is accepted too.

    Raises:
        ValueError: batch_sizes not on the CPU.
    """

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            assert isinstance(data, (list, tuple)) and len(data) == 2, \
                "PackedSequence: without batch_sizes, data must be the pair (data, batch_sizes)"
            data, batch_sizes = data
        if batch_sizes.device.type != "cpu":
            raise ValueError("batch_sizes should always be on CPU. Instances of PackedSequence should never be "
                             "created manually. They should be instantiated by functions like pack_sequence and "
                             "pack_padded_sequences in nn.utils.rnn. "
                             "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def _with_data(self, data):
        """This sequence with data replaced; the permutations follow data's device, batch_sizes stays."""
        if data is self.data:
            return self

        def move(t):
            return None if t is None else t.to(data.device)

        return type(self)(data, self.batch_sizes, move(self.sorted_indices), move(self.unsorted_indices))

    def to(self, *args, **kwargs):
        """data.to(*args, **kwargs); the index tensors move to data's device, batch_sizes stays on the CPU.
        Returns self when data does not change."""
        return self._with_data(self.data.to(*args, **kwargs))

    def cuda(self, *args, **kwargs):
        """data.cuda(...) (this build has no CUDA device: as Tensor.cuda, it raises)."""
        return self._with_data(self.data.cuda(*args, **kwargs))

    def cpu(self, *args, **kwargs):
        """This sequence with data on the CPU (self when it is there already)."""
        return self._with_data(self.data.cpu(*args, **kwargs))

    def pin_memory(self):
        """data.pin_memory() (pinned memory needs an accelerator: as Tensor.pin_memory, it raises)."""
        return self._with_data(self.data.pin_memory())

    def double(self):
        """This sequence with data converted to float64."""
        return self.to(dtype=_C.float64)

    def float(self):
        """This sequence with data converted to float32."""
        return self.to(dtype=_C.float32)

    def half(self):
        """This sequence with data converted to float16."""
        return self.to(dtype=_C.float16)

    def long(self):
        """This sequence with data converted to int64."""
        return self.to(dtype=_C.int64)

    def int(self):
        """This sequence with data converted to int32."""
        return self.to(dtype=_C.int32)

    def short(self):
        """This sequence with data converted to int16."""
        return self.to(dtype=_C.int16)

    def char(self):
        """This sequence with data converted to int8."""
        return self.to(dtype=_C.int8)

    def byte(self):
        """This sequence with data converted to uint8."""
        return self.to(dtype=_C.uint8)

    @property
    def is_cuda(self):
        """Whether data is on a CUDA device (never, in this build)."""
        return self.data.is_cuda

    def is_pinned(self):
        """Whether data is in pinned memory."""
        return self.data.is_pinned()


def invert_permutation(permutation):
    """The inverse of a permutation of 0..n-1 (a 1-D integer tensor): out[permutation[i]] = i. None for None."""
    if permutation is None:
        return None
    positions = _ops["arange"](permutation.numel(), dtype=permutation.dtype, device=permutation.device)
    return _ops["empty_like"](permutation).scatter_(0, permutation, positions)


def _sorted_lengths(lengths, input):
    """lengths (int64 tensor) as a list, checked as PyTorch's packing does: 1-D, a non-empty input (T, B, *),
    one length per sequence, positive, non-increasing."""
    if lengths.dim() != 1:
        raise RuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got {}D cpu Long tensor".format(
            lengths.dim()))
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    batch = input.size(1)
    lengths = lengths.tolist()
    if len(lengths) != batch:
        raise RuntimeError("Expected `len(lengths)` to be equal to batch_size, but got {} (batch_size={})".format(
            len(lengths), batch))
    if lengths[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if any(a < b for a, b in zip(lengths, lengths[1:])):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
                           "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                           "sidestep this requirement if you do not need ONNX exportability.")
    return lengths


def _packed_rows(batch_sizes, batch):
    """The positions t * batch + b (b < batch_sizes[t]) of the packed rows in a (T * batch, *) padded layout, in
    packed order (Note [packed layout]); batch_sizes an int64 tensor (T,)."""
    steps = _ops["arange"](batch, dtype=_C.int64).unsqueeze(0) < batch_sizes.unsqueeze(1)
    return steps.reshape(-1).nonzero().squeeze(1)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    r"""Packs a padded batch of variable-length sequences (Note [packed layout]).

    Args:
        input (Tensor): (T, B, *), or (B, T, *) with batch_first; sequence b's steps are input[:lengths[b], b].
        lengths (Tensor or list of int): the B lengths, each in 1..T (an int64 CPU tensor, or a list).
        batch_first (bool): the layout of input.
        enforce_sorted (bool): when True, lengths must be non-increasing (sorted_indices stays None); when
            False the batch is sorted here and the permutation kept in the result.

    Returns:
        PackedSequence: data (sum(lengths), *).

    Raises:
        RuntimeError: lengths not 1-D, not one per sequence, a length below 1 or above T, or (enforce_sorted)
            not sorted in decreasing order.
    """
    if not isinstance(lengths, Tensor):
        lengths = _C.tensor(lengths, dtype=_C.int64)
    else:
        lengths = lengths.to(dtype=_C.int64)
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = _ops["sort"](lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if batch_first:
        input = input.transpose(0, 1)
    sizes = _sorted_lengths(lengths, input)
    steps, batch, longest = input.size(0), input.size(1), sizes[0]
    if longest > steps:
        raise RuntimeError("pack_padded_sequence: the longest length {} exceeds the {} padded time steps of the "
                           "input".format(longest, steps))
    batch_sizes = (_ops["arange"](longest, dtype=_C.int64).unsqueeze(1) < lengths.unsqueeze(0)).sum(1)
    rows = input[:longest].reshape((longest * batch,) + tuple(input.shape[2:]))
    data = rows.index_select(0, _packed_rows(batch_sizes, batch).to(input.device))
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    r"""Pads a packed batch back to a tensor: the inverse of :func:`pack_padded_sequence`.

    Args:
        sequence (PackedSequence): the batch.
        batch_first (bool): return (B, T, *) rather than (T, B, *).
        padding_value (float): the value of the padded positions.
        total_length (int, optional): pad to this many steps rather than the longest length (for example to
            keep the size of the input of pack_padded_sequence).

    Returns:
        (Tensor, Tensor): the padded batch, in the original batch order when the sequence carries a
        permutation, and the lengths (int64, CPU).

    Raises:
        ValueError: total_length below the longest length.
    """
    data, batch_sizes = sequence.data, sequence.batch_sizes
    steps = batch_sizes.size(0)
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             "but got total_length={} and max sequence length being {}".format(total_length, steps))
        steps = total_length
    batch = int(batch_sizes[0]) if batch_sizes.numel() else 0
    filled = _ops["arange"](batch, dtype=_C.int64).unsqueeze(0) < batch_sizes.unsqueeze(1)
    lengths = filled.sum(0)
    trailing = tuple(data.shape[1:])
    padded = data.new_full((steps * batch,) + trailing, padding_value)
    padded = padded.index_copy(0, _packed_rows(batch_sizes, batch).to(data.device), data)
    padded = padded.view((steps, batch) + trailing)
    if batch_first:
        padded = padded.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices.cpu()]
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0):
    r"""Stacks variable-length sequences into one padded tensor.

    Args:
        sequences (list of Tensor or Tensor): B tensors (L_b, *) with one trailing shape (broadcast to the first's);
            a tensor is taken as the list of its slices along dim 0.
        batch_first (bool): return (B, T, *) rather than (T, B, *), T the longest length.
        padding_value (float): the value after each sequence's end.

    Returns:
        Tensor: the dtype of the first sequence.

    Raises:
        RuntimeError: an empty list, trailing shapes that do not broadcast to the first's.
        IndexError: a 0-dim sequence.
    """
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.size(0) for s in sequences)
    first = sequences[0]
    trailing = tuple(first.shape[1:])
    padded = []
    for s in sequences:
        s = s.to(first.dtype).expand((s.size(0),) + trailing)
        if s.size(0) < longest:
            s = _ops["cat"]([s, first.new_full((longest - s.size(0),) + trailing, padding_value)])
        padded.append(s)
    return _ops["stack"](padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    r"""The list of sequences of a padded batch: the inverse of :func:`pad_sequence`.

    Args:
        padded_sequences (Tensor): (T, B, *), or (B, T, *) with batch_first.
        lengths (Tensor or list of int): the B lengths.
        batch_first (bool): the layout of padded_sequences.

    Returns:
        list of Tensor: B new tensors (lengths[b], *).
    """
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:int(length)].clone(memory_format=_C.contiguous_format)
            for seq, length in zip(padded_sequences, lengths)]


def pack_sequence(sequences, enforce_sorted=True):
    r"""Packs a list of variable-length sequences (L_b, *): pad_sequence, then pack_padded_sequence with their
    lengths. enforce_sorted as for pack_padded_sequence (the list must then be longest first).

    Returns:
        PackedSequence
    """
    lengths = _C.tensor([s.size(0) for s in sequences], dtype=_C.int64)
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    r"""The list of sequences of a PackedSequence, in their original order: the inverse of
    :func:`pack_sequence`."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
