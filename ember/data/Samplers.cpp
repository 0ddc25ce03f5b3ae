#include "ember/data/Samplers.h"

#include <algorithm>

#include "ember/base/Error.h"
#include "ember/ops/Functions.h"

namespace ember::data::samplers {

namespace {

void check_batch_size(const char* sampler, size_t batch_size) {
  EMBER_CHECK_VALUE(batch_size > 0, "{}::next: batch_size must be positive, got 0", sampler);
}

}  // namespace

SequentialSampler::SequentialSampler(size_t size) : size_(size) {}

void SequentialSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  index_ = 0;
}

std::optional<std::vector<size_t>> SequentialSampler::next(size_t batch_size) {
  check_batch_size("SequentialSampler", batch_size);
  if (index_ >= size_) return std::nullopt;
  const size_t n = std::min(batch_size, size_ - index_);
  std::vector<size_t> request(n);
  for (size_t i = 0; i < n; ++i) request[i] = index_ + i;
  index_ += n;
  return request;
}

RandomSampler::RandomSampler(int64_t size, DType index_dtype) : size_(size), index_dtype_(index_dtype) {
  EMBER_CHECK_VALUE(size >= 0, "RandomSampler: size must be non-negative, got {}", size);
}

RandomSampler::RandomSampler(int64_t size, Generator generator, DType index_dtype)
    : RandomSampler(size, index_dtype) {
  EMBER_CHECK_VALUE(generator, "RandomSampler: the generator is null");
  generator_ = std::move(generator);
}

void RandomSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = static_cast<int64_t>(*new_size);
  drawn_ = drew_rest_ = false;
  pass_generator_.reset();
  indices_.clear();
  index_ = 0;
}

Tensor RandomSampler::permutation() {
  // See Note [C++ sampler random streams]: the draws of Python's RandomSampler.__iter__, in its order; a
  // pass's private generator also draws the pass's trailing permutation.
  if (!pass_generator_) {
    if (generator_) {
      pass_generator_ = *generator_;
    } else {
      const auto seed = empty({}, kInt64).random_().item<int64_t>();
      pass_generator_ = make_generator(static_cast<uint64_t>(seed));
    }
  }
  return randperm(size_, *pass_generator_, index_dtype_);
}

std::optional<std::vector<size_t>> RandomSampler::next(size_t batch_size) {
  check_batch_size("RandomSampler", batch_size);
  if (!drawn_) {
    Tensor perm = permutation().to(kInt64).contiguous();
    const int64_t* p = perm.data_ptr<int64_t>();
    indices_.assign(p, p + perm.numel());
    drawn_ = true;
  }
  const size_t remaining = indices_.size() - index_;
  if (batch_size > remaining && !drew_rest_) {
    // Python asks for one index past the permutation here and draws the next permutation to find none.
    (void)permutation();
    drew_rest_ = true;
  }
  if (remaining == 0) return std::nullopt;
  const size_t n = std::min(batch_size, remaining);
  const auto first = indices_.begin() + static_cast<std::ptrdiff_t>(index_);
  std::vector<size_t> request(first, first + static_cast<std::ptrdiff_t>(n));
  index_ += n;
  return request;
}

}  // namespace ember::data::samplers
