// Generator: PyTorch's MT19937 stream, seeding, 64-bit draws, the 5056-byte state layout (and its validation),
// the normal cache, and disjoint draws from concurrent kernels holding the lock.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "TestSupport.h"
#include "ember/core/Generator.h"

namespace {

using ember::Generator;
using ember::GeneratorImpl;
using ember::LockedGenerator;
using ember::make_generator;
using ember::testing::expect_error;

std::vector<uint32_t> draws(GeneratorImpl& g, int n) {
  LockedGenerator rng = g.lock();
  std::vector<uint32_t> v(static_cast<size_t>(n));
  for (auto& x : v) x = rng.random();
  return v;
}

template <class T>
T read(const std::vector<uint8_t>& b, size_t off) {
  T v;
  std::memcpy(&v, b.data() + off, sizeof(T));
  return v;
}

template <class T>
void write(std::vector<uint8_t>& b, size_t off, T v) {
  std::memcpy(b.data() + off, &v, sizeof(T));
}

TEST(Generator, StreamIsStdMt19937OfTheLow32Bits) {
  for (uint64_t seed : {0ull, 1ull, 42ull, 123456789ull, (1ull << 40) + 7, ~0ull}) {
    Generator g = make_generator(seed);
    std::mt19937 ref(static_cast<uint32_t>(seed));
    std::vector<uint32_t> got = draws(*g, 2000);  // crosses several twists
    for (uint32_t x : got) ASSERT_EQ(x, ref()) << "seed " << seed;
    EXPECT_EQ(g->initial_seed(), seed);  // all 64 bits are kept
  }
  // Seeds equal modulo 2^32 give the same stream.
  Generator a = make_generator(5), b = make_generator((1ull << 32) + 5);
  EXPECT_EQ(draws(*a, 700), draws(*b, 700));
}

TEST(Generator, NewGeneratorsStartWithPyTorchsSeed) {
  Generator g = make_generator();
  EXPECT_EQ(g->initial_seed(), 67280421310721ull);
  std::mt19937 ref(static_cast<uint32_t>(67280421310721ull));
  EXPECT_EQ(draws(*g, 1)[0], ref());
}

TEST(Generator, Random64TakesTheFirstDrawAsHighHalf) {
  Generator g = make_generator(7);
  std::mt19937 ref(7);
  LockedGenerator rng = g->lock();
  for (int i = 0; i < 10; ++i) {
    uint64_t hi = ref(), lo = ref();
    EXPECT_EQ(rng.random64(), (hi << 32) | lo);
  }
}

TEST(Generator, ManualSeedRestartsAndClearsTheNormalCache) {
  Generator g = make_generator(3);
  std::vector<uint32_t> first = draws(*g, 10);
  g->lock().set_double_normal(1.25);
  g->manual_seed(3);
  EXPECT_EQ(draws(*g, 10), first);
  EXPECT_FALSE(g->lock().take_double_normal().has_value());
}

TEST(Generator, StateLayoutIsPyTorchs) {
  Generator g = make_generator(0x123456789abcull);
  std::vector<uint8_t> s = g->get_state();
  ASSERT_EQ(s.size(), GeneratorImpl::kStateSize);
  EXPECT_EQ(read<uint64_t>(s, 0), 0x123456789abcull);
  EXPECT_EQ(read<int32_t>(s, 8), 1);    // left: the first draw twists
  EXPECT_EQ(read<int32_t>(s, 12), 1);   // seeded
  EXPECT_EQ(read<uint64_t>(s, 16), 0u);  // next
  EXPECT_EQ(read<uint64_t>(s, 24), 0x56789abcull);  // state[0] = low 32 bits of the seed
  EXPECT_EQ(read<int32_t>(s, 5040), 0);  // no cached normal
  draws(*g, 3);
  s = g->get_state();
  EXPECT_EQ(read<int32_t>(s, 8), 622);
  EXPECT_EQ(read<uint64_t>(s, 16), 3u);
  g->lock().set_double_normal(-0.5);
  s = g->get_state();
  EXPECT_EQ(read<double>(s, 5024), -0.5);
  EXPECT_EQ(read<int32_t>(s, 5040), 1);
  for (size_t off : {5016u, 5032u, 5044u, 5048u, 5052u}) EXPECT_EQ(read<int32_t>(s, off), 0) << off;
}

TEST(Generator, SetStateResumesTheStreamAndTheCache) {
  Generator g = make_generator(11);
  draws(*g, 100);
  g->lock().set_double_normal(2.5);
  std::vector<uint8_t> s = g->get_state();
  std::vector<uint32_t> after = draws(*g, 1000);
  Generator h = make_generator(99);
  h->set_state(s.data(), s.size());
  EXPECT_EQ(h->initial_seed(), 11u);
  EXPECT_EQ(h->lock().take_double_normal(), std::optional<double>(2.5));
  EXPECT_EQ(draws(*h, 1000), after);
  g->lock().take_double_normal();  // as h's above
  EXPECT_EQ(h->get_state(), g->get_state());
}

TEST(Generator, SetStateAcceptsTheLegacyLayout) {
  Generator g = make_generator(21);
  draws(*g, 5);
  std::vector<uint8_t> s = g->get_state();
  s.resize(GeneratorImpl::kLegacyStateSize);
  write<int32_t>(s, 5040, 1);
  write<double>(s, 5016, 0.25);  // normal_x: the cached value is rho * sin(2 pi x)
  write<double>(s, 5032, 2.0);   // normal_rho
  Generator h = make_generator();
  h->set_state(s.data(), s.size());
  EXPECT_DOUBLE_EQ(*h->lock().take_double_normal(), 2.0);
  EXPECT_EQ(draws(*h, 50), draws(*g, 50));
}

TEST(Generator, InvalidStatesRaiseAndChangeNothing) {
  Generator g = make_generator(5);
  std::vector<uint8_t> good = g->get_state();
  Generator h = make_generator(8);
  std::vector<uint8_t> before = h->get_state();
  auto bad = [&](size_t off, int32_t v) {
    std::vector<uint8_t> s = good;
    write<int32_t>(s, off, v);
    return s;
  };
  for (const std::vector<uint8_t>& s : {bad(8, 0), bad(8, 625), bad(12, 0), bad(16, 625)}) {
    ember::Error e = expect_error([&] { h->set_state(s.data(), s.size()); });
    EXPECT_NE(std::string(e.what()).find("Invalid mt19937 state"), std::string::npos) << e.what();
  }
  std::vector<uint8_t> short_state(5055);
  expect_error([&] { h->set_state(short_state.data(), short_state.size()); });
  EXPECT_EQ(h->get_state(), before);
}

TEST(Generator, DefaultGeneratorAndFreeFunctions) {
  ember::manual_seed(static_cast<uint64_t>(-1));
  EXPECT_EQ(ember::initial_seed(), ~0ull);
  EXPECT_EQ(ember::default_generator()->initial_seed(), ~0ull);
  uint64_t s = ember::seed();
  EXPECT_EQ(ember::initial_seed(), s);
  EXPECT_NE(ember::seed(), s);  // 64 random bits: equal with probability 2^-64
  EXPECT_EQ(&ember::generator_or_default(std::nullopt), ember::default_generator().get());
}

TEST(Generator, ConcurrentKernelsDrawDisjointChunks) {
  // Each "kernel" holds the lock for its whole chunk, so every chunk is one contiguous piece of the stream.
  constexpr int kThreads = 4, kChunks = 25, kChunk = 300;
  Generator g = make_generator(1234);
  std::vector<std::vector<uint32_t>> got(kThreads * kChunks);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int c = 0; c < kChunks; ++c) got[t * kChunks + c] = draws(*g, kChunk);
    });
  }
  for (auto& th : threads) th.join();
  std::mt19937 ref(1234);
  std::vector<std::vector<uint32_t>> expected(kThreads * kChunks, std::vector<uint32_t>(kChunk));
  for (auto& chunk : expected)
    for (auto& x : chunk) x = ref();
  std::sort(got.begin(), got.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(got, expected);
}

}  // namespace
