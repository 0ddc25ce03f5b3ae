// BatchNorm1d/2d, LayerNorm and GroupNorm modules against PyTorch 1.13: buffers and their names, training
// steps updating the running statistics, eval using them, momentum nullopt, gradients, errors.
#include <gtest/gtest.h>

#include "TestSupport.h"
#include "ember/nn/nn.h"
#include "ember/ops/Operators.h"
#include "layer_fixtures.h"

namespace ember::testing {
namespace {

using namespace ember::nn;

TEST(BatchNormModule, ParametersBuffersAndInit) {
  BatchNorm2d bn(3);
  const auto params = bn->named_parameters();
  ASSERT_EQ(params.size(), 2u);
  EXPECT_EQ(params.keys()[0], "weight");
  EXPECT_EQ(params.keys()[1], "bias");
  const auto buffers = bn->named_buffers();
  ASSERT_EQ(buffers.size(), 3u);
  EXPECT_EQ(buffers.keys()[0], "running_mean");
  EXPECT_EQ(buffers.keys()[1], "running_var");
  EXPECT_EQ(buffers.keys()[2], "num_batches_tracked");
  EXPECT_TRUE(close(bn->weight, ember::ones({3})));
  EXPECT_TRUE(close(bn->bias, ember::zeros({3})));
  EXPECT_TRUE(close(bn->num_batches_tracked, ember::zeros({}, kInt64), 0, 0));
  BatchNorm1d plain(BatchNorm1dOptions(4).affine(false).track_running_stats(false));
  EXPECT_EQ(plain->named_parameters().size(), 0u);
  EXPECT_EQ(plain->named_buffers().size(), 0u);
}

TEST(BatchNormModule, TrainThenEvalMatchesTorch) {
  BatchNorm2d bn(BatchNorm2dOptions(3).momentum(0.3));
  EXPECT_TRUE(close(bn->forward(fixture("norm.x")), fixture("norm.m.train1"), 1e-5, 1e-5));
  EXPECT_TRUE(close(bn->forward(fixture("norm.x2")), fixture("norm.m.train2"), 1e-5, 1e-5));
  EXPECT_TRUE(close(bn->running_mean, fixture("norm.m.running_mean")));
  EXPECT_TRUE(close(bn->running_var, fixture("norm.m.running_var")));
  EXPECT_TRUE(close(bn->num_batches_tracked, fixture("norm.m.num_batches_tracked"), 0, 0));
  bn->eval();
  EXPECT_TRUE(close(bn->forward(fixture("norm.x")), fixture("norm.m.eval"), 1e-5, 1e-5));
  // eval does not touch the running statistics
  EXPECT_TRUE(close(bn->running_mean, fixture("norm.m.running_mean")));
  EXPECT_TRUE(close(bn->num_batches_tracked, fixture("norm.m.num_batches_tracked"), 0, 0));
}

TEST(BatchNormModule, CumulativeAverageWithoutMomentum) {
  BatchNorm1d bn(BatchNorm1dOptions(3).momentum(std::nullopt));
  bn->forward(fixture("norm.x1a"));
  bn->forward(fixture("norm.x1b"));
  EXPECT_TRUE(close(bn->running_mean, fixture("norm.m1.running_mean")));
  EXPECT_TRUE(close(bn->running_var, fixture("norm.m1.running_var")));
}

TEST(BatchNormModule, Gradients) {
  BatchNorm2d bn(BatchNorm2dOptions(3).track_running_stats(false));
  {
    autograd::NoGradGuard no_grad;
    bn->weight.copy_(fixture("norm.w"));
    bn->bias.copy_(fixture("norm.b"));
  }
  const Tensor x = fixture_leaf("norm.x");
  autograd::backward({bn->forward(x)}, {fixture("norm.grad_up")});
  EXPECT_TRUE(close(autograd::grad(x), fixture("norm.bn_grad_x"), 1e-4, 1e-5));
  EXPECT_TRUE(close(autograd::grad(bn->weight), fixture("norm.bn_grad_w"), 1e-4, 1e-5));
  EXPECT_TRUE(close(autograd::grad(bn->bias), fixture("norm.bn_grad_b"), 1e-4, 1e-5));
}

TEST(BatchNormModule, Errors) {
  BatchNorm2d bn(3);
  EMBER_EXPECT_ERROR(bn->forward(ember::zeros({4, 3, 5})), Value, "BatchNorm2d: expected 4D input (got 3D input)");
  EMBER_EXPECT_ERROR(bn->forward(ember::zeros({4, 2, 5, 5})), Runtime,
                     "BatchNorm2d: expected input with 3 channels (dim 1, num_features), but got input of shape "
                     "[4, 2, 5, 5]");
  // a batch of one with no spatial dims: one value per channel
  BatchNorm1d bn1(3);
  EMBER_EXPECT_ERROR(bn1->forward(ember::zeros({1, 3})), Value, "Expected more than 1 value per channel when training");
  EMBER_EXPECT_ERROR(bn1->forward(ember::zeros({2, 3, 4, 4})), Value, "BatchNorm1d: expected 2D or 3D input");
  // in eval mode a batch of one is fine
  bn1->eval();
  EXPECT_TRUE(close(bn1->forward(ember::ones({1, 3})), ember::ones({1, 3}) / std::sqrt(1 + 1e-5)));
}

TEST(LayerNormModule, MatchesTorchAndChecksShape) {
  LayerNorm ln(LayerNormOptions({5, 2}));
  EXPECT_TRUE(close(ln->weight, ember::ones({5, 2})));
  EXPECT_TRUE(close(ln->forward(fixture("norm.x")), fixture("norm.ln"), 1e-5, 1e-5));
  LayerNorm plain(LayerNormOptions({2}).elementwise_affine(false));
  EXPECT_EQ(plain->named_parameters().size(), 0u);
  EMBER_EXPECT_ERROR(ln->forward(ember::zeros({4, 3, 2, 5})), Runtime,
                     "LayerNorm: expected input of shape (*, 5, 2) for normalized_shape=[5, 2], but got input of "
                     "shape [4, 3, 2, 5]");
}

TEST(GroupNormModule, MatchesTorchAndChecksShape) {
  GroupNorm gn(3, 6);
  EXPECT_TRUE(close(gn->forward(fixture("norm.x").reshape({2, 6, 5, 2})), fixture("norm.gm.y"), 1e-5, 1e-5));
  EMBER_EXPECT_ERROR(GroupNorm(4, 6), Value, "GroupNorm: num_channels (6) must be divisible by num_groups (4)");
  EMBER_EXPECT_ERROR(
      gn->forward(ember::zeros({2, 4, 3})), Runtime,
      "GroupNorm: expected input of shape (N, 6, *) for num_channels=6, but got input of shape [2, 4, 3]");
}

TEST(NormModules, StateDictKeysAsPythonInASequential) {
  // the CNN block of the training example: Python's keys, in Python's order
  Sequential net{Conv2d(Conv2dOptions(1, 4, 3).padding(1)), BatchNorm2d(4), ReLU(), MaxPool2d(2), Flatten(),
                 Linear(4 * 2 * 2, 3), LogSoftmax(1)};
  EXPECT_EQ(net->state_dict().keys(),
            (std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean", "1.running_var",
                                      "1.num_batches_tracked", "5.weight", "5.bias"}));
  const Tensor out = net->forward(ember::randn({2, 1, 4, 4}));
  EXPECT_EQ(vec(out.sizes()), (Shape{2, 3}));
  net->eval();
  EXPECT_FALSE(net[1]->is_training());
}

TEST(NormModules, PrintAsPython) {
  EXPECT_EQ(BatchNorm2d(BatchNorm2dOptions(3).momentum(std::nullopt))->extra_repr(),
            "3, eps=1e-05, momentum=None, affine=True, track_running_stats=True");
  EXPECT_EQ(BatchNorm1d(BatchNorm1dOptions(3).eps(1e-3))->extra_repr(),
            "3, eps=0.001, momentum=0.1, affine=True, track_running_stats=True");
  EXPECT_EQ(LayerNorm(LayerNormOptions({5, 2}))->extra_repr(), "(5, 2), eps=1e-05, elementwise_affine=True");
  EXPECT_EQ(GroupNorm(GroupNormOptions(3, 6).affine(false))->extra_repr(), "3, 6, eps=1e-05, affine=False");
}

TEST(NormModules, Float64) {
  BatchNorm2d bn(3);
  bn->to(kFloat64);
  const Tensor x = fixture("norm.x").to(kFloat64);
  const Tensor y = bn->forward(x);
  EXPECT_EQ(y.dtype(), kFloat64);
  BatchNorm2d bn32(3);
  EXPECT_TRUE(close(y.to(kFloat32), bn32->forward(fixture("norm.x")), 1e-5, 1e-5));
  EXPECT_TRUE(close(bn->running_var.to(kFloat32), bn32->running_var, 1e-6, 1e-6));
}

}  // namespace
}  // namespace ember::testing
