// Conv1d / Conv2d modules against PyTorch 1.13 (fixtures/make_layer_fixtures.py): initialisation under the
// same seed, forward with each padding mode, float64, batch of one, parameter names, errors.
#include <gtest/gtest.h>

#include "TestSupport.h"
#include "ember/nn/nn.h"
#include "ember/ops/Operators.h"
#include "layer_fixtures.h"

namespace ember::testing {
namespace {

using namespace ember::nn;

TEST(Conv2dModule, InitialisationAndForwardMatchTorch) {
  ember::manual_seed(3);
  Conv2d conv(Conv2dOptions(4, 6, {3, 2}).stride(2).padding(1));
  EXPECT_TRUE(close(conv->weight, fixture("conv.m2.weight")));
  EXPECT_TRUE(close(conv->bias, fixture("conv.m2.bias")));
  EXPECT_TRUE(close(conv->forward(fixture("conv.x")), fixture("conv.m2.y"), 1e-5, 1e-5));
  EXPECT_TRUE(close(conv(fixture("conv.x")), fixture("conv.m2.y"), 1e-5, 1e-5));
  const auto params = conv->named_parameters();
  ASSERT_EQ(params.size(), 2u);
  EXPECT_EQ(params.keys()[0], "weight");
  EXPECT_EQ(params.keys()[1], "bias");
}

TEST(Conv2dModule, ReflectPaddingAndGroups) {
  ember::manual_seed(5);
  Conv2d conv(Conv2dOptions(4, 6, 3).padding(1).padding_mode(ember::kReflect).groups(2));
  EXPECT_TRUE(close(conv->weight, fixture("conv.mr.weight")));
  EXPECT_TRUE(close(conv->bias, fixture("conv.mr.bias")));
  EXPECT_TRUE(close(conv->forward(fixture("conv.x")), fixture("conv.mr.y"), 1e-5, 1e-5));
}

TEST(Conv2dModule, Float64BatchOfOne) {
  ember::manual_seed(6);
  Conv2d conv(4, 2, 3);
  conv->to(kFloat64);
  // The draw happens in float32 (as Python's .double() after construction): compare the converted values.
  EXPECT_TRUE(close(conv->weight, fixture("conv.md.weight")));
  EXPECT_TRUE(close(conv->bias, fixture("conv.md.bias")));
  EXPECT_TRUE(close(conv->forward(fixture("conv.md.x")), fixture("conv.md.y"), 1e-12, 1e-12));
}

TEST(Conv1dModule, SamePaddingWithoutBias) {
  ember::manual_seed(4);
  Conv1d conv(Conv1dOptions(4, 5, 3).padding(ember::kSame).bias(false));
  EXPECT_FALSE(conv->bias.defined());
  EXPECT_EQ(conv->named_parameters().size(), 1u);
  EXPECT_TRUE(close(conv->weight, fixture("conv.m1.weight")));
  EXPECT_TRUE(close(conv->forward(fixture("conv.x1")), fixture("conv.m1.y"), 1e-5, 1e-5));
}

TEST(Conv2dModule, Gradients) {
  Conv2d conv(Conv2dOptions(4, 6, 3).stride(2).padding(1));
  {
    autograd::NoGradGuard no_grad;
    conv->weight.copy_(fixture("conv.w"));
    conv->bias.copy_(fixture("conv.b"));
  }
  const Tensor x = fixture_leaf("conv.x");
  autograd::backward({conv->forward(x)}, {fixture("conv.grad_up")});
  EXPECT_TRUE(close(autograd::grad(x), fixture("conv.grad_x"), 1e-4, 1e-5));
  EXPECT_TRUE(close(autograd::grad(conv->weight), fixture("conv.grad_w"), 1e-4, 1e-5));
  EXPECT_TRUE(close(autograd::grad(conv->bias), fixture("conv.grad_b"), 1e-4, 1e-5));
}

TEST(ConvModule, Errors) {
  EMBER_EXPECT_ERROR(Conv2d(Conv2dOptions(3, 4, 3).groups(2)), Value,
                     "in_channels (3) must be divisible by groups (2)");
  EMBER_EXPECT_ERROR(Conv2d(Conv2dOptions(4, 3, 3).groups(2)), Value,
                     "out_channels (3) must be divisible by groups (2)");
  EMBER_EXPECT_ERROR(Conv2d(Conv2dOptions(4, 4, 3).groups(0)), Value, "groups must be a positive integer");
  EMBER_EXPECT_ERROR(Conv2d(Conv2dOptions(4, 4, 3).stride(2).padding(ember::kSame)), Value,
                     "padding='same' is not supported for strided convolutions");
  Conv2d conv(4, 6, 3);
  EMBER_EXPECT_ERROR(conv->forward(ember::zeros({2, 3, 7, 6})), Runtime,
                     "Conv2d: expected input of shape (N, 4, H, W) or (4, H, W) for in_channels=4, but got input of "
                     "shape [2, 3, 7, 6]");
  EMBER_EXPECT_ERROR(conv->forward(ember::zeros({7, 6})), Runtime, "got input of shape [7, 6]");
  Conv1d conv1(4, 5, 3);
  EMBER_EXPECT_ERROR(conv1->forward(ember::zeros({2, 4, 5, 5})), Runtime, "Conv1d: expected input of shape (N, 4, L)");
}

TEST(ConvModule, PrintsAsPython) {
  EXPECT_EQ(Conv2d(Conv2dOptions(4, 6, {3, 2}).stride(2).padding(1))->extra_repr(),
            "4, 6, kernel_size=(3, 2), stride=(2, 2), padding=(1, 1)");
  EXPECT_EQ(Conv1d(Conv1dOptions(4, 5, 3).padding(ember::kSame).bias(false))->extra_repr(),
            "4, 5, kernel_size=(3,), stride=(1,), padding=same, bias=False");
  EXPECT_EQ(Conv2d(Conv2dOptions(4, 6, 3).padding(1).padding_mode(ember::kReflect).groups(2).dilation(2))->extra_repr(),
            "4, 6, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), dilation=(2, 2), groups=2, padding_mode=reflect");
}

TEST(ConvModule, UnbatchedAndNonContiguousInput) {
  Conv2d conv(4, 6, 3);
  const Tensor x = fixture("conv.x");
  const Tensor batched = conv->forward(x);
  const Tensor single = conv->forward(x.select(0, 1));
  EXPECT_TRUE(close(single, batched.select(0, 1), 1e-5, 1e-6));
  const Tensor xt = fixture("conv.xt").transpose(2, 3);
  EXPECT_TRUE(close(conv->forward(xt), conv->forward(xt.contiguous()), 0, 0));
}

}  // namespace
}  // namespace ember::testing
