// The loss modules: forward(input, target) gives the functional's recorded PyTorch value; class weights are
// buffers named as in Python; gradients; errors.
#include <gtest/gtest.h>

#include "TestSupport.h"
#include "ember/nn/nn.h"
#include "ember/ops/Operators.h"
#include "layer_fixtures.h"

namespace ember::testing {
namespace {

using namespace ember::nn;

TEST(LossModules, MatchTorch) {
  const Tensor x = fixture("loss.x"), t = fixture("loss.t"), cw = fixture("loss.cw"), y = fixture("loss.y");
  EXPECT_TRUE(close(CrossEntropyLoss()(x, t), fixture("loss.ce")));
  EXPECT_TRUE(close(CrossEntropyLoss(CrossEntropyLossOptions().weight(cw).reduction(ember::kSum))(x, t),
                    fixture("loss.ce_sum_w")));
  EXPECT_TRUE(close(CrossEntropyLoss(CrossEntropyLossOptions().label_smoothing(0.2))(x, fixture("loss.t_ign")),
                    fixture("loss.ce_ls")));
  EXPECT_TRUE(close(NLLLoss(NLLLossOptions().weight(cw))(ember::log_softmax(x, 1), fixture("loss.t_ign")),
                    fixture("loss.nll")));
  EXPECT_TRUE(close(MSELoss()(x, y), fixture("loss.mse")));
  EXPECT_TRUE(close(MSELoss(ember::kNone)(x, y), fixture("loss.mse_none")));
  EXPECT_TRUE(close(L1Loss(L1LossOptions().reduction(ember::kSum))(x, y), fixture("loss.l1_sum")));
  EXPECT_TRUE(close(SmoothL1Loss(SmoothL1LossOptions().beta(0.5))(x, y), fixture("loss.smooth_l1")));
  EXPECT_TRUE(close(HuberLoss(HuberLossOptions().delta(0.7))(x, y), fixture("loss.huber")));
  EXPECT_TRUE(close(BCELoss(BCELossOptions().weight(cw))(fixture("loss.p"), fixture("loss.tb")), fixture("loss.bce")));
  EXPECT_TRUE(close(BCEWithLogitsLoss(BCEWithLogitsLossOptions().pos_weight(fixture("loss.pw")).reduction(ember::kSum))(
                        x, fixture("loss.tb")),
                    fixture("loss.bce_logits"), 1e-5, 1e-5));
}

TEST(LossModules, WeightsAreBuffers) {
  // a copy of the weight: to() below converts the buffer in place
  CrossEntropyLoss ce(CrossEntropyLossOptions().weight(fixture("loss.cw").clone()));
  const auto buffers = ce->named_buffers();
  ASSERT_EQ(buffers.size(), 1u);
  EXPECT_EQ(buffers.keys()[0], "weight");
  EXPECT_EQ(ce->parameters().size(), 0u);
  BCEWithLogitsLoss bce(BCEWithLogitsLossOptions().weight(fixture("loss.cw")).pos_weight(fixture("loss.pw")));
  EXPECT_EQ(bce->named_buffers().keys(), (std::vector<std::string>{"weight", "pos_weight"}));
  EXPECT_EQ(MSELoss()->named_buffers().size(), 0u);
  // forward uses the buffer: converting the module converts the weight it applies
  ce->to(kFloat64);
  const Tensor loss = ce->forward(fixture("loss.x").to(kFloat64), fixture("loss.t"));
  EXPECT_EQ(loss.dtype(), kFloat64);
}

TEST(LossModules, GradientAndBatchOfOne) {
  const Tensor x = fixture_leaf("loss.x");
  CrossEntropyLoss ce(CrossEntropyLossOptions().weight(fixture("loss.cw")));
  autograd::backward({ce(x, fixture("loss.t"))});
  EXPECT_TRUE(close(autograd::grad(x), fixture("loss.ce_grad"), 1e-5, 1e-7));
  const Tensor x1 = ember::narrow(fixture("loss.x"), 0, 0, 1), t1 = ember::narrow(fixture("loss.t"), 0, 0, 1);
  EXPECT_TRUE(close(CrossEntropyLoss()(x1, t1), -ember::log_softmax(x1, 1).select(1, 0).reshape({})));
}

TEST(LossModules, Errors) {
  EMBER_EXPECT_ERROR(BCELoss()(fixture("loss.p"), ember::zeros({5})), Value,
                     "Using a target size ([5]) that is different to the input size ([5, 4])");
  EMBER_EXPECT_ERROR(CrossEntropyLoss()(fixture("loss.x"), ember::zeros({4}, kInt64)), Value,
                     "Expected input batch_size (5) to match target batch_size (4)");
}

}  // namespace
}  // namespace ember::testing
