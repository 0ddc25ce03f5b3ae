// ember::data data sets and transforms: Example, Dataset/BatchDataset/MapDataset (map, chaining), TensorDataset,
// the transforms Lambda, BatchLambda, TensorLambda, Normalize (against values recorded from PyTorch 1.13) and
// Stack, with their errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "DataFixtures.h"
#include "TestSupport.h"
#include "ember/api/ember.h"

namespace {

using namespace ember;
using namespace ember::data;
using ember::testing::data_fixture;
using ember::testing::Shape;
using ember::testing::values;
using ember::testing::vec;

/// Example i is (data [i, i + 0.5] float32, target i as a 0-dim int64 tensor).
struct Pairs : datasets::Dataset<Pairs> {
  explicit Pairs(size_t n) : n(n) {}
  Example<> get(size_t index) override {
    const auto i = static_cast<double>(index);
    return {tensor_from_buffer(std::vector<float>{float(i), float(i + 0.5)}.data(), {2}, kFloat32),
            full({}, static_cast<int64_t>(index), kInt64)};
  }
  std::optional<size_t> size() const override { return n; }
  size_t n;
};

TEST(Example, HoldsDataAndTargetAndTensorExampleConvertsToItsData) {
  Example<> e(arange(3, kFloat32), full({}, 7, kInt64));
  EXPECT_EQ(values<float>(e.data), (std::vector<float>{0, 1, 2}));
  EXPECT_EQ(e.target.item<int64_t>(), 7);
  TensorExample t = arange(2, kInt64);
  const Tensor& data = t;  // the implicit conversion of an example without target
  EXPECT_TRUE(data.is_same(t.data));
  static_assert(std::is_same_v<Example<int, std::string>::TargetType, std::string>);
}

TEST(Dataset, GetBatchIsGetOfEachIndexInOrder) {
  Pairs ds(5);
  const std::vector<size_t> idx{3, 0, 3};
  auto batch = ds.get_batch(idx);
  ASSERT_EQ(batch.size(), 3u);
  EXPECT_EQ(values<float>(batch[0].data), (std::vector<float>{3, 3.5}));
  EXPECT_EQ(batch[1].target.item<int64_t>(), 0);
  EXPECT_EQ(batch[2].target.item<int64_t>(), 3);
  EXPECT_TRUE(ds.get_batch(std::vector<size_t>{}).empty());
  EXPECT_EQ(ds.size(), std::optional<size_t>(5));
}

TEST(TensorDataset, ExamplesAreTheSlicesAlongDimZero) {
  datasets::TensorDataset ds(arange(12, kFloat32).reshape({4, 3}));
  EXPECT_EQ(ds.size(), std::optional<size_t>(4));
  TensorExample e = ds.get(2);
  EXPECT_EQ(vec(e.data.sizes()), (Shape{3}));
  EXPECT_EQ(values<float>(e.data), (std::vector<float>{6, 7, 8}));
  // From a list of tensors: their stack.
  datasets::TensorDataset listed({full({2}, 1.0, kFloat64), full({2}, 2.0, kFloat64)});
  EXPECT_EQ(vec(listed.tensor.sizes()), (Shape{2, 2}));
  EXPECT_EQ(values<double>(listed.get(1).data), (std::vector<double>{2, 2}));
  // A 1-D tensor gives 0-dim examples; a zero-size dim 0 an empty data set.
  EXPECT_EQ(datasets::TensorDataset(arange(3, kInt64)).get(1).data.dim(), 0);
  EXPECT_EQ(datasets::TensorDataset(empty({0, 5}, kFloat32)).size(), std::optional<size_t>(0));
}

TEST(TensorDataset, Errors) {
  EMBER_EXPECT_ERROR(datasets::TensorDataset(full({}, 1.0, kFloat32)), Runtime, "at least one dimension");
  EMBER_EXPECT_ERROR(datasets::TensorDataset(std::vector<Tensor>{}), Runtime, "empty list");
  EMBER_EXPECT_ERROR(datasets::TensorDataset(std::vector<Tensor>{zeros({2}), zeros({3})}), Runtime, "stack");
  datasets::TensorDataset ds(zeros({3, 2}));
  EMBER_EXPECT_ERROR(ds.get(3), Index, "TensorDataset: index 3 is out of range for a data set of 3 examples");
}

TEST(MapDataset, AppliesTheTransformToEachBatchAndKeepsTheSize) {
  auto doubled = Pairs(4).map(transforms::Lambda<Example<>>([](Example<> e) {
    e.data = e.data * 2;
    return e;
  }));
  EXPECT_EQ(doubled.size(), std::optional<size_t>(4));
  auto batch = doubled.get_batch(std::vector<size_t>{1, 2});
  EXPECT_EQ(values<float>(batch[0].data), (std::vector<float>{2, 3}));
  EXPECT_EQ(values<float>(batch[1].data), (std::vector<float>{4, 5}));
  EXPECT_EQ(batch[1].target.item<int64_t>(), 2);  // the target is untouched
  // The free function and the source accessors.
  auto same = datasets::map(Pairs(2), transforms::TensorLambda<>([](Tensor t) { return t + 1; }));
  EXPECT_EQ(same.dataset().n, 2u);
  EXPECT_EQ(values<float>(same.get_batch(std::vector<size_t>{1})[0].data), (std::vector<float>{2, 2.5}));
}

TEST(MapDataset, MapOfAnLvalueCopiesTheDataSet) {
  Pairs source(3);
  auto mapped = source.map(transforms::Lambda<Example<>>([](Example<> e) { return e; }));
  source.n = 10;
  EXPECT_EQ(mapped.size(), std::optional<size_t>(3));
}

TEST(MapDataset, ChainsNormalizeThenStackIntoOneBatchedExample) {
  auto ds = Pairs(6).map(transforms::Normalize<>(0.5, 2.0)).map(transforms::Stack<>());
  static_assert(std::is_same_v<decltype(ds)::BatchType, Example<>>);
  Example<> batch = ds.get_batch(std::vector<size_t>{4, 1, 5});
  EXPECT_EQ(vec(batch.data.sizes()), (Shape{3, 1, 1, 2}));  // (1, 1, 1) constants make (2) into (1, 1, 2), as in LibTorch
  EXPECT_EQ(batch.data.dtype(), kFloat32);
  EXPECT_EQ(values<float>(batch.data), (std::vector<float>{1.75f, 2.0f, 0.25f, 0.5f, 2.25f, 2.5f}));
  EXPECT_EQ(vec(batch.target.sizes()), (Shape{3}));
  EXPECT_EQ(batch.target.dtype(), kInt64);
  EXPECT_EQ(values<int64_t>(batch.target), (std::vector<int64_t>{4, 1, 5}));
}

TEST(Normalize, PerChannelEqualsPyTorch) {
  const Tensor input = data_fixture("normalize/input");  // (2, 3, 2, 2) float32
  const std::vector<double> mean = values<double>(data_fixture("normalize/mean"));
  const std::vector<double> stddev = values<double>(data_fixture("normalize/std"));
  transforms::Normalize<> normalize(mean, stddev);
  EXPECT_EQ(vec(normalize.mean.sizes()), (Shape{3, 1, 1}));
  EXPECT_EQ(normalize.stddev.dtype(), kFloat32);
  const Tensor expected = data_fixture("normalize/expected");
  // A batch (N, C, H, W) and a single image (C, H, W): channels are dim -3 in both.
  Tensor out = normalize(input);
  EXPECT_EQ(out.dtype(), kFloat32);
  EXPECT_EQ(vec(out.sizes()), vec(expected.sizes()));
  EXPECT_EQ(values<float>(out), values<float>(expected));
  EXPECT_EQ(values<float>(normalize(input.select(0, 1))), values<float>(expected.select(0, 1)));
  // As a transform of examples: the target passes through.
  Example<> e = normalize.apply(Example<>(input.select(0, 0), full({}, 3, kInt64)));
  EXPECT_EQ(values<float>(e.data), values<float>(expected.select(0, 0)));
  EXPECT_EQ(e.target.item<int64_t>(), 3);
}

TEST(Normalize, DTypes) {
  transforms::Normalize<> normalize(1.0, 4.0);
  Tensor bytes = full({1, 2, 2}, 9, kUInt8);
  Tensor out = normalize(bytes);  // integers promote to the float32 constants
  EXPECT_EQ(out.dtype(), kFloat32);
  EXPECT_EQ(values<float>(out), (std::vector<float>(4, 2.0f)));
  EXPECT_EQ(normalize(full({1, 1, 1}, 3.0, kFloat64)).dtype(), kFloat64);
  EXPECT_EQ(normalize(empty({0, 1, 2, 2}, kFloat32)).numel(), 0);
}

TEST(Normalize, Errors) {
  EMBER_EXPECT_ERROR(transforms::Normalize<>(std::vector<double>{}, 1.0), Value, "mean needs one value per channel");
  EMBER_EXPECT_ERROR(transforms::Normalize<>(0.5, std::vector<double>{1.0, 0.0}), Value, "stddev[1] is 0");
  transforms::Normalize<> rgb(std::vector<double>{0.1, 0.2, 0.3}, std::vector<double>{1, 1, 1});
  EMBER_EXPECT_ERROR(rgb(zeros({1, 28, 28})), Runtime, "3 channel values for an input of shape [1, 28, 28]");
  EMBER_EXPECT_ERROR(rgb(zeros({28, 28})), Runtime, "input of shape [28, 28]");
  transforms::Normalize<> mixed(0.5, std::vector<double>{1, 2});
  EMBER_EXPECT_ERROR(mixed(zeros({3, 4, 4})), Runtime, "2 channel values");
  EXPECT_EQ(vec(mixed(zeros({2, 4, 4})).sizes()), (Shape{2, 4, 4}));
}

TEST(Stack, CollatesDataAndTargets) {
  transforms::Stack<> stack;
  std::vector<Example<>> batch{{zeros({2, 2}), full({}, 1, kInt64)}, {ones({2, 2}), full({}, 0, kInt64)}};
  Example<> out = stack.apply_batch(batch);
  EXPECT_EQ(vec(out.data.sizes()), (Shape{2, 2, 2}));
  EXPECT_EQ(values<float>(out.data), (std::vector<float>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(values<int64_t>(out.target), (std::vector<int64_t>{1, 0}));
  // Targets of any shape stack too.
  Example<> vectors = stack.apply_batch({{zeros({1}), ones({3})}, {zeros({1}), zeros({3})}});
  EXPECT_EQ(vec(vectors.target.sizes()), (Shape{2, 3}));
  // Without targets.
  TensorExample data = transforms::Stack<TensorExample>().apply_batch({arange(2, kInt64), arange(2, kInt64)});
  EXPECT_EQ(vec(data.data.sizes()), (Shape{2, 2}));
  EXPECT_EQ(values<int64_t>(data.data), (std::vector<int64_t>{0, 1, 0, 1}));
}

TEST(Stack, Errors) {
  transforms::Stack<> stack;
  EMBER_EXPECT_ERROR(stack.apply_batch({}), Runtime, "Stack (data): cannot collate an empty batch");
  EMBER_EXPECT_ERROR(stack.apply_batch({{zeros({2}), zeros({})}, {zeros({3}), zeros({})}}), Runtime, "stack");
  EMBER_EXPECT_ERROR(transforms::Stack<TensorExample>().apply_batch({}), Runtime, "Stack: cannot collate");
}

TEST(Transforms, BatchLambdaAndCollateSeeTheWholeBatch) {
  // A collation written as a function: the sum of the targets.
  transforms::Collate<Example<>> total([](std::vector<Example<>> batch) {
    Tensor sum = zeros({}, kInt64);
    for (auto& e : batch) sum = sum + e.target;
    return Example<>(Tensor(), sum);
  });
  auto ds = Pairs(5).map(total);
  EXPECT_EQ(ds.get_batch(std::vector<size_t>{1, 2, 4}).target.item<int64_t>(), 7);
  transforms::BatchLambda<std::vector<Example<>>> reverse([](std::vector<Example<>> b) {
    std::reverse(b.begin(), b.end());
    return b;
  });
  auto reversed = Pairs(3).map(reverse).get_batch(std::vector<size_t>{0, 2});
  EXPECT_EQ(reversed[0].target.item<int64_t>(), 2);
}

}  // namespace
