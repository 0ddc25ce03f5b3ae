// The C++ optimizers against the steps recorded from PyTorch 1.13 and Python's ember.optim
// (fixtures/make_fixtures.py): parameters after each step, state dicts key for key, and a state loaded (from
// Python's state dict, or saved and loaded by C++) continuing identically.
#include <gtest/gtest.h>

#include <filesystem>

#include "OptimTestSupport.h"

namespace ember::optim {
namespace {

using namespace ember::optim::testing;

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& [k, v] : fixture("optimizers.ember").to_dict()) names.push_back(k.to_string());
  return names;
}

// One recorded case: builds the optimizer over fresh parameters and replays the recorded gradients.
class Case {
 public:
  explicit Case(const std::string& name) : c_(at(fixture("optimizers.ember"), name)) {}

  std::vector<Tensor> initial_params() const {
    return split_flat(at(c_, "params").to_tensor(), at(c_, "shapes"), true);
  }
  /// The parameters after `steps` steps as Python's ember.optim computed them.
  std::vector<Tensor> ember_params(int64_t steps) const {
    return split_flat(at(c_, "ember").to_tensor().select(0, steps - 1), at(c_, "shapes"), true);
  }
  std::unique_ptr<Optimizer> make(const std::vector<Tensor>& params) const {
    return make_optimizer(at(c_, "optimizer").to_string(), at(c_, "options"), params, at(c_, "group1_lr"));
  }
  int64_t steps() const { return at(c_, "grads").to_tensor().size(0); }
  bool exact_vs_torch() const { return at(c_, "optimizer").to_string() == "SGD"; }
  const IValue& get(const std::string& key) const { return at(c_, key); }

  /// Sets the gradients of step `step` (0-based) and takes it.
  void step(Optimizer& opt, const std::vector<Tensor>& params, int64_t step) const {
    auto grads = split_flat(at(c_, "grads").to_tensor().select(0, step), at(c_, "shapes"), false);
    for (size_t i = 0; i < params.size(); ++i) {
      bool missing = false;
      for (const IValue& m : at(c_, "missing_grads").to_list())
        missing |= m.to_list()[0].to_int() == step && m.to_list()[1].to_int() == int64_t(i);
      autograd::set_grad(params[i], missing ? Tensor() : grads[i]);
    }
    opt.step();
  }

  ::testing::AssertionResult matches(const std::vector<Tensor>& params, int64_t steps) const {
    Tensor flat = flatten_all(params);
    if (auto r = same_bits(flat, at(c_, "ember").to_tensor().select(0, steps - 1)); !r)
      return r << " (vs Python's ember.optim after " << steps << " steps)";
    Tensor torch = at(c_, "torch").to_tensor().select(0, steps - 1);
    auto r = exact_vs_torch() ? same_bits(flat, torch) : close_ulps(flat, torch, 32);
    if (!r) r << " (vs PyTorch 1.13 after " << steps << " steps)";
    return r;
  }

 private:
  const IValue& c_;
};

class OptimizerCase : public ::testing::TestWithParam<std::string> {};

TEST_P(OptimizerCase, StepsMatchPythonBitForBitAndTorch) {
  Case c(GetParam());
  auto params = c.initial_params();
  auto opt = c.make(params);
  for (int64_t s = 0; s < c.steps(); ++s) {
    c.step(*opt, params, s);
    EXPECT_TRUE(c.matches(params, s + 1));
  }
}

TEST_P(OptimizerCase, StateDictHasPythonsStructure) {
  Case c(GetParam());
  auto params = c.initial_params();
  auto opt = c.make(params);
  for (int64_t s = 0; s < c.steps(); ++s) c.step(*opt, params, s);
  EXPECT_TRUE(same_tree(opt->state_dict(), c.get("state_dict"), "state_dict"));
}

TEST_P(OptimizerCase, PythonStateDictLoadsAndContinues) {
  Case c(GetParam());
  const int64_t mid = 2;
  auto params = c.ember_params(mid);
  auto opt = c.make(params);
  opt->load_state_dict(c.get("state_dict_mid"));
  EXPECT_TRUE(same_tree(opt->state_dict(), c.get("state_dict_mid"), "loaded state_dict"));
  for (int64_t s = mid; s < c.steps(); ++s) {
    c.step(*opt, params, s);
    EXPECT_TRUE(c.matches(params, s + 1));
  }
}

