// ember::nn::functional against PyTorch 1.13's torch.nn.functional (fixtures/make_layer_fixtures.py):
// activations, convolutions, pooling, normalizations, losses, linear/embedding/dropout/pad, with their
// options structs, gradients of a few, and the errors PyTorch raises before its ops.
#include <gtest/gtest.h>

#include "TestSupport.h"
#include "ember/nn/functional.h"
#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"
#include "layer_fixtures.h"

namespace F = ember::nn::functional;

namespace ember::testing {
namespace {

TEST(FunctionalOptions, DefaultsAndChaining) {
  // LibTorch's defaults
  const auto conv = ember::nn::Conv2dOptions(3, 8, {3, 5});
  EXPECT_EQ(*conv.kernel_size(), (std::array<int64_t, 2>{3, 5}));
  EXPECT_EQ(*conv.stride(), (std::array<int64_t, 2>{1, 1}));
  EXPECT_EQ(conv.groups(), 1);
  EXPECT_TRUE(conv.bias());
  EXPECT_TRUE(std::holds_alternative<ember::enumtype::kZeros>(conv.padding_mode()));
  EXPECT_EQ(ember::enum_name(conv.padding_mode()), "zeros");
  EXPECT_TRUE(std::holds_alternative<ember::enumtype::kMean>(F::CrossEntropyFuncOptions().reduction()));
  EXPECT_EQ(F::CrossEntropyFuncOptions().ignore_index(), -100);
  EXPECT_EQ(*F::MaxPool2dFuncOptions(3).stride(), (std::array<int64_t, 2>{3, 3}));  // stride = kernel
  EXPECT_DOUBLE_EQ(F::LeakyReLUFuncOptions().negative_slope(), 0.01);
  EXPECT_EQ(F::GELUFuncOptions().approximate(), "none");
  // setters chain and return the struct
  const auto opts = F::Conv2dFuncOptions().stride(2).padding({1, 0}).dilation(3).groups(2);
  EXPECT_EQ(*std::get<ember::ExpandingArray<2>>(opts.padding()), (std::array<int64_t, 2>{1, 0}));
  EXPECT_EQ(opts.dilation()[1], 3);
  EXPECT_TRUE(std::holds_alternative<ember::enumtype::kSame>(F::Conv1dFuncOptions().padding(ember::kSame).padding()));
  EXPECT_EQ(ember::enum_name(F::MSELossFuncOptions(ember::kSum).reduction()), "sum");
  // an ExpandingArray takes one value or exactly D
  EMBER_EXPECT_ERROR(ember::ExpandingArray<2>({1, 2, 3}), Value, "Expected 2 values, but instead got 3");
}

TEST(FunctionalActivation, MatchesTorch) {
  const Tensor x = fixture("act.x");
  EXPECT_TRUE(close(F::relu(x), fixture("act.relu")));
  EXPECT_TRUE(close(F::relu6(x), fixture("act.relu6")));
  EXPECT_TRUE(close(F::hardtanh(x, F::HardtanhFuncOptions().min_val(-0.5).max_val(0.7)), fixture("act.hardtanh")));
  EXPECT_TRUE(close(F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.2)), fixture("act.leaky_relu")));
  EXPECT_TRUE(close(F::elu(x, F::ELUFuncOptions().alpha(0.5)), fixture("act.elu")));
  EXPECT_TRUE(close(F::selu(x), fixture("act.selu")));
  EXPECT_TRUE(close(F::celu(x, F::CELUFuncOptions().alpha(1.5)), fixture("act.celu")));
  EXPECT_TRUE(close(F::gelu(x), fixture("act.gelu")));
  EXPECT_TRUE(close(F::gelu(x, F::GELUFuncOptions().approximate("tanh")), fixture("act.gelu_tanh")));
  EXPECT_TRUE(close(F::silu(x), fixture("act.silu")));
  EXPECT_TRUE(close(F::mish(x), fixture("act.mish")));
  EXPECT_TRUE(close(F::hardsigmoid(x), fixture("act.hardsigmoid")));
  EXPECT_TRUE(close(F::hardswish(x), fixture("act.hardswish")));
  EXPECT_TRUE(close(F::softplus(x, F::SoftplusFuncOptions().beta(2).threshold(3)), fixture("act.softplus")));
  EXPECT_TRUE(close(F::logsigmoid(x), fixture("act.logsigmoid")));
  EXPECT_TRUE(close(F::glu(ember::narrow(x, 1, 0, 4), F::GLUFuncOptions(1)), fixture("act.glu")));
  EXPECT_TRUE(close(F::glu(ember::narrow(x, 0, 0, 2), 0), fixture("act.glu0")));
  EXPECT_TRUE(close(F::threshold(x, F::ThresholdFuncOptions(0.1, 20.0)), fixture("act.threshold")));
  EXPECT_TRUE(close(F::sigmoid(x), fixture("act.sigmoid")));
  EXPECT_TRUE(close(F::tanh(x), fixture("act.tanh")));
  EXPECT_TRUE(close(F::softsign(x), fixture("act.softsign")));
  EXPECT_TRUE(close(F::tanhshrink(x), fixture("act.tanhshrink")));
  EXPECT_TRUE(close(F::softmax(x, F::SoftmaxFuncOptions(1)), fixture("act.softmax")));
  EXPECT_TRUE(close(F::softmin(x, 0), fixture("act.softmin")));
  EXPECT_TRUE(close(F::log_softmax(x, 1), fixture("act.log_softmax")));
  EXPECT_TRUE(close(F::log_softmax(x, F::LogSoftmaxFuncOptions(1).dtype(kFloat64)), fixture("act.log_softmax_f64")));
}

