#pragma once
// Note [caching allocator]
// On these machines the first touch of each fresh 4 KiB page costs about 12 us, so a framework that returns
// large blocks to the OS (glibc does for blocks >= 128 KiB by default) pays it again on every op. The CPU
// allocator keeps freed blocks in size classes (powers of two above 4 KiB, 64-byte steps below) and hands
// them out again. It is thread-safe (one mutex per size class) and keeps statistics. Caching can be turned
// off (EMBER_CPU_CACHING=0 in the environment, or set_caching_enabled(false)) so leak checkers see each
// block freed; empty_cache() returns every cached block to the OS.
#include <cstddef>
#include <cstdint>

namespace ember {

/// Counters of the CPU allocator, in bytes or counts.
struct MemoryStats {
  int64_t allocated_bytes = 0;       // held by live storages (rounded to size classes)
  int64_t peak_allocated_bytes = 0;  // maximum of allocated_bytes since start or reset_peak_stats()
  int64_t cached_bytes = 0;          // freed blocks kept for reuse
  int64_t num_allocs = 0;            // allocate() calls
  int64_t num_cache_hits = 0;        // allocate() calls served from the cache
  int64_t num_os_allocs = 0;         // allocate() calls that went to the OS
};

namespace cpu_allocator {
/// Returns a 64-byte aligned block of at least nbytes (nullptr for 0). Errors: out of memory (RuntimeError
/// naming the size).
void* allocate(size_t nbytes);
/// Returns a block from allocate(); nbytes must be the size passed to allocate().
void deallocate(void* p, size_t nbytes) noexcept;
MemoryStats stats();
void reset_peak_stats();
/// Frees every cached block.
void empty_cache();
void set_caching_enabled(bool enabled);
bool caching_enabled();
}  // namespace cpu_allocator

}  // namespace ember
