// LibTorch names of the C++ frontend a porting trial found missing (issue 8): Module::to(Device) and
// to(Device, DType), the nn::init tokens in the top namespace (ember::kFanIn, ember::kReLU).
#include <gtest/gtest.h>

#include "TestSupport.h"
#include "ember/ember.h"
#include "nn_fixtures.h"

namespace {

using namespace ember;

TEST(ModuleToDevice, CpuIsANoOpAndOtherDevicesRaise) {
  manual_seed(0);
  nn::Linear fc(3, 2);
  Tensor w = fc->weight;
  const Tensor before = w.clone();
  fc->to(kCPU);
  fc->to(Device("cpu"));
  EXPECT_TRUE(fc->weight.is_same(w));
  EXPECT_TRUE(equal(fc->weight, before));
  EMBER_EXPECT_ERROR(fc->to(kCUDA), Runtime, "Linear.to: cannot move the module to device cuda");
  EMBER_EXPECT_ERROR(fc->to(Device("cuda:1")), Runtime, "cuda:1");
  EXPECT_TRUE(equal(fc->weight, before));  // left as it was
  // to(device, dtype): the dtype conversion of to(dtype), identity kept.
  fc->to(kCPU, kFloat64);
  EXPECT_EQ(fc->weight.dtype(), kFloat64);
  EXPECT_TRUE(fc->weight.is_same(w));
  EXPECT_TRUE(equal(fc->weight, before.to(kFloat64)));
  EMBER_EXPECT_ERROR(fc->to(kCUDA, kFloat32), Runtime, "cannot move the module to device cuda");
  EXPECT_EQ(fc->weight.dtype(), kFloat64);
  EMBER_EXPECT_ERROR(fc->to(kCPU, kInt64), Type, "only accepts floating point dtypes");
  // The LibTorch idiom.
  Device device(cuda::is_available() ? kCUDA : kCPU);
  nn::Sequential seq(nn::Linear(2, 2), nn::ReLU());
  seq->to(device);
  EXPECT_EQ(seq->parameters().size(), 2u);
}

TEST(InitTokens, TopNamespaceSpellings) {
  static_assert(std::is_same_v<decltype(ember::kFanIn), const nn::init::FanMode>);
  EXPECT_EQ(ember::kFanOut, nn::init::FanMode::FanOut);
  EXPECT_EQ(ember::kReLU, nn::init::Nonlinearity::ReLU);
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain(ember::kTanh), 5.0 / 3.0);
  // PyTorch's kaiming_normal_(t, mode="fan_out", nonlinearity="relu") after torch.manual_seed(15).
  Tensor a = empty({3, 5});
  manual_seed(15);
  nn::init::kaiming_normal_(a, 0, ember::kFanOut, ember::kReLU);
  EXPECT_TRUE(equal(a, ember::testing::nn_fixture("init.kaiming_normal_fan_out_relu")));
}

}  // namespace
