// ember::data::make_data_loader: batches in sampler order with 0, 1 and 3 workers (identical), drop_last,
// the batches and random stream of Python's DataLoader(shuffle=True) for the same seed (recorded by
// tests/data/fixtures/make_fixtures.py), leaving an epoch early, destroying the loader mid-epoch, a worker's
// exception rethrown on the iterating thread, max_jobs, timeout, unordered delivery, and misuse errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "DataFixtures.h"
#include "TestSupport.h"
#include "ember/api/ember.h"

namespace {

using namespace ember;
using namespace ember::data;
using ember::testing::as_indices;
using ember::testing::data_fixture;
using ember::testing::expect_error;
using ember::testing::values;
using Batches = std::vector<std::vector<int64_t>>;

/// A gate worker threads wait at until the test opens it (no sleeping: the test decides when they go on).
struct Gate {
  void open() {
    {
      std::lock_guard<std::mutex> lock(mu);
      is_open = true;
    }
    cv.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return is_open; });
  }
  std::mutex mu;
  std::condition_variable cv;
  bool is_open = false;
};

/// Instances of Numbers alive (copies included), to show a destroyed loader leaves none behind.
std::atomic<int> g_live_numbers{0};

/// Example i: data [i] float32, target i (0-dim int64). get() of `bad` throws; with a gate, get() of any
/// index >= `gated_from` waits for it.
struct Numbers : datasets::Dataset<Numbers> {
  explicit Numbers(size_t n) : n(n) { ++g_live_numbers; }
  Numbers(const Numbers& o) : datasets::Dataset<Numbers>(o), n(o.n), bad(o.bad), gate(o.gate), gated_from(o.gated_from),
                              calls(o.calls) {
    ++g_live_numbers;
  }
  Numbers(Numbers&& o) noexcept : Numbers(static_cast<const Numbers&>(o)) {}
  ~Numbers() override { --g_live_numbers; }

  Example<> get(size_t index) override {
    if (calls) ++*calls;
    if (gate && index >= gated_from) gate->wait();
    EMBER_CHECK(!bad || index != *bad, "Numbers: example {} is broken", index);
    return {full({1}, static_cast<double>(index), kFloat32), full({}, static_cast<int64_t>(index), kInt64)};
  }
  std::optional<size_t> size() const override { return n; }

  size_t n;
  std::optional<size_t> bad;
  std::shared_ptr<Gate> gate;
  size_t gated_from = 0;
  std::shared_ptr<std::atomic<int>> calls;
};

/// The targets of every batch of one epoch (batches collated by Stack).
template <class Loader>
Batches epoch(Loader& loader) {
  Batches out;
  for (auto& batch : loader) {
    EXPECT_EQ(batch.data.size(0), batch.target.size(0));
    EXPECT_EQ(values<float>(batch.data.select(1, 0)).size(), static_cast<size_t>(batch.target.size(0)));
    out.push_back(values<int64_t>(batch.target));
  }
  return out;
}

std::vector<int64_t> flatten(const Batches& batches) {
  std::vector<int64_t> all;
  for (const auto& b : batches) all.insert(all.end(), b.begin(), b.end());
  return all;
}

TEST(DataLoader, SequentialBatchesAreTheSameForZeroOneAndThreeWorkers) {
  const Batches expected{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}};
  for (size_t workers : {0, 1, 3}) {
    SCOPED_TRACE(::testing::Message() << workers << " workers");
    auto loader = make_data_loader<SequentialSampler>(Numbers(10).map(transforms::Stack<>()),
                                                      DataLoaderOptions().batch_size(4).workers(workers));
    EXPECT_EQ(epoch(*loader), expected);
    EXPECT_EQ(epoch(*loader), expected);  // every begin() is a new epoch
    // The batch data are the examples' data, stacked.
    auto it = loader->begin();
    EXPECT_EQ(values<float>((*it).data), (std::vector<float>{0, 1, 2, 3}));
    EXPECT_EQ(it->data.dim(), 2);
  }
}

