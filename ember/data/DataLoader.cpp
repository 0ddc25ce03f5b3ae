#include "ember/data/DataLoader.h"

#include "ember/ops/Functions.h"

namespace ember::data {

FullDataLoaderOptions::FullDataLoaderOptions(const DataLoaderOptions& options)
    : batch_size(options.batch_size()),
      workers(options.workers()),
      max_jobs(options.max_jobs().value_or(2 * options.workers())),
      timeout(options.timeout()),
      enforce_ordering(options.enforce_ordering()),
      drop_last(options.drop_last()),
      generator(options.generator()) {
  EMBER_CHECK_VALUE(batch_size > 0, "DataLoader: batch_size must be positive, got 0");
  EMBER_CHECK_VALUE(workers == 0 || max_jobs > 0,
                    "DataLoader: max_jobs must be positive with workers ({} workers, max_jobs 0 would never request "
                    "a batch)",
                    workers);
  EMBER_CHECK_VALUE(!timeout || timeout->count() >= 0, "DataLoader: timeout must be non-negative, got {} ms",
                    timeout ? timeout->count() : 0);
  EMBER_CHECK_VALUE(!generator || *generator, "DataLoader: the generator is null");
}

namespace detail {

void draw_epoch_seed(const std::optional<Generator>& generator) {
  // See Note [data loader seed]: the value is not used, the draw keeps the stream in step with Python's.
  (void)empty({}, kInt64).random_(generator);
}

void throw_timeout(std::chrono::milliseconds timeout, size_t batch) {
  EMBER_FAIL("DataLoader: batch {} of the epoch did not arrive within the timeout of {} ms", batch, timeout.count());
}

}  // namespace detail
}  // namespace ember::data
