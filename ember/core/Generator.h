#pragma once
#include <cstdint>
#include <mutex>
#include <random>

#include "ember/base/intrusive_ptr.h"

namespace ember {

/// A source of random numbers for the random ops (one default generator per process; users may make their
/// own). The engine is the 32-bit Mersenne Twister seeded as PyTorch's CPU generator is
/// (see ../shared/notes/pytorch-cpu-rng.md); the random ops that use it come with the op issue.
class GeneratorImpl : public intrusive_target {
 public:
  explicit GeneratorImpl(uint64_t seed = 67280421310721ull) { manual_seed(seed); }
  void manual_seed(uint64_t seed) {
    seed_ = seed;
    engine_.seed(static_cast<uint32_t>(seed));
  }
  uint64_t initial_seed() const { return seed_; }
  uint32_t random() { return engine_(); }
  /// Held by random kernels while they draw, so concurrent users see disjoint streams.
  std::mutex& mutex() { return mu_; }

 private:
  uint64_t seed_ = 0;
  std::mt19937 engine_;
  std::mutex mu_;
};

using Generator = intrusive_ptr<GeneratorImpl>;

/// The process-wide default generator.
const Generator& default_generator();

}  // namespace ember