TEST(DataLoader, DropLastDropsOnlyAShortLastBatch) {
  for (size_t workers : {0, 2}) {
    auto opts = DataLoaderOptions().batch_size(4).workers(workers).drop_last(true);
    auto short_last = make_data_loader<SequentialSampler>(Numbers(10).map(transforms::Stack<>()), opts);
    EXPECT_EQ(epoch(*short_last), (Batches{{0, 1, 2, 3}, {4, 5, 6, 7}}));
    auto exact = make_data_loader<SequentialSampler>(Numbers(8).map(transforms::Stack<>()), opts);
    EXPECT_EQ(epoch(*exact), (Batches{{0, 1, 2, 3}, {4, 5, 6, 7}}));
    auto too_few = make_data_loader<SequentialSampler>(Numbers(3).map(transforms::Stack<>()), opts);
    EXPECT_EQ(epoch(*too_few), Batches{});
  }
}

TEST(DataLoader, EmptyDataSetGivesEmptyEpochs) {
  for (size_t workers : {0, 2}) {
    auto loader = make_data_loader<SequentialSampler>(Numbers(0).map(transforms::Stack<>()),
                                                      DataLoaderOptions().workers(workers));
    EXPECT_TRUE(loader->begin() == loader->end());
    EXPECT_EQ(epoch(*loader), Batches{});
  }
}

TEST(DataLoader, UnstackedBatchesAreVectorsOfExamples) {
  auto loader = make_data_loader<SequentialSampler>(Numbers(5), DataLoaderOptions(2).workers(1));
  std::vector<size_t> sizes;
  for (std::vector<Example<>>& batch : *loader) sizes.push_back(batch.size());
  EXPECT_EQ(sizes, (std::vector<size_t>{2, 2, 1}));
}

TEST(DataLoader, ShuffledBatchesEqualPythonsDataLoaderForTheSameSeed) {
  // DataLoader(TensorDataset(arange(n)), batch_size, shuffle=True[, drop_last]) after manual_seed(3): two
  // epochs, and then the default generator's next numbers (Note [data loader seed]).
  struct Case { int64_t n; size_t batch_size; bool drop_last; const char* key; };
  for (Case c : {Case{10, 4, false, "loader_shuffle/seed3_n10_bs4"}, Case{10, 4, true, "loader_shuffle/seed3_n10_bs4_drop"},
                 Case{12, 4, false, "loader_shuffle/seed3_n12_bs4"}, Case{12, 4, true, "loader_shuffle/seed3_n12_bs4_drop"}}) {
    const std::vector<int64_t> expected = values<int64_t>(data_fixture(c.key));
    const std::vector<float> after = values<float>(data_fixture(std::string(c.key) + "/after"));
    for (size_t workers : {0, 1, 3}) {
      SCOPED_TRACE(::testing::Message() << c.key << ", " << workers << " workers");
      manual_seed(3);
      auto loader = make_data_loader(Numbers(static_cast<size_t>(c.n)).map(transforms::Stack<>()),
                                     DataLoaderOptions().batch_size(c.batch_size).workers(workers).drop_last(c.drop_last));
      Batches both = epoch(*loader);
      for (auto& b : epoch(*loader)) both.push_back(b);
      EXPECT_EQ(flatten(both), expected);
      EXPECT_EQ(values<float>(rand({4})), after);
    }
  }
}

TEST(DataLoader, WithAGeneratorEqualsPythonsDataLoaderWithThatGenerator) {
  // DataLoader(..., shuffle=True, generator=Generator().manual_seed(9)), as examples/fashion_mnist/train.py
  // builds its loader: the epoch seed and the permutations come from that generator.
  const std::vector<int64_t> expected = values<int64_t>(data_fixture("loader_generator/seed9_n10_bs3"));
  const std::vector<float> after = values<float>(data_fixture("loader_generator/seed9_n10_bs3/after"));
  for (size_t workers : {0, 3}) {
    SCOPED_TRACE(::testing::Message() << workers << " workers");
    Generator g = make_generator(9);
    auto loader = make_data_loader(Numbers(10).map(transforms::Stack<>()), RandomSampler(10, g),
                                   DataLoaderOptions().batch_size(3).workers(workers).generator(g));
    Batches both = epoch(*loader);
    for (auto& b : epoch(*loader)) both.push_back(b);
    EXPECT_EQ(flatten(both), expected);
    EXPECT_EQ(values<float>(rand({4}, g)), after);
  }
}

