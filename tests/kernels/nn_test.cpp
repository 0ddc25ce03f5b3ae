// NN ops through the C++ API (ember::max_pool2d_with_indices, ember::batch_norm, ember::cross_entropy_loss, ...):
// hand-computed values, the running-statistics update of batch_norm, loss reductions as ints (Mean by default),
// and the kinds of the errors (IndexError for targets and indices out of range, ValueError for a batch-size
// mismatch). The Python suite (tests/python/test_nn_ops.py) compares the same ops with PyTorch on many inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "TestSupport.h"
#include "ember/api/ember.h"

namespace {

using namespace ember;
using ember::testing::make_tensor;
using ember::testing::values;
using ember::testing::vec;

constexpr int64_t kNone = 0, kSum = 2;

::testing::AssertionResult near_values(const Tensor& t, const std::vector<float>& want, float tol = 1e-5f) {
  std::vector<float> got = values<float>(t);
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << got.size() << " values, expected " << want.size();
  for (size_t i = 0; i < got.size(); ++i)
    if (!(std::abs(got[i] - want[i]) <= tol * (1 + std::abs(want[i]))))
      return ::testing::AssertionFailure() << "at " << i << ": " << got[i] << " != " << want[i];
  return ::testing::AssertionSuccess();
}

TEST(NN, MaxPool2dValuesAndFlatIndices) {
  Tensor x = arange(9.0, kFloat32).reshape({1, 1, 3, 3});
  auto [v, i] = max_pool2d_with_indices(x, {2}, {1}, {0}, {1}, false);
  EXPECT_EQ(vec(v.sizes()), (std::vector<int64_t>{1, 1, 2, 2}));
  EXPECT_TRUE(near_values(v, {4, 5, 7, 8}));
  EXPECT_EQ(values<int64_t>(i), (std::vector<int64_t>{4, 5, 7, 8}));
  // stride defaults to the kernel; padding 1 with ceil_mode keeps a window starting inside the input
  EXPECT_EQ(vec(max_pool2d(x, {2}, {}, {1}, {1}, true).sizes()), (std::vector<int64_t>{1, 1, 2, 2}));
  EMBER_EXPECT_ERROR(max_pool2d(x, {2}, {}, {2}), Runtime, "pad should be at most half of kernel size");
  EMBER_EXPECT_ERROR(max_pool2d(x.reshape({3, 3}), {2}), Runtime, "3D or 4D");
}

TEST(NN, AvgPool2dCountsPaddingAsAsked) {
  Tensor x = ones({1, 2, 2});
  // 3x3 windows with padding 1 at stride 2: one output, covering the 2x2 input within a 3x3 padded window
  EXPECT_TRUE(near_values(avg_pool2d(x, {3}, {2}, {1}, false, true), {4.0f / 9}));
  EXPECT_TRUE(near_values(avg_pool2d(x, {3}, {2}, {1}, false, false), {1.0f}));
  EXPECT_TRUE(near_values(avg_pool2d(x, {3}, {2}, {1}, false, true, 2), {2.0f}));
  EXPECT_TRUE(near_values(adaptive_avg_pool2d(arange(4.0, kFloat32).reshape({1, 2, 2}), {1, 2}), {1, 2}));
}

TEST(NN, BatchNormTrainingUpdatesRunningStatsWithUnbiasedVariance) {
  Tensor x = make_tensor<float>({1, 3}, {2, 1});
  Tensor rm = zeros({1}), rv = ones({1});
  Tensor y = batch_norm(x, std::nullopt, std::nullopt, rm, rv, /*training=*/true, /*momentum=*/0.5, 0.0, false);
  EXPECT_TRUE(near_values(y, {-1, 1}));     // normalized with the biased variance 1
  EXPECT_TRUE(near_values(rm, {1.0f}));      // 0.5 * 2 + 0.5 * 0
  EXPECT_TRUE(near_values(rv, {1.5f}));      // 0.5 * 2 (unbiased) + 0.5 * 1
  Tensor z = batch_norm(x, std::nullopt, std::nullopt, rm, rv, /*training=*/false, 0.5, 0.0, false);
  EXPECT_TRUE(near_values(z, {0, 2 / std::sqrt(1.5f)}));
  EXPECT_TRUE(near_values(rm, {1.0f}));      // evaluation leaves them
  EMBER_EXPECT_ERROR(batch_norm(x, std::nullopt, std::nullopt, std::nullopt, rv, false, 0.1, 1e-5, false), Runtime,
                     "running_mean must be defined in evaluation mode");
}

TEST(NN, LayerAndGroupNorm) {
  Tensor x = make_tensor<float>({1, 2, 3, 4, 5, 6}, {1, 2, 3});
  Tensor ln = layer_norm(x, {3}, std::nullopt, std::nullopt, 0.0);
  const float s = std::sqrt(1.5f);
  EXPECT_TRUE(near_values(ln, {-s, 0, s, -s, 0, s}));
  Tensor gn = group_norm(x, 1, std::nullopt, std::nullopt, 0.0);  // one group: the whole sample
  EXPECT_NEAR(values<float>(gn)[0], -2.5f / std::sqrt(35.0f / 12), 1e-5);
  EMBER_EXPECT_ERROR(group_norm(x, 4), Runtime, "divisible by num_groups");
}

TEST(NN, CrossEntropyIgnoreIndexAndLabelSmoothing) {
  Tensor logits = zeros({2, 4});
  Tensor target = make_tensor<int64_t>({1, -100});
  const float log4 = std::log(4.0f);
  EXPECT_TRUE(near_values(cross_entropy_loss(logits, target), {log4}));  // the ignored sample does not count
  EXPECT_TRUE(near_values(cross_entropy_loss(logits, target, std::nullopt, kNone), {log4, 0}));
  EXPECT_TRUE(near_values(cross_entropy_loss(logits, target, std::nullopt, kSum, -100, 0.3), {log4}));
  // all ignored: the mean is 0/0
  EXPECT_TRUE(std::isnan(values<float>(cross_entropy_loss(logits, make_tensor<int64_t>({-100, -100})))[0]));
  // class probabilities (target of the input's shape)
  EXPECT_TRUE(near_values(cross_entropy_loss(logits, full({2, 4}, 0.25)), {log4}));
  EMBER_EXPECT_ERROR(cross_entropy_loss(logits, make_tensor<int64_t>({1, 4})), Index, "Target 4 is out of bounds");
  EMBER_EXPECT_ERROR(nll_loss_nd(logits, make_tensor<int64_t>({1, 2, 3})), Value, "batch_size");
}

TEST(NN, PointwiseLossesReduceMeanByDefault) {
  Tensor a = make_tensor<float>({0, 1, 4}), b = make_tensor<float>({1, 1, 1});
  EXPECT_TRUE(near_values(mse_loss(a, b), {10.0f / 3}));
  EXPECT_TRUE(near_values(mse_loss(a, b, kNone), {1, 0, 9}));
  EXPECT_TRUE(near_values(l1_loss(a, b, kSum), {4}));
  EXPECT_TRUE(near_values(smooth_l1_loss(a, b, kNone, 2.0), {0.25f, 0, 2}));
  EXPECT_TRUE(near_values(huber_loss(a, b, kNone, 2.0), {0.5f, 0, 4}));
  EXPECT_TRUE(near_values(binary_cross_entropy(make_tensor<float>({0, 1}), make_tensor<float>({1, 1}), std::nullopt,
                                               kNone),
                          {100, 0}));  // log(0) clamped at -100
  EXPECT_TRUE(near_values(binary_cross_entropy_with_logits(make_tensor<float>({0}), make_tensor<float>({1})),
                          {std::log(2.0f)}));
}

TEST(NN, EmbeddingAndOneHot) {
  Tensor w = arange(6.0, kFloat32).reshape({3, 2});
  Tensor e = embedding(w, make_tensor<int64_t>({2, 0, 2}, {1, 3}));
  EXPECT_EQ(vec(e.sizes()), (std::vector<int64_t>{1, 3, 2}));
  EXPECT_TRUE(near_values(e, {4, 5, 0, 1, 4, 5}));
  EMBER_EXPECT_ERROR(embedding(w, make_tensor<int64_t>({3})), Index, "index out of range in self");
  EMBER_EXPECT_ERROR(embedding(w, make_tensor<float>({1})), Runtime, "int64, int32");
  EXPECT_EQ(values<int64_t>(one_hot(make_tensor<int64_t>({2, 0}))), (std::vector<int64_t>{0, 0, 1, 1, 0, 0}));
  EMBER_EXPECT_ERROR(one_hot(make_tensor<int64_t>({2}), 2), Runtime, "smaller than num_classes");
}

TEST(NN, Activations) {
  Tensor x = make_tensor<float>({-4, -1, 0, 2, 7});
  EXPECT_TRUE(near_values(hardtanh(x), {-1, -1, 0, 1, 1}));
  EXPECT_TRUE(near_values(relu6(x), {0, 0, 0, 2, 6}));
  EXPECT_TRUE(near_values(leaky_relu(x, 0.5), {-2, -0.5f, 0, 2, 7}));
  EXPECT_TRUE(near_values(hardsigmoid(x), {0, 1.0f / 3, 0.5f, 5.0f / 6, 1}));
  EXPECT_TRUE(near_values(threshold(x, 0, 9), {9, 9, 9, 2, 7}));
  EXPECT_TRUE(near_values(glu(make_tensor<float>({3, 0})), {1.5f}));
  Tensor i = make_tensor<int64_t>({-4, 3});
  EXPECT_EQ(values<int64_t>(hardtanh(i, -2.5, 2.5)), (std::vector<int64_t>{-2, 2}));  // integer bounds
  Tensor y = x.clone();
  EXPECT_TRUE(elu_(y).is_same(y));
  EXPECT_NEAR(values<float>(y)[0], std::expm1(-4.0f), 1e-6);
  EMBER_EXPECT_ERROR(elu(i), Runtime, "not implemented for");
  EMBER_EXPECT_ERROR(glu(make_tensor<float>({1, 2, 3})), Runtime, "Halving dimension must be even");
}

}  // namespace
