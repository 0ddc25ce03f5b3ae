#pragma once
// Packed sequences for the recurrent layers (LibTorch's torch::nn::utils::rnn; Python's ember.nn.utils.rnn,
// python/ember/nn/utils/rnn.py, whose ops these are): a batch of sequences of different lengths stored without
// padding, and the conversions between packed, padded and listed forms.
//
//   namespace rnn = ember::nn::utils::rnn;
//   auto packed = rnn::pack_padded_sequence(x, lengths, /*batch_first=*/false, /*enforce_sorted=*/false);
//   auto [out, state] = lstm->forward_with_packed_input(packed);
//   auto [padded, out_lengths] = rnn::pad_packed_sequence(out);
//
// The layout is Note [packed layout] of python/ember/nn/utils/rnn.py: data (sum(batch_sizes), *) holds step t's
// rows of the batch_sizes[t] sequences at least t + 1 long (longest first), step after step; batch_sizes is an
// int64 tensor of length max(lengths), non-increasing; sorted_indices[k] is the original batch index of the
// k-th longest sequence (undefined when the input was sorted) and unsorted_indices its inverse.
#include <cstdint>
#include <optional>
#include <tuple>

#include "ember/core/Tensor.h"

namespace ember::nn::utils::rnn {

/// The inverse of a permutation of 0..n-1 (a 1-D integer tensor): out[permutation[i]] = i. Undefined for
/// undefined.
Tensor invert_permutation(const Tensor& permutation);

/// A batch of variable-length sequences in the packed layout (see the file comment), as the recurrent layers'
/// forward_with_packed_input takes and returns it. Make one with pack_padded_sequence or pack_sequence.
class PackedSequence {
 public:
  /// unsorted_indices defaults to the inverse of sorted_indices.
  explicit PackedSequence(Tensor data, Tensor batch_sizes, Tensor sorted_indices = {}, Tensor unsorted_indices = {});

  const Tensor& data() const { return data_; }
  const Tensor& batch_sizes() const { return batch_sizes_; }
  const Tensor& sorted_indices() const { return sorted_indices_; }
  const Tensor& unsorted_indices() const { return unsorted_indices_; }
  /// This sequence with data converted to dtype (batch_sizes and the permutations unchanged).
  PackedSequence to(DType dtype) const;
  /// Ember runs on the CPU: this sequence itself.
  PackedSequence cpu() const { return *this; }
  bool is_cuda() const { return false; }

 private:
  Tensor data_, batch_sizes_, sorted_indices_, unsorted_indices_;
};

/// Packs a padded batch. input: (T, B, *), or (B, T, *) with batch_first; sequence b's steps are
/// input[:lengths[b], b]. lengths: B integers, each in 1..T. With enforce_sorted the lengths must be
/// non-increasing (sorted_indices stays undefined); without, the batch is sorted here by length and the
/// permutation kept. Returns data (sum(lengths), *).
/// Errors (RuntimeError, naming the lengths and shapes): lengths not 1-D or not one per sequence, an empty
/// input, a length below 1 or above T, lengths not sorted in decreasing order with enforce_sorted.
PackedSequence pack_padded_sequence(Tensor input, Tensor lengths, bool batch_first = false,
                                    bool enforce_sorted = true);

/// The inverse of pack_padded_sequence: returns (padded (T, B, *) or (B, T, *) with batch_first, in the
/// original batch order; lengths, int64 (B)), T = total_length when given, else the longest length, and
/// padding_value after each sequence's end. Errors: total_length below the longest length (ValueError).
std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first = false,
                                               double padding_value = 0.0,
                                               std::optional<int64_t> total_length = std::nullopt);

/// Stacks B sequences (L_b, *) (one trailing shape, others broadcast to the first's; the first's dtype) into
/// (T, B, *), or (B, T, *) with batch_first, T the longest length, padding_value after each end.
/// Errors: an empty list (RuntimeError), a 0-dim sequence (IndexError), trailing shapes that do not broadcast.
Tensor pad_sequence(TensorList sequences, bool batch_first = false, double padding_value = 0.0);

/// pad_sequence, then pack_padded_sequence with the sequences' lengths. With enforce_sorted the list must be
/// longest first. Errors: as those two.
PackedSequence pack_sequence(TensorList sequences, bool enforce_sorted = true);

}  // namespace ember::nn::utils::rnn