TEST_P(OptimizerCase, SavedAndLoadedStateContinuesIdentically) {
  Case c(GetParam());
  auto params = c.initial_params();
  auto opt = c.make(params);
  const int64_t mid = 2;
  for (int64_t s = 0; s < mid; ++s) c.step(*opt, params, s);
  auto path = std::filesystem::temp_directory_path() / ("ember_optim_" + GetParam() + ".ember");
  ember::save(*opt, path.string());
  // A second optimizer over copies of the parameters, with the state loaded from the file.
  std::vector<Tensor> copies;
  for (const Tensor& p : params) {
    Tensor q = p.detach().clone();
    autograd::set_requires_grad(q, true);
    copies.push_back(q);
  }
  auto other = c.make(copies);
  ember::load(*other, path.string());
  std::filesystem::remove(path);
  for (int64_t s = mid; s < c.steps(); ++s) {
    c.step(*opt, params, s);
    c.step(*other, copies, s);
    EXPECT_TRUE(same_bits(flatten_all(copies), flatten_all(params)));
    EXPECT_TRUE(c.matches(copies, s + 1));
  }
  // The loaded state is a copy: stepping one optimizer leaves the other's state alone.
  EXPECT_TRUE(same_tree(other->state_dict(), opt->state_dict()));
}

INSTANTIATE_TEST_SUITE_P(Recorded, OptimizerCase, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return info.param; });

Tensor leaf(std::vector<float> values) {
  Tensor t = ember::testing::make_tensor(values);
  autograd::set_requires_grad(t, true);
  return t;
}

TEST(Optimizer, OptionsChainAndGroupsKeepTheirOwn) {
  Tensor a = leaf({1, 2}), b = leaf({3});
  SGD opt({OptimizerParamGroup({a}), OptimizerParamGroup({b}, std::make_unique<SGDOptions>(0.5))},
          SGDOptions(0.1).momentum(0.9).nesterov(true));
  ASSERT_EQ(opt.param_groups().size(), 2u);
  const auto& first = static_cast<const SGDOptions&>(opt.param_groups()[0].options());
  const auto& second = static_cast<const SGDOptions&>(opt.param_groups()[1].options());
  EXPECT_EQ(first.lr(), 0.1);
  EXPECT_EQ(first.momentum(), 0.9);
  EXPECT_TRUE(first.nesterov());
  EXPECT_EQ(second.lr(), 0.5);
  EXPECT_EQ(second.momentum(), 0.0);
  EXPECT_EQ(opt.size(), 2u);
  opt.param_groups()[0].options().set_lr(0.01);
  EXPECT_EQ(first.lr(), 0.01);
  EXPECT_EQ(static_cast<const SGDOptions&>(opt.defaults()).lr(), 0.1);
}

TEST(Optimizer, StepSkipsParametersWithoutGradAndReturnsTheClosuresLoss) {
  Tensor a = leaf({1, 2}), b = leaf({3});
  SGD opt(std::vector<Tensor>{a, b}, SGDOptions(0.5));
  bool grad_mode_in_closure = false;
  Tensor loss = opt.step([&] {
    grad_mode_in_closure = autograd::GradMode::is_enabled();
    Tensor l = (a * a).sum();
    autograd::backward({l});
    return l;
  });
  EXPECT_TRUE(grad_mode_in_closure);
  EXPECT_EQ(loss.item<float>(), 5.0f);
  EXPECT_EQ(ember::testing::values<float>(a), (std::vector<float>{0, 0}));  // a - 0.5 * 2a
  EXPECT_EQ(ember::testing::values<float>(b), (std::vector<float>{3}));     // no grad: untouched, no state
  EXPECT_EQ(opt.state(b), nullptr);
  EXPECT_NE(opt.state(a), nullptr);
  EXPECT_FALSE(autograd::grad_fn(a));  // the update was not recorded
  EXPECT_FALSE(opt.step().defined());  // no closure: no loss
}

TEST(Optimizer, ZeroGradZerosByDefaultAndCanUndefine) {
  Tensor a = leaf({1, 2});
  Adam opt(std::vector<Tensor>{a});
  autograd::set_grad(a, ember::testing::make_tensor<float>({3, 4}));
  opt.zero_grad();
  ASSERT_TRUE(autograd::grad(a).defined());  // PyTorch 1.13's default: set_to_none=False
  EXPECT_EQ(ember::testing::values<float>(autograd::grad(a)), (std::vector<float>{0, 0}));
  opt.zero_grad(/*set_to_none=*/true);
  EXPECT_FALSE(autograd::grad(a).defined());
}

