#pragma once
// The DataLoader (LibTorch's torch::data::make_data_loader): batches of a data set in the order of a sampler,
// made on the iterating thread or, with workers, by worker threads ahead of time.
//
//   auto ds = ember::data::datasets::MNIST(root).map(ember::data::transforms::Stack<>());
//   auto loader = ember::data::make_data_loader<ember::data::RandomSampler>(
//       std::move(ds), ember::data::DataLoaderOptions().batch_size(64).workers(2));
//   for (auto& batch : *loader) { batch.data; batch.target; }   // one epoch; each loop is a new epoch
//
// Note [data loader workers]
// With workers > 0 the loader starts that many threads at construction, each with its own copy of the data set
// (Note [datasets are values]). The iterating thread asks the sampler for batch requests and queues them as
// jobs numbered 0, 1, ... within the epoch, keeping at most max_jobs (default 2 * workers) requested but not
// yet delivered; a worker takes the oldest job, calls get_batch and files the result under the job's number.
// Delivery is by number (enforce_ordering, the default), so batches come in sampler order whichever thread
// finishes first, and a loader gives the same batches with 0, 1 or N workers. A worker's exception is filed as
// that job's result and rethrown on the iterating thread when the batch is due: the original exception
// object, so its type and message are those of a 0-worker loader (LibTorch wraps it in a WorkerException).
// Every job carries its epoch: begin() starts a new epoch even when the last one was left early (a `break`),
// dropping the queued jobs and, as they arrive, the results of jobs already running (LibTorch refuses such a
// begin()). Destroying the loader (or join()) drops the queued jobs, lets each worker finish the batch in its
// hands and joins the threads, so leaving a loop early and destroying the loader mid-epoch neither hangs nor
// leaks. Transforms that draw random numbers draw from the shared default generator in the order the workers
// happen to run, so with workers > 0 their draws are not reproducible (nor are they in LibTorch).
//
// Note [data loader seed]
// Python's DataLoader draws one int64 "base seed" (random_ of a 0-dim int64 tensor, from its generator or the
// default one) whenever an iteration starts, before the sampler draws anything. begin() makes the same draw
// (from DataLoaderOptions::generator or the default generator) and discards it (C++ workers are threads and
// need no seeds), so a C++ program seeded like a Python one consumes the same random stream: with the
// samplers of Note [C++ sampler random streams], make_data_loader<RandomSampler> gives the batches of
// Python's DataLoader(dataset, batch_size, shuffle=True), and a model's random ops after the loop draw what
// the Python program's draw.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/base/Error.h"
#include "ember/core/Generator.h"
#include "ember/data/Samplers.h"

