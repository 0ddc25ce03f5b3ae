// Indexing kernels through the C++ API (values checked against PyTorch 1.13 by hand): index_select, gather,
// scatter and scatter_add, index_add, index / index_put_ (masks, broadcasting, non-adjacent indices,
// duplicates), masked_fill / masked_select, nonzero and where(condition), and the errors PyTorch raises.
#include <gtest/gtest.h>

#include "TestSupport.h"
#include "ember/api/ember.h"

namespace {

using namespace ember;
using ember::testing::make_bool_tensor;
using ember::testing::make_tensor;
using ember::testing::values;

Tensor arange_f(int64_t n) { return ember::arange(n).to(kFloat32); }

TEST(Index, IndexSelectAndGather) {
  Tensor x = arange_f(12).view({3, 4});
  Tensor r = index_select(x, 1, make_tensor<int32_t>({3, 0, 3}));
  EXPECT_EQ(r.sizes().vec(), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(values<float>(r), (std::vector<float>{3, 0, 3, 7, 4, 7, 11, 8, 11}));
  Tensor g = gather(x, 1, make_tensor<int64_t>({0, 3, 1}, {3, 1}));
  EXPECT_EQ(values<float>(g), (std::vector<float>{0, 7, 9}));
  EMBER_EXPECT_ERROR(index_select(x, 0, make_tensor<int64_t>({3})), Index, "index out of range in self");
  EMBER_EXPECT_ERROR(index_select(x, 0, make_tensor<int64_t>({-1})), Index, "index out of range in self");
  EMBER_EXPECT_ERROR(gather(x, 1, make_tensor<int64_t>({4}, {1, 1})), Runtime,
                     "index 4 is out of bounds for dimension 1 with size 4");
  EMBER_EXPECT_ERROR(gather(x, 1, make_tensor<int32_t>({0}, {1, 1})), Runtime, "Expected dtype int64 for index");
}

TEST(Index, ScatterDuplicatesAndReductions) {
  Tensor zero = ember::zeros({3}, kFloat32);
  Tensor idx = make_tensor<int64_t>({0, 0, 2, 0});
  Tensor src = make_tensor<float>({1, 2, 3, 4});
  EXPECT_EQ(values<float>(scatter(zero, 0, idx, src)), (std::vector<float>{4, 0, 3}));  // the last write wins
  EXPECT_EQ(values<float>(scatter_add(zero, 0, idx, src)), (std::vector<float>{7, 0, 3}));
  EXPECT_EQ(values<float>(scatter(ember::ones({3}, kFloat32), 0, idx, Scalar(2.0), "multiply")),
            (std::vector<float>{8, 1, 2}));
  Tensor y = zero.clone();
  EXPECT_TRUE(y.scatter_(0, idx, Scalar(5)).is_same(y));
  EXPECT_EQ(values<float>(y), (std::vector<float>{5, 0, 5}));
  EMBER_EXPECT_ERROR(scatter(zero, 0, make_tensor<int64_t>({3}), src.narrow(0, 0, 1)), Runtime,
                     "index 3 is out of bounds for dimension 0 with size 3");
  EMBER_EXPECT_ERROR(scatter(zero, 0, idx, src, "max"), Runtime, "reduce argument must be either add or multiply");
  EMBER_EXPECT_ERROR(scatter(make_tensor<uint8_t>({1}), 0, make_tensor<int64_t>({0}), Scalar(300)), Runtime,
                     "without overflow");
}

TEST(Index, IndexAdd) {
  Tensor x = ember::zeros({3, 2}, kInt64);
  Tensor r = index_add(x, 0, make_tensor<int32_t>({2, 2, 0}), ember::ones({3, 2}, kInt64), 3);
  EXPECT_EQ(values<int64_t>(r), (std::vector<int64_t>{3, 3, 0, 0, 6, 6}));
  EMBER_EXPECT_ERROR(index_add(x, 0, make_tensor<int64_t>({3}), ember::ones({1, 2}, kInt64)), Index,
                     "index out of range in self");
  EMBER_EXPECT_ERROR(index_add(x, 0, make_tensor<int64_t>({0}), ember::ones({1, 2}, kFloat32)), Runtime,
                     "must have the same scalar type");
}

TEST(Index, AdvancedIndexShapesAndValues) {
  Tensor x = arange_f(24).view({2, 3, 4});
  Tensor i = make_tensor<int64_t>({1, -1});  // negative indices count from the end
  // Adjacent index dims stay in place; separated ones go first.
  EXPECT_EQ(index(x, {std::nullopt, i}).sizes().vec(), (std::vector<int64_t>{2, 2, 4}));
  Tensor sep = index(x, {make_tensor<int64_t>({0, 1}), std::nullopt, make_tensor<int64_t>({3})});
  EXPECT_EQ(sep.sizes().vec(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values<float>(sep), (std::vector<float>{3, 7, 11, 15, 19, 23}));
  Tensor mask = make_bool_tensor({1, 0, 0, 1, 0, 1}, {2, 3});
  Tensor m = index(x, {mask});
  EXPECT_EQ(m.sizes().vec(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(values<float>(m.select(1, 0)), (std::vector<float>{0, 12, 20}));
  EMBER_EXPECT_ERROR(index(x, {make_tensor<int64_t>({2})}), Index,
                     "index 2 is out of bounds for dimension 0 with size 2");
  EMBER_EXPECT_ERROR(index(x, {make_tensor<int32_t>({0})}), Index,
                     "tensors used as indices must be long, byte or bool");
  EMBER_EXPECT_ERROR(index(x, {make_tensor<int64_t>({0, 1}), make_tensor<int64_t>({0, 1, 2})}), Index,
                     "shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]");
  EMBER_EXPECT_ERROR(index(x, {make_bool_tensor({1, 0, 1}, {3})}), Index, "The shape of the mask [3] at index 0");
}

TEST(Index, IndexPutAccumulateAndLastWriteWins) {
  Tensor x = ember::zeros({4}, kFloat32);
  Tensor i = make_tensor<int64_t>({1, 3, 1});
  Tensor v = make_tensor<float>({1, 2, 5});
  EXPECT_EQ(values<float>(index_put(x, {i}, v)), (std::vector<float>{0, 5, 0, 2}));
  EXPECT_EQ(values<float>(index_put(x, {i}, v, true)), (std::vector<float>{0, 6, 0, 2}));
  uint32_t version = x._version();
  EXPECT_TRUE(x.index_put_({i}, make_tensor<float>({9}), false).is_same(x));  // values broadcast
  EXPECT_GT(x._version(), version);
  EXPECT_EQ(values<float>(x), (std::vector<float>{0, 9, 0, 9}));
  // A bool mask with one value is a masked_fill, which converts the value's dtype.
  Tensor y = ember::zeros({3}, kInt64);
  y.index_put_({make_bool_tensor({1, 0, 1}, {3})}, make_tensor<double>({2.0}), false);
  EXPECT_EQ(values<int64_t>(y), (std::vector<int64_t>{2, 0, 2}));
  EMBER_EXPECT_ERROR(x.index_put_({i}, make_tensor<double>({1, 2, 3}), false), Runtime,
                     "Index put requires the source and destination dtypes match");
  EMBER_EXPECT_ERROR(x.index_put_({i}, ember::ones({2}, kFloat32), false), Runtime,
                     "shape mismatch: value tensor of shape [2] cannot be broadcast to indexing result of shape [3]");
}

TEST(Index, MaskedOpsNonzeroWhere) {
  Tensor x = arange_f(6).view({2, 3});
  Tensor mask = make_bool_tensor({1, 0, 1}, {3});
  EXPECT_EQ(values<float>(masked_fill(x, mask, -1.0)), (std::vector<float>{-1, 1, -1, -1, 4, -1}));
  EXPECT_EQ(values<float>(masked_select(x, mask)), (std::vector<float>{0, 2, 3, 5}));
  EMBER_EXPECT_ERROR(masked_fill(x, mask, ember::ones({1}, kFloat32)), Runtime, "0-dimensional value tensor");
  EMBER_EXPECT_ERROR(masked_fill(x, make_tensor<int32_t>({1, 0, 1}), 1.0), Runtime, "boolean masks");
  Tensor nz = nonzero(make_tensor<float>({0, 2, 0, -1}, {2, 2}));
  EXPECT_EQ(nz.sizes().vec(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(values<int64_t>(nz), (std::vector<int64_t>{0, 1, 1, 1}));
  std::vector<Tensor> w = where(make_tensor<int64_t>({0, 3, 4}));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(values<int64_t>(w[0]), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(nonzero(ember::scalar_tensor(Scalar(1.0))).sizes().vec(), (std::vector<int64_t>{1, 0}));
}

}  // namespace