TEST(DataLoader, LeavingAnEpochEarlyThenANewEpoch) {
  for (size_t workers : {0, 1, 3}) {
    SCOPED_TRACE(::testing::Message() << workers << " workers");
    auto loader = make_data_loader<SequentialSampler>(Numbers(20).map(transforms::Stack<>()),
                                                      DataLoaderOptions().batch_size(2).workers(workers));
    for (auto& batch : *loader) {
      EXPECT_EQ(values<int64_t>(batch.target), (std::vector<int64_t>{0, 1}));
      break;  // the workers still hold jobs of this epoch
    }
    Batches full = epoch(*loader);
    ASSERT_EQ(full.size(), 10u);
    EXPECT_EQ(flatten(full), values<int64_t>(arange(20, kInt64)));
  }
}

TEST(DataLoader, DestroyedMidEpochJoinsItsWorkersAndFreesTheirDataSets) {
  const int live_before = g_live_numbers.load();
  {
    Numbers ds(1000);
    ds.calls = std::make_shared<std::atomic<int>>(0);
    auto calls = ds.calls;
    auto loader = make_data_loader<SequentialSampler>(std::move(ds), DataLoaderOptions(5).workers(3).max_jobs(6));
    auto it = loader->begin();
    EXPECT_EQ((*it).size(), 5u);
    ++it;
    loader.reset();  // two batches delivered, jobs queued and running: join them all
    const int done = calls->load();
    EXPECT_LE(done, (6 + 2) * 5);  // nothing beyond what was requested ran
    EXPECT_EQ(calls->load(), done);  // and nothing runs after the destructor returned
  }
  EXPECT_EQ(g_live_numbers.load(), live_before);
}

TEST(DataLoader, DestroyedWhileAWorkerIsBusyWaitsForThatBatchOnly) {
  const int live_before = g_live_numbers.load();
  auto gate = std::make_shared<Gate>();
  {
    Numbers ds(100);
    ds.gate = gate;
    ds.gated_from = 4;  // batches 2.. wait at the gate
    auto loader = make_data_loader<SequentialSampler>(std::move(ds), DataLoaderOptions(2).workers(2));
    auto it = loader->begin();
    EXPECT_EQ((*it)[0].target.item<int64_t>(), 0);
    ++it;
    EXPECT_EQ((*it)[0].target.item<int64_t>(), 2);
    gate->open();  // the workers blocked in get() finish; the queued jobs are dropped
  }
  EXPECT_EQ(g_live_numbers.load(), live_before);
}

TEST(DataLoader, WorkerExceptionIsRethrownWithItsMessageAtItsBatch) {
  for (size_t workers : {0, 1, 3}) {
    SCOPED_TRACE(::testing::Message() << workers << " workers");
    Numbers ds(10);
    ds.bad = 5;
    auto loader = make_data_loader<SequentialSampler>(std::move(ds).map(transforms::Stack<>()),
                                                      DataLoaderOptions().batch_size(2).workers(workers));
    Batches seen;
    auto it = loader->begin();
    Error e = expect_error([&] {
      for (; it != loader->end(); ++it) seen.push_back(values<int64_t>(it->target));
    });
    EXPECT_TRUE(ember::testing::contains(e.what(), "Numbers: example 5 is broken")) << e.what();
    EXPECT_EQ(seen, (Batches{{0, 1}, {2, 3}}));
    // The failed batch is consumed; iteration goes on with the next one.
    ++it;
    EXPECT_EQ(values<int64_t>(it->target), (std::vector<int64_t>{6, 7}));
    // A new epoch fails at the same batch again.
    Batches again;
    EXPECT_THROW(
        for (auto& b : *loader) again.push_back(values<int64_t>(b.target)), Error);
    EXPECT_EQ(again, (Batches{{0, 1}, {2, 3}}));
  }
}