TEST(FunctionalActivation, Float64NonContiguous) {
  const Tensor xt = fixture("act.xd").t();
  ASSERT_FALSE(xt.is_contiguous());
  EXPECT_TRUE(close(F::elu(xt, F::ELUFuncOptions().alpha(0.5)), fixture("act.elu_f64_t"), 1e-12, 1e-14));
}

TEST(FunctionalActivation, InplaceOverwritesInput) {
  const Tensor x = fixture("act.x").clone();
  const Tensor y = F::relu(x, F::ReLUFuncOptions(true));
  EXPECT_TRUE(y.is_same(x));
  EXPECT_TRUE(close(x, fixture("act.relu")));
  const Tensor z = fixture("act.x").clone();
  F::leaky_relu(z, F::LeakyReLUFuncOptions().negative_slope(0.2).inplace(true));
  EXPECT_TRUE(close(z, fixture("act.leaky_relu")));
  // without inplace the input is untouched
  const Tensor w = fixture("act.x").clone();
  F::hardswish(w);
  EXPECT_TRUE(close(w, fixture("act.x"), 0, 0));
}

TEST(FunctionalActivation, Gradient) {
  const Tensor x = fixture_leaf("act.x");
  autograd::backward({F::mish(x).sum()});
  EXPECT_TRUE(close(autograd::grad(x), fixture("act.mish_grad"), 1e-5, 1e-6));
}

TEST(FunctionalActivation, Errors) {
  EMBER_EXPECT_ERROR(F::glu(ember::zeros({})), Runtime, "glu does not support scalars");
  EMBER_EXPECT_ERROR(F::glu(ember::zeros({2, 3})), Runtime, "glu");  // odd size along dim -1
}

TEST(FunctionalConv, MatchesTorch) {
  const Tensor x = fixture("conv.x"), w = fixture("conv.w"), b = fixture("conv.b");
  EXPECT_TRUE(close(F::conv2d(x, w, F::Conv2dFuncOptions().bias(b).stride(2).padding(1)), fixture("conv.s2p1"), 1e-5,
                    1e-5));
  EXPECT_TRUE(close(F::conv2d(x, w, F::Conv2dFuncOptions().padding(ember::kSame).dilation(2)),
                    fixture("conv.same_d2"), 1e-5, 1e-5));
  EXPECT_TRUE(close(F::conv2d(x, fixture("conv.wg"), F::Conv2dFuncOptions().stride({1, 2}).padding({0, 1}).groups(2)),
                    fixture("conv.groups2"), 1e-5, 1e-5));
  EXPECT_TRUE(close(F::conv1d(fixture("conv.x1"), fixture("conv.w1"), F::Conv1dFuncOptions().stride(2).padding(1)),
                    fixture("conv.conv1d"), 1e-5, 1e-5));
  const Tensor xt = fixture("conv.xt").transpose(2, 3);
  ASSERT_FALSE(xt.is_contiguous());
  EXPECT_TRUE(close(F::conv2d(xt, w, F::Conv2dFuncOptions().bias(b)), fixture("conv.noncontig"), 1e-5, 1e-5));
  // kValid is no padding
  EXPECT_TRUE(close(F::conv2d(x, w, F::Conv2dFuncOptions().padding(ember::kValid)), F::conv2d(x, w), 0, 0));
}

