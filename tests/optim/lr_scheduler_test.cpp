// The C++ learning-rate schedulers against the lr sequences recorded from PyTorch 1.13
// (fixtures/make_fixtures.py: an SGD with momentum 0.9 over two groups of lr 0.1 and 0.05, stepped once per
// scheduler step). The formulas are Python's term for term, so the values agree exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "OptimTestSupport.h"

namespace ember::optim {
namespace {

using namespace ember::optim::testing;

// The optimizer of the recorded schedules: two groups (lr 0.1 and 0.05), SGD with momentum or Adam.
struct TwoGroups {
  explicit TwoGroups(bool adam = false) {
    p0 = zeros({2});
    p1 = zeros({3});
    autograd::set_requires_grad(p0, true);
    autograd::set_requires_grad(p1, true);
    if (adam) {
      auto second = std::make_unique<AdamOptions>(0.05);
      opt = std::make_unique<Adam>(std::vector<OptimizerParamGroup>{OptimizerParamGroup({p0}),
                                                                    OptimizerParamGroup({p1}, std::move(second))},
                                   AdamOptions(0.1));
    } else {
      auto second = std::make_unique<SGDOptions>(SGDOptions(0.05).momentum(0.9));
      opt = std::make_unique<SGD>(std::vector<OptimizerParamGroup>{OptimizerParamGroup({p0}),
                                                                   OptimizerParamGroup({p1}, std::move(second))},
                                  SGDOptions(0.1).momentum(0.9));
    }
  }
  std::vector<double> lrs() const {
    std::vector<double> out;
    for (const auto& g : opt->param_groups()) out.push_back(g.options().get_lr());
    return out;
  }
  std::vector<double> momentums() const {
    std::vector<double> out;
    for (const auto& g : opt->param_groups()) {
      IValue m = g.options().has("betas") ? g.get("betas").to_list()[0] : g.get("momentum");
      out.push_back(m.to_double());
    }
    return out;
  }
  Tensor p0, p1;
  std::unique_ptr<Optimizer> opt;
};

std::vector<double> doubles(const IValue& list) {
  std::vector<double> out;
  for (const IValue& v : list.to_list()) out.push_back(v.to_double());
  return out;
}

// Replays a recorded schedule: `step` advances the scheduler once; the groups' lrs (and momentums when
// `momentums`) after construction and after each step equal PyTorch's exactly.
void expect_schedule(const std::string& name, TwoGroups& t, const std::function<void(int64_t)>& step,
                     bool momentums = false) {
  const IValue& c = at(fixture("schedulers.ember"), name);
  const auto& lrs = at(c, "lrs").to_list();
  const auto& moms = at(c, "momentums").to_list();
  EXPECT_EQ(t.lrs(), doubles(lrs[0])) << name << " after construction";
  if (momentums) {
    EXPECT_EQ(t.momentums(), doubles(moms[0])) << name;
  }
  for (size_t i = 1; i < lrs.size(); ++i) {
    t.opt->step();
    step(int64_t(i) - 1);
    EXPECT_EQ(t.lrs(), doubles(lrs[i])) << name << " after step " << i;
    if (momentums) {
      EXPECT_EQ(t.momentums(), doubles(moms[i])) << name << " after step " << i;
    }
  }
}

TEST(LRScheduler, LambdaLR) {
  TwoGroups t;
  LambdaLR s(*t.opt, [](int64_t epoch) { return std::pow(0.95, double(epoch)); });
  expect_schedule("lambda", t, [&](int64_t) { s.step(); });
  EXPECT_EQ(s.get_last_lr(), t.lrs());
  EXPECT_EQ(s.base_lrs(), (std::vector<double>{0.1, 0.05}));
}

TEST(LRScheduler, StepLR) {
  TwoGroups t;
  StepLR s(*t.opt, /*step_size=*/3, /*gamma=*/0.5);
  expect_schedule("step", t, [&](int64_t) { s.step(); });
  EXPECT_EQ(s.last_epoch(), 12);
}

TEST(LRScheduler, MultiStepLR) {
  TwoGroups t;
  MultiStepLR s(*t.opt, {2, 5, 5, 9}, 0.3);
  expect_schedule("multistep", t, [&](int64_t) { s.step(); });
}

TEST(LRScheduler, CosineAnnealingLR) {
  TwoGroups t;
  CosineAnnealingLR s(*t.opt, /*T_max=*/5, /*eta_min=*/0.001);
  expect_schedule("cosine", t, [&](int64_t) { s.step(); });
}

TEST(LRScheduler, OneCycleLRCyclesLrAndMomentum) {
  TwoGroups t;
  OneCycleLR s(*t.opt, std::vector<double>{0.5, 0.2}, OneCycleLROptions().total_steps(20));
  expect_schedule("onecycle", t, [&](int64_t) { s.step(); }, /*momentums=*/true);
  // The groups hold Python's keys (they travel in the optimizer's state dict).
  EXPECT_EQ(t.opt->param_groups()[0].get("max_lr").to_double(), 0.5);
  EXPECT_EQ(t.opt->param_groups()[1].get("initial_lr").to_double(), 0.2 / 25.0);
  // Stepping past total_steps raises as Python does.
  s.step();
  EMBER_EXPECT_ERROR(s.step(), Value, "Tried to step 22 times. The specified number of total steps is 20");
}

TEST(LRScheduler, OneCycleLRThreePhaseLinear) {
  TwoGroups t;
  OneCycleLR s(*t.opt, 0.3,
               OneCycleLROptions().epochs(3).steps_per_epoch(5).pct_start(0.4).three_phase(true).anneal_strategy(
                   OneCycleLROptions::AnnealStrategy::Linear));
  expect_schedule("onecycle_three_phase_linear", t, [&](int64_t) { s.step(); }, /*momentums=*/true);
}

TEST(LRScheduler, OneCycleLRCyclesAdamsBeta1) {
  TwoGroups t(/*adam=*/true);
  OneCycleLR s(*t.opt, std::vector<double>{0.5, 0.2}, OneCycleLROptions().total_steps(12));
  expect_schedule("onecycle_adam", t, [&](int64_t) { s.step(); }, /*momentums=*/true);
}

TEST(LRScheduler, OneCycleLRErrors) {
  TwoGroups t;
  EMBER_EXPECT_ERROR(OneCycleLR(*t.opt, 0.1, OneCycleLROptions()), Value,
                     "You must define either total_steps OR (epochs AND steps_per_epoch)");
  EMBER_EXPECT_ERROR(OneCycleLR(*t.opt, 0.1, OneCycleLROptions().total_steps(0)), Value,
                     "Expected positive integer total_steps, but got 0");
  EMBER_EXPECT_ERROR(OneCycleLR(*t.opt, 0.1, OneCycleLROptions().epochs(-1).steps_per_epoch(3)), Value,
                     "Expected positive integer epochs, but got -1");
  EMBER_EXPECT_ERROR(OneCycleLR(*t.opt, 0.1, OneCycleLROptions().total_steps(10).pct_start(1.5)), Value,
                     "Expected float between 0 and 1 pct_start, but got 1.5");
  EMBER_EXPECT_ERROR(OneCycleLR(*t.opt, std::vector<double>{0.1, 0.2, 0.3}, OneCycleLROptions().total_steps(10)),
                     Value, "expected 2 values for max_lr, got 3");
}

TEST(LRScheduler, ClosedFormForStepWithEpoch) {
  for (const std::string name : {"step_epoch", "cosine_epoch"}) {
    Tensor p = zeros({1});
    autograd::set_requires_grad(p, true);
    SGD opt(std::vector<Tensor>{p}, SGDOptions(0.1));
    std::unique_ptr<LRScheduler> s;
    if (name == "step_epoch")
      s = std::make_unique<StepLR>(opt, 3, 0.5);
    else
      s = std::make_unique<CosineAnnealingLR>(opt, 4, 0.01);
    const IValue& c = at(fixture("schedulers.ember"), name);
    const auto& epochs = at(c, "epochs").to_list();
    const auto& lrs = at(c, "lrs").to_list();
    for (size_t i = 0; i < epochs.size(); ++i) {
      s->step(epochs[i].to_int());
      EXPECT_EQ(s->get_last_lr(), doubles(lrs[i])) << name << " epoch " << epochs[i].to_int();
    }
  }
}

TEST(LRScheduler, ResumingNeedsInitialLr) {
  TwoGroups t;
  EMBER_EXPECT_ERROR(StepLR(*t.opt, 3, 0.1, /*last_epoch=*/4), Runtime,
                     "param 'initial_lr' is not specified in param_groups[0] when resuming an optimizer");
  // With initial_lr in the groups (from an earlier scheduler, or a loaded state dict), resuming works and
  // continues the schedule from the current lrs.
  { StepLR first(*t.opt, 3, 0.1); }
  StepLR resumed(*t.opt, 3, 0.1, /*last_epoch=*/4);
  EXPECT_EQ(resumed.last_epoch(), 5);
  EMBER_EXPECT_ERROR(StepLR(*t.opt, 0), Value, "step_size must be a positive number");
}

TEST(LRScheduler, LambdaLRNeedsOneFunctionPerGroup) {
  TwoGroups t;
  std::vector<LambdaLR::LrLambda> one{[](int64_t) { return 1.0; }};
  EMBER_EXPECT_ERROR(LambdaLR(*t.opt, one), Value, "Expected 2 lr_lambdas, but got 1");
  LambdaLR per_group(*t.opt, std::vector<LambdaLR::LrLambda>{[](int64_t e) { return 1.0 / double(e + 1); },
                                                              [](int64_t) { return 2.0; }});
  per_group.step();
  EXPECT_EQ(per_group.get_last_lr(), (std::vector<double>{0.1 * 0.5, 0.05 * 2.0}));
}

TEST(ReduceLROnPlateau, MinRelWithCooldownAndPerGroupMinLr) {
  TwoGroups t;
  ReduceLROnPlateau s(*t.opt, ReduceLROnPlateauOptions().patience(1).cooldown(1).factor(0.5).min_lr({0.0, 0.02}));
  std::vector<double> metrics{1.0, 0.9, 0.95, 0.97, 0.96, 0.8, 0.85, 0.86, 0.87, 0.5, 0.6, 0.7, 0.8, 0.9};
  expect_schedule("plateau", t, [&](int64_t i) { s.step(metrics[size_t(i)]); });
}

TEST(ReduceLROnPlateau, MaxAbsUnderLibTorchsName) {
  TwoGroups t;
  ReduceLROnPlateauScheduler s(*t.opt, ReduceLROnPlateauOptions()
                                           .mode(ReduceLROnPlateauOptions::Mode::Max)
                                           .threshold(0.1)
                                           .threshold_mode(ReduceLROnPlateauOptions::ThresholdMode::Abs)
                                           .patience(0));
  std::vector<double> metrics{1.0, 1.05, 1.2, 1.25, 1.4, 1.3, 1.2, 1.1};
  expect_schedule("plateau_max_abs", t, [&](int64_t i) { s.step(metrics[size_t(i)]); });
  EXPECT_EQ(s.best(), 1.4);
}

TEST(ReduceLROnPlateau, Errors) {
  TwoGroups t;
  EMBER_EXPECT_ERROR(ReduceLROnPlateau(*t.opt, ReduceLROnPlateauOptions().factor(1.0)), Value,
                     "Factor should be < 1.0.");
  EMBER_EXPECT_ERROR(ReduceLROnPlateau(*t.opt, ReduceLROnPlateauOptions().min_lr({0.1, 0.2, 0.3})), Value,
                     "expected 2 min_lrs, got 3");
}

}  // namespace
}  // namespace ember::optim
