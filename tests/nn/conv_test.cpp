// Conv1d/2d/3d and ConvTranspose1d/2d/3d modules against PyTorch 1.13 (fixtures/make_layer_fixtures.py):
// initialisation under the same seed, forward with each padding mode, output_size, float64, batch of one,
// parameter names, gradients, errors.
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

TEST(Conv3dModule, InitialisationAndForwardMatchTorch) {
  ember::manual_seed(11);
  Conv3d conv(Conv3dOptions(3, 4, {2, 3, 2}).stride({1, 2, 1}).padding(1));
  EXPECT_TRUE(close(conv->weight, fixture("convnd.c3.weight")));
  EXPECT_TRUE(close(conv->bias, fixture("convnd.c3.bias")));
  EXPECT_TRUE(close(conv->forward(fixture("convnd.x3")), fixture("convnd.c3.y"), 1e-4, 1e-5));
  EXPECT_EQ(conv->extra_repr(), "3, 4, kernel_size=(2, 3, 2), stride=(1, 2, 1), padding=(1, 1, 1)");
  EMBER_EXPECT_ERROR(conv->forward(ember::zeros({2, 3, 4, 5})), Runtime,
                     "Conv3d: expected input of shape (N, 3, D, H, W) or (3, D, H, W)");
}

TEST(ConvTransposeModule, InitialisationForwardAndGradientsMatchTorch) {
  ember::manual_seed(12);
  ConvTranspose2d conv(ConvTranspose2dOptions(4, 6, 3).stride(2).padding(1).output_padding(1).groups(2));
  ASSERT_EQ(conv->weight.sizes().vec(), std::vector<int64_t>({4, 3, 3, 3}));
  EXPECT_TRUE(close(conv->weight, fixture("convnd.t2.weight")));
  EXPECT_TRUE(close(conv->bias, fixture("convnd.t2.bias")));
  EXPECT_TRUE(close(conv->forward(fixture("convnd.x2")), fixture("convnd.t2.y"), 1e-4, 1e-5));
  const std::vector<int64_t> size{10, 11};
  EXPECT_TRUE(close(conv->forward(fixture("convnd.x2"), IntArrayRef(size)), fixture("convnd.t2.y_size"), 1e-4, 1e-5));
  const Tensor x = fixture_leaf("convnd.x2");
  autograd::backward({conv->forward(x)}, {fixture("convnd.t2.up")});
  EXPECT_TRUE(close(autograd::grad(x), fixture("convnd.t2.grad_x"), 1e-4, 1e-5));
  EXPECT_TRUE(close(autograd::grad(conv->weight), fixture("convnd.t2.grad_w"), 1e-4, 1e-5));
  EXPECT_TRUE(close(autograd::grad(conv->bias), fixture("convnd.t2.grad_b"), 1e-4, 1e-5));
  EXPECT_EQ(conv->extra_repr(), "4, 6, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), output_padding=(1, 1), "
                                "groups=2");
}

TEST(ConvTransposeModule, OneAndThreeDims) {
  ember::manual_seed(13);
  ConvTranspose1d conv1(ConvTranspose1dOptions(4, 3, 3).stride(3).dilation(2).bias(false));
  EXPECT_FALSE(conv1->bias.defined());
  EXPECT_TRUE(close(conv1->weight, fixture("convnd.t1.weight")));
  EXPECT_TRUE(close(conv1->forward(fixture("convnd.x1")), fixture("convnd.t1.y"), 1e-4, 1e-5));  // unbatched
  EXPECT_EQ(conv1->extra_repr(), "4, 3, kernel_size=(3,), stride=(3,), dilation=(2,), bias=False");
  ember::manual_seed(14);
  ConvTranspose3d conv3(ConvTranspose3dOptions(3, 2, 2).stride(2));
  EXPECT_TRUE(close(conv3->weight, fixture("convnd.t3.weight")));
  EXPECT_TRUE(close(conv3->bias, fixture("convnd.t3.bias")));
  EXPECT_TRUE(close(conv3->forward(fixture("convnd.x3")), fixture("convnd.t3.y"), 1e-4, 1e-5));
}

TEST(ConvTransposeModule, Errors) {
  EMBER_EXPECT_ERROR(ConvTranspose2d(ConvTranspose2dOptions(3, 4, 3).groups(2)), Value,
                     "in_channels (3) must be divisible by groups (2)");
  EMBER_EXPECT_ERROR(ConvTranspose2d(ConvTranspose2dOptions(4, 4, 3).padding_mode(ember::kReflect)), Value,
                     "Only \"zeros\" padding mode is supported for ConvTranspose2d");
  ConvTranspose2d conv(ConvTranspose2dOptions(4, 6, 3).stride(2));
  const Tensor x = ember::zeros({2, 4, 5, 6});
  const std::vector<int64_t> too_big{20, 20}, wrong_length{11};
  EMBER_EXPECT_ERROR(conv->forward(x, IntArrayRef(too_big)), Value, "valid sizes range from 11 to 12");
  EMBER_EXPECT_ERROR(conv->forward(x, IntArrayRef(wrong_length)), Value, "output_size must have 2 or 4 elements");
}

}  // namespace
}  // namespace ember::testing