TEST(FunctionalConv, Gradients) {
  const Tensor x = fixture_leaf("conv.x"), w = fixture_leaf("conv.w"), b = fixture_leaf("conv.b");
  const Tensor y = F::conv2d(x, w, F::Conv2dFuncOptions().bias(b).stride(2).padding(1));
  autograd::backward({y}, {fixture("conv.grad_up")});
  EXPECT_TRUE(close(autograd::grad(x), fixture("conv.grad_x"), 1e-4, 1e-5));
  EXPECT_TRUE(close(autograd::grad(w), fixture("conv.grad_w"), 1e-4, 1e-5));
  EXPECT_TRUE(close(autograd::grad(b), fixture("conv.grad_b"), 1e-4, 1e-5));
}

TEST(FunctionalConv, ErrorsNameShapes) {
  const Tensor x = fixture("conv.x");
  // 4 input channels against a weight for 3
  EMBER_EXPECT_ERROR(F::conv2d(x, ember::zeros({6, 3, 3, 3})), Runtime,
                     "weight of size [6, 3, 3, 3], expected input[2, 4, 7, 6] to have 3 channels");
}

TEST(FunctionalPooling, MatchesTorch) {
  const Tensor x = fixture("pool.x");
  EXPECT_TRUE(close(F::max_pool2d(x, F::MaxPool2dFuncOptions(3).stride(2).padding(1).ceil_mode(true)),
                    fixture("pool.max")));
  auto [v, i] = F::max_pool2d_with_indices(x, F::MaxPool2dFuncOptions({2, 3}));
  EXPECT_TRUE(close(v, fixture("pool.max_v")));
  EXPECT_TRUE(close(i, fixture("pool.max_i"), 0, 0));
  EXPECT_TRUE(close(F::avg_pool2d(x, F::AvgPool2dFuncOptions(3).stride(2).padding(1).count_include_pad(false)),
                    fixture("pool.avg")));
  EXPECT_TRUE(close(F::avg_pool2d(x, F::AvgPool2dFuncOptions(2).divisor_override(3)), fixture("pool.avg_div")));
  EXPECT_TRUE(close(F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions({3, 5})), fixture("pool.adaptive")));
  EXPECT_TRUE(close(F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions({std::nullopt, 3})),
                    fixture("pool.adaptive_none")));
}

TEST(FunctionalPooling, Errors) {
  EMBER_EXPECT_ERROR(F::max_pool2d(ember::zeros({2, 5}), F::MaxPool2dFuncOptions(2)), Runtime, "max_pool2d");
  EMBER_EXPECT_ERROR(F::adaptive_avg_pool2d(ember::zeros({4, 4}), F::AdaptiveAvgPool2dFuncOptions({std::nullopt, 2})),
                     Value, "Input dimension should be at least 3");
}

TEST(FunctionalNorm, BatchNormTrainUpdatesRunningStatsThenEval) {
  const Tensor x = fixture("norm.x");
  const Tensor rm = ember::zeros({3}), rv = ember::ones({3});
  const auto opts = F::BatchNormFuncOptions().weight(fixture("norm.w")).bias(fixture("norm.b")).momentum(0.2);
  EXPECT_TRUE(close(F::batch_norm(x, rm, rv, F::BatchNormFuncOptions(opts).training(true)), fixture("norm.bn_train"),
                    1e-5, 1e-5));
  EXPECT_TRUE(close(rm, fixture("norm.bn_rm")));
  EXPECT_TRUE(close(rv, fixture("norm.bn_rv")));
  EXPECT_TRUE(close(F::batch_norm(x, rm, rv, opts), fixture("norm.bn_eval"), 1e-5, 1e-5));
}

TEST(FunctionalNorm, LayerGroupNormalize) {
  const Tensor x = fixture("norm.x");
  EXPECT_TRUE(close(F::layer_norm(x, F::LayerNormFuncOptions({5, 2})), fixture("norm.ln"), 1e-5, 1e-5));
  EXPECT_TRUE(close(F::layer_norm(x, F::LayerNormFuncOptions({5, 2}).weight(fixture("norm.lw")).bias(fixture("norm.lb"))
                                         .eps(1e-3)),
                    fixture("norm.ln_affine"), 1e-5, 1e-5));
  EXPECT_TRUE(close(F::group_norm(x.reshape({2, 6, 5, 2}), F::GroupNormFuncOptions(3).weight(fixture("norm.gw"))),
                    fixture("norm.gn"), 1e-5, 1e-5));
  EXPECT_TRUE(close(F::normalize(x, F::NormalizeFuncOptions().p(1).dim(2)), fixture("norm.normalize")));
}

