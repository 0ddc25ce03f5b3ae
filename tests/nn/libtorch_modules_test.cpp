// Modules and forms LibTorch programs use beside the recurrent layers: Sequential built from plain module values,
// Dropout1d/2d/3d (channel-wise dropout), MaxPool1d/3d and AvgPool1d/3d, and how they print.
#include <gtest/gtest.h>

#include <sstream>

#include "ember/nn/nn.h"
#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"

namespace {

using ember::Tensor;
namespace nn = ember::nn;

TEST(LibTorchModules, SequentialFromModuleValues) {
  ember::manual_seed(0);
  nn::Sequential values(nn::LinearImpl(4, 3), nn::ReLUImpl(), nn::LinearImpl(3, 2));
  ember::manual_seed(0);
  nn::Sequential holders(nn::Linear(4, 3), nn::ReLU(), nn::Linear(3, 2));
  ASSERT_EQ(values->size(), 3u);
  Tensor x = ember::randn({5, 4});
  EXPECT_TRUE(ember::equal(values->forward(x), holders->forward(x)));
  EXPECT_EQ(values->named_parameters().size(), 4u);
}

TEST(LibTorchModules, ChannelDropout) {
  nn::Dropout2d drop(nn::Dropout2dOptions(0.5));
  Tensor x = ember::ones({8, 16, 3, 3});
  ember::manual_seed(3);
  Tensor y = drop(x);
  // Each (sample, channel) map is all zeros or all 2 (= 1 / (1 - p)).
  Tensor per_channel = y.sum({2, 3});
  EXPECT_TRUE(ember::logical_or(per_channel == 0, per_channel == 18).all().item<bool>());
  EXPECT_GT(per_channel.eq(0).sum().item<int64_t>(), 0);
  EXPECT_GT(per_channel.eq(18).sum().item<int64_t>(), 0);
  drop->eval();
  EXPECT_TRUE(drop(x).is_same(x));
  // Unbatched (C, L) for Dropout1d; the other ranks are errors.
  nn::Dropout1d drop1(0.25);
  EXPECT_EQ(drop1(ember::ones({4, 7})).sizes(), ember::IntArrayRef({4, 7}));
  nn::Dropout3d drop3(0.5);
  EXPECT_THROW(drop3(ember::ones({2, 3})), ember::Error);
  EXPECT_THROW(nn::Dropout2d(1.5), ember::Error);
  std::ostringstream os;
  os << drop;
  EXPECT_EQ(os.str(), "Dropout2d(p=0.5, inplace=False)");
}

TEST(LibTorchModules, PoolingOfEachRank) {
  Tensor x1 = ember::arange(16.0).view({1, 2, 8});
  EXPECT_TRUE(ember::equal(nn::MaxPool1d(nn::MaxPool1dOptions(3).stride(2).padding(1))(x1),
                           ember::max_pool1d(x1, {3}, {2}, {1})));
  EXPECT_TRUE(ember::equal(nn::AvgPool1d(2)(x1), ember::avg_pool1d(x1, {2})));
  Tensor x3 = ember::arange(54.0).view({1, 2, 3, 3, 3});
  EXPECT_TRUE(ember::equal(nn::MaxPool3d(2)(x3), ember::max_pool3d(x3, {2, 2, 2})));
  EXPECT_TRUE(ember::equal(nn::AvgPool3d(nn::AvgPool3dOptions(2).stride(1))(x3),
                           ember::avg_pool3d(x3, {2, 2, 2}, {1, 1, 1})));
  std::ostringstream os;
  os << nn::MaxPool1d(2) << ' ' << nn::AvgPool3d(nn::AvgPool3dOptions({1, 2, 2}));
  EXPECT_EQ(os.str(), "MaxPool1d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False) "
                      "AvgPool3d(kernel_size=(1, 2, 2), stride=(1, 2, 2), padding=0)");
}

}  // namespace