TEST(Optimizer, ConstructorErrorsAsTorch) {
  Tensor a = leaf({1});
  std::vector<Tensor> ps{a};
  EMBER_EXPECT_ERROR(SGD(ps, SGDOptions(-0.1)), Value, "Invalid learning rate: -0.1");
  EMBER_EXPECT_ERROR(SGD(ps, SGDOptions(0.1).momentum(-1)), Value, "Invalid momentum value: -1.0");
  EMBER_EXPECT_ERROR(SGD(ps, SGDOptions(0.1).weight_decay(-1e-5)), Value, "Invalid weight_decay value: -1e-05");
  EMBER_EXPECT_ERROR(SGD(ps, SGDOptions(0.1).nesterov(true)), Value,
                     "Nesterov momentum requires a momentum and zero dampening");
  EMBER_EXPECT_ERROR(SGD(ps, SGDOptions(0.1).momentum(0.9).dampening(0.1).nesterov(true)), Value,
                     "Nesterov momentum requires a momentum and zero dampening");
  EMBER_EXPECT_ERROR(SGD(std::vector<Tensor>{}, SGDOptions(0.1)), Value, "optimizer got an empty parameter list");
  EMBER_EXPECT_ERROR(Adam(ps, AdamOptions(-1e-5)), Value, "Invalid learning rate: -1e-05");
  EMBER_EXPECT_ERROR(Adam(ps, AdamOptions().betas({1.0, 0.9})), Value, "Invalid beta parameter at index 0: 1.0");
  EMBER_EXPECT_ERROR(Adam(ps, AdamOptions().betas({0.9, -0.1})), Value, "Invalid beta parameter at index 1: -0.1");
  EMBER_EXPECT_ERROR(Adam(ps, AdamOptions().eps(-1)), Value, "Invalid epsilon value: -1.0");
  EMBER_EXPECT_ERROR(AdamW(ps, AdamWOptions().weight_decay(-0.01)), Value, "Invalid weight_decay value: -0.01");
  EMBER_EXPECT_ERROR(Adam(ps, AdamOptions().fused(true)), Runtime, "FusedAdam requires");
  EMBER_EXPECT_ERROR(Adam(ps, AdamOptions().capturable(true)), Runtime, "capturable=True");
  EMBER_EXPECT_ERROR(SGD(ps, SGDOptions(0.1).differentiable(true)), NotImplemented, "differentiable=True");
  EMBER_EXPECT_ERROR(RMSprop(ps, RMSpropOptions().alpha(-0.5)), Value, "Invalid alpha value: -0.5");
  EMBER_EXPECT_ERROR(RMSprop(ps, RMSpropOptions().eps(-1)), Value, "Invalid epsilon value: -1.0");
  EMBER_EXPECT_ERROR(RMSprop(ps, RMSpropOptions().momentum(-1)), Value, "Invalid momentum value: -1.0");
  // Parameters: non-leaf, the same tensor in two groups.
  Tensor non_leaf = a * 2;
  EMBER_EXPECT_ERROR(SGD(std::vector<Tensor>{non_leaf}, SGDOptions(0.1)), Value, "can't optimize a non-leaf Tensor");
  SGD opt(ps, SGDOptions(0.1));
  EMBER_EXPECT_ERROR(opt.add_param_group(OptimizerParamGroup({a})), Value,
                     "some parameters appear in more than one parameter group");
}

TEST(Optimizer, AddParamGroupTakesDefaultsAndSteps) {
  Tensor a = leaf({1}), b = leaf({2});
  SGD opt(std::vector<Tensor>{a}, SGDOptions(0.1));
  opt.add_param_group(OptimizerParamGroup({b}));
  ASSERT_EQ(opt.param_groups().size(), 2u);
  EXPECT_EQ(opt.param_groups()[1].options().get_lr(), 0.1);
  autograd::set_grad(b, ember::testing::make_tensor<float>({1}));
  opt.step();
  EXPECT_FLOAT_EQ(b.item<float>(), 1.9f);
}

