// ember::optim::LBFGS against the runs recorded from PyTorch 1.13 and Python's ember.optim.LBFGS
// (fixtures/make_fixtures.py, lbfgs.ember: the Rosenbrock function of the flattened parameters), and
// ember::optim::Adagrad's options, construction-time state and errors (its step sequences are the recorded
// cases of optimizer_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "OptimTestSupport.h"

namespace ember::optim {
namespace {

using namespace ember::optim::testing;

std::vector<std::string> lbfgs_case_names() {
  std::vector<std::string> names;
  for (const auto& [k, v] : fixture("lbfgs.ember").to_dict()) names.push_back(k.to_string());
  return names;
}

// The fixture's closure: Rosenbrock of the parameters flattened and concatenated, with the ops of
// make_fixtures.py's rosenbrock().
Tensor rosenbrock(const std::vector<Tensor>& params) {
  std::vector<Tensor> flat;
  for (const Tensor& p : params) flat.push_back(p.reshape({-1}));
  Tensor x = cat(flat, 0);
  const int64_t n = x.size(0);
  Tensor head = x.narrow(0, 0, n - 1), tail = x.narrow(0, 1, n - 1);
  Tensor a = pow(sub(tail, pow(head, 2)), 2).mul(100);
  return add(a, pow(rsub(head, 1), 2)).sum();
}

LBFGSOptions options_of(const IValue& dict) {
  LBFGSOptions o;
  for (const auto& [k, v] : dict.to_dict()) o.set(k.to_string(), v);
  return o;
}

class LBFGSCase : public ::testing::TestWithParam<std::string> {};

TEST_P(LBFGSCase, StepsMatchPythonAndTorch) {
  const IValue& c = at(fixture("lbfgs.ember"), GetParam());
  auto params = split_flat(at(c, "params").to_tensor(), at(c, "shapes"), true);
  LBFGS opt(params, options_of(at(c, "options")));
  auto closure = [&] {
    opt.zero_grad();
    Tensor loss = rosenbrock(params);
    autograd::backward({loss});
    return loss;
  };
  const bool float64 = params[0].dtype() == kFloat64;
  // The scalars are doubles here and 0-dim tensors of the parameters' dtype in Python (see LBFGS's doc): in
  // float64 the runs agree to rounding and take the same path (the same numbers of evaluations); in float32,
  // to float32's precision.
  const double rtol = float64 ? 1e-10 : 2e-3;
  const int64_t steps = at(c, "ember").to_tensor().size(0);
  for (int64_t s = 0; s < steps; ++s) {
    const double loss = opt.step(closure).item<double>();
    EXPECT_NEAR(loss, at(c, "ember_losses").to_list()[s].to_double(),
                rtol * std::abs(at(c, "ember_losses").to_list()[s].to_double()) + 1e-12);
    EXPECT_NEAR(loss, at(c, "torch_losses").to_list()[s].to_double(),
                rtol * std::abs(at(c, "torch_losses").to_list()[s].to_double()) + 1e-12);
    for (const char* which : {"ember", "torch"}) {
      Tensor expected = at(c, which).to_tensor().select(0, s).to(kFloat64);
      Tensor actual = flatten_all(params).to(kFloat64);
      const double* e = expected.data_ptr<double>();
      const double* a = actual.data_ptr<double>();
      for (int64_t i = 0; i < actual.numel(); ++i)
        EXPECT_NEAR(a[i], e[i], rtol * std::abs(e[i]) + 1e-9) << which << " step " << s << " element " << i;
    }
    if (float64) {
      const auto& evals = at(c, "ember_evals").to_list()[s].to_list();
      const auto& state = static_cast<const LBFGSParamState&>(*opt.state(params[0]));
      EXPECT_EQ(state.func_evals(), evals[0].to_int()) << "step " << s;
      EXPECT_EQ(state.n_iter(), evals[1].to_int()) << "step " << s;
    }
  }
}

TEST_P(LBFGSCase, StateDictSavesLoadsAndContinuesIdentically) {
  const IValue& c = at(fixture("lbfgs.ember"), GetParam());
  auto params = split_flat(at(c, "params").to_tensor(), at(c, "shapes"), true);
  std::vector<Tensor> copies;
  for (const Tensor& p : params) {
    Tensor q = p.detach().clone();
    autograd::set_requires_grad(q, true);
    copies.push_back(q);
  }
  LBFGS opt(params, options_of(at(c, "options")));
  auto closure_of = [](LBFGS& o, const std::vector<Tensor>& ps) {
    return [&o, &ps] {
      o.zero_grad();
      Tensor loss = rosenbrock(ps);
      autograd::backward({loss});
      return loss;
    };
  };
  opt.step(closure_of(opt, params));
  for (size_t i = 0; i < params.size(); ++i) copies[i].detach().copy_(params[i].detach());
  auto path = std::filesystem::temp_directory_path() / ("ember_lbfgs_" + GetParam() + ".ember");
  ember::save(opt, path.string());
  LBFGS other(copies, options_of(at(c, "options")));
  ember::load(other, path.string());
  std::filesystem::remove(path);
  EXPECT_TRUE(same_tree(other.state_dict(), opt.state_dict()));
  for (int s = 0; s < 2; ++s) {
    opt.step(closure_of(opt, params));
    other.step(closure_of(other, copies));
    EXPECT_TRUE(same_bits(flatten_all(copies), flatten_all(params)));
  }
}

INSTANTIATE_TEST_SUITE_P(Recorded, LBFGSCase, ::testing::ValuesIn(lbfgs_case_names()),
                         [](const auto& info) { return info.param; });

Tensor leaf(std::vector<double> values) {
  Tensor t = ember::testing::make_tensor(values);
  autograd::set_requires_grad(t, true);
  return t;
}

TEST(LBFGS, StateDictHasPythonsEntriesAndMaxEvalDefault) {
  Tensor a = leaf({0.5, -0.3, 0.2});
  LBFGS opt(std::vector<Tensor>{a}, LBFGSOptions(1).max_iter(4).history_size(3));
  EXPECT_EQ(static_cast<const LBFGSOptions&>(opt.param_groups()[0].options()).max_eval(), 5);
  opt.step([&] {
    opt.zero_grad();
    Tensor loss = rosenbrock({a});
    autograd::backward({loss});
    return loss;
  });
  IValue sd = opt.state_dict();
  const auto& state = at(sd, "state").to_dict();
  ASSERT_EQ(state.size(), 1u);
  std::vector<std::string> names;
  for (const auto& [k, v] : state[0].second.to_dict()) names.push_back(k.to_string());
  // Python's order: func_evals and n_iter first, al from the second iteration, then the end-of-step entries.
  EXPECT_EQ(names, (std::vector<std::string>{"func_evals", "n_iter", "al", "d", "t", "old_dirs", "old_stps", "ro",
                                             "H_diag", "prev_flat_grad", "prev_loss"}));
  std::vector<std::string> group_keys;
  for (const auto& [k, v] : at(sd, "param_groups").to_list()[0].to_dict()) group_keys.push_back(k.to_string());
  EXPECT_EQ(group_keys, (std::vector<std::string>{"lr", "max_iter", "max_eval", "tolerance_grad", "tolerance_change",
                                                  "history_size", "line_search_fn", "params"}));
}

TEST(LBFGS, Errors) {
  Tensor a = leaf({1.0}), b = leaf({2.0});
  EMBER_EXPECT_ERROR(LBFGS({OptimizerParamGroup({a}), OptimizerParamGroup({b})}), Value,
                     "LBFGS doesn't support per-parameter options (parameter groups)");
  LBFGS opt(std::vector<Tensor>{a}, LBFGSOptions().line_search_fn("backtracking"));
  auto closure = [&] {
    Tensor loss = (a * a).sum();
    autograd::backward({loss});
    return loss;
  };
  EXPECT_THROW(opt.step(closure), Error);
  EXPECT_THROW(opt.step(nullptr), Error);  // the closure is required
}

TEST(Adagrad, OptionsChainAndStateExistsFromConstruction) {
  Tensor a = ember::testing::make_tensor<float>({1, 2}), b = ember::testing::make_tensor<float>({3});
  autograd::set_requires_grad(a, true);
  autograd::set_requires_grad(b, true);
  Adagrad opt(std::vector<Tensor>{a, b}, AdagradOptions(0.1).lr_decay(0.01).initial_accumulator_value(0.25));
  const auto& o = static_cast<const AdagradOptions&>(opt.param_groups()[0].options());
  EXPECT_EQ(o.lr(), 0.1);
  EXPECT_EQ(o.lr_decay(), 0.01);
  EXPECT_EQ(o.eps(), 1e-10);
  ASSERT_EQ(opt.state_size(), 2u);  // PyTorch creates Adagrad's state in the constructor
  const auto& s = static_cast<const AdagradParamState&>(*opt.state(b));
  EXPECT_EQ(ember::testing::values<float>(s.sum()), (std::vector<float>{0.25f}));
  EXPECT_EQ(s.step().item<float>(), 0.0f);
  // One step by hand: sum = 0.25 + g^2, p -= lr * g / (sqrt(sum) + eps), with lr_decay not yet applied.
  autograd::set_grad(b, ember::testing::make_tensor<float>({2}));
  opt.step();
  EXPECT_FLOAT_EQ(b.item<float>(), 3.0f - 0.1f * 2.0f / (std::sqrt(4.25f) + 1e-10f));
  EXPECT_EQ(ember::testing::values<float>(a), (std::vector<float>{1, 2}));  // no grad: untouched
}

TEST(Adagrad, ConstructorErrorsAsTorch) {
  Tensor a = leaf({1});
  std::vector<Tensor> ps{a};
  EMBER_EXPECT_ERROR(Adagrad(ps, AdagradOptions(-0.1)), Value, "Invalid learning rate: -0.1");
  EMBER_EXPECT_ERROR(Adagrad(ps, AdagradOptions().lr_decay(-1)), Value, "Invalid lr_decay value: -1.0");
  EMBER_EXPECT_ERROR(Adagrad(ps, AdagradOptions().weight_decay(-0.5)), Value, "Invalid weight_decay value: -0.5");
  EMBER_EXPECT_ERROR(Adagrad(ps, AdagradOptions().initial_accumulator_value(-0.1)), Value,
                     "Invalid initial_accumulator_value value: -0.1");
  EMBER_EXPECT_ERROR(Adagrad(ps, AdagradOptions().eps(-1e-10)), Value, "Invalid epsilon value: -1e-10");
}

}  // namespace
}  // namespace ember::optim
