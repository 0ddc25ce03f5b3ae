// Packed sequences, op for op as python/ember/nn/utils/rnn.py (see Note [packed layout] there): packing and
// unpacking are one gather (index_select) and one scatter (index_copy) over the (T * B, *) rows, so they are
// differentiable and a handful of ops however long the sequences are.
#include "ember/nn/utils/rnn.h"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"

namespace ember::nn::utils::rnn {

namespace {

std::vector<int64_t> int_values(const Tensor& t) {
  Tensor c = t.to(kInt64).contiguous();
  const auto* p = static_cast<const int64_t*>(c.data_ptr());
  return std::vector<int64_t>(p, p + c.numel());
}

std::vector<int64_t> with_trailing(std::vector<int64_t> lead, IntArrayRef sizes, size_t from) {
  for (size_t i = from; i < sizes.size(); ++i) lead.push_back(sizes[i]);
  return lead;
}

// The positions t * batch + b (b < batch_sizes[t]) of the packed rows in a (T * batch, *) padded layout.
Tensor packed_rows(const Tensor& batch_sizes, int64_t batch) {
  Tensor steps = ember::arange(batch, kInt64).unsqueeze(0) < batch_sizes.unsqueeze(1);
  return steps.reshape({-1}).nonzero().squeeze(1);
}

// lengths as ints, checked as PyTorch's packing does for input (T, B, *).
std::vector<int64_t> sorted_lengths(const Tensor& lengths, const Tensor& input) {
  constexpr const char* op = "pack_padded_sequence";
  EMBER_CHECK(lengths.dim() == 1, "{}: 'lengths' argument should be a 1D int64 tensor, but got a {}D tensor", op,
              lengths.dim());
  EMBER_CHECK(input.dim() >= 2 && input.numel() > 0, "{}: Cannot pack empty tensors (input of shape [{}]; "
              "expected (T, B, *) with T, B >= 1)", op, fmt::join(input.sizes(), ", "));
  std::vector<int64_t> v = int_values(lengths);
  EMBER_CHECK(static_cast<int64_t>(v.size()) == input.size(1), "{}: Expected `len(lengths)` to be equal to "
              "batch_size, but got {} (batch_size={})", op, v.size(), input.size(1));
  EMBER_CHECK(v.back() > 0, "{}: Length of all samples has to be greater than 0, but found an element in "
              "'lengths' that is <= 0 (lengths [{}])", op, fmt::join(v, ", "));
  EMBER_CHECK(std::is_sorted(v.rbegin(), v.rend()), "{}: `lengths` array must be sorted in decreasing order when "
              "`enforce_sorted` is true, got [{}]. You can pass `enforce_sorted=false` to pack_padded_sequence "
              "and/or pack_sequence to sidestep this requirement.", op, fmt::join(v, ", "));
  return v;
}

}  // namespace

Tensor invert_permutation(const Tensor& permutation) {
  if (!permutation.defined()) return Tensor();
  Tensor positions = ember::arange(permutation.numel(), permutation.dtype());
  return ember::empty_like(permutation).scatter_(0, permutation, positions);
}

PackedSequence::PackedSequence(Tensor data, Tensor batch_sizes, Tensor sorted_indices, Tensor unsorted_indices)
    : data_(std::move(data)), batch_sizes_(std::move(batch_sizes)), sorted_indices_(std::move(sorted_indices)),
      unsorted_indices_(unsorted_indices.defined() ? std::move(unsorted_indices)
                                                   : invert_permutation(sorted_indices_)) {}

PackedSequence PackedSequence::to(DType dtype) const {
  return PackedSequence(data_.to(dtype), batch_sizes_, sorted_indices_, unsorted_indices_);
}

PackedSequence pack_padded_sequence(Tensor input, Tensor lengths, bool batch_first, bool enforce_sorted) {
  lengths = lengths.to(kInt64);
  Tensor sorted_indices;
  if (!enforce_sorted) {
    std::tie(lengths, sorted_indices) = ember::sort(lengths, -1, /*descending=*/true);
    input = input.index_select(batch_first ? 0 : 1, sorted_indices);
  }
  if (batch_first) input = input.transpose(0, 1);
  const std::vector<int64_t> sizes = sorted_lengths(lengths, input);
  const int64_t steps = input.size(0), batch = input.size(1), longest = sizes.front();
  EMBER_CHECK(longest <= steps, "pack_padded_sequence: the longest length {} exceeds the {} padded time steps of "
              "the input (shape [{}])", longest, steps, fmt::join(input.sizes(), ", "));
  Tensor batch_sizes = (ember::arange(longest, kInt64).unsqueeze(1) < lengths.unsqueeze(0)).sum(IntArrayRef({1}));
  Tensor rows = input.slice(0, 0, longest).reshape(with_trailing({longest * batch}, input.sizes(), 2));
  Tensor data = rows.index_select(0, packed_rows(batch_sizes, batch));
  return PackedSequence(data, batch_sizes, sorted_indices);
}

std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first,
                                               double padding_value, std::optional<int64_t> total_length) {
  const Tensor& data = sequence.data();
  const Tensor& batch_sizes = sequence.batch_sizes();
  int64_t steps = batch_sizes.size(0);
  if (total_length) {
    EMBER_CHECK_VALUE(*total_length >= steps, "pad_packed_sequence: Expected total_length to be at least the length "
                      "of the longest sequence in input, but got total_length={} and max sequence length being {}",
                      *total_length, steps);
    steps = *total_length;
  }
  const int64_t batch = batch_sizes.numel() > 0 ? int_values(batch_sizes).front() : 0;
  Tensor filled = ember::arange(batch, kInt64).unsqueeze(0) < batch_sizes.unsqueeze(1);
  Tensor lengths = filled.sum(IntArrayRef({0}));
  Tensor padded = ember::full(with_trailing({steps * batch}, data.sizes(), 1), padding_value, data.dtype());
  padded = padded.index_copy(0, packed_rows(batch_sizes, batch), data);
  padded = padded.view(with_trailing({steps, batch}, data.sizes(), 1));
  if (batch_first) padded = padded.transpose(0, 1);
  if (sequence.unsorted_indices().defined()) {
    padded = padded.index_select(batch_first ? 0 : 1, sequence.unsorted_indices());
    lengths = lengths.index_select(0, sequence.unsorted_indices());
  }
  return {padded, lengths};
}

