// ember::nn::utils::rnn (PackedSequence, pack_padded_sequence, pad_packed_sequence, pad_sequence,
// pack_sequence) and the recurrent layers' forward_with_packed_input against PyTorch 1.13
// (fixtures/attention.ember, written by fixtures/make_attention_fixtures.py): packed layouts and permutations,
// packed LSTM/GRU outputs, final states and gradients with unsorted lengths; parameters_to_vector and
// vector_to_parameters; errors that name the lengths.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "TestSupport.h"
#include "ember/nn/nn.h"
#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"
#include "layer_fixtures.h"

namespace ember::testing {
namespace {

using namespace ember::nn;
namespace rnn = ember::nn::utils::rnn;

constexpr const char* kFile = "attention.ember";

Tensor fx(const std::string& name) { return fixture_from(kFile, name); }

Tensor leaf(const std::string& name) { return fixture_leaf_from(kFile, name); }

TEST(PackedSequence, BidirectionalLstmOverUnsortedLengths) {
  auto options = LSTMOptions(3, 4).num_layers(2).bidirectional(true);
  ember::manual_seed(320);
  LSTM m(options);
  expect_module_matches(kFile, "plstm", *m);
  Tensor x = leaf("plstm.x");
  const Tensor lengths = fx("plstm.lengths");
  EMBER_EXPECT_ERROR(rnn::pack_padded_sequence(x, lengths), Runtime,
                     "`lengths` array must be sorted in decreasing order when `enforce_sorted` is true, got "
                     "[3, 5, 2, 4]");
  rnn::PackedSequence packed = rnn::pack_padded_sequence(x, lengths, /*batch_first=*/false, /*enforce_sorted=*/false);
  EXPECT_TRUE(close(packed.data(), fx("plstm.packed.data"), 0, 0));
  EXPECT_TRUE(close(packed.batch_sizes(), fx("plstm.packed.batch_sizes"), 0, 0));
  EXPECT_TRUE(close(packed.sorted_indices(), fx("plstm.packed.sorted_indices"), 0, 0));
  EXPECT_TRUE(close(packed.unsorted_indices(), fx("plstm.packed.unsorted_indices"), 0, 0));

  auto [out, state] = m->forward_with_packed_input(packed);
  auto [h, c] = state;
  EXPECT_TRUE(close(out.data(), fx("plstm.out.data"), 1e-5, 1e-6));
  EXPECT_TRUE(close(h, fx("plstm.h"), 1e-5, 1e-6));
  EXPECT_TRUE(close(c, fx("plstm.c"), 1e-5, 1e-6));
  EXPECT_TRUE(out.unsorted_indices().is_same(packed.unsorted_indices()));
  auto [padded, out_lengths] = rnn::pad_packed_sequence(out, false, -1.0, 6);
  EXPECT_TRUE(close(padded, fx("plstm.padded"), 1e-5, 1e-6));
  EXPECT_TRUE(close(out_lengths, fx("plstm.out_lengths"), 0, 0));
  ((out.data() * out.data()).sum() + (h * h).sum() + (c * c).sum()).backward();
  EXPECT_TRUE(close(x.grad(), fx("plstm.grad.x"), 1e-4, 1e-5));
  EXPECT_TRUE(close(m->named_parameters()["weight_ih_l0_reverse"].grad(), fx("plstm.grad.weight_ih_l0_reverse"),
                    1e-4, 1e-5));
}

TEST(PackedSequence, GruWithInitialStateOverPackSequence) {
  ember::manual_seed(321);
  GRU m(GRUOptions(3, 4).batch_first(true));
  expect_module_matches(kFile, "pgru", *m);
  std::vector<Tensor> seqs{leaf("pgru.seq0"), leaf("pgru.seq1"), leaf("pgru.seq2")};
  rnn::PackedSequence packed = rnn::pack_sequence(seqs, /*enforce_sorted=*/false);
  EXPECT_TRUE(close(packed.data(), fx("pgru.packed.data"), 0, 0));
  auto [out, h] = m->forward_with_packed_input(packed, fx("pgru.h0"));
  EXPECT_TRUE(close(out.data(), fx("pgru.out.data"), 1e-5, 1e-6));
  EXPECT_TRUE(close(h, fx("pgru.h"), 1e-5, 1e-6));
  auto [padded, lengths] = rnn::pad_packed_sequence(out, /*batch_first=*/true);
  EXPECT_TRUE(close(padded, fx("pgru.padded"), 1e-5, 1e-6));
  EXPECT_EQ(lengths.sizes(), IntArrayRef({3}));
  ((out.data() * out.data()).sum() + (h * h).sum()).backward();
  for (size_t i = 0; i < seqs.size(); ++i) {
    EXPECT_TRUE(close(seqs[i].grad(), fx("pgru.grad.seq" + std::to_string(i)), 1e-4, 1e-5)) << i;
  }
  EXPECT_TRUE(close(m->named_parameters()["weight_hh_l0"].grad(), fx("pgru.grad.weight_hh_l0"), 1e-4, 1e-5));
}

TEST(PackedSequence, PadSequenceBothWaysAndSortedPack) {
  std::vector<Tensor> seqs{fx("pad.seq0"), fx("pad.seq1"), fx("pad.seq2")};
  EXPECT_TRUE(close(rnn::pad_sequence(seqs, false, 0.5), fx("pad.seq_first"), 0, 0));
  EXPECT_TRUE(close(rnn::pad_sequence(seqs, true), fx("pad.batch_first"), 0, 0));
  rnn::PackedSequence packed = rnn::pack_sequence({fx("sorted.seq0"), fx("sorted.seq1"), fx("sorted.seq2")});
  EXPECT_TRUE(close(packed.data(), fx("sorted.data"), 0, 0));
  EXPECT_TRUE(close(packed.batch_sizes(), fx("sorted.batch_sizes"), 0, 0));
  EXPECT_FALSE(packed.sorted_indices().defined());
  EXPECT_FALSE(packed.unsorted_indices().defined());
  // Round trip of a sorted batch.
  auto [padded, lengths] = rnn::pad_packed_sequence(packed, /*batch_first=*/true);
  EXPECT_TRUE(close(padded.select(0, 1).slice(0, 0, 2), fx("sorted.seq1"), 0, 0));
  EXPECT_EQ(lengths.sizes(), IntArrayRef({3}));
}

TEST(PackedSequence, Errors) {
  EMBER_EXPECT_ERROR(rnn::pad_sequence(std::vector<Tensor>{}), Runtime, "pad_sequence: received an empty list");
  const Tensor x = ember::randn({4, 2, 3});
  EMBER_EXPECT_ERROR(rnn::pack_padded_sequence(x, make_tensor<int64_t>({5, 2}), false, false), Runtime,
                     "the longest length 5 exceeds the 4 padded time steps");
  EMBER_EXPECT_ERROR(rnn::pack_padded_sequence(x, make_tensor<int64_t>({3, 2, 1})), Runtime,
                     "Expected `len(lengths)` to be equal to batch_size, but got 3 (batch_size=2)");
  EMBER_EXPECT_ERROR(rnn::pack_padded_sequence(x, make_tensor<int64_t>({3, 0})), Runtime,
                     "Length of all samples has to be greater than 0");
  rnn::PackedSequence packed = rnn::pack_padded_sequence(x, make_tensor<int64_t>({3, 2}));
  EMBER_EXPECT_ERROR(rnn::pad_packed_sequence(packed, false, 0.0, 2), Value,
                     "total_length=2 and max sequence length being 3");
  EMBER_EXPECT_ERROR(LSTM(LSTMOptions(5, 4))->forward_with_packed_input(packed), Runtime,
                     "packed data must be (sum(batch_sizes), input_size) = (5, 5), got [5, 3]");
  EMBER_EXPECT_ERROR(GRU(3, 4)->forward_with_packed_input(packed, ember::zeros({2, 4})), Runtime,
                     "GRU: For batched 3-D input, hx should also be 3-D but got 2-D tensor");
  rnn::PackedSequence unsorted = rnn::pack_padded_sequence(x, make_tensor<int64_t>({2, 3}), false, false);
  EMBER_EXPECT_ERROR(GRU(3, 4)->forward_with_packed_input(unsorted, ember::zeros({2, 4})), Runtime,
                     "GRU: For a packed (batched 3-D) input, hx should be 3-D");
  EMBER_EXPECT_ERROR(GRU(3, 4)->forward_with_packed_input(unsorted, ember::zeros({1, 3, 4})), Runtime,
                     "GRU: hx has a batch of 3 (shape [1, 3, 4]) but the packed sequence holds 2 sequences");
}

TEST(ConvertParameters, RoundTrip) {
  Linear fc(3, 2);
  std::vector<Tensor> params = fc->parameters();
  Tensor vec = utils::parameters_to_vector(params);
  EXPECT_EQ(vec.sizes(), IntArrayRef({8}));
  EXPECT_TRUE(close(vec.slice(0, 0, 6).view({2, 3}), fc->weight, 0, 0));
  Tensor fresh = ember::arange(8, kFloat32);
  utils::vector_to_parameters(fresh, params);
  EXPECT_TRUE(close(fc->weight, ember::arange(6, kFloat32).view({2, 3}), 0, 0));
  EXPECT_TRUE(close(fc->bias, ember::arange(6, 8, 1, kFloat32), 0, 0));
  EXPECT_TRUE(fc->weight.requires_grad());
  EMBER_EXPECT_ERROR(utils::vector_to_parameters(ember::zeros({7}), params), Runtime,
                     "expected a 1-D vec of 8 elements (the parameters' total numel), got one of shape [7]");
}

}  // namespace
}  // namespace ember::testing
