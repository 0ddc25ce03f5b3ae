// ember::nn's recurrent layers and cells against PyTorch 1.13 (fixtures/rnn.ember, written by
// fixtures/make_rnn_fixtures.py): parameter names, shapes and seeded initial values, outputs and final states,
// input and parameter gradients; options, printing and errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "TestSupport.h"
#include "ember/autograd/Node.h"
#include "ember/autograd/autograd.h"
#include "ember/nn/RNN.h"
#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"
#include "ember/serialize/EmberFormat.h"

namespace {

using ember::Tensor;
namespace nn = ember::nn;

Tensor fx(const std::string& name) {
  static const std::map<std::string, Tensor> all = [] {
    std::map<std::string, Tensor> m;
    const ember::IValue root = ember::serialize::load(std::string(EMBER_TEST_FIXTURES) + "/rnn.ember");
    for (const auto& [key, value] : root.to_dict()) m.emplace(key.to_string(), value.to_tensor());
    return m;
  }();
  auto it = all.find(name);
  if (it == all.end()) {
    ADD_FAILURE() << "no fixture named " << name;
    return Tensor();
  }
  return it->second;
}

::testing::AssertionResult close(const Tensor& a, const Tensor& e, double tol = 1e-5) {
  if (!a.defined() || !e.defined()) return ::testing::AssertionFailure() << "undefined tensor";
  if (!a.sizes().equals(e.sizes()))
    return ::testing::AssertionFailure() << "shape " << a.sizes() << " != " << e.sizes();
  if (!ember::allclose(a.detach(), e, tol, tol))
    return ::testing::AssertionFailure() << "values differ:\n" << a.str() << "\nexpected\n" << e.str();
  return ::testing::AssertionSuccess();
}

// Seeds as the fixture did, builds the module, and checks every parameter's name and initial value; then runs
// the recorded input and compares outputs, states and gradients.
template <typename Holder, typename Options>
void check_layer(const std::string& name, int seed, const Options& options) {
  SCOPED_TRACE(name);
  ember::manual_seed(seed);
  Holder m(options);
  for (const auto& p : m->named_parameters()) EXPECT_TRUE(close(p.value(), fx(name + "." + p.key()))) << p.key();
  Tensor x = fx(name + ".x").clone();
  ember::autograd::set_requires_grad(x, true);
  auto [out, state] = m->forward(x);
  EXPECT_TRUE(close(out, fx(name + ".out")));
  Tensor loss;
  if constexpr (std::is_same_v<Holder, nn::LSTM>) {
    EXPECT_TRUE(close(std::get<0>(state), fx(name + ".h")));
    EXPECT_TRUE(close(std::get<1>(state), fx(name + ".c")));
    loss = out.sum() + (std::get<0>(state) * std::get<0>(state)).sum() +
           (std::get<1>(state) * std::get<1>(state)).sum();
  } else {
    EXPECT_TRUE(close(state, fx(name + ".h")));
    loss = out.sum() + (state * state).sum();
  }
  loss.backward();
  EXPECT_TRUE(close(x.grad(), fx(name + ".grad_x"), 1e-4));
  for (const auto& p : m->named_parameters())
    EXPECT_TRUE(close(p.value().grad(), fx(name + ".grad." + p.key()), 1e-4)) << p.key();
}

TEST(RNN, LayersMatchPyTorch) {
  check_layer<nn::LSTM>("lstm", 100, nn::LSTMOptions(3, 4));
  check_layer<nn::LSTM>("lstm2bi", 101, nn::LSTMOptions(3, 4).num_layers(2).bidirectional(true));
  check_layer<nn::LSTM>("lstm_bf_proj", 102, nn::LSTMOptions(3, 5).batch_first(true).proj_size(2));
  check_layer<nn::LSTM>("lstm_nobias", 103, nn::LSTMOptions(3, 4).bias(false));
  check_layer<nn::GRU>("gru2", 104, nn::GRUOptions(3, 4).num_layers(2));
  check_layer<nn::GRU>("gru_bi_bf", 105, nn::GRUOptions(3, 4).batch_first(true).bidirectional(true));
  check_layer<nn::RNN>("rnn_tanh", 106, nn::RNNOptions(3, 4).num_layers(2));
  check_layer<nn::RNN>("rnn_relu_bi", 107, nn::RNNOptions(3, 4).nonlinearity(ember::kReLU).bidirectional(true));
}

TEST(RNN, GivenInitialStateAndStateDictNames) {
  nn::LSTM m(nn::LSTMOptions(3, 4).num_layers(2));
  // Load PyTorch's parameters by name, as a state dict from Python would be.
  ember::manual_seed(120);
  nn::LSTM reference(nn::LSTMOptions(3, 4).num_layers(2));
  {
    ember::NoGradGuard no_grad;
    for (auto& p : m->named_parameters()) p.value().copy_(reference->named_parameters()[p.key()]);
  }
  auto [out, state] = m->forward(fx("lstm_h0.x"), std::make_tuple(fx("lstm_h0.h0"), fx("lstm_h0.c0")));
  EXPECT_TRUE(close(out, fx("lstm_h0.out")));
  EXPECT_TRUE(close(std::get<0>(state), fx("lstm_h0.h")));
  EXPECT_TRUE(close(std::get<1>(state), fx("lstm_h0.c")));
  std::vector<std::string> names;
  for (const auto& p : nn::LSTM(nn::LSTMOptions(2, 3).bidirectional(true).proj_size(1))->named_parameters())
    names.push_back(p.key());
  EXPECT_EQ(names, (std::vector<std::string>{"weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
                                             "weight_hr_l0", "weight_ih_l0_reverse", "weight_hh_l0_reverse",
                                             "bias_ih_l0_reverse", "bias_hh_l0_reverse", "weight_hr_l0_reverse"}));
  EXPECT_EQ(m->all_weights().size(), 8u);
}

template <typename Holder, typename Options>
void check_cell(const std::string& name, int seed, const Options& options) {
  SCOPED_TRACE(name);
  ember::manual_seed(seed);
  Holder m(options);
  for (const auto& p : m->named_parameters()) EXPECT_TRUE(close(p.value(), fx(name + "." + p.key()))) << p.key();
  Tensor x = fx(name + ".x"), h0 = fx(name + ".h0");
  if constexpr (std::is_same_v<Holder, nn::LSTMCell>) {
    auto [h, c] = m(x, std::make_tuple(h0, fx(name + ".c0")));
    EXPECT_TRUE(close(h, fx(name + ".h")));
    EXPECT_TRUE(close(c, fx(name + ".c")));
    auto [hz, cz] = m(x);
    EXPECT_TRUE(close(hz, fx(name + ".h_zero")));
    EXPECT_TRUE(close(cz, fx(name + ".c_zero")));
  } else {
    EXPECT_TRUE(close(m(x, h0), fx(name + ".h")));
    EXPECT_TRUE(close(m(x), fx(name + ".h_zero")));
  }
}

TEST(RNN, CellsMatchPyTorch) {
  check_cell<nn::LSTMCell>("lstm_cell", 200, nn::LSTMCellOptions(3, 4));
  check_cell<nn::GRUCell>("gru_cell", 201, nn::GRUCellOptions(3, 4));
  check_cell<nn::RNNCell>("rnn_cell", 202, nn::RNNCellOptions(3, 4).nonlinearity(ember::kReLU));
  check_cell<nn::GRUCell>("gru_cell_nobias", 203, nn::GRUCellOptions(3, 4).bias(false));
}

TEST(RNN, DropoutBetweenLayersOnlyInTraining) {
  ember::manual_seed(0);
  nn::GRU m(nn::GRUOptions(3, 4).num_layers(2).dropout(0.5));
  Tensor x = ember::randn({6, 2, 3});
  m->eval();
  Tensor a = std::get<0>(m->forward(x)), b = std::get<0>(m->forward(x));
  EXPECT_TRUE(ember::equal(a, b));
  m->train();
  ember::manual_seed(1);
  Tensor c = std::get<0>(m->forward(x));
  ember::manual_seed(2);
  Tensor d = std::get<0>(m->forward(x));
  EXPECT_FALSE(ember::equal(c, d));
}

// The names of the nodes of x's backward graph, each node once, with how often each name occurs.
std::map<std::string, int> node_names(const Tensor& x) {
  std::map<std::string, int> count;
  std::vector<std::shared_ptr<ember::autograd::Node>> stack{ember::autograd::grad_fn(x)}, seen;
  while (!stack.empty()) {
    auto n = stack.back();
    stack.pop_back();
    if (!n || std::find(seen.begin(), seen.end(), n) != seen.end()) continue;
    seen.push_back(n);
    ++count[n->name()];
    for (const auto& e : n->next_edges()) stack.push_back(e.fn);
  }
  return count;
}

TEST(RNN, StepsReadTheInputProjectionThroughOneUnbind) {
  // The steps take their slice of the input projection from one unbind per layer and direction, whose backward
  // is one stack; a select per step would make each step's gradient a zero-filled (L, N, 4H) tensor, all L of
  // them summed: O(L^2) work in backward (twice the time of a whole training step at L = 64).
  nn::LSTM m(nn::LSTMOptions(3, 4).num_layers(2).bidirectional(true));
  Tensor x = ember::randn({16, 2, 3});
  ember::autograd::set_requires_grad(x, true);
  auto names = node_names(std::get<0>(m->forward(x)));
  EXPECT_EQ(names["UnbindBackward0"], 4);  // 2 layers x 2 directions
  EXPECT_EQ(names["SelectBackward0"], 0);
}

TEST(RNN, PrintsAsPython) {
  EXPECT_EQ(nn::LSTM(nn::LSTMOptions(3, 4).num_layers(2).bidirectional(true))->name(), "LSTM");
  std::ostringstream os;
  os << nn::LSTM(nn::LSTMOptions(3, 4).num_layers(2).batch_first(true).dropout(0.25));
  EXPECT_EQ(os.str(), "LSTM(3, 4, num_layers=2, batch_first=True, dropout=0.25)");
  os.str("");
  os << nn::RNN(nn::RNNOptions(3, 4).nonlinearity(ember::kReLU).bias(false));
  EXPECT_EQ(os.str(), "RNN(3, 4, bias=False, nonlinearity=relu)");
  os.str("");
  os << nn::GRUCell(nn::GRUCellOptions(3, 2).bias(false));
  EXPECT_EQ(os.str(), "GRUCell(3, 2, bias=False)");
}

TEST(RNN, Errors) {
  nn::LSTM m(nn::LSTMOptions(3, 4));
  EXPECT_THROW(m->forward(ember::randn({5, 2, 2})), ember::Error);        // input_size mismatch
  EXPECT_THROW(m->forward(ember::randn({2, 5, 2, 3})), ember::Error);     // 4-D input
  EXPECT_THROW(m->forward(ember::randn({5, 2, 3}), std::make_tuple(ember::zeros({1, 3, 4}), ember::zeros({1, 3, 4}))),
               ember::Error);                                             // batch mismatch in hx
  EXPECT_THROW(nn::GRU(nn::GRUOptions(3, 4).dropout(1.5)), ember::Error);
  EXPECT_THROW(nn::RNN(nn::RNNOptions(3, 4).nonlinearity(ember::kSigmoid)), ember::Error);
  EXPECT_THROW(nn::LSTM(nn::LSTMOptions(3, 4).proj_size(4)), ember::Error);
  nn::LSTMCell cell(3, 4);
  EXPECT_THROW(cell(ember::randn({2, 5})), ember::Error);
  EXPECT_THROW(cell(ember::randn({2, 3}), std::make_tuple(ember::zeros({3, 4}), ember::zeros({3, 4}))), ember::Error);
  try {
    m->forward(ember::randn({5, 2, 2}));
  } catch (const ember::Error& e) {
    EXPECT_NE(std::string(e.what()).find("Expected 3, got 2"), std::string::npos) << e.what();
  }
}

// The message of an error thrown by fn, or "" when it throws none.
template <typename F>
std::string error_of(F fn) {
  try {
    fn();
  } catch (const ember::Error& e) {
    return e.what();
  }
  return "";
}

std::vector<std::string> rnn_warnings;

TEST(RNN, ErrorsNameTheShapesTheCallerPasses) {
  nn::LSTM m(nn::LSTMOptions(3, 4).num_layers(2));
  // An empty sequence, as PyTorch: no output of length 0 with zero states.
  EXPECT_NE(error_of([&] { m->forward(ember::randn({0, 2, 3})); }).find("Expected sequence length to be larger than 0"),
            std::string::npos);
  nn::GRU batch_first(nn::GRUOptions(3, 4).batch_first(true));
  EXPECT_NE(error_of([&] { batch_first->forward(ember::randn({2, 0, 3})); }).find("larger than 0"), std::string::npos);
  EXPECT_EQ(std::get<0>(batch_first->forward(ember::randn({0, 5, 3}))).size(0), 0);  // an empty batch is fine
  // Unbatched input: the state's rank and shape are named as the caller gives them.
  const std::string rank = error_of([&] {
    m->forward(ember::randn({5, 3}), std::make_tuple(ember::zeros({2, 1, 4}), ember::zeros({2, 1, 4})));
  });
  EXPECT_NE(rank.find("For unbatched 2-D input, hx should also be 2-D but got 3-D tensor"), std::string::npos) << rank;
  const std::string shape = error_of([&] {
    m->forward(ember::randn({5, 3}), std::make_tuple(ember::zeros({2, 5}), ember::zeros({2, 4})));
  });
  EXPECT_NE(shape.find("Expected hidden[0] size (2, 4), got [2, 5]"), std::string::npos) << shape;
}

TEST(RNN, DropoutWithOneLayerWarns) {
  rnn_warnings.clear();
  auto previous = ember::set_warning_handler([](const std::string& message, const char*, int, const char*) {
    rnn_warnings.push_back(message);
  });
  nn::LSTM one(nn::LSTMOptions(3, 4).dropout(0.3));
  nn::LSTM two(nn::LSTMOptions(3, 4).dropout(0.3).num_layers(2));
  ember::set_warning_handler(previous);
  ASSERT_EQ(rnn_warnings.size(), 1u);
  EXPECT_NE(rnn_warnings[0].find("but got dropout=0.3 and num_layers=1"), std::string::npos) << rnn_warnings[0];
}

TEST(RNN, CloneCopiesParameters) {
  nn::LSTM m(nn::LSTMOptions(3, 4).num_layers(2));
  auto copy = std::dynamic_pointer_cast<nn::LSTMImpl>(m->clone());
  ASSERT_TRUE(copy);
  Tensor x = ember::randn({4, 1, 3});
  EXPECT_TRUE(ember::equal(std::get<0>(copy->forward(x)), std::get<0>(m->forward(x))));
}

}  // namespace
