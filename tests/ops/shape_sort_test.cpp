// Shape, joining and sorting ops from C++ (expected values from PyTorch 1.13): cat with promotion and the legacy
// empty tensor, stack, split/chunk/unbind as views, repeat, flip, tril/triu, the pads, sort and topk, and their
// errors. The Python suites (tests/python/test_shape_ops.py, test_sort.py) cover the edge cases against PyTorch.
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

bool shares_storage(const Tensor& a, const Tensor& b) {
  return a.impl()->storage().get() == b.impl()->storage().get();
}

TEST(ShapeOps, CatPromotesAndSkipsLegacyEmpty) {
  Tensor a = make_tensor<int32_t>({1, 2, 3, 4}, {2, 2});
  Tensor b = make_tensor<double>({5.5, 6.5}, {2, 1});
  Tensor r = cat({a, empty({0}, kInt64), b}, 1);
  EXPECT_EQ(r.dtype(), kFloat64);
  EXPECT_EQ(vec(r.sizes()), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values<double>(r), (std::vector<double>{1, 2, 5.5, 3, 4, 6.5}));
  EMBER_EXPECT_ERROR(cat({a, b}, 0), Runtime, "cat: Sizes of tensors must match except in dimension 0");
  EMBER_EXPECT_ERROR(cat({a, a}, 2), Index, "cat: Dimension out of range");
  EMBER_EXPECT_ERROR(cat({}, 0), Runtime, "expected a non-empty list of Tensors");
  Tensor out = empty({0}, kInt64);
  cat_out(out, {a, a}, 0);
  EXPECT_EQ(values<int64_t>(out), (std::vector<int64_t>{1, 2, 3, 4, 1, 2, 3, 4}));
}

TEST(ShapeOps, StackIsCatOfUnsqueezed) {
  Tensor a = make_tensor<float>({1, 2}), b = make_tensor<float>({3, 4});
  Tensor r = stack({a, b}, 1);
  EXPECT_EQ(vec(r.sizes()), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(values<float>(r), (std::vector<float>{1, 3, 2, 4}));
  EMBER_EXPECT_ERROR(stack({a, make_tensor<float>({1})}, 0), Runtime, "stack expects each tensor to be equal size");
}

TEST(ShapeOps, SplitChunkUnbindReturnViews) {
  Tensor x = arange(10, kFloat32).reshape({5, 2});
  std::vector<Tensor> parts = split(x, 2);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(vec(parts[2].sizes()), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(parts[1].storage_offset(), 4);
  parts = x.split(IntArrayRef({1, 4}));
  EXPECT_EQ(vec(parts[1].sizes()), (std::vector<int64_t>{4, 2}));
  for (const Tensor& p : chunk(x, 3, 0)) EXPECT_TRUE(shares_storage(p, x));
  std::vector<Tensor> cols = unbind(x, 1);
  ASSERT_EQ(cols.size(), 2u);
  cols[1].fill_(-1);
  EXPECT_EQ(values<float>(x)[1], -1.0f);
  EMBER_EXPECT_ERROR(split_with_sizes(x, {1, 3}), Runtime, "split_with_sizes expects split_sizes to sum exactly to 5");
  EMBER_EXPECT_ERROR(chunk(x, 0), Runtime, "chunk expects `chunks` to be greater than 0");
}

TEST(ShapeOps, RepeatFlipTriangles) {
  Tensor x = make_tensor<int64_t>({1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(values<int64_t>(x.repeat({1, 2})), (std::vector<int64_t>{1, 2, 1, 2, 3, 4, 3, 4}));
  EXPECT_EQ(values<int64_t>(flip(x, {0, 1})), (std::vector<int64_t>{4, 3, 2, 1}));
  EXPECT_EQ(values<int64_t>(tril(x)), (std::vector<int64_t>{1, 0, 3, 4}));
  EXPECT_EQ(values<int64_t>(triu(x, 1)), (std::vector<int64_t>{0, 2, 0, 0}));
  x.tril_(-1);
  EXPECT_EQ(values<int64_t>(x), (std::vector<int64_t>{0, 0, 3, 0}));
  EMBER_EXPECT_ERROR(flip(x, {0, 0}), Runtime, "flip: dim 0 appears multiple times");
  EMBER_EXPECT_ERROR(tril(arange(3, kFloat32)), Index, "tril");
}

TEST(ShapeOps, Pads) {
  Tensor x = make_tensor<float>({1, 2, 3}, {1, 3});
  EXPECT_EQ(values<float>(constant_pad_nd(x, {1, 2}, 9)), (std::vector<float>{9, 1, 2, 3, 9, 9}));
  EXPECT_EQ(values<float>(pad(x, {2, 2}, "reflect")), (std::vector<float>{3, 2, 1, 2, 3, 2, 1}));
  EXPECT_EQ(values<float>(pad(x, {2, 1}, "replicate")), (std::vector<float>{1, 1, 1, 2, 3, 3}));
  EXPECT_EQ(values<float>(pad(x.unsqueeze(0), {2, 1}, "circular")), (std::vector<float>{2, 3, 1, 2, 3, 1}));
  EMBER_EXPECT_ERROR(pad(x, {3, 0}, "reflect"), Runtime, "Padding size should be less than");
  EMBER_EXPECT_ERROR(pad(x, {1, 1}, "wrap"), NotImplemented, "Unrecognised padding mode wrap");
}

TEST(SortOps, SortNaNLastAndStable) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = make_tensor<float>({2, nan, 1, 2, -1});
  auto [v, i] = sort(x, std::optional<bool>(true), 0, false);
  std::vector<float> vs = values<float>(v);
  EXPECT_EQ(std::vector<float>(vs.begin(), vs.begin() + 4), (std::vector<float>{-1, 1, 2, 2}));
  EXPECT_TRUE(std::isnan(vs[4]));
  EXPECT_EQ(values<int64_t>(i), (std::vector<int64_t>{4, 2, 0, 3, 1}));
  EXPECT_EQ(values<int64_t>(argsort(x, 0, true)), (std::vector<int64_t>{1, 0, 3, 2, 4}));
  auto [tv, ti] = topk(x, 2);
  EXPECT_TRUE(std::isnan(values<float>(tv)[0]));
  EXPECT_EQ(values<int64_t>(ti), (std::vector<int64_t>{1, 3}));  // nth_element's order of the tied 2s, as PyTorch
  EMBER_EXPECT_ERROR(topk(x, 6), Runtime, "selected index k out of range");
}

}  // namespace