TEST(FunctionalNorm, BatchNormGradients) {
  const Tensor x = fixture_leaf("norm.x"), w = fixture_leaf("norm.w"), b = fixture_leaf("norm.b");
  const Tensor y = F::batch_norm(x, Tensor(), Tensor(), F::BatchNormFuncOptions().weight(w).bias(b).training(true));
  autograd::backward({y}, {fixture("norm.grad_up")});
  EXPECT_TRUE(close(autograd::grad(x), fixture("norm.bn_grad_x"), 1e-4, 1e-5));
  EXPECT_TRUE(close(autograd::grad(w), fixture("norm.bn_grad_w"), 1e-4, 1e-5));
  EXPECT_TRUE(close(autograd::grad(b), fixture("norm.bn_grad_b"), 1e-4, 1e-5));
}

TEST(FunctionalNorm, Errors) {
  // training statistics of one value per channel
  EMBER_EXPECT_ERROR(F::batch_norm(ember::zeros({1, 3}), Tensor(), Tensor(), F::BatchNormFuncOptions().training(true)),
                     Value, "Expected more than 1 value per channel when training, got input size [1, 3]");
  EMBER_EXPECT_ERROR(F::group_norm(ember::zeros({1, 3}), 3), Value, "Expected more than 1 value per channel");
  EMBER_EXPECT_ERROR(F::layer_norm(ember::zeros({2, 3}), F::LayerNormFuncOptions({4})), Runtime, "layer_norm");
}

TEST(FunctionalLoss, MatchesTorch) {
  const Tensor x = fixture("loss.x"), t = fixture("loss.t"), cw = fixture("loss.cw");
  EXPECT_TRUE(close(F::cross_entropy(x, t), fixture("loss.ce")));
  EXPECT_TRUE(close(F::cross_entropy(x, t, F::CrossEntropyFuncOptions().weight(cw).reduction(ember::kSum)),
                    fixture("loss.ce_sum_w")));
  EXPECT_TRUE(close(F::cross_entropy(x, fixture("loss.t_ign"), F::CrossEntropyFuncOptions().label_smoothing(0.2)),
                    fixture("loss.ce_ls")));
  EXPECT_TRUE(close(F::cross_entropy(x, fixture("loss.probs"), F::CrossEntropyFuncOptions().reduction(ember::kNone)),
                    fixture("loss.ce_probs")));
  EXPECT_TRUE(close(F::nll_loss(F::log_softmax(x, 1), fixture("loss.t_ign"), F::NLLLossFuncOptions().weight(cw)),
                    fixture("loss.nll")));
  EXPECT_TRUE(close(F::cross_entropy(fixture("loss.x4"), fixture("loss.t4"),
                                     F::CrossEntropyFuncOptions().reduction(ember::kNone)),
                    fixture("loss.ce_4d")));
  const Tensor y = fixture("loss.y");
  EXPECT_TRUE(close(F::mse_loss(x, y), fixture("loss.mse")));
  EXPECT_TRUE(close(F::mse_loss(x, y, ember::kNone), fixture("loss.mse_none")));
  EXPECT_TRUE(close(F::l1_loss(x, y, F::L1LossFuncOptions(ember::kSum)), fixture("loss.l1_sum")));
  EXPECT_TRUE(close(F::smooth_l1_loss(x, y, F::SmoothL1LossFuncOptions().beta(0.5)), fixture("loss.smooth_l1")));
  EXPECT_TRUE(close(F::huber_loss(x, y, F::HuberLossFuncOptions().delta(0.7)), fixture("loss.huber")));
  const Tensor p = fixture("loss.p"), tb = fixture("loss.tb");
  EXPECT_TRUE(
      close(F::binary_cross_entropy(p, tb, F::BinaryCrossEntropyFuncOptions().weight(cw)), fixture("loss.bce")));
  EXPECT_TRUE(close(F::binary_cross_entropy_with_logits(
                        x, tb, F::BinaryCrossEntropyWithLogitsFuncOptions().pos_weight(fixture("loss.pw")).reduction(
                                   ember::kSum)),
                    fixture("loss.bce_logits"), 1e-5, 1e-5));
}