namespace ember::data {

// A chainable option as LibTorch's TORCH_ARG: `options.name(value)` sets and returns the options, `name()`
// reads. Local to this header.
#define EMBER_DATA_OPTION(T, name)                       \
 public:                                                 \
  auto name(const T& new_##name)->decltype(*this) {      \
    this->name##_ = new_##name;                          \
    return *this;                                        \
  }                                                      \
  const T& name() const noexcept { return this->name##_; } \
  T& name() noexcept { return this->name##_; }           \
                                                         \
 private:                                                \
  T name##_

/// The options of a DataLoader, LibTorch's names: DataLoaderOptions().batch_size(64).workers(2).
struct DataLoaderOptions {
  DataLoaderOptions() = default;
  /* implicit */ DataLoaderOptions(size_t batch_size) : batch_size_(batch_size) {}

  /// Examples per batch (the last batch of an epoch may hold fewer unless drop_last).
  EMBER_DATA_OPTION(size_t, batch_size) = 1;
  /// Worker threads making batches ahead of the iterating thread; 0 makes them on the iterating thread.
  EMBER_DATA_OPTION(size_t, workers) = 0;
  /// With workers: how many batches may be requested ahead (default 2 * workers).
  EMBER_DATA_OPTION(std::optional<size_t>, max_jobs);
  /// With workers: how long to wait for a batch before failing (default: forever).
  EMBER_DATA_OPTION(std::optional<std::chrono::milliseconds>, timeout);
  /// With workers: deliver batches in sampler order (default) or as soon as any is ready.
  EMBER_DATA_OPTION(bool, enforce_ordering) = true;
  /// Drop the last batch of an epoch when it holds fewer than batch_size examples.
  EMBER_DATA_OPTION(bool, drop_last) = false;
  /// The generator of the per-epoch seed draw (Note [data loader seed]); default: the default generator.
  /// Python's DataLoader(generator=g); give the same g to the RandomSampler to get Python's order for it.
  EMBER_DATA_OPTION(std::optional<Generator>, generator);
};

#undef EMBER_DATA_OPTION

/// DataLoaderOptions with the defaults resolved (max_jobs) and checked. Errors (ValueError): batch_size 0;
/// max_jobs 0 with workers.
struct FullDataLoaderOptions {
  explicit FullDataLoaderOptions(const DataLoaderOptions& options);

  size_t batch_size;
  size_t workers;
  size_t max_jobs;
  std::optional<std::chrono::milliseconds> timeout;
  bool enforce_ordering;
  bool drop_last;
  std::optional<Generator> generator;
};

/// The input iterator of a DataLoader epoch (LibTorch's torch::data::Iterator): begin() gives one that
/// fetches the first batch when first compared or dereferenced, end() the sentinel it equals once the epoch
/// is over. Copies share their position. Errors: dereferencing or incrementing past the end.
template <typename Batch>
class Iterator {
 public:
  using difference_type = std::ptrdiff_t;
  using value_type = Batch;
  using pointer = Batch*;
  using reference = Batch&;
  using iterator_category = std::input_iterator_tag;
  /// Returns the next batch of the epoch, nullopt when it is over.
  using BatchProducer = std::function<std::optional<Batch>()>;

  /// The end sentinel.
  Iterator() = default;
  explicit Iterator(BatchProducer next) : state_(std::make_shared<State>(std::move(next))) {}

  Iterator& operator++() {
    EMBER_CHECK(state_, "DataLoader: cannot increment the end iterator");
    state_->start();
    EMBER_CHECK(state_->batch.has_value(), "DataLoader: cannot increment an iterator past the end of the epoch");
    state_->batch = state_->next();
    return *this;
  }
  Batch& operator*() { return get(); }
  Batch* operator->() { return &get(); }

  /// Two iterators are equal when both are at the end (a valid one is at the end when its epoch is over) or
  /// when they are copies of one begin().
  bool operator==(const Iterator& other) const {
    if (state_ && other.state_) return state_ == other.state_;
    const auto& valid = state_ ? state_ : other.state_;
    if (!valid) return true;
    valid->start();
    return !valid->batch.has_value();
  }

 private:
  struct State {
    explicit State(BatchProducer producer) : next(std::move(producer)) {}
    void start() {
      if (started) return;
      batch = next();
      started = true;
    }
    BatchProducer next;
    std::optional<Batch> batch;
    bool started = false;
  };

  Batch& get() {
    EMBER_CHECK(state_, "DataLoader: cannot dereference the end iterator");
    state_->start();
    EMBER_CHECK(state_->batch.has_value(), "DataLoader: cannot dereference an iterator past the end of the epoch");
    return *state_->batch;
  }

  std::shared_ptr<State> state_;  // null for the end sentinel
};

namespace detail {

/// The discarded per-epoch draw of Note [data loader seed].
void draw_epoch_seed(const std::optional<Generator>& generator);
/// Throws the error of a batch that did not arrive within the timeout.
[[noreturn]] void throw_timeout(std::chrono::milliseconds timeout, size_t batch);

/// The worker threads of Note [data loader workers]: each runs its own `Produce` (which owns the worker's
/// copy of the data set) on the jobs of the current epoch and files the results by job number.
template <typename Request, typename Batch>
class WorkerPool {
 public:
  using Produce = std::function<Batch(Request&)>;
  struct Result {
    std::optional<Batch> batch;
    std::exception_ptr error;
  };

  explicit WorkerPool(std::vector<Produce> producers) {
    threads_.reserve(producers.size());
    try {
      for (auto& p : producers) threads_.emplace_back([this, produce = std::move(p)]() mutable { run(produce); });
    } catch (...) {
      stop();
      throw;
    }
  }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;
  ~WorkerPool() { stop(); }

  /// Starts a new epoch: drops the queued jobs and the results not taken; results of running jobs will be
  /// dropped when they arrive.
  void new_epoch() {
    std::lock_guard<std::mutex> lock(mu_);
    ++epoch_;
    jobs_.clear();
    results_.clear();
  }

  /// Queues job `number` of the current epoch.
  void submit(size_t number, Request request) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      jobs_.push_back(Job{epoch_, number, std::move(request)});
    }
    job_ready_.notify_one();
  }

  /// Waits for the result of job `number`, or with nullopt for the lowest-numbered result there is, and takes
  /// it. Errors: nothing arrived within timeout.
  Result take(std::optional<size_t> number, std::optional<std::chrono::milliseconds> timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    auto ready = [&] { return number ? results_.count(*number) > 0 : !results_.empty(); };
    if (!timeout) {
      result_ready_.wait(lock, ready);
    } else if (!result_ready_.wait_for(lock, *timeout, ready)) {
      throw_timeout(*timeout, number.value_or(0));
    }
    auto it = number ? results_.find(*number) : results_.begin();
    Result result = std::move(it->second);
    results_.erase(it);
    return result;
  }

  /// Drops the queued jobs, lets every worker finish the job in hand, and joins the threads. Idempotent.
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
      jobs_.clear();
      results_.clear();
    }
    job_ready_.notify_all();
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }

 private:
  struct Job {
    uint64_t epoch;
    size_t number;
    Request request;
  };

  void run(Produce& produce) {
    while (true) {
      std::optional<Job> job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        job_ready_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
        if (stopping_) return;
        job.emplace(std::move(jobs_.front()));
        jobs_.pop_front();
      }
      Result result;
      try {
        result.batch.emplace(produce(job->request));
      } catch (...) {
        result.error = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        // A result of an abandoned epoch is dropped (destroyed after the lock is released).
        if (stopping_ || job->epoch != epoch_) continue;
        results_.emplace(job->number, std::move(result));
      }
      result_ready_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable job_ready_, result_ready_;
  std::deque<Job> jobs_;
  std::map<size_t, Result> results_;
  uint64_t epoch_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace detail

/// A DataLoader over a data set with a size-based sampler (LibTorch's StatelessDataLoader): each begin()
/// starts an epoch (sampler.reset(), Note [data loader seed]) and iterates over the batches
/// dataset.get_batch(request) for the sampler's requests of batch_size indices (the last one shorter, or
/// dropped with drop_last). See Note [data loader workers] for workers, ordering, exceptions and shutdown.
/// Not copyable or movable (the workers point at it); make_data_loader returns it in a unique_ptr.
/// Errors: begin() after join(); using an iterator of an earlier epoch; a worker's exception (rethrown).
template <typename Dataset, typename Sampler>
class StatelessDataLoader {
 public:
  using BatchType = typename Dataset::BatchType;
  using BatchRequestType = typename Sampler::BatchRequestType;

  StatelessDataLoader(Dataset dataset, Sampler sampler, DataLoaderOptions options)
      : options_(options), sampler_(std::move(sampler)) {
    if (options_.workers == 0) {
      dataset_.emplace(std::move(dataset));
      return;
    }
    std::vector<typename Pool::Produce> producers;
    for (size_t w = 0; w < options_.workers; ++w)
      producers.emplace_back([copy = dataset](BatchRequestType& request) mutable { return copy.get_batch(request); });
    pool_ = std::make_unique<Pool>(std::move(producers));
  }
  StatelessDataLoader(const StatelessDataLoader&) = delete;
  StatelessDataLoader& operator=(const StatelessDataLoader&) = delete;
  ~StatelessDataLoader() { join(); }

  /// Starts a new epoch (abandoning what is left of the last one) and returns its first iterator.
  Iterator<BatchType> begin() {
    EMBER_CHECK(!joined_, "DataLoader: begin() after join(): the worker threads have been stopped");
    const uint64_t epoch = ++epoch_;
    if (pool_) pool_->new_epoch();
    requested_ = delivered_ = 0;
    exhausted_ = false;
    detail::draw_epoch_seed(options_.generator);
    sampler_.reset(std::nullopt);
    if (pool_) prefetch(options_.max_jobs);
    return Iterator<BatchType>([this, epoch] { return next(epoch); });
  }
  /// The sentinel an epoch's iterator equals at its end.
  Iterator<BatchType> end() { return Iterator<BatchType>(); }

  /// Stops and joins the worker threads (the destructor does it too); no epoch can start after it.
  void join() {
    if (pool_) pool_->stop();
    joined_ = true;
  }

  const FullDataLoaderOptions& options() const noexcept { return options_; }

 private:
  using Pool = detail::WorkerPool<BatchRequestType, BatchType>;

  std::optional<BatchType> next(uint64_t epoch) {
    EMBER_CHECK(epoch == epoch_,
                "DataLoader: this iterator belongs to an earlier epoch (begin() has been called again since, which "
                "started a new one); iterate from the latest begin()");
    if (!pool_) {
      auto request = batch_request();
      if (!request) return std::nullopt;
      return dataset_->get_batch(*request);
    }
    if (delivered_ == requested_) return std::nullopt;
    auto result = pool_->take(options_.enforce_ordering ? std::optional<size_t>(delivered_) : std::nullopt,
                              options_.timeout);
    ++delivered_;
    prefetch(1);
    if (result.error) std::rethrow_exception(result.error);
    return std::move(result.batch);
  }

  /// The sampler's next request, nullopt once the epoch has no more batches (a short last batch with
  /// drop_last ends it too).
  std::optional<BatchRequestType> batch_request() {
    if (exhausted_) return std::nullopt;
    auto request = sampler_.next(options_.batch_size);
    if (!request || (options_.drop_last && request->size() < options_.batch_size)) {
      exhausted_ = true;
      return std::nullopt;
    }
    return request;
  }

  /// Queues up to n more jobs for the workers.
  void prefetch(size_t n) {
    for (size_t i = 0; i < n; ++i) {
      auto request = batch_request();
      if (!request) return;
      pool_->submit(requested_++, std::move(*request));
    }
  }

  const FullDataLoaderOptions options_;
  Sampler sampler_;
  std::optional<Dataset> dataset_;  // without workers
  std::unique_ptr<Pool> pool_;      // with workers
  uint64_t epoch_ = 0;
  size_t requested_ = 0, delivered_ = 0;  // jobs of this epoch queued / delivered
  bool exhausted_ = false;                // the sampler has no more batches this epoch
  bool joined_ = false;
};

/// A DataLoader over dataset visiting it in the order of sampler.
template <typename Dataset, typename Sampler>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset, Sampler sampler,
                                                                        DataLoaderOptions options) {
  return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(std::move(dataset), std::move(sampler),
                                                                 std::move(options));
}

/// A DataLoader over dataset with a Sampler(dataset.size()) (by default a RandomSampler, as in LibTorch;
/// Python's DataLoader defaults to sequential order: make_data_loader<SequentialSampler>(...)). Errors: a
/// data set whose size() is nullopt.
template <typename Sampler = samplers::RandomSampler, typename Dataset>
  requires std::is_constructible_v<Sampler, size_t>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset,
                                                                        DataLoaderOptions options = DataLoaderOptions()) {
  const std::optional<size_t> size = dataset.size();
  EMBER_CHECK(size.has_value(),
              "make_data_loader: the data set's size() is unknown (nullopt), so no sampler can be made for it; pass "
              "a sampler: make_data_loader(dataset, sampler, options)");
  return make_data_loader(std::move(dataset), Sampler(*size), std::move(options));
}

}  // namespace ember::data
