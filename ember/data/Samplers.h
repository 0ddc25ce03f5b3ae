#pragma once
// Samplers (LibTorch's torch::data::samplers): the order in which a DataLoader visits a data set. A sampler
// hands out batch requests, next(batch_size) -> the indices of the next batch (fewer at the end, nullopt when
// the pass is over); reset() starts a new pass (a DataLoader calls it at every begin()).
//
// Note [C++ sampler random streams]
// RandomSampler draws exactly what Python's ember.utils.data.RandomSampler (and PyTorch 1.13's) draws, in the
// same order (Note [sampler random streams] in python/ember/utils/data/sampler.py), so after the same
// ember::manual_seed(s) a C++ pass visits the indices in the order a Python pass does:
//  - without a generator, a pass begins by drawing one int64 seed from the default generator (random_ of a
//    0-dim int64 tensor) and permutes with ember::randperm(n) on a new generator seeded with it;
//  - with a generator, it permutes with randperm(n, generator) directly;
//  - like Python's, which draws `num_samples // n` permutations and then one more (cut to the remaining 0
//    indices), it draws a second, unused permutation when a request finds the first one used up.
// Every draw is lazy: nothing is drawn until the first next() of a pass (Python draws at the first index).
// DataLoader adds the one draw Python's DataLoader makes per epoch (Note [data loader seed]), so a C++ loader
// gives Python's batches too. LibTorch's RandomSampler instead draws a permutation in its constructor and at
// every reset(), from the default generator, so its order differs from both.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "ember/core/Generator.h"
#include "ember/core/Tensor.h"

namespace ember::data::samplers {

/// The sampler interface: reset(new_size) starts a new pass (over new_size examples when given);
/// next(batch_size) returns the next request (at most batch_size indices), nullopt once the pass is over.
template <typename BatchRequest = std::vector<size_t>>
class Sampler {
 public:
  using BatchRequestType = BatchRequest;

  virtual ~Sampler() = default;
  virtual void reset(std::optional<size_t> new_size) = 0;
  virtual std::optional<BatchRequest> next(size_t batch_size) = 0;
};

/// Visits 0, 1, ..., size - 1 in order.
class SequentialSampler : public Sampler<> {
 public:
  explicit SequentialSampler(size_t size);

  /// Back to index 0 (with new_size: of a data set of that many examples).
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  /// The next min(batch_size, remaining) indices; nullopt when none remain. Errors: batch_size 0.
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  /// How many indices this pass has handed out.
  size_t index() const noexcept { return index_; }

 private:
  size_t size_;
  size_t index_ = 0;
};

/// Visits a random permutation of 0..size-1 per pass, drawn as Python's RandomSampler draws it (Note [C++
/// sampler random streams]): from a generator seeded from the default generator, or from `generator`.
/// index_dtype is the dtype of the permutation ember::randperm makes (int64 or int32).
class RandomSampler : public Sampler<> {
 public:
  explicit RandomSampler(int64_t size, DType index_dtype = kInt64);
  RandomSampler(int64_t size, Generator generator, DType index_dtype = kInt64);

  /// Starts a new pass, with a new permutation drawn at its first next() (of new_size examples when given).
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  /// The next min(batch_size, remaining) indices of this pass's permutation; nullopt when none remain.
  /// Errors: batch_size 0.
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  /// How many indices this pass has handed out.
  size_t index() const noexcept { return index_; }

 private:
  Tensor permutation();

  int64_t size_;
  DType index_dtype_;
  std::optional<Generator> generator_;       // the user's, if given
  std::optional<Generator> pass_generator_;  // what this pass draws from: generator_ or a private one
  std::vector<size_t> indices_;  // this pass's permutation, drawn at its first next()
  bool drawn_ = false;           // indices_ is this pass's
  bool drew_rest_ = false;       // the trailing permutation of Note [C++ sampler random streams] is drawn
  size_t index_ = 0;
};

}  // namespace ember::data::samplers

namespace ember::data {
// The samplers by their short names too: make_data_loader<RandomSampler>(...).
using samplers::RandomSampler;
using samplers::SequentialSampler;
}  // namespace ember::data