TEST(DataLoader, MaxJobsBoundsTheBatchesRequestedAhead) {
  // A sampler that counts its requests.
  struct Counting : samplers::Sampler<> {
    explicit Counting(size_t n) : inner(n) {}
    void reset(std::optional<size_t> n) override { inner.reset(n); }
    std::optional<std::vector<size_t>> next(size_t batch_size) override {
      ++*requests;
      return inner.next(batch_size);
    }
    SequentialSampler inner;
    std::shared_ptr<int> requests = std::make_shared<int>(0);
  };
  for (auto [workers, max_jobs, expected_ahead] : {std::tuple<size_t, std::optional<size_t>, int>{2, std::nullopt, 4},
                                                   {2, 1, 1}, {3, 5, 5}}) {
    Counting sampler(100);
    auto requests = sampler.requests;
    auto loader = make_data_loader(Numbers(100), std::move(sampler),
                                   DataLoaderOptions(1).workers(workers).max_jobs(max_jobs));
    EXPECT_EQ(loader->options().max_jobs, static_cast<size_t>(expected_ahead));
    auto it = loader->begin();
    EXPECT_EQ(*requests, expected_ahead);
    EXPECT_EQ((*it)[0].target.item<int64_t>(), 0);
    EXPECT_EQ(*requests, expected_ahead + 1);  // one delivered, one more requested
    ++it;
    EXPECT_EQ(*requests, expected_ahead + 2);
  }
}

TEST(DataLoader, UnorderedDeliveryGivesEveryBatchOnce) {
  auto loader = make_data_loader<SequentialSampler>(
      Numbers(30).map(transforms::Stack<>()), DataLoaderOptions(4).workers(3).enforce_ordering(false));
  std::vector<int64_t> all = flatten(epoch(*loader));
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, values<int64_t>(arange(30, kInt64)));
}

TEST(DataLoader, TimeoutFailsWhenNoBatchArrives) {
  auto gate = std::make_shared<Gate>();
  Numbers ds(10);
  ds.gate = gate;  // every get() waits
  auto loader = make_data_loader<SequentialSampler>(std::move(ds), DataLoaderOptions(2).workers(1).timeout(
                                                                        std::chrono::milliseconds(1)));
  auto it = loader->begin();
  EMBER_EXPECT_ERROR(*it, Runtime, "DataLoader: batch 0 of the epoch did not arrive within the timeout of 1 ms");
  gate->open();
}

TEST(DataLoader, IteratorMisuse) {
  auto loader = make_data_loader<SequentialSampler>(Numbers(2), DataLoaderOptions(2));
  auto end = loader->end();
  EMBER_EXPECT_ERROR(*end, Runtime, "cannot dereference the end iterator");
  EMBER_EXPECT_ERROR(++end, Runtime, "cannot increment the end iterator");
  auto it = loader->begin();
  auto copy = it;
  EXPECT_TRUE(it == copy);
  ++it;  // copies share the position
  EXPECT_TRUE(copy == loader->end());
  EMBER_EXPECT_ERROR(*it, Runtime, "past the end of the epoch");
  EMBER_EXPECT_ERROR(++it, Runtime, "past the end of the epoch");
  // An iterator of an earlier epoch.
  auto old = loader->begin();
  auto current = loader->begin();
  EMBER_EXPECT_ERROR(*old, Runtime, "this iterator belongs to an earlier epoch");
  EXPECT_EQ((*current).size(), 2u);
  loader->join();
  EMBER_EXPECT_ERROR(loader->begin(), Runtime, "begin() after join()");
}

TEST(DataLoader, OptionErrors) {
  EMBER_EXPECT_ERROR(make_data_loader(Numbers(3), DataLoaderOptions(0)), Value, "batch_size must be positive");
  EMBER_EXPECT_ERROR(make_data_loader(Numbers(3), DataLoaderOptions().workers(2).max_jobs(0)), Value,
                     "max_jobs must be positive with workers");
  // A data set of unknown size needs a sampler.
  struct Unsized : datasets::BatchDataset<Unsized, std::vector<int>> {
    std::vector<int> get_batch(ArrayRef<size_t> request) override { return std::vector<int>(request.size()); }
    std::optional<size_t> size() const override { return std::nullopt; }
  };
  EMBER_EXPECT_ERROR(make_data_loader(Unsized()), Runtime, "size() is unknown");
  auto loader = make_data_loader(Unsized(), SequentialSampler(3), DataLoaderOptions(2));
  std::vector<size_t> sizes;
  for (auto& batch : *loader) sizes.push_back(batch.size());
  EXPECT_EQ(sizes, (std::vector<size_t>{2, 1}));
}

}  // namespace