TEST(FunctionalLoss, BroadcastTargetAndBatchOfOne) {
  const Tensor x = fixture("loss.x"), y = fixture("loss.y");
  // a (4,) target broadcasts against (5, 4) as PyTorch's (which warns) does
  const Tensor row = ember::narrow(y, 0, 0, 1).reshape({4});
  const Tensor expected = ember::mean(ember::pow(x - row.expand({5, 4}), 2));
  EXPECT_TRUE(close(F::mse_loss(x, row), expected));
  const Tensor x1 = ember::narrow(x, 0, 0, 1), t1 = ember::narrow(fixture("loss.t"), 0, 0, 1);
  EXPECT_TRUE(close(F::cross_entropy(x1, t1, F::CrossEntropyFuncOptions().reduction(ember::kNone)).reshape({}),
                    F::cross_entropy(x1, t1)));
}

TEST(FunctionalLoss, CrossEntropyGradient) {
  const Tensor x = fixture_leaf("loss.x");
  autograd::backward({F::cross_entropy(x, fixture("loss.t"), F::CrossEntropyFuncOptions().weight(fixture("loss.cw")))});
  EXPECT_TRUE(close(autograd::grad(x), fixture("loss.ce_grad"), 1e-5, 1e-7));
}

TEST(FunctionalLoss, Errors) {
  const Tensor x = fixture("loss.x");
  EMBER_EXPECT_ERROR(F::binary_cross_entropy(fixture("loss.p"), ember::zeros({5})), Value,
                     "Using a target size ([5]) that is different to the input size ([5, 4])");
  EMBER_EXPECT_ERROR(F::binary_cross_entropy_with_logits(x, ember::zeros({4, 5})), Value,
                     "Target size ([4, 5]) must be the same as input size ([5, 4])");
  EMBER_EXPECT_ERROR(F::mse_loss(x, ember::zeros({3})), Runtime, "3");
  EMBER_EXPECT_ERROR(F::cross_entropy(x, ember::zeros({4}, kInt64)), Value,
                     "Expected input batch_size (5) to match target batch_size (4)");
}

TEST(FunctionalMisc, LinearEmbeddingDropoutPad) {
  const Tensor x = fixture("misc.x");
  EXPECT_TRUE(close(F::linear(x, fixture("misc.w"), fixture("misc.b")), fixture("misc.linear")));
  const Tensor idx = fixture("misc.idx");
  EXPECT_TRUE(close(F::embedding(idx, fixture("misc.ew"), F::EmbeddingFuncOptions().padding_idx(2)),
                    fixture("misc.embedding")));
  const Tensor ew = fixture("misc.ew").clone();
  EXPECT_TRUE(close(F::embedding(idx, ew, F::EmbeddingFuncOptions().max_norm(1.0)), fixture("misc.embedding_maxnorm")));
  EXPECT_TRUE(close(ew, fixture("misc.ew_renormed")));
  ember::manual_seed(7);
  EXPECT_TRUE(close(F::dropout(x, F::DropoutFuncOptions().p(0.3)), fixture("misc.dropout")));
  EXPECT_TRUE(F::dropout(x, F::DropoutFuncOptions().training(false)).is_same(x));
  EXPECT_TRUE(close(F::pad(x.reshape({1, 3, 4}), F::PadFuncOptions({2, 1}).mode(ember::kReflect)),
                    fixture("misc.pad_reflect")));
  EXPECT_TRUE(close(F::pad(x, F::PadFuncOptions({1, 1, 0, 2}).value(1.5)), fixture("misc.pad_const")));
}

TEST(FunctionalMisc, Errors) {
  EMBER_EXPECT_ERROR(F::dropout(ember::zeros({2}), F::DropoutFuncOptions().p(1.5)), Value,
                     "dropout probability has to be between 0 and 1, but got 1.5");
  EMBER_EXPECT_ERROR(F::embedding(fixture("misc.idx"), fixture("misc.ew"), F::EmbeddingFuncOptions().padding_idx(6)),
                     Value, "padding_idx (6) must be within num_embeddings (6)");
  EMBER_EXPECT_ERROR(F::embedding(ember::full({1}, 9, kInt64), fixture("misc.ew")), Index, "");
  EMBER_EXPECT_ERROR(F::linear(fixture("misc.x"), ember::zeros({5, 3})), Runtime, "linear");
}

}  // namespace
}  // namespace ember::testing
