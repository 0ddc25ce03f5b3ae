// The activation and pooling modules: each gives its functional's recorded PyTorch value, takes its options
// through the holder's constructor, has no parameters, and prints its class name.
#include <gtest/gtest.h>

#include "TestSupport.h"
#include "ember/nn/nn.h"
#include "ember/ops/Operators.h"
#include "layer_fixtures.h"

namespace ember::testing {
namespace {

using namespace ember::nn;

TEST(ActivationModules, MatchTorch) {
  const Tensor x = fixture("act.x");
  EXPECT_TRUE(close(ReLU()(x), fixture("act.relu")));
  EXPECT_TRUE(close(ReLU6()(x), fixture("act.relu6")));
  EXPECT_TRUE(close(Hardtanh(HardtanhOptions().min_val(-0.5).max_val(0.7))(x), fixture("act.hardtanh")));
  EXPECT_TRUE(close(LeakyReLU(LeakyReLUOptions().negative_slope(0.2))(x), fixture("act.leaky_relu")));
  EXPECT_TRUE(close(ELU(ELUOptions().alpha(0.5))(x), fixture("act.elu")));
  EXPECT_TRUE(close(CELU(CELUOptions().alpha(1.5))(x), fixture("act.celu")));
  EXPECT_TRUE(close(SELU()(x), fixture("act.selu")));
  EXPECT_TRUE(close(GELU()(x), fixture("act.gelu")));
  EXPECT_TRUE(close(GELU(GELUOptions().approximate("tanh"))(x), fixture("act.gelu_tanh")));
  EXPECT_TRUE(close(SiLU()(x), fixture("act.silu")));
  EXPECT_TRUE(close(Mish()(x), fixture("act.mish")));
  EXPECT_TRUE(close(Softplus(SoftplusOptions().beta(2).threshold(3))(x), fixture("act.softplus")));
  EXPECT_TRUE(close(Hardsigmoid()(x), fixture("act.hardsigmoid")));
  EXPECT_TRUE(close(Hardswish()(x), fixture("act.hardswish")));
  EXPECT_TRUE(close(Threshold(0.1, 20.0)(x), fixture("act.threshold")));
  EXPECT_TRUE(close(GLU(0)(ember::narrow(x, 0, 0, 2)), fixture("act.glu0")));
  EXPECT_TRUE(close(Softmax(1)(x), fixture("act.softmax")));
  EXPECT_TRUE(close(Softmin(0)(x), fixture("act.softmin")));
  EXPECT_TRUE(close(LogSoftmax(1)(x), fixture("act.log_softmax")));
  EXPECT_TRUE(close(Sigmoid()(x), fixture("act.sigmoid")));
  EXPECT_TRUE(close(Tanh()(x), fixture("act.tanh")));
  EXPECT_TRUE(close(LogSigmoid()(x), fixture("act.logsigmoid")));
  EXPECT_TRUE(close(Softsign()(x), fixture("act.softsign")));
  EXPECT_TRUE(close(Tanhshrink()(x), fixture("act.tanhshrink")));
}

TEST(ActivationModules, OptionsInplaceAndNoParameters) {
  ReLU relu(ReLUOptions().inplace(true));
  EXPECT_TRUE(relu->options.inplace());
  const Tensor x = fixture("act.x").clone();
  EXPECT_TRUE(relu->forward(x).is_same(x));
  EXPECT_TRUE(close(x, fixture("act.relu")));
  EXPECT_EQ(relu->parameters().size(), 0u);
  Softmax softmax(SoftmaxOptions(0));
  EXPECT_EQ(softmax->options.dim(), 0);
  EXPECT_EQ(relu->name(), "ReLU");
  EXPECT_EQ(Tanhshrink()->name(), "Tanhshrink");
  EXPECT_EQ(MaxPool2d(2)->name(), "MaxPool2d");
  EXPECT_EQ(CrossEntropyLoss()->name(), "CrossEntropyLoss");
  EXPECT_EQ(Conv2d(1, 1, 1)->name(), "Conv2d");
  EXPECT_EQ(BatchNorm1d(2)->name(), "BatchNorm1d");
}

TEST(ActivationModules, Float64NonContiguous) {
  const Tensor xt = fixture("act.xd").t();
  EXPECT_TRUE(close(ELU(ELUOptions().alpha(0.5))(xt), fixture("act.elu_f64_t"), 1e-12, 1e-14));
}

TEST(ActivationModules, Errors) {
  EMBER_EXPECT_ERROR(GLU()(ember::zeros({})), Runtime, "glu does not support scalars");
}

TEST(PoolingModules, MatchTorch) {
  const Tensor x = fixture("pool.x");
  EXPECT_TRUE(close(MaxPool2d(MaxPool2dOptions(3).stride(2).padding(1).ceil_mode(true))(x), fixture("pool.max")));
  auto [v, i] = MaxPool2d(MaxPool2dOptions({2, 3}))->forward_with_indices(x);
  EXPECT_TRUE(close(v, fixture("pool.max_v")));
  EXPECT_TRUE(close(i, fixture("pool.max_i"), 0, 0));
  EXPECT_TRUE(close(AvgPool2d(AvgPool2dOptions(3).stride(2).padding(1).count_include_pad(false))(x),
                    fixture("pool.avg")));
  EXPECT_TRUE(close(AdaptiveAvgPool2d(AdaptiveAvgPool2dOptions({3, 5}))(x), fixture("pool.adaptive")));
  EXPECT_TRUE(close(AdaptiveAvgPool2d(AdaptiveAvgPool2dOptions({std::nullopt, 3}))(x), fixture("pool.adaptive_none")));
  // batch of one: the same as the first sample of the batch
  EXPECT_TRUE(close(MaxPool2d(2)(ember::narrow(x, 0, 0, 1)), ember::narrow(MaxPool2d(2)(x), 0, 0, 1), 0, 0));
}

TEST(PoolingModules, Errors) {
  EMBER_EXPECT_ERROR(MaxPool2d(2)(ember::zeros({4})), Runtime, "max_pool2d");
  EMBER_EXPECT_ERROR(AvgPool2d(5)(ember::zeros({1, 1, 3, 3})), Runtime, "avg_pool2d");
}

}  // namespace
}  // namespace ember::testing
