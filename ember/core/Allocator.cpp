#include "ember/core/Allocator.h"

#include <array>
#include <atomic>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "ember/base/Error.h"

namespace ember::cpu_allocator {

namespace {

constexpr size_t kAlign = 64;
constexpr size_t kSmallStep = 64;       // size classes below kSmallLimit are multiples of 64 bytes
constexpr size_t kSmallLimit = 4096;
constexpr int kNumSmall = kSmallLimit / kSmallStep;  // classes 0..63 cover (0, 4096]
constexpr int kNumClasses = kNumSmall + 48;          // then powers of two up to 2^59
constexpr size_t kMaxCachedPerClass = 64;

struct SizeClass {
  std::mutex mu;
  std::vector<void*> free_blocks;
};

std::array<SizeClass, kNumClasses>& classes() {
  static auto* c = new std::array<SizeClass, kNumClasses>();  // leaked: outlives static tensors
  return *c;
}

std::atomic<bool> g_caching{[] {
  const char* e = std::getenv("EMBER_CPU_CACHING");
  return !(e && std::strcmp(e, "0") == 0);
}()};
std::atomic<int64_t> g_allocated{0}, g_peak{0}, g_cached{0}, g_allocs{0}, g_hits{0}, g_os{0};

// Size class index and the rounded size it stands for.
int class_of(size_t n, size_t* rounded) {
  if (n <= kSmallLimit) {
    size_t k = (n + kSmallStep - 1) / kSmallStep;
    *rounded = k * kSmallStep;
    return static_cast<int>(k - 1);
  }
  size_t p = std::bit_ceil(n);
  *rounded = p;
  return kNumSmall + (std::countr_zero(p) - 13);  // 8192 -> first large class
}

void update_peak(int64_t now) {
  int64_t peak = g_peak.load(std::memory_order_relaxed);
  while (now > peak && !g_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

}  // namespace

void* allocate(size_t nbytes) {
  if (nbytes == 0) return nullptr;
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  size_t rounded = 0;
  int c = class_of(nbytes, &rounded);
  EMBER_CHECK(c < kNumClasses, "CPU allocator: cannot allocate {} bytes", nbytes);
  if (g_caching.load(std::memory_order_relaxed)) {
    SizeClass& sc = classes()[c];
    std::lock_guard<std::mutex> g(sc.mu);
    if (!sc.free_blocks.empty()) {
      void* p = sc.free_blocks.back();
      sc.free_blocks.pop_back();
      g_hits.fetch_add(1, std::memory_order_relaxed);
      g_cached.fetch_sub(static_cast<int64_t>(rounded), std::memory_order_relaxed);
      update_peak(g_allocated.fetch_add(static_cast<int64_t>(rounded), std::memory_order_relaxed) +
                  static_cast<int64_t>(rounded));
      return p;
    }
  }
  void* p = std::aligned_alloc(kAlign, rounded);
  EMBER_CHECK(p != nullptr, "CPU allocator: out of memory allocating {} bytes", nbytes);
  g_os.fetch_add(1, std::memory_order_relaxed);
  update_peak(g_allocated.fetch_add(static_cast<int64_t>(rounded), std::memory_order_relaxed) +
              static_cast<int64_t>(rounded));
  return p;
}

void deallocate(void* p, size_t nbytes) noexcept {
  if (!p) return;
  size_t rounded = 0;
  int c = class_of(nbytes, &rounded);
  g_allocated.fetch_sub(static_cast<int64_t>(rounded), std::memory_order_relaxed);
  if (g_caching.load(std::memory_order_relaxed)) {
    SizeClass& sc = classes()[c];
    std::lock_guard<std::mutex> g(sc.mu);
    if (sc.free_blocks.size() < kMaxCachedPerClass) {
      try {
        sc.free_blocks.push_back(p);
        g_cached.fetch_add(static_cast<int64_t>(rounded), std::memory_order_relaxed);
        return;
      } catch (...) {  // could not grow the list: give the block back instead
      }
    }
  }
  std::free(p);
}

MemoryStats stats() {
  MemoryStats s;
  s.allocated_bytes = g_allocated.load();
  s.peak_allocated_bytes = g_peak.load();
  s.cached_bytes = g_cached.load();
  s.num_allocs = g_allocs.load();
  s.num_cache_hits = g_hits.load();
  s.num_os_allocs = g_os.load();
  return s;
}

void reset_peak_stats() { g_peak.store(g_allocated.load()); }

void empty_cache() {
  for (int c = 0; c < kNumClasses; ++c) {
    SizeClass& sc = classes()[c];
    std::lock_guard<std::mutex> g(sc.mu);
    size_t rounded = c < kNumSmall ? static_cast<size_t>(c + 1) * kSmallStep : size_t{1} << (c - kNumSmall + 13);
    for (void* p : sc.free_blocks) std::free(p);
    g_cached.fetch_sub(static_cast<int64_t>(rounded * sc.free_blocks.size()));
    sc.free_blocks.clear();
  }
}

void set_caching_enabled(bool enabled) {
  g_caching.store(enabled);
  if (!enabled) empty_cache();
}
bool caching_enabled() { return g_caching.load(); }

}  // namespace ember::cpu_allocator
