#pragma once
// Note [random streams]
// Ember's CPU generator reproduces PyTorch 1.13's (at::CPUGeneratorImpl) bit for bit, so a program seeded
// with manual_seed(s) draws the very numbers PyTorch draws (../shared/notes/pytorch-cpu-rng.md, §1):
//  - the engine is the 32-bit Mersenne Twister (MT19937) seeded from the low 32 bits of the 64-bit seed with
//    the standard initialisation; `left = 1, next = 0`, so the first draw twists (the same stream as
//    std::mt19937(uint32_t(seed)));
//  - random() is one tempered 32-bit output, random64() two of them, the first one the high half;
//  - the generator keeps one cached normal value (the second half of a double Box-Muller pair, used by
//    elementwise normal sampling) and a float cache that PyTorch 1.13's CPU kernels never fill; seeding
//    clears both;
//  - get_state()/set_state() use PyTorch's 5056-byte layout (kStateSize), so states move between the two.
// Every draw happens under the generator's mutex: a kernel takes LockedGenerator once, draws all it needs
// in a fixed order, and releases it, so results never depend on the thread count and concurrent users of
// one generator see disjoint parts of its stream.
#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "ember/base/intrusive_ptr.h"

namespace ember {

/// The 32-bit Mersenne Twister as PyTorch's at::mt19937: state words, `left` (draws until the next twist,
/// 1..624) and `next` (index of the next word). Not thread-safe; GeneratorImpl guards it.
class MT19937 {
 public:
  static constexpr int kN = 624;
  static constexpr int kM = 397;

  explicit MT19937(uint64_t seed = 5489) { seed_with(seed); }

  /// Seeds from the low 32 bits of seed (the full value is kept as the seed).
  void seed_with(uint64_t seed);
  /// One tempered 32-bit output.
  uint32_t operator()() {
    if (--left_ == 0) twist();
    uint32_t y = state_[next_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
  }

  uint64_t seed() const { return seed_; }
  int left() const { return left_; }
  uint32_t next() const { return next_; }
  const std::array<uint32_t, kN>& state() const { return state_; }
  /// Replaces the whole state. Errors: `left` outside 1..624 or `next` above 624 ("Invalid mt19937 state").
  void set(uint64_t seed, int left, uint32_t next, const std::array<uint32_t, kN>& state);

 private:
  void twist();

  uint64_t seed_ = 0;
  int left_ = 1;
  uint32_t next_ = 0;
  std::array<uint32_t, kN> state_{};
};

class LockedGenerator;

/// A source of random numbers for the random ops: PyTorch's CPU generator (Note [random streams]). One
/// default generator per process (default_generator()); users may make their own (make_generator()). The
/// public methods lock the generator themselves; kernels draw through lock() (a LockedGenerator).
class GeneratorImpl : public intrusive_target {
 public:
  /// The seed of a new torch.Generator() (0x3d30f19cd101), so unseeded generators share one stream.
  static constexpr uint64_t kDefaultSeed = 67280421310721ull;
  /// Bytes of get_state(): PyTorch's CPUGeneratorImplState layout.
  static constexpr size_t kStateSize = 5056;
  /// Bytes of PyTorch's older state layout, also accepted by set_state().
  static constexpr size_t kLegacyStateSize = 5048;

  explicit GeneratorImpl(uint64_t seed = kDefaultSeed) : engine_(seed) {}

  /// Reseeds with seed (any 64-bit value; negative seeds arrive as their two's complement) and clears the
  /// cached normal values.
  void manual_seed(uint64_t seed);
  /// The seed last given to manual_seed() or seed(), all 64 bits of it.
  uint64_t initial_seed() const;
  /// Reseeds with a non-deterministic 64-bit value from /dev/urandom and returns it.
  uint64_t seed();
  /// The whole state as PyTorch's 5056 bytes (little-endian): seed, left, seeded, next, the 624 words as
  /// uint64, the double normal cache at 5024 (valid flag at 5040), the float cache at 5048 (flag at 5052).
  std::vector<uint8_t> get_state() const;
  /// Restores a state from get_state() (or PyTorch's torch.get_rng_state()); also accepts PyTorch's
  /// 5048-byte legacy layout. Errors: another size; `seeded` false, `left` outside 1..624 or `next` above
  /// 624 (RuntimeError "Invalid mt19937 state"). Nothing changes on error.
  void set_state(const uint8_t* data, size_t size);

  /// Exclusive access for drawing, held for the whole of a kernel's draws.
  LockedGenerator lock();

 private:
  friend class LockedGenerator;
  mutable std::mutex mu_;
  MT19937 engine_;
  std::optional<double> next_double_normal_;
  std::optional<float> next_float_normal_;
};

using Generator = intrusive_ptr<GeneratorImpl>;

/// A generator held locked: the draws of one kernel (PyTorch's `std::lock_guard lock(gen->mutex_)`).
class LockedGenerator {
 public:
  explicit LockedGenerator(GeneratorImpl& g) : lock_(g.mu_), g_(&g) {}

  /// One 32-bit output of the engine.
  uint32_t random() { return g_->engine_(); }
  /// Two 32-bit outputs, the first as the high half.
  uint64_t random64() {
    uint64_t hi = g_->engine_();
    uint64_t lo = g_->engine_();
    return (hi << 32) | lo;
  }
  /// The cached second value of a double Box-Muller pair, if any (see normal sampling in
  /// kernels/cpu/random.cpp); taking it empties the cache.
  std::optional<double> take_double_normal() { return std::exchange(g_->next_double_normal_, std::nullopt); }
  void set_double_normal(double v) { g_->next_double_normal_ = v; }

 private:
  std::unique_lock<std::mutex> lock_;
  GeneratorImpl* g_;
};

inline LockedGenerator GeneratorImpl::lock() { return LockedGenerator(*this); }

/// A new generator seeded with seed (by default PyTorch's torch.Generator() seed).
Generator make_generator(uint64_t seed = GeneratorImpl::kDefaultSeed);
/// The process-wide default generator, seeded non-deterministically when first used (as PyTorch's).
const Generator& default_generator();
/// gen when given, else the default generator.
inline GeneratorImpl& generator_or_default(const std::optional<Generator>& gen) {
  return gen && *gen ? **gen : *default_generator();
}

/// Seeds the default generator (torch.manual_seed).
void manual_seed(uint64_t seed);
/// The default generator's seed (torch.initial_seed).
uint64_t initial_seed();
/// Reseeds the default generator non-deterministically and returns the seed (torch.seed).
uint64_t seed();

}  // namespace ember