Tensor pad_sequence(TensorList sequences, bool batch_first, double padding_value) {
  EMBER_CHECK(!sequences.empty(), "pad_sequence: received an empty list of sequences");
  int64_t longest = 0;
  for (size_t i = 0; i < sequences.size(); ++i) {
    EMBER_CHECK_INDEX(sequences[i].dim() >= 1, "pad_sequence: sequence {} is 0-dim; each must be (L, *)", i);
    longest = std::max(longest, sequences[i].size(0));
  }
  const Tensor& first = sequences[0];
  std::vector<Tensor> padded;
  for (const Tensor& s : sequences) {
    Tensor t = s.to(first.dtype()).expand(with_trailing({s.size(0)}, first.sizes(), 1));
    if (t.size(0) < longest) {
      Tensor fill = ember::full(with_trailing({longest - t.size(0)}, first.sizes(), 1), padding_value, first.dtype());
      t = ember::cat({t, fill});
    }
    padded.push_back(t);
  }
  return ember::stack(padded, batch_first ? 0 : 1);
}

PackedSequence pack_sequence(TensorList sequences, bool enforce_sorted) {
  std::vector<int64_t> lengths;
  for (const Tensor& s : sequences) lengths.push_back(s.dim() >= 1 ? s.size(0) : 0);
  Tensor padded = pad_sequence(sequences);
  Tensor lengths_t = ember::tensor_from_buffer(lengths.data(), {static_cast<int64_t>(lengths.size())}, kInt64);
  return pack_padded_sequence(padded, lengths_t, /*batch_first=*/false, enforce_sorted);
}

}  // namespace ember::nn::utils::rnn
