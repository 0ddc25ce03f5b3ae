// ember::data samplers: SequentialSampler's order and RandomSampler's permutations, which equal the ones
// Python's RandomSampler (PyTorch 1.13's and ember.utils.data's) draws for the same seed (values recorded by
// tests/data/fixtures/make_fixtures.py), with and without a generator, over several passes.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <vector>

#include "DataFixtures.h"
#include "TestSupport.h"
#include "ember/api/ember.h"

namespace {

using namespace ember;
using namespace ember::data;
using ember::testing::as_indices;
using ember::testing::data_fixture;
using Indices = std::vector<size_t>;

/// The rest of a pass: next(batch_size) until nullopt, concatenated.
template <class S>
Indices drain(S& sampler, size_t batch_size) {
  Indices all;
  while (auto request = sampler.next(batch_size)) {
    EXPECT_FALSE(request->empty());
    EXPECT_LE(request->size(), batch_size);
    all.insert(all.end(), request->begin(), request->end());
  }
  return all;
}

TEST(SequentialSampler, VisitsTheIndicesInOrderInBatches) {
  SequentialSampler s(5);
  EXPECT_EQ(s.next(2), std::optional<Indices>(Indices{0, 1}));
  EXPECT_EQ(s.index(), 2u);
  EXPECT_EQ(s.next(2), std::optional<Indices>(Indices{2, 3}));
  EXPECT_EQ(s.next(2), std::optional<Indices>(Indices{4}));  // the short last batch
  EXPECT_EQ(s.next(2), std::nullopt);
  EXPECT_EQ(s.next(1), std::nullopt);  // and it stays over
  s.reset();
  EXPECT_EQ(s.next(10), std::optional<Indices>(Indices{0, 1, 2, 3, 4}));
  s.reset(2);  // a new size
  EXPECT_EQ(drain(s, 1), (Indices{0, 1}));
  SequentialSampler none(0);
  EXPECT_EQ(none.next(3), std::nullopt);
}

TEST(SequentialSampler, Errors) {
  SequentialSampler s(3);
  EMBER_EXPECT_ERROR(s.next(0), Value, "SequentialSampler::next: batch_size must be positive");
}

TEST(RandomSampler, PermutationEqualsPythonsForTheSameSeed) {
  for (auto [seed, n] : {std::pair<uint64_t, int64_t>{0, 10}, {7, 100}, {123, 1}}) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed << ", n " << n);
    const Indices expected = as_indices(data_fixture(fmt::format("random_sampler/seed{}_n{}", seed, n)));
    manual_seed(seed);
    RandomSampler whole(n);
    EXPECT_EQ(drain(whole, static_cast<size_t>(n)), expected);
    // The batch size only cuts the same permutation; the permutation's dtype does not change it.
    manual_seed(seed);
    RandomSampler in_threes(n, kInt32);
    EXPECT_EQ(drain(in_threes, 3), expected);
    EXPECT_EQ(in_threes.index(), static_cast<size_t>(n));
  }
}

TEST(RandomSampler, NothingIsDrawnBeforeTheFirstNext) {
  // As Python's sampler, which draws at its first index: a draw between construction (or reset) and the first
  // next() comes before the sampler's.
  const Indices expected = as_indices(data_fixture("random_sampler/seed0_n10"));
  RandomSampler s(10);
  manual_seed(0);
  EXPECT_EQ(drain(s, 4), expected);
  s.reset();
  manual_seed(0);
  EXPECT_EQ(drain(s, 10), expected);
}

TEST(RandomSampler, WithAGeneratorPassesEqualPythonsAcrossEpochs) {
  // Two passes over one generator: the second permutation follows the unused one Python draws at the end of
  // the first pass (Note [C++ sampler random streams]).
  const Indices expected = as_indices(data_fixture("random_sampler_gen/seed5_n12_epochs2"));
  for (size_t batch_size : {1, 5, 12, 20}) {
    SCOPED_TRACE(::testing::Message() << "batch_size " << batch_size);
    RandomSampler s(12, make_generator(5));
    Indices both = drain(s, batch_size);
    s.reset();
    Indices second = drain(s, batch_size);
    both.insert(both.end(), second.begin(), second.end());
    EXPECT_EQ(both, expected);
  }
}

TEST(RandomSampler, APassIsAPermutationAndPassesDiffer) {
  manual_seed(11);
  RandomSampler s(50);
  Indices first = drain(s, 7);
  s.reset();
  Indices second = drain(s, 7);
  EXPECT_NE(first, second);
  for (Indices pass : {first, second}) {
    std::sort(pass.begin(), pass.end());
    Indices iota(50);
    std::iota(iota.begin(), iota.end(), size_t{0});
    EXPECT_EQ(pass, iota);
  }
  s.reset(3);
  EXPECT_EQ(drain(s, 2).size(), 3u);
  RandomSampler empty_set(0);
  EXPECT_EQ(empty_set.next(1), std::nullopt);
}

TEST(RandomSampler, Errors) {
  EMBER_EXPECT_ERROR(RandomSampler(-1), Value, "RandomSampler: size must be non-negative, got -1");
  EMBER_EXPECT_ERROR(RandomSampler(3, Generator()), Value, "generator is null");
  RandomSampler s(3);
  EMBER_EXPECT_ERROR(s.next(0), Value, "RandomSampler::next: batch_size must be positive");
}

}  // namespace
