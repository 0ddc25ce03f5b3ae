// The caching CPU allocator: size classes, reuse of freed blocks, statistics, and the switch that turns
// caching off (Note [caching allocator]).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "ember/core/Storage.h"

namespace {

namespace alloc = ember::cpu_allocator;

// Runs each test with caching on (EMBER_CPU_CACHING=0 may be set by a leak-check run) and restores the setting.
class Allocator : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = alloc::caching_enabled();
    alloc::set_caching_enabled(true);
  }
  void TearDown() override { alloc::set_caching_enabled(saved_); }
  bool saved_ = true;
};

TEST_F(Allocator, ZeroBytesIsNull) {
  auto before = alloc::stats();
  EXPECT_EQ(alloc::allocate(0), nullptr);
  alloc::deallocate(nullptr, 0);
  EXPECT_EQ(alloc::stats().num_allocs, before.num_allocs);
}

TEST_F(Allocator, BlocksAreAligned) {
  std::vector<std::pair<void*, size_t>> blocks;
  for (size_t n : {1u, 63u, 64u, 100u, 4096u, 4097u, 100000u}) {
    void* p = alloc::allocate(n);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u) << n;
    std::memset(p, 0xab, n);  // the whole requested size is usable
    blocks.emplace_back(p, n);
  }
  for (auto [p, n] : blocks) alloc::deallocate(p, n);
}

TEST_F(Allocator, FreedBlockIsReusedForTheSameSizeClass) {
  void* p = alloc::allocate(1000);
  alloc::deallocate(p, 1000);
  auto before = alloc::stats();
  void* q = alloc::allocate(1000);
  auto after = alloc::stats();
  EXPECT_EQ(q, p);
  EXPECT_EQ(after.num_allocs, before.num_allocs + 1);
  EXPECT_EQ(after.num_cache_hits, before.num_cache_hits + 1);
  EXPECT_EQ(after.num_os_allocs, before.num_os_allocs);
  EXPECT_EQ(after.cached_bytes, before.cached_bytes - 1024);   // 1000 rounds to the 1024-byte class
  EXPECT_EQ(after.allocated_bytes, before.allocated_bytes + 1024);
  alloc::deallocate(q, 1000);
  // 1010 bytes fall in the same 64-byte class as 1000; 5000 and 8000 in the same power-of-two class.
  void* r = alloc::allocate(1010);
  EXPECT_EQ(r, p);
  alloc::deallocate(r, 1010);
  void* big = alloc::allocate(5000);
  alloc::deallocate(big, 5000);
  auto mid = alloc::stats();
  void* big2 = alloc::allocate(8000);
  EXPECT_EQ(big2, big);
  EXPECT_EQ(alloc::stats().num_cache_hits, mid.num_cache_hits + 1);
  alloc::deallocate(big2, 8000);
}

TEST_F(Allocator, StatsTrackAllocatedAndPeak) {
  alloc::empty_cache();
  auto s0 = alloc::stats();
  EXPECT_EQ(s0.cached_bytes, 0);
  alloc::reset_peak_stats();
  void* a = alloc::allocate(1 << 20);
  void* b = alloc::allocate(1 << 20);
  auto s1 = alloc::stats();
  EXPECT_EQ(s1.allocated_bytes, s0.allocated_bytes + (2 << 20));
  EXPECT_GE(s1.peak_allocated_bytes, s1.allocated_bytes);
  alloc::deallocate(a, 1 << 20);
  alloc::deallocate(b, 1 << 20);
  auto s2 = alloc::stats();
  EXPECT_EQ(s2.allocated_bytes, s0.allocated_bytes);
  EXPECT_EQ(s2.cached_bytes, 2 << 20);
  EXPECT_EQ(s2.peak_allocated_bytes, s1.peak_allocated_bytes);  // peak stays until reset
  alloc::reset_peak_stats();
  EXPECT_EQ(alloc::stats().peak_allocated_bytes, s2.allocated_bytes);
  alloc::empty_cache();
  EXPECT_EQ(alloc::stats().cached_bytes, 0);
}

TEST_F(Allocator, CachingDisabledFreesEverything) {
  void* p = alloc::allocate(3000);
  alloc::deallocate(p, 3000);
  EXPECT_GT(alloc::stats().cached_bytes, 0);
  alloc::set_caching_enabled(false);
  EXPECT_FALSE(alloc::caching_enabled());
  EXPECT_EQ(alloc::stats().cached_bytes, 0);  // turning caching off returns the cache
  auto before = alloc::stats();
  void* q = alloc::allocate(3000);
  alloc::deallocate(q, 3000);
  void* r = alloc::allocate(3000);
  alloc::deallocate(r, 3000);
  auto after = alloc::stats();
  EXPECT_EQ(after.num_cache_hits, before.num_cache_hits);
  EXPECT_EQ(after.num_os_allocs, before.num_os_allocs + 2);
  EXPECT_EQ(after.cached_bytes, 0);
  EXPECT_EQ(after.allocated_bytes, before.allocated_bytes);
}

TEST_F(Allocator, StorageReturnsItsBlockToTheCache) {
  alloc::empty_cache();
  void* data = nullptr;
  {
    auto s = ember::make_intrusive<ember::StorageImpl>(2048);
    data = s->data();
    EXPECT_EQ(s->nbytes(), 2048u);
    EXPECT_TRUE(s->writable());
  }
  EXPECT_EQ(alloc::stats().cached_bytes, 2048);
  auto s2 = ember::make_intrusive<ember::StorageImpl>(2000);
  EXPECT_EQ(s2->data(), data);
}

TEST_F(Allocator, ExternalStorageCallsItsDeleter) {
  static int calls = 0;
  static void* seen = nullptr;
  int buffer[4] = {};
  {
    auto s = ember::make_intrusive<ember::StorageImpl>(
        buffer, sizeof(buffer), [](void* ctx, void* d) {
          ++calls;
          seen = d;
          (void)ctx;
        },
        nullptr);
    EXPECT_EQ(s->data(), buffer);
    EXPECT_EQ(calls, 0);
  }
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen, buffer);
}

}  // namespace