TEST(Optimizer, LoadStateDictErrors) {
  Tensor a = leaf({1}), b = leaf({2});
  SGD one(std::vector<Tensor>{a, b}, SGDOptions(0.1));
  SGD two({OptimizerParamGroup({a}), OptimizerParamGroup({b})}, SGDOptions(0.1));
  EMBER_EXPECT_ERROR(one.load_state_dict(two.state_dict()), Value,
                     "loaded state dict has a different number of parameter groups");
  Tensor c = leaf({3});
  SGD three(std::vector<Tensor>{a, b, c}, SGDOptions(0.1));
  EMBER_EXPECT_ERROR(one.load_state_dict(three.state_dict()), Value,
                     "loaded state dict contains a parameter group that doesn't match the size of optimizer's group");
  EMBER_EXPECT_ERROR(one.load_state_dict(IValue(3)), Runtime, "must be a dict");
  EMBER_EXPECT_ERROR(one.load_state_dict(IValue::dict({{"state", IValue::dict({})}})), Runtime,
                     "has no entry 'param_groups'");
  // An option of the wrong kind names the option; the optimizer is left as it was.
  IValue bad = IValue::dict({{"state", IValue::dict({})},
                             {"param_groups", IValue::list({IValue::dict({{"lr", "fast"},
                                                                          {"params", IValue::list({0, 1})}})})}});
  EMBER_EXPECT_ERROR(one.load_state_dict(bad), Runtime, "optimizer option 'lr' must be a number");
  EXPECT_EQ(one.param_groups()[0].options().get_lr(), 0.1);
  // Adam's state without its moments.
  Adam adam(std::vector<Tensor>{a});
  IValue no_moments = IValue::dict(
      {{"state", IValue::dict({{0, IValue::dict({{"step", scalar_tensor(1.0, kFloat32)}})}})},
       {"param_groups", IValue::list({IValue::dict({{"params", IValue::list({0})}})})}});
  EMBER_EXPECT_ERROR(adam.load_state_dict(no_moments), Runtime, "Adam state has no entry 'exp_avg'");
}

TEST(Optimizer, LoadConvertsStateToTheParametersDtype) {
  // A state saved in float64 follows a float32 parameter (except Adam's step, which stays float32).
  Tensor a = leaf({1, 2});
  Adam adam(std::vector<Tensor>{a});
  Tensor m = ember::testing::make_tensor<double>({0.5, 0.25});
  IValue sd = IValue::dict(
      {{"state", IValue::dict({{0, IValue::dict({{"step", 3}, {"exp_avg", m}, {"exp_avg_sq", m}})}})},
       {"param_groups", IValue::list({IValue::dict({{"lr", 0.5}, {"params", IValue::list({0})}})})}});
  adam.load_state_dict(sd);
  const auto* s = static_cast<const AdamParamState*>(adam.state(a));
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->exp_avg().dtype(), kFloat32);
  EXPECT_EQ(s->step().dtype(), kFloat32);  // a step saved as a number (PyTorch < 1.12) becomes a tensor
  EXPECT_EQ(s->step().item<float>(), 3.0f);
  EXPECT_FALSE(s->exp_avg().is_same(m));
  EXPECT_EQ(adam.param_groups()[0].options().get_lr(), 0.5);
  // Keys that are not options (a scheduler's initial_lr) are kept and saved back.
  IValue with_extra =
      IValue::dict({{"state", IValue::dict({})},
                    {"param_groups",
                     IValue::list({IValue::dict({{"lr", 0.5}, {"initial_lr", 0.5}, {"params", IValue::list({0})}})})}});
  adam.load_state_dict(with_extra);
  EXPECT_EQ(adam.state_size(), 0u);
  EXPECT_EQ(adam.param_groups()[0].get("initial_lr").to_double(), 0.5);
  const IValue state = adam.state_dict();  // kept: `group` refers into it
  const auto& group = state.to_dict()[1].second.to_list()[0].to_dict();
  EXPECT_EQ(group[group.size() - 2].first.to_string(), "initial_lr");
  EXPECT_EQ(group.back().first.to_string(), "params");
}

}  // namespace
}  // namespace ember::optim

