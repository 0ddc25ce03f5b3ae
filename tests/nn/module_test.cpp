// ember::nn::Module from C++: registration and its errors, Python's dotted names and traversal order, shared
// members, train/eval, zero_grad, to(dtype), holders, printing, state dicts. Expected names and orders are
// Python ember.nn's (which equal PyTorch 1.13's).
#include <gtest/gtest.h>

#include <sstream>

#include "TestSupport.h"
#include "ember/api/ember.h"

namespace {

using namespace ember;
using ember::testing::make_tensor;
using ember::testing::values;
using Strings = std::vector<std::string>;

// A leaf module with one parameter of each kind of use.
struct LeafImpl : nn::Module {
  explicit LeafImpl(int64_t n = 2) {
    weight = register_parameter("weight", ember::ones({n}, kFloat32));
    running = register_buffer("running", ember::zeros({n}, kFloat32));
  }
  Tensor forward(const Tensor& x) { return x * weight; }
  std::string extra_repr() const override { return "n=" + std::to_string(weight.size(0)); }
  Tensor weight, running;
};
EMBER_MODULE(Leaf);

// Two leaves and a nested pair, as a user's network.
struct NetImpl : nn::Module {
  NetImpl() {
    a = register_module("a", Leaf(2));
    inner = register_module("inner", std::make_shared<nn::Module>("Inner"));
    inner->register_module("b", Leaf(3));
    scale = register_parameter("scale", ember::full({}, 2.0, kFloat32));
  }
  Tensor forward(const Tensor& x) { return a(x) * scale; }
  Leaf a{nullptr};
  std::shared_ptr<nn::Module> inner;
  Tensor scale;
};
EMBER_MODULE(Net);

TEST(Module, NamedMembersUsePythonsDottedNamesAndOrder) {
  Net net;
  EXPECT_EQ(net->named_parameters().keys(), (Strings{"scale", "a.weight", "inner.b.weight"}));
  EXPECT_EQ(net->named_buffers().keys(), (Strings{"a.running", "inner.b.running"}));
  EXPECT_EQ(net->named_parameters(/*recurse=*/false).keys(), (Strings{"scale"}));
  EXPECT_EQ(net->parameters().size(), 3u);
  EXPECT_EQ(net->named_modules().keys(), (Strings{"", "a", "inner", "inner.b"}));
  EXPECT_EQ(net->named_modules("net").keys(), (Strings{"net", "net.a", "net.inner", "net.inner.b"}));
  EXPECT_EQ(net->named_modules("", /*include_self=*/false).keys(), (Strings{"a", "inner", "inner.b"}));
  EXPECT_EQ(net->named_children().keys(), (Strings{"a", "inner"}));
  EXPECT_EQ(net->modules().size(), 4u);
  EXPECT_EQ(net->children().size(), 2u);
  EXPECT_EQ(net->state_dict().keys(),
            (Strings{"scale", "a.weight", "a.running", "inner.b.weight", "inner.b.running"}));
}

TEST(Module, SharedSubmodulesAreListedOnceButStateDictNamesBoth) {
  auto shared = std::make_shared<LeafImpl>(2);
  nn::Module root("Root");
  root.register_module("x", shared);
  root.register_module("y", shared);
  EXPECT_EQ(root.named_parameters().keys(), (Strings{"x.weight"}));
  EXPECT_EQ(root.named_modules("", false).keys(), (Strings{"x"}));
  EXPECT_EQ(root.named_children().keys(), (Strings{"x"}));
  EXPECT_EQ(root.state_dict().keys(), (Strings{"x.weight", "x.running", "y.weight", "y.running"}));
}

TEST(Module, ModulesWithSelfNeedASharedPtr) {
  nn::Module on_stack("Stack");
  EMBER_EXPECT_ERROR(on_stack.modules(), Runtime, "std::make_shared");
  EXPECT_TRUE(on_stack.modules(/*include_self=*/false).empty());
}

TEST(Module, NameComesFromTheTypeWithoutImpl) {
  Net net;
  EXPECT_EQ(net->name(), "Net");
  EXPECT_EQ(net->a->name(), "Leaf");
  EXPECT_EQ(nn::Module("Custom").name(), "Custom");
}

TEST(Module, RegistrationErrors) {
  nn::Module m("M");
  EMBER_EXPECT_ERROR(m.register_parameter("", ember::ones({1})), Runtime, "can't be empty");
  EMBER_EXPECT_ERROR(m.register_parameter("a.b", ember::ones({1})), Runtime, "can't contain \".\"");
  m.register_parameter("w", ember::ones({1}));
  EMBER_EXPECT_ERROR(m.register_buffer("w", ember::ones({1})), Runtime, "already used");
  EMBER_EXPECT_ERROR(m.register_module("w", std::make_shared<nn::Module>()), Runtime, "already used");
  EMBER_EXPECT_ERROR(m.register_module("n", std::shared_ptr<nn::Module>()), Runtime, "null");
  Tensor leaf = ember::ones({2});
  autograd::set_requires_grad(leaf, true);
  EMBER_EXPECT_ERROR(m.register_parameter("v", leaf * 2), Value, "non-leaf");
  EMBER_EXPECT_ERROR(m.unregister_module("nope"), Runtime, "nope");
}

TEST(Module, ReRegisteringReplacesInPlace) {
  nn::Module m("M");
  m.register_parameter("a", ember::ones({1}));
  m.register_parameter("b", ember::ones({1}));
  Tensor replacement = ember::zeros({2});
  m.register_parameter("a", replacement);
  EXPECT_EQ(m.named_parameters().keys(), (Strings{"a", "b"}));
  EXPECT_TRUE(m.named_parameters()["a"].is_same(replacement));
}

TEST(Module, ParametersRequireGradAndUndefinedOnesAreAbsent) {
  nn::Module m("M");
  Tensor w = m.register_parameter("w", ember::ones({2}));
  Tensor frozen = m.register_parameter("frozen", ember::ones({2}), /*requires_grad=*/false);
  m.register_parameter("bias", Tensor());
  EXPECT_TRUE(autograd::requires_grad(w));
  EXPECT_FALSE(autograd::requires_grad(frozen));
  EXPECT_EQ(m.named_parameters().keys(), (Strings{"w", "frozen"}));
  EXPECT_EQ(m.state_dict().keys(), (Strings{"w", "frozen"}));
}

TEST(Module, NonPersistentBuffersStayOutOfTheStateDict) {
  nn::Module m("M");
  m.register_buffer("kept", ember::ones({1}));
  m.register_buffer("scratch", ember::ones({1}), /*persistent=*/false);
  EXPECT_EQ(m.named_buffers().keys(), (Strings{"kept", "scratch"}));
  EXPECT_EQ(m.state_dict().keys(), (Strings{"kept"}));
}

TEST(Module, TrainAndEvalReachEverySubmodule) {
  Net net;
  EXPECT_TRUE(net->is_training());
  net->eval();
  for (const auto& m : net->modules()) EXPECT_FALSE(m->is_training()) << m->name();
  net->train();
  for (const auto& m : net->modules()) EXPECT_TRUE(m->is_training()) << m->name();
  net->train(false);
  EXPECT_FALSE(net->a->is_training());
}

TEST(Module, ZeroGradZeroesOrDropsGrads) {
  Net net;
  Tensor x = make_tensor<float>({1, 2});
  autograd::backward({net(x).sum()});
  Tensor w = net->a->weight;
  ASSERT_TRUE(autograd::grad(w).defined());
  EXPECT_EQ(values<float>(autograd::grad(w)), (std::vector<float>{2, 4}));
  net->zero_grad();
  EXPECT_EQ(values<float>(autograd::grad(w)), (std::vector<float>{0, 0}));
  net->zero_grad(/*set_to_none=*/true);
  EXPECT_FALSE(autograd::grad(w).defined());
}

TEST(Module, ToConvertsFloatingTensorsKeepingTheirIdentity) {
  Net net;
  Tensor w = net->a->weight;
  net->register_buffer("steps", ember::zeros({}, kInt64));
  autograd::backward({net(make_tensor<float>({1, 2})).sum()});
  net->to(kFloat64);
  EXPECT_EQ(w.dtype(), kFloat64);  // the handle the layer holds sees the conversion
  EXPECT_EQ(net->named_parameters()["a.weight"].dtype(), kFloat64);
  EXPECT_EQ(autograd::grad(w).dtype(), kFloat64);
  EXPECT_TRUE(autograd::requires_grad(w));
  EXPECT_EQ(net->named_buffers()["steps"].dtype(), kInt64);
  EXPECT_EQ(values<double>(net(make_tensor<double>({1, 2}))), (std::vector<double>{2, 4}));
  EMBER_EXPECT_ERROR(net->to(kInt32), Type, "floating point");
}

TEST(Module, HoldersShareAndMayBeEmpty) {
  Leaf empty{nullptr};
  EXPECT_TRUE(empty.is_empty());
  EXPECT_FALSE(static_cast<bool>(empty));
  EMBER_EXPECT_ERROR(empty->forward(ember::ones({2})), Runtime, "empty Leaf holder");
  Leaf one(2);
  Leaf alias = one;
  EXPECT_EQ(alias.ptr(), one.ptr());
  EXPECT_EQ(values<float>(one(make_tensor<float>({3, 4}))), (std::vector<float>{3, 4}));
  Leaf from_ptr(std::make_shared<LeafImpl>(5));
  EXPECT_EQ(from_ptr->weight.size(0), 5);
  EXPECT_NE(one->as<LeafImpl>(), nullptr);
  EXPECT_EQ(one->as<NetImpl>(), nullptr);
  // A holder type names its Impl, as LibTorch's `m->as<nn::Linear>()`.
  nn::Sequential seq(nn::Linear(2, 3), nn::ReLU());
  nn::LinearImpl* lin = seq[0]->as<nn::Linear>();
  ASSERT_NE(lin, nullptr);
  EXPECT_EQ(lin->weight.size(0), 3);
  EXPECT_EQ(seq[1]->as<nn::Linear>(), nullptr);
  const nn::Module& cm = *seq[0];
  EXPECT_NE(cm.as<nn::Linear>(), nullptr);
  empty = one;
  EXPECT_FALSE(empty.is_empty());
}

TEST(Module, PrintsLikePythonsRepr) {
  Net net;
  std::ostringstream s;
  s << net;
  EXPECT_EQ(s.str(),
            "Net(\n"
            "  (a): Leaf(n=2)\n"
            "  (inner): Inner(\n"
            "    (b): Leaf(n=3)\n"
            "  )\n"
            ")");
  std::ostringstream leaf;
  leaf << *net->a;
  EXPECT_EQ(leaf.str(), "Leaf(n=2)");
  std::ostringstream bare;
  bare << nn::Module("Empty");
  EXPECT_EQ(bare.str(), "Empty()");
}

TEST(Module, LoadStateDictCopiesValuesWithoutHistory) {
  Net src, dst;
  {
    autograd::NoGradGuard g;
    src->a->weight.fill_(7);
    src->scale.fill_(3);
  }
  dst->load_state_dict(src->state_dict());
  EXPECT_EQ(values<float>(dst->a->weight), (std::vector<float>{7, 7}));
  EXPECT_EQ(dst->scale.item<float>(), 3);
  EXPECT_TRUE(autograd::is_leaf(dst->a->weight));
  // A one-element vector loads into a 0-dim parameter (old checkpoints).
  auto state = src->state_dict();
  state["scale"] = make_tensor<float>({5});
  dst->load_state_dict(state);
  EXPECT_EQ(dst->scale.item<float>(), 5);
}

TEST(Module, LoadStateDictListsEveryProblem) {
  Net net;
  auto state = net->state_dict();
  state.erase("a.weight");
  state.insert("a.extra", ember::ones({1}));
  state["inner.b.weight"] = ember::ones({4});
  std::string msg = ember::testing::expect_error([&] { net->load_state_dict(state); }).what();
  EXPECT_TRUE(ember::testing::contains(msg, "Error(s) in loading state_dict for Net:"));
  EXPECT_TRUE(ember::testing::contains(msg, "Missing key(s) in state_dict: \"a.weight\"."));
  EXPECT_TRUE(ember::testing::contains(msg, "Unexpected key(s) in state_dict: \"a.extra\"."));
  EXPECT_TRUE(ember::testing::contains(
      msg, "size mismatch for inner.b.weight: copying a param with shape [4] from checkpoint, the shape in current "
           "model is [3]."));
  // Nothing was copied: inner.b.running is untouched even though its entry was fine.
  state["inner.b.running"] = ember::full({3}, 9.0);
  EXPECT_ANY_THROW(net->load_state_dict(state));
  EXPECT_EQ(values<float>(net->named_buffers()["inner.b.running"]), (std::vector<float>{0, 0, 0}));
  // Without strict, only the shapes must agree.
  state["inner.b.weight"] = ember::ones({3});
  net->load_state_dict(state, /*strict=*/false);
  EXPECT_EQ(values<float>(net->named_buffers()["inner.b.running"]), (std::vector<float>{9, 9, 9}));
}

TEST(Module, ApplyVisitsEveryModuleOnceAndReplaceModuleSwapsAChild) {
  Net net;
  std::vector<std::string> names;
  net->apply([&](nn::Module& m) { names.push_back(m.name()); });
  EXPECT_EQ(names, (Strings{"Net", "Leaf", "Inner", "Leaf"}));
  const nn::Module& const_net = *net;
  size_t count = 0;
  const_net.apply([&](const nn::Module&) { ++count; });
  EXPECT_EQ(count, 4u);
  auto replacement = net->replace_module("a", Leaf(4));
  EXPECT_EQ(replacement->weight.size(0), 4);
  EXPECT_EQ(net->named_parameters().keys(), (Strings{"scale", "a.weight", "inner.b.weight"}));
  EXPECT_EQ(net->named_parameters()["a.weight"].size(0), 4);
  net->unregister_module("a");
  EXPECT_EQ(net->named_children().keys(), (Strings{"inner"}));
}

TEST(OrderedDict, KeepsInsertionOrderAndReportsMissingKeys) {
  OrderedDict<std::string, int> d("Thing");
  d.insert("b", 1);
  d.insert("a", 2);
  d.insert("c", 3);
  EXPECT_EQ(d.keys(), (Strings{"b", "a", "c"}));
  EXPECT_EQ(d.values(), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(d["a"], 2);
  EXPECT_EQ(d[2].key(), "c");
  EXPECT_EQ(*d.find("c"), 3);
  EXPECT_EQ(d.find("z"), nullptr);
  EXPECT_TRUE(d.contains("b"));
  EMBER_EXPECT_ERROR(d.insert("a", 5), Runtime, "Thing 'a' already defined");
  EMBER_EXPECT_ERROR(d["z"], Runtime, "Thing 'z' is not defined");
  EMBER_EXPECT_ERROR(d[7], Index, "out of bounds");
  d.erase("a");
  EXPECT_EQ(d.keys(), (Strings{"b", "c"}));
  EXPECT_EQ(d["c"], 3);
  EXPECT_EQ(d.front().key(), "b");
  EXPECT_EQ(d.back().value(), 3);
  OrderedDict<std::string, int> e{{"x", 1}, {"y", 2}};
  d.update(e);
  EXPECT_EQ(d.keys(), (Strings{"b", "c", "x", "y"}));
  d.clear();
  EXPECT_TRUE(d.is_empty());
  EMBER_EXPECT_ERROR(d.front(), Runtime, "empty");
}

}  // namespace
