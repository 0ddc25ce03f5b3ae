// Random kernels from C++: PyTorch 1.13's values for a seed (../shared/notes/pytorch-cpu-rng.md §14), the
// generator= overloads, and kernels racing on one generator from several threads (each call draws one
// contiguous part of the stream, so no draw is lost or shared).
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "TestSupport.h"
#include "ember/api/ember.h"

namespace {

using namespace ember;
using ember::testing::values;

TEST(Random, PyTorchValuesForSeedZero) {
  manual_seed(0);
  EXPECT_EQ(values<float>(rand({1}))[0], 0x1.fc2abp-2f);
  manual_seed(0);
  EXPECT_EQ(values<float>(randn({1}))[0], 0x1.8a7eb8p+0f);  // one element: the cached double Box-Muller
  manual_seed(0);
  std::vector<float> blocked = values<float>(randn({16}));  // 16: PyTorch's vectorised block
  EXPECT_EQ(blocked[0], -0x1.20370ap+0f);
  EXPECT_EQ(blocked[15], -0x1.fa6cf8p-3f);
  manual_seed(0);
  EXPECT_EQ(values<int64_t>(randint(0, 10, {8})), (std::vector<int64_t>{4, 9, 3, 0, 3, 9, 7, 3}));
  manual_seed(0);
  EXPECT_EQ(values<int64_t>(randperm(10)), (std::vector<int64_t>{4, 1, 7, 5, 3, 9, 0, 8, 6, 2}));
  manual_seed(0);
  EXPECT_EQ(values<double>(rand({1}, kFloat64))[0], 0x1.f0aac97c4aa2fp-1);
  manual_seed(0);
  EXPECT_EQ(values<float>(dropout(ones({16}), 0.5, true)),
            (std::vector<float>{0, 0, 2, 0, 0, 0, 2, 2, 0, 2, 2, 2, 2, 0, 2, 2}));
}

TEST(Random, GeneratorOverloads) {
  Generator g = make_generator(42);
  Tensor a = rand({5}, g);
  g->manual_seed(42);
  Tensor b = empty({5}).uniform_(0, 1, g);
  EXPECT_EQ(values<float>(a), values<float>(b));
  EXPECT_EQ(values<float>(a)[0], 0x1.c3b8ccp-1f);
  g->manual_seed(42);
  EXPECT_EQ(values<int64_t>(randint(0, 10, {8}, g)), (std::vector<int64_t>{2, 7, 6, 4, 6, 5, 0, 4}));
  g->manual_seed(42);
  EXPECT_EQ(values<int64_t>(randperm(10, g)), (std::vector<int64_t>{2, 6, 1, 8, 4, 5, 0, 9, 3, 7}));
}

TEST(Random, ErrorsNameTheOp) {
  EMBER_EXPECT_ERROR(randint(5, 5, {3}), Runtime, "from=5 >= to=5");
  EMBER_EXPECT_ERROR(randperm(-1), Runtime, "negative dimension -1");
  EMBER_EXPECT_ERROR(empty({3}).bernoulli_(1.5), Runtime, "bernoulli_");
  EMBER_EXPECT_ERROR(dropout(ones({3}), -0.5, true), Runtime, "dropout: dropout probability");
}

TEST(Random, KernelsOnOneGeneratorFromManyThreads) {
  constexpr int kThreads = 4, kCalls = 25, kSize = 257;
  Generator g = make_generator(9);
  std::vector<std::vector<float>> got(kThreads * kCalls);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int c = 0; c < kCalls; ++c) got[t * kCalls + c] = values<float>(rand({kSize}, g));
    });
  }
  for (auto& th : threads) th.join();
  Generator ref = make_generator(9);
  std::vector<std::vector<float>> expected;
  for (int i = 0; i < kThreads * kCalls; ++i) expected.push_back(values<float>(rand({kSize}, ref)));
  std::sort(got.begin(), got.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(got, expected);
}

}  // namespace