namespace ember::optim {
namespace {

TEST(Optimizer, TrainingLoopLibTorchStyle) {
  // Fits y = 2x + 1 with a closure-free loop: zero_grad, backward, step; braces make the parameter list.
  Tensor w = zeros({1}), b = zeros({1});
  autograd::set_requires_grad(w, true);
  autograd::set_requires_grad(b, true);
  Tensor x = ember::testing::make_tensor<float>({0, 1, 2, 3});
  Tensor y = ember::testing::make_tensor<float>({1, 3, 5, 7});
  Adam opt({w, b}, AdamOptions(0.1));
  float first = 0, last = 0;
  for (int i = 0; i < 200; ++i) {
    opt.zero_grad();
    Tensor loss = (x * w + b - y).pow(2).mean();
    autograd::backward({loss});
    opt.step();
    (i == 0 ? first : last) = loss.item<float>();
  }
  EXPECT_LT(last, first * 1e-2f);
  EXPECT_NEAR(w.item<float>(), 2.0f, 0.1f);
}

TEST(Optimizer, OptionsByNameCheckKeysAndKinds) {
  AdamOptions o(0.1);
  EXPECT_TRUE(o.has("betas"));
  EXPECT_FALSE(o.has("momentum"));
  o.set("betas", IValue::tuple({0.5, 0.6}));
  EXPECT_EQ(std::get<0>(o.betas()), 0.5);
  o.set("weight_decay", 1);  // an int (PyTorch's default 0 in a Python state dict) is a number
  EXPECT_EQ(o.weight_decay(), 1.0);
  o.set("foreach", IValue());
  EXPECT_FALSE(o.foreach().has_value());
  EMBER_EXPECT_ERROR(o.get("momentum"), Runtime, "optimizer options have no option 'momentum'");
  EMBER_EXPECT_ERROR(o.set("betas", "x"), Runtime, "optimizer option 'betas' must be a pair of numbers");
  EMBER_EXPECT_ERROR(o.set("amsgrad", 1.0), Runtime, "optimizer option 'amsgrad' must be a bool");
  const auto items = o.items();
  ASSERT_EQ(items.size(), 10u);  // Python's keys, in Python's order
  EXPECT_EQ(items[0].first, "lr");
  EXPECT_EQ(items[1].first, "betas");
  EXPECT_EQ(items.back().first, "fused");
}

}  // namespace
}  // namespace ember::optim

namespace {

// Note [loading another optimizer's state]: another optimizer type's state dict, or state tensors of another
// shape than their parameters, raise at load time (PyTorch raises only at step()); the optimizer is left as it
// was. tests/python/test_optim.py checks the same messages on the Python side.
using namespace ember;
using namespace ember::optim;

// A zero parameter of the given shape.
Tensor param(std::vector<int64_t> shape) { return zeros(shape, requires_grad()); }

TEST(Optimizer, LoadStateDictOfAnotherTypeOrShapeRaises) {
  Tensor a = param({2, 3}), b = param({4});
  a.mutable_grad() = ones({2, 3});
  b.mutable_grad() = ones({4});
  Adam adam(std::vector<Tensor>{a, b});
  adam.step();
  SGD sgd(std::vector<Tensor>{a, b}, SGDOptions(0.1).momentum(0.9));
  EMBER_EXPECT_ERROR(sgd.load_state_dict(adam.state_dict()), Value,
                     "load_state_dict: the state dict is not the state of a SGD optimizer (it looks like the "
                     "state of Adam or AdamW): parameter group 0 has options 'betas', 'eps', 'amsgrad'");
  EMBER_EXPECT_ERROR(sgd.load_state_dict(adam.state_dict()), Value, "lacks SGD's options 'momentum'");
  sgd.step();
  EMBER_EXPECT_ERROR(adam.load_state_dict(sgd.state_dict()), Value,
                     "not the state of a Adam optimizer (it looks like the state of SGD)");
  RMSprop rms(std::vector<Tensor>{a, b});
  EMBER_EXPECT_ERROR(rms.load_state_dict(adam.state_dict()), Value, "not the state of a RMSprop optimizer");
  AdamW adamw(std::vector<Tensor>{a, b});
  adamw.load_state_dict(adam.state_dict());  // Adam and AdamW share their layout: this loads

  // State of the right type over parameters of other shapes.
  Tensor c = param({3, 2}), d = param({4});
  Adam other(std::vector<Tensor>{c, d});
  EMBER_EXPECT_ERROR(other.load_state_dict(adam.state_dict()), Value,
                     "load_state_dict: the state 'exp_avg' of parameter 0 in group 0 has shape [2, 3] but the "
                     "parameter has shape [3, 2]");
  EXPECT_EQ(other.state_size(), 0u);  // left as it was
  Tensor e = param({5});
  SGD sgd2({OptimizerParamGroup({param({2, 3})}), OptimizerParamGroup({e})}, SGDOptions(0.1).momentum(0.9));
  SGD sgd_two_groups({OptimizerParamGroup({a}), OptimizerParamGroup({b})}, SGDOptions(0.1).momentum(0.9));
  sgd_two_groups.step();
  EMBER_EXPECT_ERROR(sgd2.load_state_dict(sgd_two_groups.state_dict()), Value,
                     "the state 'momentum_buffer' of parameter 0 in group 1 has shape [4] but the parameter has "
                     "shape [5]");
}

}  // namespace
