// The further losses of ember::nn (KLDivLoss, the margin, hinge and triplet losses, CTCLoss, PoissonNLLLoss,
// GaussianNLLLoss, ...), EmbeddingBag and AdaptiveLogSoftmaxWithLoss against PyTorch 1.13
// (fixtures/more_losses.ember, written by fixtures/make_more_losses_fixtures.py): every reduction's value and
// the gradients w.r.t. the inputs, printing as Python's, initial values under a seed, and errors that name the
// function and the shapes.
#include <gtest/gtest.h>

#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "TestSupport.h"
#include "ember/autograd/autograd.h"
#include "ember/nn/nn.h"
#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"
#include "layer_fixtures.h"

namespace ember::testing {
namespace {

using namespace ember::nn;
namespace F = ember::nn::functional;

const char* const kFile = "more_losses.ember";

Tensor fx(const std::string& name) { return fixture_from(kFile, name); }

// A copy of fx(name) that requires grad.
Tensor fixture_leaf_from(const std::string& name) {
  Tensor t = fx(name).clone();
  autograd::set_requires_grad(t, true);
  return t;
}

template <typename M>
std::string printed(const M& m) {
  std::ostringstream s;
  s << *m;
  return s.str();
}

reduction_t reduction(const std::string& r) {
  if (r == "none") return ember::kNone;
  if (r == "sum") return ember::kSum;
  return ember::kMean;
}

KLDivLossOptions::reduction_t kl_reduction(const std::string& r) {
  if (r == "batchmean") return ember::kBatchMean;
  if (r == "none") return ember::kNone;
  if (r == "sum") return ember::kSum;
  return ember::kMean;
}

Tensor sq_distance(const Tensor& x, const Tensor& y) { return (x - y).pow(2).sum({-1}); }

// A recorded loss case: the module call for a reduction, the inputs that get gradients, the reductions.
struct LossCase {
  std::string name;
  std::function<Tensor(const std::string&, const std::vector<Tensor>&)> call;
  std::vector<int> grads;
  std::vector<std::string> reductions = {"none", "mean", "sum"};
};

std::vector<LossCase> loss_cases() {
  const Tensor w5 = fx("weight5");
  const std::vector<std::string> kl = {"none", "batchmean", "sum", "mean"};
  using X = const std::vector<Tensor>&;
  using R = const std::string&;
  return {
      {"kl", [](R r, X x) { return KLDivLoss(KLDivLossOptions().reduction(kl_reduction(r)))(x[0], x[1]); }, {0, 1}, kl},
      {"kl_logt",
       [](R r, X x) { return KLDivLoss(KLDivLossOptions().reduction(kl_reduction(r)).log_target(true))(x[0], x[1]); },
       {0, 1},
       kl},
      {"hinge",
       [](R r, X x) {
         return HingeEmbeddingLoss(HingeEmbeddingLossOptions().margin(0.5).reduction(reduction(r)))(x[0], x[1]);
       },
       {0}},
      {"multi_margin",
       [](R r, X x) { return MultiMarginLoss(MultiMarginLossOptions().reduction(reduction(r)))(x[0], x[1]); },
       {0}},
      {"multi_margin_p2w",
       [w5](R r, X x) {
         return MultiMarginLoss(MultiMarginLossOptions().p(2).margin(0.7).weight(w5).reduction(reduction(r)))(x[0],
                                                                                                              x[1]);
       },
       {0}},
      {"cosine_emb",
       [](R r, X x) {
         return CosineEmbeddingLoss(CosineEmbeddingLossOptions().margin(0.2).reduction(reduction(r)))(x[0], x[1], x[2]);
       },
       {0, 1}},
      {"multilabel_margin",
       [](R r, X x) { return MultiLabelMarginLoss(MultiLabelMarginLossOptions().reduction(reduction(r)))(x[0], x[1]); },
       {0}},
      {"soft_margin", [](R r, X x) { return SoftMarginLoss(reduction(r))(x[0], x[1]); }, {0}},
      {"multilabel_soft_margin",
       [w5](R r, X x) {
         return MultiLabelSoftMarginLoss(MultiLabelSoftMarginLossOptions().weight(w5).reduction(reduction(r)))(x[0],
                                                                                                               x[1]);
       },
       {0}},
      {"triplet",
       [](R r, X x) {
         return TripletMarginLoss(TripletMarginLossOptions().margin(0.8).reduction(reduction(r)))(x[0], x[1], x[2]);
       },
       {0, 1, 2}},
      {"triplet_p1_swap",
       [](R r, X x) {
         return TripletMarginLoss(TripletMarginLossOptions().margin(2.0).p(1.0).swap(true).reduction(reduction(r)))(
             x[0], x[1], x[2]);
       },
       {0, 1, 2}},
      {"triplet_dist",
       [](R r, X x) {
         return TripletMarginWithDistanceLoss(TripletMarginWithDistanceLossOptions().reduction(reduction(r)))(
             x[0], x[1], x[2]);
       },
       {0, 1, 2}},
      {"triplet_dist_fn",
       [](R r, X x) {
         return TripletMarginWithDistanceLoss(TripletMarginWithDistanceLossOptions()
                                                  .distance_function(sq_distance)
                                                  .margin(4.0)
                                                  .swap(true)
                                                  .reduction(reduction(r)))(x[0], x[1], x[2]);
       },
       {0, 1, 2}},
      // CTC's first input is the logits: the loss takes log_softmax(logits, 2), as the fixture does
      {"ctc",
       [](R r, X x) {
         return CTCLoss(CTCLossOptions().reduction(reduction(r)))(ember::log_softmax(x[0], 2), x[1], x[2], x[3]);
       },
       {0}},
      {"ctc_concat",
       [](R r, X x) {
         return CTCLoss(CTCLossOptions().blank(3).reduction(reduction(r)))(ember::log_softmax(x[0], 2), x[1], x[2],
                                                                           x[3]);
       },
       {0}},
      {"ctc_zinf",
       [](R r, X x) {
         return CTCLoss(CTCLossOptions().zero_infinity(true).reduction(reduction(r)))(ember::log_softmax(x[0], 2), x[1],
                                                                                      x[2], x[3]);
       },
       {0}},
      {"poisson",
       [](R r, X x) { return PoissonNLLLoss(PoissonNLLLossOptions().reduction(reduction(r)))(x[0], x[1]); },
       {0}},
      {"poisson_full",
       [](R r, X x) {
         return PoissonNLLLoss(PoissonNLLLossOptions().log_input(false).full(true).reduction(reduction(r)))(x[0], x[1]);
       },
       {0}},
      {"margin_ranking",
       [](R r, X x) {
         return MarginRankingLoss(MarginRankingLossOptions().margin(0.3).reduction(reduction(r)))(x[0], x[1], x[2]);
       },
       {0, 1}},
      {"gaussian",
       [](R r, X x) { return GaussianNLLLoss(GaussianNLLLossOptions().reduction(reduction(r)))(x[0], x[1], x[2]); },
       {0, 2}},
      {"gaussian_full_hom",
       [](R r, X x) {
         return GaussianNLLLoss(GaussianNLLLossOptions().full(true).eps(0.05).reduction(reduction(r)))(x[0], x[1],
                                                                                                       x[2]);
       },
       {0, 2}},
  };
}

// The case's recorded inputs, those in `grads` as leaves that require grad.
std::vector<Tensor> case_inputs(const LossCase& c) {
  std::vector<Tensor> inputs;
  for (int i = 0;; ++i) {
    const std::string key = c.name + ".x" + std::to_string(i);
    if (!fixture_has(kFile, key)) break;
    inputs.push_back(fx(key).clone());
  }
  for (int i : c.grads) autograd::set_requires_grad(inputs[i], true);
  return inputs;
}

TEST(MoreLosses, EveryReductionAndGradientMatchTorch) {
  for (const LossCase& c : loss_cases()) {
    for (const std::string& r : c.reductions) {
      SCOPED_TRACE(c.name + " reduction " + r);
      const std::vector<Tensor> inputs = case_inputs(c);
      const Tensor out = c.call(r, inputs);
      EXPECT_TRUE(close(out, fx(c.name + "." + r + ".out"), 1e-4, 1e-5));
      out.sum().backward();
      for (int i : c.grads) {
        SCOPED_TRACE("gradient of input " + std::to_string(i));
        EXPECT_TRUE(close(inputs[i].grad(), fx(c.name + "." + r + ".g" + std::to_string(i)), 1e-4, 1e-5));
      }
    }
  }
}

TEST(MoreLosses, PrintAsPython) {
  const auto repr = [](const std::string& name) { return fixture_repr_from(kFile, name); };
  EXPECT_EQ(printed(KLDivLoss()), repr("kl"));
  EXPECT_EQ(printed(HingeEmbeddingLoss()), repr("hinge"));
  EXPECT_EQ(printed(MultiMarginLoss()), repr("multi_margin"));
  EXPECT_EQ(printed(CosineEmbeddingLoss()), repr("cosine_emb"));
  EXPECT_EQ(printed(MultiLabelMarginLoss()), repr("multilabel_margin"));
  EXPECT_EQ(printed(SoftMarginLoss()), repr("soft_margin"));
  EXPECT_EQ(printed(MultiLabelSoftMarginLoss()), repr("multilabel_soft_margin"));
  EXPECT_EQ(printed(TripletMarginLoss()), repr("triplet"));
  EXPECT_EQ(printed(TripletMarginWithDistanceLoss()), repr("triplet_dist"));
  EXPECT_EQ(printed(CTCLoss()), repr("ctc"));
  EXPECT_EQ(printed(PoissonNLLLoss()), repr("poisson"));
  EXPECT_EQ(printed(MarginRankingLoss()), repr("margin_ranking"));
  EXPECT_EQ(printed(GaussianNLLLoss()), repr("gaussian"));
}

TEST(MoreLosses, UnbatchedCTCIsTheBatchOfOne) {
  // (T, C) log_probs with an (S) target: the loss of the first sample of the recorded batch
  const Tensor lp = ember::log_softmax(fx("ctc.x0"), 2).select(1, 0);
  const Tensor target = fx("ctc.x1").select(0, 0);
  const Tensor loss = CTCLoss(CTCLossOptions().reduction(ember::kNone))(lp, target, fx("ctc.x2").slice(0, 0, 1),
                                                                        fx("ctc.x3").slice(0, 0, 1));
  EXPECT_EQ(loss.dim(), 0);
  EXPECT_TRUE(close(loss, fx("ctc.none.out").select(0, 0), 1e-4, 1e-5));
}

TEST(MoreLosses, WeightsAreBuffers) {
  MultiMarginLoss loss(MultiMarginLossOptions().weight(fx("weight5")));
  ASSERT_EQ(loss->named_buffers().size(), 1u);
  EXPECT_EQ(loss->named_buffers().keys()[0], "weight");
  MultiLabelSoftMarginLoss soft(MultiLabelSoftMarginLossOptions().weight(fx("weight5")));
  EXPECT_EQ(soft->named_buffers().keys()[0], "weight");
}

TEST(MoreLosses, FunctionalFormsUseLibTorchNames) {
  const Tensor x = fx("kl.x0"), y = fx("kl.x1");
  EXPECT_TRUE(close(F::kl_div(x, y, F::KLDivFuncOptions().reduction(ember::kBatchMean)), fx("kl.batchmean.out")));
  EXPECT_TRUE(close(F::kl_div(x, y, ember::kSum), fx("kl.sum.out")));
  EXPECT_TRUE(close(F::multilabel_margin_loss(fx("multilabel_margin.x0"), fx("multilabel_margin.x1"),
                                              F::MultilabelMarginLossFuncOptions(ember::kNone)),
                    fx("multilabel_margin.none.out")));
  EXPECT_TRUE(close(F::multilabel_soft_margin_loss(fx("multilabel_soft_margin.x0"), fx("multilabel_soft_margin.x1"),
                                                   F::MultilabelSoftMarginLossFuncOptions().weight(fx("weight5"))),
                    fx("multilabel_soft_margin.mean.out"), 1e-5, 1e-6));
  EXPECT_TRUE(close(F::margin_ranking_loss(fx("margin_ranking.x0"), fx("margin_ranking.x1"), fx("margin_ranking.x2"),
                                           F::MarginRankingLossFuncOptions().margin(0.3)),
                    fx("margin_ranking.mean.out")));
  EXPECT_TRUE(close(F::ctc_loss(ember::log_softmax(fx("ctc.x0"), 2), fx("ctc.x1"), fx("ctc.x2"), fx("ctc.x3"),
                                F::CTCLossFuncOptions().reduction(ember::kSum)),
                    fx("ctc.sum.out"), 1e-4, 1e-5));
  EXPECT_TRUE(
      close(F::gaussian_nll_loss(fx("gaussian.x0"), fx("gaussian.x1"), fx("gaussian.x2")), fx("gaussian.mean.out")));
}

TEST(MoreLosses, ShapeErrorsNameTheFunctionAndShapes) {
  const Tensor a = ember::zeros({2, 3}), b = ember::zeros({2, 4});
  EMBER_EXPECT_ERROR(KLDivLoss()(a, b), Runtime,
                     "kl_div: input [2, 3] and target [2, 4] do not broadcast: The size of tensor a (3) must match "
                     "the size of tensor b (4) at non-singleton dimension 1");
  EMBER_EXPECT_ERROR(HingeEmbeddingLoss()(a, b), Runtime, "hinge_embedding_loss: input [2, 3] and target [2, 4]");
  EMBER_EXPECT_ERROR(SoftMarginLoss()(a, b), Runtime, "soft_margin_loss: input [2, 3] and target [2, 4]");
  EMBER_EXPECT_ERROR(MultiLabelSoftMarginLoss()(a, b), Runtime,
                     "multilabel_soft_margin_loss: input [2, 3] and target [2, 4]");
  EMBER_EXPECT_ERROR(PoissonNLLLoss()(a, b), Runtime, "poisson_nll_loss: input [2, 3] and target [2, 4]");
  EMBER_EXPECT_ERROR(MultiMarginLoss()(a, ember::zeros({3}, kInt64)), Runtime,
                     "multi_margin_loss: inconsistent target size, got: [3] for input [2, 3]; expected 2 target(s)");
  EMBER_EXPECT_ERROR(MultiLabelMarginLoss()(a, ember::zeros({2, 4}, kInt64)), Runtime,
                     "multilabel_margin_loss: inconsistent size [2, 4] for argument #2 'target'; expected input's "
                     "size [2, 3]");
  EMBER_EXPECT_ERROR(CosineEmbeddingLoss()(a, b, ember::ones({2})), Runtime,
                     "cosine_embedding_loss: input1 [2, 3] and input2 [2, 4] do not broadcast");
  EMBER_EXPECT_ERROR(CosineEmbeddingLoss()(a, a, ember::ones({2, 1})), Runtime,
                     "cosine_embedding_loss: 0D or 1D target tensor expected");
  EMBER_EXPECT_ERROR(TripletMarginLoss()(a, a, ember::zeros({2})), Runtime,
                     "triplet_margin_loss: All inputs should have same dimension but got 2D, 2D and 1D inputs");
  EMBER_EXPECT_ERROR(TripletMarginLoss()(a, b, a), Runtime,
                     "pairwise_distance: x1 of shape [2, 3] and x2 of shape [2, 4] do not broadcast");
  EMBER_EXPECT_ERROR(TripletMarginWithDistanceLoss()(a, a, b), Runtime,
                     "pairwise_distance: x1 of shape [2, 3] and x2 of shape [2, 4] do not broadcast");
  EMBER_EXPECT_ERROR(MarginRankingLoss()(ember::zeros({3}), ember::zeros({3}), ember::ones({3, 1})), Runtime,
                     "margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: [3], "
                     "input2: [3], target: [3, 1]");
  EMBER_EXPECT_ERROR(GaussianNLLLoss()(a, a, ember::ones({2, 2})), Value,
                     "gaussian_nll_loss: var is of incorrect size [2, 2] for input [2, 3]");
  EMBER_EXPECT_ERROR(GaussianNLLLoss()(a, a, -ember::ones({2, 3})), Value, "var has negative entry");
  const Tensor lp = ember::log_softmax(fx("ctc.x0"), 2);
  EMBER_EXPECT_ERROR(CTCLoss()(lp, ember::zeros({3, 3}, kInt64), fx("ctc.x2"), fx("ctc.x3")), Runtime,
                     "ctc_loss: Expected tensor to have size 2 at dimension 0, but got size 3 for argument #2 "
                     "'targets' of shape [3, 3]");
  EMBER_EXPECT_ERROR(CTCLoss()(lp, fx("ctc.x1"), ember::full({2}, 7, kInt64), fx("ctc.x3")), Runtime,
                     "ctc_loss: Expected input_lengths to have value at most 6, but got value 7");
  EMBER_EXPECT_ERROR(CTCLoss(CTCLossOptions().blank(4))(lp, fx("ctc.x1"), fx("ctc.x2"), fx("ctc.x3")), Runtime,
                     "ctc_loss: blank must be in label range [0, 4), got 4");
}

TEST(MoreLosses, TripletMarginWithDistanceLossHoldsItsDefaultDistance) {
  // as Python's: the default distance is a PairwiseDistance submodule; a given function is not a module
  EXPECT_EQ(TripletMarginWithDistanceLoss()->named_children().size(), 1u);
  EXPECT_EQ(
      printed(TripletMarginWithDistanceLoss(TripletMarginWithDistanceLossOptions().distance_function(sq_distance))),
      "TripletMarginWithDistanceLoss()");
}

// A copy of the recorded EmbeddingBag table that requires grad, as the bag's weight.
EmbeddingBag bag_of(EmbeddingBagMode mode, EmbeddingBagFromPretrainedOptions options = {}) {
  return EmbeddingBag::from_pretrained(fx("bag.weight").clone(), options.freeze(false).mode(mode));
}

TEST(EmbeddingBagModule, InitialWeightAndReprMatchPython) {
  manual_seed(0);
  EmbeddingBag bag(EmbeddingBagOptions(10, 3).mode(ember::kSum));
  EXPECT_TRUE(close(bag->weight, fx("bag.init_weight"), 0, 0));
  EXPECT_EQ(printed(bag), fixture_repr_from(kFile, "bag.sum"));
  EmbeddingBag padded(EmbeddingBagOptions(10, 3).max_norm(1.5).padding_idx(-8));
  EXPECT_EQ(printed(padded), fixture_repr_from(kFile, "bag.pad"));
  EXPECT_EQ(*padded->options.padding_idx(), 2);
  EXPECT_TRUE(close(padded->weight.select(0, 2), ember::zeros({3}), 0, 0));
}

TEST(EmbeddingBagModule, EachModeWithOffsetsMatchesTorch) {
  const Tensor indices = fx("bag.indices"), offsets = fx("bag.offsets");
  const std::vector<std::pair<std::string, EmbeddingBagMode>> modes = {
      {"sum", ember::kSum}, {"mean", ember::kMean}, {"max", ember::kMax}};
  for (const auto& [name, mode] : modes) {
    SCOPED_TRACE(name);
    EmbeddingBag bag = bag_of(mode);
    const Tensor out = bag(indices, offsets);
    EXPECT_TRUE(close(out, fx("bag." + name + ".out")));
    out.sum().backward();
    EXPECT_TRUE(close(bag->weight.grad(), fx("bag." + name + ".gw")));
  }
}

TEST(EmbeddingBagModule, PerSampleWeights2dInputPaddingAndLastOffset) {
  const Tensor indices = fx("bag.indices"), offsets = fx("bag.offsets");
  {
    EmbeddingBag bag = bag_of(ember::kSum);
    const Tensor w = fx("bag.psw").clone();
    autograd::set_requires_grad(w, true);
    const Tensor out = bag(indices, offsets, w);
    EXPECT_TRUE(close(out, fx("bag.psw.out")));
    (out * ember::arange(1.0, 4.0, 1.0)).sum().backward();
    EXPECT_TRUE(close(bag->weight.grad(), fx("bag.psw.gw")));
    EXPECT_TRUE(close(w.grad(), fx("bag.psw.gpsw")));
  }
  {
    EmbeddingBag bag = bag_of(ember::kMean);
    const Tensor out = bag(fx("bag.input2d"));
    EXPECT_TRUE(close(out, fx("bag.2d.out")));
    out.sum().backward();
    EXPECT_TRUE(close(bag->weight.grad(), fx("bag.2d.gw")));
  }
  std::vector<std::pair<std::string, EmbeddingBag>> cases = {
      {"pad", bag_of(ember::kMean, EmbeddingBagFromPretrainedOptions().padding_idx(2))},
      {"last", bag_of(ember::kSum, EmbeddingBagFromPretrainedOptions().include_last_offset(true))}};
  for (auto& [name, bag] : cases) {
    SCOPED_TRACE(name);
    const Tensor out = bag->forward(indices, offsets);
    EXPECT_TRUE(close(out, fx("bag." + name + ".out")));
    out.sum().backward();
    EXPECT_TRUE(close(bag->weight.grad(), fx("bag." + name + ".gw")));
  }
  EXPECT_TRUE(
      close(F::embedding_bag(
                indices, fx("bag.weight"),
                F::EmbeddingBagFuncOptions().offsets(offsets).mode(ember::kSum).per_sample_weights(fx("bag.psw"))),
            fx("bag.fn_sum")));
}

TEST(EmbeddingBagModule, FromPretrainedSharesAndFreezes) {
  const Tensor table = fx("bag.weight").clone();
  EmbeddingBag bag = EmbeddingBag::from_pretrained(table);
  EXPECT_TRUE(bag->weight.is_same(table));
  EXPECT_FALSE(bag->weight.requires_grad());
  EXPECT_EQ(bag->named_parameters().keys()[0], "weight");
}

TEST(EmbeddingBagModule, Errors) {
  EmbeddingBag bag = bag_of(ember::kMean);
  const Tensor indices = fx("bag.indices"), offsets = fx("bag.offsets");
  EMBER_EXPECT_ERROR(bag(indices, offsets, ember::ones({3})), Value,
                     "embedding_bag: If per_sample_weights ([3]) is not None, then it must have the same shape as the "
                     "input ([8])");
  EMBER_EXPECT_ERROR(bag(indices, offsets, ember::ones({8})), NotImplemented,
                     "per_sample_weights is only supported for mode='sum' (got mode='mean')");
  EMBER_EXPECT_ERROR(bag(indices), Value, "embedding_bag: offsets has to be a 1D Tensor but got None (input [8])");
  EMBER_EXPECT_ERROR(bag(fx("bag.input2d"), offsets), Value, "if input is 2D, then offsets has to be None");
  EMBER_EXPECT_ERROR(bag(indices.reshape({2, 2, 2})), Value,
                     "embedding_bag: input has to be 1D or 2D Tensor, but got Tensor of dimension 3 (shape [2, 2, 2])");
  EMBER_EXPECT_ERROR(bag(indices, ember::full({2}, 1, kInt64)), Runtime, "offsets[0] has to be 0");
  EMBER_EXPECT_ERROR(bag(indices + 5, offsets), Runtime,
                     "embedding_bag: index 14 is out of bounds for a weight of 10 rows");
  EMBER_EXPECT_ERROR(EmbeddingBag(EmbeddingBagOptions(4, 2).padding_idx(4)), Value,
                     "EmbeddingBag: padding_idx must be within num_embeddings (4), got 4");
}

// The module with PyTorch's parameters, drawn under seed 0 as the fixture's.
AdaptiveLogSoftmaxWithLoss recorded_asm() {
  manual_seed(0);
  return AdaptiveLogSoftmaxWithLoss(AdaptiveLogSoftmaxWithLossOptions(8, 10, {3, 6}).div_value(2.0).head_bias(true));
}

TEST(AdaptiveLogSoftmax, ParametersInitialValuesAndReprMatchPython) {
  AdaptiveLogSoftmaxWithLoss m = recorded_asm();
  const std::vector<std::string> names = {"head.weight",     "head.bias",       "tail.0.0.weight",
                                          "tail.0.1.weight", "tail.1.0.weight", "tail.1.1.weight"};
  const auto params = m->named_parameters();
  ASSERT_EQ(params.keys(), names);
  for (const auto& name : names) EXPECT_TRUE(close(params[name], fx("asm.param." + name), 0, 0)) << name;
  EXPECT_EQ(printed(m), fixture_repr_from(kFile, "asm"));
  EXPECT_EQ(m->head_size, 5);
  EXPECT_EQ(m->cutoffs, (std::vector<int64_t>{3, 6, 10}));
}

TEST(AdaptiveLogSoftmax, OutputLossLogProbPredictAndGradientsMatchTorch) {
  AdaptiveLogSoftmaxWithLoss m = recorded_asm();
  const Tensor x = fixture_leaf_from("asm.x");
  const ASMoutput res = m(x, fx("asm.target"));
  EXPECT_TRUE(close(res.output, fx("asm.output")));
  EXPECT_TRUE(close(res.loss, fx("asm.loss")));
  res.loss.backward();
  EXPECT_TRUE(close(x.grad(), fx("asm.gx")));
  for (const auto& item : m->named_parameters()) {
    EXPECT_TRUE(close(item.value().grad(), fx("asm.grad." + item.key()))) << item.key();
  }
  EXPECT_TRUE(close(m->log_prob(x), fx("asm.log_prob")));
  EXPECT_TRUE(close(m->predict(x), fx("asm.predict"), 0, 0));
  const ASMoutput one = m(fx("asm.x1"), ember::full({1}, 5, kInt64).reshape({}));
  EXPECT_TRUE(close(one.output, fx("asm.output1")));
  EXPECT_TRUE(close(one.loss, fx("asm.loss1")));
}

TEST(AdaptiveLogSoftmax, Errors) {
  EMBER_EXPECT_ERROR(AdaptiveLogSoftmaxWithLoss(AdaptiveLogSoftmaxWithLossOptions(8, 10, {3, 3})), Value,
                     "AdaptiveLogSoftmaxWithLoss: cutoffs should be a sequence of unique, positive integers");
  EMBER_EXPECT_ERROR(AdaptiveLogSoftmaxWithLoss(AdaptiveLogSoftmaxWithLossOptions(8, 10, {3, 10})), Value,
                     "got [3, 10] for n_classes 10");
  AdaptiveLogSoftmaxWithLoss m(AdaptiveLogSoftmaxWithLossOptions(8, 10, {3, 6}));
  EMBER_EXPECT_ERROR(m(ember::zeros({4, 8}), ember::zeros({3}, kInt64)), Runtime,
                     "AdaptiveLogSoftmaxWithLoss: Input and target should have the same size in the batch dimension; "
                     "got input [4, 8] and target [3]");
  EMBER_EXPECT_ERROR(m(ember::zeros({8}), ember::zeros({1}, kInt64)), Runtime,
                     "1D target tensor expects 2D input tensors, but found inputs with size [8]");
  EMBER_EXPECT_ERROR(m(ember::zeros({2, 8}), ember::full({2}, 10, kInt64)), Runtime,
                     "Target values should be in [0, 9], but values in range [10, 10] were found.");
}

}  // namespace
}  // namespace ember::testing
