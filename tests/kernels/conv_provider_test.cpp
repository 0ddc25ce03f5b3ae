// The convolution provider slots (Note [conv providers]): oneDNN serves float32 convolutions, nothing else;
// switching it off routes them to the im2col reference, and both agree on values and gradients.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "TestSupport.h"
#include "ember/api/ember.h"
#include "ember/backends/onednn/OneDNN.h"
#include "ember/kernels/cpu/ConvProviders.h"

namespace {

using namespace ember;
using ember::testing::values;

// The Fashion-MNIST CNN's second convolution at batch 8: (8, 32, 14, 14) * (64, 32, 3, 3), padding 1.
cpu::ConvGeometry geometry() { return {8, 32, 14, 14, 64, 1, 32, 64, 3, 3, 1, 1, 1, 1, 1, 1, 14, 14}; }

const cpu::Provider* forward_provider(const cpu::ConvGeometry& g, DType d = kFloat32) {
  cpu::ConvForwardArgs f;
  f.dtype = d;
  f.g = g;
  const auto* k = cpu::conv_forward_providers().select(f);
  return k ? k->provider : nullptr;
}

const cpu::Provider* backward_provider(const cpu::ConvGeometry& g, DType d = kFloat32) {
  cpu::ConvBackwardArgs b;
  b.dtype = d;
  b.g = g;
  const auto* k = cpu::conv_backward_providers().select(b);
  return k ? k->provider : nullptr;
}

TEST(ConvProviders, OneDnnServesFloat32Only) {
  ASSERT_TRUE(backends::onednn::enabled());
  ASSERT_NE(forward_provider(geometry()), nullptr);
  EXPECT_EQ(forward_provider(geometry())->name(), "onednn");
  ASSERT_NE(backward_provider(geometry()), nullptr);
  EXPECT_EQ(backward_provider(geometry())->name(), "onednn");
  for (DType d : {kFloat64, kBFloat16, kFloat16, kInt32, kInt64, kInt8}) {
    EXPECT_EQ(forward_provider(geometry(), d), nullptr) << d;
    EXPECT_EQ(backward_provider(geometry(), d), nullptr) << d;
  }
  backends::onednn::set_enabled(false);
  EXPECT_EQ(forward_provider(geometry()), nullptr);
  EXPECT_EQ(backward_provider(geometry()), nullptr);
  backends::onednn::set_enabled(true);
}

TEST(ConvProviders, OneDnnLeavesTheReferenceWhatItDoesBetter) {
  // Note [onednn conv]: depthwise convolutions go to oneDNN; one input channel (the CNN's first layer),
  // pointwise convolutions, tiny calls and sizes beyond oneDNN's 32-bit indexing stay with im2col + GEMM.
  cpu::ConvGeometry dw{8, 32, 14, 14, 32, 32, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1, 14, 14};
  ASSERT_NE(forward_provider(dw), nullptr);
  EXPECT_EQ(forward_provider(dw)->name(), "onednn");
  cpu::ConvGeometry first{64, 1, 28, 28, 32, 1, 1, 32, 3, 3, 1, 1, 1, 1, 1, 1, 28, 28};
  EXPECT_EQ(forward_provider(first), nullptr);
  EXPECT_EQ(backward_provider(first), nullptr);
  cpu::ConvGeometry pointwise{64, 64, 14, 14, 128, 1, 64, 128, 1, 1, 1, 1, 0, 0, 1, 1, 14, 14};
  EXPECT_EQ(forward_provider(pointwise), nullptr);
  cpu::ConvGeometry tiny = geometry();
  tiny.N = 1;
  tiny.H = tiny.W = tiny.OH = tiny.OW = 2;
  EXPECT_EQ(forward_provider(tiny), nullptr);
  cpu::ConvGeometry huge_stride = geometry();
  huge_stride.sH = huge_stride.sW = int64_t{1} << 62;
  EXPECT_EQ(forward_provider(huge_stride), nullptr);
}

void expect_close(const Tensor& x, const Tensor& y, double tol = 1e-4) {
  ASSERT_TRUE(x.sizes().equals(y.sizes())) << x.sizes() << " vs " << y.sizes();
  auto a = values<double>(x.to(kFloat64)), b = values<double>(y.to(kFloat64));
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], tol * (1 + std::fabs(b[i]))) << i;
}

struct Case {
  std::vector<int64_t> input, weight;
  std::vector<int64_t> stride, padding, dilation;
  int64_t groups;
  bool bias;
};

TEST(ConvProviders, OneDnnMatchesReference) {
  manual_seed(3);
  // Each large enough for oneDNN to take it (Note [onednn conv]).
  const std::vector<Case> cases = {
      {{4, 16, 14, 13}, {32, 16, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true},
      {{8, 16, 19, 18}, {24, 8, 3, 2}, {2, 1}, {1, 0}, {1, 2}, 2, false},  // stride, dilation, groups
      {{16, 32, 15, 15}, {32, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 32, true},  // depthwise
      {{32, 16, 9, 9}, {32, 16, 1, 1}, {2, 2}, {1, 1}, {1, 1}, 1, true},   // 1x1 with stride and padding
      {{16, 16, 60}, {32, 16, 3}, {2}, {1}, {1}, 1, true},                  // 1-D
  };
  for (const Case& c : cases) {
    std::vector<int64_t> ws = c.weight, xs = c.input;
    if (ws.size() == 3) ws.insert(ws.begin() + 2, 1), xs.insert(xs.begin() + 2, 1);
    cpu::ConvGeometry g{xs[0], xs[1], xs[2], xs[3], ws[0], c.groups, ws[1], ws[0] / c.groups, ws[2], ws[3],
                        c.stride.front(), c.stride.back(), c.padding.front(), c.padding.back(),
                        c.dilation.front(), c.dilation.back(), 0, 0};
    g.OH = (g.H + 2 * g.pH - g.dH * (g.kH - 1) - 1) / g.sH + 1;
    g.OW = (g.W + 2 * g.pW - g.dW * (g.kW - 1) - 1) / g.sW + 1;
    ASSERT_NE(forward_provider(g), nullptr) << xs[1];
  }
  for (const Case& c : cases) {
    Tensor x = randn(c.input), w = randn(c.weight);
    std::optional<Tensor> bias;
    if (c.bias) bias = randn({c.weight[0]});
    auto run = [&] {
      Tensor y = convolution(x, w, bias, c.stride, c.padding, c.dilation, false,
                             std::vector<int64_t>(c.stride.size(), 0), c.groups);
      Tensor dy = randn(y.sizes());
      return std::make_pair(y, dy);
    };
    manual_seed(5);
    auto [y, dy] = run();
    auto grads = convolution_backward(dy, x, w, c.bias ? OptionalIntArrayRef(IntArrayRef{c.weight[0]}) : std::nullopt,
                                      c.stride, c.padding, c.dilation, false,
                                      std::vector<int64_t>(c.stride.size(), 0), c.groups, {true, true, c.bias});
    backends::onednn::set_enabled(false);
    manual_seed(5);
    auto [y_ref, dy_ref] = run();
    auto ref = convolution_backward(dy, x, w, c.bias ? OptionalIntArrayRef(IntArrayRef{c.weight[0]}) : std::nullopt,
                                    c.stride, c.padding, c.dilation, false,
                                    std::vector<int64_t>(c.stride.size(), 0), c.groups, {true, true, c.bias});
    backends::onednn::set_enabled(true);
    expect_close(y, y_ref);
    expect_close(std::get<0>(grads), std::get<0>(ref));
    expect_close(std::get<1>(grads), std::get<1>(ref));
    // Only one of the two gradients.
    auto only_w = convolution_backward(dy, x, w, std::nullopt, c.stride, c.padding, c.dilation, false,
                                       std::vector<int64_t>(c.stride.size(), 0), c.groups, {false, true, false});
    EXPECT_FALSE(std::get<0>(only_w).defined());
    expect_close(std::get<1>(only_w), std::get<1>(ref));
    auto only_x = convolution_backward(dy, x, w, std::nullopt, c.stride, c.padding, c.dilation, false,
                                       std::vector<int64_t>(c.stride.size(), 0), c.groups, {true, false, false});
    EXPECT_FALSE(std::get<1>(only_x).defined());
    expect_close(std::get<0>(only_x), std::get<0>(ref));
  }
}

}  // namespace
